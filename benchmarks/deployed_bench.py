"""The deployed path: strmqm's daemon, each application a process of its own; JSON results.

    python -m benchmarks.deployed_bench [--out FILE] [--quick] [--count N]
        [--round-trips N] [--scenario NAME]

As users run it: ``crtmqm`` and ``strmqm`` in a temporary data path (the daemon and its
channel initiator, a listener and a SVRCONN defined with runmqsc: ``client_bench``'s
``serve_deployed``), then each application in a process of its own, 1 KB messages:

- ``bindings_persistent``: one bindings application (``mqpy.connect(qm)``) puts N persistent
  messages, each MQPUT in syncpoint then MQCMIT, then gets them, each MQGET in syncpoint then
  MQCMIT;
- ``bindings_nonpersistent``: the same with non-persistent messages outside syncpoint (MQPUT
  then MQGET, no commits);
- ``bindings_persistent_async_put``: as ``bindings_persistent`` with MQPMO_ASYNC_RESPONSE;
- ``bindings_nonpersistent_async_put``, ``bindings_nonpersistent_read_ahead`` and
  ``bindings_nonpersistent_async_put_read_ahead``: as ``bindings_nonpersistent`` with
  MQPMO_ASYNC_RESPONSE on the puts, with the input handle opened MQOO_READ_AHEAD, with both;
- ``bindings_persistent_commit_each_10``: as ``bindings_persistent`` with an MQCMIT each 10
  puts and each 10 gets (most puts then follow a put, not a commit's wait on the disk);
- ``bindings_nonpersistent_syncpoint_after_fdatasync``: non-persistent puts and gets in
  syncpoint, an MQCMIT (which forces nothing) after each, and before each MQPUT the
  application's own 1 KB write and fdatasync of a file: a call that follows a wait on the
  disk, without the log (these two show where a persistent MQPUT's time goes);
- ``bindings_persistent_8``: 8 bindings applications at once, each on a queue of its own,
  N times MQPUT (persistent, syncpoint), MQCMIT, MQGET (syncpoint), MQCMIT (group commit);
- ``bindings_persistent_8_async_put``: the same with MQPMO_ASYNC_RESPONSE on the puts (the
  MQCMIT that follows reports a failed put as MQRC_BACKED_OUT: three round trips a message);
- ``client_16``: 16 client applications (``mqpy.connect(qm, channel, "host(port)")``, so
  each process has a channel instance of its own, as 16 programs do) through the default
  configuration (the qm.ini crtmqm writes, ``MQIBindType=FASTPATH``: the listener hands each
  client to the daemon; ``--standard``: the channel initiator's SVRCONN relays each call to
  the daemon), each on a queue of its own, N round trips
  of MQPUT then MQGET, non-persistent, outside syncpoint; ``client_1``: the same by one
  client application alone; ``bindings_nonpersistent_16``: the same by 16 bindings
  applications (what a client's CPU a round trip is to be read against: the same load,
  the same queue manager, a Unix socket instead of TCP and no channel instance);
- ``async_consume``: one bindings application puts N non-persistent messages, then
  registers one message consumer (MQCB, the ``ibmmq`` package's shape: ``Queue.cb``,
  ``QueueManager.ctl``, ``CBD``, ``CTLO``) on its input handle opened MQOO_READ_AHEAD (how
  IBM MQ's clients are fed an asynchronous consumer's messages: streamed ahead of the
  callbacks) and times MQCTL(MQOP_START) to the N-th callback (the window ends in that
  callback: not the puts before it, nor the MQCTL(MQOP_STOP) after it, which waits for the
  dispatcher's get in progress); ``async_consume_no_read_ahead``: the same with a plain input
  handle, so a get round trip a callback;
- ``reqresp_*``: IBM MQ's requester/responder workload, the one its MQ for xLinux
  performance reports measure with its mq-cph harness (Requester and Responder): each
  requester MQPUTs a 2 KB request (MQMT_REQUEST, ReplyToQ BENCH.REPLY) to BENCH.REQUEST and
  MQGETs its reply from BENCH.REPLY, which all requesters share, by CorrelId (the request's
  MsgId); each responder MQGETs a request (waiting) and MQPUTs its copy as the reply
  (CorrelId the request's MsgId): a round trip is two puts and two gets. Persistent: each
  call in syncpoint, the requester's MQCMIT after its put and after its get, the
  responder's one MQCMIT after its get and put (three commits a round trip, as mq-cph's
  ``-tx``); non-persistent: outside syncpoint, no commits. ``reqresp_nonpersistent_1`` and
  ``_4``, ``reqresp_persistent_1`` and ``_4``: 1 or 4 bindings requesters;
  ``reqresp_client_nonpersistent_4``: 4 client requesters through the default
  configuration (IBM's RR-CB: client requesters, bindings responders). As many responders
  as requesters, each a bindings application: IBM's harness runs at least as many
  responders as requesters (200 responder threads for 1 to 200 requesters), so that a
  request seldom waits for a free responder; here one a requester keeps that with the
  fewest processes on two cores. Each requester makes ``--round-trips`` (200; 100 with
  ``--quick``); the responders end on a datagram each once the requesters are done.

A request/reply result gives round trips a second (over the window from the first
requester's first call to the last one's last), each requester call's and the whole round
trip's median, 90th and 99th percentile, and the CPU a round trip of the daemon and the
channel initiator and of the requesters and the responders (user and system each); a run
whose replies do not match its round trips fails. Each other result gives msgs/s (messages,
or round trips for ``client_16``, over the window from
the first application's first call to the last one's last call), each call's median, 90th and
99th percentile from the application's side, and the CPU the daemon and the channel
initiator used a message (and its user and system parts), and the applications' own CPU a
message (user and system). Beside them the same run's floors, as ``bindings_bench`` measures
them: ``fdatasync_us`` (before and after the scenarios) and ``round_trip_us``, a bare Unix-socket
round trip between two processes. ``features`` says which of asynchronous put, read ahead and
asynchronous consume this mqpy has: an option it lacks is accepted and behaves
synchronously, and ``note`` says so. Targets (2 cores, a quiet machine) are printed beside the
figures; nothing is asserted. The daemon and its channel initiator are stopped by their pids.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks import bindings_bench, client_bench

SIZE = 1024
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUEUE = "BENCH.Q.{}"  #: the queues serve_deployed defines, one an application
TARGETS = {
    "bindings_persistent": {"put_us": 75, "put_commit_over_fdatasync_us": 60},
    "bindings_persistent_8": {"msgs_per_s": 10_000},
    "client_16": {"msgs_per_s": 10_000},
    "async_consume": {"msgs_per_s": 30_000},
}

#: scenario -> (applications, what each does: bindings_bench-style spec without queue/count)
SCENARIOS: dict[str, tuple[int, dict]] = {
    "bindings_persistent": (1, {"role": "both", "persistent": True}),
    "bindings_nonpersistent": (1, {"role": "both"}),
    "bindings_persistent_async_put": (1, {"role": "both", "persistent": True,
                                          "async_put": True}),
    "bindings_nonpersistent_async_put": (1, {"role": "both", "async_put": True}),
    "bindings_nonpersistent_read_ahead": (1, {"role": "both", "read_ahead": True}),
    "bindings_nonpersistent_async_put_read_ahead": (1, {"role": "both", "async_put": True,
                                                        "read_ahead": True}),
    # where a persistent MQPUT's time goes (docs/performance.md): the same puts and gets with
    # a commit each 10 calls (9 puts in 10 follow a put, not a commit's wait on the disk), and
    # non-persistent ones in syncpoint (commits that force nothing), each put following the
    # application's own 1 KB write and fdatasync
    "bindings_persistent_commit_each_10": (1, {"role": "both", "persistent": True,
                                               "batch": 10}),
    "bindings_nonpersistent_syncpoint_after_fdatasync": (1, {
        "role": "both", "syncpoint": True, "fdatasync_before_put": True}),
    "bindings_persistent_8": (8, {"role": "round_trip", "persistent": True}),
    # the same with IBM's advice for a put followed by a commit: MQPMO_ASYNC_RESPONSE, the
    # MQCMIT carries the put's outcome (three round trips a message instead of four)
    "bindings_persistent_8_async_put": (8, {"role": "round_trip", "persistent": True,
                                            "async_put": True}),
    "client_16": (16, {"role": "round_trip", "client": True}),
    # what a client costs beyond a bindings application: the same round trips by one
    # client alone, and by 16 bindings applications at once (client_16's load)
    "client_1": (1, {"role": "round_trip", "client": True}),
    "bindings_nonpersistent_16": (16, {"role": "round_trip"}),
    "async_consume": (1, {"role": "callback", "read_ahead": True}),
    "async_consume_no_read_ahead": (1, {"role": "callback"}),
}

#: IBM MQ's requester/responder workload, as its MQ for xLinux performance reports run it
#: with IBM's harness (mq-cph's Requester and Responder): 2 KB requests, the reply a copy of
#: the request, the requester's MQGET matching the reply's CorrelId to its request's MsgId
REQUEST_REPLY_SIZE = 2048
ROUND_TRIPS = 200  #: each requester's, by default
REQUEST_QUEUE, REPLY_QUEUE = client_bench.REQUEST_REPLY_QUEUES
REPLY_WAIT_MS = 30_000  #: how long a requester waits for its reply (mq-cph's -to 30)
#: scenario -> its requesters, persistence and connection; as many responders as
#: requesters (bindings applications): a request waits for a responder only while one
#: finishes its last reply
REQUEST_REPLY: dict[str, dict] = {
    "reqresp_nonpersistent_1": {"requesters": 1},
    "reqresp_nonpersistent_4": {"requesters": 4},
    "reqresp_persistent_1": {"requesters": 1, "persistent": True},
    "reqresp_persistent_4": {"requesters": 4, "persistent": True},
    # IBM's RR-CB shape: client requesters (the default configuration), bindings responders
    "reqresp_client_nonpersistent_4": {"requesters": 4, "client": True},
}


def features() -> dict[str, bool]:
    """Which of the streaming MQI features this mqpy has built (not merely accepts)."""
    import mqpy

    return {
        # MQSTAT is how an application learns of its asynchronous puts' failures
        "async_put": hasattr(mqpy.QueueManager, "stat"),
        "read_ahead": importlib.util.find_spec("mqpy.readahead") is not None,
        "async_consume": all((hasattr(mqpy.Queue, "cb"), hasattr(mqpy.QueueManager, "ctl"),
                              hasattr(mqpy, "CBD"), hasattr(mqpy, "CTLO"))),
    }


def feature_notes(spec: dict, built: dict[str, bool]) -> list[str]:
    """What the figures of ``spec`` do not show yet, for the features not built."""
    notes = []
    if spec.get("async_put") and not built["async_put"]:
        notes.append("asynchronous put not built in this mqpy: MQPMO_ASYNC_RESPONSE is "
                     "accepted and each put waits for its reply")
    if spec.get("read_ahead") and not built["read_ahead"]:
        notes.append("read ahead not built in this mqpy: MQOO_READ_AHEAD is accepted and "
                     "each get is a synchronous MQGET")
    return notes


def figures(samples: list[int]) -> dict:
    """Median, 90th and 99th percentile and mean of nanosecond samples, in microseconds."""
    ordered = sorted(samples)
    return {**bindings_bench._summary(ordered),
            "p99_us": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1000, 1)}


# -- an application (a process of its own) -------------------------------------------------


def _connect(spec: dict):
    """The application's connection: a client's (``spec["client"]``, through the listener
    at ``spec["port"]``) or a bindings one."""
    import mqpy

    if spec.get("client"):
        return mqpy.connect(client_bench.QMGR, client_bench.CHANNEL,
                            f"127.0.0.1({spec['port']})")
    qm = mqpy.QueueManager(None)
    qm.connect(client_bench.QMGR)
    return qm


def _open(spec: dict):
    """The application's connection and its output and input handles."""
    import mqpy
    from mqpy import CMQC

    qm = _connect(spec)
    name = spec["queue"]
    out = mqpy.Queue(qm, name, CMQC.MQOO_OUTPUT)
    input_opts = CMQC.MQOO_INPUT_AS_Q_DEF
    if spec.get("read_ahead"):
        input_opts |= CMQC.MQOO_READ_AHEAD
    return qm, out, mqpy.Queue(qm, name, input_opts)


def application(spec: dict, go=None) -> dict:
    """Connect and open as ``spec`` says, call ``go`` (the start line), then the timed calls:
    {"start", "end" (time.time()), "messages", per call figures}."""
    import mqpy
    from mqpy import CMQC

    qm, out, inq = _open(spec)
    count, persistent = spec["count"], spec.get("persistent", False)
    data = b"x" * SIZE
    clock = time.perf_counter_ns
    syncpoint, commit_after = _syncpoint(spec)
    disk_wait = _disk_wait(spec)
    pmo_opts = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT
    if spec.get("async_put"):
        pmo_opts |= CMQC.MQPMO_ASYNC_RESPONSE
    gmo_opts = CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT
    md_persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    calls: dict[str, list[int]] = {}

    def timed(name: str, call, *args) -> object:
        t = clock()
        result = call(*args)
        calls.setdefault(name, []).append(clock() - t)
        return result

    def put_phase() -> None:
        pmo = mqpy.PMO(Options=pmo_opts)
        for i in range(count):
            disk_wait()  # (outside the timed call)
            timed("put", out.put, data, mqpy.MD(Persistence=md_persistence), pmo)
            if i in commit_after:
                timed("put_commit", qm.commit)

    def get_phase() -> None:
        gmo = mqpy.GMO(Options=gmo_opts)
        for i in range(count):
            timed("get", inq.get, None, mqpy.MD(), gmo)
            if i in commit_after:
                timed("get_commit", qm.commit)

    def round_trips() -> None:
        pmo, gmo = mqpy.PMO(Options=pmo_opts), mqpy.GMO(Options=gmo_opts)
        for _ in range(count):
            timed("put", out.put, data, mqpy.MD(Persistence=md_persistence), pmo)
            if persistent:
                timed("put_commit", qm.commit)
            timed("get", inq.get, None, mqpy.MD(), gmo)
            if persistent:
                timed("get_commit", qm.commit)

    role = spec["role"]
    if role == "callback":
        put_phase()  # the messages to consume, before the clock starts
    if go is not None:
        go()
    start, cpu = time.time(), os.times()
    if role == "callback":
        end, cpu1 = _consume_by_callback(qm, inq, count)
    elif role == "round_trip":
        round_trips()
    else:
        if role in ("both", "produce"):
            put_phase()
        if role in ("both", "consume"):
            get_phase()
    if role != "callback":
        end, cpu1 = time.time(), os.times()
    out.close()
    inq.close()
    qm.disconnect()
    return {"start": start, "end": end, "messages": count,
            "cpu_s": [cpu1.user - cpu.user, cpu1.system - cpu.system],
            **{name: figures(v) for name, v in calls.items()}}


def _syncpoint(spec: dict) -> tuple[bool, set[int]]:
    """Are the calls in syncpoint (persistent messages, or non-persistent ones when the spec
    says so), and after which of them an MQCMIT goes: each ``batch`` calls (1: each call)
    and after the last."""
    syncpoint = spec.get("persistent", False) or spec.get("syncpoint", False)
    count, batch = spec["count"], spec.get("batch", 1)
    return syncpoint, {i for i in range(count) if i + 1 == count or not (i + 1) % batch} \
        if syncpoint else set()


def _disk_wait(spec: dict):
    """What the application does before each MQPUT: nothing, or with
    ``fdatasync_before_put`` a 1 KB write and fdatasync of a file of its own (the wait on
    the disk a forcing MQCMIT makes the application wait, without the queue manager's log)."""
    if not spec.get("fdatasync_before_put"):
        return lambda: None
    fd, path = tempfile.mkstemp(prefix="mqpy-deployed-bench-wait-")
    os.unlink(path)
    block = b"w" * SIZE

    def wait() -> None:
        os.pwrite(fd, block, 0)
        os.fdatasync(fd)

    return wait


def _consume_by_callback(qm, inq, count: int) -> tuple[float, os.times_result]:
    """MQCB one message consumer on ``inq``, MQCTL start, until ``count`` callbacks: the
    time.time() and os.times() of the ``count``-th callback."""
    import mqpy
    from mqpy import CMQC

    done = threading.Event()
    seen = [0]
    ended: list = []

    def consumer(*args, **kwargs) -> None:
        cbc = kwargs.get("cbc")  # the ibmmq package's keywords: a message removed, counted
        if (kwargs.get("msg") is not None if cbc is None
                else cbc.CallType == CMQC.MQCBCT_MSG_REMOVED):
            seen[0] += 1
            if seen[0] == count:
                ended.extend((time.time(), os.times()))
                done.set()

    cbd = mqpy.CBD()
    cbd.CallbackFunction = consumer
    cbd.CallbackType = CMQC.MQCBT_MESSAGE_CONSUMER
    inq.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=mqpy.MD(),
           gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    ctlo = mqpy.CTLO()
    qm.ctl(CMQC.MQOP_START, ctlo)
    try:
        if not done.wait(300):
            raise RuntimeError(f"{seen[0]} of {count} messages consumed in 300 s")
    finally:
        qm.ctl(CMQC.MQOP_STOP, ctlo)
        inq.cb(operation=CMQC.MQOP_DEREGISTER)
    return ended[0], ended[1]


def requester(spec: dict, go=None) -> dict:
    """IBM's requester: ``spec["count"]`` times, MQPUT a 2 KB request (MQMT_REQUEST,
    ReplyToQ the reply queue; persistent: in syncpoint, then MQCMIT), then MQGET its reply
    from the shared reply queue by CorrelId (the request's MsgId; waiting up to
    REPLY_WAIT_MS; persistent: in syncpoint, then MQCMIT). A reply that is not the request's
    copy ends the run."""
    import mqpy
    from mqpy import CMQC

    qm = _connect(spec)
    requests = mqpy.Queue(qm, REQUEST_QUEUE, CMQC.MQOO_OUTPUT)
    replies = mqpy.Queue(qm, REPLY_QUEUE, CMQC.MQOO_INPUT_SHARED)
    count, persistent = spec["count"], spec.get("persistent", False)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NEW_MSG_ID | (
        CMQC.MQPMO_SYNCPOINT if persistent else CMQC.MQPMO_NO_SYNCPOINT))
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | (
        CMQC.MQGMO_SYNCPOINT if persistent else CMQC.MQGMO_NO_SYNCPOINT),
        WaitInterval=REPLY_WAIT_MS, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    data = b"q" * REQUEST_REPLY_SIZE
    clock = time.perf_counter_ns
    calls: dict[str, list[int]] = {"round_trip": []}

    def timed(name: str, call, *args) -> object:
        t = clock()
        result = call(*args)
        calls.setdefault(name, []).append(clock() - t)
        return result

    if go is not None:
        go()
    start, cpu = time.time(), _own_cpu()
    for _ in range(count):
        began = clock()
        md = mqpy.MD(MsgType=CMQC.MQMT_REQUEST, Persistence=persistence, ReplyToQ=REPLY_QUEUE)
        timed("put", requests.put, data, md, pmo)
        if persistent:
            timed("put_commit", qm.commit)
        reply_md = mqpy.MD(CorrelId=md.MsgId)
        reply = timed("get", replies.get, None, reply_md, gmo)
        if persistent:
            timed("get_commit", qm.commit)
        calls["round_trip"].append(clock() - began)
        if reply != data or reply_md.CorrelId != md.MsgId:
            raise RuntimeError("a reply that is not its request's copy")
    end, cpu1 = time.time(), _own_cpu()
    requests.close()
    replies.close()
    qm.disconnect()
    return {"start": start, "end": end, "round_trips": count,
            "cpu_s": [cpu1[0] - cpu[0], cpu1[1] - cpu[1]],
            **{name: figures(v) for name, v in calls.items()}}


def responder(spec: dict, go=None) -> dict:
    """IBM's responder (a bindings application): MQGET a request from the request queue
    (waiting without limit), MQPUT its copy as the reply (MQMT_REPLY, CorrelId the
    request's MsgId, the request's persistence) to its ReplyToQ (each reply queue opened
    once), and for persistent requests MQCMIT the get and the put together; until a message
    that is not a request (the run's end)."""
    import mqpy
    from mqpy import CMQC

    qm = _connect({})
    requests = mqpy.Queue(qm, REQUEST_QUEUE, CMQC.MQOO_INPUT_SHARED)
    syncpoint = spec.get("persistent", False)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | (
        CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT),
        WaitInterval=CMQC.MQWI_UNLIMITED)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
    reply_queues: dict = {}
    replies = 0
    if go is not None:
        go()
    start, cpu = time.time(), _own_cpu()
    while True:
        md = mqpy.MD()
        body = requests.get(None, md, gmo)
        if md.MsgType != CMQC.MQMT_REQUEST:
            if syncpoint:
                qm.commit()
            break
        out = reply_queues.get(md.ReplyToQ)
        if out is None:
            name = md.ReplyToQ
            name = (name.decode() if isinstance(name, bytes) else name).rstrip(" \0")
            out = reply_queues[md.ReplyToQ] = mqpy.Queue(qm, name, CMQC.MQOO_OUTPUT)
        out.put(body, mqpy.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId,
                              Persistence=md.Persistence), pmo)
        if syncpoint:
            qm.commit()
        replies += 1
    end, cpu1 = time.time(), _own_cpu()
    for out in reply_queues.values():
        out.close()
    requests.close()
    qm.disconnect()
    return {"start": start, "end": end, "replies": replies,
            "cpu_s": [cpu1[0] - cpu[0], cpu1[1] - cpu[1]]}


def _own_cpu() -> tuple[float, float]:
    """This process's user and system CPU seconds (getrusage: finer than os.times()'s
    clock ticks, which a few hundred round trips would round to whole ticks)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def end_responders(count: int) -> None:
    """Tell ``count`` responders the run is over: a datagram each on the request queue."""
    import mqpy
    from mqpy import CMQC

    qm = _connect({})
    try:
        queue = mqpy.Queue(qm, REQUEST_QUEUE, CMQC.MQOO_OUTPUT)
        pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        for _ in range(count):
            queue.put(b"", mqpy.MD(MsgType=CMQC.MQMT_DATAGRAM), pmo)
        queue.close()
    finally:
        qm.disconnect()


ROLES = {"requester": requester, "responder": responder}


def _serve_application(spec: dict) -> None:
    """``--app``: tell the parent we are connected, wait for its go, print the figures."""

    def go() -> None:
        print("ready", flush=True)
        sys.stdin.readline()

    print(json.dumps(ROLES.get(spec["role"], application)(spec, go)), flush=True)


# -- the run -------------------------------------------------------------------------------


def run_applications(specs: list[dict], server_pids: list[int]) -> dict:
    """Start one process per spec, wait until all are connected, start them together:
    msgs/s over the window of all their calls, their per call figures (pooled: each
    application's median, then the median of those), the servers' CPU a message."""
    procs = _start_applications(specs)
    try:
        cpu0 = {pid: client_bench._process_user_sys(pid) for pid in server_pids}
        _go(procs)
        results = [_result(p) for p in procs]
        cpu = _cpu_since(cpu0)
    finally:
        _kill_left(procs)
    window = max(r["end"] for r in results) - min(r["start"] for r in results)
    n = sum(r["messages"] for r in results)
    out: dict = {"applications": len(specs), "messages": n, "seconds": round(window, 3),
                 "msgs_per_s": round(n / window, 1) if window else None}
    for call in ("put", "put_commit", "get", "get_commit"):
        each = [r[call] for r in results if call in r]
        if each:
            out[call] = {k: sorted(e[k] for e in each)[len(each) // 2] for k in each[0]}
    by_role = _by_role(cpu)
    out["server_cpu_us_per_msg"] = {role: round(sum(us) / n * 1e6, 1)
                                    for role, us in sorted(by_role.items())}
    # the same as [user, system]: the system part is mostly the sockets' calls
    out["server_cpu_us_per_msg_user_system"] = {
        role: [round(u / n * 1e6, 1), round(s / n * 1e6, 1)]
        for role, (u, s) in sorted(by_role.items())}
    out["application_cpu_us_per_msg_user_system"] = [
        round(sum(r["cpu_s"][i] for r in results) / n * 1e6, 1) for i in (0, 1)]
    return out


def _start_applications(specs: list[dict], module: str = "benchmarks.deployed_bench"
                        ) -> list[subprocess.Popen]:
    """One process per spec (``python -m module --app SPEC``), returned once each said it
    is connected."""
    procs = [subprocess.Popen([sys.executable, "-m", module, "--app",
                               json.dumps(spec)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
             for spec in specs]
    try:
        for p in procs:
            if p.stdout.readline().strip() != "ready":
                raise RuntimeError(f"an application did not connect (exit {p.wait(60)})")
    except BaseException:
        _kill_left(procs)
        raise
    return procs


def _go(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()


def _result(p: subprocess.Popen) -> dict:
    """An application's figures, once it has ended well."""
    line = p.stdout.readline()
    if p.wait(3600) != 0 or not line:
        raise RuntimeError(f"an application failed (exit {p.returncode})")
    return json.loads(line)


def _kill_left(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def _cpu_since(cpu0: dict[int, tuple[float, float]]) -> dict[int, tuple[float, ...]]:
    """Each server process's user and system CPU seconds since ``cpu0``."""
    return {pid: tuple(b - a for a, b in zip(c, client_bench._process_user_sys(pid),
                                             strict=True)) for pid, c in cpu0.items()}


def _by_role(cpu: dict[int, tuple[float, ...]]) -> dict[str, list[float]]:
    """The servers' [user, system] CPU seconds summed by role (qmgr, chinit)."""
    by_role: dict[str, list[float]] = {}
    for pid, (user, system) in cpu.items():
        role = by_role.setdefault(client_bench._process_role(pid), [0.0, 0.0])
        role[0] += user
        role[1] += system
    return by_role


def run_request_reply(name: str, qmgr: DeployedQueueManager, round_trips: int) -> dict:
    """One scenario of REQUEST_REPLY: its responders and requesters, each a process of its
    own, started together; each requester makes ``round_trips``. Round trips a second over
    the window from the first requester's first call to the last one's last; the servers'
    and the applications' CPU a round trip (the responders ended by end_responders after the
    requesters, the servers' CPU counted until then)."""
    shape = REQUEST_REPLY[name]
    requesters = responders = shape["requesters"]
    persistent = shape.get("persistent", False)
    specs = [{"role": "responder", "persistent": persistent}] * responders + [
        {"role": "requester", "persistent": persistent, "client": shape.get("client", False),
         "port": qmgr.port, "count": round_trips}] * requesters
    procs = _start_applications(specs)
    try:
        cpu0 = {pid: client_bench._process_user_sys(pid) for pid in qmgr.pids}
        _go(procs)
        asked = [_result(p) for p in procs[responders:]]
        end_responders(responders)
        answered = [_result(p) for p in procs[:responders]]
        cpu = _cpu_since(cpu0)
    finally:
        _kill_left(procs)
    trips = sum(r["round_trips"] for r in asked)
    replies = sum(r["replies"] for r in answered)
    if replies != trips:
        raise RuntimeError(f"{trips} round trips but {replies} replies")
    window = max(r["end"] for r in asked) - min(r["start"] for r in asked)
    out: dict = {"scenario": name, "message_bytes": REQUEST_REPLY_SIZE,
                 "requesters": requesters, "responders": responders,
                 "requester_connection": "client" if shape.get("client") else "bindings",
                 "persistent": persistent, "round_trips": trips, "replies": replies,
                 "seconds": round(window, 3),
                 "round_trips_per_s": round(trips / window, 1) if window else None}
    for call in ("round_trip", "put", "put_commit", "get", "get_commit"):
        each = [r[call] for r in asked if call in r]
        if each:  # the requesters' medians, their median
            out[call] = {k: sorted(e[k] for e in each)[len(each) // 2] for k in each[0]}
    by_role = _by_role(cpu)
    out["server_cpu_us_per_round_trip"] = {role: round(sum(us) / trips * 1e6, 1)
                                           for role, us in sorted(by_role.items())}
    out["server_cpu_us_per_round_trip_user_system"] = {
        role: [round(u / trips * 1e6, 1), round(s / trips * 1e6, 1)]
        for role, (u, s) in sorted(by_role.items())}
    out["application_cpu_us_per_round_trip_user_system"] = {
        role: [round(sum(r["cpu_s"][i] for r in results) / trips * 1e6, 1) for i in (0, 1)]
        for role, results in (("requesters", asked), ("responders", answered))}
    return out


class DeployedQueueManager:
    """crtmqm, strmqm (the daemon and its channel initiator), a listener, a SVRCONN and the
    queues in a temporary data path; stopped by the processes' pids."""

    def __init__(self, standard: bool = False) -> None:
        self.standard = standard  #: qm.ini MQIBindType=STANDARD: the chinit relays clients

    def __enter__(self) -> DeployedQueueManager:
        self._dir = tempfile.TemporaryDirectory(prefix="mqpy-deployed-bench-")
        self.root = self._dir.name
        try:
            self.port, self.pids = client_bench.serve_deployed(self.root, self.standard)
        except BaseException:
            self._dir.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for pid in sorted(self.pids, key=lambda p: client_bench._process_role(p) != "qmgr"):
            bindings_bench._stop(pid)
        self._dir.cleanup()


def run_scenario(name: str, qmgr: DeployedQueueManager, count: int,
                 built: dict[str, bool]) -> dict:
    """One scenario of SCENARIOS against the running queue manager."""
    apps, base = SCENARIOS[name]
    result: dict = {"scenario": name, "message_bytes": SIZE}
    if base["role"] == "callback" and not built["async_consume"]:
        return {**result, "skipped": "asynchronous consume (MQCB/MQCTL) is not built in "
                                     "this mqpy (no Queue.cb / QueueManager.ctl)"}
    per_app = count if apps == 1 else max(50, count // 2)
    specs = [{**base, "queue": QUEUE.format(i), "count": per_app, "port": qmgr.port}
             for i in range(apps)]
    result.update(run_applications(specs, qmgr.pids))
    notes = feature_notes(base, built)
    if notes:
        result["note"] = notes
    if name in TARGETS:
        result["targets"] = TARGETS[name]
    return result


def run(count: int, scenarios: list[str], standard: bool = False,
        round_trips: int = ROUND_TRIPS) -> dict:
    built = features()
    with DeployedQueueManager(standard) as qmgr:
        floors = {"fdatasync_us": bindings_bench.fdatasync_us(qmgr.root, max(200, count // 4)),
                  "round_trip_us": bindings_bench.round_trip(
                      max(200, count), bindings_bench._echo_blocking)}
        results = []
        for name in scenarios:
            res = (run_request_reply(name, qmgr, round_trips) if name in REQUEST_REPLY
                   else run_scenario(name, qmgr, count, built))
            print(json.dumps(res), file=sys.stderr, flush=True)
            results.append(res)
        floors["fdatasync_after_us"] = bindings_bench.fdatasync_us(qmgr.root,
                                                                   max(200, count // 4))
    for res in results:
        if res["scenario"] == "bindings_persistent" and "put_commit" in res:
            res["put_commit_over_fdatasync_us"] = round(
                res["put_commit"]["median_us"] - floors["fdatasync_us"], 1)
    return {"features": built, "mqi_bind_type": "STANDARD" if standard else "FASTPATH",
            "floors": floors, "scenarios": results}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="300 messages, for a smoke run")
    ap.add_argument("--count", type=int, default=2000,
                    help="messages of a one-application scenario (shared by the "
                         "applications of the others)")
    ap.add_argument("--round-trips", type=int, default=ROUND_TRIPS,
                    help="round trips of each requester of the request/reply scenarios")
    ap.add_argument("--scenario", action="append",
                    choices=list(SCENARIOS) + list(REQUEST_REPLY),
                    help="run only this scenario (repeatable; default all)")
    ap.add_argument("--standard", action="store_true",
                    help="qm.ini MQIBindType=STANDARD (the channel initiator relays each "
                         "client call), to compare with crtmqm's FASTPATH")
    ap.add_argument("--app", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.app:
        _serve_application(json.loads(args.app))
        return
    count = 300 if args.quick else args.count
    round_trips = 100 if args.quick else args.round_trips
    doc = {"benchmark": "deployed_bench", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "load_average": os.getloadavg(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "commit": bindings_bench._commit(), "spinning": bindings_bench.spinning(),
           "results": run(count, args.scenario or [*SCENARIOS, *REQUEST_REPLY],
                          args.standard, round_trips)}
    bindings_bench.emit(doc, args.out)


if __name__ == "__main__":
    main()
