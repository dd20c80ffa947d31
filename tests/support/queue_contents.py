"""What an engine connection's queues hold, for differential tests that compare two paths:
each message got back with its MQMD, the ids the queue manager made given by their order."""

from __future__ import annotations

from typing import Any

import mqpy
from mqpy import CMQC


def got_back(conn: Any, names: tuple[str, ...], ids: dict[bytes, int]) -> list:
    """Every message of the queues ``names`` got (destructively) from ``conn``: (data, MQMD
    fields) each, a MsgId or CorrelId the queue manager made ("AMQ ...") replaced by its
    order in ``ids``; each queue's list ending with the reason its last get failed."""
    seen: list = []
    for name in names:
        hin = conn.open(mqpy.OD(ObjectName=name), CMQC.MQOO_INPUT_SHARED)
        while True:
            md = mqpy.MD()
            try:
                data = conn.get(hin, md, mqpy.GMO(), None)
            except mqpy.MQMIError as e:
                seen.append(e.reason)
                break
            fields = dict(md.__dict__)
            for field in ("MsgId", "CorrelId"):
                if fields[field].startswith(b"AMQ "):
                    fields[field] = ids.setdefault(fields[field], len(ids))
            seen.append((data, fields))
    return seen
