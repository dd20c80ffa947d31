"""Seeded synthetic statistics, in the exporter's format, for developing and testing reports.

The same (days, qmgrs, queues, seed, interval, start) always writes the same files. The shape is
a working day: traffic rises from 06:00, peaks at noon and falls to a night floor; the first
queue of each queue manager has consumers slower than its producers, so its depth climbs and
the report has a MAXDEPTH to project. Channels carry part of the traffic; the log figures follow
the persistent traffic; a few AMQ error ids recur. File I/O only through ``write_records``.
"""

from __future__ import annotations

import math
import random
from typing import Any

from mqpy.stats.exporter import write_records

#: 2024-01-01T00:00:00Z, so generated data does not depend on the clock
DEFAULT_START = 1704067200.0
#: (id, text, per hour): IBM's message lines (mqpy.amqmsgs), for a channel TO.QM2
ERROR_IDS = [("AMQ9999E", "Channel 'TO.QM2' to host '10.0.0.2(1414)' ended abnormally.", 0.6),
             ("AMQ9209E", "Connection to host '10.0.0.2(1414)' for channel 'TO.QM2' closed.",
              0.8),
             ("AMQ7469W", "Transactions rolled back to release log space.", 0.2),
             ("AMQ9002I", "Channel 'TO.QM2' is starting.", 2.0)]


def _shape(ts: float) -> float:
    hour = (ts % 86400) / 3600
    return 0.15 + 0.85 * max(0.0, math.sin(math.pi * (hour - 6) / 12))


def generate(out: str, *, days: int = 7, qmgrs: int = 2, queues: int = 5, seed: int = 1,
             interval: int = 1800, start: float = DEFAULT_START) -> int:
    """Write the records; returns how many."""
    rng = random.Random(seed)
    total = 0
    steps = int(days * 86400 // interval)
    for m in range(1, qmgrs + 1):
        qmgr = f"QM{m}"
        base = [rng.uniform(2, 40) for _ in range(queues)]
        persistent = [rng.choice([0.0, 0.5, 1.0]) for _ in range(queues)]
        maxdepth = [rng.choice([5000, 50000, 100000]) for _ in range(queues)]
        maxdepth[0] = 999_999_999 if days > 60 else 200_000 * max(1, days)
        depth = [0] * queues
        channels = [(f"{qmgr}.TO.QM{m % qmgrs + 1}", rng.choice([50, 100]))]
        for day in range(days):
            recs: list[dict[str, Any]] = []
            for step in range(int(day * 86400 // interval), min(steps, int((day + 1) * 86400
                                                                          // interval))):
                t0 = start + step * interval
                t1 = t0 + interval
                f = _shape(t0)
                common = {"queue_manager": qmgr, "start_ts": t0, "end_ts": t1}

                def mid(kind: str, n: int, m: int = m, step: int = step) -> str:
                    return f"{rng.getrandbits(64):016x}{m:04x}{step:08x}{n:04x}{kind}"

                mqi = {k: 0 for k in ("puts_np", "puts_p", "put1s_np", "put1s_p", "gets_np",
                                      "gets_p", "browses_np", "browses_p", "put_bytes_np",
                                      "put_bytes_p", "get_bytes_np", "get_bytes_p")}
                for i in range(queues):
                    offered = max(0, int(base[i] * f * interval * rng.uniform(0.9, 1.1)))
                    drain = 0.97 if i == 0 else 1.0
                    gets = min(depth[i] + offered,
                               int(offered * drain * rng.uniform(0.98, 1.02)))
                    # a put to a full queue fails MQRC_Q_FULL: counted, not queued
                    puts = min(offered, maxdepth[i] - depth[i] + gets)
                    lo = depth[i]
                    depth[i] = max(0, depth[i] + puts - gets)
                    peak = maxdepth[i] if offered > puts else min(
                        maxdepth[i], max(lo, depth[i]) + int(base[i] * rng.uniform(0, 5)))
                    pp = persistent[i]
                    size = 512 * (i + 1)
                    q = dict(common, record_type="QueueStatistics", msg_id=mid("q", i), seq=i + 1,
                             msg_seq=1, queue=f"APP.Q{i + 1}", q_type=1,
                             puts_np=int(puts * (1 - pp)), puts_p=puts - int(puts * (1 - pp)),
                             put1s_np=0, put1s_p=0,
                             gets_np=int(gets * (1 - pp)), gets_p=gets - int(gets * (1 - pp)),
                             browses_np=0, browses_p=0,
                             min_depth=min(lo, depth[i]),
                             max_depth=peak, puts_failed=offered - puts, put1s_failed=0,
                             avg_q_time_us_np=int(rng.uniform(200, 2000)) if pp < 1 else 0,
                             avg_q_time_us_p=int(rng.uniform(500, 5000)) if pp > 0 else 0,
                             expired=0, purged=0, max_depth_limit=maxdepth[i])
                    q["put_bytes_np"], q["put_bytes_p"] = q["puts_np"] * size, q["puts_p"] * size
                    q["get_bytes_np"], q["get_bytes_p"] = q["gets_np"] * size, q["gets_p"] * size
                    recs.append(q)
                    for k in mqi:
                        mqi[k] += q[k]
                conns = int(20 * f) + 1
                commits = (mqi["puts_p"] + mqi["gets_p"]) // 10
                recs.append(dict(common, record_type="MQIStatistics", msg_id=mid("m", 0), seq=0,
                                 msg_seq=1, conns=conns, discs=conns, opens=conns * queues,
                                 closes=conns * queues, inqs=conns, sets=0, commits=commits,
                                 backouts=commits // 200, expired=0, purged=0, **mqi))
                forces = max(1, commits)
                log_bytes = int(mqi["put_bytes_p"] * 1.1 + mqi["gets_p"] * 96 + commits * 64)
                recs.append(dict(common, record_type="StorageStatistics", msg_id=mid("m", 0),
                                 seq=1, msg_seq=1, log_bytes=log_bytes,
                                 log_records=mqi["puts_p"] + mqi["gets_p"] + commits,
                                 log_forces=forces,
                                 checkpoints=log_bytes // 50_000_000 + (1 if rng.random() < 0.3
                                                                        else 0),
                                 checkpoint_us=int(rng.uniform(20_000, 200_000)),
                                 pageset_reads=int(rng.uniform(0, 100)),
                                 buffer_hits=int(mqi["gets_np"] + mqi["gets_p"]),
                                 evictions=0, pages_used=1000 + sum(depth),
                                 pages_free=1_000_000 - sum(depth)))
                for c, (name, batchsz) in enumerate(channels):
                    msgs = int((mqi["puts_np"] + mqi["puts_p"]) * 0.3)
                    batches = max(1, int(msgs / (batchsz * rng.uniform(0.3, 0.9))))
                    full = int(batches * rng.uniform(0.1, 0.5))
                    recs.append(dict(common, record_type="ChannelStatistics",
                                     msg_id=mid("c", c), seq=c + 1, msg_seq=1, channel=name,
                                     channel_type=1, remote_qmgr="", conn_name="127.0.0.1(1414)",
                                     msgs=msgs, bytes=msgs * 1024, full_batches=full,
                                     incomplete_batches=batches - full,
                                     avg_batch_size=round(msgs / batches),
                                     net_time_avg_us=int(rng.uniform(300, 3000)),
                                     net_time_min_us=100, net_time_max_us=10_000,
                                     put_retries=0, batchsz=batchsz))
                for amq, text, per_hour in ERROR_IDS:
                    lam = per_hour * interval / 3600
                    n = sum(1 for _ in range(int(lam * 3) + 3) if rng.random() < lam / (lam * 3 + 3))
                    for k in range(n):
                        ts = t0 + rng.uniform(0, interval)
                        recs.append({"record_type": "ErrorLog", "queue_manager": qmgr,
                                     "start_ts": ts, "key": mid("e", k), "amq_id": amq,
                                     "text": text, "pid": 1000 + m, "tid": 1,
                                     "program": "runmqchl", "user": "mqm", "host": "gen"})
            total += len(recs)
            if recs:
                write_records(out, recs, f"gen-{seed}-{qmgr}-{day:05d}")
    return total
