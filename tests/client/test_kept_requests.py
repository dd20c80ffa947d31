"""A client connection's usual MQPUT and MQGET made from what the call before left
(``mqpy.clientcalls`` with ``mqpy.bindings_templates``): the request kept per object handle
sent again with the call's RequestId and lengths, the reply read against the last; an
application sees what the general path gives it, on its own conversation, on conversations
sharing a channel instance and from two threads on one connection."""

from __future__ import annotations

import threading

import mqpy
from mqpy import CMQC, bindings_templates, clientcalls
from tests.performance_paths.test_bindings_templates import _counted, _loop

_QUEUES = ("Q", "Q2", "QA", "QB")


def _define(env) -> None:  # noqa: ANN001 - the client tests' Env
    """The queues ``_loop`` and the shared-conversation run use (REMOTE: through XQ)."""
    env.define("QLOCAL", "XQ", USAGE="XMITQ")
    for name in (*_QUEUES, "QA2", "QB2"):
        env.define("QLOCAL", name)
    for suffix in ("", "2"):
        env.define("QREMOTE", "REMOTE" + suffix, RNAME="TARGET", RQMNAME="QM9", XMITQ="XQ")


def _client_loop(env, suffix: str) -> list:  # noqa: ANN001
    qm = env.client()
    try:
        return _loop(qm, suffix)
    finally:
        qm.disconnect()


def _general_only(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(clientcalls.PackedClientCalls, "_packable", lambda self: False)


def test_an_application_loop_sees_the_same_with_kept_requests_as_the_general_path(
        env, monkeypatch):
    """Given an application's loop of usual puts and gets broken by unusual ones (MQMD
    versions, ids given, an MQMD reused, MQPMO_NEW_MSG_ID, context options, syncpoint, a
    queue of another queue manager: a reply whose other fields differ, message properties
    in a handle, MQGMO versions, truncation 2079 and 2080), when it runs over a client
    connection with the kept requests and then with the general path only, then it sees
    the same answers and structures, and requests were made from kept ones and replies
    read against the last."""
    _define(env)
    made = _counted(monkeypatch, clientcalls, "_from_kept")
    read = _counted(monkeypatch, bindings_templates, "read_against")
    fast = _client_loop(env, "")
    assert fast.count("blue") >= 3
    assert len([m for m in made if m is not None]) > 10
    assert len([r for r in read if r is not None]) > 10
    _general_only(monkeypatch)
    made.clear()
    assert _client_loop(env, "2") == fast
    assert made == []


def _alternating(env, suffix: str) -> list:  # noqa: ANN001
    """Two connections sharing one channel instance put and get in turn on their queues
    with the same structures: what each saw."""
    a, b = env.client(), env.client()
    seen: list = [a.connection().local_address == b.connection().local_address]
    try:
        queues = [mqpy.Queue(qm, name + suffix, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
                  for qm, name in ((a, "QA"), (b, "QB"))]
        pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), mqpy.GMO()
        for i in range(12):
            q = queues[i % 2]
            md = mqpy.MD(CorrelId=b"%024d" % i)
            q.put(b"m%d" % i, md, pmo)
            seen.append((md.CorrelId, pmo.ResolvedQName.rstrip().removesuffix(suffix.encode())))
        for i in range(12):
            md = mqpy.MD()
            seen.append((queues[i % 2].get(None, md, gmo), md.CorrelId, gmo.ReturnedLength))
    finally:
        a.disconnect()
        b.disconnect()
    return seen


def test_conversations_sharing_an_instance_keep_their_own_requests(env, monkeypatch):
    """Given two connections sharing one channel instance (SHARECNV), putting and getting in
    turn with the same MQPMO and MQGMO on their own handles, when run with the kept requests
    and then with the general path, then each conversation's calls reach its own queue and
    the answers are the same."""
    _define(env)
    fast = _alternating(env, "")
    assert fast[0] is True
    _general_only(monkeypatch)
    assert _alternating(env, "2") == fast


def test_two_threads_on_one_connection_each_get_their_own_replies(env):
    """Given two threads putting and getting on one client connection and one handle with
    their own MQPMO and MQGMO (the requests kept per handle), when they run at once, then
    every put's MQMD takes its own reply's MsgId and every message is got once, whole."""
    _define(env)
    qm = env.client()
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    ids: list[list[bytes]] = [[], []]
    got: list[list[bytes]] = [[], []]

    def work(n: int) -> None:
        pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), mqpy.GMO()
        for i in range(150):
            md = mqpy.MD(CorrelId=b"%023d%d" % (i, n))
            q.put(b"%d-%d" % (n, i) * (1 + i % 3), md, pmo)
            ids[n].append(md.MsgId)
            md = mqpy.MD(CorrelId=b"%023d%d" % (i, n))
            gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
            got[n].append((q.get(None, md, gmo), md.MsgId))

    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        qm.disconnect()
    for n in (0, 1):
        assert [g[0] for g in got[n]] == [b"%d-%d" % (n, i) * (1 + i % 3) for i in range(150)]
        assert [g[1] for g in got[n]] == ids[n]
    assert len(set(ids[0] + ids[1])) == 300
