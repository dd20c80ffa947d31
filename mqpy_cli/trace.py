"""strmqtrc, endmqtrc, dspmqtrc: IBM's trace control commands (see mqpy/trace.py).

    strmqtrc [-m QMgrName] [-e] [-t TraceType]... [-x TraceType]... [-l MaxSize]
             [-p Apps] [-i Pids] [-s]
    endmqtrc [-m QMgrName] [-p Apps] [-i Pids] [-e] [-a]
    dspmqtrc [-h] [-o OutputFile] InputFile...
"""

from __future__ import annotations

import glob
import os
import sys

import click

from mqpy import trace
from mqpy_cli.control import RC_INVALID_PARAMETER, _data_path, _err

_SETTINGS = {"help_option_names": ["-?", "--help"]}


def _listed(values: tuple[str, ...]) -> tuple[str, ...]:
    """Repeated options and comma-separated lists alike (IBM accepts both)."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _pids(values: tuple[str, ...]) -> tuple[int, ...]:
    """-i PidTids: "pid" or "pid.tid" (threads are not told apart here: the process is)."""
    try:
        return tuple(int(v.split(".")[0]) for v in _listed(values))
    except ValueError:
        raise click.UsageError(f"-i takes process ids, not {' '.join(values)!r}") from None


@click.command(context_settings=_SETTINGS)
@click.option("-m", "qmgr", default=None, help="Queue manager to trace (* and ? wildcards).")
@click.option("-e", "early", is_flag=True, help="Trace every process from its start.")
@click.option("-t", "types", multiple=True, help="Trace type (api, parms, timing, all ...).")
@click.option("-x", "exclude", multiple=True, help="Trace type to leave out.")
@click.option("-l", "max_size", type=click.IntRange(1, 2048), default=None,
              help="MB a trace file reaches before it becomes AMQ<pid>.TRS.")
@click.option("-p", "apps", multiple=True, help="Trace only these programs (wildcards).")
@click.option("-i", "pids", multiple=True, help="Trace only these process ids.")
@click.option("-s", "report", is_flag=True, help="Report the tracing in effect.")
@_data_path
def strmqtrc(qmgr: str | None, early: bool, types: tuple[str, ...],
             exclude: tuple[str, ...], max_size: int | None, apps: tuple[str, ...],
             pids: tuple[str, ...], report: bool, data_path: str | None) -> None:
    """Start trace (or, with -s, report the tracing in effect)."""
    if report:
        specs = trace.read_specs(data_path)
        if not specs:
            click.echo("Tracing is not enabled.")
        for spec in specs:
            click.echo(f"Tracing is enabled: {spec.describe()}")
        return
    if early and qmgr:
        raise click.UsageError("-e cannot be used with -m")
    kinds, left_out = _listed(types) or ("all",), _listed(exclude)
    unknown = [k for k in (*kinds, *left_out) if k not in trace.TRACE_TYPES]
    if unknown:
        raise click.UsageError(f"unknown trace type {unknown[0]!r}; the types are "
                               + ", ".join(trace.TRACE_TYPES))
    spec = trace.TraceSpec(qmgr=qmgr, early=early, types=kinds, exclude=left_out,
                           max_size_mb=max_size, apps=_listed(apps), pids=_pids(pids))
    try:
        trace.start(spec, data_path)
    except ValueError as e:
        _err(f"strmqtrc: {e}; end one with endmqtrc first.")
        sys.exit(RC_INVALID_PARAMETER)
    except OSError as e:
        _err(f"strmqtrc: cannot write {trace.trace_dir(data_path)}: {e.strerror}.")
        sys.exit(RC_INVALID_PARAMETER)


@click.command(context_settings=_SETTINGS)
@click.option("-m", "qmgr", default=None, help="End tracing of this queue manager (as given "
              "to strmqtrc, wildcards included).")
@click.option("-p", "apps", multiple=True, help="End tracing of these programs.")
@click.option("-i", "pids", multiple=True, help="End tracing of these process ids.")
@click.option("-e", "early", is_flag=True, help="End early tracing (the default).")
@click.option("-a", "everything", is_flag=True, help="End all tracing.")
@_data_path
def endmqtrc(qmgr: str | None, apps: tuple[str, ...], pids: tuple[str, ...], early: bool,
             everything: bool, data_path: str | None) -> None:
    """End trace: only the tracing its parameters describe; no parameters, early tracing."""
    if everything and (qmgr or apps or pids or early):
        raise click.UsageError("-a must be specified alone")
    if early and (qmgr or apps or pids):
        raise click.UsageError("-e cannot be used with -m, -p or -i")
    try:
        trace.end(qmgr=qmgr, apps=_listed(apps), pids=_pids(pids), early=early,
                  everything=everything, root=data_path)
    except OSError as e:
        _err(f"endmqtrc: cannot write {trace.trace_dir(data_path)}: {e.strerror}.")
        sys.exit(RC_INVALID_PARAMETER)


@click.command(context_settings=_SETTINGS)
@click.option("-h", "no_header", is_flag=True, help="Leave out the file header.")
@click.option("-o", "output", type=click.Path(dir_okay=False), default=None,
              help="Write the formatted trace here.")
@click.argument("files", nargs=-1)
@_data_path
def dspmqtrc(no_header: bool, output: str | None, files: tuple[str, ...],
             data_path: str | None) -> None:
    """Format trace files (default: every AMQ*.TRC in the trace directory)."""
    paths = list(files) or sorted(glob.glob(os.path.join(trace.trace_dir(data_path),
                                                         "AMQ*.TR[CS]")))
    if not paths:
        _err("dspmqtrc: no trace files.")
        sys.exit(RC_INVALID_PARAMETER)
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    failed = False
    try:
        for path in paths:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    if len(paths) > 1:
                        out.write(f"==> {path} <==\n")
                    for line in trace.format_records(f, header=not no_header):
                        out.write(line + "\n")
            except BrokenPipeError:
                raise
            except OSError as e:
                _err(f"dspmqtrc: cannot read {path}: {e.strerror}.")
                failed = True
    except BrokenPipeError:  # dspmqtrc | head
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more to flush
        return
    finally:
        if output:
            out.close()
    if failed:
        sys.exit(RC_INVALID_PARAMETER)
