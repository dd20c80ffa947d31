"""Control commands given bad arguments: a clear MQ message (AMQnnnn) and a non-zero exit,
never a Python traceback."""

from __future__ import annotations

import os
import socket

import pytest

from tests.support.installation import Installation, run_chinit


def _refused(proc, msgid: str) -> None:
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert msgid in proc.stdout + proc.stderr


def test_crtmqm_with_a_log_path_that_cannot_be_used_is_amq7064(tmp_path):
    """Given -ld naming a directory that cannot hold logs, then AMQ7064E, exit 100 (IBM's
    'log location invalid'), and no half-made queue manager left behind."""
    inst = Installation(str(tmp_path))
    proc = inst.run("crtmqm", "-ld", "/proc/no/such/dir", "QMX")
    _refused(proc, "AMQ7064E")
    assert proc.returncode == 100
    assert not os.path.exists(inst.qmdir("QMX"))
    assert inst.run("crtmqm", "QMX").returncode == 0


def test_runmqlsr_on_a_port_in_use_is_amq9218(running):
    """Given a port another program listens on, then runmqlsr says AMQ9218E (cannot bind)
    and exits non-zero, without a traceback."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        proc = run_chinit(running, "runmqlsr", "-m", "QM1", "-t", "tcp",
                           "-i", "127.0.0.1", "-p", str(port))
    _refused(proc, "AMQ9218E")


def test_runmqlsr_on_an_address_that_is_no_address_is_amq9218(running):
    proc = run_chinit(running, "runmqlsr", "-m", "QM1", "-t", "tcp", "-i", "999.1.1.1",
                       "-p", "1415")
    _refused(proc, "AMQ9218E")


@pytest.mark.parametrize("port", ["-1", "65536", "99999"])
def test_runmqlsr_port_outside_tcp_ports_is_refused(running, port):
    """Given -p that is no TCP port, then runmqlsr refuses it (IBM: it must not exceed
    65535) rather than listen on another port."""
    proc = run_chinit(running, "runmqlsr", "-m", "QM1", "-t", "tcp", "-p", port)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "AMQ8021I" not in proc.stdout


def test_crtmqm_with_a_log_path_it_cannot_write_is_amq7064(tmp_path):
    """Given -ld naming a directory where no directory can be made (/proc), then AMQ7064E
    and exit 100."""
    inst = Installation(str(tmp_path))
    proc = inst.run("crtmqm", "-ld", "/proc", "QMX")
    _refused(proc, "AMQ7064E")
    assert proc.returncode == 100
    assert not os.path.exists(inst.qmdir("QMX"))


def test_a_byte_that_is_not_utf8_in_the_ini_files_is_kept_not_fatal(tmp_path):
    """Given mqs.ini and qm.ini holding a byte that is not UTF-8 (a comment in another code
    page), when dspmq, strmqm, endmqm and crtmqm (which rewrites mqs.ini) run, then they
    work as with a clean file (MQ reads its ini files as bytes)."""
    inst = Installation(str(tmp_path))
    assert inst.run("crtmqm", "QMA").returncode == 0
    mqs_ini = os.path.join(inst.root, "mqs.ini")
    qm_ini = os.path.join(inst.qmdir("QMA"), "qm.ini")
    for path in (mqs_ini, qm_ini):
        with open(path, "ab") as f:
            f.write(b"# r\xe9sum\xe9 in latin-1\n")
    proc = inst.run("dspmq")
    assert proc.returncode == 0 and "QMNAME(QMA)" in proc.stdout, proc.stdout + proc.stderr
    assert inst.run("strmqm", "QMA").returncode == 0
    assert inst.run("endmqm", "-i", "QMA").returncode == 0
    assert inst.run("crtmqm", "QMB").returncode == 0
    proc = inst.run("dspmq")
    assert "QMNAME(QMA)" in proc.stdout and "QMNAME(QMB)" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
