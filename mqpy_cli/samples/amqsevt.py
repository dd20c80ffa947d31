"""amqsevt: read the messages of event queues and print each event as readable text, or as
JSON with ``-o json`` (IBM's sample AMQSEVT).

    amqsevt [-m QMGR] [-q QUEUE]... [-w SECONDS] [-b] [-o text|json]

Without ``-q`` it reads the standard event queues (SYSTEM.ADMIN.*.EVENT); without ``-w`` it
waits for events until interrupted. ``-b`` browses, leaving the events on their queues.
"""

from __future__ import annotations

import json
import time

import click

import mqpy
from mqpy import CMQC, CMQCFC, constants, pcf
from mqpy_cli.samples import run_command

#: the queues amqsevt reads when none is named (IBM: SYSTEM.ADMIN.*.EVENT)
EVENT_QUEUES = ("SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT",
                "SYSTEM.ADMIN.PERFM.EVENT")
_EVENT_TYPES = {CMQCFC.MQCMD_Q_MGR_EVENT: "Queue Mgr Event",
                CMQCFC.MQCMD_PERFM_EVENT: "Performance Event",
                CMQCFC.MQCMD_CHANNEL_EVENT: "Channel Event"}
_POLL_MS = 200  # each queue is asked in turn this long when several are read
_NAME_FAMILIES = ("MQCA_", "MQCACF_", "MQCACH_", "MQIA_", "MQIACF_", "MQIACH_", "MQBACF_")


def parameter_name(parameter: int) -> str:
    """A PCF parameter's MQ name without its family prefix (MQCA_Q_NAME -> Q_NAME)."""
    for family in _NAME_FAMILIES:
        name = constants.lookup(family, parameter)
        if name is not None:
            return name[len(family):]
    return str(parameter)


def _value(param: pcf.Parameter) -> object:
    value = getattr(param, "value", None)
    if isinstance(value, bytes):
        return value.rstrip(b" \0").decode("utf-8", "replace")
    if isinstance(value, list):
        return [v.rstrip(b" \0").decode("utf-8", "replace") if isinstance(v, bytes) else v
                for v in value]
    return value


def event_record(queue: str, md: mqpy.MD, msg: pcf.PCFMessage) -> dict[str, object]:
    """One event as amqsevt shows it: where it was read, its type, reason, time and data."""
    date, tod = md.PutDate.decode(), md.PutTime.decode()
    return {
        "queue": queue,
        "eventType": {"name": _EVENT_TYPES.get(msg.header.Command, "Event"),
                      "value": msg.header.Command},
        "eventReason": {"name": constants.reason_name(msg.header.Reason),
                        "value": msg.header.Reason},
        "eventCreation": f"{date[:4]}/{date[4:6]}/{date[6:]}  "
                         f"{tod[:2]}:{tod[2:4]}:{tod[4:6]}.{tod[6:]} GMT",
        "eventData": {parameter_name(p.Parameter): _value(p) for p in msg.params},
    }


def format_text(number: int, length: int, record: dict[str, object]) -> list[str]:
    """The text form: a heading naming the message and its queue, then a line a field."""
    etype, reason = record["eventType"], record["eventReason"]
    lines = [f"**** Message #{number} ({length} Bytes) on Queue {record['queue']} ****",
             f"{'Event Type':<33}: {etype['name']} [{etype['value']}]",  # type: ignore[index]
             f"{'Reason':<33}: {reason['name']} [{reason['value']}]",  # type: ignore[index]
             f"{'Event created':<33}: {record['eventCreation']}"]
    for name, value in record["eventData"].items():  # type: ignore[attr-defined]
        lines.append(f"  {name:<31}: {value}")
    return lines + [""]


def _open_all(qm: mqpy.QueueManager, names: tuple[str, ...], browse: bool
              ) -> list[tuple[str, mqpy.Queue]] | None:
    options = (CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_AS_Q_DEF) \
        | CMQC.MQOO_FAIL_IF_QUIESCING
    opened = []
    for name in names:
        try:
            opened.append((name, mqpy.Queue(qm, name, options)))
        except mqpy.MQMIError as e:
            click.echo(f"MQOPEN of {name} ended with reason code {e.reason}")
            return None
    return opened


def _read(queues: list[tuple[str, mqpy.Queue]], wait: int | None, browse: bool,
          fmt: str) -> int:
    """Show every event until none arrives for ``wait`` seconds (None: until interrupted);
    the number shown."""
    shown = 0
    first = {name: True for name, _ in queues}
    idle_since = time.monotonic()
    while wait is None or time.monotonic() - idle_since < wait:
        for name, q in queues:
            gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
                           | CMQC.MQGMO_WAIT | CMQC.MQGMO_CONVERT,
                           WaitInterval=_POLL_MS // len(queues) or 1)
            if browse:
                gmo.Options |= CMQC.MQGMO_BROWSE_FIRST if first[name] else \
                    CMQC.MQGMO_BROWSE_NEXT
            md = mqpy.MD()
            try:
                data = q.get(None, md, gmo)
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    click.echo(f"MQGET ended with reason code {e.reason}")
                    return shown
                continue
            first[name] = False
            shown += 1
            idle_since = time.monotonic()
            _show(shown, name, md, data, fmt)
    return shown


def _show(number: int, queue: str, md: mqpy.MD, data: bytes, fmt: str) -> None:
    try:
        record = event_record(queue, md, pcf.parse(data, md.Encoding))
    except Exception as exc:  # noqa: BLE001 - one malformed message must not end the display
        click.echo(f"**** Message #{number} ({len(data)} Bytes) on Queue {queue} is not an "
                   f"event message: {exc} ****")
        return
    if fmt == "json":
        click.echo(json.dumps(record))
    else:
        click.echo("\n".join(format_text(number, len(data), record)))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-m", "qmgr", default="", help="Queue manager (default: the default one).")
@click.option("-q", "queues", multiple=True, help="An event queue to read (repeatable).")
@click.option("-w", "wait", type=click.IntRange(0), default=None,
              help="End when no event has arrived for this many seconds.")
@click.option("-b", "browse", is_flag=True, help="Browse: leave the events on their queues.")
@click.option("-o", "fmt", type=click.Choice(["text", "json"]), default="text")
def amqsevt(qmgr: str, queues: tuple[str, ...], wait: int | None, browse: bool,
            fmt: str) -> None:
    """Format the instrumentation events of a queue manager."""
    try:
        qm = mqpy.connect(qmgr)
    except mqpy.MQMIError as e:
        click.echo(f"MQCONNX ended with reason code {e.reason}")
        raise SystemExit(e.reason) from None
    opened = _open_all(qm, queues or EVENT_QUEUES, browse)
    try:
        if opened is not None:
            try:
                _read(opened, wait, browse, fmt)
            except KeyboardInterrupt:
                pass
    finally:
        for _, q in opened or ():
            q.close()
        qm.disconnect()


def main(argv: list[str]) -> int:
    """amqsevt with ``argv``: its exit code."""
    return run_command(amqsevt, argv)
