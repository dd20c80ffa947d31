"""Bad PCF requests to the command server: each gets an MQRCCF_* or MQRC_* answer naming
what is wrong, never an internal fault hidden behind MQRCCF_COMMAND_FAILED (3008)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.tables import CFH, MD

_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])

#: (command, the object name parameter it needs) for the commands the server answers
_COMMANDS = [
    (CMQCFC.MQCMD_INQUIRE_Q, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_INQUIRE_Q_NAMES, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_INQUIRE_Q_STATUS, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_CREATE_Q, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_CHANGE_Q, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_DELETE_Q, CMQC.MQCA_Q_NAME),
    (CMQCFC.MQCMD_INQUIRE_Q_MGR, None),
    (CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS, None),
    (CMQCFC.MQCMD_RESET_Q_MGR, None),
    (CMQCFC.MQCMD_ESCAPE, None),
    (CMQCFC.MQCMD_INQUIRE_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_CREATE_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_STOP_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_PING_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_RESET_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_RESOLVE_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS, CMQCFC.MQCACH_CHANNEL_NAME),
    (CMQCFC.MQCMD_INQUIRE_SERVICE, CMQC.MQCA_SERVICE_NAME),
    (CMQCFC.MQCMD_REFRESH_SECURITY, None),
    (CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, CMQC.MQCA_CLUSTER_Q_MGR_NAME),
    (CMQCFC.MQCMD_RESET_CLUSTER, CMQC.MQCA_CLUSTER_NAME),
]

#: parameters that steer a command (a scalar MQCFIN, a list MQCFIL or a name MQCFST)
_STEERING = [
    CMQC.MQIA_Q_TYPE, CMQCFC.MQIACH_CHANNEL_TYPE, CMQCFC.MQIACH_IN_DOUBT,
    CMQCFC.MQIACH_DATA_COUNT, CMQCFC.MQIACF_MODE, CMQCFC.MQIACF_ACTION,
    CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, CMQCFC.MQIACH_CHANNEL_STATUS,
    CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE, CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQIACF_REPLACE,
    CMQCFC.MQIACF_PURGE, CMQCFC.MQIACF_Q_STATUS_TYPE, CMQCFC.MQIACF_ESCAPE_TYPE,
    CMQCFC.MQIACF_REMOVE_QUEUES, CMQCFC.MQIACF_CLUSTER_INFO,
    CMQCFC.MQIACF_Q_ATTRS, CMQCFC.MQIACF_Q_MGR_ATTRS, CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS,
    CMQCFC.MQIACF_CHANNEL_ATTRS, CMQCFC.MQIACF_SERVICE_ATTRS,
    CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS,
    CMQC.MQCA_Q_NAME, CMQCFC.MQCACH_CHANNEL_NAME, CMQC.MQCA_SERVICE_NAME,
    CMQCFC.MQCACF_ESCAPE_TEXT, CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQCACH_CONNECTION_NAME,
    CMQC.MQCA_CLUSTER_NAME,
]


def _structures(parameter: int) -> st.SearchStrategy:
    ints = st.sampled_from([0, 1, 2, -1, 2**31 - 1, -2**31])
    names = st.sampled_from([b"", b"*", b"Q1", b"SYSTEM.DEFAULT.LOCAL.QUEUE", b"X" * 100])
    return st.one_of(
        st.builds(pcf.CFIN, st.just(parameter), ints),
        st.builds(pcf.CFIL, st.just(parameter), st.lists(ints, max_size=3)),
        st.builds(pcf.CFST, st.just(parameter), names),
        st.builds(pcf.CFSL, st.just(parameter), st.lists(names, max_size=3)),
        st.builds(pcf.CFBS, st.just(parameter), names),
        st.builds(pcf.CFGR, st.just(parameter), st.just([pcf.CFIN(parameter, 1)])),
    )


def _ask(server, command: int, params: list) -> tuple[int, int]:
    """The (CompCode, Reason) of the last reply to one request."""
    data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
    replies = server.handle(MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN), data)
    server.qm.backout()
    last = pcf.parse(replies[-1][1]).header
    return last.CompCode, last.Reason


@_SETTINGS
@given(data=st.data(), command=st.sampled_from(_COMMANDS),
       parameter=st.sampled_from(_STEERING))
def test_any_structure_for_a_steering_parameter_gets_an_mq_answer(server, data, command,
                                                                  parameter):
    """Given a request whose steering parameter comes in any structure with any value, when
    the command server answers, then it is an MQ answer, not an internal fault."""
    command, name_parameter = command
    params = [] if name_parameter in (None, parameter) else [pcf.CFST(name_parameter, b"Q1")]
    params.append(data.draw(_structures(parameter)))
    del server.faults[:]
    comp, reason = _ask(server, command, params)
    assert server.faults == []
    assert comp == CMQC.MQCC_OK or reason != 0


@pytest.mark.parametrize("command, name_parameter, parameter", [
    (CMQCFC.MQCMD_REFRESH_SECURITY, None, CMQCFC.MQIACF_SECURITY_TYPE),
    (CMQCFC.MQCMD_RESOLVE_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_IN_DOUBT),
    (CMQCFC.MQCMD_STOP_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_STATUS),
    (CMQCFC.MQCMD_INQUIRE_Q, CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE),
])
def test_an_integer_in_a_list_is_cfil_parm_id_error(server, command, name_parameter,
                                                    parameter):
    """Given a scalar integer parameter sent as an MQCFIL, then MQRCCF_CFIL_PARM_ID_ERROR
    (3047), as IBM's command server names the structure it did not expect."""
    params = [] if name_parameter is None else [pcf.CFST(name_parameter, b"Q1")]
    comp, reason = _ask(server, command, [*params, pcf.CFIL(parameter, [1, 2])])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFIL_PARM_ID_ERROR)


def test_an_attribute_list_as_a_string_is_cfst_parm_id_error(server):
    """Given Inquire Queue Manager with its attribute list sent as an MQCFST, then
    MQRCCF_CFST_PARM_ID_ERROR (3015)."""
    comp, reason = _ask(server, CMQCFC.MQCMD_INQUIRE_Q_MGR,
                        [pcf.CFST(CMQCFC.MQIACF_Q_MGR_ATTRS, b"Q1")])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFST_PARM_ID_ERROR)


@pytest.mark.parametrize("value", [-1, 99, 2**31 - 1])
def test_inquire_channel_of_an_unknown_type_is_channel_type_error(server, value):
    """Given Inquire Channel with a ChannelType that is no channel type, then
    MQRCCF_CHANNEL_TYPE_ERROR (3034)."""
    comp, reason = _ask(server, CMQCFC.MQCMD_INQUIRE_CHANNEL,
                        [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"*"),
                         pcf.CFIN(CMQCFC.MQIACH_CHANNEL_TYPE, value)])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR)


@pytest.mark.parametrize("condition, reason", [
    (pcf.CFSF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_LIKE, b"Q*"),
     CMQCFC.MQRCCF_CFSF_PARM_ID_ERROR),
    (pcf.CFSF(CMQC.MQIA_MAX_Q_DEPTH, CMQCFC.MQCFOP_NOT_LESS, b"5"),
     CMQCFC.MQRCCF_CFSF_PARM_ID_ERROR),
    (pcf.CFIF(CMQC.MQCA_Q_DESC, CMQCFC.MQCFOP_GREATER, 1), CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR),
    (pcf.CFBF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_EQUAL, b"\x01"),
     CMQCFC.MQRCCF_CFBF_PARM_ID_ERROR),
])
def test_a_filter_of_the_wrong_type_for_its_parameter_is_parm_id_error(server, engine,
                                                                       condition, reason):
    """Given Inquire Queue with a string filter on an integer attribute (or the reverse),
    then MQRCCF_CFSF/CFIF/CFBF_PARM_ID_ERROR, as IBM names the filter it cannot apply."""
    if engine.lookup("QLOCAL", "Q1") is None:
        engine.define("QLOCAL", "Q1", {})
    comp, got = _ask(server, CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, b"*"),
                                                       condition])
    assert (comp, got) == (CMQC.MQCC_FAILED, reason)
