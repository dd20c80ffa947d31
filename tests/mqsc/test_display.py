"""DISPLAY output layout, checked against real runmqsc output."""

from mqpy.mqsc import format_attrs, format_item


def test_two_items_a_line_second_at_column_44():
    """Real runmqsc (IBM MQ 9): '   QUEUE(QUEUE1)' padded so TYPE starts at offset 43."""
    lines = format_attrs([("QUEUE", "QUEUE1"), ("TYPE", "QLOCAL"), ("CURDEPTH", 200)])
    assert lines == [
        "   QUEUE(QUEUE1)                           TYPE(QLOCAL)",
        "   CURDEPTH(200)",
    ]
    assert lines[0].index("TYPE") == 43


def test_blank_values_flags_and_unquoted_text():
    """DESCR( ) for a blank value, bare NOTRIGGER/SHARE, text shown without quotes."""
    lines = format_attrs(
        [("QUEUE", "QL.A"), ("TYPE", "QLOCAL"), ("DESCR", "ql.a for qmgr1 in 2013-01-01"),
         ("DISTL", "NO"), ("INITQ", ""), ("NOTRIGGER", None), ("SHARE", None)]
    )  # fmt: skip
    assert lines == [
        "   QUEUE(QL.A)                             TYPE(QLOCAL)",
        "   DESCR(ql.a for qmgr1 in 2013-01-01)     DISTL(NO)",
        "   INITQ( )                                NOTRIGGER",
        "   SHARE",
    ]


def test_long_name_item_pushes_type_to_next_line():
    """Real output: a 37-character QUEUE(...) still pairs with TYPE; 38 does not."""
    assert format_attrs([("QUEUE", "SYSTEM.ADMIN.TRACE.ROUTE.QUEUE"), ("TYPE", "QLOCAL")]) == [
        "   QUEUE(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)   TYPE(QLOCAL)"
    ]
    assert format_attrs([("QUEUE", "SYSTEM.CLUSTER.REPOSITORY.QUEUE"), ("TYPE", "QLOCAL")]) == [
        "   QUEUE(SYSTEM.CLUSTER.REPOSITORY.QUEUE)",
        "   TYPE(QLOCAL)",
    ]


def test_long_item_stands_alone_as_in_display_qmgr():
    """Real DISPLAY QMGR output: SSLKEYR(37 chars) is alone, between SSLFIPS and SSLRKEYC;
    a 36-character COMMANDQ(...) fits the second column."""
    lines = format_attrs(
        [("QMNAME", "qmgr1"), ("ACCTCONO", "DISABLED"), ("CMDLEVEL", 701),
         ("COMMANDQ", "SYSTEM.ADMIN.COMMAND.QUEUE"), ("SSLFIPS", "NO"),
         ("SSLKEYR", "/var/mqm/qmgrs/qmgr1/ssl/key"), ("SSLRKEYC", 0), ("STATACLS", "QMGR")]
    )  # fmt: skip
    assert lines == [
        "   QMNAME(qmgr1)                           ACCTCONO(DISABLED)",
        "   CMDLEVEL(701)                           COMMANDQ(SYSTEM.ADMIN.COMMAND.QUEUE)",
        "   SSLFIPS(NO)",
        "   SSLKEYR(/var/mqm/qmgrs/qmgr1/ssl/key)",
        "   SSLRKEYC(0)                             STATACLS(QMGR)",
    ]


def test_list_values_are_comma_separated():
    assert format_item("NAMES", ("A", "B")) == "NAMES(A,B)"
    assert format_item("NAMES", ()) == "NAMES( )"
