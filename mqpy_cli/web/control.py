"""strmqweb, endmqweb and dspmqweb: the mqweb server started as a process of its own,
stopped and shown by the pid it records (``<data path>/web/mqweb.pid``), with IBM's messages
and Liberty's server command exit codes (0 done; 1 already running for a start, not running
for a stop or a status; 22 the server could not be started)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import click

from mqpy import config as mqconfig
from mqpy_cli.web import config
from mqpy_cli.web.config import SERVER_MODULE

RC_OK, RC_STATE, RC_FAILED = 0, 1, 22
SERVER = "mqweb"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0

_data_path = click.option("--data-path", default=None, envvar="MQPY_DATA_PATH",
                          help="The installation's data path.")


def _is_server(pid: int, data_path: str) -> bool:
    """Whether ``pid`` is (still) an mqweb server of this data path, not a zombie."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return False
    except (OSError, IndexError):
        return False
    return SERVER_MODULE.encode() in argv and data_path.encode() in argv


def running_pid(data_path: str) -> int | None:
    """The server's pid when its pid file names a live mqweb server of this data path."""
    try:
        with open(config.pid_path(data_path)) as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if _is_server(pid, data_path) else None


def _config(root: str) -> config.WebConfig:
    """mqweb.ini, or the command ends (22) saying what is wrong with it."""
    try:
        return config.load(root)
    except config.ConfigError as e:
        click.echo(f"Server {SERVER} configuration error: {e}", err=True)
        sys.exit(RC_FAILED)


def urls(cfg: config.WebConfig) -> list[str]:
    host = "localhost" if cfg.host in ("127.0.0.1", "localhost", "::1") else cfg.host
    base = f"{cfg.scheme}://{host}:{cfg.port}/ibmmq"
    return [f"{base}/rest/v2/", f"{base}/console/"]


@click.command(context_settings={"help_option_names": ["-h", "-?"]})
@_data_path
def strmqweb(data_path: str | None) -> None:
    """Start the mqweb server (the console, the REST API and /metrics)."""
    root = mqconfig.data_root(data_path)
    click.echo(f"Starting server {SERVER}.")
    _config(root)  # checked before anything is started
    pid = running_pid(root)
    if pid is not None:
        click.echo(f"Server {SERVER} is already running with process ID {pid}.")
        sys.exit(RC_STATE)
    with open(config.log_path(root), "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", SERVER_MODULE, "--data-path", root],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True, env={**os.environ,
                                                             "MQPY_DATA_PATH": root})
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if running_pid(root) == proc.pid:  # written once its address is bound
            click.echo(f"Server {SERVER} started with process ID {proc.pid}.")
            return
        time.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    click.echo(f"Server {SERVER} failed to start. See {config.log_path(root)}.", err=True)
    sys.exit(RC_FAILED)


@click.command(context_settings={"help_option_names": ["-h", "-?"]})
@_data_path
def endmqweb(data_path: str | None) -> None:
    """Stop the mqweb server."""
    root = mqconfig.data_root(data_path)
    click.echo(f"Stopping server {SERVER}.")
    pid = running_pid(root)
    if pid is None:
        click.echo(f"Server {SERVER} is not running.")
        sys.exit(RC_STATE)
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while _is_server(pid, root) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _is_server(pid, root):
        os.kill(pid, signal.SIGKILL)
        while _is_server(pid, root) and time.monotonic() < deadline + STOP_TIMEOUT:
            time.sleep(0.05)
    click.echo(f"Server {SERVER} stopped.")


@click.command(context_settings={"help_option_names": ["-h", "-?"]})
@click.argument("what", required=False, default="status",
                type=click.Choice(["status", "properties"]))
@_data_path
def dspmqweb(what: str, data_path: str | None) -> None:
    """Show the mqweb server's status (its URLs) or its configuration properties."""
    root = mqconfig.data_root(data_path)
    cfg = _config(root)
    if what == "properties":
        click.echo(f"name=value\nhttpHost={cfg.host}\nhttpsPort={cfg.port}\n"
                   f"keyRepository={cfg.key_repository}\nconfigurationFile="
                   f"{config.config_path(root)}\nltpaExpiration={cfg.ltpa_expiration}\n"
                   f"secureLTPA={str(cfg.ltpa_secure).lower()}")
        return
    if running_pid(root) is None:
        click.echo(f"MQWB1125I: Server '{SERVER}' is not running.")
        sys.exit(RC_STATE)
    click.echo(f"MQWB1124I: Server '{SERVER}' is running.\nURLS:")
    for url in urls(cfg):
        click.echo(f"  {url}")
