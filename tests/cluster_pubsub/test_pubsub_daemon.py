"""The publish/subscribe task's work on one queue manager (embedded, no channels): the proxy
subscriptions it makes for another queue manager's requests, and the publications from
other queue managers it publishes to the local subscribers only."""

from __future__ import annotations

import attrs
import pytest
import trio

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy.properties.carriage import give_properties
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import DLH
from mqpy_chinit.cluster.pubsubdaemon import BACKOUT_LIMIT, PubSubDaemon
from mqpy_chinit.engineadmin import EngineAdmin
from tests.pubsub.conftest import Embedded
from tests.support.waiting import wait_until


@attrs.define
class _Chinit:
    admin: EngineAdmin

    def connect_mca(self, appl: str) -> mqpy.QueueManager:
        return self.admin.connect_as(appl)


@attrs.define
class _Manager:
    qmgr: str
    chinit: _Chinit
    repo: object = None
    lock: trio.Lock = attrs.Factory(trio.Lock)
    changes: object = None  #: the repository manager's changes() (None: it tells none)


@pytest.fixture
def site(tmp_path):
    harness = Embedded(str(tmp_path))
    harness.mqsc("DEFINE QLOCAL(FAR) USAGE(XMITQ)\nDEFINE QLOCAL(DLQ)\nALTER QMGR DEADQ(DLQ)\n"
                 "DEFINE QLOCAL(LOCAL.Q)\n"
                 "DEFINE SUB(LOCAL.SUB) TOPICSTR('relay/t') DEST(LOCAL.Q)\n")
    daemon = PubSubDaemon(_Manager(harness.eng.name, _Chinit(EngineAdmin(harness.eng))))
    own = daemon._qm = daemon._connect()
    yield harness, daemon
    own.disconnect()
    mqpy.stop_embedded("PSQM", data_path=str(tmp_path))


def _request(kind: str, topic: str = "relay/t") -> bytes:
    return (f'{{"request": "{kind}", "qmgr": "FAR", "cluster": "INV", '
            f'"topicstr": "{topic}"}}').encode()


def _arrives(qm, topic: str, data: bytes) -> None:
    """A publication from another queue manager on SYSTEM.INTER.QMGR.PUBS, as a proxy
    subscription's copy is: an MQRFH2 with MQTopicString and the publisher's properties."""
    props = PropertySet(validate=False)
    props.set("mqps.Top", topic, CMQC.MQTYPE_STRING)
    props.set("colour", "red", CMQC.MQTYPE_STRING)
    md = mqpy.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENT)
    body = give_properties(props, data, md)
    qm.put1("SYSTEM.INTER.QMGR.PUBS", body, md)


def _depth(qm, queue: str) -> int:
    return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


def test_a_request_makes_and_removes_a_proxy_subscription(site):
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    shown = "\n".join(harness.mqsc("DISPLAY SUB(*) SUBTYPE(PROXY) DEST DESTQMGR\n"))
    assert "SUB(SYSTEM.PROXY.FAR INV relay/t)" in shown
    assert "DEST(SYSTEM.INTER.QMGR.PUBS)" in shown and "DESTQMGR(FAR)" in shown
    assert "SYSTEM.PROXY" not in "\n".join(harness.mqsc("DISPLAY SUB(*)\n"))  # USER only
    assert "SYSTEM.PROXY" not in "\n".join(harness.mqsc("DISPLAY SBSTATUS(*)\n"))
    assert "SUBTYPE(PROXY)" in "\n".join(harness.mqsc("DISPLAY SBSTATUS(*) SUBTYPE(PROXY) "
                                                      "SUBTYPE\n"))
    daemon._on_request(_request("SUBSCRIBE"))  # again: the same one, resumed
    daemon._on_request(_request("UNSUBSCRIBE"))
    assert "SYSTEM.PROXY" not in "\n".join(harness.mqsc("DISPLAY SUB(*) SUBTYPE(ALL)\n"))


def test_a_local_publication_goes_to_the_proxy_subscription(site):
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    t = mqpy.Topic(harness.qm, topic_string="relay/t")
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    t.pub(b"local", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    t.close()
    assert _depth(harness.qm, "FAR") == 1 and _depth(harness.qm, "LOCAL.Q") == 1


def test_overlapping_proxy_subscriptions_of_one_qmgr_get_one_copy(site):
    """Given two proxy subscriptions of FAR that overlap (relay/t and relay/#), when a
    publication on relay/t is made here, then one copy goes to FAR (whose local
    subscribers each get theirs there once), not one a proxy subscription."""
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    daemon._on_request(_request("SUBSCRIBE", "relay/#"))
    t = mqpy.Topic(harness.qm, topic_string="relay/t")
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    t.pub(b"once", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    t.close()
    assert _depth(harness.qm, "FAR") == 1 and _depth(harness.qm, "LOCAL.Q") == 1


def test_a_publication_from_another_qmgr_reaches_local_subscribers_only(site):
    """Given a local subscription and another queue manager's proxy subscription, when a
    publication arrives on SYSTEM.INTER.QMGR.PUBS, then the local subscriber gets it once,
    with the publisher's properties, and it is not sent back out (FAR's xmitq stays
    empty)."""
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    _arrives(harness.qm, "relay/t", b"from far")
    daemon.serve_publications()
    assert _depth(harness.qm, "SYSTEM.INTER.QMGR.PUBS") == 0
    assert _depth(harness.qm, "FAR") == 0
    handle = mqpy.MessageHandle(harness.qm, mqpy.CMHO())
    gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                   Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    md = mqpy.MD()
    data = mqpy.Queue(harness.qm, "LOCAL.Q", CMQC.MQOO_INPUT_AS_Q_DEF).get(None, md, gmo)
    assert data == b"from far" and md.Persistence == CMQC.MQPER_PERSISTENT
    assert handle.properties.get("colour") == "red"
    assert handle.properties.get("MQTopicString") == "relay/t"
    assert _depth(harness.qm, "LOCAL.Q") == 0


def test_a_publication_that_cannot_be_published_goes_to_the_dead_letter_queue(site):
    """Given a topic with PUB(DISABLED) here, then a publication for it arriving from
    another queue manager is backed out and tried again, and after the backout limit put on
    the dead-letter queue with MQRC_PUT_INHIBITED in its MQDLH; the queue is not held up."""
    harness, daemon = site
    harness.mqsc("DEFINE TOPIC(SHUT) TOPICSTR('shut') PUB(DISABLED)\n")
    _arrives(harness.qm, "shut", b"refused")
    for _ in range(BACKOUT_LIMIT):
        daemon.serve_publications()
        assert _depth(harness.qm, "SYSTEM.INTER.QMGR.PUBS") == 1
    daemon.serve_publications()
    assert _depth(harness.qm, "SYSTEM.INTER.QMGR.PUBS") == 0
    body = mqpy.Queue(harness.qm, "DLQ", CMQC.MQOO_INPUT_AS_Q_DEF).get()
    dlh = DLH()
    dlh.unpack(body[:dlh.packed_size()])
    assert dlh.Reason == CMQC.MQRC_PUT_INHIBITED
    assert dlh.DestQName.rstrip(b" \0") == b"SYSTEM.INTER.QMGR.PUBS"


def test_a_resync_drops_every_proxy_subscription_of_that_qmgr(site):
    """Given two proxy subscriptions of FAR and one of NEAR, when FAR asks to resync (its
    channel initiator restarted), then FAR's are gone and NEAR's stays."""
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    daemon._on_request(_request("SUBSCRIBE", "relay/u"))
    harness.mqsc("DEFINE QLOCAL(NEAR) USAGE(XMITQ)\n")
    daemon._on_request(_request("SUBSCRIBE").replace(b'"FAR"', b'"NEAR"'))
    daemon._on_request(b'{"request": "RESYNC", "qmgr": "FAR"}')
    shown = "\n".join(harness.mqsc("DISPLAY SUB(*) SUBTYPE(PROXY)\n"))
    assert "SYSTEM.PROXY.FAR" not in shown and "SYSTEM.PROXY.NEAR INV relay/t" in shown


def test_pcf_inquiries_leave_proxy_subscriptions_out_unless_asked(site):
    """Inquire Subscription and Inquire Subscription Status: SubscriptionType USER (the
    default) leaves proxy subscriptions out; MQSUBTYPE_PROXY shows them only."""
    harness, daemon = site
    daemon._on_request(_request("SUBSCRIBE"))
    start_command_server(harness.eng.name, harness.root)
    pcf = mqpy.PCFExecute(harness.qm)
    try:
        for command in (pcf.MQCMD_INQUIRE_SUBSCRIPTION, pcf.MQCMD_INQUIRE_SUB_STATUS):
            names = {r[CMQCFC.MQCACF_SUB_NAME].decode().strip()
                     for r in command({CMQCFC.MQCACF_SUB_NAME: b"*"})}
            assert names == {"LOCAL.SUB"}
            names = {r[CMQCFC.MQCACF_SUB_NAME].decode().strip()
                     for r in command({CMQCFC.MQCACF_SUB_NAME: b"*",
                                       CMQCFC.MQIACF_SUB_TYPE: CMQCFC.MQSUBTYPE_PROXY})}
            assert names == {"SYSTEM.PROXY.FAR INV relay/t"}
    finally:
        pcf.disconnect()
        stop_command_server(harness.eng.name, harness.root)


@attrs.define
class _Repository:
    """A member of cluster INV with no cluster topic yet (nothing to fan out)."""

    clusters: frozenset = frozenset({"INV"})

    def cluster_topics(self) -> list:
        return []


def test_a_publication_is_relayed_on_arrival_and_the_task_stops_promptly(site):
    """Given the task running on a cluster member, when a publication from another queue
    manager arrives on SYSTEM.INTER.QMGR.PUBS after the task has found the queue empty,
    then the local subscriber has it well under the fan-out interval (the task waits on
    the queue, not on a clock); and when its cancel scope is cancelled, it ends within a
    wait interval."""
    harness, daemon = site
    daemon.manager.repo = _Repository()
    relayed: list[float] = []
    stopped: list[float] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(daemon.run)
            await trio.sleep(0.3)  # the task has looked at the empty queues
            started = trio.current_time()
            await trio.to_thread.run_sync(_arrives, harness.qm, "relay/t", b"now")
            while not await trio.to_thread.run_sync(_depth, harness.qm, "LOCAL.Q"):
                await trio.sleep(0.01)
            relayed.append(trio.current_time() - started)
            cancelled = trio.current_time()
            nursery.cancel_scope.cancel()
        stopped.append(trio.current_time() - cancelled)

    trio.run(main)
    assert relayed[0] < 0.5, relayed
    assert stopped[0] < 1.0, stopped


@attrs.frozen
class _Topic:
    cluster: str
    topicstr: str


@attrs.frozen
class _Member:
    qmgr: str


@attrs.define
class _Directory:
    """The engine's cluster cache, knowing cluster topic relay (cluster INV)."""

    def cluster_topics(self) -> list[dict[str, str]]:
        return [{"TOPIC": "RELAY", "TOPICSTR": "relay", "CLUSTER": "INV",
                 "CLROUTE": "DIRECT", "CLUSQMGR": "FAR"}]


@attrs.define
class _ClusterWithTopic:
    """A member of cluster INV, with FAR, and cluster topic relay."""

    clusters: frozenset = frozenset({"INV"})

    def cluster_topics(self) -> list[_Topic]:
        return [_Topic("INV", "relay")]

    def members(self, cluster: str) -> list[_Member]:
        return [_Member("FAR"), _Member("PSQM")]


def _fan_out_requests(qm) -> int:
    return _depth(qm, "SYSTEM.INTER.QMGR.FANREQ")


def test_a_local_subscription_made_or_ended_under_a_cluster_topic_asks_for_a_fan_out(site):
    """Given cluster topic relay known to the engine, when a local subscription under it is
    made and deleted, then each asks the channel initiator's task for a fan-out (a message
    on SYSTEM.INTER.QMGR.FANREQ, as IBM's queue manager asks its publish/subscribe
    engine); a subscription elsewhere and a proxy subscription ask nothing."""
    harness, daemon = site
    harness.eng.cluster = _Directory()
    harness.mqsc("DEFINE SUB(ELSEWHERE) TOPICSTR('other/t') DEST(LOCAL.Q)\n")
    daemon._on_request(_request("SUBSCRIBE", "relay/p"))
    assert _fan_out_requests(harness.qm) == 0
    harness.mqsc("DEFINE SUB(UNDER) TOPICSTR('relay/+/x') DEST(LOCAL.Q)\n")
    assert _fan_out_requests(harness.qm) == 1
    harness.mqsc("DELETE SUB(UNDER)\n")
    assert _fan_out_requests(harness.qm) == 2


def test_a_subscription_made_after_the_fan_out_is_sent_without_a_repository_change(site):
    """Given the task running on a member of INV (with FAR) whose repository does not
    change, once it has resynced FAR and sent the standing proxy subscription (relay/t),
    when a local subscription to relay/new is made, then its proxy subscription request
    goes to FAR: the task fans out when the queue manager asks, not on a clock or a
    repository change only."""
    harness, daemon = site
    harness.eng.cluster = _Directory()
    never = trio.Event()
    daemon.manager.repo = _ClusterWithTopic()
    daemon.manager.changes = lambda: never

    def sent() -> list[str]:
        q = mqpy.Queue(harness.qm, "FAR", CMQC.MQOO_BROWSE)
        out = []
        try:
            while True:
                gmo = mqpy.GMO(Options=CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_NO_WAIT)
                out.append(q.get(None, mqpy.MD(), gmo).decode("latin-1"))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        finally:
            q.close()
        return out

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(daemon.run)
            await wait_until(lambda: any('"relay/t"' in m for m in sent()))
            await trio.to_thread.run_sync(
                harness.mqsc, "DEFINE SUB(NEW.SUB) TOPICSTR('relay/new') DEST(LOCAL.Q)\n")
            await wait_until(lambda: any('"relay/new"' in m for m in sent()))
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert _fan_out_requests(harness.qm) == 0  # the task took the request
