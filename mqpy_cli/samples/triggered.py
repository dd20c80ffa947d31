"""What IBM's triggered samples share (amqsech, amqsinq, amqsset): each is started by a
trigger monitor (runmqtrm) with an MQTMC2 as its only argument, connects to the trigger
message's queue manager, gets the request messages of the trigger message's queue (shared
input, a 5-second wait) and answers each with MQPUT1 to its ReplyToQ: a reply, or a report
message whose Feedback is the reason the request could not be served.

A message that is not a request is shown and discarded; the reply's MsgId, CorrelId and
Report follow the request's report options as IBM's samples do (:func:`reply_md`).
"""

from __future__ import annotations

from collections.abc import Callable

import mqpy
from mqpy import CMQC
from mqpy.structs.fields import StructError
from mqpy_cli.samples import RC_MISSING_PARAMETER, close, connect

WAIT_MS = 5000  # IBM's triggered samples wait 5 seconds for the next request
#: the MQTMC2's length, version 2 (what runmqtrm passes), which a shorter argument is padded to
_TMC2_LENGTH = len(mqpy.TMC2().pack())

#: a request's answer: (MsgType, data, Feedback)
Answer = tuple[int, bytes, int]


def trigger_message(argv: list[str]) -> mqpy.TMC2 | int:
    """The MQTMC2 a trigger monitor passed, or 99 after IBM's line when there is none or it
    is not one."""
    if not argv:
        print("Missing parameter - start program by MQI trigger")
        return RC_MISSING_PARAMETER
    if len(argv) > 1:
        print("Extra input parameters ignored")
    raw = argv[0].encode("latin-1", "replace")
    try:
        if raw[:4] != CMQC.MQTMC_STRUC_ID:
            raise StructError("not an MQTMC2")
        return mqpy.TMC2.from_bytes(raw.ljust(_TMC2_LENGTH, b" "))
    except StructError:
        print("Invalid input trigger message provided")
        return RC_MISSING_PARAMETER


def text_of(field: bytes) -> str:
    """A character field of an MQ structure as a name: without its blanks and NULs."""
    return field.rstrip(b" \0").decode("latin-1")


def reply_md(request: mqpy.MD, msg_type: int, feedback: int = CMQC.MQFB_NONE) -> mqpy.MD:
    """The MQMD of the answer to ``request``: its CorrelId the request's MsgId unless
    MQRO_PASS_CORREL_ID, a new MsgId unless MQRO_PASS_MSG_ID, and no further reports (but
    MQRO_DISCARD_MSG kept with MQRO_PASS_DISCARD_AND_EXPIRY)."""
    md = mqpy.MD(MsgType=msg_type, Feedback=feedback, Format=request.Format,
                 Encoding=request.Encoding, CodedCharSetId=request.CodedCharSetId,
                 Priority=request.Priority, Persistence=request.Persistence)
    report = request.Report
    md.CorrelId = request.CorrelId if report & CMQC.MQRO_PASS_CORREL_ID else request.MsgId
    if report & CMQC.MQRO_PASS_MSG_ID:
        md.MsgId = request.MsgId
    keep_discard = report & CMQC.MQRO_PASS_DISCARD_AND_EXPIRY and report & CMQC.MQRO_DISCARD_MSG
    md.Report = CMQC.MQRO_DISCARD_MSG if keep_discard else CMQC.MQRO_NONE
    if report & CMQC.MQRO_PASS_DISCARD_AND_EXPIRY:
        md.Expiry = request.Expiry
    return md


def serve(argv: list[str], answer: Callable[[mqpy.QueueManager, bytes], Answer],
          buffer_length: int | None = None, *, client: bool = False) -> int:
    """The triggered sample's work after its start line: the trigger message, MQCONN, the
    requests answered by ``answer(qm, data)`` until none is left; its exit code.
    ``buffer_length``: the sample's buffer (a longer request is truncated, MQGET's 2079);
    ``client``: the sample linked as a client."""
    trig = trigger_message(argv)
    if isinstance(trig, int):
        return trig
    qm = connect(text_of(trig.QMgrName), "MQCONN ended with reason code {reason}",
                 client=client)
    if isinstance(qm, int):
        return qm
    try:
        q = mqpy.Queue(qm, text_of(trig.QName),
                       CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        print(f"MQOPEN (input) ended with reason code {e.reason}")
        close(qm)
        return e.reason
    while _serve_one(qm, q, answer, buffer_length):
        pass
    close(qm, q)
    return 0


def _serve_one(qm: mqpy.QueueManager, q: mqpy.Queue,
               answer: Callable[[mqpy.QueueManager, bytes], Answer],
               buffer_length: int | None) -> bool:
    """Get one request and answer it; False when the get or the reply's put failed."""
    md = mqpy.MD()
    gmo = mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG | CMQC.MQGMO_CONVERT
                   | CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=WAIT_MS)
    try:
        data = q.get(buffer_length, md, gmo)
    except mqpy.MQMIError as e:
        print(f"MQGET ended with reason code {e.reason}", flush=True)
        if e.comp == CMQC.MQCC_FAILED:
            return False
        data = e.message  # truncated, as the sample's buffer holds it
    print(data.decode("utf-8", "replace"), flush=True)
    if md.MsgType != CMQC.MQMT_REQUEST:
        print("  -- not a request and discarded")
        return True
    msg_type, reply, feedback = answer(qm, data)
    od = mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
    try:
        qm.put1(od, reply, reply_md(md, msg_type, feedback),
                mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except mqpy.MQMIError as e:
        print(f"MQPUT1 ended with reason code {e.reason}", flush=True)
        return e.comp != CMQC.MQCC_FAILED
    return True
