"""What the tests of a queue manager's end share: client connections with an event handler
(ended at teardown, a reconnecting one stopped), endmqm, the queue manager started again,
and waits on it."""

from __future__ import annotations

import time

import mqpy as pymqi  # the programs are written as pymqi programs are
from mqpy import CMQC, inprocess
from tests.support.site import CHANNEL, QM, QUEUE, Site

_MADE: list[pymqi.QueueManager] = []


def made(qmgr: pymqi.QueueManager) -> pymqi.QueueManager:
    """``qmgr``, ended by :func:`end_connections` at the test's end."""
    _MADE.append(qmgr)
    return qmgr


def end_connections() -> None:
    """The connections a test made, disconnected (a reconnecting one stopped)."""
    while _MADE:
        qmgr = _MADE.pop()
        conn = qmgr.__dict__.get("_conn")
        recon = getattr(conn, "_recon", None)
        try:
            if qmgr.is_connected or recon is not None:
                qmgr.disconnect()
        except (pymqi.MQMIError, pymqi.PYIFError):
            pass
        background = getattr(recon, "background", None)
        if background is not None:
            background.join(10)


def ensure_running(site: Site) -> None:
    """The queue manager started (strmqm) unless it runs, and taking client connections (one
    still ending, a controlled end left by a test, is waited for and started again)."""
    deadline = time.monotonic() + 60
    while True:
        if not running(site):
            proc = site.inst.run("strmqm", QM)
            assert proc.returncode in (0, 5), proc.stdout + proc.stderr
            site._wait_listening()
        try:
            site.client().disconnect()
            return
        except pymqi.MQMIError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def client_ini(tmp_path, monkeypatch, **values: str) -> None:
    lines = "".join(f"   {k}={v}\n" for k, v in values.items())
    path = tmp_path / "mqclient.ini"
    path.write_text("CHANNELS:\n" + lines)
    monkeypatch.setenv("MQCLNTCF", str(path))


def client(site: Site, conn_info: str | None = None, sharecnv: int = 10
           ) -> tuple[pymqi.QueueManager, list[int]]:
    """A pymqi program's client connection with an event handler: the reasons it is told."""
    qmgr = made(pymqi.QueueManager(None))
    qmgr.connect_tcp_client(QM, pymqi.CD(SharingConversations=sharecnv), CHANNEL,
                            conn_info or site.conn_info)
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    return qmgr, events


def endmqm(site: Site, *options: str) -> None:
    proc = site.inst.run("endmqm", *options, QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def came(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def running(site: Site) -> bool:
    return inprocess.is_locked(site.qmdir)


def ended(site: Site, timeout: float) -> bool:
    return came(lambda: not running(site), timeout)


#: mqclient.ini's CHANNELS stanza of a client that reconnects at once
RECONNECTING = "CHANNELS:\n   DefRecon=YES\n   ReconDelay=(200,0)\n"


def ready(site: Site, monkeypatch, tmp_path, ini: str | None = None,  # noqa: ANN001
          mqsc: str = "") -> Site:
    """``site`` running and taking client connections, QUEUE empty (then ``mqsc`` run), and
    this test's clients configured by ``ini`` (mqclient.ini's text; None: no mqclient.ini),
    no MQSERVER or CCDT in the environment."""
    path = tmp_path / "mqclient.ini"
    if ini is not None:
        path.write_text(ini)
    monkeypatch.setenv("MQCLNTCF", str(path))
    for var in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE"):
        monkeypatch.delenv(var, raising=False)
    ensure_running(site)
    site.mqsc_here(f"CLEAR QLOCAL({QUEUE})\n{mqsc}", ok=False)
    return site
