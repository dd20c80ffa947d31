"""amqsbcg / amqsbcgc: browse every message of a queue, printing its MQMD and a hex dump
(IBM's sample AMQSBCG0, in its layout: two short fields a line, the dump in two-byte
groups; amqsbcgc connects as a client).

    amqsbcg QUEUE [QMGR]

With MQSAMP_USER_ID set, the password is read from standard input.
"""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import RC_MISSING_PARAMETER, connect, credentials, entry_point

#: the MQMD as AMQSBCG0 lays it out, a line each (the values formatted by _value)
_LAYOUT = (
    "  StrucId  : {StrucId}  Version : {Version}",
    "  Report   : {Report}  MsgType : {MsgType}",
    "  Expiry   : {Expiry}  Feedback : {Feedback}",
    "  Encoding : {Encoding}  CodedCharSetId : {CodedCharSetId}",
    "  Format : {Format}",
    "  Priority : {Priority}  Persistence : {Persistence}",
    "  MsgId : {MsgId}",
    "  CorrelId : {CorrelId}",
    "  BackoutCount : {BackoutCount}",
    "  ReplyToQ       : {ReplyToQ}",
    "  ReplyToQMgr    : {ReplyToQMgr}",
    "  ** Identity Context",
    "  UserIdentifier : {UserIdentifier}",
    "  AccountingToken : ",
    "   {AccountingToken}",
    "  ApplIdentityData : {ApplIdentityData}",
    "  ** Origin Context",
    "  PutApplType    : {PutApplType}",
    "  PutApplName    : {PutApplName}",
    "  PutDate  : {PutDate}    PutTime  : {PutTime}",
    "  ApplOriginData : {ApplOriginData}",
    "",
    "  GroupId : {GroupId}",
    "  MsgSeqNumber   : {MsgSeqNumber}",
    "  Offset         : {Offset}",
    "  MsgFlags       : {MsgFlags}",
    "  OriginalLength : {OriginalLength}",
)
_FIELDS = ("StrucId", "Version", "Report", "MsgType", "Expiry", "Feedback", "Encoding",
           "CodedCharSetId", "Format", "Priority", "Persistence", "MsgId", "CorrelId",
           "BackoutCount", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "AccountingToken",
           "ApplIdentityData", "PutApplType", "PutApplName", "PutDate", "PutTime",
           "ApplOriginData", "GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength")
#: the byte fields, shown in hex at their full MQMD length
_BINARY = {"MsgId": CMQC.MQ_MSG_ID_LENGTH, "CorrelId": CMQC.MQ_CORREL_ID_LENGTH,
           "AccountingToken": CMQC.MQ_ACCOUNTING_TOKEN_LENGTH,
           "GroupId": CMQC.MQ_GROUP_ID_LENGTH}
_QUOTED_NUMBERS = {"PutApplType", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength"}
_BYTES_A_LINE = 16


def _value(md: mqpy.MD, name: str) -> str:
    value = md[name]
    if name in _BINARY:
        return "X'" + bytes(value).ljust(_BINARY[name], b"\0").hex().upper() + "'"
    if isinstance(value, bytes):
        return "'" + value.decode("latin-1") + "'"
    return f"'{value}'" if name in _QUOTED_NUMBERS else str(value)


def show_md(md: mqpy.MD) -> list[str]:
    """The ``****Message descriptor****`` block of one message."""
    values = {name: _value(md, name) for name in _FIELDS}
    return ["****Message descriptor****", ""] + [line.format(**values) for line in _LAYOUT]


def hex_dump(data: bytes) -> list[str]:
    """The ``****   Message      ****`` block: the length, then 16 bytes a line."""
    out = ["****   Message      ****", "", f" length - {len(data)} of {len(data)} bytes", ""]
    for off in range(0, len(data), _BYTES_A_LINE):
        chunk = data[off:off + _BYTES_A_LINE]
        groups = " ".join(chunk[i:i + 2].hex().upper() for i in range(0, len(chunk), 2))
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        out.append(f"{off:08X}:  {groups:<40} '{text:<16}'")
    return out


def main(argv: list[str], client: bool = False) -> int:
    """Browse QUEUE, showing each message's MQMD and data."""
    print("AMQSBCG0 - starts here\n**********************\n", flush=True)
    if not argv:
        print("Required parameter missing - queue name")
        return RC_MISSING_PARAMETER
    qname, qmgr = argv[0], (argv[1] if len(argv) > 1 else "")
    user, password = credentials()
    qm = connect(qmgr, " MQCONNX failed with CompCode:{comp}, Reason:{reason}", client=client, user=user,
                 password=password)
    if isinstance(qm, int):
        return qm
    print(f" MQOPEN - '{qname}'\n")
    try:
        q = mqpy.Queue(qm, qname, CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        print(f" MQOPEN failed with CompCode:{e.comp}, Reason:{e.reason}")
        qm.disconnect()
        return e.reason
    _browse(q)
    print("\n No more messages \n MQCLOSE\n MQDISC")
    q.close()
    qm.disconnect()
    return 0


def _browse(q: mqpy.Queue) -> None:
    """Print every message of ``q``, first to last, until none is left or a get fails."""
    opts, n = CMQC.MQGMO_BROWSE_FIRST, 0
    while True:
        md = mqpy.MD()
        gmo = mqpy.GMO(Options=opts | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)
        try:
            data = q.get(None, md, gmo)
        except mqpy.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                print(f"\n MQGET failed with CompCode:{e.comp}, Reason:{e.reason}")
            return
        n += 1
        print(f"\n MQGET of message number {n}, CompCode:0 Reason:0")
        print("\n".join(show_md(md)))
        print()
        print("\n".join(hex_dump(data)))
        opts = CMQC.MQGMO_BROWSE_NEXT


amqsbcg = entry_point(main)
amqsbcgc = entry_point(main, client=True)
