"""The triggered servers: amqsech echoes each request to its ReplyToQ (IBM's AMQSECHA),
amqsinq replies with the InhibitGet, CurrentQDepth and OpenInputCount of the queue a request
names (AMQSINQA), amqsset inhibits puts to it (AMQSSETA); a request they cannot serve is
answered with a report message whose Feedback is the reason. Each is started with the MQTMC2
a trigger monitor passes: by runmqtrm itself for a triggered queue, or as runmqtrm would."""

from __future__ import annotations

import subprocess
import sys

import mqpy
from mqpy import CMQC

from .conftest import QM, read_until, sample

_RUNMQTRM = ("import sys; from mqpy_cli.runmqtrm import runmqtrm; "
             "runmqtrm.main(args=sys.argv[1:], prog_name='runmqtrm')")
#: the ApplicId of a process that starts a sample as IBM's does (no single quote: MQSC's)
_APPLICID = (f'{sys.executable} -c "import sys,importlib;m=importlib.import_module('
             'sys.argv.pop(1));getattr(m,sys.argv.pop(1))()" mqpy_cli.samples.{} {}')


def _tmc2(queue: str) -> str:
    """The MQTMC2 argument runmqtrm passes for a trigger message of ``queue``."""
    return mqpy.TMC2(QName=queue.encode(), QMgrName=QM.encode()).pack().decode("latin-1")


def _requests(site, queue: str, *texts: str, msg_type: int = CMQC.MQMT_REQUEST
              ) -> list[bytes]:
    qm = site.connect()
    try:
        ids = []
        for text in texts:
            md = mqpy.MD(MsgType=msg_type, ReplyToQ=b"SAMP.REPLY", Format=CMQC.MQFMT_STRING)
            qm.put1(queue, text.encode(), md)
            ids.append(md.MsgId)
        return ids
    finally:
        qm.disconnect()


def _replies(site) -> list[tuple[mqpy.MD, bytes]]:
    qm = site.connect()
    try:
        q = mqpy.Queue(qm, "SAMP.REPLY", CMQC.MQOO_INPUT_AS_Q_DEF)
        out = []
        while True:
            md = mqpy.MD()
            try:
                out.append((md, q.get(None, md)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        qm.disconnect()


def test_given_requests_when_amqsinq_is_triggered_then_it_replies_or_reports(site):
    sent = _requests(site, "SAMP.INQ", "SAMP.TARGET", "NO.SUCH.QUEUE")
    _requests(site, "SAMP.INQ", "just a datagram", msg_type=CMQC.MQMT_DATAGRAM)
    inq = sample(site.env(), "amqsinq", _tmc2("SAMP.INQ"))
    assert inq.returncode == 0, inq.stdout + inq.stderr
    assert inq.stdout.splitlines() == [
        "Sample AMQSINQA start", "SAMP.TARGET", "NO.SUCH.QUEUE", "just a datagram",
        "  -- not a request and discarded", "MQGET ended with reason code 2033",
        "Sample AMQSINQA end"]
    (reply_md, reply), (report_md, _) = _replies(site)
    assert reply == b"SAMP.TARGET: GET(ENABLED) CURDEPTH(0) IPPROCS(0)"
    assert reply_md.MsgType == CMQC.MQMT_REPLY and reply_md.CorrelId == sent[0]
    assert report_md.MsgType == CMQC.MQMT_REPORT
    assert report_md.Feedback == CMQC.MQRC_UNKNOWN_OBJECT_NAME and report_md.CorrelId == sent[1]


def test_given_a_request_when_amqsset_is_triggered_then_puts_to_the_queue_are_inhibited(site):
    _requests(site, "SAMP.SET", "SAMP.TARGET")
    try:
        st = sample(site.env(client=True), "amqssetc", _tmc2("SAMP.SET"))
        assert st.stdout.splitlines() == [
            "Sample AMQSSETA start", "SAMP.TARGET", "MQGET ended with reason code 2033",
            "Sample AMQSSETA end"]
        [(md, reply)] = _replies(site)
        assert (md.MsgType, reply) == (CMQC.MQMT_REPLY, b"SAMP.TARGET: PUT(DISABLED)")
        put = sample(site.env(), "amqsput", "SAMP.TARGET", QM, stdin="refused\n")
        assert "MQPUT ended with reason code 2051" in put.stdout.splitlines()
    finally:
        site.mqsc("ALTER QLOCAL(SAMP.TARGET) PUT(ENABLED)\n")


def test_given_no_or_a_wrong_trigger_message_when_amqsech_starts_then_99(site):
    for argv, line in (([], "Missing parameter - start program by MQI trigger"),
                       (["TM  not a trigger message"], "Invalid input trigger message provided")):
        ech = sample(site.env(), "amqsech", *argv)
        assert ech.returncode == 99
        assert ech.stdout.splitlines() == ["Sample AMQSECHA start", line]


def test_given_a_triggered_queue_when_amqsreq_sends_then_runmqtrm_starts_amqsech(site):
    """The whole of IBM's set-up: a process whose ApplicId is amqsech, SAMP.ECHO triggered
    on its first message through an initiation queue that runmqtrm serves; amqsreq's
    requests are echoed back."""
    site.mqsc("DEFINE QLOCAL(SAMP.INITQ)\n"
              f"DEFINE PROCESS(SAMP.ECHO.PROC) APPLICID('{_APPLICID.format('amqsech', 'amqsech')}')\n"
              "ALTER QLOCAL(SAMP.ECHO) TRIGGER TRIGTYPE(FIRST) INITQ(SAMP.INITQ) "
              "PROCESS(SAMP.ECHO.PROC)\n")
    trm = subprocess.Popen([sys.executable, "-c", _RUNMQTRM, "-m", QM, "-q", "SAMP.INITQ"],
                           env=site.env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, bufsize=1)
    try:
        read_until(trm, "IBM MQ trigger monitor started.")
        req = sample(site.env(), "amqsreq", "SAMP.ECHO", QM, stdin="hello echo\nsecond\n")
        assert req.stdout.splitlines()[-3:] == [
            "response <hello echo>", "response <second>", "Sample AMQSREQ0 end"]
        started = read_until(trm, "Sample AMQSECHA end")
        assert started[-5:] == ["Sample AMQSECHA start", "hello echo", "second",
                                "MQGET ended with reason code 2033", "Sample AMQSECHA end"]
    finally:
        trm.kill()
        trm.wait()
