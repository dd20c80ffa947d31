"""The queue manager finds the channel initiator's in-process pieces through its extension
points (``mqpy.extensions``), by name, and goes without a piece nobody installed."""

from __future__ import annotations

import trio

from mqpy import daemon, errorlog, extensions


def test_the_cluster_directory_is_found_by_its_name() -> None:
    """Given mqpy_chinit installed, when the queue manager asks for its cluster directory,
    then it gets the channel initiator's cache reader without importing mqpy_chinit itself."""
    directory = extensions.find(extensions.CLUSTER_DIRECTORY)
    assert directory is not None
    assert directory.__module__ == "mqpy_chinit.cluster.directory"


def test_a_name_nobody_installed_finds_nothing() -> None:
    """Given no package naming ``no_such_piece`` in the group, then find says None."""
    assert extensions.find("no_such_piece") is None


def test_the_client_host_is_found_by_its_name() -> None:
    """Given mqpy_chinit installed, when the queue manager asks for its FASTPATH client
    host, then it gets the channel initiator's module, with its server and socket name."""
    client_host = extensions.find(extensions.CLIENT_HOST)
    assert client_host is not None
    assert client_host.__name__ == "mqpy_chinit.clienthost"
    assert client_host.SOCKET_NAME == "qm.fastpath.sock"
    assert callable(client_host.ClientHost)


def test_fastpath_without_a_channel_initiator_runs_standard_and_says_so(
        tmp_path, monkeypatch) -> None:
    """Given qm.ini asking for FASTPATH and no channel initiator installed (no client host
    under its name), when the daemon starts its client host, then there is none, and the
    error log says the queue manager runs without FASTPATH."""
    monkeypatch.setattr(extensions, "find", lambda name: None)
    log = errorlog.ErrorLog(str(tmp_path))

    async def start() -> object:
        async with trio.open_nursery() as nursery:
            return await daemon._start_client_host(None, str(tmp_path), log, nursery)

    assert trio.run(start) is None
    with open(log.path, encoding="utf-8") as f:
        text = f.read()
    assert "AMQ9999W" in text and "without FASTPATH" in text
