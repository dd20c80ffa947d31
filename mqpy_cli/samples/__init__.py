"""IBM MQ's sample programs as commands, with IBM's console lines: an MQI call that fails
prints the sample's ``<CALL> ended with reason code <n>`` line instead of raising.

Each module has ``main(argv) -> int`` (what the tests call) and a console-script entry point
of the sample's name; a sample IBM also ships linked as a client (amqsputc, amqsgetc, ...)
has a second entry point, ``main(argv, client=True)``, whose MQCONNX asks for a client
connection (MQCNO_CLIENT_BINDING): the channel is found by the client's rules (MQSERVER,
else a CCDT: ``mqpy.client``), never a queue manager of this machine.

What the samples share lives here: the MQSAMP_USER_ID prompt for a password, the MQCONNX,
the MQOPEN and the MQCLOSE / MQDISC with IBM's lines, and IBM's ``atoi`` of an option
argument. Nothing here prints a traceback: a failing call is its reason code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

import mqpy
from mqpy import CMQC

#: IBM's samples exit 99 when the queue name is missing
RC_MISSING_PARAMETER = 99
#: the environment variable naming the user of the samples' MQCSP (IBM's)
ENV_USER_ID = "MQSAMP_USER_ID"


def entry_point(main: Callable[..., int], **options: Any) -> Callable[[], None]:
    """The console script of a sample whose work is ``main(argv, **options)`` (``client=True``
    for the variant IBM links as a client)."""

    def run() -> None:
        sys.exit(main(sys.argv[1:], **options))

    run.__doc__ = main.__doc__
    return run


def atoi(text: str) -> int:
    """An option argument as IBM's samples read it (C's ``atoi``): the leading digits, with
    a sign; 0 when there are none."""
    text = text.lstrip()
    sign, digits = 1, ""
    if text[:1] in ("+", "-"):
        sign, text = (-1 if text[0] == "-" else 1), text[1:]
    for ch in text:
        if not ch.isdigit():
            break
        digits += ch
    return sign * int(digits) if digits else 0


def credentials() -> tuple[str | None, str | None]:
    """The MQCSP of IBM's samples: with MQSAMP_USER_ID set (not empty), its user and the
    password read from standard input after ``Enter password: `` (no echo is turned off,
    as IBM's samples turn none off); otherwise none."""
    user = os.environ.get(ENV_USER_ID, "")
    if not user:
        return None, None
    return user, ask_password()


def ask_password() -> str:
    """``Enter password: `` and the next line of standard input, without its line end."""
    print("Enter password: ", end="", flush=True)
    return sys.stdin.readline().rstrip("\r\n")


def target_and_connection(argv: list[str], *, what: str = "queue name",
                          client: bool = False) -> tuple[str, mqpy.QueueManager] | int:
    """TARGET [QMGR] from ``argv`` (a queue, or the topic string of amqspub / amqssub) and a
    connection to the queue manager (with MQSAMP_USER_ID's credentials); or the exit code
    after IBM's line (99: ``Required parameter missing - <what>``; the MQCONNX reason)."""
    if not argv:
        print(f"Required parameter missing - {what}")
        return RC_MISSING_PARAMETER
    user, password = credentials()
    qm = connect(argv[1] if len(argv) > 1 else "", client=client, user=user,
                 password=password)
    return qm if isinstance(qm, int) else (argv[0], qm)


def run_command(command: click.Command, argv: list[str]) -> int:
    """A click-made sample run with ``argv``: its exit code."""
    try:
        command.main(args=argv, prog_name=command.name, standalone_mode=False)
    except SystemExit as e:
        return int(e.code or 0)
    return 0


#: the line of IBM's samples (most of them) when MQCONN / MQCONNX fails
CONNECT_FAILED = "MQCONNX ended with reason code {reason}"


def connect(qmgr: str, failed: str = CONNECT_FAILED, *, client: bool = False,
            user: str | None = None, password: str | None = None,
            cd: mqpy.CD | None = None) -> mqpy.QueueManager | int:
    """A connection to ``qmgr`` (blank: the default queue manager), or the reason code
    after printing the sample's line, ``failed`` with the MQMIError's ``comp`` and
    ``reason`` (``MQCONNX ended with reason code <n>`` unless the sample words it
    otherwise).

    ``client``: MQCONNX with MQCNO_CLIENT_BINDING, as a sample linked with IBM's client
    library connects (``cd``: an MQCD with the channel and connection name, amqscnxc's
    ClientConnPtr); ``user``: an MQCSP with ``password``."""
    try:
        if not client:
            return mqpy.connect(qmgr, user=user, password=password)
        qm = mqpy.QueueManager(None)
        qm.connect_with_options(qmgr, user=user, password=password, cd=cd,
                                opts=CMQC.MQCNO_CLIENT_BINDING)
        return qm
    except mqpy.MQMIError as e:
        print(failed.format(comp=e.comp, reason=e.reason), flush=True)
        return e.reason


def option_argument(argv: list[str], index: int, label: str, default: int) -> int:
    """The options ``argv[index]`` gives, after IBM's line (``<label> <n>``: ``open  options
    are 8208``), else ``default``."""
    if len(argv) <= index:
        return default
    value = atoi(argv[index])
    print(f"{label} {value}")
    return value


def open_queue(qm: mqpy.QueueManager, target: str | mqpy.OD, options: int,
               purpose: str, kind: str = "queue") -> mqpy.Queue | None:
    """The queue (or topic: ``kind``) opened with ``options``, or None after IBM's two
    lines: the MQOPEN reason and ``unable to open <kind> for <purpose>``."""
    try:
        return mqpy.Queue(qm, target, options)
    except mqpy.MQMIError as e:
        print(f"MQOPEN ended with reason code {e.reason}")
        print(f"unable to open {kind} for {purpose}", flush=True)
        return None


def close(qm: mqpy.QueueManager, *queues: mqpy.Queue | None,
          options: int = CMQC.MQCO_NONE) -> None:
    """MQCLOSE each queue (with ``options``) and MQDISC, printing the reason of any that
    fails."""
    for q in queues:
        if q is None:
            continue
        try:
            q.close(options)
        except mqpy.MQMIError as e:
            print(f"MQCLOSE ended with reason code {e.reason}")
    try:
        qm.disconnect()
    except mqpy.MQMIError as e:
        print(f"MQDISC ended with reason code {e.reason}")
