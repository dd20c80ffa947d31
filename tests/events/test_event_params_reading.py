"""How the events tests read an event's parameters (``_support.params``): groups (MQCFGR) as
their members, nested, and byte strings (MQCFBS) as bytes, so that a command event reads as
its CommandContext and CommandData groups. No queue manager: messages built, sent through
PCF's bytes and parsed back, as amqsevt receives them."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, events, pcf

from ._support import params


def test_a_command_event_reads_as_its_two_groups_with_the_accounting_token_as_bytes():
    """Given a PCF command's Command event from a command message (its origin MQEVO_MSG with
    an accounting token), when it is parsed and read through params, then it is two groups,
    CommandContext (the origin, the token as its 32 bytes, the command) and CommandData (the
    command's parameters as sent), each a list of (parameter, value)."""
    origin = events.EventOrigin(user="opsuser", origin=CMQCFC.MQEVO_MSG, qmgr="QM1",
                                accounting_token=b"\x05" * 32, appl_name="pcfadmin",
                                appl_type=CMQC.MQAT_UNIX)
    sent = [pcf.CFST(CMQC.MQCA_Q_NAME, b"A.Q"), pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 7)]
    msg = pcf.parse(pcf.build(events.command_event(origin, CMQCFC.MQCMD_CHANGE_Q,
                                                   params=sent)))
    (context_id, context), (data_id, data) = params(msg)
    assert (context_id, data_id) == (CMQCFC.MQGACF_COMMAND_CONTEXT, CMQCFC.MQGACF_COMMAND_DATA)
    context = dict(context)
    assert context[CMQCFC.MQCACF_EVENT_USER_ID] == "opsuser"
    assert context[CMQCFC.MQBACF_EVENT_ACCOUNTING_TOKEN] == b"\x05" * 32
    assert context[CMQCFC.MQIACF_COMMAND] == CMQCFC.MQCMD_CHANGE_Q
    assert data == [(CMQC.MQCA_Q_NAME, "A.Q"), (CMQC.MQIA_MAX_Q_DEPTH, 7)]


def test_an_integer_list_reads_as_a_list():
    """Given an event carrying an MQCFIL (an authority record's AuthorizationList), when read
    through params, then its value is the list of integers."""
    origin = events.EventOrigin(user="u", origin=CMQCFC.MQEVO_CONSOLE, qmgr="QM1")
    msg = pcf.parse(pcf.build(events.create_object(origin, CMQC.MQOT_AUTH_REC, [
        pcf.CFST(CMQCFC.MQCACF_AUTH_PROFILE_NAME, b"P"),
        pcf.CFIL(CMQCFC.MQIACF_AUTHORIZATION_LIST, [CMQCFC.MQAUTH_INPUT])])))
    assert dict(params(msg))[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_INPUT]
