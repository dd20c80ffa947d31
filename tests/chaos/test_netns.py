"""The chaos run's hosts (tests.chaos.netns): a namespace per queue manager, joined by a veth
pair whose traffic control really acts on TCP into it, and removed even when the test using
them fails."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from tests.chaos.netns import hosts_for, sweep, unavailable
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.system,
              pytest.mark.skipif(bool(unavailable()), reason=unavailable() or "")]

#: an echo server on argv[1]:argv[2], run inside a namespace
_ECHO = """
import socket, sys
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
while True:
    c, _ = s.accept()
    with c:
        while (data := c.recv(65536)):
            c.sendall(data)
"""
PORT = 14140


@pytest.fixture
def echo_host():
    """One namespace with an echo server in it: (hosts, address)."""
    with hosts_for(("QMX",)) as hosts:
        host = hosts["QMX"]
        server = subprocess.Popen(hosts.exec_in("QMX", [sys.executable, "-c", _ECHO, host.addr,
                                                        str(PORT)]))
        try:
            wait_for(lambda: _echo(host.addr, b"x", 1) is not None, 10, "the echo server")
            yield hosts, host.addr
        finally:
            server.kill()
            server.wait(10)


def _echo(addr: str, data: bytes, timeout: float) -> float | None:
    """Seconds for ``data`` to come back from the echo server (None: it did not)."""
    began = time.monotonic()
    try:
        with socket.create_connection((addr, PORT), timeout=timeout) as s:
            s.sendall(data)
            got = b""
            while len(got) < len(data):
                chunk = s.recv(65536)
                if not chunk:
                    return None
                got += chunk
    except OSError:
        return None
    return time.monotonic() - began


@pytest.mark.parametrize("direction", ["s2r", "r2s"])
def test_given_a_one_way_partition_then_nothing_comes_back_until_it_heals(echo_host,
                                                                          direction):
    """Given a host behind its veth pair, when one direction is partitioned, then a
    connection to it does not complete; when that direction is cleared, it does again."""
    hosts, addr = echo_host
    hosts.shape("QMX", direction, hosts.shapes["partition"])
    assert _echo(addr, b"ping", 1.0) is None
    hosts.clear("QMX", direction)
    assert _echo(addr, b"ping", 5.0) is not None


def test_given_a_slow_direction_then_traffic_through_it_is_slowed(echo_host):
    """Given a host whose 32 KB echo comes back within half a second, when the way toward
    it is slowed (netem's delay, or a narrow token bucket where the kernel has no netem),
    then they take over half a second."""
    hosts, addr = echo_host
    took = _echo(addr, bytes(32768), 5)
    assert took is not None and took < 0.5, took
    slow = (hosts.shapes["delay"].format(ms=300, jitter=0) if hosts.netem
            else hosts.shapes["narrow"].format(kbit=128, ms=5000))
    hosts.shape("QMX", "s2r", slow)
    took = _echo(addr, bytes(32768), 30)
    assert took is not None and took > 0.5, took


def test_given_a_failing_test_then_its_namespaces_and_pairs_are_removed():
    """Given hosts made for two queue managers, when the block using them raises, then no
    namespace or veth end of that run is left."""
    with pytest.raises(RuntimeError, match="the test failed"):
        with hosts_for(("QMA", "QMB")) as hosts:
            assert len(hosts.names()) == 2 and len(hosts.links()) == 2
            raise RuntimeError("the test failed")
    assert hosts.names() == set() and hosts.links() == set()


def test_given_a_namespace_left_by_a_killed_run_then_the_next_run_removes_it():
    """Given a chaos namespace whose maker's pid is not running (a run killed outright), when
    namespaces are swept (as every run does first), then it is removed, and a live run's
    are not."""
    dead = 4194305  # above Linux's largest pid (2**22)
    left = f"mqchaos-{dead}-abcdef-QMA"
    subprocess.run(["ip", "netns", "add", left], check=True)
    try:
        with hosts_for(("QMA",)) as hosts:
            assert left not in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                              text=True).stdout
            assert sweep() == [] and len(hosts.names()) == 1
    finally:
        subprocess.run(["ip", "netns", "del", left], capture_output=True)
