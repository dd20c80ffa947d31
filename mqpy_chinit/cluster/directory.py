"""The cluster cache: what the repository manager tells its queue manager's engine.

The repository manager (``manager.py``, in the channel initiator) writes :class:`Cache` to
``<qmdir>/cluster.cache`` whenever what it knows changes: the instances of each cluster queue
(as ``workload.QueueInstance``), the cluster queue managers and their channels, and the state
of the cluster-sender channels (workload step 6). The file is replaced atomically (write, then
rename), so a reader sees one whole version.

:class:`CacheDirectory` is the engine's ``ClusterDirectory`` (``mqpy.engine.cluster``): the
engine asks it only for names that do not resolve locally. It re-reads the file when its
stamp changes and runs the workload algorithm (``workload.choose_destination``) with a
round-robin state of its own, one per queue manager.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

import attrs

from mqpy import CMQC, filemodes
from mqpy.engine.cluster import ClusterRoute
from mqpy.errors import MQMIError
from mqpy.fap.channeldefs import CLUSTER_XMITQ, cluster_correl_id

from .workload import QueueInstance, RoundRobinState, choose_destination, effective_bind

CACHE_FILE = "cluster.cache"
#: An unknown name is asked for at most this often (seconds).
ASK_AGAIN_AFTER = 5.0
#: An MQPUT (BIND_NOT_FIXED) looks at the file at most this often; MQOPEN always does.
PUT_RECHECK = 0.1


@attrs.define
class Cache:
    qmgr: str = ""
    clusters: list[str] = attrs.Factory(list)
    clwluseq: str = "LOCAL"
    clwlmruc: int = 999_999_999
    queues: dict[str, list[dict[str, Any]]] = attrs.Factory(dict)
    qmgrs: dict[str, dict[str, Any]] = attrs.Factory(dict)  # name -> channel, qmid
    channels: dict[str, str] = attrs.Factory(dict)  # cluster sender -> STATUS
    #: the cluster topics: TOPIC, TOPICSTR, CLUSTER, CLROUTE, CLUSQMGR of each
    topics: list[dict[str, str]] = attrs.Factory(list)

    def to_bytes(self) -> bytes:
        return json.dumps(attrs.asdict(self), sort_keys=True).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> Cache:
        d = json.loads(data)
        return cls(**{f.name: d[f.name] for f in attrs.fields(cls) if f.name in d})


def cache_path(qmdir: str) -> str:
    return os.path.join(qmdir, CACHE_FILE)


def write_cache(path: str, cache: Cache) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with filemodes.open_file(tmp, "wb") as f:
        f.write(cache.to_bytes())
    os.replace(tmp, path)


_FIELDS = tuple(f.name for f in attrs.fields(QueueInstance))


def instance_to_dict(instance: QueueInstance, **extra: Any) -> dict[str, Any]:
    """An instance as the cache keeps it; ``extra``: DEFPSIST/DEFPRTY of its queue record."""
    return {**attrs.asdict(instance), **extra}


def cached_instances(cache: Cache, queue: str) -> list[QueueInstance]:
    """Every instance of ``queue`` the cache holds, local or not."""
    return [QueueInstance(**{k: d[k] for k in _FIELDS if k in d})
            for d in cache.queues.get(queue, [])]


def _instances(cache: Cache, queue: str, with_local: bool = False) -> list[QueueInstance]:
    """The instances the engine can route to. Without ``with_local`` it asks only for names
    that do not resolve locally, so a local instance in the cache is one just deleted (the
    cache lags). With it, the engine has the local queue and it competes (CLWLUSEQ(ANY)):
    the cache's record of it, or one made for it if the cache has not caught up."""
    found = cached_instances(cache, queue)
    remote = [i for i in found if not i.local and i.qmgr != cache.qmgr]
    if not with_local or not remote:
        return remote
    local = next((i for i in found if i.local or i.qmgr == cache.qmgr), None)
    if local is None:
        local = QueueInstance(queue, cache.qmgr, cache.qmgr, remote[0].cluster, "",
                              local=True)
    # the engine decided it competes: its CLWLUSEQ (or the queue manager's) is ANY; a
    # put-inhibited local queue is avoided like any other instance (workload step 1)
    return [attrs.evolve(local, local=True, clwluseq="ANY"), *remote]


class CacheDirectory:
    """The engine's view of the cluster (see the module docstring)."""

    def __init__(self, qmdir: str) -> None:
        self.path = cache_path(qmdir)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._cache = Cache()
        self._rr = RoundRobinState()
        self._asked: dict[str, float] = {}
        self._checked = -1e9  # time.monotonic() of the last stat

    def _current(self, max_age: float = 0.0) -> Cache:
        """The cache, re-read if the file changed (looked at if not within ``max_age``)."""
        now = time.monotonic()
        if now - self._checked < max_age:
            return self._cache
        self._checked = now
        try:
            st = os.stat(self.path)
        except OSError:
            self._stamp, self._cache = None, Cache()
            return self._cache
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp != self._stamp:
            try:
                with open(self.path, "rb") as f:
                    self._cache = Cache.from_bytes(f.read())
                self._stamp = stamp
            except (OSError, ValueError, TypeError):
                pass  # being replaced: the previous version stands
        return self._cache

    # --- mqpy.engine.cluster.ClusterDirectory ---------------------------------------

    def open(self, queue: str, qmgr: str, options: int, *,
             local_instance: bool = False) -> ClusterRoute | None:
        with self._lock:
            cache = self._current()
            if not cache.clusters:
                return None
            if qmgr:
                return self._to_qmgr(cache, queue, qmgr, options)
            instances = _instances(cache, queue, local_instance)
            if not instances:
                return None
            first = next((i for i in instances if i.local), instances[0])
            bind = effective_bind(options, first.defbind)
            choice = choose_destination(
                instances, cache.channels, cache.qmgr, first.clwluseq, bind, None, self._rr,
                opening=True, qmgr_clwluseq=cache.clwluseq, clwlmruc=cache.clwlmruc)
            self._rr = choice.state
            fixed = bind != CMQC.MQBND_BIND_NOT_FIXED
            if choice.destination is None:  # NOT_FIXED: chosen at each put
                return ClusterRoute(queue, CLUSTER_XMITQ, queue, "", b"", fixed=False,
                                    defpsist=self._defpsist(cache, queue),
                                    defprty=self._defprty(cache, queue),
                                    with_local=local_instance)
            return self._route(cache, choice.destination, fixed, local_instance)

    def put(self, route: ClusterRoute, *, local_enabled: bool = True) -> ClusterRoute:
        if route.fixed:
            return route
        with self._lock:
            cache = self._current(PUT_RECHECK)
            instances = _instances(cache, route.queue, route.with_local)
            if not local_enabled:
                instances = [attrs.evolve(i, put_enabled=False) if i.local else i
                             for i in instances]
            if not instances:
                if route.with_local:  # the others went: the local queue is the only one
                    return attrs.evolve(route, xmitq=route.queue, remote_qm="", correl_id=b"",
                                        local=True)
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            first = next((i for i in instances if i.local), instances[0])
            choice = choose_destination(
                instances, cache.channels, cache.qmgr, first.clwluseq,
                CMQC.MQBND_BIND_NOT_FIXED, None, self._rr, qmgr_clwluseq=cache.clwluseq,
                clwlmruc=cache.clwlmruc)
            self._rr = choice.state
            found = self._route(cache, choice.destination, False, route.with_local) \
                if choice.destination is not None else None
            if found is None:
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            return found

    def cluster_topics(self) -> list[dict[str, str]]:
        """The cluster topics the repository knows (each a dict: TOPIC, TOPICSTR, CLUSTER,
        CLROUTE, CLUSQMGR), for the engine's DISPLAY TPSTATUS."""
        with self._lock:
            return list(self._current(PUT_RECHECK).topics)

    def unknown(self, queue: str) -> bytes | None:
        with self._lock:
            cache = self._current()
            now = time.monotonic()
            if not cache.clusters or now - self._asked.get(queue, -1e9) < ASK_AGAIN_AFTER:
                return None
            self._asked[queue] = now
            return json.dumps({"request": "WANT", "queue": queue}).encode()

    # --- internals ---------------------------------------------------------------------

    @staticmethod
    def _defpsist(cache: Cache, queue: str) -> bool:
        found = cache.queues.get(queue) or [{}]
        return bool(found[0].get("defpsist", False))

    @staticmethod
    def _defprty(cache: Cache, queue: str) -> int:
        found = cache.queues.get(queue) or [{}]
        return int(found[0].get("defprty", 0))

    def _route(self, cache: Cache, dest: QueueInstance, fixed: bool,
               with_local: bool = False) -> ClusterRoute | None:
        if dest.local:
            if not with_local:
                return None  # the local instance resolves locally, not through the cluster
            # the local queue itself, named as the "transmission queue" the put uses
            return ClusterRoute(dest.queue, dest.queue, dest.queue, "", b"", fixed=fixed,
                                with_local=True, local=True)
        return ClusterRoute(dest.queue, CLUSTER_XMITQ, dest.queue, dest.qmgr,
                            cluster_correl_id(dest.channel), fixed=fixed,
                            defpsist=self._defpsist(cache, dest.queue),
                            defprty=self._defprty(cache, dest.queue), with_local=with_local)

    @staticmethod
    def _to_qmgr(cache: Cache, queue: str, qmgr: str, options: int) -> ClusterRoute | None:
        """A queue at a named cluster queue manager: no balancing (spec operations 4).

        A clustered queue-manager alias (``host`` set) is reached through the queue manager
        that defines it, and the header keeps the alias name for that host to resolve (seed
        002 uses 2 and 4). An application that opened with MQOO_BIND_ON_OPEN is bound to the
        host itself: the header names the host, the alias is not applied there, and the
        message ends on its dead-letter queue (seed 002 use 4). mqpy's reading: the alias's
        own DEFBIND does not do this, since use 2's definition (DEFBIND OPEN by default) must
        multi-hop."""
        member = cache.qmgrs.get(qmgr)
        if member is None:
            return None
        target = qmgr
        if member.get("host") and options & CMQC.MQOO_BIND_ON_OPEN:
            target = str(member["host"])
        return ClusterRoute(queue, CLUSTER_XMITQ, queue, target,
                            cluster_correl_id(str(member["channel"])))
