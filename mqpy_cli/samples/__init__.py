"""IBM MQ's sample programs (amqsput, amqsget, amqsbcg, amqsreq, amqsevt, amqsblst) as
commands, with IBM's console lines: an MQI call that fails prints the sample's
``<CALL> ended with reason code <n>`` line instead of raising.

Each module has ``main(argv) -> int`` (what the tests call) and a console-script entry point
of the sample's name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

import mqpy

#: IBM's samples exit 99 when the queue name is missing
RC_MISSING_PARAMETER = 99


def entry_point(main: Callable[[list[str]], int]) -> Callable[[], None]:
    """The console script of a sample whose work is ``main(argv)``."""

    def run() -> None:
        sys.exit(main(sys.argv[1:]))

    run.__doc__ = main.__doc__
    return run


def queue_and_connection(argv: list[str]) -> tuple[str, mqpy.QueueManager] | int:
    """QUEUE [QMGR] from ``argv`` and a connection to the queue manager; or the exit code
    after IBM's line (99: no queue named; the MQCONNX reason)."""
    if not argv:
        print("Required parameter missing - queue name")
        return RC_MISSING_PARAMETER
    qm = connect(argv[1] if len(argv) > 1 else "")
    return qm if isinstance(qm, int) else (argv[0], qm)


def run_command(command: click.Command, argv: list[str]) -> int:
    """A click-made sample run with ``argv``: its exit code."""
    try:
        command.main(args=argv, prog_name=command.name, standalone_mode=False)
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def connect(qmgr: str, call: str = "MQCONNX") -> mqpy.QueueManager | int:
    """A connection to ``qmgr`` (blank: the default queue manager), or the reason code
    after printing ``MQCONNX ended with reason code <n>`` as IBM's samples do."""
    try:
        return mqpy.connect(qmgr)
    except mqpy.MQMIError as e:
        print(f"{call} ended with reason code {e.reason}", flush=True)
        return e.reason


def open_queue(qm: mqpy.QueueManager, target: str | mqpy.OD, options: int,
               purpose: str) -> mqpy.Queue | None:
    """The queue opened with ``options``, or None after IBM's two lines: the MQOPEN reason
    and ``unable to open queue for <purpose>``."""
    try:
        return mqpy.Queue(qm, target, options)
    except mqpy.MQMIError as e:
        print(f"MQOPEN ended with reason code {e.reason}")
        print(f"unable to open queue for {purpose}", flush=True)
        return None


def close(qm: mqpy.QueueManager, *queues: mqpy.Queue | None) -> None:
    """MQCLOSE each queue and MQDISC, printing the reason of any that fails."""
    for q in queues:
        if q is None:
            continue
        try:
            q.close()
        except mqpy.MQMIError as e:
            print(f"MQCLOSE ended with reason code {e.reason}")
    try:
        qm.disconnect()
    except mqpy.MQMIError as e:
        print(f"MQDISC ended with reason code {e.reason}")
