"""mqpy beside RabbitMQ, same machine, same run: producer then consumer, request/reply; JSON.

    python -m benchmarks.vs_rabbitmq [--out FILE] [--quick] [--count N] [--round-trips N]

RabbitMQ is Debian's ``rabbitmq-server`` (``make bench`` installs it with apt-get when run
as root), started here on loopback only and on free ports, with its data (RABBITMQ_MNESIA_BASE),
logs, Erlang cookie and port mapper (an ``epmd`` of its own) in a temporary directory and no
plugins, and stopped by its pid at the end; the client is ``pika`` (pyproject's ``bench``
extra), its producer and consumer in this process, apart from the broker's. mqpy is ``deployed_bench``'s queue manager: strmqm's daemon, the producer and the
consumer each a bindings application in a process of its own. 1 KB messages, N of them; the
producer puts them all, then the consumer gets them all; msgs/s is N over the producer's time
plus the consumer's, each from its first call to its last:

- ``persistent``, a commit per message: RabbitMQ a durable queue, persistent messages, a
  publisher confirm per message (``confirm_delivery``: each publish waits for it), a manual
  ack per message (prefetch 100); mqpy MQPUT (persistent, syncpoint) + MQCMIT each, then
  MQGET (syncpoint) + MQCMIT each;
- ``nonpersistent``: RabbitMQ a transient queue and messages, no confirms, automatic acks,
  prefetch 100; mqpy MQPUT then MQGET outside syncpoint, plain synchronous calls, and again
  with MQPMO_ASYNC_RESPONSE on the puts and the queue opened MQOO_READ_AHEAD for the gets
  (until this mqpy has them the options are accepted and behave synchronously: ``note``).

And request/reply, IBM MQ's requester/responder shape (``deployed_bench``'s ``reqresp_*``):
1 or 4 requesters, as many responders, each application a process of its own, 2 KB
requests, the reply a copy of the request, ``--round-trips`` each requester (200):

- RabbitMQ: a request queue, a reply queue per requester (``reply_to``), the reply matched
  by ``correlation_id``, prefetch 1 on each consumer; persistent: durable queues, persistent
  messages, a publisher confirm on each publish (the request, the reply), a manual ack of
  each message consumed, the responder acking its request once its reply is confirmed;
  non-persistent: transient queues and messages, no confirms, automatic acks;
- mqpy: ``deployed_bench.run_request_reply``, bindings requesters and responders
  (persistent: syncpoint, three MQCMITs a round trip).

Each gives round trips a second and the CPU a round trip of the broker (RabbitMQ's Erlang
VM; mqpy's daemon and channel initiator) and of the applications.

It prints each ratio (mqpy msgs/s or round trips/s over RabbitMQ's), beside its target where
one is set. Where RabbitMQ or pika cannot be had, it says why, writes that in the JSON and
ends with status 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from benchmarks import bindings_bench, deployed_bench

#: Debian's script (the one in /usr/sbin only switches to the rabbitmq user and calls it)
RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
PREFETCH = 100
STARTUP_SECONDS = 120
TARGETS = {"persistent": 2.0, "nonpersistent_sync": 1.0, "nonpersistent_async_read_ahead": 2.0}
#: mqpy's ways, each against RabbitMQ's persistent or non-persistent run
MQPY_WAYS = {
    "persistent": ("persistent", {"persistent": True}),
    "nonpersistent_sync": ("nonpersistent", {}),
    "nonpersistent_async_read_ahead": ("nonpersistent", {"async_put": True,
                                                         "read_ahead": True}),
}


#: request/reply: deployed_bench's scenario -> (persistent, requesters) of the same with RabbitMQ
REQUEST_REPLY_WAYS = {
    "reqresp_persistent_1": (True, 1),
    "reqresp_nonpersistent_1": (False, 1),
    "reqresp_persistent_4": (True, 4),
    "reqresp_nonpersistent_4": (False, 4),
}
ROUND_TRIPS = 200  #: each requester's, by default
REPLY_TIMEOUT_S = 30  #: how long a requester waits for its reply


class Unavailable(Exception):
    """RabbitMQ cannot be run here; the message says why."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RabbitMQ:
    """A RabbitMQ node of its own on 127.0.0.1 in a temporary directory, stopped by pid."""

    def __enter__(self) -> RabbitMQ:
        if not os.path.exists(RABBITMQ_SERVER) or shutil.which("epmd") is None:
            raise Unavailable("Debian's rabbitmq-server is not installed (make bench "
                              "installs it with apt-get when run as root)")
        self._dir = tempfile.TemporaryDirectory(prefix="mqpy-vs-rabbitmq-")
        root = self._dir.name
        self.port, epmd_port, dist_port = _free_port(), _free_port(), _free_port()
        plugins = os.path.join(root, "enabled_plugins")
        with open(plugins, "w") as f:
            f.write("[].\n")  # no management plugin, no other
        env = {**os.environ, "HOME": root,  # the Erlang cookie
               "RABBITMQ_NODENAME": "mqpybench@localhost",
               "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1", "RABBITMQ_NODE_PORT": str(self.port),
               "RABBITMQ_DIST_PORT": str(dist_port),
               "ERL_EPMD_ADDRESS": "127.0.0.1", "ERL_EPMD_PORT": str(epmd_port),
               "RABBITMQ_MNESIA_BASE": os.path.join(root, "mnesia"),
               "RABBITMQ_LOG_BASE": os.path.join(root, "log"),
               "RABBITMQ_ENABLED_PLUGINS_FILE": plugins,
               "RABBITMQ_PLUGINS_EXPAND_DIR": os.path.join(root, "plugins"),
               # none of /etc/rabbitmq: no env file, no config file
               "RABBITMQ_CONF_ENV_FILE": os.path.join(root, "rabbitmq-env.conf"),
               "RABBITMQ_CONFIG_FILE": os.path.join(root, "rabbitmq"),
               "RABBITMQ_ADVANCED_CONFIG_FILE": os.path.join(root, "advanced.config"),
               "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS":
                   "-kernel inet_dist_use_interface {127,0,0,1}"}
        self._log = open(os.path.join(root, "server.out"), "w+")
        self.epmd = subprocess.Popen(["epmd", "-address", "127.0.0.1", "-port",
                                      str(epmd_port)], stdout=self._log, stderr=self._log)
        self.server = subprocess.Popen([RABBITMQ_SERVER], env=env, stdin=subprocess.DEVNULL,
                                       stdout=self._log, stderr=self._log)
        try:
            self._wait()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait(self) -> None:
        import pika

        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                self._log.seek(0)
                raise Unavailable("rabbitmq-server ended while starting: "
                                  + " | ".join(self._log.read().strip().splitlines()[-3:]))
            try:
                pika.BlockingConnection(self.parameters()).close()
                return
            except pika.exceptions.AMQPConnectionError:
                time.sleep(0.5)
        raise Unavailable(f"rabbitmq-server did not answer in {STARTUP_SECONDS} s")

    def parameters(self):
        import pika

        return pika.ConnectionParameters(host="127.0.0.1", port=self.port,
                                         connection_attempts=1, socket_timeout=10)

    def __exit__(self, *exc: object) -> None:
        for proc in (self.server, self.epmd):  # the script stops its Erlang VM on SIGTERM
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
        self._log.close()
        self._dir.cleanup()


def rabbitmq_run(broker: RabbitMQ, persistent: bool, count: int) -> dict:
    """One producer (its own connection) publishes ``count`` messages, then one consumer
    (another) consumes them all: msgs/s over the two phases' time."""
    import pika

    queue = "bench.durable" if persistent else "bench.transient"
    props = pika.BasicProperties(delivery_mode=pika.DeliveryMode.Persistent if persistent
                                 else pika.DeliveryMode.Transient)
    data = b"x" * deployed_bench.SIZE
    conn = pika.BlockingConnection(broker.parameters())
    ch = conn.channel()
    ch.queue_declare(queue=queue, durable=persistent)
    if persistent:
        ch.confirm_delivery()  # each basic_publish now waits for the broker's confirm
    t = time.perf_counter()
    for _ in range(count):
        ch.basic_publish(exchange="", routing_key=queue, body=data, properties=props)
    produce = time.perf_counter() - t
    conn.close()

    conn = pika.BlockingConnection(broker.parameters())
    ch = conn.channel()
    ch.basic_qos(prefetch_count=PREFETCH)
    got = [0]

    def on_message(channel, method, properties, body) -> None:
        if persistent:
            channel.basic_ack(delivery_tag=method.delivery_tag)
        got[0] += 1
        if got[0] >= count:
            channel.stop_consuming()

    ch.basic_consume(queue=queue, on_message_callback=on_message, auto_ack=not persistent)
    t = time.perf_counter()
    ch.start_consuming()
    consume = time.perf_counter() - t
    conn.close()
    return _end_to_end(count, produce, consume)


# -- request/reply ---------------------------------------------------------------------------


def _queues(persistent: bool) -> tuple[str, str]:
    """The request queue and the reply queues' prefix (durable ones for persistent runs)."""
    kind = "durable" if persistent else "transient"
    return f"bench.request.{kind}", f"bench.reply.{kind}."


def _own_cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def rabbitmq_requester(spec: dict, go) -> dict:
    """``spec["count"]`` times: publish a request (reply_to this requester's queue, a
    correlation_id of its own; persistent: wait for its confirm), then wait for the reply
    on the reply queue (persistent: ack it); a reply not the request's copy ends the run."""
    import pika

    persistent, count = spec["persistent"], spec["count"]
    request_queue, reply_prefix = _queues(persistent)
    reply_queue = f"{reply_prefix}{spec['index']}"
    mode = pika.DeliveryMode.Persistent if persistent else pika.DeliveryMode.Transient
    conn = pika.BlockingConnection(pika.ConnectionParameters(
        host="127.0.0.1", port=spec["port"], connection_attempts=1, socket_timeout=10))
    ch = conn.channel()
    if persistent:
        ch.confirm_delivery()
    ch.basic_qos(prefetch_count=1)
    replies: list = []
    ch.basic_consume(queue=reply_queue, auto_ack=not persistent,
                     on_message_callback=lambda c, method, props, body: replies.append(
                         (method.delivery_tag, props.correlation_id, body)))
    data = b"q" * deployed_bench.REQUEST_REPLY_SIZE
    go()
    start, cpu = time.time(), _own_cpu()
    for i in range(count):
        correlation = f"{spec['index']}.{i}"
        ch.basic_publish(exchange="", routing_key=request_queue, body=data,
                         properties=pika.BasicProperties(delivery_mode=mode,
                                                         reply_to=reply_queue,
                                                         correlation_id=correlation))
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while not replies and time.monotonic() < deadline:
            conn.process_data_events(time_limit=REPLY_TIMEOUT_S)
        if not replies:
            raise RuntimeError(f"no reply in {REPLY_TIMEOUT_S} s")
        tag, got, body = replies.pop()
        if persistent:
            ch.basic_ack(delivery_tag=tag)
        if got != correlation or body != data:
            raise RuntimeError("a reply that is not its request's copy")
    end, cpu1 = time.time(), _own_cpu()
    conn.close()
    return {"start": start, "end": end, "round_trips": count,
            "cpu_s": [cpu1[0] - cpu[0], cpu1[1] - cpu[1]]}


def rabbitmq_responder(spec: dict, go) -> dict:
    """Consume requests (prefetch 1): publish each one's copy to its reply_to with its
    correlation_id (persistent: wait for the confirm, then ack the request); until a
    message of type ``stop``."""
    import pika

    persistent = spec["persistent"]
    request_queue, _ = _queues(persistent)
    mode = pika.DeliveryMode.Persistent if persistent else pika.DeliveryMode.Transient
    conn = pika.BlockingConnection(pika.ConnectionParameters(
        host="127.0.0.1", port=spec["port"], connection_attempts=1, socket_timeout=10))
    ch = conn.channel()
    if persistent:
        ch.confirm_delivery()
    ch.basic_qos(prefetch_count=1)
    replies = [0]

    def on_request(channel, method, props, body) -> None:
        if props.type == "stop":
            channel.stop_consuming()
        else:
            channel.basic_publish(exchange="", routing_key=props.reply_to, body=body,
                                  properties=pika.BasicProperties(
                                      delivery_mode=mode, correlation_id=props.correlation_id))
            replies[0] += 1
        if persistent:
            channel.basic_ack(delivery_tag=method.delivery_tag)

    ch.basic_consume(queue=request_queue, on_message_callback=on_request,
                     auto_ack=not persistent)
    go()
    start, cpu = time.time(), _own_cpu()
    ch.start_consuming()
    end, cpu1 = time.time(), _own_cpu()
    conn.close()
    return {"start": start, "end": end, "replies": replies[0],
            "cpu_s": [cpu1[0] - cpu[0], cpu1[1] - cpu[1]]}


ROLES = {"requester": rabbitmq_requester, "responder": rabbitmq_responder}


def _serve_application(spec: dict) -> None:
    """``--app``: tell the parent we are connected, wait for its go, print the figures."""

    def go() -> None:
        print("ready", flush=True)
        sys.stdin.readline()

    print(json.dumps(ROLES[spec["role"]](spec, go)), flush=True)


def _tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by process ``root`` and its descendants
    (the rabbitmq-server script's Erlang VM)."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
            used[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(used.get(pid, 0.0) for pid in tree)


def rabbitmq_request_reply(broker: RabbitMQ, persistent: bool, requesters: int,
                           round_trips: int) -> dict:
    """Responders and requesters (as many), each a process of its own, started together."""
    import pika

    request_queue, reply_prefix = _queues(persistent)
    conn = pika.BlockingConnection(broker.parameters())
    ch = conn.channel()
    for name in [request_queue] + [f"{reply_prefix}{i}" for i in range(requesters)]:
        ch.queue_declare(queue=name, durable=persistent)
    specs = [{"role": "responder", "persistent": persistent, "port": broker.port}
             for _ in range(requesters)] + [
        {"role": "requester", "persistent": persistent, "port": broker.port,
         "count": round_trips, "index": i} for i in range(requesters)]
    procs = deployed_bench._start_applications(specs, "benchmarks.vs_rabbitmq")
    try:
        cpu0 = _tree_cpu(broker.server.pid)
        deployed_bench._go(procs)
        asked = [deployed_bench._result(p) for p in procs[requesters:]]
        for _ in range(requesters):
            ch.basic_publish(exchange="", routing_key=request_queue, body=b"",
                             properties=pika.BasicProperties(type="stop"))
        answered = [deployed_bench._result(p) for p in procs[:requesters]]
        broker_cpu = _tree_cpu(broker.server.pid) - cpu0
    finally:
        deployed_bench._kill_left(procs)
        conn.close()
    return _request_reply_figures(asked, answered, {"rabbitmq": broker_cpu})


def _request_reply_figures(asked: list[dict], answered: list[dict],
                           server_cpu: dict[str, float]) -> dict:
    trips = sum(r["round_trips"] for r in asked)
    replies = sum(r["replies"] for r in answered)
    if replies != trips:
        raise RuntimeError(f"{trips} round trips but {replies} replies")
    window = max(r["end"] for r in asked) - min(r["start"] for r in asked)
    return {"requesters": len(asked), "responders": len(answered),
            "message_bytes": deployed_bench.REQUEST_REPLY_SIZE,
            "round_trips": trips, "seconds": round(window, 3),
            "round_trips_per_s": round(trips / window, 1),
            "server_cpu_us_per_round_trip": {
                role: round(cpu / trips * 1e6, 1) for role, cpu in server_cpu.items()},
            "application_cpu_us_per_round_trip_user_system": {
                role: [round(sum(r["cpu_s"][i] for r in results) / trips * 1e6, 1)
                       for i in (0, 1)]
                for role, results in (("requesters", asked), ("responders", answered))}}


def _cpu_total(result: dict) -> tuple[float, float]:
    """A request/reply result's CPU a round trip: the broker's (all its processes), and
    the broker's plus the applications'."""
    server = sum(result["server_cpu_us_per_round_trip"].values())
    apps = sum(sum(us) for us in
               result["application_cpu_us_per_round_trip_user_system"].values())
    return round(server, 1), round(server + apps, 1)


def _end_to_end(count: int, produce: float, consume: float) -> dict:
    return {"messages": count, "produce_s": round(produce, 3), "consume_s": round(consume, 3),
            "msgs_per_s": round(count / (produce + consume), 1)}


def mqpy_run(qmgr: deployed_bench.DeployedQueueManager, queue: str, options: dict,
             count: int, built: dict[str, bool]) -> dict:
    """The producer, then the consumer, each a bindings application of its own."""
    put_options = {k: v for k, v in options.items() if k != "read_ahead"}
    get_options = {k: v for k, v in options.items() if k != "async_put"}
    phases = [deployed_bench.run_applications(
        [{"role": role, "queue": queue, "count": count, **opts}], qmgr.pids)
        for role, opts in (("produce", put_options), ("consume", get_options))]
    result = _end_to_end(count, phases[0]["seconds"], phases[1]["seconds"])
    for phase in phases:
        for call in ("put", "put_commit", "get", "get_commit"):
            if call in phase:
                result[call] = phase[call]
    notes = deployed_bench.feature_notes(options, built)
    if notes:
        result["note"] = notes
    return result


def _rabbitmq_version() -> str:
    proc = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "rabbitmq-server"],
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def run(count: int, round_trips: int = ROUND_TRIPS) -> dict:
    try:
        import pika  # noqa: F401 - only to know it is there
    except ImportError:
        raise Unavailable("pika is not installed (pip install -e '.[bench]')") from None
    built = deployed_bench.features()
    with RabbitMQ() as broker:
        rabbit = {"persistent": rabbitmq_run(broker, True, count),
                  "nonpersistent": rabbitmq_run(broker, False, count)}
        rabbit_rr = {way: rabbitmq_request_reply(broker, persistent, requesters, round_trips)
                     for way, (persistent, requesters) in REQUEST_REPLY_WAYS.items()}
    ours = {}
    with deployed_bench.DeployedQueueManager() as qmgr:
        fsync = bindings_bench.fdatasync_us(qmgr.root, max(200, count // 4))
        for i, (way, (_, options)) in enumerate(MQPY_WAYS.items()):
            ours[way] = mqpy_run(qmgr, deployed_bench.QUEUE.format(i), options, count, built)
        ours_rr = {way: deployed_bench.run_request_reply(way, qmgr, round_trips)
                   for way in REQUEST_REPLY_WAYS}
    request_reply = {}
    for way in REQUEST_REPLY_WAYS:
        (our_server, our_all), (their_server, their_all) = (_cpu_total(ours_rr[way]),
                                                            _cpu_total(rabbit_rr[way]))
        request_reply[way] = {
            "mqpy_round_trips_per_s": ours_rr[way]["round_trips_per_s"],
            "rabbitmq_round_trips_per_s": rabbit_rr[way]["round_trips_per_s"],
            "ratio": round(ours_rr[way]["round_trips_per_s"]
                           / rabbit_rr[way]["round_trips_per_s"], 2),
            "mqpy_server_cpu_us_per_round_trip": our_server,
            "rabbitmq_server_cpu_us_per_round_trip": their_server,
            "mqpy_all_cpu_us_per_round_trip": our_all,
            "rabbitmq_all_cpu_us_per_round_trip": their_all,
            "server_cpu_ratio": round(our_server / their_server, 2) if their_server else None,
            "all_cpu_ratio": round(our_all / their_all, 2) if their_all else None}
    ratios = {way: {"mqpy_msgs_per_s": ours[way]["msgs_per_s"],
                    "rabbitmq_msgs_per_s": rabbit[against]["msgs_per_s"],
                    "ratio": round(ours[way]["msgs_per_s"] / rabbit[against]["msgs_per_s"], 2),
                    "target": TARGETS[way]}
              for way, (against, _) in MQPY_WAYS.items()}
    return {"rabbitmq_version": _rabbitmq_version(), "features": built,
            "fdatasync_us": fsync, "rabbitmq": rabbit, "mqpy": ours, "ratios": ratios,
            "round_trips_each_requester": round_trips,
            "rabbitmq_request_reply": rabbit_rr, "mqpy_request_reply": ours_rr,
            "request_reply_ratios": request_reply}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="300 messages, for a smoke run")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--round-trips", type=int, default=ROUND_TRIPS,
                    help="round trips of each requester of the request/reply runs")
    ap.add_argument("--app", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.app:
        _serve_application(json.loads(args.app))
        return
    count = 300 if args.quick else args.count
    round_trips = 100 if args.quick else args.round_trips
    doc = {"benchmark": "vs_rabbitmq", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "load_average": os.getloadavg(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "commit": bindings_bench._commit(), "spinning": bindings_bench.spinning()}
    try:
        doc["results"] = run(count, round_trips)
    except Unavailable as e:
        print(f"vs_rabbitmq skipped: {e}", file=sys.stderr)
        doc["skipped"] = str(e)
    bindings_bench.emit(doc, args.out)
    for way, r in doc.get("results", {}).get("ratios", {}).items():
        print(f"{way}: mqpy {r['mqpy_msgs_per_s']:,.0f} msgs/s, RabbitMQ "
              f"{r['rabbitmq_msgs_per_s']:,.0f}: {r['ratio']}x (target {r['target']}x)",
              file=sys.stderr)
    for way, r in doc.get("results", {}).get("request_reply_ratios", {}).items():
        print(f"{way}: mqpy {r['mqpy_round_trips_per_s']:,.0f} round trips/s, RabbitMQ "
              f"{r['rabbitmq_round_trips_per_s']:,.0f}: {r['ratio']}x; CPU a round trip, "
              f"broker {r['mqpy_server_cpu_us_per_round_trip']:,.0f} against "
              f"{r['rabbitmq_server_cpu_us_per_round_trip']:,.0f} µs, with the applications "
              f"{r['mqpy_all_cpu_us_per_round_trip']:,.0f} against "
              f"{r['rabbitmq_all_cpu_us_per_round_trip']:,.0f} µs", file=sys.stderr)


if __name__ == "__main__":
    main()
