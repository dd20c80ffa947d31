"""Report messages, dead-letter headers and trigger messages: what the queue manager itself puts.

Pure builders: each takes the original message's MQMD (and data) and returns the MQMD and data
of the message to put, following the MQRO_* options of the original. The engine decides when to
call them (COA at arrival, COD at a committed get, expiration at removal, exception from an MCA)
and where the result goes (ReplyToQ at ReplyToQMgr, through name resolution; the dead-letter
queue if that fails).
"""

from __future__ import annotations

from mqpy import CMQC
from mqpy.structs.tables import DLH, MD, TM

# report kind -> (plain bit, _WITH_DATA bits, _WITH_FULL_DATA bits, feedback)
_KINDS = {
    "COA": (CMQC.MQRO_COA, CMQC.MQRO_COA_WITH_DATA, CMQC.MQRO_COA_WITH_FULL_DATA,
            CMQC.MQFB_COA),
    "COD": (CMQC.MQRO_COD, CMQC.MQRO_COD_WITH_DATA, CMQC.MQRO_COD_WITH_FULL_DATA,
            CMQC.MQFB_COD),
    "EXPIRATION": (CMQC.MQRO_EXPIRATION, CMQC.MQRO_EXPIRATION_WITH_DATA,
                   CMQC.MQRO_EXPIRATION_WITH_FULL_DATA, CMQC.MQFB_EXPIRATION),
    "EXCEPTION": (CMQC.MQRO_EXCEPTION, CMQC.MQRO_EXCEPTION_WITH_DATA,
                  CMQC.MQRO_EXCEPTION_WITH_FULL_DATA, None),
}
#: A report "with data" carries the first 100 bytes of the message (IBM).
WITH_DATA_BYTES = 100


def wants(report: int, kind: str) -> bool:
    return bool(report & _KINDS[kind][0])


def _blank(b: bytes) -> bool:
    return not b.strip(b" \x00")


def build_report(kind: str, original: MD, data: bytes, *, feedback: int | None = None,
                 qmgr_name: str, msgid: bytes) -> tuple[MD, bytes] | None:
    """The report message for ``original``, or None when none was asked for or it has no
    ReplyToQ to go to. ``msgid`` is a fresh id used unless MQRO_PASS_MSG_ID."""
    plain, with_data, full, fb = _KINDS[kind]
    report = original.Report
    if not report & plain or _blank(original.ReplyToQ):
        return None
    if report & full == full:
        body = data
    elif report & with_data == with_data:
        body = data[:WITH_DATA_BYTES]
    else:
        body = b""
    md = MD()
    md.MsgType = CMQC.MQMT_REPORT
    md.Feedback = feedback if feedback is not None else (fb or CMQC.MQFB_NONE)
    md.MsgId = original.MsgId if report & CMQC.MQRO_PASS_MSG_ID else msgid
    md.CorrelId = (original.CorrelId if report & CMQC.MQRO_PASS_CORREL_ID
                   else original.MsgId)
    md.Persistence = original.Persistence
    md.Priority = original.Priority
    # MQRO_PASS_DISCARD_AND_EXPIRY: the report inherits DISCARD_MSG and the remaining expiry.
    passing = bool(report & CMQC.MQRO_PASS_DISCARD_AND_EXPIRY)
    md.Expiry = original.Expiry if passing else CMQC.MQEI_UNLIMITED
    md.Report = report & CMQC.MQRO_DISCARD_MSG if passing else CMQC.MQRO_NONE
    md.Encoding = original.Encoding
    md.CodedCharSetId = original.CodedCharSetId
    md.Format = original.Format if body else CMQC.MQFMT_NONE
    md.ReplyToQMgr = qmgr_name
    md.GroupId = original.GroupId
    md.MsgSeqNumber = original.MsgSeqNumber
    md.Offset = original.Offset
    md.MsgFlags = original.MsgFlags
    md.OriginalLength = len(data)
    return md, body


def build_dead_letter(original: MD, data: bytes, reason: int, dest_q: str, dest_qm: str,
                      *, put_appl_name: bytes, put_date: bytes, put_time: bytes
                      ) -> tuple[MD, bytes]:
    """The DLQ message: an MQDLH (reason, destination, the original format) before the data."""
    dlh = DLH()
    dlh.Reason = reason
    dlh.DestQName = dest_q.encode("latin-1")
    dlh.DestQMgrName = dest_qm.encode("latin-1")
    dlh.Encoding = original.Encoding
    dlh.CodedCharSetId = original.CodedCharSetId
    dlh.Format = original.Format
    dlh.PutApplType = CMQC.MQAT_QMGR
    dlh.PutApplName = put_appl_name
    dlh.PutDate = put_date
    dlh.PutTime = put_time
    md = original.copy()
    md.Format = CMQC.MQFMT_DEAD_LETTER_HEADER
    md.Encoding = CMQC.MQENC_NATIVE
    return md, dlh.pack() + data


def build_trigger(queue_name: str, process: dict[str, object] | None, process_name: str,
                  trigger_data: str) -> tuple[MD, bytes]:
    """An MQTM for a trigger monitor: the queue, its TRIGDATA and the process's attributes,
    each cut to its field's length (a definition holding more must not fail the put that
    fires the trigger: that put is made already)."""
    tm = TM()
    tm.QName = _field(queue_name, CMQC.MQ_Q_NAME_LENGTH)
    tm.ProcessName = _field(process_name, CMQC.MQ_PROCESS_NAME_LENGTH)
    tm.TriggerData = _field(trigger_data, CMQC.MQ_TRIGGER_DATA_LENGTH)
    if process is not None:
        tm.ApplType = _appl_type(str(process.get("APPLTYPE", "UNIX")))
        tm.ApplId = _field(process.get("APPLICID", ""), CMQC.MQ_PROCESS_APPL_ID_LENGTH)
        tm.EnvData = _field(process.get("ENVRDATA", ""), CMQC.MQ_PROCESS_ENV_DATA_LENGTH)
        tm.UserData = _field(process.get("USERDATA", ""), CMQC.MQ_PROCESS_USER_DATA_LENGTH)
    md = MD()
    md.Format = CMQC.MQFMT_TRIGGER
    md.Persistence = CMQC.MQPER_NOT_PERSISTENT
    md.MsgType = CMQC.MQMT_DATAGRAM
    return md, tm.pack()


def _field(value: object, length: int) -> bytes:
    """A definition's text as an MQTM field of ``length`` bytes holds it."""
    return str(value).encode("latin-1", "replace")[:length]


_APPL_TYPES = {"UNIX": CMQC.MQAT_UNIX, "CICS": CMQC.MQAT_CICS, "DEF": CMQC.MQAT_DEFAULT,
               "DEFAULT": CMQC.MQAT_DEFAULT, "JAVA": CMQC.MQAT_JAVA,
               "WINDOWS": CMQC.MQAT_WINDOWS, "WINDOWSNT": CMQC.MQAT_WINDOWS_NT,
               "OS400": CMQC.MQAT_OS400, "MVS": CMQC.MQAT_MVS}


def _appl_type(word: str) -> int:
    if word.isdigit():
        return int(word)
    return _APPL_TYPES.get(word.upper(), CMQC.MQAT_UNIX)
