"""The queue manager's publisher of resource statistics: a new subscription to a metadata
topic gets its publication at once (the registry tells of each new subscription), marked
retained as IBM's are; every monitor interval (``MQPY_MONINT`` seconds, default 10, IBM's interval) the
figures go to each data topic somebody subscribes to, and nowhere else: no subscriber, no
publication.

A publication is delivered as the queue manager's own straight to the subscriptions that
name its topic in full (``topics``), non-persistent and outside any unit of work of an
application: metadata through ``mqpy.pubsub.publication.deliver``, with IBM's
publish/subscribe message properties; data, two a queue followed every interval, stored on
the destination without them (an MQRFH2 on each would cost its reader more than the
figures), CorrelId, priority and user as the subscription asks. A wildcard subscription such
as ``#`` never
receives them, as in IBM MQ, where the ``$SYS/MQ`` branch is kept from wildcards above it
(SYSTEM.ADMIN.TOPIC is WILDCARD(BLOCK)). For the same reason the metadata are not kept as
the registry's retained publications, which a ``#`` subscription would be sent. Delivery runs under the engine lock in short runs
(:data:`RUN`), so that applications' calls are not held up by a thousand queues' figures.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from mqpy import CMQC
from mqpy.engine import resolution
from mqpy.engine.mqmd import _pack_md, _put_timestamp, _trusted
from mqpy.errors import MQMIError
from mqpy.monitor import counters, publications, topics
from mqpy.monitor.elements import CPU, DISK, STATMQI
from mqpy.monitor.platform import Platform
from mqpy.pubsub import topicstrings
from mqpy.pubsub.publication import deliver
from mqpy.pubsub.pubprops import Publication
from mqpy.pubsub.registry import Registry, registry_for
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.qmgr import QueueManagerEngine
    from mqpy.pubsub.subscription import Subscription

#: the environment variable giving the monitor interval in seconds
MONINT_ENV = "MQPY_MONINT"
MONINT_DEFAULT = 10.0
#: publications delivered per hold of the engine lock
RUN = 100


def monitor_interval() -> float:
    """MQPY_MONINT seconds (at least 0.1), else IBM's 10."""
    try:
        return max(0.1, float(os.environ.get(MONINT_ENV, MONINT_DEFAULT)))
    except ValueError:
        return MONINT_DEFAULT


def _md() -> MD:
    return MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_DATAGRAM,
              Persistence=CMQC.MQPER_NOT_PERSISTENT, Priority=0, CodedCharSetId=1208)


def _monitor_subscriptions(eng: QueueManagerEngine) -> list[Subscription]:
    """The subscriptions naming a topic of the Monitor branch in full (engine lock held)."""
    prefix = topics.monitor_prefix(eng.name)
    now = time.time()
    return [sub for sub in registry_for(eng).subs.values()
            if sub.topic.startswith(prefix) and not sub.on_request and not sub.expired(now)
            and not topicstrings.has_wildcard(sub.topic, sub.wildcard_scheme)]


def subscribed(eng: QueueManagerEngine) -> dict[topics.DataTopic, list[Subscription]]:
    """The data topics subscribed to in full, and their subscriptions (engine lock held)."""
    out: dict[topics.DataTopic, list[Subscription]] = defaultdict(list)
    for sub in _monitor_subscriptions(eng):
        wanted = topics.parse_data_topic(eng.name, sub.topic)
        if wanted is not None:
            out[wanted].append(sub)
    return out


class Publisher:
    """One queue manager's resource statistics: what it counted last (``counts``), its
    platform readings and log figures, and its own connection to publish with."""

    def __init__(self, eng: QueueManagerEngine) -> None:
        self.eng = eng
        self.counts = counters.IntervalCounts()
        self.platform = Platform(eng.qmdir, eng.data.log.directory)
        self.conn: Connection = eng.connect()
        self.last = time.monotonic()
        self._log_before = self._log_figures()
        self.published = 0  #: publications delivered since the start
        self.metadata = publications.metadata(eng.name)
        self._served: set[bytes] = set()  #: subscriptions sent their metadata

    def _log_figures(self) -> tuple[int, int, float]:
        stats = self.eng.data.log.stats
        return stats.bytes, stats.forces, stats.sync_seconds

    def serve_metadata(self) -> int:
        """Each new subscription to a metadata topic sent its publication (retained, as
        IBM's are); how many were sent."""
        sent = 0
        now = time.time()
        with self.eng.lock:  # a look-up a subscription: cheap with thousands of them
            reg = registry_for(self.eng)
            self._served &= reg.subs.keys()
            for sub in list(reg.subs.values()):
                data = self.metadata.get(sub.topic)
                if data is None or sub.subid in self._served or sub.on_request \
                        or sub.expired(now):
                    continue
                self._served.add(sub.subid)
                md = _md()
                try:
                    deliver(self.conn, [sub], md,
                            Publication.of(md, data, sub.topic, retained=True),
                            persistent=False, priority=0, syncpoint=False)
                except MQMIError:
                    continue
                sent += 1
        return sent

    def _log_sample(self) -> dict[str, float]:
        now = self._log_figures()
        written, forces, seconds = (a - b for a, b in zip(now, self._log_before, strict=True))
        self._log_before = now
        return {"log.bytes": written, "log.latency": seconds / forces if forces else 0.0,
                "log.write_size": written / forces if forces else 0.0}

    def _samples(self, wanted, counted) -> list:  # noqa: ANN001
        """(data topic, publication data, subscriptions) for each topic wanted."""
        eng, interval = self.eng, time.monotonic() - self.last
        platform = self._log_sample()  # every interval, so that each gives its own
        if any(w.cls in (CPU, DISK) for w in wanted):
            platform.update(self.platform.sample())
        out = []
        for w, subs in wanted.items():
            if w.cls in (CPU, DISK):
                sample = platform
            elif w.cls is STATMQI:
                sample = {**counters.with_totals(counted.get(counters.MQI, {})),
                          "connections": len(eng.connections)}
            else:
                sample = counters.with_totals(counted.get(w.obj, {}))
                sample["depth"] = self._depth(w.obj)
            data = publications.data_message(eng.name, w.cls, w.typ, sample, interval, w.obj)
            out.append((topics.data_topic(eng.name, w.cls, w.typ, w.obj), data, subs))
        return out

    def _depth(self, name: str | None) -> int:
        obj = self.eng.catalog.queue_def(name or "")
        if obj is None or obj.objtype != "QLOCAL":
            return 0
        return self.eng.catalog.messages(obj).depth

    def tick(self) -> int:
        """One interval's publications; how many were delivered."""
        eng = self.eng
        with eng.lock:
            counted = self.counts.take(counters.current_counters(eng.stats))
            wanted = subscribed(eng)
            made = self._samples(wanted, counted)
        self.last = time.monotonic()
        delivered = 0
        for start in range(0, len(made), RUN):
            with eng.lock:
                now = time.time()
                for topic, data, subs in made[start:start + RUN]:
                    delivered += sum(self._put_data(sub, topic, data, now) for sub in subs)
        self.published += delivered
        return delivered

    def _put_data(self, sub: Subscription, topic: str, data: bytes, now: float) -> bool:
        """One data publication on ``sub``'s destination (engine lock held); False when it
        could not be put (a destination full, put-inhibited or gone: that one is missed)."""
        eng = self.eng
        try:
            res = resolution.resolve(eng.catalog, eng.name, sub.dest, sub.dest_qmgr)
            if res.remote:  # to another queue manager: in an MQXQH, as pubsub delivers it
                md = _md()
                deliver(self.conn, [sub], md, Publication.of(md, data, topic),
                        persistent=False, priority=0, syncpoint=False, policy="ALL")
                return True
            base = res.target
            if base.attributes.get("PUT") == "DISABLED" \
                    or res.opened.attributes.get("PUT") == "DISABLED":
                return False
            priority = 0
            if sub.pub_priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
                priority = int(res.opened.attributes.get("DEFPRTY", 0))  # type: ignore[call-overload]
            elif sub.pub_priority >= 0:
                priority = sub.pub_priority
            md = _md()
            msgid = eng.new_msgid()
            put_date, put_time = _put_timestamp(now)  # (IBM's: the time of publication)
            fields: dict[str, object] = {"MsgId": msgid, "CorrelId": sub.correl_id,
                                         "Priority": priority, "PutDate": put_date,
                                         "PutTime": put_time}
            if sub.sub_user:
                fields["UserIdentifier"] = sub.sub_user.encode("latin-1", "replace")[:12]
            _trusted(md, fields)
            eng._store(self.conn, base, eng.catalog.queues[base.qid], _pack_md(md), data,
                       priority=priority, persistent=False, msgid=msgid,
                       correlid=sub.correl_id, expiry=CMQC.MQEI_UNLIMITED, report=0, now=now,
                       syncpoint=False)
        except MQMIError:
            return False
        delivered = registry_for(eng).delivered
        delivered[sub.subid] = (delivered.get(sub.subid, (0, 0.0))[0] + 1, now)
        return True


async def _every(eng: QueueManagerEngine, seconds: float, work: Callable[[], int]) -> None:
    while not eng.stopped:
        await trio.sleep(seconds)
        try:
            await trio.to_thread.run_sync(work)
        except MQMIError:  # the queue manager ending: nothing more is published
            continue


class _NewSubscribers:
    """Told of each new subscription by the registry (in the thread that made it, engine
    lock held): one to a metadata topic wakes the task that serves them."""

    def __init__(self, token: trio.lowlevel.TrioToken, topics: set[str]) -> None:
        self.token, self.topics = token, topics
        self.arrived = trio.Event()
        self.wakes = 0  #: the task's wakes, counted for tests

    def __call__(self, sub: Subscription) -> None:
        if sub.topic in self.topics:
            try:
                self.token.run_sync_soon(lambda: self.arrived.set())
            except trio.RunFinishedError:
                pass  # the task has ended with its event loop

    async def serve(self, eng: QueueManagerEngine, publisher: Publisher) -> None:
        """Send their metadata to the subscriptions restored at the start, then to each new
        one as it comes, until cancelled."""
        while not eng.stopped:
            try:
                await trio.to_thread.run_sync(publisher.serve_metadata)
            except MQMIError:  # the queue manager ending: nothing more is published
                pass
            await self.arrived.wait()
            self.arrived = trio.Event()  # before the look: a later one wakes it again
            self.wakes += 1


async def publish_resource_statistics(eng: QueueManagerEngine) -> None:
    """The daemon's task: metadata to new subscribers as they come, a round of data
    publications every monitor interval, until the nursery that owns it is cancelled."""
    try:
        publisher = await trio.to_thread.run_sync(Publisher, eng)
    except MQMIError:  # the queue manager already ending
        return
    new = _NewSubscribers(trio.lowlevel.current_trio_token(), set(publisher.metadata))

    def listen() -> Registry:
        with eng.lock:  # (the registry is made under it)
            registry = registry_for(eng)
            registry.on_new.append(new)
            return registry

    registry = await trio.to_thread.run_sync(listen)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(new.serve, eng, publisher)
            # the data go out every monitor interval, IBM's, whether or not somebody listens:
            # each interval's figures are the counts since the last (six wakes a minute)
            nursery.start_soon(_every, eng, monitor_interval(), publisher.tick)
    finally:
        registry.on_new.remove(new)  # (one list operation: no lock needed)
