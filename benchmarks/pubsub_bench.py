"""Publish/subscribe: a publication fanned out to 1, 10 and 100 subscribers; selector cost.

    python -m benchmarks.pubsub_bench [--out FILE] [--quick] [--count N]

- ``fanout``: for 1, 10 and 100 managed non-durable subscriptions on one topic string, N
  publications of 1 KB (MQPUT to the opened topic), non-persistent outside syncpoint and
  persistent in syncpoint (MQCMIT after each) to durable subscriptions (a non-durable managed
  subscription's queue is temporary dynamic: it takes each copy as non-persistent), then
  every copy read back by its subscriber.
  Each publication is timed from the publisher's side (median, 90th percentile, and per copy
  delivered); embedded for every count, and one run over a bindings connection to a queue
  manager started by strmqm (10 subscribers).
- ``selector``: the cost per message of a subscription's selection string compiled once
  (``mqpy.selection.compile_selector``), evaluated against an MQMD and a few properties, for a
  simple comparison and a compound one.

Writes one JSON document; asserts nothing. The daemon is stopped by its pid (qm.lock).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

from benchmarks.bindings_bench import (
    _commit,
    _control,
    _stop,
    _summary,
    emit,
)

QMGR = "PSBENCH"
TOPIC = "bench/prices/eur"
SIZE = 1024
FANOUTS = (1, 10, 100)


def _subscribe(qm, n: int, durable: bool) -> list:
    """``n`` managed subscriptions on TOPIC: durable ones (named; their copies of a
    persistent publication are persistent) or non-durable ones (a temporary dynamic queue
    each, which takes every copy as non-persistent)."""
    import mqpy
    from mqpy import CMQC

    subs = []
    for i in range(n):
        opts = CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
        sd = mqpy.SD(Options=opts | (CMQC.MQSO_DURABLE if durable else CMQC.MQSO_NON_DURABLE))
        sd.set_vs("ObjectString", TOPIC)
        if durable:
            sd.set_vs("SubName", f"BENCH.SUB.{i}")
        sub = mqpy.Subscription(qm)
        sub.sub(sub_desc=sd)
        subs.append(sub)
    return subs


def fanout(qm, subscribers: int, count: int, persistent: bool) -> dict:
    """N publications to ``subscribers`` subscriptions; the publisher's time per MQPUT (and
    MQCMIT when persistent), then the time to read every copy back."""
    import mqpy
    from mqpy import CMQC

    subs = _subscribe(qm, subscribers, durable=persistent)
    topic = mqpy.Topic(qm, topic_string=TOPIC)
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    data = b"p" * SIZE
    pers = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    pmo_opts = CMQC.MQPMO_SYNCPOINT if persistent else CMQC.MQPMO_NO_SYNCPOINT
    samples = []
    clock = time.perf_counter_ns
    cpu0 = time.process_time()
    for _ in range(count):
        t = clock()
        topic.pub(data, mqpy.MD(Persistence=pers), mqpy.PMO(Options=pmo_opts))
        if persistent:
            qm.commit()
        samples.append(clock() - t)
    cpu = time.process_time() - cpu0
    t = clock()
    got = 0
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    for sub in subs:
        for _ in range(count):
            sub.get(None, mqpy.MD(), gmo)
            got += 1
    drain = clock() - t
    topic.close()
    for sub in subs:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    pub = _summary(samples)
    return {"subscribers": subscribers, "persistent": persistent, "publications": count,
            "publish": pub, "publish_per_copy_us": round(pub["mean_us"] / subscribers, 1),
            "publisher_cpu_us": round(cpu / count * 1e6, 1),
            "get_per_copy_us": round(drain / got / 1000, 1)}


def embedded_runs(root: str, count: int) -> list[dict]:
    import mqpy

    qm = mqpy.embedded(QMGR, data_path=root)
    try:
        return [fanout(qm, n, max(20, count // n), persistent)
                for persistent in (False, True) for n in FANOUTS]
    finally:
        qm.disconnect()
        mqpy.stop_embedded(QMGR, data_path=root)


def bindings_run(root: str, count: int) -> list[dict]:
    import mqpy

    env = {**os.environ, "MQPY_DATA_PATH": root, "MQPY_NO_CHINIT": "1"}
    _control(env, "crtmqm", QMGR)
    _control(env, "strmqm", QMGR)
    pid = _daemon_pid_of(root)
    try:
        qm = mqpy.QueueManager(None)
        qm.connect(QMGR, data_path=root)
        try:
            return [fanout(qm, 10, max(20, count // 10), persistent)
                    for persistent in (False, True)]
        finally:
            qm.disconnect()
    finally:
        _stop(pid)


def _daemon_pid_of(root: str) -> int:
    with open(os.path.join(root, "qmgrs", QMGR, "qm.lock")) as f:
        return int(f.read().split()[0])


SELECTORS = {"simple": "JMSPriority > 4",
             "compound": "(JMSPriority > 4 AND colour = 'blue') OR price BETWEEN 10 AND 20.5"}


def selector_cost(count: int) -> list[dict]:
    """Time per evaluation of each selector compiled once, half the messages selected."""
    import mqpy
    from mqpy.selection.evaluate import compile_selector

    mds = [mqpy.MD(Priority=p) for p in range(10)]
    props = [{"colour": "blue" if p % 2 else "red", "price": float(p * 3)} for p in range(10)]
    out = []
    for name, text in SELECTORS.items():
        sel = compile_selector(text)
        t = time.perf_counter_ns()
        selected = 0
        for i in range(count):
            selected += sel.matches(props[i % 10], mds[i % 10])
        ns = time.perf_counter_ns() - t
        t = time.perf_counter_ns()
        compile_selector(text)
        compile_ns = time.perf_counter_ns() - t
        out.append({"selector": text, "kind": name, "messages": count, "selected": selected,
                    "per_message_us": round(ns / count / 1000, 2),
                    "compile_us": round(compile_ns / 1000, 1)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="few publications, for a smoke run")
    ap.add_argument("--count", type=int, default=1000,
                    help="publications for one subscriber (divided by the fan-out)")
    args = ap.parse_args()
    count = 100 if args.quick else args.count
    with tempfile.TemporaryDirectory(prefix="mqpy-pubsub-bench-") as root:
        results = {"embedded": embedded_runs(os.path.join(root, "emb"), count),
                   "bindings": bindings_run(os.path.join(root, "bnd"), count),
                   "selector": selector_cost(count * 20)}
    doc = {"benchmark": "pubsub_bench", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "loadavg": os.getloadavg(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "results": results}
    emit(doc, args.out)


if __name__ == "__main__":
    main()
