"""Applications in other processes use a strmqm'd queue manager through its bindings socket."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import pytest

import mqpy
from mqpy import CMQC, bindings, inprocess
from mqpy.constants import lookup
from tests.support.installation import QM, client

IN, OUT = CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_OUTPUT
BROWSE, INQ = CMQC.MQOO_BROWSE, CMQC.MQOO_INQUIRE


def _raises(reason, comp=CMQC.MQCC_FAILED):
    class _Ctx:
        def __enter__(self):
            return self

        def __exit__(self, et, e, tb):
            assert isinstance(e, mqpy.MQMIError), f"expected {lookup('MQRC_', reason)}, got {e!r}"
            assert (e.comp, e.reason) == (comp, reason), str(e)
            return True

    return _Ctx()


def _workload(qm: mqpy.QueueManager, qname: str) -> list:
    """One program's view of a queue manager: the results it observes, in order."""
    seen = []
    q = mqpy.Queue(qm, qname, IN | OUT | BROWSE | INQ)
    q.put(b"first", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.put(b"second", mqpy.MD(Priority=9), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    seen.append(q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    qm.commit()
    seen.append(q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    seen.append(q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)))
    md = mqpy.MD()
    seen.append(q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)))
    seen.append(md.Priority)
    qm.backout()
    seen.append(q.get(None, mqpy.MD(), mqpy.GMO()))
    md = mqpy.MD()
    try:
        q.get(3, md)
    except mqpy.MQMIError as e:
        seen.append((e.comp, e.reason, e.original_length, md.Persistence))
    seen.append(q.get(None))
    try:
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=50))
    except mqpy.MQMIError as e:
        seen.append(e.reason)
    seen.append(qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip())
    q.close()
    return seen


def test_put_get_commit_browse_inquire_over_bindings(running):
    """Given QM1 started by strmqm, when a program in another process connects with
    mqpy.connect('QM1'), then put, get, commit, backout, browse, truncation, a timed wait and
    MQINQ behave as the MQI says."""
    qm = mqpy.connect(QM)
    try:
        assert isinstance(qm.connection(), bindings.BindingsConnection)
        seen = _workload(qm, "Q1")
    finally:
        qm.disconnect()
    assert seen == [2, 2, b"second", b"second", 9, b"second",
                    (CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED, 5, 1), b"first",
                    CMQC.MQRC_NO_MSG_AVAILABLE, b"QM1"]


def test_the_same_program_works_embedded_and_over_bindings(running, tmp_path):
    """Given one program, when it runs against an embedded queue manager and against the
    daemon, then it observes the same results."""
    root = str(tmp_path / "embedded")
    emb = mqpy.embedded(QM, data_path=root)
    try:
        inprocess.running(QM, root).define("QLOCAL", "Q2", {})
        embedded_seen = _workload(emb, "Q2")
    finally:
        inprocess.stop(QM, root)
    qm = mqpy.connect(QM)
    try:
        assert _workload(qm, "Q2") == embedded_seen
    finally:
        qm.disconnect()


def test_put_warnings_and_inquire_failures_keep_their_codes(running):
    """Given priority 12 (above MAXPRTY) and a bad selector, when called over bindings, then the
    put completes with MQCC_WARNING 2049 and MQINQ fails with 2067, as in embedded mode."""
    qm = mqpy.connect(QM)
    try:
        q = mqpy.Queue(qm, "Q3", OUT | INQ)
        with _raises(CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM, CMQC.MQCC_WARNING):
            q.put(b"x", mqpy.MD(Priority=12))
        with _raises(CMQC.MQRC_SELECTOR_ERROR):
            q.inquire(99999)
        with _raises(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
            mqpy.Queue(qm, "NO.SUCH.QUEUE", OUT)
    finally:
        qm.disconnect()


def test_a_message_longer_than_any_queue_manager_takes_is_2031_and_the_connection_lives(
        running):
    """Given messages longer than 100 MB (MAXMSGL's largest value), by a byte and by a MB
    (more than the bindings socket takes in one flow), when MQPUT and MQPUT1 send them over
    bindings, then each fails MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031) and the connection still
    serves the next call (spec: the engine issue, 'message longer than
    MAXMSGL')."""
    qm = mqpy.connect(QM)
    try:
        q = mqpy.Queue(qm, "Q3", OUT)
        for beyond in (1, 1 << 20):
            too_long = bytes(bindings.MAX_MSG_SIZE + beyond)
            with _raises(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR):
                q.put(too_long)
            with _raises(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR):
                qm.put1("Q3", too_long)
            del too_long
            q.put(b"still connected")
    finally:
        qm.disconnect()


def test_a_waiting_get_is_woken_by_a_put_from_another_process(running):
    """Given a get waiting up to 20 s, when another client process puts a message, then the get
    returns it at once, long before the interval ends."""
    qm = mqpy.connect(QM)
    try:
        q = mqpy.Queue(qm, "WAITQ", IN)
        putter = client(running, "import time, mqpy; time.sleep(0.5); "
                                 "mqpy.connect('QM1').put1('WAITQ', b'wake up')")
        start = time.monotonic()
        got = q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000))
        elapsed = time.monotonic() - start
        assert putter.wait(30) == 0, putter.stderr.read()
    finally:
        qm.disconnect()
    assert got == b"wake up"
    assert elapsed < 10


def test_two_hundred_concurrent_connections(running):
    """Given 200 threads each with its own connection, when each puts and gets under
    syncpoint at the same time, then every call succeeds and every message is accounted for."""
    errors = []
    barrier = threading.Barrier(200)

    def worker(i: int) -> None:
        try:
            qm = mqpy.connect(QM)
            barrier.wait(30)
            q = mqpy.Queue(qm, "CONCQ", IN | OUT)
            q.put(f"m{i}".encode(), mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            qm.commit()
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT,
                                            WaitInterval=10000))
            qm.commit()
            qm.disconnect()
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a connection's calls were not all answered"
    assert errors == []
    qm = mqpy.connect(QM)
    try:
        assert mqpy.Queue(qm, "CONCQ", INQ).inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    finally:
        qm.disconnect()


def _kill_holder(running, then: str, settle: float = 0.0) -> None:
    """A client process that got KILLQ's message under syncpoint and then runs ``then``
    (Python lines that print one line when it is where the test wants it), SIGKILLed
    ``settle`` seconds after that line."""
    proc = client(running, (
        "import time, mqpy; from mqpy import CMQC\n"
        "qm = mqpy.connect('QM1')\n"
        "q = mqpy.Queue(qm, 'KILLQ', CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)\n"
        "q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))\n" + then))
    try:
        assert proc.stdout.readline().strip(), proc.stderr.read()
        time.sleep(settle)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()


def _back_on_killq(setup, text: bytes, within_ms: int) -> mqpy.Queue:
    q = mqpy.Queue(setup, "KILLQ", IN)
    got = q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=within_ms))
    assert got == text
    return q


def test_a_client_killed_mid_unit_of_work_has_its_work_backed_out(running):
    """Given a client process that got one message and put another under syncpoint, when it is
    SIGKILLed before committing, then its get is undone and its put never appears."""
    setup = mqpy.connect(QM)
    setup.put1("KILLQ", b"original")
    try:
        _kill_holder(running, (
            "q.put(b'uncommitted', mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))\n"
            "print('in unit of work', flush=True)\n"
            "time.sleep(60)\n"))
        q = _back_on_killq(setup, b"original", 5000)
        with _raises(CMQC.MQRC_NO_MSG_AVAILABLE):
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300))
    finally:
        setup.disconnect()


def test_a_client_killed_while_its_get_waits_is_backed_out_at_once(running):
    """Given a client process that got a message under syncpoint and now waits up to 60 s in
    an MQGET on an empty queue, when it is SIGKILLed during the wait, then the queue manager
    notices at once (the socket is watched while a get waits): the message it got is back
    well before the wait would have ended."""
    setup = mqpy.connect(QM)
    setup.put1("KILLQ", b"held by a waiter")
    try:
        _kill_holder(running, (
            "w = mqpy.Queue(qm, 'WAITQ', CMQC.MQOO_INPUT_AS_Q_DEF)\n"
            "print('waiting', flush=True)\n"
            "w.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=60000))\n"),
            settle=0.3)  # into the wait
        _back_on_killq(setup, b"held by a waiter", 10000)
    finally:
        setup.disconnect()


def test_in_doubt_units_of_work_are_prepared_and_resolved_over_bindings(running):
    """Given a put under syncpoint prepared under a LUWID through the SPI segment, when the
    LUWID is listed and resolved with commit, then the message becomes available."""
    qm = mqpy.connect(QM)
    try:
        conn = qm.connection()
        mqpy.Queue(qm, "Q4", OUT).put(b"batch", mqpy.MD(),
                                      mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        conn.prepare(b"LUW00001")
        assert b"LUW00001" in conn.indoubt()
        conn.resolve(b"LUW00001", True)
        assert b"LUW00001" not in conn.indoubt()
        assert mqpy.Queue(qm, "Q4", IN).get(None) == b"batch"
    finally:
        qm.disconnect()


def test_garbage_on_the_socket_drops_only_that_connection(running):
    """Given a peer that writes bytes that are not a TSH, when it does, then the queue manager
    closes that connection and keeps serving others."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with bindings.bind_address(bindings.socket_path(running.qmdir())) as address:
        s.connect(address)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    s.settimeout(10)
    assert s.recv(100) == b""
    s.close()
    qm = mqpy.connect(QM)
    qm.disconnect()


def test_a_queue_manager_that_is_not_running_is_not_available(install):
    """Given QM1 created but not started, when an application connects, then 2059."""
    install.create(queues=())
    with _raises(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        mqpy.connect(QM)


@pytest.mark.parametrize("name", ["", "NOSUCH"])
def test_connecting_without_a_known_queue_manager_fails(install, name):
    """Given no default queue manager, or an unknown name, when connecting, then the MQI
    fails (2058 without a name, 2059 for a queue manager nobody serves)."""
    reason = CMQC.MQRC_Q_MGR_NAME_ERROR if not name else CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    with _raises(reason):
        mqpy.connect(name)


def test_the_daemon_runs_the_command_server(running):
    """Given QM1 started by strmqm, when a PCF PING_Q_MGR is put to
    SYSTEM.ADMIN.COMMAND.QUEUE over bindings, then a PCF response comes back on the reply
    queue: the daemon runs the command server."""
    from mqpy import CMQCFC, pcf
    from mqpy.structs.tables import CFH

    qm = mqpy.connect(QM)
    try:
        request = pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_PING_Q_MGR)))
        md = mqpy.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"Q5")
        qm.put1("SYSTEM.ADMIN.COMMAND.QUEUE", request, md)
        reply = mqpy.Queue(qm, "Q5", IN).get(
            None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000))
        header = pcf.parse(reply).header
        assert (header.Type, header.Command, header.CompCode) == (
            CMQCFC.MQCFT_RESPONSE, CMQCFC.MQCMD_PING_Q_MGR, CMQC.MQCC_OK)
    finally:
        qm.disconnect()
