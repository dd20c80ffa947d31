"""The trigger monitor (runmqtrm): start the application a trigger message names.

It gets MQTM trigger messages from an initiation queue, waiting, and for each runs the process
definition's application the way IBM's runmqtrm does on UNIX: the command line is the ApplId,
then the MQTMC2 (the character form of the trigger message) as one quoted argument, then the
EnvData; an EnvData ending in ``&`` runs the application in the background. Each start is logged
on the monitor's output in IBM's layout. The monitor is an ordinary MQI application, so it works
embedded, over bindings and as a client.

No shell runs: IBM's runmqtrm hands ``ApplId "MQTMC2" EnvData`` to ``system()``, so a quote or
a ``$(...)`` in a trigger message's fields is read by the shell; here the ApplId and EnvData are
split into words as a shell would split them (``shlex``) and the MQTMC2 is one argument whatever
it holds, so nothing in a trigger message becomes a command of its own. A trigger message the
monitor cannot use goes to the dead-letter queue with an MQDLH whose Reason says why, as IBM's
runmqtrm does: MQFB_TM_ERROR when it is no MQTM, MQFB_APPL_CANNOT_BE_STARTED when its command
cannot be made (an unbalanced quote, a NUL) or run; the monitor goes on with the next one.
Every field shown on the monitor's output is shown printable (a line break as ``\\n``).
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
from mqpy.engine.reports import build_dead_letter
from mqpy.printable import printable
from mqpy.structs.fields import StructError
from mqpy.structs.tables import TM, TMC2

DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"
RULE = "_" * 78
#: the MQDLH PutApplName of a trigger message the monitor puts on the dead-letter queue
APPL_NAME = b"runmqtrm"
#: what the monitor says of a message on its initiation queue that is no MQTM. IBM documents
#: no AMQ message of runmqtrm for it (only the dead-letter queue and MQFB_TM_ERROR, "How
#: RUNMQTRM detects errors"), and its own output lines carry none ("Waiting for a trigger
#: message"): none here either. AMQ8708 is runmqdlq's start message (``mqpy.dlq.rules``).
NOT_A_TRIGGER_MESSAGE = "Trigger message not in the expected format (no MQTM)."


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
        """Start the application ``data``'s trigger message names; a trigger message that
        cannot be used goes to the dead-letter queue, and the monitor goes on."""
        try:
            if md.Format != CMQC.MQFMT_TRIGGER or len(data) < CMQC.MQTM_LENGTH_1:
                raise StructError("not an MQTM")
            tm = TM().unpack(data)
        except StructError:
            self._say(f"{RULE}\n{NOT_A_TRIGGER_MESSAGE}")
            self._dead_letter(md, data, CMQC.MQFB_TM_ERROR)
            return
        try:
            argv, background = command_for(tm, self.qm.get_name())
        except ValueError as exc:  # shlex: an unbalanced quote in the ApplId or EnvData
            self._cannot_start(md, data, str(exc))
            return
        self._say(f"{RULE}\nDate/Time : {time.strftime('%a %b %d %H:%M:%S %Y')}")
        self._say("Starting application : "
                  + printable(" ".join(shlex.quote(a) for a in argv)))
        try:
            rc = self.runner(argv, background)
        except OSError as exc:
            self._cannot_start(md, data, str(exc.strerror))
            return
        except ValueError as exc:  # a NUL in an argument: no program can be given it
            self._cannot_start(md, data, str(exc))
            return
        self.started += 1
        if rc is not None:
            self._say(f"Application ended with exit status {rc}.")

    def _cannot_start(self, md: mqpy.MD, data: bytes, why: str) -> None:
        self._say(f"{RULE}\nAMQ8756E: Error starting triggered application: "
                  f"{printable(why)}.")
        self._dead_letter(md, data, CMQC.MQFB_APPL_CANNOT_BE_STARTED)

    def _dead_letter(self, md: mqpy.MD, data: bytes, reason: int) -> None:
        """The trigger message, with an MQDLH whose Reason is ``reason``, on the queue
        manager's dead-letter queue; said on the output when there is none or the put fails
        (the message is then lost, as IBM's runmqtrm loses it)."""
        try:
            deadq = self.qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME)
            deadq = deadq.rstrip(b" \x00") if isinstance(deadq, bytes) else \
                str(deadq).strip().encode("latin-1")
            if not deadq:
                self._say("The trigger message was discarded: the queue manager has no "
                          "dead-letter queue.")
                return
            stamp = time.gmtime()
            dmd, body = build_dead_letter(
                md, data, reason, self.initq, self.qm.get_name(), put_appl_name=APPL_NAME,
                put_date=time.strftime("%Y%m%d", stamp).encode(),
                put_time=(time.strftime("%H%M%S", stamp) + "00").encode())
            self.qm.put1(deadq.decode("latin-1"), body, dmd)
        except mqpy.MQMIError as e:
            self._say(f"The trigger message was discarded: its put to the dead-letter queue "
                      f"failed (reason {e.reason}).")
