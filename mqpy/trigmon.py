"""The trigger monitor (runmqtrm): start the application a trigger message names.

It gets MQTM trigger messages from an initiation queue, waiting, and for each runs the process
definition's application the way IBM's runmqtrm does on UNIX: the command line is the ApplId,
then the MQTMC2 (the character form of the trigger message) as one quoted argument, then the
EnvData; an EnvData ending in ``&`` runs the application in the background. Each start is logged
on the monitor's output in IBM's layout. The monitor is an ordinary MQI application, so it works
embedded, over bindings and as a client.
"""

from __future__ import annotations

import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TextIO

import mqpy
from mqpy import CMQC
from mqpy.structs.tables import TM, TMC2

DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"
RULE = "_" * 78


def tmc2_from(tm: TM, qmgr_name: str) -> TMC2:
    """MQTMC2: the MQTM's fields as characters, plus the queue manager's name."""
    tmc = TMC2()
    tmc.QName = tm.QName
    tmc.ProcessName = tm.ProcessName
    tmc.TriggerData = tm.TriggerData
    tmc.ApplType = f"{tm.ApplType:>4}".encode()
    tmc.ApplId = tm.ApplId
    tmc.EnvData = tm.EnvData
    tmc.UserData = tm.UserData
    tmc.QMgrName = qmgr_name.encode("latin-1")
    return tmc


def command_for(tm: TM, qmgr_name: str) -> tuple[list[str], bool]:
    """The command line runmqtrm runs for a trigger message, and whether in the background."""
    appl = tm.ApplId.rstrip(b" \x00").decode("latin-1")
    env = tm.EnvData.rstrip(b" \x00").decode("latin-1").strip()
    background = env.endswith("&")
    if background:
        env = env[:-1].strip()
    tmc = tmc2_from(tm, qmgr_name).pack().decode("latin-1")
    argv = shlex.split(appl) + [tmc] + (shlex.split(env) if env else [])
    return argv, background


Runner = Callable[[list[str], bool], int | None]


def _run(argv: list[str], background: bool) -> int | None:
    proc = subprocess.Popen(argv, start_new_session=background)
    if background:
        return None
    return proc.wait()


class TriggerMonitor:
    def __init__(self, qm: mqpy.QueueManager, initq: str = DEFAULT_INITQ, *,
                 out: TextIO | None = None, runner: Runner = _run) -> None:
        self.qm = qm
        self.initq = initq
        self.out = out
        self.runner = runner
        self.started = 0

    def _say(self, text: str) -> None:
        if self.out is not None:
            self.out.write(text + "\n")
            self.out.flush()

    def serve(self, stop: threading.Event, wait_ms: int = 1000) -> None:
        """Get trigger messages until ``stop`` is set (or the queue manager quiesces)."""
        q = mqpy.Queue(self.qm, self.initq, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_FAIL_IF_QUIESCING)
        self._say("IBM MQ trigger monitor started.")
        try:
            while not stop.is_set():
                gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
                               | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=wait_ms)
                md = mqpy.MD()
                try:
                    data = q.get(None, md, gmo)
                except mqpy.MQMIError as e:
                    if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        continue
                    if e.reason in (CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_CONNECTION_BROKEN,
                                    CMQC.MQRC_Q_MGR_STOPPING):
                        break
                    raise
                self.handle(md, data)
        finally:
            q.close()
            self._say("IBM MQ trigger monitor ended.")

    def handle(self, md: mqpy.MD, data: bytes) -> None:
        if md.Format != CMQC.MQFMT_TRIGGER or len(data) < CMQC.MQTM_LENGTH_1:
            self._say(f"{RULE}\nAMQ8708E: Trigger message not in the expected format; ignored.")
            return
        tm = TM().unpack(data)
        argv, background = command_for(tm, self.qm.get_name())
        self._say(f"{RULE}\nDate/Time : {time.strftime('%a %b %d %H:%M:%S %Y')}")
        self._say(f"Starting application : {' '.join(shlex.quote(a) for a in argv)}")
        try:
            rc = self.runner(argv, background)
        except OSError as exc:
            self._say(f"AMQ8756E: Error starting triggered application: {exc.strerror}.")
            return
        self.started += 1
        if rc is not None:
            self._say(f"Application ended with exit status {rc}.")
