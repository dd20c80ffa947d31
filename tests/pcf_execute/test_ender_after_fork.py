"""The ender (``mqpy.collected``) after os.fork: a connection handed to the parent's ender
is the parent's; the child never ends it (its MQCLOSE and MQDISC would be written on the
socket the parent still uses)."""

from __future__ import annotations

import os
import sys

import pytest

from mqpy import collected

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")


class _Conn:
    """A connection that says in a pipe when someone ends it, and in which process."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def close(self, hobj: int) -> None:
        os.write(self.fd, b"C%d " % os.getpid())

    def disconnect(self) -> None:
        os.write(self.fd, b"D%d " % os.getpid())


class _Ended:
    def disconnect(self) -> None:
        pass


@pytest.fixture
def no_ender_running():
    """This process's ender stopped (an earlier test of this worker may have started it, and it
    would end the test's connection itself); the next object that connects starts it again."""
    if collected._ender and collected._ender[0].is_alive():
        collected._to_end.put(None)
        collected._ender[0].join(collected.ENDER_EXIT_WAIT_S)
        assert not collected._ender[0].is_alive()


def test_a_child_forked_while_a_connection_waits_for_the_ender_does_not_end_it(
        no_ender_running):
    """Given a collected object's connection queued for the ender but not yet ended (the
    ender not running), when the process forks and the child starts its own ender (its own
    PCFExecute connects), then the child ends nothing of the parent's."""
    read, write = os.pipe()
    conn = _Conn(write)
    collected._to_end.put((conn, (5,)))  # (as ended_later queues it)
    pid = os.fork()
    if pid == 0:  # the child
        try:
            collected.start_ender()
            collected._to_end.put((_Ended(), ()))  # once it is taken, all before it were
            for _ in range(200):
                if collected._to_end.empty():
                    break
                os.sched_yield()
            os.write(write, b"E")
        finally:
            sys.stdout.flush()
            os._exit(0)
    os.waitpid(pid, 0)
    os.close(write)
    said = b""
    while chunk := os.read(read, 1024):
        said += chunk
    os.close(read)
    try:
        assert said.endswith(b"E")
        assert b"%d" % pid not in said, said  # the child ended none of the parent's
    finally:
        while not collected._to_end.empty():  # the parent's own: not this test's to end
            collected._to_end.get_nowait()
