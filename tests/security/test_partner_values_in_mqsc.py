"""What a partner sends is data, never MQSC: a queue-manager name built to close DESCR('...')
and add keywords is stored, quotes and all, as the description of the channel it auto-defines
(CHAD), and the channel's MCAUSER is SYSTEM.AUTO.RECEIVER's."""

from __future__ import annotations

import os
import socket
import time

import pytest

from mqpy.fap.framing import SegmentWriter
from mqpy.fap.initialdata import InitialData
from tests.support.daemon_pair import mqsc
from tests.support.installation import Installation
from tests.support.ports import free_port

pytestmark = pytest.mark.timeout(180)

#: 28 characters: "Auto-defined by " and these fill the 44 characters of DESCR's text
HOSTILE = "x') MCAUSER('mqm') MSGDATA('"


@pytest.fixture(scope="module")
def chad_qmgr(tmp_path_factory):
    """QM1 started by strmqm with its channel initiator, CHAD(ENABLED), CHLAUTH off and a
    listener (CONTROL(QMGR)) on a free port: the port. One for the module: each test calls
    a channel of its own name and looks for that name alone."""
    inst = Installation(str(tmp_path_factory.mktemp("chad")))
    inst.env.pop("MQPY_NO_CHINIT", None)
    port = free_port()
    try:
        inst.create(queues=())
        inst.start()
        out = mqsc(inst, "QM1", f"""
            ALTER QMGR CHAD(ENABLED) CHLAUTH(DISABLED)
            DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
            START LISTENER(L)
        """)
        assert out.returncode == 0, out.stdout
        yield inst, port
    finally:
        inst.kill_all()


def _start_from(port: int, channel: str, qmgr_name: str) -> None:
    """A sending partner's first flow (INITIAL_DATA), then hang up."""
    deadline = time.monotonic() + 60
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            break
        except OSError:
            assert time.monotonic() < deadline, "the listener never listened"
            time.sleep(0.2)
    with sock:
        sock.sendall(SegmentWriter().send(InitialData(fap_level=10, channel_name=channel,
                                                      qmgr_name=qmgr_name)))
        sock.recv(65536)  # its answer: the channel was looked up (and auto-defined) by then


def test_a_partner_name_with_quotes_is_stored_literally_in_descr(chad_qmgr):
    """Given CHAD(ENABLED) at QM1, when a partner calling channel AUTO.X names itself
    x') MCAUSER('mqm') MSGDATA(', then AUTO.X is defined with DESCR starting
    "Auto-defined by x') MCAUSER('mqm') MSGDATA('" and MCAUSER and MSGDATA as
    SYSTEM.AUTO.RECEIVER has them (blank)."""
    inst, port = chad_qmgr
    _start_from(port, "AUTO.X", HOSTILE)
    deadline = time.monotonic() + 60
    while "AMQ8414I" not in (out := mqsc(inst, "QM1", "DISPLAY CHANNEL(AUTO.X) ALL\n")).stdout:
        assert time.monotonic() < deadline, out.stdout
        time.sleep(0.3)
    shown = out.stdout
    assert f"DESCR(Auto-defined by {HOSTILE}" in shown, shown
    assert "MCAUSER( )" in shown and "MSGDATA( )" in shown, shown
    assert "MCAUSER(mqm)" not in shown


def test_a_generic_channel_name_from_a_partner_names_no_channel(chad_qmgr):
    """Given QM1's SYSTEM.AUTO.RECEIVER (a RCVR), when a partner calls channel SYSTEM.AUTO.*,
    then no definition is looked up by that pattern: the channel is not found (AMQ9519E) and
    no instance of it runs, as for any other unknown name."""
    inst, port = chad_qmgr
    _start_from(port, "SYSTEM.AUTO.*", "QMX")
    deadline = time.monotonic() + 60
    while "AMQ9519E: Channel 'SYSTEM.AUTO.*' not found." not in _log(inst):
        assert time.monotonic() < deadline, _log(inst)[-2000:]
        time.sleep(0.3)
    shown = mqsc(inst, "QM1", "DISPLAY CHSTATUS(*)\n").stdout
    assert "SYSTEM.AUTO.*" not in shown, shown


def _log(inst: Installation) -> str:
    with open(os.path.join(inst.qmdir(), "errors", "AMQERR01.LOG"), encoding="latin-1") as f:
        return f.read()
