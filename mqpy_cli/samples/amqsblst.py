"""amqsblst: a quick throughput check, putting and getting a number of messages and printing
the rate (IBM's sample AMQSBLST; its arguments: queue manager first, then the queue).

    amqsblst QMGR QUEUE [-W] [-R] [-s SIZE[,SIZE...]] [-c COUNT] [-u UOW] [-v]

-W writes, -R reads (neither: both, writing first); -s gives the message sizes in bytes,
used in turn (default 1024); -c the number of messages (default 1000); -u commits every UOW
messages (default: no syncpoint). The summary lines are mqpy's (IBM's wording is not
documented).
"""

from __future__ import annotations

import time

import click

import mqpy
from mqpy import CMQC
from mqpy_cli.samples import close, connect, open_queue, run_command

MAX_SIZE = 262144  # IBM's range for -s: 1 - 262144
_READ_WAIT_MS = 5000  # how long a read waits for the next message


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",") if s]
    except ValueError:
        raise click.BadParameter(f"not a list of sizes: {text}") from None
    if not sizes or any(not 1 <= s <= MAX_SIZE for s in sizes):
        raise click.BadParameter(f"sizes must be in the range 1-{MAX_SIZE}")
    return sizes


def _write(qm: mqpy.QueueManager, q: mqpy.Queue, count: int, sizes: list[int], uow: int,
           verbose: bool) -> int:
    """Put ``count`` messages; the number put (fewer when a put fails)."""
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT if uow else CMQC.MQPMO_NO_SYNCPOINT)
    for n in range(count):
        size = sizes[n % len(sizes)]
        try:
            q.put(b"B" * size, mqpy.MD(), pmo)
            if uow and (n + 1) % uow == 0:
                qm.commit()
        except mqpy.MQMIError as e:
            click.echo(f"MQPUT ended with reason code {e.reason}")
            return n
        if verbose:
            click.echo(f"put message {n + 1} of {size} bytes")
    if uow:
        qm.commit()
    return count


def _read(qm: mqpy.QueueManager, q: mqpy.Queue, count: int, uow: int, verbose: bool) -> int:
    """Get up to ``count`` messages; the number got (fewer when the queue runs dry)."""
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
                   | (CMQC.MQGMO_SYNCPOINT if uow else CMQC.MQGMO_NO_SYNCPOINT),
                   WaitInterval=_READ_WAIT_MS)
    for n in range(count):
        try:
            data = q.get(MAX_SIZE, mqpy.MD(), gmo)
            if uow and (n + 1) % uow == 0:
                qm.commit()
        except mqpy.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                click.echo(f"MQGET ended with reason code {e.reason}")
            if uow:
                qm.commit()
            return n
        if verbose:
            click.echo(f"got message {n + 1} of {len(data)} bytes")
    if uow:
        qm.commit()
    return count


def _rate(verb: str, done: int, seconds: float) -> str:
    rate = done / seconds if seconds > 0 else 0.0
    return f"{verb} {done} messages in {seconds:.3f} seconds ({rate:.0f} messages/second)"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qmgr")
@click.argument("queue")
@click.option("-W", "write", is_flag=True, help="Write messages to the queue.")
@click.option("-R", "read", is_flag=True, help="Read messages from the queue.")
@click.option("-s", "sizes", default="1024", help="Comma-separated message sizes (bytes).")
@click.option("-c", "count", type=click.IntRange(1), default=1000, help="Message count.")
@click.option("-u", "uow", type=click.IntRange(0), default=0, help="Unit of work size.")
@click.option("-v", "verbose", is_flag=True, help="A line for every message.")
def amqsblst(qmgr: str, queue: str, write: bool, read: bool, sizes: str, count: int,
             uow: int, verbose: bool) -> None:
    """Blast messages to and from a queue and print the rates."""
    sizes_list = _sizes(sizes)
    if not write and not read:
        write = read = True
    click.echo("Sample AMQSBLST start")
    qm = connect(qmgr)
    if isinstance(qm, int):
        raise SystemExit(qm)
    options = (CMQC.MQOO_OUTPUT if write else 0) | (CMQC.MQOO_INPUT_AS_Q_DEF if read else 0)
    q = open_queue(qm, queue, options | CMQC.MQOO_FAIL_IF_QUIESCING,
                   "output" if not read else "input" if not write else "input and output")
    if q is not None:
        if write:
            start = time.perf_counter()
            done = _write(qm, q, count, sizes_list, uow, verbose)
            click.echo(_rate("wrote", done, time.perf_counter() - start))
        if read:
            start = time.perf_counter()
            done = _read(qm, q, count, uow, verbose)
            click.echo(_rate("read", done, time.perf_counter() - start))
    close(qm, q)
    click.echo("Sample AMQSBLST end")


def main(argv: list[str]) -> int:
    """amqsblst with ``argv``: its exit code."""
    return run_command(amqsblst, argv)
