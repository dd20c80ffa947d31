"""Client-connection round trips per second through a SVRCONN channel; JSON results.

    python -m benchmarks.client_bench [--out FILE] [--quick] [--seconds S] [--no-tls]
                                      [--deployed [--standard]] [--scenario NAME]
                                      [--clients N]

A queue manager and its channel initiator (listening on 127.0.0.1, port 0) run in a child
process, so that client and server do not share one interpreter lock, as on two machines.
In this process 1 and 16 client threads (pymqi programs: ``mqpy.connect(qm, channel,
"host(port)")``, each on its own queue, conversations shared per SHARECNV(10): 16 clients
are two channel instances) repeat a round trip of a 1 KB message. They connect one at a
time, so that each finds the instance the one before opened: connecting at once, each
opened its own before another's was there to share, as many as the machine's load let
them (3 to 16 instances, and the figures with them: a shared instance's read and write
carry the calls of several conversations). ``channel_instances`` says how many there were:

- ``nonpersistent``: MQPUT then MQGET, non-persistent, outside syncpoint (2 MQI flows);
- ``persistent_syncpoint``: MQPUT under syncpoint, MQCMIT, MQGET under syncpoint, MQCMIT,
  persistent (4 MQI flows, 2 log forces).

Each scenario runs on a plain channel and on a TLS one (``BENCH.TLS.SVRCONN``,
SSLCIPH(ECDHE_ECDSA_AES_128_GCM_SHA256), certificates from a CA made for the run with
``trustme``, a test dependency; without it, or with ``--no-tls``, only the plain channel).
Each result gives round trips per second, MQI calls per second, the mean round-trip
latency and the CPU per round trip of the client process and of the server processes.
Nothing is asserted; the figures are to be read against the machine.

``--deployed`` serves the clients as an installation does instead (plain channel only): a
queue-manager daemon started by strmqm, whose channel initiator is a process of its own
calling the daemon over its bindings socket (mqpy_chinit.qmconn), and a listener defined
with runmqsc; the server CPU is then the daemon's and the channel initiator's together, and
``server_cpu_us_per_trip_by_process`` gives each (``qmgr``, ``chinit``).
The queue manager keeps the qm.ini crtmqm writes, ``Channels: MQIBindType=FASTPATH``: the
channel initiator's listener hands each client socket to the daemon, which serves it on its
engine (``mqpy_chinit.clienthost``), and the channel initiator then uses no CPU per trip.
With ``--standard`` qm.ini says ``MQIBindType=STANDARD`` instead: the channel initiator's
SVRCONN relays every call to the daemon.
``cpu_us_per_trip_user_system`` splits each process's CPU a trip (the client's too) into
user and system time: the system part is mostly the sockets' calls, the user part Python.

``--floor`` measures what the deployed topology costs before any MQI work: the same client
threads send 1,100 bytes (an MQPUT's flow) over TCP to a relay process (trio, as the
channel initiator) which passes them over a Unix socket to a server process (trio, as the
queue manager), which sends them back the same way. Its CPU per exchange by process is
the floor under each MQI call of ``--deployed`` (two calls a round trip).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

QMGR = "CLBENCH"
CHANNEL = "BENCH.SVRCONN"
TLS_CHANNEL = "BENCH.TLS.SVRCONN"
CIPHER = "ECDHE_ECDSA_AES_128_GCM_SHA256"
CLIENT_COUNTS = (1, 16)
#: the request queue and the reply queue of deployed_bench's request/reply scenarios
REQUEST_REPLY_QUEUES = ("BENCH.REQUEST", "BENCH.REPLY")
SCENARIOS = {"nonpersistent": 2, "persistent_syncpoint": 4}  # MQI calls per round trip


def serve(root: str) -> None:
    """The child process: queue manager + channel initiator; prints the port, runs until
    stdin closes."""
    import functools

    import trio

    import mqpy
    from mqpy import inprocess
    from mqpy_chinit import svrconn
    from mqpy_chinit.chinit import ChannelInitiator
    from mqpy_chinit.engineadmin import EngineAdmin

    inprocess.create(QMGR, root)
    engine = inprocess.start(QMGR, root)
    engine.define("CHANNEL", CHANNEL, {"CHLTYPE": "SVRCONN"})
    qm_keys = os.path.join(root, "keys", "qm")
    if os.path.isdir(qm_keys):
        engine.alter_qmgr({"SSLKEYR": qm_keys})
        engine.define("CHANNEL", TLS_CHANNEL, {"CHLTYPE": "SVRCONN", "SSLCIPH": CIPHER,
                                               "SSLCAUTH": "OPTIONAL"})
    for i in range(max(CLIENT_COUNTS)):
        engine.define("QLOCAL", f"BENCH.Q.{i}", {"MAXDEPTH": 999999999})

    async def main() -> None:
        chinit = ChannelInitiator(
            QMGR, lambda: mqpy.embedded(QMGR, data_path=root, create=False),
            EngineAdmin(engine), log=lambda msgid, text: None)
        chinit.svrconn_handler = svrconn.serve_client
        async with trio.open_nursery() as nursery:
            await nursery.start(functools.partial(chinit.run, [("127.0.0.1", 0)]))
            print(chinit.ports[0], flush=True)
            await trio.to_thread.run_sync(sys.stdin.read)
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        inprocess.stop_all()


def _client(port: int, index: int, scenario: str, stop: threading.Event,
            counts: list[int], latencies: list[float], ready: threading.Barrier,
            tls_keys: str, addresses: list[Any], connecting: threading.Lock,
            own_instance: bool = False) -> None:
    import mqpy
    from mqpy import CMQC

    with connecting:  # one at a time: each shares the instance the one before opened
        if tls_keys or own_instance:
            qm = mqpy.QueueManager(None)
            cd = mqpy.CD(SharingConversations=1) if own_instance else mqpy.CD()
            if tls_keys:
                cd.SSLCipherSpec = CIPHER.encode()
            qm.connect_tcp_client(QMGR, cd, TLS_CHANNEL if tls_keys else CHANNEL,
                                  f"127.0.0.1({port})",
                                  sco=mqpy.SCO(KeyRepository=tls_keys.encode()) if tls_keys
                                  else None)
        else:
            qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({port})")
    queue = mqpy.Queue(qm, f"BENCH.Q.{index}", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_EXCLUSIVE)
    data = os.urandom(1024)
    persistent = scenario == "persistent_syncpoint"
    md_args = {"Persistence": CMQC.MQPER_PERSISTENT if persistent
               else CMQC.MQPER_NOT_PERSISTENT}
    put_opts = CMQC.MQPMO_SYNCPOINT if persistent else CMQC.MQPMO_NO_SYNCPOINT
    get_opts = CMQC.MQGMO_SYNCPOINT if persistent else CMQC.MQGMO_NO_SYNCPOINT
    n, total = 0, 0.0
    addresses[index] = qm.connection().local_address
    ready.wait()
    while not stop.is_set():
        t0 = time.perf_counter()
        queue.put(data, mqpy.MD(**md_args), mqpy.PMO(Options=put_opts))
        if persistent:
            qm.commit()
        got = queue.get(None, mqpy.MD(), mqpy.GMO(Options=get_opts))
        if persistent:
            qm.commit()
        total += time.perf_counter() - t0
        n += 1
        assert len(got) == 1024
    counts[index] = n
    latencies[index] = total
    queue.close()
    qm.disconnect()


def make_keys(root: str) -> str | None:
    """A CA, the queue manager's key repository and the clients' (PEM directories, as
    ``mqpy.fap.tls`` reads them); None without trustme."""
    try:
        import trustme
    except ImportError:
        return None
    ca = trustme.CA()
    leaf = ca.issue_cert("bench.example", common_name=QMGR)
    qm_keys, client_keys = os.path.join(root, "keys", "qm"), os.path.join(root, "keys", "app")
    for d in (qm_keys, client_keys):
        os.makedirs(d)
        ca.cert_pem.write_to_path(os.path.join(d, "ca.pem"))
    with open(os.path.join(qm_keys, "cert.pem"), "wb") as f:
        for blob in leaf.cert_chain_pems:
            f.write(blob.bytes())
    leaf.private_key_pem.write_to_path(os.path.join(qm_keys, "key.pem"))
    return client_keys


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc)."""
    return sum(_process_user_sys(pid))


def _process_user_sys(pid: int) -> tuple[float, float]:
    """CPU seconds in user and in system mode used so far by process ``pid`` (Linux /proc):
    the system part is mostly the sockets' system calls."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except (OSError, ValueError, IndexError):
        return 0.0, 0.0


def _server_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by the server processes."""
    return sum(_process_cpu(pid) for pid in pids)


def _process_role(pid: int) -> str:
    """What a deployed server process is: its channel initiator or the queue manager."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read()
    except OSError:
        return str(pid)
    return "chinit" if b"mqpy_cli.chinit" in cmdline else "qmgr"


def _run(cmd: str, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), cmd), *args],
                          input=stdin, text=True, capture_output=True, timeout=300)
    if proc.returncode not in (0, 10):
        raise RuntimeError(f"{cmd} {' '.join(args)}: {proc.stdout}{proc.stderr}")
    return proc.stdout


def serve_deployed(root: str, standard: bool = False) -> tuple[int, list[int]]:
    """crtmqm, strmqm, a listener and the channel and queues by runmqsc: (port, the pids of
    the daemon and its channel initiator). ``standard``: qm.ini MQIBindType=STANDARD (the
    relay) instead of crtmqm's FASTPATH."""
    os.environ["MQPY_DATA_PATH"] = root
    _run("crtmqm", QMGR)
    if standard:
        from mqpy import config  # lazy: only this option changes qm.ini

        config.set_channels_value(QMGR, "MQIBindType", "STANDARD", root)
    _run("strmqm", QMGR)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    queues = "".join(f"DEFINE QLOCAL({name}) MAXDEPTH(999999999)\n"
                     for name in [f"BENCH.Q.{i}" for i in range(max(CLIENT_COUNTS))]
                     + list(REQUEST_REPLY_QUEUES))
    _run("runmqsc", QMGR, stdin=f"""
        DEFINE LISTENER(BENCH) TRPTYPE(TCP) PORT({port}) IPADDR('127.0.0.1') CONTROL(QMGR)
        START LISTENER(BENCH)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) TRPTYPE(TCP)
        SET CHLAUTH({CHANNEL}) TYPE(BLOCKUSER) USERLIST('nobody')
        ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(NONE)
        REFRESH SECURITY TYPE(CONNAUTH)
        {queues}""")
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if root.encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                pass
    import mqpy

    for _ in range(100):  # until the listener answers
        try:
            mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({port})").disconnect()
            break
        except mqpy.MQMIError:
            time.sleep(0.1)
    return port, pids


def run_scenario(port: int, scenario: str, clients: int, seconds: float,
                 tls_keys: str = "", server_pids: list[int] | None = None,
                 own_instances: bool = False) -> dict:
    stop = threading.Event()
    counts = [0] * clients
    latencies = [0.0] * clients
    addresses: list[Any] = [None] * clients  # each client's socket: its channel instance
    ready = threading.Barrier(clients + 1)
    connecting = threading.Lock()
    threads = [threading.Thread(target=_client, args=(port, i, scenario, stop, counts,
                                                      latencies, ready, tls_keys, addresses,
                                                      connecting, own_instances))
               for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    server_pids = server_pids or []
    t0, cpu0, times0 = time.perf_counter(), time.process_time(), os.times()
    each0 = {pid: _process_user_sys(pid) for pid in server_pids}
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    client_cpu = time.process_time() - cpu0
    times1 = os.times()
    split = {pid: tuple(b - a for a, b in zip(each0[pid], _process_user_sys(pid), strict=True))
             for pid in server_pids}
    each = {pid: sum(us) for pid, us in split.items()}
    server_cpu = sum(each.values())
    trips = sum(counts)
    by_role: dict[str, float] = {}
    user_sys = {"client": (times1.user - times0.user, times1.system - times0.system)}
    for pid, cpu in each.items():
        role = _process_role(pid) if len(server_pids) > 1 else "server"
        by_role[role] = by_role.get(role, 0.0) + cpu
        u, s = user_sys.get(role, (0.0, 0.0))
        user_sys[role] = (u + split[pid][0], s + split[pid][1])
    return {
        "scenario": scenario, "clients": clients, "tls": bool(tls_keys),
        "message_bytes": 1024,
        "channel_instances": len(set(addresses)), "own_instances": own_instances,
        "round_trips": trips, "seconds": round(wall, 3),
        "round_trips_per_s": round(trips / wall, 1),
        "mqi_calls_per_s": round(trips * SCENARIOS[scenario] / wall, 1),
        "mean_round_trip_ms": round(sum(latencies) / trips * 1000, 3) if trips else None,
        # CPU per round trip of the client process (its threads, their disconnects
        # included) and of the server's (queue manager and channel initiator)
        "client_cpu_us_per_trip": round(client_cpu / trips * 1e6, 1) if trips else None,
        "server_cpu_us_per_trip": (round(server_cpu / trips * 1e6, 1)
                                   if trips and server_pids else None),
        # deployed: the same split by process (the daemon, its channel initiator)
        "server_cpu_us_per_trip_by_process": (
            {role: round(cpu / trips * 1e6, 1) for role, cpu in sorted(by_role.items())}
            if trips and server_pids else None),
        # the same CPU as [user, system] by process (the system part: mostly socket calls)
        "cpu_us_per_trip_user_system": (
            {role: [round(u / trips * 1e6, 1), round(s / trips * 1e6, 1)]
             for role, (u, s) in sorted(user_sys.items())} if trips else None),
    }


FLOOR_BYTES = 1100  #: about an MQPUT of 1 KB with its headers


def run_floor(clients: int, seconds: float) -> dict:
    """Bytes only through client threads -> TCP -> relay process -> Unix socket -> server
    process and back (``--floor``): CPU microseconds per exchange of each process."""
    root = tempfile.mkdtemp(prefix="mqpy-client-floor-")
    path = os.path.join(root, "floor.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(path)
    unix.listen(64)
    tcp = socket.create_server(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    pids = []
    for role in ("server", "relay"):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child's life
            try:
                import trio

                trio.run(_floor_child, role, clients, unix, tcp, path)
            finally:
                os._exit(0)
        pids.append(pid)
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(clients)]
    for s in socks:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stop = threading.Event()
    counts = [0] * clients
    msg = os.urandom(FLOOR_BYTES)

    def exchange(i: int) -> None:
        s, n = socks[i], 0
        while not stop.is_set():
            s.sendall(msg)
            got = 0
            while got < FLOOR_BYTES:
                got += len(s.recv(65536))
            n += 1
        counts[i] = n

    threads = [threading.Thread(target=exchange, args=(i,)) for i in range(clients)]
    cpu0 = [_process_cpu(p) for p in pids]
    t0, own0 = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    wall, own = time.perf_counter() - t0, time.process_time() - own0
    cpu = [_process_cpu(p) - c for p, c in zip(pids, cpu0, strict=True)]
    for s in socks:
        s.close()
    for p in pids:
        os.waitpid(p, 0)
    unix.close()
    tcp.close()
    os.unlink(path)
    os.rmdir(root)
    total = sum(counts)
    return {"scenario": "floor", "clients": clients, "message_bytes": FLOOR_BYTES,
            "exchanges": total, "exchanges_per_s": round(total / wall, 1),
            "cpu_us_per_exchange": {"client": round(own / total * 1e6, 1),
                                    "relay": round(cpu[1] / total * 1e6, 1),
                                    "server": round(cpu[0] / total * 1e6, 1)}}


async def _floor_child(role: str, clients: int, unix: socket.socket, tcp: socket.socket,
                       path: str) -> None:
    """The server (echo) or the relay (pass both ways) of ``run_floor``, in trio, driving
    the plain sockets as mqpy.bindings_listener and mqpy_chinit.qmconn do."""
    import trio

    from mqpy.loopcalls import send_all

    async def pump(a: socket.socket, b: socket.socket) -> None:
        while True:
            await trio.lowlevel.wait_readable(a)
            data = a.recv(65536)
            if not data:  # passed on as an end of writing, so that every pump ends
                b.shutdown(socket.SHUT_WR)
                return
            await send_all(b, data)

    async with trio.open_nursery() as nursery:
        for _ in range(clients):
            if role == "server":
                conn, _ = unix.accept()
                conn.setblocking(False)
                nursery.start_soon(pump, conn, conn)
            else:
                conn, _ = tcp.accept()
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                up = socket.socket(socket.AF_UNIX)
                up.connect(path)
                conn.setblocking(False)
                up.setblocking(False)
                nursery.start_soon(pump, conn, up)
                nursery.start_soon(pump, up, conn)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="1 s per scenario, for a smoke run")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--no-tls", action="store_true", help="the plain channel only")
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS),
                    help="run only this scenario (repeatable; default all)")
    ap.add_argument("--clients", action="append", type=int,
                    help="run only with this many clients, at most 16 (repeatable; default 1 and 16)")
    ap.add_argument("--deployed", action="store_true",
                    help="a daemon and its channel initiator started by strmqm (plain only)")
    ap.add_argument("--standard", action="store_true",
                    help="with --deployed: qm.ini MQIBindType=STANDARD (the channel "
                         "initiator relays each call; crtmqm writes FASTPATH)")
    ap.add_argument("--floor", action="store_true",
                    help="bytes only through the deployed topology: the floor under a call")
    ap.add_argument("--own-instances", action="store_true",
                    help="each client on a channel instance of its own (CD "
                         "SharingConversations=1), as separate programs would be, instead "
                         "of threads of one program sharing instances (SHARECNV(10))")
    ap.add_argument("--serve", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve)
        return
    seconds = 1.0 if args.quick else args.seconds
    if args.floor:
        results = [run_floor(n, seconds) for n in args.clients or CLIENT_COUNTS]
    elif args.deployed:
        results = run_deployed(args, seconds)
    else:
        results = run_in_child(args, seconds)
    doc = {"benchmark": "client_bench", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "deployed": args.deployed, "mqi_bind_type": "STANDARD" if args.standard else "FASTPATH", "results": results}
    text = json.dumps(doc, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


def _scenarios(args: argparse.Namespace, port: int, seconds: float, keys: str,
               pids: list[int]) -> list[dict]:
    results = []
    for scenario in args.scenario or SCENARIOS:
        for clients in args.clients or CLIENT_COUNTS:
            res = run_scenario(port, scenario, clients, seconds, keys, pids,
                               args.own_instances)
            res["deployed"] = args.deployed
            res["mqi_bind_type"] = "STANDARD" if args.standard else "FASTPATH"
            print(json.dumps(res), file=sys.stderr, flush=True)
            results.append(res)
    return results


def run_deployed(args: argparse.Namespace, seconds: float) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="mqpy-client-bench-") as root:
        try:
            port, pids = serve_deployed(root, args.standard)
            return _scenarios(args, port, seconds, "", pids)
        finally:
            subprocess.run([os.path.join(os.path.dirname(sys.executable), "endmqm"), "-i",
                            QMGR], capture_output=True, timeout=120)


def run_in_child(args: argparse.Namespace, seconds: float) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="mqpy-client-bench-") as root:
        tls_keys = None if args.no_tls else make_keys(root)
        server = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.client_bench", "--serve", root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        try:
            port = int(server.stdout.readline())
            results = []
            for keys in ("", tls_keys) if tls_keys else ("",):
                results += _scenarios(args, port, seconds, keys, [server.pid])
        finally:
            server.stdin.close()
            server.wait(30)
    return results


if __name__ == "__main__":
    main()
