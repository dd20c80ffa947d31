"""The mqweb server process: ``python -m mqpy_cli.web.server --data-path DIR``, as strmqweb
starts it. hypercorn serves the application with its trio worker on the configured address
(HTTPS from the key repository's cert.pem and key.pem when one is named); SIGTERM or SIGINT
end it cleanly, and its pid file goes with it."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sys

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from mqpy_cli.web import app, config
from mqpy_cli.web.config import SERVER_MODULE as SERVER_MODULE


def hypercorn_config(cfg: config.WebConfig) -> Config:
    hc = Config()
    host = f"[{cfg.host}]" if ":" in cfg.host else cfg.host
    hc.bind = [f"{host}:{cfg.port}"]
    hc.accesslog = None
    hc.errorlog = "-"
    hc.graceful_timeout = 2.0
    if cfg.tls:
        hc.certfile = os.path.join(cfg.key_repository, "cert.pem")
        hc.keyfile = os.path.join(cfg.key_repository, "key.pem")
    return hc


async def _until_signalled() -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            return


async def _serve(cfg: config.WebConfig, pid_file: str) -> None:
    """Serve until signalled; the pid file is written once the address is bound, so that
    strmqweb, which waits for it, knows the server is there."""
    async with trio.open_nursery() as nursery:
        await nursery.start(functools.partial(
            serve, app.build(cfg), hypercorn_config(cfg), shutdown_trigger=_until_signalled,
            mode="asgi"))
        with open(pid_file, "w") as f:
            f.write(f"{os.getpid()}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mqweb")
    parser.add_argument("--data-path", default=None)
    args = parser.parse_args(argv)
    cfg = config.load(args.data_path)
    os.environ["MQPY_DATA_PATH"] = cfg.data_path
    pid_file = config.pid_path(cfg.data_path)
    try:
        trio.run(_serve, cfg, pid_file)
    finally:
        with contextlib.suppress(OSError):
            with open(pid_file) as f:
                mine = f.read().strip() == str(os.getpid())
            if mine:
                os.unlink(pid_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
