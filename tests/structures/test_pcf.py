"""PCF messages: every parameter type, nesting, exact round trips, IBM's own messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
needs_fixtures = pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared/fixtures absent")
BE = CMQC.MQENC_INTEGER_NORMAL


def _every_parameter() -> list[pcf.Parameter]:
    return [
        pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, 7),
        pcf.CFIN64(CMQCFC.MQIAMO64_PUT_BYTES, 2**40),
        pcf.CFIL(CMQCFC.MQIAMO_PUTS, [14, 0]),
        pcf.CFIL64(CMQCFC.MQIAMO64_GET_BYTES, [2**33, -1]),
        pcf.CFST(CMQC.MQCA_Q_NAME, "SYSTEM.DEFAULT.LOCAL.QUEUE", 819),
        pcf.CFSL(CMQCFC.MQCACF_Q_NAMES, ["ONE.NAME   ", "LONGER.NAME"]),
        pcf.CFBS(CMQCFC.MQBACF_CONNECTION_ID, b"\x01\x02\x03"),
        pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_GREATER, 10),
        pcf.CFSF(CMQC.MQCA_Q_DESC, CMQCFC.MQCFOP_LIKE, "test*"),
        pcf.CFBF(CMQCFC.MQBACF_CONNECTION_ID, CMQCFC.MQCFOP_EQUAL, b"\xff"),
        pcf.CFGR(CMQCFC.MQGACF_Q_STATISTICS_DATA, [
            pcf.CFST(CMQC.MQCA_Q_NAME, "Q1"),
            pcf.CFGR(CMQCFC.MQGACF_Q_STATISTICS_DATA, [pcf.CFIN(CMQC.MQIA_Q_TYPE, 1)]),
            pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, 0),
        ]),
    ]


@pytest.mark.parametrize("encoding", [None, BE])
def test_every_parameter_type_round_trips(encoding):
    """Given one of each parameter, nested groups included, when built and parsed in either
    byte order, then the message is unchanged and rebuilds to the same bytes."""
    msg = pcf.PCFMessage(CFH(Type=CMQCFC.MQCFT_STATISTICS, Command=CMQCFC.MQCMD_STATISTICS_Q),
                         _every_parameter())
    data = pcf.build(msg, encoding)
    back = pcf.parse(data, encoding)
    assert back.params == msg.params
    assert back.header.ParameterCount == len(msg.params)
    assert pcf.build(back, encoding) == data


def test_string_parameters_are_padded_to_four_bytes():
    """Given a 10-byte string, then MQCFST is 20 + 12 bytes with two NULs of padding."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFST(CMQCFC.MQCAMO_START_DATE, "2020-06-15")]))
    param = data[CFH.length():]
    assert len(param) == 32 and int.from_bytes(param[4:8], "little") == 32
    assert param[20:] == b"2020-06-15\0\0"


def test_string_list_blank_pads_to_longest():
    """Given strings of different lengths, then MQCFSL StringLength is the longest, blanks pad."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFSL(1, ["AB", "C"])]))
    param = data[CFH.length():]
    assert int.from_bytes(param[20:24], "little") == 2 and param[24:28] == b"ABC "


def test_group_counts_its_members():
    """Given a group, then its ParameterCount is the number of parameters following it."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFGR(8001, [pcf.CFIN(1, 1), pcf.CFIN(2, 2)])]))
    group = data[CFH.length():CFH.length() + 16]
    assert int.from_bytes(group[12:16], "little") == 2
    assert int.from_bytes(data[32:36], "little") == 1  # CFH ParameterCount: the group only


def test_truncated_message_is_rejected():
    """Given a message cut inside a parameter, then StructError names the parameter."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFST(1, "HELLO")]))
    with pytest.raises(StructError, match="CFST at offset 36") as info:
        pcf.parse(data[:-4])
    assert info.value.reason == CMQCFC.MQRCCF_CFST_LENGTH_ERROR


def test_unknown_structure_type_is_rejected():
    """Given a parameter of unknown Type, then StructError with MQRCCF_STRUCTURE_TYPE_ERROR."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFIN(1, 1)]))
    bad = data[:36] + (99).to_bytes(4, "little") + data[40:]
    with pytest.raises(StructError, match="unknown PCF structure type 99") as info:
        pcf.parse(bad)
    assert info.value.reason == CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR


def test_trailing_bytes_are_rejected():
    """Given bytes after the last counted parameter, then the message length is wrong."""
    data = pcf.build(pcf.PCFMessage(params=[pcf.CFIN(1, 1)]))
    with pytest.raises(StructError) as info:
        pcf.parse(data + bytes(4))
    assert info.value.reason == CMQCFC.MQRCCF_MSG_LENGTH_ERROR


@needs_fixtures
def test_ibm_queue_statistics_message():
    """Given IBM's SYSTEM.ADMIN.STATISTICS.QUEUE message, then the facts of README.md are read
    and it packs back to the same bytes."""
    data = (FIXTURES / "statistics_q.dat").read_bytes()
    msg = pcf.parse(data)
    assert msg.header.Type == CMQCFC.MQCFT_STATISTICS == 21
    assert msg.header.Command == CMQCFC.MQCMD_STATISTICS_Q == 165
    assert msg.get(CMQC.MQCA_Q_MGR_NAME).rstrip() == b"mq_mgr1"
    assert msg.get(CMQCFC.MQCAMO_START_DATE) == b"2020-06-15"
    groups = list(msg.groups(CMQCFC.MQGACF_Q_STATISTICS_DATA))
    assert CMQCFC.MQGACF_Q_STATISTICS_DATA == 8011 and len(groups) == 16
    assert groups[0].get(CMQC.MQCA_Q_NAME).rstrip() == b"SYSTEM.ADMIN.COMMAND.QUEUE"
    assert groups[0].get(CMQCFC.MQIAMO_PUTS) == [14, 0]
    as_dict = msg.to_dict()
    assert len(as_dict[CMQCFC.MQGACF_Q_STATISTICS_DATA]) == 16
    assert pcf.build(msg) == data


@needs_fixtures
@pytest.mark.parametrize(("name", "cls"), [("pcf_with_cfif.dat", pcf.CFIF),
                                           ("pcf_with_cfsf.dat", pcf.CFSF)])
def test_ibm_filter_commands_round_trip(name, cls):
    """Given IBM's PCF with an integer / string filter, then it parses, holds that filter
    inside a group, and packs back to the same bytes."""
    data = (FIXTURES / name).read_bytes()
    msg = pcf.parse(data)
    members = [p for g in msg.params if isinstance(g, pcf.CFGR) for p in g.Parameters]
    assert any(isinstance(p, cls) for p in members)
    assert pcf.build(msg) == data


# -- filter commands ---------------------------------------------------------------------

_ROW = [pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.ORDERS" + b" " * 38),
        pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, 7),
        pcf.CFSL(CMQC.MQCA_NAMES, [b"ALPHA   ", b"BETA    "])]


@pytest.mark.parametrize(("condition", "passes"), [
    (pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_GREATER, 6), True),
    (pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_GREATER, 7), False),
    (pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_NOT_LESS, 7), True),
    (pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_NOT_EQUAL, 7), False),
    (pcf.CFSF(CMQC.MQCA_Q_NAME, CMQCFC.MQCFOP_EQUAL, b"APP.ORDERS"), True),
    (pcf.CFSF(CMQC.MQCA_Q_NAME, CMQCFC.MQCFOP_LIKE, b"APP.*"), True),
    (pcf.CFSF(CMQC.MQCA_Q_NAME, CMQCFC.MQCFOP_NOT_LIKE, b"APP.*"), False),
    (pcf.CFSF(CMQC.MQCA_Q_NAME, CMQCFC.MQCFOP_LIKE, b"APP"), False),
    (pcf.CFSF(CMQC.MQCA_NAMES, CMQCFC.MQCFOP_CONTAINS, b"BETA"), True),
    (pcf.CFSF(CMQC.MQCA_NAMES, CMQCFC.MQCFOP_EXCLUDES, b"BETA"), False),
    (pcf.CFSF(CMQC.MQCA_NAMES, CMQCFC.MQCFOP_CONTAINS_GEN, b"AL*"), True),
    (pcf.CFSF(CMQC.MQCA_NAMES, CMQCFC.MQCFOP_EXCLUDES_GEN, b"G*"), True),
    (pcf.CFIF(CMQC.MQIA_MAX_Q_DEPTH, CMQCFC.MQCFOP_LESS, 10), False),  # not in the response
])
def test_a_filter_condition_judges_a_response_as_ibm_defines_the_operators(condition, passes):
    """Given a response's parameters, when a filter command's condition is applied, then
    integers compare by value, strings without their trailing blanks, generic values by their
    prefix, lists by membership; a response without the parameter does not pass."""
    assert pcf.valid_filter(condition)
    assert pcf.filter_matches(condition, _ROW) is passes


def test_generic_operators_are_for_strings_only():
    """Given an integer filter with LIKE, then it is not a valid filter (MQRCCF_FILTER_ERROR)."""
    assert not pcf.valid_filter(pcf.CFIF(CMQC.MQIA_CURRENT_Q_DEPTH, CMQCFC.MQCFOP_LIKE, 1))
    assert not pcf.valid_filter(pcf.CFSF(CMQC.MQCA_Q_NAME, 99, b"X"))
