"""A bindings application's PCFExecute collected while connected: its reply queue's MQCLOSE
and, when it made the connection, its MQDISC are never made by the collector's finalizer,
which may run on a thread inside a call on the same connection (its lock held); as pymqi's,
the reply queue is closed (a temporary dynamic queue: then deleted) and a connection
PCFExecute made is ended."""

from __future__ import annotations

import gc

import pytest

import mqpy
from mqpy import CMQC
from tests.daemon.test_bindings_collected_handles import _collect_inside_the_next_call
from tests.pcf_execute.conftest import in_a_cycle
from tests.support.installation import QM, Installation, client, started
from tests.support.waiting import came_true


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    inst = Installation(str(tmp_path_factory.mktemp("pcfcollected")))
    inst.create(queues=("COLLECTED.Q",))
    yield from started(inst)


def _exists(qm: mqpy.QueueManager, name: bytes) -> bool:
    try:
        mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE).close()
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME, e
        return False
    return True


def _pcf_left_in_a_cycle(qm: object) -> bytes:
    """A PCFExecute of ``qm`` (a QueueManager, or a name to connect to) only the collector
    can free; its reply queue's name."""
    pcf = mqpy.PCFExecute(qm)
    name = pcf.reply_queue_name
    in_a_cycle(pcf)
    return name


def test_a_shared_connection_collected_during_its_own_call(running):
    """Given a PCFExecute of the program's bindings connection left in a reference cycle,
    when the collector runs inside a call on that connection, then the call completes, the
    call after it closes the reply queue (deleted), and the connection stays the program's."""
    qm, watcher = mqpy.connect(QM), mqpy.connect(QM)
    name = _pcf_left_in_a_cycle(qm)
    assert _exists(watcher, name)
    _collect_inside_the_next_call(qm)
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)  # the next call closes it
    assert not _exists(watcher, name)
    qm.disconnect()
    watcher.disconnect()


def test_its_own_connection_collected_during_another_call(running):
    """Given a PCFExecute that connected itself (bindings) left in a reference cycle, when
    the collector runs inside a call on another connection of the program, then that call
    completes, and the PCFExecute's reply queue is deleted and its connection ended soon
    after, with no further call of the program."""
    qm, watcher = mqpy.connect(QM), mqpy.connect(QM)
    name = _pcf_left_in_a_cycle(QM)
    assert _exists(watcher, name)
    _collect_inside_the_next_call(qm)
    assert came_true(lambda: not _exists(watcher, name))
    qm.disconnect()
    watcher.disconnect()


def test_let_go_by_its_last_reference_its_reply_queue_is_closed_at_once(running):
    """Given a PCFExecute of the program's bindings connection, when the program lets go of
    it (``del``), then its reply queue is deleted before ``del`` returns, as pymqi's."""
    qm = mqpy.connect(QM)
    pcf = mqpy.PCFExecute(qm)
    name = pcf.reply_queue_name
    assert _exists(qm, name)
    del pcf
    assert not _exists(qm, name)
    qm.disconnect()


def test_collected_on_the_programs_own_thread_it_ends_its_connection(running):
    """Given a PCFExecute that connected itself, when the program runs the collector
    between calls, then its connection is ended as pymqi's PCFExecute ends it."""
    watcher = mqpy.connect(QM)
    name = _pcf_left_in_a_cycle(QM)
    assert _exists(watcher, name)
    gc.collect()
    assert came_true(lambda: not _exists(watcher, name))
    watcher.disconnect()


_LEFT_AT_EXIT = f"""
import mqpy
from mqpy import CMQC
pcf = mqpy.PCFExecute({QM!r})
pcf.put1("COLLECTED.Q", b"in its unit of work", mqpy.MD(),
         mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
print("left", flush=True)
"""


def test_left_connected_at_exit_its_connection_is_ended_by_mqdisc(running):
    """Given a program whose PCFExecute connected itself and put a message in its unit of
    work, when the program ends without disconnecting, then the PCFExecute's MQDISC is
    made as the interpreter ends (by the ender, or, once the interpreter finalizes and
    daemon threads no longer run, by the finalizer itself): the unit of work is committed,
    as a normal MQDISC commits it (an application that just went has it backed out)."""
    proc = client(running, _LEFT_AT_EXIT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "left" in out, err
    watcher = mqpy.connect(QM)
    queue = mqpy.Queue(watcher, "COLLECTED.Q", CMQC.MQOO_INPUT_SHARED)
    try:
        assert queue.get(None) == b"in its unit of work"
    finally:
        queue.close()
        watcher.disconnect()
