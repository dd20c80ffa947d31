"""Message context at MQPUT: identity (UserIdentifier, AccountingToken, ApplIdentityData) and
origin (PutApplType, PutApplName, PutDate, PutTime, ApplOriginData).

The PMO context option decides who fills them: the queue manager (DEFAULT), nobody (NO),
the application (SET_IDENTITY / SET_ALL, which need the matching MQOO_SET_* open option), or a
message got on a handle opened with MQOO_SAVE_ALL_CONTEXT (PASS_IDENTITY / PASS_ALL, with
pmo.Context = that handle).
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, OUT, get_one, get_xmit, od, raises_mq, s

ORIGINAL = {"UserIdentifier": b"alice", "AccountingToken": b"\x01" * 32,
            "ApplIdentityData": b"ident-data", "PutApplType": CMQC.MQAT_JAVA,
            "PutApplName": b"ORIGIN.APP", "PutDate": b"20200102", "PutTime": b"03040506",
            "ApplOriginData": b"orgn"}
IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
ORIGIN = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")


def _put(qm, qname: str, pmo_ctx: int, open_ctx: int = 0, md: mqpy.MD | None = None,
         context: int = 0) -> mqpy.MD:
    md = md if md is not None else mqpy.MD()
    q = mqpy.Queue(qm, qname, OUT | open_ctx)
    try:
        q.put(b"ctx", md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | pmo_ctx, Context=context))
    finally:
        q.close()
    return md


def _field(md: mqpy.MD, name: str):
    value = getattr(md, name)
    return value.rstrip(b" \x00") if isinstance(value, bytes) else value


def _put_original(qm) -> None:
    """An 'original' message on Q1 whose every context field is distinctive (SET_ALL)."""
    _put(qm, "Q1", CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQOO_SET_ALL_CONTEXT,
         mqpy.MD(**ORIGINAL))


def test_default_context_is_filled_by_the_queue_manager(qm1):
    """Given MQPMO_DEFAULT_CONTEXT, then UserIdentifier is the connection's user, PutApplName
    the connection's application, PutDate YYYYMMDD and PutTime HHMMSSTH are set, and any
    identity the application wrote in the MD is replaced."""
    md = mqpy.MD(UserIdentifier=b"forged", ApplIdentityData=b"forged")
    _put(qm1.qm, "Q1", CMQC.MQPMO_DEFAULT_CONTEXT, md=md)
    got, _ = get_one(qm1.qm, "Q1")
    conn = qm1.qm.connection()
    assert _field(got, "UserIdentifier") == conn.user.rstrip(b" ")
    assert _field(got, "ApplIdentityData") == b""
    assert _field(got, "PutApplName") == conn.appl_name.rstrip(b" ")
    assert got.PutApplType != CMQC.MQAT_NO_CONTEXT
    assert len(s(got.PutDate)) == 8 and s(got.PutDate).isdigit()
    assert len(s(got.PutTime)) == 8 and s(got.PutTime).isdigit()


def test_no_context_leaves_every_context_field_blank(qm1):
    """Given MQPMO_NO_CONTEXT, then identity and origin fields are blank and PutApplType is
    MQAT_NO_CONTEXT, whatever the MD held."""
    _put(qm1.qm, "Q1", CMQC.MQPMO_NO_CONTEXT, md=mqpy.MD(**ORIGINAL))
    got, _ = get_one(qm1.qm, "Q1")
    for name in IDENTITY + ORIGIN:
        expected = CMQC.MQAT_NO_CONTEXT if name == "PutApplType" else b""
        assert _field(got, name) == expected, name


def test_set_all_context_keeps_what_the_application_gave(qm1):
    """Given MQOO_SET_ALL_CONTEXT and MQPMO_SET_ALL_CONTEXT, then every context field is the
    application's."""
    _put_original(qm1.qm)
    got, _ = get_one(qm1.qm, "Q1")
    for name, value in ORIGINAL.items():
        assert _field(got, name) == (value.rstrip(b" ") if isinstance(value, bytes)
                                     else value), name


def test_set_identity_context_keeps_identity_and_fills_origin(qm1):
    """Given MQOO_SET_IDENTITY_CONTEXT and MQPMO_SET_IDENTITY_CONTEXT, then the identity fields
    are the application's and the origin fields the queue manager's."""
    _put(qm1.qm, "Q1", CMQC.MQPMO_SET_IDENTITY_CONTEXT, CMQC.MQOO_SET_IDENTITY_CONTEXT,
         mqpy.MD(**ORIGINAL))
    got, _ = get_one(qm1.qm, "Q1")
    for name in IDENTITY:
        assert _field(got, name) == ORIGINAL[name].rstrip(b" "), name
    assert _field(got, "PutApplName") != b"ORIGIN.APP"
    assert _field(got, "PutDate") != b"20200102"


def _relay(qm1, pmo_ctx: int, open_ctx: int) -> mqpy.MD:
    """Get the original from Q1 with SAVE_ALL_CONTEXT and put it to Q2 passing context."""
    qm1.define("QLOCAL", "Q2")
    src = mqpy.Queue(qm1.qm, "Q1", IN | CMQC.MQOO_SAVE_ALL_CONTEXT)
    src.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    _put(qm1.qm, "Q2", pmo_ctx, open_ctx, context=src.get_handle())
    src.close()
    got, _ = get_one(qm1.qm, "Q2")
    return got


def test_context_is_saved_when_the_getter_wants_no_mqmd_back(qm1):
    """Given a handle opened with MQOO_SAVE_ALL_CONTEXT, when the original is got with
    pymqi's ``q.get()`` (no MQMD passed), then its context is still saved and a put with
    MQPMO_PASS_ALL_CONTEXT passes it on."""
    _put_original(qm1.qm)
    qm1.define("QLOCAL", "Q2")
    src = mqpy.Queue(qm1.qm, "Q1", IN | CMQC.MQOO_SAVE_ALL_CONTEXT)
    src.get()
    _put(qm1.qm, "Q2", CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQOO_PASS_ALL_CONTEXT,
         context=src.get_handle())
    got, _ = get_one(qm1.qm, "Q2")
    for name, value in ORIGINAL.items():
        assert _field(got, name) == (value.rstrip(b" ") if isinstance(value, bytes)
                                     else value), name


def test_pass_all_context_copies_identity_and_origin(qm1):
    """Given a relay that got the original with MQOO_SAVE_ALL_CONTEXT, when it puts with
    MQPMO_PASS_ALL_CONTEXT (open MQOO_PASS_ALL_CONTEXT, pmo.Context = the input handle), then
    the new message carries the original's identity and origin context."""
    _put_original(qm1.qm)
    got = _relay(qm1, CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQOO_PASS_ALL_CONTEXT)
    for name, value in ORIGINAL.items():
        assert _field(got, name) == (value.rstrip(b" ") if isinstance(value, bytes)
                                     else value), name


def test_pass_identity_context_copies_identity_only(qm1):
    """Given the same relay with MQPMO_PASS_IDENTITY_CONTEXT, then identity is the original's
    and origin is the relay's (filled by the queue manager)."""
    _put_original(qm1.qm)
    got = _relay(qm1, CMQC.MQPMO_PASS_IDENTITY_CONTEXT, CMQC.MQOO_PASS_IDENTITY_CONTEXT)
    for name in IDENTITY:
        assert _field(got, name) == ORIGINAL[name].rstrip(b" "), name
    assert _field(got, "PutApplName") != b"ORIGIN.APP"
    assert _field(got, "PutDate") != b"20200102"


def test_pass_context_from_a_handle_without_save_all_context_fails_2097(qm1):
    """Given pmo.Context names a handle not opened with MQOO_SAVE_ALL_CONTEXT, when the put
    passes context, then MQRC_CONTEXT_HANDLE_ERROR and nothing is put."""
    plain = mqpy.Queue(qm1.qm, "Q1", IN)
    with raises_mq(CMQC.MQRC_CONTEXT_HANDLE_ERROR):
        _put(qm1.qm, "Q1", CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQOO_PASS_ALL_CONTEXT,
             context=plain.get_handle())
    plain.close()
    assert int(qm1.eng.queue_status("Q1")["CURDEPTH"]) == 0


@pytest.mark.parametrize(("pmo_ctx", "open_ctx"), [
    (CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQOO_SET_IDENTITY_CONTEXT),
    (CMQC.MQPMO_SET_IDENTITY_CONTEXT, 0),
    (CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQOO_PASS_IDENTITY_CONTEXT),
])
def test_context_option_without_the_matching_open_option_fails(qm1, pmo_ctx, open_ctx):
    """Given a handle opened without the open option a PMO context option needs, when the put
    uses it, then it fails (MQMIError) and nothing is put."""
    with pytest.raises(mqpy.MQMIError):
        _put(qm1.qm, "Q1", pmo_ctx, open_ctx, md=mqpy.MD(**ORIGINAL))
    assert int(qm1.eng.queue_status("Q1")["CURDEPTH"]) == 0


def test_set_identity_without_open_option_fails_2096(qm1):
    """Given Q1 opened for output only, when the put says MQPMO_SET_IDENTITY_CONTEXT, then
    MQRC_NOT_OPEN_FOR_SET_IDENT (IBM)."""
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT):
        _put(qm1.qm, "Q1", CMQC.MQPMO_SET_IDENTITY_CONTEXT)


def test_pass_context_before_any_get_fails_2098(qm1):
    """Given a handle opened with MQOO_SAVE_ALL_CONTEXT that has not got a message, when a put
    passes its context, then MQRC_CONTEXT_NOT_AVAILABLE."""
    src = mqpy.Queue(qm1.qm, "Q1", IN | CMQC.MQOO_SAVE_ALL_CONTEXT)
    try:
        with raises_mq(CMQC.MQRC_CONTEXT_NOT_AVAILABLE):
            _put(qm1.qm, "Q1", CMQC.MQPMO_PASS_ALL_CONTEXT, CMQC.MQOO_PASS_ALL_CONTEXT,
                 context=src.get_handle())
    finally:
        src.close()


def test_put1_with_set_all_context_needs_no_open(qm1):
    """Given MQPUT1 with MQPMO_SET_ALL_CONTEXT, then the call opens with the matching option
    itself and the application's context is kept."""
    md = mqpy.MD(**ORIGINAL)
    qm1.qm.put1("Q1", b"ctx", md, mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    got, _ = get_one(qm1.qm, "Q1")
    assert _field(got, "PutApplName") == b"ORIGIN.APP"
    assert _field(got, "UserIdentifier") == b"alice"


def test_two_context_options_together_fail_2046(qm1):
    """Given MQPMO_NO_CONTEXT | MQPMO_DEFAULT_CONTEXT, then MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        _put(qm1.qm, "Q1", CMQC.MQPMO_NO_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT)


def test_context_travels_inside_the_transmission_header(qm1):
    """Given SET_ALL_CONTEXT on a put to a remote queue, then the MQMD embedded in the MQXQH
    carries the application's context (what the receiving MCA will put with)."""
    qm1.xmitq("QMB")
    q = mqpy.Queue(qm1.qm, od("QX", "QMB"), OUT | CMQC.MQOO_SET_ALL_CONTEXT)
    q.put(b"ctx", mqpy.MD(**ORIGINAL), mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    q.close()
    _outer, xqh, _ = get_xmit(qm1.qm, "QMB")
    assert _field(xqh.MsgDesc, "PutApplName") == b"ORIGIN.APP"
    assert _field(xqh.MsgDesc, "UserIdentifier") == b"alice"
