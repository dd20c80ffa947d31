"""The module attributes pymqi and ibmmq programs read before connecting: the build flag,
the library's version and the command level its MQI implements."""

from __future__ import annotations

import mqpy as pymqi
from mqpy import CMQC


def test_build_flag_says_common_so_programs_choose_their_connection():
    """Given mqpy imported as pymqi, when a program reads ``__mqbuild__`` (pymqi's test set-up
    does, choosing bindings for "server"), then it is ibmmq 2.x's "common": one library
    makes both bindings and client connections."""
    assert pymqi.__mqbuild__ == "common"


def test_version_and_command_level_are_there():
    """Given mqpy, then ``__version__`` is a dotted version string and ``__cmdlevel__`` the
    command level of the MQI it implements (MQCMDL_CURRENT_LEVEL, as ibmmq gives it)."""
    assert all(part.isdigit() for part in pymqi.__version__.split("."))
    assert pymqi.__cmdlevel__ == CMQC.MQCMDL_CURRENT_LEVEL


def test_get_versions_names_the_library_and_the_command_level():
    """Given mqpy imported as ibmmq, when a program asks get_versions(), then it has
    ibmmq's two keys: the module's version and the MQ command level."""
    assert pymqi.get_versions() == {"module": pymqi.__version__, "MQ": pymqi.__cmdlevel__}


def test_to_string_turns_an_mqchar_field_into_text():
    """Given an MQCHAR field as MQINQ or an MQMD gives it (blank or NUL padded), when
    to_string reads it, then it is the text without the padding; bytes that do not decode
    and values that are not bytes come back unchanged."""
    assert pymqi.to_string(b"QM1" + b" " * 45) == "QM1"
    assert pymqi.to_string(b"MQSTR\x00\x00\x00") == "MQSTR"
    assert pymqi.to_string(b"\xff\xfe", "utf-8") == b"\xff\xfe"
    assert pymqi.to_string(42) == 42


def test_structure_text_fields_take_str_or_bytes():
    """Given structures built with str text fields, as ibmmq programs write them, then the
    fields hold the same bytes as when given bytes."""
    assert pymqi.MD(ReplyToQ="REPLY.Q").ReplyToQ == pymqi.MD(ReplyToQ=b"REPLY.Q").ReplyToQ
    assert pymqi.OD(ObjectName="Q1").ObjectName == pymqi.OD(ObjectName=b"Q1").ObjectName
    assert pymqi.CD(ChannelName="APP.SVRCONN").ChannelName == b"APP.SVRCONN"


def test_ibmmqs_helpers_for_mqchar_text():
    """Given mqpy imported as ibmmq, then ensure_strings_are_bytes encodes a str for an
    MQCHAR field as default.mqi_encoding (ASCII) and leaves bytes alone."""
    assert pymqi.default.mqi_encoding == "ascii"
    assert pymqi.ensure_strings_are_bytes("Q1") == b"Q1"
    assert pymqi.ensure_strings_are_bytes(b"Q1") == b"Q1"
