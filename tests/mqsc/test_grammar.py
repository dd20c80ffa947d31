"""The vocabulary tables: declared once, consistent, usable by the command processor."""

from mqpy.mqsc import COMMANDS, MESSAGES, MQSCError, command_spec, summary_lines, syntax_help
from mqpy.mqsc.grammar import (
    CHANNEL_ATTRS,
    CHLTYPE_ATTRS,
    CHLTYPES,
    ENUM,
    FLAG,
    INT,
    QUEUE_ATTRS,
    QUEUE_TYPE_ATTRS,
    canonical_object,
    canonical_verb,
)


def test_every_channel_type_has_common_attributes_and_only_known_ones():
    for t in CHLTYPES:
        assert {"CHLTYPE", "DESCR", "TRPTYPE", "HBINT", "MAXMSGL"} <= CHLTYPE_ATTRS[t]
        assert CHLTYPE_ATTRS[t] <= set(CHANNEL_ATTRS)


def test_channel_type_applicability_examples():
    """Spec dqm-intercommunication §2: XMITQ on SDR (and SVR); BATCHINT on SDR, CLUSSDR,
    SVR and CLUSRCVR; CONNAME not on RCVR or SVRCONN."""
    assert {t for t in CHLTYPES if "XMITQ" in CHLTYPE_ATTRS[t]} == {"SDR", "SVR"}
    assert {t for t in CHLTYPES if "BATCHINT" in CHLTYPE_ATTRS[t]} == {
        "SDR", "SVR", "CLUSSDR", "CLUSRCVR",
    }  # fmt: skip
    assert "CONNAME" not in CHLTYPE_ATTRS["RCVR"] | CHLTYPE_ATTRS["SVRCONN"]


def test_queue_type_attributes_are_declared():
    for keys in QUEUE_TYPE_ATTRS.values():
        assert keys <= set(QUEUE_ATTRS)
    assert "TARGET" in QUEUE_TYPE_ATTRS["QALIAS"] and "TARGET" not in QUEUE_TYPE_ATTRS["QLOCAL"]
    assert "RQMNAME" in QUEUE_TYPE_ATTRS["QREMOTE"]
    assert "DEFTYPE" in QUEUE_TYPE_ATTRS["QMODEL"]


def test_attribute_ranges_from_the_spec():
    """Spec dqm-intercommunication §2: BATCHSZ 1-9999, BATCHINT 0-999 999 999,
    DISCINT 0-999 999, HBINT 0-999 999; DESCR 64; CONNAME 264 (distributed)."""
    ranges = {k: (CHANNEL_ATTRS[k].minimum, CHANNEL_ATTRS[k].maximum)
              for k in ("BATCHSZ", "BATCHINT", "DISCINT", "HBINT")}  # fmt: skip
    assert ranges == {
        "BATCHSZ": (1, 9999), "BATCHINT": (0, 999_999_999),
        "DISCINT": (0, 999_999), "HBINT": (0, 999_999),
    }  # fmt: skip
    assert CHANNEL_ATTRS["DESCR"].length == 64 and CHANNEL_ATTRS["CONNAME"].length == 264


def test_kinds_are_well_formed():
    for spec in COMMANDS.values():
        for attr in spec.params.values():
            assert attr.kind != FLAG
            if attr.kind == ENUM:
                assert attr.values
            if attr.kind == INT:
                assert attr.minimum <= attr.maximum


def test_lookups():
    assert canonical_verb("dis") == "DISPLAY" and canonical_verb("DISP") is None
    assert canonical_object("lstr") == "LISTENER" and canonical_object("QUEUES") is None
    assert command_spec("DELETE", "QLOCAL").flags == {"PURGE", "NOPURGE"}
    assert command_spec("DEFINE", "QUEUE") is None


def test_syntax_help_names_the_command_and_its_parameters():
    lines = syntax_help("RESOLVE", "CHANNEL")
    assert lines[0] == "  RESOLVE CHANNEL( name )"
    assert any("ACTION( COMMIT | BACKOUT )" in line for line in lines)
    assert syntax_help("DEFINE", None)[0].startswith("  DEFINE ")


def test_messages_and_error_lines():
    err = MQSCError("AMQ8405I", MESSAGES["AMQ8405I"], 3, "DIS X", "DIS X", ("more",))
    assert err.lines() == [
        "AMQ8405I: Syntax error detected at or near end of command segment below:-",
        "DIS X", "", "more",
    ]  # fmt: skip
    assert summary_lines(1, 0) == [
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    assert summary_lines(4, 2)[:2] == ["4 MQSC commands read.", "2 commands have a syntax error."]
