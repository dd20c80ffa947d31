"""The channel initiator's publish/subscribe task for clustered topics (IBM's queue manager
does this in its publish/subscribe engine): a part of the repository manager.

It connects as ``mqpy.pubsub.interqmgr.PUBSUB_DAEMON_APPL`` (one connection a task:
fan-out, control, publications) and, while this queue manager is in a cluster:

- *fan-out* (when the repository changes, and when the queue manager asks for one on
  SYSTEM.INTER.QMGR.FANREQ: a local subscription at or below a cluster topic was made or
  ended, ``mqpy.pubsub.interqmgr.request_fan_out``): reads the local subscriptions (DISPLAY
  SUB SUBTYPE(USER)), the cluster topics and members the repository knows, and sends or
  withdraws proxy subscriptions as ``proxysubs.ProxySubscriptions`` says: a persistent
  request on SYSTEM.INTER.QMGR.CONTROL at each member (MQPUT1 naming that queue manager:
  the engine routes it on SYSTEM.CLUSTER.TRANSMIT.QUEUE through the cluster-sender channel
  to it). A send that fails (the member not yet in the engine's cluster cache) is tried
  again :data:`FANOUT_INTERVAL` later, and so is what a resync holds back.
- *control* (as requests arrive): each request on the local SYSTEM.INTER.QMGR.CONTROL
  makes (or removes) the durable proxy subscription SYSTEM.PROXY.<qmgr> <cluster> <topic
  string> whose destination is SYSTEM.INTER.QMGR.PUBS at the requesting queue manager;
  publications on this queue manager then reach it through the cluster channels.
- *publications* (as they arrive): each message on the local SYSTEM.INTER.QMGR.PUBS is
  published here on the topic string it carries (MQTopicString), with its own properties
  and context, to the local subscribers only (the engine gives a publication of this
  connection to no proxy subscription). The get and the publication are one unit of work,
  so a persistent publication is delivered exactly once: a failure backs both out and the
  message is tried again (after five tries it goes to the dead-letter queue with the
  failure's reason in its MQDLH, as a request that cannot be carried out does).

The fan-out requests', control and publications tasks wait in MQGET (:data:`ARRIVAL_WAIT_MS` at a time) in a
worker thread of their own that looks, between waits, whether its task is cancelled: a
message is served as it arrives, and a cancelled task wakes its waiting get with a wake
message (``mqpy_chinit.wakes``) and ends at once, its unit of work whole (nothing is
abandoned mid-call). A queue manager in no cluster has the tasks asleep until its
repository changes (``RepositoryManager.changes``), and a member's fan-out sleeps until it
is asked or has a send to try again: nothing looks at a clock.

Not built: retained publications do not cross (proxy subscriptions are made with
MQSO_NEW_PUBLICATIONS_ONLY), topic host routing, SUBSCOPE/PUBSCOPE(QMGR) on topics.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import trio

import mqpy
from mqpy import CMQC, wake
from mqpy.engine import reports
from mqpy.errors import MQMIError
from mqpy.mqsc.writer import command_text
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.propset import PropertySet
from mqpy.pubsub.interqmgr import (
    CONTROL_QUEUE,
    FANREQ_QUEUE,
    PROXY_FORMAT,
    PUBS_QUEUE,
    PUBSUB_DAEMON_APPL,
    proxy_name,
)
from mqpy.pubsub.topicstrings import topic_based
from mqpy_chinit import wakes

from .proxysubs import Action, ProxySubscriptions, Resync, SendProxy

__all__ = ["PubSubDaemon"]

T = TypeVar("T")
_Handler = Callable[[mqpy.QueueManager, mqpy.MD, bytes], None]
FANOUT_INTERVAL = 1.0
#: how long one MQGET of the control and publications tasks waits before the worker
#: thread looks whether its task is cancelled (a cancelled task wakes it: ``_on_arrival``)
ARRIVAL_WAIT_MS = 60_000
#: a message got and backed out this many times goes to the dead-letter queue
BACKOUT_LIMIT = 5
_LOCAL_SUBS = "DISPLAY SUB(*) SUBTYPE(USER) TOPICSTR DEST WSCHEMA"
_SYNC = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING


class PubSubDaemon:
    """The task; ``manager`` is the repository manager (its repository, lock, chinit)."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self.qmgr: str = manager.qmgr
        self.proxies = ProxySubscriptions(self.qmgr)
        self._qm: mqpy.QueueManager | None = None
        #: set by a fan-out request (SYSTEM.INTER.QMGR.FANREQ); a new one each fan-out
        self._asked = trio.Event()

    def _connect(self) -> mqpy.QueueManager:
        chinit = self.manager.chinit
        connect: Callable[..., Any] | None = getattr(chinit, "connect_mca", None)
        return connect(PUBSUB_DAEMON_APPL) if connect is not None else chinit.connect_qm()

    async def run(self) -> None:
        qm = self._qm = await trio.to_thread.run_sync(self._connect)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._on_arrival, CONTROL_QUEUE, 0, self._handle_request)
                nursery.start_soon(self._on_arrival, PUBS_QUEUE,
                                   CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, self._republish)
                nursery.start_soon(self._on_arrival, FANREQ_QUEUE, 0, self._fan_out_asked)
                while True:
                    changed = self._changes()
                    self._asked = trio.Event()  # (before: one asked meanwhile is seen)
                    again = False
                    if self._in_a_cluster():
                        again = bool(await _unless_fatal(self.fan_out(), True))
                    await self._until(changed, self._asked, every=again)
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_disconnect, qm)

    async def _on_arrival(self, queue: str, options: int, handle: _Handler) -> None:
        """Serve ``queue`` as messages arrive, on a connection of this task's own, in a
        worker thread that waits in MQGET (:meth:`_serve` with ``wait``); after a message
        backed out (or a failure), again one :data:`FANOUT_INTERVAL` later. Cancelled while
        the get waits, it wakes the get (``wakes``)."""
        qm = await trio.to_thread.run_sync(self._connect)
        limiter = trio.CapacityLimiter(1)  # its own: the waiting thread takes no MCA's

        async def serve() -> None:
            while True:
                changed = self._changes()
                if self._in_a_cluster():
                    await _unless_fatal(trio.to_thread.run_sync(
                        self._serve, queue, options, handle, qm, True, limiter=limiter))
                    await trio.sleep(FANOUT_INTERVAL)  # (it backed a message out)
                else:
                    await self._until(changed, every=False)

        try:
            await wakes.run_woken(serve, lambda: wake.put_wakes_through(self._connect, queue))
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_disconnect, qm)

    def _changes(self) -> trio.Event | None:
        """What the repository manager sets at its repository's next change; None from a
        manager that tells none (then the tasks look every FANOUT_INTERVAL)."""
        changes = getattr(self.manager, "changes", None)
        return changes() if changes is not None else None

    @staticmethod
    async def _until(changed: trio.Event | None, asked: trio.Event | None = None, *,
                     every: bool) -> None:
        """Sleep until ``changed`` or ``asked`` is set, or FANOUT_INTERVAL has passed if
        ``every`` (or there is no ``changed`` to wait on)."""
        async with trio.open_nursery() as nursery:
            for event in (changed, asked):
                if event is not None:
                    nursery.start_soon(_set_then_cancel, event, nursery.cancel_scope)
            if changed is None or every:
                nursery.cancel_scope.deadline = trio.current_time() + FANOUT_INTERVAL
            if changed is None and asked is None:
                await trio.sleep_forever()

    def _fan_out_asked(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        """A fan-out request (in the worker thread of its queue's task): the fan-out runs."""
        trio.from_thread.run_sync(lambda: self._asked.set())

    def _in_a_cluster(self) -> bool:
        """Whether there is anything to do: this queue manager is a cluster member (a
        queue manager in no cluster costs nothing but this look)."""
        repo = self.manager.repo
        return repo is not None and bool(repo.clusters)

    # --- fan-out -------------------------------------------------------------------------

    async def fan_out(self) -> bool:
        """Send and withdraw proxy subscriptions (``proxysubs``); the local subscriptions
        are read only while there are cluster topics or proxy subscriptions sent. Whether
        to fan out again soon: a send failed, or a resync holds back what follows it."""
        repo = self.manager.repo
        if repo is None or not (repo.cluster_topics() or self.proxies.sent()):
            return False
        rows = await trio.to_thread.run_sync(self.manager.chinit.admin.display, _LOCAL_SUBS)
        local = [topic_based(str(r["TOPICSTR"]), CMQC.MQWS_CHAR if str(
                     r.get("WSCHEMA", "")).strip() == "CHAR" else CMQC.MQWS_TOPIC)
                 for r in rows
                 if str(r.get("DEST", "")).strip() != PUBS_QUEUE and r.get("TOPICSTR")]
        async with self.manager.lock:
            topics = [(t.cluster, t.topicstr) for t in repo.cluster_topics()]
            members = {c: [m.qmgr for m in repo.members(c)] for c, _ in topics}
        actions = self.proxies.update(local, topics, members)
        if not actions:
            return False
        done = await trio.to_thread.run_sync(self._send_all, actions)
        return done < len(actions) or any(isinstance(a, Resync) for a in actions)

    def _send_all(self, actions: list[Action]) -> int:
        """Carry ``actions`` out; how many were."""
        assert self._qm is not None
        done = 0
        for action in actions:
            if isinstance(action, Resync):
                body = json.dumps({"request": "RESYNC", "qmgr": self.qmgr})
            else:
                body = json.dumps({
                    "request": "SUBSCRIBE" if isinstance(action, SendProxy) else "UNSUBSCRIBE",
                    "qmgr": self.qmgr, "cluster": action.cluster, "topicstr": action.topicstr})
            md = mqpy.MD(Format=PROXY_FORMAT.encode(), Persistence=CMQC.MQPER_PERSISTENT)
            od = mqpy.OD(ObjectName=CONTROL_QUEUE.encode(),
                         ObjectQMgrName=action.qmgr.encode())
            try:
                self._qm.put1(od, body.encode(), md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
            except MQMIError:
                continue  # the member not yet known to the engine: next time
            self.proxies.done(action)
            done += 1
        return done

    # --- proxy subscriptions made here ----------------------------------------------------

    def serve_control(self) -> None:
        """Every request on SYSTEM.INTER.QMGR.CONTROL, each in a unit of work."""
        assert self._qm is not None
        self._serve(CONTROL_QUEUE, 0, self._handle_request, self._qm)

    def _serve(self, queue: str, options: int, handle: _Handler, qm: mqpy.QueueManager,
               wait: bool = False) -> None:
        """Get every message on ``queue`` and ``handle`` it, each in a unit of work. One
        that fails is backed out and tried again next time; after :data:`BACKOUT_LIMIT`
        tries it goes to the dead-letter queue (MQDLH reason: the failure's), so one
        message cannot hold up the others. With ``wait`` (in a trio worker thread) it
        waits for the next message until its task is cancelled, instead of returning at
        an empty queue. A wake message is taken off the queue and nothing else."""
        gmo_options = _SYNC | options | (CMQC.MQGMO_WAIT if wait else 0)
        q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
        try:
            while True:
                md = mqpy.MD()
                try:
                    data = q.get(None, md, mqpy.GMO(Options=gmo_options,
                                                    WaitInterval=ARRIVAL_WAIT_MS))
                except MQMIError as exc:
                    if exc.reason != CMQC.MQRC_NO_MSG_AVAILABLE or not wait:
                        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                            return
                        raise
                    trio.from_thread.check_cancelled()
                    continue
                if wake.is_wake(md):
                    qm.commit()
                    if wait:
                        trio.from_thread.check_cancelled()
                    continue
                try:
                    handle(qm, md, data)
                except MQMIError as exc:
                    if md.BackoutCount < BACKOUT_LIMIT or not self._dead_letter(
                            qm, queue, md, data, exc.reason):
                        qm.backout()
                        return
                qm.commit()
        finally:
            q.close()

    def _dead_letter(self, qm: mqpy.QueueManager, queue: str, md: mqpy.MD, data: bytes,
                     reason: int) -> bool:
        deadq = qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME).strip(b" \x00")
        if not deadq:
            return False
        dmd, body = reports.build_dead_letter(md, data, reason, queue, self.qmgr,
                                              put_appl_name=PUBSUB_DAEMON_APPL.encode(),
                                              put_date=md.PutDate, put_time=md.PutTime)
        qm.put1(deadq.decode("latin-1"), body, dmd, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        return True

    def _handle_request(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        self._on_request(data, qm)

    def _on_request(self, data: bytes, qm: mqpy.QueueManager | None = None) -> None:
        try:
            request = json.loads(data)
            origin, kind = str(request["qmgr"]), str(request["request"])
            cluster, topic = ("", "") if kind == "RESYNC" else \
                (str(request["cluster"]), str(request["topicstr"]))
            "".join((origin, cluster, topic)).encode()  # (a lone surrogate: no request)
        except (ValueError, KeyError, TypeError, RecursionError):
            return  # not a request of ours: dropped with the unit of work
        if kind == "RESYNC":
            self._drop_proxies(proxy_name(origin, "", "").rstrip() + " *")
            return
        qm = qm or self._qm
        assert qm is not None
        name = proxy_name(origin, cluster, topic)
        if kind == "UNSUBSCRIBE":  # gone already: nothing to do
            self._drop_proxies(name)
            return
        sub = mqpy.Subscription(qm)
        dest = mqpy.Queue(qm, mqpy.OD(ObjectName=PUBS_QUEUE.encode(),
                                            ObjectQMgrName=origin.encode()), CMQC.MQOO_OUTPUT)
        try:
            sub.sub(sub_queue=dest, sub_name=name.encode(), topic_string=topic.encode(),
                    sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE
                    | CMQC.MQSO_NEW_PUBLICATIONS_ONLY)
            sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB)
        finally:
            dest.close()

    def _drop_proxies(self, name: str) -> None:
        """DELETE SUB of the proxy subscriptions ``name`` names (generic with a final *), each
        by its SUBID: a name holds a topic string another queue manager sent, which DISPLAY
        shows printable (a line break as ``\\n``), so it is not read back to name one."""
        admin = self.manager.chinit.admin
        shown = admin.display(command_text("DISPLAY", "SUB", name, {"SUBTYPE": "PROXY"},
                                           ["SUBID"]))
        for row in shown:
            subid = row.get("SUBID")
            if isinstance(subid, str) and subid:
                admin.display(command_text("DELETE", "SUB", None, {"SUBID": subid}))

    # --- publications from other queue managers ------------------------------------------

    def serve_publications(self) -> None:
        """Every publication on SYSTEM.INTER.QMGR.PUBS, published here in the unit of work
        of its get."""
        assert self._qm is not None
        self._serve(PUBS_QUEUE, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2, self._republish, self._qm)

    def _republish(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        own = PropertySet(validate=False)
        body = take_properties(data, md, own)
        topic = own.values().get("mqps.Top")
        if not isinstance(topic, str) or not topic:
            return  # nothing to publish on: dropped
        kept = PropertySet(validate=False)
        for prop in own:
            if not prop.name.lower().startswith("mqps."):
                kept.add(prop)
        data = give_properties(kept, body, md)
        od = mqpy.OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
        od.set_vs("ObjectString", topic.encode("utf-8"))
        qm.put1(od, data, md, mqpy.PMO(
            Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT
            | CMQC.MQPMO_NEW_MSG_ID))


async def _unless_fatal(call: Awaitable[T], failed: T | None = None) -> T | None:
    """``call``'s result; ``failed`` when it failed other than by the queue manager's end
    (tried again next time: the task goes on)."""
    try:
        return await call
    except MQMIError as exc:
        if exc.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_STOPPING,
                          CMQC.MQRC_Q_MGR_QUIESCING):
            raise
        return failed


async def _set_then_cancel(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def _disconnect(qm: mqpy.QueueManager) -> None:
    try:
        qm.disconnect()
    except MQMIError:
        pass
