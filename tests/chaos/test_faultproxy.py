"""The chaos run's link does to a connection what each of its faults says: passes it
through, refuses it while cut, holds one direction while partitioned, resets it."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.chaos.faultproxy import LinkProxy

pytestmark = pytest.mark.system


@pytest.fixture
def link():
    """A link to an echo server on 127.0.0.1."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def echo(conn):
        with conn:
            try:
                while data := conn.recv(4096):
                    conn.sendall(data)
            except ConnectionResetError:  # the link's reset reaches this side too
                pass

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=echo, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    proxy = LinkProxy("echo", server.getsockname()[1])
    proxy.start()
    yield proxy
    proxy.stop()
    server.close()


def _connect(link: LinkProxy) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", link.port), timeout=5)
    s.settimeout(5)
    return s


def test_given_no_fault_then_bytes_pass_both_ways(link):
    with _connect(link) as s:
        s.sendall(b"hello")
        assert s.recv(10) == b"hello"


def test_given_a_cut_then_connections_end_until_it_is_over(link):
    with _connect(link) as s:
        s.sendall(b"up")
        assert s.recv(10) == b"up"  # (relayed: the proxy holds it, whatever the load)
        link.cut(3.0)
        assert s.recv(10) == b""  # the current one is closed
    with _connect(link) as s:
        assert s.recv(10) == b""  # a new one is closed at once
    time.sleep(3.1)
    with _connect(link) as s:
        s.sendall(b"again")
        assert s.recv(10) == b"again"


def test_given_a_one_way_partition_then_that_way_waits_until_it_heals(link):
    with _connect(link) as s:
        link.one_way("s2r", 1.0)
        s.sendall(b"held")
        s.settimeout(0.5)
        with pytest.raises(TimeoutError):
            s.recv(10)
        s.settimeout(5)
        assert s.recv(10) == b"held"


def test_given_a_reset_then_the_connection_ends_with_a_reset(link):
    with _connect(link) as s:
        s.sendall(b"x")
        assert s.recv(10) == b"x"
        link.reset()
        with pytest.raises(ConnectionResetError):
            while True:  # the reset reaches the caller (a close first, on some kernels)
                if not s.recv(10):
                    raise ConnectionResetError("closed")
