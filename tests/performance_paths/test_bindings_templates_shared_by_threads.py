"""A bindings connection's kept requests and replies (``mqpy.bindings_templates``) when
two threads share one connection and one handle: each message is put and got once, with
its own fields."""

from __future__ import annotations

import threading

import mqpy
from mqpy import CMQC, bindings, bindings_templates
from mqpy.bindings_templates import Templates
from tests.performance_paths.test_bindings_templates import _counted, served  # noqa: F401

_EACH = 300
_NO_SYNC_GET = CMQC.MQGMO_ACCEPT_TRUNCATED_MSG | CMQC.MQGMO_NO_SYNCPOINT
_FORMATS = {0: b" " * 8, 1: b"MQSTR   "}


def _puts(out: mqpy.Queue, n: int, errors: list) -> None:
    """Thread ``n``'s puts: its Priority and Format, messages of several lengths."""
    try:
        for i in range(_EACH):
            md = mqpy.MD(Priority=n, Format=_FORMATS[n])
            out.put(b"%d-%04d" % (n, i) + b"x" * (i % 7), md,
                    mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
            assert md.Priority == n and md.Format == _FORMATS[n]
    except BaseException as e:  # noqa: BLE001 - told by the test
        errors.append(e)


def _gets(inq: mqpy.Queue, length: int | None, got: list, errors: list) -> None:
    """Gets into a buffer of ``length`` (truncation accepted) until none is left, each
    message's MQMD checked against what its putter gave it."""
    try:
        while True:
            md = mqpy.MD()
            try:
                data = inq.get(length, md, mqpy.GMO(Options=_NO_SYNC_GET))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return
                if e.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                    raise
                data = e.message
            n = int(data[:1])
            assert (md.Priority, md.Format) == (n, _FORMATS[n]), (md.Priority, md.Format, data)
            got.append(data[:6])
    except BaseException as e:  # noqa: BLE001 - told by the test
        errors.append(e)


def _together(target, args_list) -> None:
    threads = [threading.Thread(target=target, args=args) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)


def test_two_threads_on_one_handle_put_and_get_each_message_once_with_its_fields(
        served, monkeypatch):  # noqa: F811
    """Given two threads putting on one handle of one bindings connection with MQMDs of
    their own (Priority, Format) and two getting on another (one into a short buffer),
    when they run at once through the kept requests and replies, then every message is
    got once, each with its putter's fields, and the templates were used."""
    _eng, root = served
    made = _counted(monkeypatch, Templates, "request")
    read = _counted(monkeypatch, bindings_templates, "read_against")
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        out = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
        inq = mqpy.Queue(qm, "Q", CMQC.MQOO_INPUT_SHARED)
        errors: list = []
        got: list = []
        _together(_puts, [(out, 0, errors), (out, 1, errors)])
        _together(_gets, [(inq, None, got, errors), (inq, 6, got, errors)])
        assert not errors, errors
        assert sorted(got) == sorted(b"%d-%04d" % (n, i) for n in (0, 1) for i in range(_EACH))
        assert len([r for r in read if r is not None]) > _EACH
    finally:
        conn.disconnect()
    assert len([m for m in made if m is not None]) > 50  # (MQGETs: each thread its own length)

