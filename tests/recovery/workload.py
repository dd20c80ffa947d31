"""A child process that runs a mixed persistent workload until it is killed.

Before and after every step it appends what it did to an *ack file*, flushed (not fsynced: the
page cache survives SIGKILL of this process), so the parent can check the queue manager against
what was acknowledged:

    p <ids>   intends to put these ids        P <ids>   their put returned / was committed
    b <ids>   put in a unit of work ...       B <ids>   ... that was then backed out
    x <ids>   put in a unit of work that is never committed
    g <ids>   got these ids, not yet committed (or about to get them outside syncpoint)
    G <ids>   the get is committed / returned
    r <ids>   got in a unit of work that was then backed out (they are back on the queue)

Run: python -m tests.recovery.workload DATA_PATH QMGR QUEUE ACKFILE SEED FIRST_ID
"""

from __future__ import annotations

import random
import sys

import mqpy
from mqpy import CMQC


def main() -> None:
    data_path, qmgr, queue, ackfile, seed, first = sys.argv[1:7]
    rng = random.Random(int(seed))
    next_id = int(first)
    ack = open(ackfile, "a", buffering=1)  # line-buffered: each line is one write(2)

    def note(tag: str, ids: list[int]) -> None:
        ack.write(f"{tag} {' '.join(map(str, ids))}\n")

    qm = mqpy.embedded(qmgr, data_path=data_path, create=False)
    other = mqpy.embedded(qmgr, data_path=data_path, create=False)
    out = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT)
    inq = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    lingering = mqpy.Queue(other, queue, CMQC.MQOO_OUTPUT)
    pers = CMQC.MQPER_PERSISTENT
    sync = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    nosync = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)

    def put(ids: list[int], pmo: mqpy.PMO, q: mqpy.Queue = out) -> None:
        for i in ids:
            q.put(b"%d" % i + b"." * rng.choice((0, 10, 1000, 5000)), mqpy.MD(Persistence=pers),
                  pmo)

    def take(n: int, gmo_opts: int) -> list[int]:
        got = []
        for _ in range(n):
            try:
                data = inq.get(None, mqpy.MD(), mqpy.GMO(Options=gmo_opts))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            got.append(int(data.split(b".")[0]))
        return got

    while True:
        op = rng.random()
        if op < 0.35:  # a unit of work of puts, committed
            ids = list(range(next_id, next_id + rng.randint(1, 20)))
            next_id = ids[-1] + 1
            note("p", ids)
            put(ids, sync)
            qm.commit()
            note("P", ids)
        elif op < 0.50:  # a persistent put outside syncpoint
            ids = [next_id]
            next_id += 1
            note("p", ids)
            put(ids, nosync)
            note("P", ids)
        elif op < 0.55:  # a unit of work of puts, backed out
            ids = list(range(next_id, next_id + rng.randint(1, 5)))
            next_id = ids[-1] + 1
            note("b", ids)
            put(ids, sync)
            qm.backout()
            note("B", ids)
        elif op < 0.57:  # another connection leaves a unit of work open forever
            ids = [next_id]
            next_id += 1
            note("x", ids)
            try:
                put(ids, sync, lingering)
            except mqpy.MQMIError as e:
                # its unit of work pinned the log and the queue manager backed it out
                if e.reason != CMQC.MQRC_BACKED_OUT:
                    raise
                other.backout()
        elif op < 0.82:  # gets in a unit of work, committed
            ids = take(rng.randint(1, 15), CMQC.MQGMO_SYNCPOINT)
            note("g", ids)
            qm.commit()
            note("G", ids)
        elif op < 0.90:  # a get outside syncpoint: browse first so the id is known before
            try:
                data = inq.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
            except mqpy.MQMIError:
                continue
            i = int(data.split(b".")[0])
            note("g", [i])
            data = inq.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            if int(data.split(b".")[0]) != i:  # the only consumer: the head cannot change
                raise SystemExit(f"browsed {i} but got {data[:20]!r}")
            note("G", [i])
        else:  # gets in a unit of work, backed out
            ids = take(rng.randint(1, 5), CMQC.MQGMO_SYNCPOINT)
            note("g", ids)
            qm.backout()
            note("r", ids)


if __name__ == "__main__":
    main()
