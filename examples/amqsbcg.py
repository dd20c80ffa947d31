"""amqsbcg: browse every message of a queue, printing its MQMD and a hex dump (IBM's sample).

    python -m examples.amqsbcg QUEUE [QMGR]
"""

from __future__ import annotations

import sys

import mqpy
from mqpy import CMQC

_FIELDS = ["StrucId", "Version", "Report", "MsgType", "Expiry", "Feedback", "Encoding",
           "CodedCharSetId", "Format", "Priority", "Persistence", "MsgId", "CorrelId",
           "BackoutCount", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "AccountingToken",
           "ApplIdentityData", "PutApplType", "PutApplName", "PutDate", "PutTime",
           "ApplOriginData", "GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength"]
_BINARY = {"MsgId", "CorrelId", "AccountingToken", "GroupId"}


def show_md(md: mqpy.MD) -> list[str]:
    out = ["****Message descriptor****", ""]
    for name in _FIELDS:
        value = md[name]
        if name in _BINARY:
            shown = "X'" + value.ljust(24 if name != "AccountingToken" else 32,
                                       b"\0").hex().upper() + "'"
        elif isinstance(value, bytes):
            shown = "'" + value.decode("latin-1") + "'"
        else:
            shown = str(value)
        out.append(f"  {name} : {shown}")
    return out


def hex_dump(data: bytes) -> list[str]:
    out = ["****   Message      ****", "", f" length - {len(data)} of {len(data)} bytes", ""]
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        groups = " ".join(chunk[i:i + 4].hex().upper() for i in range(0, len(chunk), 4))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        out.append(f"{off:08X}:  {groups:<36} '{text}'")
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("Required parameter missing - queue name", file=sys.stderr)
        return 99
    qname, qmgr = argv[0], (argv[1] if len(argv) > 1 else "")
    print(f"AMQSBCG0 - starts here\n**********************\n\n MQOPEN - '{qname}'\n")
    qm = mqpy.connect(qmgr)
    q = mqpy.Queue(qm, qname, CMQC.MQOO_BROWSE)
    opts, n = CMQC.MQGMO_BROWSE_FIRST, 0
    while True:
        md = mqpy.MD()
        try:
            data = q.get(None, md, mqpy.GMO(Options=opts | CMQC.MQGMO_NO_SYNCPOINT))
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                print("\n No more messages\n MQCLOSE\n MQDISC")
                break
            raise
        n += 1
        print(f"\n MQGET of message number {n}")
        print("\n".join(show_md(md)))
        print()
        print("\n".join(hex_dump(data)))
        opts = CMQC.MQGMO_BROWSE_NEXT
    q.close()
    qm.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
