"""The repository manager in one process: one queue manager and its channel initiator, MQSC
through the command processor (as the command server runs it)."""

from __future__ import annotations

import functools
import json
import os

import pytest
import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy.fap.channeldefs import CLUSTER_XMITQ, cluster_correl_id
from mqpy.mqsc.processor import MQSCProcessor
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.cluster import utilities
from mqpy_chinit.cluster.directory import Cache, cache_path, instance_to_dict
from mqpy_chinit.engineadmin import EngineAdmin


@pytest.fixture
def qm1(tmp_path):
    root = str(tmp_path / "QM1")
    inprocess.create("QM1", root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
    eng = inprocess.start("QM1", root)
    eng.root = root
    yield eng
    inprocess.stop_all()


async def _mqsc(eng, text: str) -> list[str]:
    """MQSC in a worker thread: cluster commands wait for the channel initiator's reply."""
    result = await trio.to_thread.run_sync(MQSCProcessor(eng).execute_text, text)
    return result.lines if result.ok else ["FAILED", *result.lines]


async def _until(check, what: str) -> None:
    with trio.fail_after(20):
        while not check():
            await trio.sleep(0.05)


async def _full_repository_of_inv(qm1, port: int, manager) -> None:
    """QM1 made a full repository of INV, with its CLUSRCVR TO.QM1 at ``port``; ``manager()``
    is the repository manager that must know it."""
    await _mqsc(qm1, "ALTER QMGR REPOS(INV)")
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
                     "CLUSTER(INV)")
    await _until(lambda: manager().repo.is_full("INV") and "INV" in manager().repo.clusters,
                 "the full repository")


def _cache(eng) -> Cache:
    try:
        with open(cache_path(eng.qmdir), "rb") as f:
            return Cache.from_bytes(f.read())
    except OSError:
        return Cache()


@pytest.fixture
async def chinit(qm1, nursery):
    ci = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=qm1.root,
                                                       create=False),
                          EngineAdmin(qm1), cluster_cache=cache_path(qm1.qmdir))
    await nursery.start(ci.run, [("127.0.0.1", 0)])
    await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None,
                 "the repository manager")
    return ci


async def test_definitions_become_records_on_the_repository_queue(qm1, chinit):
    """Given a running channel initiator, when a CLUSRCVR naming INV and a clustered queue are
    defined with MQSC, then the repository manager publishes them: SYSTEM.CLUSTER.REPOSITORY.
    QUEUE holds the queue-manager and queue records (dumprepos shows them), the engine's cache
    says QM1 is in INV, and DISPLAY CLUSQMGR / QCLUSTER show QM1 (DEFTYPE CLUSRCVR) and its
    queue.  spec: operations-dlq-clusters 4 (repository as messages, DISPLAY)"""
    port = chinit.ports[0]
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
                     "CLUSTER(INV)")
    await _mqsc(qm1, "DEFINE QLOCAL(INVQ) CLUSTER(INV)")
    await _until(lambda: qm1.queue_status("SYSTEM.CLUSTER.REPOSITORY.QUEUE")["CURDEPTH"] == 2,
                 "two records")
    await _until(lambda: _cache(qm1).clusters == ["INV"], "the cache")
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    records = [json.loads(line) for line in utilities.dump_repository(qm)]
    qm.disconnect()
    assert sorted(r["type"] for r in records) == ["QMGR", "QUEUE"]
    lines = await _mqsc(qm1, "DISPLAY CLUSQMGR(*) DEFTYPE QMTYPE")
    assert lines[0] == "AMQ8441I: Display Cluster Queue Manager details."
    text = "\n".join(lines)
    assert "CLUSQMGR(QM1)" in text and "DEFTYPE(CLUSRCVR)" in text and "QMTYPE(NORMAL)" in text
    text = "\n".join(await _mqsc(qm1, "DISPLAY QCLUSTER(INVQ) ALL"))
    assert "TYPE(QCLUSTER)" in text and "CLUSQMGR(QM1)" in text and "PUT(ENABLED)" in text


async def test_display_clusqmgr_shows_the_channel_attributes_a_member_advertises(qm1, chinit):
    """Given a CLUSRCVR with BATCHSZ(20) HBINT(120) CLWLWGHT(70), when DISPLAY CLUSQMGR is
    asked for ALL or for those attributes, then the member shows them as its CLUSRCVR
    advertises them (what an auto-defined CLUSSDR to it takes), and WHERE filters on them."""
    port = chinit.ports[0]
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
                     "CLUSTER(INV) BATCHSZ(20) HBINT(120) CLWLWGHT(70)")
    await _until(lambda: _cache(qm1).clusters == ["INV"], "the cache")
    text = "\n".join(await _mqsc(qm1, "DISPLAY CLUSQMGR(QM1) ALL"))
    for item in ("BATCHSZ(20)", "HBINT(120)", "CLWLWGHT(70)", "SHORTRTY(10)", "DEFTYPE(CLUSRCVR)"):
        assert item in text
    lines = await _mqsc(qm1, "DISPLAY CLUSQMGR(*) BATCHSZ HBINT")
    text = "\n".join(lines)
    assert "BATCHSZ(20)" in text and "HBINT(120)" in text and "SHORTRTY" not in text
    lines = await _mqsc(qm1, "DISPLAY CLUSQMGR(*) WHERE(BATCHSZ GT 50)")
    assert "CLUSQMGR(QM1)" not in "\n".join(lines)


async def test_full_repository_only_commands_are_refused_elsewhere(qm1, chinit):
    """Given a partial repository, when RESET CLUSTER ... ACTION(FORCEREMOVE) is issued, then
    it is refused with MQRCCF_ACTION_VALUE_ERROR; REFRESH CLUSTER REPOS(YES) is refused on a
    full repository; SUSPEND of a cluster it is not in is refused.
    spec: operations-dlq-clusters 7.25; operations-dlq-clusters 7.24"""
    port = chinit.ports[0]
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
                     "CLUSTER(INV)")
    await _until(lambda: _cache(qm1).clusters == ["INV"], "the cache")
    lines = await _mqsc(qm1, "RESET CLUSTER(INV) QMNAME(QM9) ACTION(FORCEREMOVE)")
    assert lines[0] == "FAILED" and "full repository" in lines[2]
    assert lines[1] == "AMQ8101S: IBM MQ error (C13) has occurred."  # MQRCCF_ACTION_VALUE_ERROR
    lines = await _mqsc(qm1, "SUSPEND QMGR CLUSTER(OTHER)")
    assert lines[0] == "FAILED"
    await _mqsc(qm1, "ALTER QMGR REPOS(INV)")
    await _until(lambda: chinit.cluster.repo.is_full("INV"), "the full repository")
    lines = await _mqsc(qm1, "REFRESH CLUSTER(INV) REPOS(YES)")
    assert lines[0] == "FAILED"
    assert (await _mqsc(qm1, "REFRESH CLUSTER(INV)"))[0] == "AMQ8598I: Refresh Cluster accepted."


async def test_a_message_that_is_not_a_repository_record_is_dead_lettered(qm1, chinit):
    """Given a running repository manager, when a message that is not a repository record
    arrives on SYSTEM.CLUSTER.COMMAND.QUEUE, then it goes to the dead-letter queue behind an
    MQDLH with reason MQFB_NOT_A_REPOSITORY_MSG (280), and the manager goes on.
    spec: operations-dlq-clusters 4 (repository failures)"""
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    qm.put1("SYSTEM.CLUSTER.COMMAND.QUEUE", b"not a record")
    await _until(lambda: qm1.queue_status("SYSTEM.DEAD.LETTER.QUEUE")["CURDEPTH"] == 1,
                 "the dead letter")
    dlq = mqpy.Queue(qm, "SYSTEM.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    data = dlq.get()
    dlh = mqpy.DLH().unpack(data)
    assert dlh.Reason == CMQC.MQFB_NOT_A_REPOSITORY_MSG
    assert data.endswith(b"not a record")
    dlq.close()
    qm.disconnect()
    assert qm1.queue_status("SYSTEM.CLUSTER.COMMAND.QUEUE")["CURDEPTH"] == 0
    assert chinit.cluster is not None and os.path.exists(cache_path(qm1.qmdir))


async def test_a_message_not_a_repository_record_and_no_dlq_is_logged_as_discarded(
        qm1, nursery):
    """Given a running repository manager and a queue manager without a dead-letter queue,
    when a message that is not a repository record arrives on SYSTEM.CLUSTER.COMMAND.QUEUE,
    then it is discarded and the error log says so (AMQ9565E, no dead-letter queue defined,
    naming the queue and reason 280), never that it was put on the dead-letter queue."""
    log: list[tuple[str, str]] = []
    qm1.alter_qmgr({"DEADQ": ""})
    ci = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=qm1.root,
                                                       create=False),
                          EngineAdmin(qm1), cluster_cache=cache_path(qm1.qmdir),
                          log=lambda msgid, text: log.append((msgid, text)))
    await nursery.start(ci.run, [("127.0.0.1", 0)])
    await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None,
                 "the repository manager")
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    qm.put1("SYSTEM.CLUSTER.COMMAND.QUEUE", b"not a record")
    qm.disconnect()
    await _until(lambda: any(m == "AMQ9565E" for m, _ in log), "the discard logged")
    text = next(t for m, t in log if m == "AMQ9565E")
    assert "SYSTEM.CLUSTER.COMMAND.QUEUE" in text and "280" in text and "discarded" in text
    assert not any("put on the dead-letter queue" in t for _, t in log), log


async def test_subscriptions_survive_a_restart_of_the_repository_manager(qm1):
    """Given full repository QM1 holding a subscription of partial repository QM9 to INVQ,
    and an application here having asked for a name the cluster does not know, when the
    channel initiator is restarted, then the new repository manager still holds both (they
    are kept on SYSTEM.CLUSTER.REPOSITORY.QUEUE), so updates keep flowing to QM9.
    spec: operations-dlq-clusters 4 (requests kept 30 days)"""
    from mqpy_chinit.cluster.records import ClusterCommand, Subscription, SubscriptionKind
    from mqpy_chinit.cluster.records import encode as encode_record

    def connect():
        return mqpy.embedded("QM1", data_path=qm1.root, create=False)

    async def started(nursery) -> ChannelInitiator:
        ci = ChannelInitiator("QM1", connect, EngineAdmin(qm1),
                              cluster_cache=cache_path(qm1.qmdir))
        await nursery.start(ci.run, [("127.0.0.1", 0)])
        await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None, "manager")
        return ci

    async with trio.open_nursery() as nursery:
        ci = await started(nursery)
        await _full_repository_of_inv(qm1, ci.ports[0], lambda: ci.cluster)
        now = ci.cluster.clock()
        sub = Subscription("INV", SubscriptionKind.QUEUE, "INVQ", "QM9", "QM9_id", "TO.QM9",
                           published=now, expiry=now + 86_400)
        qm = connect()
        qm.put1("SYSTEM.CLUSTER.COMMAND.QUEUE",
                encode_record(ClusterCommand("QM9", "QM9_id", sub)),
                mqpy.MD(Format=b"MQPYCLUS"))
        qm.disconnect()
        await _until(lambda: ci.cluster.repo.subscribers(), "the subscription")
        await _mqsc(qm1, "DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) REPLACE "
                         f"CONNAME('127.0.0.1({ci.ports[0]})') CLUSTER(INV2)")
        await _until(lambda: "INV2" in ci.cluster.repo.clusters, "the partial repository")
        with pytest.raises(mqpy.MQMIError):  # INV2: a partial repository asks for INVQ
            connect().put1("INVQ", b"x")
        await _until(lambda: ("INV2", "QUEUE", "INVQ") in ci.cluster.repo.subscriptions(),
                     "the name asked for")
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        ci = await started(nursery)
        assert [s.subscriber for s in ci.cluster.repo.subscribers()] == ["QM9"]
        assert ("INV2", "QUEUE", "INVQ") in ci.cluster.repo.subscriptions()
        nursery.cancel_scope.cancel()


async def test_own_records_are_republished_after_27_days_and_kept_on_the_queue(qm1):
    """Given a member whose repository manager runs on a clock the test advances, when 27
    days pass, then its own record is published again (the newer version replaces the
    message on SYSTEM.CLUSTER.REPOSITORY.QUEUE: still one message per record); a
    republication whose unit of work is backed out for an MQ error (the repository queue
    put-inhibited) leaves the manager's memory as it was, and the next tick does it.
    spec: operations-dlq-clusters 7.26"""
    from mqpy_chinit.cluster.records import DAY

    start = 1_000_000.0
    now = [start]

    def published() -> list[float]:
        qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
        try:
            return [json.loads(line)["published"] for line in utilities.dump_repository(qm)]
        finally:
            qm.disconnect()

    async with trio.open_nursery() as nursery:
        ci = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=qm1.root,
                                                           create=False),
                              EngineAdmin(qm1), cluster_cache=cache_path(qm1.qmdir),
                              cluster_clock=lambda: now[0])
        await nursery.start(ci.run, [("127.0.0.1", 0)])
        await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None, "manager")
        await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) "
                         f"CONNAME('127.0.0.1({ci.ports[0]})') CLUSTER(INV)")
        await _until(lambda: qm1.queue_status("SYSTEM.CLUSTER.REPOSITORY.QUEUE")[
            "CURDEPTH"] == 1, "the record")
        assert published() == [start]
        now[0] += 26 * DAY
        await ci.cluster.tick()
        assert published() == [start]  # not yet
        now[0] += 1 * DAY
        # the republication's unit of work is backed out (MQ error): nothing of it stays
        # in the manager's memory, and the next tick does it
        await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(DISABLED)")
        with pytest.raises(mqpy.MQMIError) as failed:
            await ci.cluster.tick()
        assert failed.value.reason == CMQC.MQRC_PUT_INHIBITED
        assert [r.published for r in ci.cluster.repo.records().values()] == [start]
        assert published() == [start]
        await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(ENABLED)")
        await ci.cluster.tick()
        assert published() == [start + 27 * DAY]
        assert [r.published for r in ci.cluster.repo.records().values()] == [
            start + 27 * DAY]
        assert qm1.queue_status("SYSTEM.CLUSTER.REPOSITORY.QUEUE")["CURDEPTH"] == 1
        nursery.cancel_scope.cancel()


async def test_a_backed_out_operator_command_changes_nothing(qm1, chinit):
    """Given a member whose SYSTEM.CLUSTER.REPOSITORY.QUEUE is put-inhibited, when SUSPEND
    QMGR CLUSTER(INV) is issued, then it fails with reason 2051 and changes nothing (the
    unit of work is backed out, the manager's memory with it: DISPLAY CLUSQMGR still shows
    SUSPEND(NO)); once the queue is enabled the same command works and is kept.
    spec: operations-dlq-clusters 7.23; 4 (repository as messages)"""
    port = chinit.ports[0]
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') "
                     "CLUSTER(INV)")
    await _until(lambda: qm1.queue_status("SYSTEM.CLUSTER.REPOSITORY.QUEUE")["CURDEPTH"] == 1,
                 "the record")
    await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(DISABLED)")
    lines = await _mqsc(qm1, "SUSPEND QMGR CLUSTER(INV)")
    assert lines[0] == "FAILED" and "reason 2051" in lines[2], lines
    assert "SUSPEND(NO)" in "\n".join(await _mqsc(qm1, "DISPLAY CLUSQMGR(QM1) SUSPEND"))
    await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(ENABLED)")
    assert (await _mqsc(qm1, "SUSPEND QMGR CLUSTER(INV)"))[0].startswith("AMQ8559I")
    assert "SUSPEND(YES)" in "\n".join(await _mqsc(qm1, "DISPLAY CLUSQMGR(QM1) SUSPEND"))
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    records = [json.loads(line) for line in utilities.dump_repository(qm)]
    qm.disconnect()
    assert [r["suspended"] for r in records if r["type"] == "QMGR"] == [True]


async def test_a_record_whose_unit_of_work_is_backed_out_is_applied_again(qm1, chinit):
    """Given full repository QM1, when a queue-manager record from QM9 arrives while
    SYSTEM.CLUSTER.REPOSITORY.QUEUE is put-inhibited, then its unit of work is backed out
    and the repository does not hold the record; when the same command comes again (as a
    backed-out message does), the record is kept on the queue and QM9 is known.
    spec: operations-dlq-clusters 4 (repository as messages)"""
    from mqpy_chinit.cluster.records import (
        ClusterCommand,
        ClusterQmgrRecord,
        RepositoryType,
    )
    from mqpy_chinit.cluster.records import encode as encode_record

    await _full_repository_of_inv(qm1, chinit.ports[0], lambda: chinit.cluster)
    manager = chinit.cluster
    now = manager.clock()
    record = ClusterQmgrRecord("INV", "QM9", "QM9_id", "TO.QM9", "127.0.0.1(9)",
                               RepositoryType.PARTIAL, False, published=now, sequence=1,
                               expiry=now + 86_400)
    md = mqpy.MD(Format=b"MQPYCLUS")
    data = encode_record(ClusterCommand("QM9", "QM9_id", record))
    async with manager.lock:  # as _serve_commands runs one command message
        await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(DISABLED)")
        with pytest.raises(mqpy.MQMIError) as failed:
            await manager._unit_of_work(functools.partial(manager._on_command, md, data))
        assert failed.value.reason == CMQC.MQRC_PUT_INHIBITED
        assert record.key not in manager.repo.records() and "TO.QM9" not in manager.auto
        await _mqsc(qm1, "ALTER QLOCAL(SYSTEM.CLUSTER.REPOSITORY.QUEUE) PUT(ENABLED)")
        await manager._unit_of_work(functools.partial(manager._on_command, md, data))
    assert "TO.QM9" in manager.auto
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    kept = [json.loads(line) for line in utilities.dump_repository(qm)]
    qm.disconnect()
    assert any(r["type"] == "QMGR" and r["qmgr"] == "QM9" for r in kept), kept


async def test_the_repository_manager_is_restarted_after_a_failure(qm1, monkeypatch):
    """Given a running channel initiator, when its repository manager fails with an
    unexpected error, then the failure is logged (AMQ9448E, and an FDC in the errors
    directory) and a new repository manager is started a moment later; the channel
    initiator and its listener go on."""
    from mqpy_chinit.cluster import transmitq

    log: list[tuple[str, str]] = []
    real = transmitq.waiting_channels
    failures = [RuntimeError("injected")]

    def failing_once(xq):
        if failures:
            raise failures.pop()
        return real(xq)

    monkeypatch.setattr(transmitq, "waiting_channels", failing_once)
    async with trio.open_nursery() as nursery:
        ci = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=qm1.root,
                                                           create=False),
                              EngineAdmin(qm1), cluster_cache=cache_path(qm1.qmdir),
                              log=lambda msgid, text: log.append((msgid, text)))
        await nursery.start(ci.run, [("127.0.0.1", 0)])
        await _until(lambda: any(m == "AMQ9448E" for m, _ in log), "the failure logged")
        text = next(t for m, t in log if m == "AMQ9448E")
        assert "RuntimeError: injected" in text and "restarted" in text
        assert any(name.endswith(".FDC") for name in os.listdir(
            os.path.join(qm1.qmdir, "errors")))
        await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None and
                     sum(m == "AMQ9410I" for m, _ in log) == 2, "a new repository manager")
        assert not failures
        port = ci.ports[0]
        await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) "
                         f"CONNAME('127.0.0.1({port})') CLUSTER(INV)")
        await _until(lambda: _cache(qm1).clusters == ["INV"], "the new manager at work")
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            await stream.aclose()
        nursery.cancel_scope.cancel()


def _on_xmitq(qm, channel: str, queue: str, qmgr: str, body: bytes,
              msgid: bytes = b"") -> None:
    """A message on SYSTEM.CLUSTER.TRANSMIT.QUEUE as the engine puts it: unbound (no queue
    manager in the MQXQH) when ``qmgr`` is empty."""
    xqh = mqpy.XQH()
    xqh.RemoteQName, xqh.RemoteQMgrName = queue.encode(), qmgr.encode()
    xqh.MsgDesc = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    md = mqpy.MD(Format=CMQC.MQFMT_XMIT_Q_HEADER, CorrelId=cluster_correl_id(channel))
    if msgid:
        md.MsgId = msgid
    qm.put1(CLUSTER_XMITQ, xqh.pack() + body, md)


def _keyed(qm, channel: str) -> list[bytes]:
    """The bodies (after the MQXQH) of the messages keyed to ``channel``, browsed."""
    q = mqpy.Queue(qm, CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
    out, options = [], CMQC.MQGMO_BROWSE_FIRST
    try:
        while True:
            md = mqpy.MD(CorrelId=cluster_correl_id(channel))
            try:
                data = q.get(None, md, mqpy.GMO(Options=options,
                                                MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            options = CMQC.MQGMO_BROWSE_NEXT
            out.append(data[428:] if md.Format.startswith(b"MQXMIT") else data)
    finally:
        q.close()


async def test_only_unbound_messages_not_in_doubt_are_rerouted_to_a_better_channel(
        qm1, chinit, monkeypatch):
    """Given INVQ at QM2 (channel TO.QM2) and QM3 (TO.QM3), and keyed to TO.QM2 two unbound
    messages, one bound to QM2, one in doubt (got in another unit of work, as a channel's
    batch is) and one that is not a transmission message: when TO.QM2 is RETRYING and so is
    TO.QM3, nothing moves (no ping-pong); when TO.QM3 is RUNNING, exactly the two unbound
    ones not in doubt move to TO.QM3, whole; the others stay, and the stray message breaks
    nothing.  spec: operations-dlq-clusters 7.28; aliases-channels-storage 4.18"""
    from mqpy_chinit.cluster import transmitq
    from mqpy_chinit.cluster.workload import QueueInstance

    # the manager's own watcher would see messages keyed to TO.QM2, a channel nobody
    # defines, and dead-letter the bound one under this test (a loaded machine gives it
    # the time): only the re-routing is tested here
    monkeypatch.setattr(transmitq, "dead_letter_bound", lambda qm, channel: 0)
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    for body in (b"unbound 1", b"in doubt", b"unbound 2"):
        _on_xmitq(qm, "TO.QM2", "INVQ", "", body, msgid=body.ljust(24))
    _on_xmitq(qm, "TO.QM2", "INVQ", "QM2", b"bound")
    qm.put1(CLUSTER_XMITQ, b"stray", mqpy.MD(CorrelId=cluster_correl_id("TO.QM2")))
    batch = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    xq = mqpy.Queue(batch, CLUSTER_XMITQ, CMQC.MQOO_INPUT_SHARED)
    xq.get(None, mqpy.MD(MsgId=b"in doubt".ljust(24)), mqpy.GMO(
        Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=CMQC.MQMO_MATCH_MSG_ID))

    def instance(host: str) -> dict:
        return instance_to_dict(QueueInstance("INVQ", host, f"{host}_id", "INV",
                                              f"TO.{host}"))

    manager = chinit.cluster
    cache = Cache(qmgr="QM1", clusters=["INV"], queues={"INVQ": [instance("QM2"),
                                                                  instance("QM3")]},
                  channels={"TO.QM2": "RETRYING", "TO.QM3": "RETRYING"})
    reroute = functools.partial(manager._reroute, qm, "TO.QM2")
    assert await trio.to_thread.run_sync(reroute, cache) == 0
    cache.channels["TO.QM3"] = "RUNNING"
    assert await trio.to_thread.run_sync(reroute, cache) == 2
    assert sorted(_keyed(qm, "TO.QM3")) == [b"unbound 1", b"unbound 2"]
    batch.backout()  # the batch ends: its message is back, still for TO.QM2
    assert sorted(_keyed(qm, "TO.QM2")) == [b"bound", b"in doubt", b"stray"]
    xq.close()
    batch.disconnect()
    qm.disconnect()


async def _member_learning(qm1, chinit, *hosts: str):
    """QM1 a full repository of INV that has received, from each of ``hosts``, its
    queue-manager record and an instance of INVQ (an auto-defined channel TO.<host> each)."""
    from mqpy_chinit.cluster.records import (
        ClusterCommand,
        ClusterQmgrRecord,
        ClusterQueueRecord,
        RepositoryType,
    )
    from mqpy_chinit.cluster.records import encode as encode_record

    await _full_repository_of_inv(qm1, chinit.ports[0], lambda: chinit.cluster)
    manager = chinit.cluster
    now = manager.clock()
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    for host in hosts:
        for record in (
                ClusterQmgrRecord("INV", host, f"{host}_id", f"TO.{host}", "127.0.0.1(9)",
                                  RepositoryType.PARTIAL, False, published=now, sequence=1,
                                  expiry=now + 86_400),
                ClusterQueueRecord("INV", "INVQ", host, f"{host}_id", published=now,
                                   sequence=2, expiry=now + 86_400)):
            qm.put1("SYSTEM.CLUSTER.COMMAND.QUEUE",
                    encode_record(ClusterCommand(host, f"{host}_id", record)),
                    mqpy.MD(Format=b"MQPYCLUS"))
    qm.disconnect()
    await _until(lambda: all(f"TO.{h}" in manager.auto for h in hosts), "the channels")
    return manager


async def test_refresh_keeps_auto_channels_with_messages_waiting(qm1, chinit):
    """Given auto-defined channels TO.QM8 and TO.QM9, and a message waiting for TO.QM9 on
    SYSTEM.CLUSTER.TRANSMIT.QUEUE, when REFRESH CLUSTER(*) is issued (a generic name: every
    cluster), then it is accepted, TO.QM8 is deleted and TO.QM9 is kept (IBM removes only
    the channels with no messages on the cluster transmission queue).
    spec: operations-dlq-clusters 7.24"""
    manager = await _member_learning(qm1, chinit, "QM8", "QM9")
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    _on_xmitq(qm, "TO.QM9", "INVQ", "QM9", b"waiting")
    qm.disconnect()
    lines = await _mqsc(qm1, "REFRESH CLUSTER(*)")
    assert lines[0] == "AMQ8598I: Refresh Cluster accepted.", lines
    assert "TO.QM9" in manager.auto and "TO.QM8" not in manager.auto


async def test_messages_for_a_channel_no_longer_defined_are_rerouted_or_dead_lettered(
        qm1, chinit):
    """Given INVQ known at QM9 (auto-defined TO.QM9), and keyed to TO.QM7, a channel no
    longer defined (its queue manager was removed), an unbound message for INVQ and one
    bound to QM7, when the repository manager's watcher sees them, then the unbound one is
    re-routed to TO.QM9 and the bound one goes to the dead-letter queue with
    MQRC_UNKNOWN_REMOTE_Q_MGR (2087): nothing is stranded.
    spec: operations-dlq-clusters 7.28; operations-dlq-clusters 7.25"""
    await _member_learning(qm1, chinit, "QM9")
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    _on_xmitq(qm, "TO.QM7", "INVQ", "", b"unbound")
    _on_xmitq(qm, "TO.QM7", "INVQ", "QM7", b"bound")
    await _until(lambda: _keyed(qm, "TO.QM9") == [b"unbound"] and
                 qm1.queue_status("SYSTEM.DEAD.LETTER.QUEUE")["CURDEPTH"] == 1,
                 "the watcher at work")
    assert _keyed(qm, "TO.QM7") == []
    dlq = mqpy.Queue(qm, "SYSTEM.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    data = dlq.get()
    dlq.close()
    qm.disconnect()
    dlh = mqpy.DLH().unpack(data)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR and data.endswith(b"bound")
    assert dlh.DestQMgrName.rstrip(b" \x00") == b"QM7"


async def test_dropped_subscriptions_do_not_come_back_after_a_restart(qm1):
    """Given full repository QM1 of INV holding QM9's subscription to INVQ, and partial
    repository QM1 of INV2 and INV3 having asked for INVQ, when REFRESH CLUSTER(INV) drops
    the subscription held and REFRESH CLUSTER(INV2) the one made there, then after a
    restart of the channel initiator (a day later) neither is held again (their messages
    went from SYSTEM.CLUSTER.REPOSITORY.QUEUE with them), and the one made in INV3 keeps the
    time it was made.
    spec: operations-dlq-clusters 7.24; operations-dlq-clusters 7.26"""
    from mqpy_chinit.cluster.records import DAY, ClusterCommand, Subscription, SubscriptionKind
    from mqpy_chinit.cluster.records import encode as encode_record

    now = [1_000_000.0]

    def connect():
        return mqpy.embedded("QM1", data_path=qm1.root, create=False)

    async def started(nursery) -> ChannelInitiator:
        ci = ChannelInitiator("QM1", connect, EngineAdmin(qm1),
                              cluster_cache=cache_path(qm1.qmdir),
                              cluster_clock=lambda: now[0])
        await nursery.start(ci.run, [("127.0.0.1", 0)])
        await _until(lambda: ci.cluster is not None and ci.cluster.repo is not None, "manager")
        return ci

    async with trio.open_nursery() as nursery:
        ci = await started(nursery)
        await _mqsc(qm1, "ALTER QMGR REPOS(INV)")
        await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) "
                         f"CONNAME('127.0.0.1({ci.ports[0]})') CLUSTER(INV)")
        await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1B) CHLTYPE(CLUSRCVR) "
                         f"CONNAME('127.0.0.1({ci.ports[0]})') CLUSTER(INV2)")
        await _mqsc(qm1, f"DEFINE CHANNEL(TO.QM1C) CHLTYPE(CLUSRCVR) "
                         f"CONNAME('127.0.0.1({ci.ports[0]})') CLUSTER(INV3)")
        await _until(lambda: ci.cluster.repo.clusters == {"INV", "INV2", "INV3"} and
                     ci.cluster.repo.is_full("INV"), "the memberships")
        sub = Subscription("INV", SubscriptionKind.QUEUE, "INVQ", "QM9", "QM9_id", "TO.QM9",
                           published=now[0], expiry=now[0] + 30 * DAY)
        qm = connect()
        qm.put1("SYSTEM.CLUSTER.COMMAND.QUEUE",
                encode_record(ClusterCommand("QM9", "QM9_id", sub)),
                mqpy.MD(Format=b"MQPYCLUS"))
        qm.disconnect()
        await _until(lambda: ci.cluster.repo.subscribers(), "the subscription")
        with pytest.raises(mqpy.MQMIError):  # INV2 and INV3: partial, they ask for INVQ
            connect().put1("INVQ", b"x")
        await _until(lambda: {("INV2", "QUEUE", "INVQ"), ("INV3", "QUEUE", "INVQ")} <=
                     set(ci.cluster.repo.subscriptions()), "the names asked for")
        made = ci.cluster.repo.wanted()[("INV3", "QUEUE", "INVQ")][0]
        assert (await _mqsc(qm1, "REFRESH CLUSTER(INV)"))[0].startswith("AMQ8598I")
        assert ci.cluster.repo.subscribers() == []
        assert (await _mqsc(qm1, "REFRESH CLUSTER(INV2)"))[0].startswith("AMQ8598I")
        now[0] += DAY
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        ci = await started(nursery)
        assert ci.cluster.repo.subscribers() == []
        assert ci.cluster.repo.subscriptions() == [("INV3", "QUEUE", "INVQ")]
        assert ci.cluster.repo.wanted()[("INV3", "QUEUE", "INVQ")][0] == made
        nursery.cancel_scope.cancel()


async def test_a_sending_channel_that_fails_unexpectedly_ends_alone(qm1, monkeypatch):
    """Given a running channel initiator and a sender TO.NOWHERE (SHORTRTY 1, LONGRTY 0),
    when its channel program fails with an unexpected error (not a channel error), then
    the failure is logged as AMQ9999E with an FDC, the channel retries like after any
    other error and, its retries spent, is STOPPED; the channel initiator and its listener
    go on.  spec: dqm-intercommunication 8 (channel error, sending side)"""
    from mqpy_chinit import caller as chinit_module  # where channels run their MCAs
    from mqpy_chinit.states import ChannelState

    log: list[tuple[str, str]] = []
    real = chinit_module.SenderMCA.run
    failures = [RuntimeError("injected")]

    async def failing_once(self):
        if failures:
            raise failures.pop()
        return await real(self)

    monkeypatch.setattr(chinit_module.SenderMCA, "run", failing_once)
    with trio.socket.socket() as s:
        await s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]  # nobody listens there once closed
    await _mqsc(qm1, "DEFINE QLOCAL(XQ) USAGE(XMITQ)")
    await _mqsc(qm1, f"DEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) XMITQ(XQ) "
                     f"CONNAME('127.0.0.1({closed_port})') SHORTRTY(1) SHORTTMR(1) LONGRTY(0)")
    async with trio.open_nursery() as nursery:
        ci = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=qm1.root,
                                                           create=False),
                              EngineAdmin(qm1), cluster_cache=cache_path(qm1.qmdir),
                              log=lambda msgid, text: log.append((msgid, text)))
        await nursery.start(ci.run, [("127.0.0.1", 0)])
        assert ci.start_channel("TO.NOWHERE") is None
        await _until(lambda: any(m == "AMQ9553E" for m, _ in log), "the retries spent")
        text = next(t for m, t in log if m == "AMQ9999E")
        assert "RuntimeError: injected" in text and ".FDC" in text
        ended = [t for m, t in log if m == "AMQ9999E"]  # the failure, then the retry
        assert "RuntimeError: injected" in ended[0] and "retries in" in ended[-1], ended
        await _until(lambda: ci.statuses["TO.NOWHERE"].state is ChannelState.STOPPED,
                     "TO.NOWHERE stopped")
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream("127.0.0.1", ci.ports[0])
            await stream.aclose()
        nursery.cancel_scope.cancel()


def test_a_cluster_receivers_puts_are_marked_as_put_by_a_cluster_channel(qm1):
    """Given a channel initiator, when a CLUSRCVR's MCA connects, then its connection
    carries the application name by which the engine knows a put by a cluster channel
    (which always takes the local instance, whatever CLWLUSEQ says); any other receiver
    connects as the channel initiator.  spec: aliases-channels-storage 4.9"""
    from mqpy.engine.cluster import CLUSTER_RECEIVER_APPL

    def connect_qm():
        return mqpy.embedded("QM1", data_path=qm1.root, create=False)

    ci = ChannelInitiator("QM1", connect_qm, EngineAdmin(qm1))
    assert ci._receiver_connect("RCVR") is ci.connect_qm  # (connect_qm, refused quiescing)
    qm = ci._receiver_connect("CLUSRCVR")()
    try:
        names = {c.appl_name.rstrip(b" \x00").decode() for c in qm1.connections.values()}
        assert CLUSTER_RECEIVER_APPL in names
    finally:
        qm.disconnect()
