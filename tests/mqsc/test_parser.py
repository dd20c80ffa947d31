"""Parsing MQSC commands into values, and refusing bad ones with runmqsc's messages."""

import pytest

from mqpy.mqsc import MQSCCommand, MQSCError, Where, parse_command, parse_script


def ok(text: str, **kw) -> MQSCCommand:
    result = parse_command(text, 7, **kw)
    assert isinstance(result, MQSCCommand), result.lines() + [result.reason]
    return result


def bad(text: str, **kw) -> MQSCError:
    result = parse_command(text, 7, **kw)
    assert isinstance(result, MQSCError), result
    return result


# -- abbreviations and case --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "verb", "objtype"),
    [
        ("DEF QL(A)", "DEFINE", "QLOCAL"),
        ("define qlocal(A)", "DEFINE", "QLOCAL"),
        ("DeFiNe QA(A) TARGET(B)", "DEFINE", "QALIAS"),
        ("DEF QR(A)", "DEFINE", "QREMOTE"),
        ("DEF QM(A)", "DEFINE", "QMODEL"),
        ("DIS Q(A)", "DISPLAY", "QUEUE"),
        ("DEF PRO(A)", "DEFINE", "PROCESS"),
        ("DEF PROC(A)", "DEFINE", "PROCESS"),
        ("DEF NL(A)", "DEFINE", "NAMELIST"),
        ("DEF STC(A)", "DEFINE", "STGCLASS"),
        ("ALT CHL(A) CHLTYPE(SDR)", "ALTER", "CHANNEL"),
        ("DIS CHS(A)", "DISPLAY", "CHSTATUS"),
        ("DEF LSTR(A)", "DEFINE", "LISTENER"),
        ("DIS QS(A)", "DISPLAY", "QSTATUS"),
        ("DIS QC(A)", "DISPLAY", "QCLUSTER"),
        ("STA CHL(A)", "START", "CHANNEL"),
        ("REF CLUSTER(C)", "REFRESH", "CLUSTER"),
        ("DIS LSSTATUS(A)", "DISPLAY", "LSSTATUS"),
        ("DIS QMSTATUS", "DISPLAY", "QMSTATUS"),
        ("DIS CONN(*)", "DISPLAY", "CONN"),
        ("DIS CLUSQMGR(*)", "DISPLAY", "CLUSQMGR"),
        ("DIS SBSTATUS(*)", "DISPLAY", "SBSTATUS"),
        ("DIS TOPIC(*)", "DISPLAY", "TOPIC"),
        ("DIS SUB(*)", "DISPLAY", "SUB"),
        ("DIS SERVICE(*)", "DISPLAY", "SERVICE"),
        ("DIS CHLAUTH(*)", "DISPLAY", "CHLAUTH"),
        ("DIS AUTHREC", "DISPLAY", "AUTHREC"),
        ("CLEAR QL(A)", "CLEAR", "QLOCAL"),
        ("DELETE QL(A)", "DELETE", "QLOCAL"),
    ],
)
def test_verb_and_object_synonyms_give_canonical_names(text, verb, objtype):
    """Given IBM's synonyms in any case, then the command carries canonical names."""
    cmd = ok(text)
    assert (cmd.verb, cmd.objtype) == (verb, objtype)


@pytest.mark.parametrize("text", ["DEFI QLOCAL(A)", "DEL QLOCAL(A)", "DISP QLOCAL(A)"])
def test_synonyms_are_not_prefixes(text):
    """IBM: synonyms are not minimum strings (DEFI is not DEFINE; DELETE has none)."""
    err = bad(text)
    assert err.msgid == "AMQ8405I"
    assert err.detail[0] == "AMQ8426I: Valid MQSC commands are:"
    assert "    DEFINE" in err.detail


def test_unquoted_names_and_values_are_upper_cased_quoted_keep_case():
    """Given unquoted lower case, then it is folded; quoted text keeps its case."""
    cmd = ok("define qlocal(orders) descr('Mixed Case') initq(my.initq)")
    assert cmd.name == "ORDERS"
    assert cmd.params == {"DESCR": "Mixed Case", "INITQ": "MY.INITQ"}
    assert ok("DEFINE QLOCAL('orders')").name == "orders"


def test_doubled_quote_inside_quoted_string_is_one_quote():
    """'' inside a quoted string is one quotation mark."""
    assert ok("DEFINE QLOCAL(A) DESCR('Don''t')").params["DESCR"] == "Don't"


def test_blanks_and_commas_anywhere_ibm_example():
    """IBM's example: ALTER QLOCAL ('Account' )      TRIGDPTH ( 1) is valid."""
    cmd = ok("ALTER QLOCAL ('Account' )      TRIGDPTH ( 1)")
    assert (cmd.name, cmd.params["TRIGDPTH"]) == ("Account", 1)
    assert ok("DEFINE QLOCAL(A),,MAXDEPTH(5),DEFPSIST(YES)").params == {
        "MAXDEPTH": 5,
        "DEFPSIST": "YES",
    }


def test_blank_quoted_value_means_blank():
    """RNAME(' ') is a blank value, stored as ''."""
    assert ok("DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(CLUSQM)").params["RNAME"] == ""


# -- value kinds -------------------------------------------------------------------------


def test_integers_are_converted_and_enums_canonical():
    """Given integer and enum attributes, then params hold int and upper-case enum values."""
    cmd = ok("DEF QL(A) MAXDEPTH(5000) DEFPRTY(9) DEFPSIST(yes) TRIGTYPE(depth) TRIGDPTH(3)")
    assert cmd.params == {
        "MAXDEPTH": 5000, "DEFPRTY": 9, "DEFPSIST": "YES", "TRIGTYPE": "DEPTH", "TRIGDPTH": 3,
    }  # fmt: skip


def test_integer_attribute_special_words():
    """KAINT(AUTO) and APPLTYPE(UNIX) keep their word; numbers stay numbers."""
    assert ok("DEF CHL(A) CHLTYPE(RCVR) KAINT(AUTO)").params["KAINT"] == "AUTO"
    assert ok("DEF CHL(A) CHLTYPE(RCVR) KAINT(360)").params["KAINT"] == 360
    assert ok("DEF PROCESS(P) APPLTYPE(unix)").params["APPLTYPE"] == "UNIX"
    assert ok("DEF PROCESS(P) APPLTYPE(65536)").params["APPLTYPE"] == 65536


def test_list_values():
    """NAMES(A, B, C) gives a tuple; commas and blanks both separate list items."""
    assert ok("DEFINE NAMELIST(NL1) NAMES(A, b 'c')").params["NAMES"] == ("A", "B", "c")
    assert ok("DEF CHL(A) CHLTYPE(SVRCONN) COMPMSG(RLE,ZLIBFAST)").params["COMPMSG"] == (
        "RLE",
        "ZLIBFAST",
    )


def test_bare_flags_and_their_negations():
    """REPLACE, TRIGGER/NOTRIGGER, SHARE/NOSHARE are flags; .flag() reads either form."""
    cmd = ok("DEFINE QLOCAL(A) NOTRIGGER SHARE REPLACE")
    assert cmd.flags == {"NOTRIGGER", "SHARE", "REPLACE"}
    assert cmd.flag("TRIGGER") is False and cmd.flag("SHARE") is True
    assert cmd.flag("HARDENBO") is None


def test_nested_parentheses_in_unquoted_conname():
    """CONNAME(host(1414)) keeps the inner parentheses (and is upper-cased unquoted)."""
    cmd = ok("DEFINE CHANNEL(A.B) CHLTYPE(SDR) CONNAME(mach1(1414)) XMITQ(QM2)")
    assert cmd.params["CONNAME"] == "MACH1(1414)"
    cmd = ok("DEFINE CHANNEL(A.B) CHLTYPE(SDR) CONNAME('mach1(1414)') XMITQ(QM2)")
    assert cmd.params["CONNAME"] == "mach1(1414)"


def test_attribute_synonym_targq_is_target():
    """IBM keeps TARGQ as a synonym of TARGET on DEFINE QALIAS."""
    assert ok("DEFINE QALIAS(A) TARGQ(B)").params == {"TARGET": "B"}
    assert ok("DIS QALIAS(A) TARGQ").display_attrs == ("TARGET",)


def test_like_on_define():
    """DEFINE ... LIKE(name) copies another definition: LIKE is a name parameter."""
    assert ok("DEFINE QLOCAL(B) LIKE(a)").params == {"LIKE": "A"}


# -- DISPLAY, WHERE, generic names -------------------------------------------------------


def test_display_attribute_list_in_order():
    """DIS QL(name) IPPROCS OPPROCS CURDEPTH requests those attributes, in that order."""
    cmd = ok("DIS QL (name) IPPROCS OPPROCS CURDEPTH")
    assert cmd.display_attrs == ("IPPROCS", "OPPROCS", "CURDEPTH") and cmd.name == "NAME"


def test_generic_names_end_in_asterisk_on_display():
    """DISPLAY QUEUE(PAY*) and CHSTATUS(*) are generic."""
    cmd = ok("DISPLAY QUEUE(PAY*) TYPE(QLOCAL)")
    assert (cmd.name, cmd.generic, cmd.params) == ("PAY*", True, {"TYPE": "QLOCAL"})
    cmd = ok("DIS CHS (*) INDOUBT")
    assert (cmd.name, cmd.generic, cmd.display_attrs) == ("*", True, ("INDOUBT",))
    assert ok("DIS QL('abc*')").name == "abc*"


def test_generic_name_is_refused_where_not_allowed():
    """DEFINE QLOCAL(Q*) is a name error (AMQ8424E), not a generic definition."""
    err = bad("DEFINE QLOCAL(Q*)")
    assert (err.msgid, err.text) == ("AMQ8424E", "Error detected in a name keyword.")


@pytest.mark.parametrize(
    ("clause", "where"),
    [
        ("WHERE(CURDEPTH GT 100)", Where("CURDEPTH", "GT", 100)),
        ("WHERE(curdepth lt 5)", Where("CURDEPTH", "LT", 5)),
        ("WHERE(DEFPSIST EQ yes)", Where("DEFPSIST", "EQ", "YES")),
        ("WHERE(MAXDEPTH NE 5000)", Where("MAXDEPTH", "NE", 5000)),
        ("WHERE(DEFPRTY LE 4)", Where("DEFPRTY", "LE", 4)),
        ("WHERE(DEFPRTY GE 4)", Where("DEFPRTY", "GE", 4)),
        ("WHERE(DESCR LK 'Pay*')", Where("DESCR", "LK", "Pay*")),
        ("WHERE(INITQ NL SYSTEM.*)", Where("INITQ", "NL", "SYSTEM.*")),
        ("WHERE(TARGQ EQ B)", Where("TARGET", "EQ", "B")),
    ],
)
def test_where_filters_on_queues(clause, where):
    """WHERE(keyword op value) with every comparison operator; values typed like the
    attribute (integers converted, enums canonical), generic operators keep the string."""
    cmd = ok(f"DISPLAY QUEUE(*) {clause} CURDEPTH")
    assert cmd.where == where and cmd.display_attrs == ("CURDEPTH",)


def test_where_list_operators_on_a_list_attribute():
    """CT / EX / CTG / EXG test the items of a list attribute (NAMELIST NAMES)."""
    assert ok("DIS NL(*) WHERE(NAMES CT q1)").where == Where("NAMES", "CT", "Q1")
    assert ok("DIS NL(*) WHERE(NAMES EX Q1)").where == Where("NAMES", "EX", "Q1")
    assert ok("DIS NL(*) WHERE(NAMES CTG Q*)").where == Where("NAMES", "CTG", "Q*")
    assert ok("DIS NL(*) WHERE(NAMES EXG Q*)").where == Where("NAMES", "EXG", "Q*")


def test_where_on_channel_status_with_status_values():
    """DIS CHS(*) WHERE(STATUS EQ RETRYING) uses the status attribute's values."""
    cmd = ok("DIS CHS(*) WHERE(STATUS EQ retrying) CURLUWID")
    assert cmd.where == Where("STATUS", "EQ", "RETRYING")


@pytest.mark.parametrize(
    "text",
    [
        "DIS QL(*) WHERE(CURDEPTH XX 1)",  # unknown operator
        "DIS QL(*) WHERE(NOSUCH EQ 1)",  # unknown keyword
        "DIS QL(*) WHERE(CURDEPTH GT)",  # missing value
        "DIS QL(*) WHERE(CURDEPTH GT abc)",  # not an integer
        "DIS QMGR WHERE(DEADQ EQ X)",  # no WHERE on DISPLAY QMGR
    ],
)
def test_bad_where_is_a_syntax_error(text):
    assert bad(text).msgid == "AMQ8405I"


def test_channel_status_saved_and_filters():
    """DISPLAY CHSTATUS(name) SAVED CURLUWID CONNAME XMITQ (spec: dqm-intercommunication §6)."""
    cmd = ok("DISPLAY CHSTATUS(TO.QM2) SAVED CURLUWID CONNAME XMITQ")
    assert cmd.flags == {"SAVED"}
    assert cmd.display_attrs == ("CURLUWID", "CONNAME", "XMITQ")
    cmd = ok("DISPLAY CHSTATUS(TO.QM2) XMITQ(QM2) LSTLUWID")
    assert cmd.params == {"XMITQ": "QM2"} and cmd.display_attrs == ("LSTLUWID",)
    assert bad("DISPLAY CHSTATUS(A) SAVED CURRENT").msgid == "AMQ8405I"


def test_display_qmgr_takes_no_name():
    assert ok("DIS QMGR DEADQ DEFXMITQ").display_attrs == ("DEADQ", "DEFXMITQ")
    assert bad("DIS QMGR(X)").msgid == "AMQ8405I"


# -- channels ----------------------------------------------------------------------------


def test_channel_attributes_checked_against_chltype():
    """XMITQ is valid on SDR but not on RCVR; MRRTY on RCVR but not SDR."""
    ok("DEF CHL(A) CHLTYPE(SDR) CONNAME(H) XMITQ(X) BATCHSZ(50) SHORTRTY(10)")
    err = bad("DEF CHL(A) CHLTYPE(RCVR) XMITQ(X)")
    assert err.segment == "DEF CHL(A) CHLTYPE(RCVR) XMITQ"
    assert bad("DEF CHL(A) CHLTYPE(SDR) MRRTY(3)").segment.endswith("MRRTY")


def test_chltype_is_required_on_define_channel():
    err = bad("DEFINE CHANNEL(A) CONNAME(H)")
    assert err.msgid == "AMQ8405I" and "CHLTYPE" in err.reason


def test_channel_names_are_at_most_20_characters():
    ok("DEF CHL(ABCDEFGHIJKLMNOPQRST) CHLTYPE(RCVR)")
    assert bad("DEF CHL(ABCDEFGHIJKLMNOPQRSTU) CHLTYPE(RCVR)").msgid == "AMQ8424E"


def test_channel_verbs():
    assert ok("RESOLVE CHANNEL(A) ACTION(BACKOUT)").params == {"ACTION": "BACKOUT"}
    assert bad("RESOLVE CHANNEL(A)").msgid == "AMQ8405I"
    assert ok("STOP CHANNEL(A) MODE(FORCE) STATUS(INACTIVE)").params["MODE"] == "FORCE"
    assert ok("RESET CHANNEL(A) SEQNUM(1)").params == {"SEQNUM": 1}
    assert ok("PING CHANNEL(A) DATALEN(64)").params == {"DATALEN": 64}


def test_cluster_commands():
    """Spec operations-dlq-clusters §4 commands."""
    assert ok("SUSPEND QMGR CLUSTER(INV) MODE(FORCE)").params == {"CLUSTER": "INV", "MODE": "FORCE"}
    assert ok("RESUME QMGR CLUSTER(INV)").params == {"CLUSTER": "INV"}
    assert ok("REFRESH CLUSTER(INV) REPOS(YES)").name == "INV"
    cmd = ok("RESET CLUSTER(INV) QMNAME(QM9) ACTION(FORCEREMOVE) QUEUES(YES)")
    assert cmd.params["ACTION"] == "FORCEREMOVE"
    assert bad("SUSPEND QMGR").msgid == "AMQ8405I"
    assert bad("SUSPEND QMGR CLUSTER(A) CLUSNL(B)").msgid == "AMQ8405I"


def test_end_exit_quit_have_no_object():
    for verb in ("END", "end", "EXIT", "QUIT"):
        cmd = ok(verb)
        assert cmd.objtype is None and cmd.name is None
    assert bad("END QMGR").msgid == "AMQ8405I"


# -- errors ------------------------------------------------------------------------------


def test_unknown_keyword_error_shows_segment_up_to_the_keyword():
    """Real runmqsc: DISPLAY QMGR LOGTYPE -> AMQ8405I with segment 'DISPLAY QMGR LOGTYPE'."""
    err = bad("DISPLAY QMGR LOGTYPE")
    assert err.lines()[:2] == [
        "AMQ8405I: Syntax error detected at or near end of command segment below:-",
        "DISPLAY QMGR LOGTYPE",
    ]
    assert err.detail[0] == "AMQ8427I: Valid syntax for the MQSC command:"
    assert err.detail[2].startswith("  DISPLAY QMGR")
    assert err.line_no == 7 and err.command_text == "DISPLAY QMGR LOGTYPE"


def test_keyword_valid_elsewhere_is_unknown_here():
    """CONNAME is a channel attribute, not a queue attribute."""
    assert bad("DEFINE QLOCAL(A) CONNAME(X)").segment == "DEFINE QLOCAL(A) CONNAME"


def test_bad_enum_value_is_a_syntax_error():
    err = bad("DEFINE QLOCAL(A) DEFPSIST(MAYBE) MAXDEPTH(1)")
    assert err.msgid == "AMQ8405I" and err.segment == "DEFINE QLOCAL(A) DEFPSIST(MAYBE)"


def test_non_numeric_integer_is_a_syntax_error():
    assert bad("DEFINE QLOCAL(A) MAXDEPTH(lots)").msgid == "AMQ8405I"


@pytest.mark.parametrize(
    "text",
    [
        "DEFINE QLOCAL(A) MAXDEPTH(1000000000)",
        "DEFINE QLOCAL(A) DEFPRTY(10)",
        "DEFINE QLOCAL(A) TRIGDPTH(0)",
        "DEFINE CHANNEL(A) CHLTYPE(SDR) BATCHSZ(10000)",
        "DEFINE CHANNEL(A) CHLTYPE(RCVR) SEQWRAP(99)",
        "ALTER QMGR MAXMSGL(100)",
        "DEFINE LISTENER(L) TRPTYPE(TCP) PORT(65536)",
        "DEFINE QLOCAL(A) DESCR('" + "x" * 65 + "')",
    ],
)
def test_value_out_of_range_or_too_long_is_an_attribute_value_error(text):
    err = bad(text)
    assert (err.msgid, err.text) == ("AMQ8425E", "Attribute value error.")


def test_ranges_accept_their_limits():
    ok("DEFINE QLOCAL(A) MAXDEPTH(999999999) DEFPRTY(0) TRIGDPTH(1)")
    ok("DEFINE CHANNEL(A) CHLTYPE(SDR) BATCHSZ(9999) DISCINT(0) HBINT(999999)")
    ok("ALTER QMGR MAXMSGL(32768) STATINT(604800)")
    ok("DEFINE LISTENER(L) TRPTYPE(TCP) PORT(1414) CONTROL(QMGR)")


@pytest.mark.parametrize(
    ("text", "segment"),
    [
        ("DEFINE QLOCAL(A DESCR('x')", "DEFINE QLOCAL(A DESCR('x')"),
        ("DEFINE QLOCAL(A)) DESCR('x')", "DEFINE QLOCAL(A))"),
        ("DEFINE QLOCAL(A) (X)", "DEFINE QLOCAL(A) ("),
        ("DEFINE QLOCAL(A) MAXDEPTH((5)", "DEFINE QLOCAL(A) MAXDEPTH((5)"),
    ],
)
def test_unbalanced_parentheses(text, segment):
    err = bad(text)
    assert (err.msgid, err.segment) == ("AMQ8405I", segment)


def test_unbalanced_quote_segment_matches_runmqsc():
    """Real runmqsc output for a stray quote (segment ends at the quote)."""
    err = bad(
        "DEFINE QREMOTE (LOCAL.DEF.OF.REMOTE.QUEUE) RNAME (RECEIVER.Q) RQMNAME (QMB') XMITQ (QMB)"
    )
    assert err.segment == (
        "DEFINE QREMOTE (LOCAL.DEF.OF.REMOTE.QUEUE) RNAME (RECEIVER.Q) RQMNAME (QMB'"
    )


@pytest.mark.parametrize("text", ["DEFINE QLOCAL", "DEFINE QLOCAL MAXDEPTH(5)", "DIS CHS"])
def test_missing_name_is_a_syntax_error(text):
    assert bad(text).msgid == "AMQ8405I"


def test_missing_object_type_and_unknown_object():
    assert bad("DEFINE").segment == "DEFINE"
    err = bad("DEFINE QUEUE(A)")  # DISPLAY QUEUE exists, DEFINE QUEUE does not
    assert err.segment == "DEFINE QUEUE"
    assert any("QLOCAL" in line for line in err.detail)


@pytest.mark.parametrize(
    "text",
    ["DEFINE QLOCAL('has blank')", "DEFINE QLOCAL(A) INITQ('bad name')", "DEFINE QLOCAL(" + "A" * 49 + ")"],
)
def test_bad_names_are_name_errors(text):
    assert bad(text).msgid == "AMQ8424E"


def test_repeated_parameter_and_contradictory_flags():
    """IBM: repeated parameters are not allowed, nor REPLACE with NOREPLACE."""
    assert bad("DEFINE QLOCAL(A) MAXDEPTH(1) MAXDEPTH(2)").segment.endswith("MAXDEPTH")
    assert bad("DEFINE QLOCAL(A) REPLACE NOREPLACE").segment.endswith("NOREPLACE")
    assert bad("DEFINE QLOCAL(A) TRIGGER NOTRIGGER").msgid == "AMQ8405I"
    assert bad("DEFINE QLOCAL(A) TARGQ(B)").msgid == "AMQ8405I"  # alias attr on a local queue


def test_flag_with_a_value_is_a_syntax_error():
    assert bad("DEFINE QLOCAL(A) REPLACE(YES)").msgid == "AMQ8405I"


def test_empty_parentheses_lenient_by_default_strict_like_mq9():
    """RNAME() (MQSeries V5 books) is a blank value by default; strict mode follows MQ 9,
    whose runmqsc answers SSLCIPH() with AMQ8405I."""
    assert ok("DEFINE QREMOTE(QM3) RNAME() RQMNAME(QM3) XMITQ(QM2)").params["RNAME"] == ""
    err = bad(
        "ALTER CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) SSLCIPH() SSLCAUTH(OPTIONAL)",
        strict=True,
    )
    assert err.segment == "ALTER CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) SSLCIPH()"
    assert bad("DEFINE QLOCAL(A) MAXDEPTH()").msgid == "AMQ8405I"  # never for integers


def test_a_script_goes_on_after_a_bad_command():
    """Given a script with bad commands between good ones, then each command gets its own
    result, errors as values, with the line number of the command."""
    script = """\
* build some queues
DEFINE QLOCAL(A) MAXDEPTH(5)
DEFINE QLOCAL(B) BOGUS(1)
DEFINE QLOCAL(C) +
   MAXDEPTH(1000000000)
DEFINE QLOCAL(D
DEFINE QLOCAL(E) DESCR('fine')
"""
    results = list(parse_script(script))
    kinds = [type(r).__name__ for r in results]
    assert kinds == ["MQSCCommand", "MQSCError", "MQSCError", "MQSCError", "MQSCCommand"]
    assert [r.line_no for r in results] == [2, 3, 4, 6, 7]
    assert [r.msgid for r in results[1:4]] == ["AMQ8405I", "AMQ8425E", "AMQ8405I"]
    assert results[4].name == "E" and results[4].params == {"DESCR": "fine"}


def test_results_are_immutable():
    cmd = ok("DEFINE QLOCAL(A) MAXDEPTH(5)")
    with pytest.raises(TypeError):
        cmd.params["MAXDEPTH"] = 6  # type: ignore[index]
    with pytest.raises(AttributeError):
        cmd.name = "B"  # type: ignore[misc]
