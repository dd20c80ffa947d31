"""The queue manager finds the channel initiator's in-process pieces through its extension
points (``mqpy.extensions``), by name, and goes without a piece nobody installed."""

from __future__ import annotations

from mqpy import extensions


def test_the_cluster_directory_is_found_by_its_name() -> None:
    """Given mqpy_chinit installed, when the queue manager asks for its cluster directory,
    then it gets the channel initiator's cache reader without importing mqpy_chinit itself."""
    directory = extensions.find(extensions.CLUSTER_DIRECTORY)
    assert directory is not None
    assert directory.__module__ == "mqpy_chinit.cluster.directory"


def test_a_name_nobody_installed_finds_nothing() -> None:
    """Given no package naming ``no_such_piece`` in the group, then find says None."""
    assert extensions.find("no_such_piece") is None
