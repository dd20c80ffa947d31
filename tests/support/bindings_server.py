"""A BindingsServer for an engine of this process, served by a trio loop on a thread of its
own: what a test that looks at both ends of the bindings socket connects to."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

import trio

from mqpy.bindings_listener import BindingsServer
from mqpy.engine.qmgr import QueueManagerEngine


@contextlib.contextmanager
def serving(engine) -> Iterator[BindingsServer]:
    """Serve ``engine``'s socket (``<qmgr dir>/qm.sock``) until the block ends; the server."""
    server = BindingsServer(engine)
    started = threading.Event()
    box: dict = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            box["token"], box["scope"] = trio.lowlevel.current_trio_token(), nursery.cancel_scope
            await nursery.start(server.run)
            started.set()

    loop = threading.Thread(target=trio.run, args=(main,))
    loop.start()
    assert started.wait(10)
    try:
        yield server
    finally:
        trio.from_thread.run_sync(box["scope"].cancel, trio_token=box["token"])
        loop.join(10)


@contextlib.contextmanager
def serving_with_faults(root: str) -> Iterator[tuple[BindingsServer, list[BaseException]]]:
    """Queue manager QM (with a local queue Q) in ``root``, served as :func:`serving` serves
    it, and the faults its server reports (``on_unexpected``) instead of writing FDCs; the
    engine is closed at the end."""
    engine = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
    engine.define("QLOCAL", "Q", {})
    faults: list[BaseException] = []
    try:
        with serving(engine) as server:
            server.on_unexpected = faults.append
            yield server, faults
    finally:
        engine.close()
