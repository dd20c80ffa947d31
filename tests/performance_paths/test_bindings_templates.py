"""A bindings connection's usual MQPUT and MQGET made from what the call before left
(``mqpy.bindings_templates``): a request kept per object handle is sent again only for the
same structures' fields, and a reply read against the one before gives what reading it in
full gives; anything else goes the full way."""

from __future__ import annotations

import copy
import os

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_templates
from mqpy.bindings_templates import Templates
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import build_mqi_request
from mqpy.fap.tsh import SegmentType
from tests.support.bindings_server import serving
from tests.support.mqi_workload import md_fields, md_forms

_T = SegmentType
_OK, _WARNING = CMQC.MQCC_OK, CMQC.MQCC_WARNING


def _message_md(i: int, **fields) -> mqpy.MD:
    """An MQMD as a queue manager returns it for message ``i`` (its own ids and time)."""
    return mqpy.MD(MsgId=b"%024d" % i, CorrelId=b"c%023d" % i, PutDate=b"2026112%d" % (i % 10),
                   PutTime=b"%08d" % (i * 7), PutApplName=b"app", UserIdentifier=b"me",
                   **fields)


def _replies() -> list[tuple]:
    """(verb, reply values, CompCode, Reason) in the order an application gets them: runs
    of the same shape (the template read) broken by others (the full read)."""
    out: list[tuple] = []
    for i in range(6):  # puts: only the ids and time change
        out.append((_T.MQPUT, [_message_md(i), mqpy.PMO(ResolvedQName=b"Q",
                                                        ResolvedQMgrName=b"QM")], _OK, 0))
    out.append((_T.MQPUT, [_message_md(6, Priority=3), mqpy.PMO(ResolvedQName=b"Q")], _OK, 0))
    out.append((_T.MQPUT, [_message_md(7, Priority=3), mqpy.PMO(ResolvedQName=b"R")], _OK, 0))
    out.append((_T.MQPUT, [_message_md(8, Version=1), mqpy.PMO(Version=1)], _OK, 0))
    out.append((_T.MQPUT, [_message_md(9, Version=1), mqpy.PMO(Version=1)], _WARNING,
                CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM))
    out.append((_T.MQPUT, [_message_md(10, Version=1), mqpy.PMO(Version=1)], _OK, 0))
    for i in range(6):  # gets: the ids, time, MsgToken and message change
        out.append((_T.MQGET, [_message_md(i), mqpy.GMO(ResolvedQName=b"Q", MsgToken=b"%016d" % i,
                                                        ReturnedLength=4),
                               4, b"m%03d" % i], _OK, 0))
    out.append((_T.MQGET, [_message_md(6, BackoutCount=1), mqpy.GMO(ResolvedQName=b"Q"), 4,
                           b"back"], _OK, 0))
    out.append((_T.MQGET, [_message_md(7), mqpy.GMO(ResolvedQName=b"Q"), 4, b"long"], _OK, 0))
    out.append((_T.MQGET, [_message_md(8), mqpy.GMO(ResolvedQName=b"Q"), 9, b"tru"],
                _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED))
    out.append((_T.MQGET, [_message_md(9), mqpy.GMO(ResolvedQName=b"Q"), 9, b"cut"],
                _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED))
    out.append((_T.MQGET, [_message_md(10), mqpy.GMO(ResolvedQName=b"Q"), 9, b""],
                _WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED))
    for i in range(11, 16):  # messages of other lengths
        data = b"v" * (i * 13)
        out.append((_T.MQGET, [_message_md(i), mqpy.GMO(ResolvedQName=b"Q", MsgToken=b"%016d" % i,
                                                        ReturnedLength=len(data)),
                               len(data), data], _OK, 0))
    out.append((_T.MQGET, [_message_md(16), mqpy.GMO(ResolvedQName=b"Q", ReturnedLength=9),
                           9, b"short"], _WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED))
    for i in range(11, 14):  # MQGMO version 2: no MsgToken
        out.append((_T.MQGET, [_message_md(i), mqpy.GMO(Version=2), 2, b"%02d" % i], _OK, 0))
    return out


def _targets(verb: SegmentType, opts: object) -> tuple:
    return (mqpy.MD(), opts)


def test_replies_read_against_the_last_are_what_reading_them_in_full_gives():
    """Given replies of runs of the same shape and of others, when a connection's templates
    read them into the caller's structures (a fresh MQMD, the same MQPMO / MQGMO each call)
    and the full read reads them into copies, then the values and structures are equal,
    and the runs were read against the last reply."""
    templates = Templates()
    against = 0
    read_against = bindings_templates.read_against
    opts = {_T.MQPUT: (mqpy.PMO(), mqpy.PMO()), _T.MQGET: (mqpy.GMO(), mqpy.GMO())}
    for verb, values, comp, reason in _replies():
        body = mqiflows.common_reply_body(verb, values)
        ours, theirs = opts[verb]
        mine = (mqpy.MD(), ours)
        full = (mqpy.MD(), theirs)
        kept = templates.replies.get(verb)
        if kept is not None and read_against(kept, body, copy.deepcopy(mine)) is not None:
            against += 1
        got = templates.reply(verb, comp, reason, 5, body, mine)
        expected = mqiflows.common_reply(verb, comp, reason, 5, body, full)
        assert got == expected
        assert got.values[0] is mine[0] and got.values[1] is mine[1]
        assert mine[0].__dict__ == full[0].__dict__ and ours.__dict__ == theirs.__dict__
        assert list(mine[0].__dict__) == list(full[0].__dict__)
    assert against >= 15  # (the runs of puts and of gets, those of other lengths too)


def test_a_reply_is_read_in_full_for_structures_not_as_the_full_read_fills_them():
    """Given a kept MQPUT reply, when the caller's structures are of another class or carry
    other attributes, then the reply is read in full (a new structure, as that read does)."""
    templates = Templates()
    body = mqiflows.common_reply_body(_T.MQPUT, [_message_md(1), mqpy.PMO()])
    templates.reply(_T.MQPUT, _OK, 0, 0, body, (mqpy.MD(), mqpy.PMO()))
    odd = mqpy.MD()
    odd.__dict__["extra"] = 1
    for targets in ((odd, mqpy.PMO()), (mqpy.MD(), mqpy.GMO()), (mqpy.MD(),)):
        assert bindings_templates.read_against(templates.replies[_T.MQPUT], body,
                                                targets) is None
        got = templates.reply(_T.MQPUT, _OK, 0, 0, body, targets)
        assert got == mqiflows.common_reply(_T.MQPUT, _OK, 0, 0, body, ())


def _packed(verb: SegmentType, hobj: int, md: mqpy.MD, opts: object, extra: object) -> bytes:
    """The request the general packer makes (``extra``: the message, or BufferLength)."""
    values = [md, opts, extra]
    return build_mqi_request(verb, hobj, (mqiflows.common_request_body(verb, values),))


def test_a_kept_request_is_sent_again_only_for_equal_fields_of_the_same_types():
    """Given a request kept for a handle, when the next call's structures have equal fields
    of the same types and its message is as long, then the kept bytes are the request;
    fields that differ, or are equal but of another type (True, 1.0, a memoryview), another
    handle, another length, or fields that change in place: the request is packed again.
    An MQPUT of another message is the kept request with that message's lengths, up to
    the limit given."""
    templates = Templates()
    data = b"d" * 100
    md, pmo = mqpy.MD(Persistence=1), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    request = _packed(_T.MQPUT, 5, md, pmo, data)
    templates.keep_request(_T.MQPUT, 5, md, pmo, len(data), request[:-len(data)])
    assert templates.request(_T.MQPUT, 5, mqpy.MD(Persistence=1), pmo, len(data)) + data \
        == _packed(_T.MQPUT, 5, mqpy.MD(Persistence=1), pmo, data) == request
    for other in (b"", b"o", b"o" * 5000):  # another message: its lengths
        assert templates.put_request(5, mqpy.MD(Persistence=1), pmo, other, 1 << 16) \
            == _packed(_T.MQPUT, 5, mqpy.MD(Persistence=1), pmo, other)
    assert templates.put_request(5, mqpy.MD(Persistence=1), pmo, b"o" * 5000, 5000) is None
    floated, boolean = mqpy.MD(Persistence=1), mqpy.MD(Persistence=1)
    floated.__dict__["Persistence"] = 1.0  # (past the structure's own checks)
    boolean.__dict__["Persistence"] = True
    viewed = mqpy.MD(Persistence=1)
    viewed.__dict__["CorrelId"] = memoryview(viewed.CorrelId)
    misses = [(5, boolean, pmo, len(data)), (5, floated, pmo, len(data)),
              (5, viewed, pmo, len(data)),
              (5, mqpy.MD(Persistence=1), pmo, len(data) + 1),
              (6, mqpy.MD(Persistence=1), pmo, len(data)),
              (5, mqpy.MD(Persistence=1, MsgId=b"given"), pmo, len(data)),
              (5, mqpy.MD(Persistence=1),
               mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID), len(data)),
              (5, mqpy.MD(Persistence=1, Version=1), pmo, len(data))]
    for hobj, other_md, other_pmo, length in misses:
        assert templates.request(_T.MQPUT, hobj, other_md, other_pmo, length) is None
    listed = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    listed.ResponseRecPtr = []  # (a value that may change in place: never kept)
    templates.keep_request(_T.MQPUT, 7, md, listed, len(data), b"x")
    assert templates.request(_T.MQPUT, 7, md, listed, len(data)) is None
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    get = _packed(_T.MQGET, 6, mqpy.MD(), gmo, mqiflows.WHOLE_MESSAGE)
    templates.keep_request(_T.MQGET, 6, mqpy.MD(), gmo, mqiflows.WHOLE_MESSAGE, get)
    assert templates.request(_T.MQGET, 6, mqpy.MD(), gmo, mqiflows.WHOLE_MESSAGE) == get
    assert templates.request(_T.MQGET, 6, mqpy.MD(), gmo, 10) is None
    assert templates.request(_T.MQPUT, 6, mqpy.MD(), gmo, mqiflows.WHOLE_MESSAGE) is None


def test_handles_kept_are_bounded():
    """Given a connection opening handle after handle, when each one's request is kept,
    then at most KEPT_HANDLES are kept at once."""
    templates = Templates()
    for hobj in range(3 * bindings_templates.KEPT_HANDLES):
        templates.keep_request(_T.MQPUT, hobj, mqpy.MD(), mqpy.PMO(), 1, b"x")
        assert len(templates.requests) <= bindings_templates.KEPT_HANDLES


# -- against a queue manager: the same answers with the templates and the general path -----


@pytest.fixture
def served(tmp_path):
    """An engine with queues Q, Q2, and REMOTE, REMOTE2 (queues of QM9, through XQ) served
    on its bindings socket: (engine, data path)."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "XQ", {"USAGE": "XMITQ"})
    for suffix in ("", "2"):
        eng.define("QLOCAL", "Q" + suffix, {})
        eng.define("QREMOTE", "REMOTE" + suffix,
                   {"RNAME": "TARGET", "RQMNAME": "QM9", "XMITQ": "XQ"})
    try:
        with serving(eng):
            yield eng, str(tmp_path)
    finally:
        eng.close()


def _loop(qm: mqpy.QueueManager, suffix: str) -> list:
    """An application's loop of usual calls broken by unusual ones: what it saw (a failure
    as its codes), the structures less what differs from run to run."""
    seen: list = []
    out = mqpy.Queue(qm, "Q" + suffix, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT)
    inq = mqpy.Queue(qm, "Q" + suffix, CMQC.MQOO_INPUT_SHARED)
    remote = mqpy.Queue(qm, "REMOTE" + suffix, CMQC.MQOO_OUTPUT)

    def call(fn, *args):
        try:
            seen.append(fn(*args))
        except mqpy.MQMIError as e:
            seen.append((e.comp, e.reason, getattr(e, "original_length", None),
                         getattr(e, "message", None)))
        return seen[-1]

    def keep(md, opts):
        fields = {k: v for k, v in opts.__dict__.items() if k != "MsgToken"}
        fields["ResolvedQName"] = fields["ResolvedQName"].rstrip().removesuffix(
            suffix.encode())
        kept = md_fields(md)
        if kept["CorrelId"].startswith(b"AMQ "):  # a new one (MQPMO_NEW_CORREL_ID)
            kept["CorrelId"] = b"AMQ"
        seen.append((kept, fields))

    handle = mqpy.MessageHandle(qm, mqpy.CMHO())
    handle.properties.set("colour", "blue")
    with_properties = []
    for _ in range(3):  # message properties in a handle: an MQRFH2 on the way
        md, pmo = mqpy.MD(), mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = handle.msg_handle
        call(out.put, b"props", md, pmo)
        keep(md, pmo)
        with_properties.append(md.MsgId)
    reused = mqpy.MD()
    for i, md in enumerate([*md_forms(), *md_forms()] * 3):
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if i % 3 else CMQC.MQPMO_NO_SYNCPOINT)
        md = copy.deepcopy(md)
        call(out.put, b"m%04d" % i, md, pmo)
        keep(md, pmo)
        call(out.put, b"r%04d" % i, reused, mqpy.PMO())  # its MsgId given from the last put
        keep(reused, mqpy.PMO())
    for options in (CMQC.MQPMO_NEW_MSG_ID, CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID,
                    CMQC.MQPMO_SET_IDENTITY_CONTEXT, CMQC.MQPMO_NO_CONTEXT):
        for _ in range(3):
            md, pmo = mqpy.MD(UserIdentifier=b"who", MsgId=b"I" * 24), mqpy.PMO(Options=options)
            call(out.put, b"opts", md, pmo)
            keep(md, pmo)
    for _ in range(3):
        md, pmo = mqpy.MD(), mqpy.PMO()
        call(remote.put, b"far", md, pmo)
        keep(md, pmo)
    call(qm.commit)
    got = mqpy.MessageHandle(qm, mqpy.CMHO())
    with_handle = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4)
    with_handle.MsgHandle = got.msg_handle
    for msg_id in with_properties:  # their properties into a handle
        md = mqpy.MD(MsgId=msg_id)
        call(inq.get, None, md, with_handle)
        keep(md, with_handle)
        seen.append(_property(got, "colour"))
    gmos = [mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), mqpy.GMO(), mqpy.GMO(Version=2)]
    for i in range(40):
        md, gmo = mqpy.MD(), gmos[i % 3 if i < 20 else 0]
        call(inq.get, None if i % 5 else 4, md, gmo)  # 4: truncation (2080) every 5th
        keep(md, gmo)
    call(qm.backout)
    for _ in range(200):
        md, gmo = mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
        got = call(inq.get, 3, md, gmo)
        keep(md, gmo)
        if got == (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE, None, None):
            break
    return seen


def _property(handle: mqpy.MessageHandle, name: str) -> object:
    try:
        return handle.properties.get(name)
    except mqpy.MQMIError as e:
        return e.reason


def _run(root: str, suffix: str) -> list:
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        return _loop(qm, suffix)
    finally:
        conn.disconnect()


def test_an_application_loop_sees_the_same_with_templates_as_the_general_path(served,
                                                                            monkeypatch):
    """Given an application's loop of usual puts and gets broken by unusual ones (MQMD
    versions, ids given, an MQMD reused, MQPMO_NEW_MSG_ID, context options, syncpoint, a
    queue of another queue manager, message properties in a handle, MQGMO versions,
    truncation), when it runs with the
    templates and then with the general path only, then it sees the same answers and
    structures, and the templates made requests and read replies."""
    _eng, root = served
    made = _counted(monkeypatch, Templates, "request")
    read = _counted(monkeypatch, bindings_templates, "read_against")
    fast = _run(root, "")
    assert fast.count("blue") >= 3  # (the properties got back through the handle)
    assert len([m for m in made if m is not None]) > 10
    assert len([r for r in read if r is not None]) > 10
    monkeypatch.setattr(bindings.BindingsConnection, "_packable", lambda self: False)
    made.clear()
    assert _run(root, "2") == fast
    assert made == []


def _counted(monkeypatch, owner: object, name: str) -> list:
    """What each call of ``owner.name`` returns from now on, in a list."""
    answers: list = []
    original = getattr(owner, name)

    def counting(*args):
        answers.append(original(*args))
        return answers[-1]

    monkeypatch.setattr(owner, name, counting)
    return answers
