"""What the web console reads besides the REST API: a queue manager's error log (AMQERR01
to 03.LOG, parsed by :mod:`mqpy.errorlog`), newest first, filtered by severity (the AMQ
message id's last letter: I, W, E, S, T); and each local queue's put and get rates, from
the queue manager's resource-statistics publications (:mod:`mqpy_cli.web.resources`)."""

from __future__ import annotations

import datetime
import os

from mqpy import CMQC, CMQCFC, config, pcf
from mqpy.errorlog import parse_log
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer
from mqpy_cli.web.resources import GETS, PUTS, QueueFigures

SEVERITIES = "IWEST"
MAX_ENTRIES = 500


def _utc(when: datetime.datetime) -> str:
    """An entry's time as ISO 8601 UTC to the second (2026-11-28T14:45:30Z)."""
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return when.isoformat(timespec="seconds") + "Z"


def error_log(data_path: str, qmgr: str, severity: str = "") -> list[dict]:
    """The entries of ``qmgr``'s error log whose severity is one of ``severity``'s letters
    (all when empty); 404 for a queue manager not there."""
    if qmgr not in config.list_qmgrs(data_path):
        raise RestError(404, "MQWB0009E", qmgr)
    wanted = set(severity.upper()) & set(SEVERITIES) or set(SEVERITIES)
    folder = os.path.join(config.qmgr_dir(qmgr, data_path), "errors")
    entries = []
    for name in ("AMQERR03.LOG", "AMQERR02.LOG", "AMQERR01.LOG"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                entries.extend(parse_log(f.read(), name))
        except FileNotFoundError:
            continue
    out = []
    for e in reversed(entries):
        level = e.msgid[-1] if e.msgid[-1] in SEVERITIES else "I"
        if level in wanted:
            out.append({"time": _utc(e.timestamp), "msgId": e.msgid,
                        "severity": level, "message": f"{e.msgid}: {e.text}",
                        "explanation": e.explanation, "action": e.action,
                        "program": e.program})
        if len(out) >= MAX_ENTRIES:
            break
    return out


def local_queue_names(server: CommandServer) -> list[str]:
    """The local queues' names (PCF Inquire Queue Names)."""
    names: list[str] = []
    for msg in server.run(CMQCFC.MQCMD_INQUIRE_Q_NAMES, [
            pcf.CFST(CMQC.MQCA_Q_NAME, b"*"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)]):
        names.extend(n.decode("latin-1").rstrip(" \0")
                     for n in msg.get(CMQCFC.MQCACF_Q_NAMES, []) or [])
    return names


def queue_rates(figures: dict[str, QueueFigures]) -> dict[str, dict]:
    """Per queue: MQPUT/MQPUT1 and MQGET per second over the latest publication's interval
    (null before the first), and the counts since the web server began to follow it."""
    return {name: {"putRate": f.rate(PUTS), "getRate": f.rate(GETS),
                   "puts": f.totals.get(PUTS, 0), "gets": f.totals.get(GETS, 0)}
            for name, f in sorted(figures.items())}
