"""The PCF names of pymqi beyond the basics (tests/client/test_pymqi_pcf.py has those):
ByteString, FilterOperator / StringFilter / IntegerFilter, a single int for an *_ATTRS
parameter, CF* filter structures in the filter list, PCFExecute.unpack, the constant-name
tables and the reply queue, as pymqi 1.12 has them.

what pymqi users rely on: "pymqi compatibility": the names in pymqi's documentation and examples
exist with the same signatures and behaviour (PCFExecute for the command server).
"""

from __future__ import annotations

import threading

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC, pcf
from tests.pymqi_compat.conftest import QUEUE


def test_a_single_int_for_an_attrs_parameter_asks_for_that_attribute(pcf_exec):
    """Given a queue with one message, when a program inquires it with
    {MQIACF_Q_ATTRS: MQIA_CURRENT_Q_DEPTH} (one int, as MQAI allowed), then the command
    server gets a one-element list and answers the depth without the other attributes."""
    pymqi.Queue(pcf_exec.qm, QUEUE).put(b"one")
    (answer,) = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE,
                                          CMQCFC.MQIACF_Q_ATTRS: CMQC.MQIA_CURRENT_Q_DEPTH})
    assert answer[CMQC.MQIA_CURRENT_Q_DEPTH] == 1
    assert CMQC.MQIA_MAX_Q_DEPTH not in answer


def test_filters_are_string_and_integer_filters_or_cf_structures(pcf_exec):
    """Given one queue holding a message, when a program filters an inquiry with
    Filter(...).op(value) (a StringFilter / IntegerFilter), with FilterOperator itself, or
    with a CFIF structure, then each selects the same queue."""
    pymqi.Queue(pcf_exec.qm, QUEUE).put(b"deep")
    args = {CMQC.MQCA_Q_NAME: b"*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}
    by_depth = pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)
    assert isinstance(by_depth, pymqi.IntegerFilter)
    by_name = pymqi.FilterOperator(CMQC.MQCA_Q_NAME, "like")(b"APP.Q*")
    assert isinstance(by_name, pymqi.StringFilter)
    raw = pymqi.CFIF(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_EQUAL,
                     FilterValue=1)
    for condition in (by_depth, by_name, raw):
        found = pcf_exec.MQCMD_INQUIRE_Q(args, [condition])
        assert [q[CMQC.MQCA_Q_NAME].strip() for q in found] == [QUEUE.encode()]


def test_commands_may_be_named_through_cmqcfc(pcf_exec):
    """Given a PCFExecute, when a program calls pcf.CMQCFC.MQCMD_PING_Q_MGR() (pymqi's
    dotted form), then the command runs; an unknown command name is an AttributeError."""
    assert pcf_exec.CMQCFC.MQCMD_PING_Q_MGR() == [{}]
    with pytest.raises(AttributeError):
        pcf_exec.MQCMD_NO_SUCH_COMMAND()


def test_unsupported_filters_are_pymqi_errors():
    """Given a selector outside the MQIA_/MQCA_ ranges or an unknown operator name, when a
    filter is made from it, then pymqi.Error says so (not an AttributeError)."""
    with pytest.raises(pymqi.Error, match="unsupported type"):
        pymqi.Filter(CMQCFC.MQGACF_Q_STATISTICS_DATA).equal(1)
    with pytest.raises(pymqi.Error, match="not supported"):
        pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).bigger(1)
    assert pymqi.Filter(CMQC.MQIA_Q_TYPE).selector == CMQC.MQIA_Q_TYPE


def test_a_byte_string_travels_as_an_mqcfbs(env):
    """Given a PCFExecute whose command queue is an application queue, answered by this
    test acting as the command server, when a command carries a ByteString and an int
    *_ATTRS value, then the request is an MQFMT_ADMIN request whose parameters are an
    MQCFBS holding the bytes and a one-element MQCFIL, and the reply put to its ReplyToQ
    with CorrelId = MsgId comes back as the command's result."""
    qm = env.bindings()
    executor = pymqi.PCFExecute(qm, command_queue_name=QUEUE.encode(),
                                response_wait_interval=30000)
    conn_id = pymqi.ByteString(b"\x01\x02AMQ" + bytes(19))
    assert len(conn_id) == 24
    outcome: dict = {}

    def program() -> None:
        try:
            outcome["result"] = executor.MQCMD_INQUIRE_CONNECTION(
                {CMQCFC.MQBACF_CONNECTION_ID: conn_id,
                 CMQCFC.MQIACF_CONNECTION_ATTRS: CMQCFC.MQIACF_ALL})
        except pymqi.Error as exc:
            outcome["error"] = exc

    caller = threading.Thread(target=program)
    caller.start()
    server = env.bindings()
    md = pymqi.MD()
    data = pymqi.Queue(server, QUEUE).get(
        None, md, pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000))
    request = pcf.parse(data)
    assert md.Format == CMQC.MQFMT_ADMIN and md.MsgType == CMQC.MQMT_REQUEST
    assert request.header.Command == CMQCFC.MQCMD_INQUIRE_CONNECTION
    bytestring, attrs = request.params
    assert isinstance(bytestring, pcf.CFBS) and bytestring.String == conn_id.value
    assert isinstance(attrs, pcf.CFIL) and attrs.Values == [CMQCFC.MQIACF_ALL]
    reply = pcf.build(pcf.PCFMessage(
        pymqi.CFH(Type=CMQCFC.MQCFT_RESPONSE, Command=CMQCFC.MQCMD_INQUIRE_CONNECTION),
        [pcf.CFBS(CMQCFC.MQBACF_CONNECTION_ID, conn_id.value)]))
    server.put1(md.ReplyToQ, reply, pymqi.MD(CorrelId=md.MsgId, Format=CMQC.MQFMT_ADMIN,
                                             MsgType=CMQC.MQMT_REPLY))
    caller.join(60)
    assert outcome == {"result": [{CMQCFC.MQBACF_CONNECTION_ID: conn_id.value}]}
    assert md.ReplyToQ.strip() == executor.reply_queue_name
    executor.disconnect()
    assert executor.reply_queue is None
    server.disconnect()
    qm.disconnect()


def test_unpack_gives_pymqis_shape_and_raises_for_failures():
    """Given PCF responses as bytes, when PCFExecute.unpack reads them, then it returns
    ({parameter: value}, the MQCFH), strings as read (padding included, as pymqi), every
    group as a list of dicts; a response with
    MQCC_FAILED raises MQMIError with its reason; a garbled one its MQRCCF_* reason."""
    group = pcf.CFGR(CMQCFC.MQGACF_Q_STATISTICS_DATA,
                     [pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.Q"), pcf.CFIN(CMQCFC.MQIAMO_PUTS, 3)])
    ok = pcf.build(pcf.PCFMessage(
        pymqi.CFH(Type=CMQCFC.MQCFT_RESPONSE, Command=CMQCFC.MQCMD_INQUIRE_Q),
        [pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.Q"), pcf.CFIL(CMQCFC.MQIACF_Q_ATTRS, [1, 2]), group]))
    values, header = pymqi.PCFExecute.unpack(ok)
    assert header.Command == CMQCFC.MQCMD_INQUIRE_Q and header.Control == CMQCFC.MQCFC_LAST
    assert values == {CMQC.MQCA_Q_NAME: b"APP.Q\0\0\0", CMQCFC.MQIACF_Q_ATTRS: [1, 2],
                      CMQCFC.MQGACF_Q_STATISTICS_DATA: [{CMQC.MQCA_Q_NAME: b"APP.Q\0\0\0",
                                                         CMQCFC.MQIAMO_PUTS: 3}]}
    failed = pcf.build(pcf.PCFMessage(pymqi.CFH(Type=CMQCFC.MQCFT_RESPONSE,
                                                CompCode=CMQC.MQCC_FAILED,
                                                Reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME)))
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.PCFExecute.unpack(failed)
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.PCFExecute.unpack(ok[:-6])
    assert e.value.reason > 3000  # an MQRCCF_* reason, not a traceback


def test_constant_name_tables():
    """Given PCFExecute's iaStringDict / caStringDict, when a program looks codes up, then
    known ones give their MQIA_ / MQCA_ names, unknown ones are absent (KeyError)."""
    assert pymqi.PCFExecute.caStringDict[CMQC.MQCA_Q_NAME] == "MQCA_Q_NAME"
    assert pymqi.PCFExecute.iaStringDict[CMQC.MQIA_CURRENT_Q_DEPTH] == "MQIA_CURRENT_Q_DEPTH"
    assert 999999 not in pymqi.PCFExecute.iaStringDict
    with pytest.raises(KeyError):
        pymqi.PCFExecute.caStringDict[999999]


def test_disconnect_forgets_the_reply_queue_and_keeps_the_programs_connection(pcf_exec):
    """Given a PCFExecute over a program's QueueManager, when it disconnects, then its reply
    queue and reply queue name are gone (None, as pymqi), and the program's connection is
    still connected."""
    assert pcf_exec.reply_queue is not None and pcf_exec.reply_queue_name
    pcf_exec.disconnect()
    assert pcf_exec.reply_queue is None
    assert pcf_exec.reply_queue_name is None
    assert pcf_exec.qm.is_connected


def test_ibmmq_string_dicts_cover_the_pcf_and_channel_ranges():
    """Given ibmmq 2.x's PCFExecute tables (iaStringDict over MQIA_, MQIACF_ and MQIACH_,
    caStringDict over MQCA_, MQCACF_ and MQCACH_, and baStringDict over MQBACF_), when a
    program names a PCF or channel parameter, then its name is found; an MQIA_ code keeps
    its MQIA_ name; stringify_keys names a channel parameter by its name, not by the
    MQCACH_FIRST bound that has the same value."""
    from mqpy import CMQCFC
    ia, ca, ba = (pymqi.PCFExecute.iaStringDict, pymqi.PCFExecute.caStringDict,
                  pymqi.PCFExecute.baStringDict)
    assert ia[CMQCFC.MQIACF_Q_ATTRS] == "MQIACF_Q_ATTRS"
    assert ia[CMQCFC.MQIACH_CHANNEL_TYPE] == "MQIACH_CHANNEL_TYPE"
    assert ia[CMQC.MQIA_CURRENT_Q_DEPTH] == "MQIA_CURRENT_Q_DEPTH"
    assert ca[CMQCFC.MQCACH_CHANNEL_NAME] == "MQCACH_CHANNEL_NAME"
    assert ca[CMQCFC.MQCACF_Q_NAMES] == "MQCACF_Q_NAMES"
    assert ba[CMQCFC.MQBACF_CONNECTION_ID] == "MQBACF_CONNECTION_ID"
    assert CMQC.MQCA_Q_NAME not in ba
    assert pymqi.PCFExecute.stringify_keys({CMQCFC.MQCACH_CHANNEL_NAME: b"X"}) \
        == {"MQCACH_CHANNEL_NAME": b"X"}
