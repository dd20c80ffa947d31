"""Browse a whole queue: the loop every operator utility and sync-record reader would
otherwise write again (MQGMO_BROWSE_FIRST, then BROWSE_NEXT until MQRC_NO_MSG_AVAILABLE)."""

from __future__ import annotations

from collections.abc import Iterator

import mqpy
from mqpy import CMQC


def browse(qm: mqpy.QueueManager, queue: str, *, correl_id: bytes | None = None
           ) -> Iterator[tuple[mqpy.MD, bytes]]:
    """(MQMD, data) of every message another application could get from ``queue`` now, in
    delivery order; with ``correl_id``, only those with that CorrelId (through the index).
    Nothing is locked or changed; the queue is closed when the iteration ends."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_BROWSE)
    match = CMQC.MQMO_MATCH_CORREL_ID if correl_id is not None else CMQC.MQMO_NONE
    try:
        options = CMQC.MQGMO_BROWSE_FIRST
        while True:
            md = mqpy.MD(CorrelId=correl_id) if correl_id is not None else mqpy.MD()
            try:
                data = q.get(None, md, mqpy.GMO(Options=options | CMQC.MQGMO_NO_SYNCPOINT,
                                                MatchOptions=match))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return
                raise
            options = CMQC.MQGMO_BROWSE_NEXT
            yield md, data
    finally:
        q.close()
