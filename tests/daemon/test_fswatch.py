"""mqpy.fswatch's wait in a process with many descriptors open (a busy daemon's)."""

import os
import resource
import threading

import pytest

from mqpy import fswatch


@pytest.fixture
def high_descriptor():
    """A descriptor number above select()'s 1024, the soft limit raised to allow it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the descriptor limit ({hard}) allows no descriptor above 1024")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    yield 1500
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_watch_on_a_descriptor_above_1024_still_wakes_for_a_change(tmp_path, high_descriptor):
    """Given a watch whose inotify descriptor is numbered above 1024, when a file is made in
    the watched directory while it waits, then the wait says a change came (select() cannot
    wait on such a descriptor: the wait answered at once that nothing had)."""
    watch = fswatch.open_watch()
    if watch is None:
        pytest.skip("no inotify here")
    os.dup2(watch.fd, high_descriptor)
    os.close(watch.fd)
    watch.fd = high_descriptor
    try:
        assert watch.add(str(tmp_path), fswatch.IN_CREATE)
        maker = threading.Timer(0.2, (tmp_path / "made").touch)
        maker.start()
        assert watch.wait(10.0) is True
        maker.join()
    finally:
        watch.close()
