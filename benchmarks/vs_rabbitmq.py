"""mqpy beside RabbitMQ, same machine, same run: one producer then one consumer; JSON results.

    python -m benchmarks.vs_rabbitmq [--out FILE] [--quick] [--count N]

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

It prints each ratio (mqpy msgs/s over RabbitMQ's) beside its target. Where RabbitMQ or pika
cannot be had, it says why, writes that in the JSON and ends with status 0.
"""

from __future__ import annotations

import argparse
import os
import platform
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


def run(count: int) -> dict:
    try:
        import pika  # noqa: F401 - only to know it is there
    except ImportError:
        raise Unavailable("pika is not installed (pip install -e '.[bench]')") from None
    built = deployed_bench.features()
    with RabbitMQ() as broker:
        rabbit = {"persistent": rabbitmq_run(broker, True, count),
                  "nonpersistent": rabbitmq_run(broker, False, count)}
    ours = {}
    with deployed_bench.DeployedQueueManager() as qmgr:
        fsync = bindings_bench.fdatasync_us(qmgr.root, max(200, count // 4))
        for i, (way, (_, options)) in enumerate(MQPY_WAYS.items()):
            ours[way] = mqpy_run(qmgr, deployed_bench.QUEUE.format(i), options, count, built)
    ratios = {way: {"mqpy_msgs_per_s": ours[way]["msgs_per_s"],
                    "rabbitmq_msgs_per_s": rabbit[against]["msgs_per_s"],
                    "ratio": round(ours[way]["msgs_per_s"] / rabbit[against]["msgs_per_s"], 2),
                    "target": TARGETS[way]}
              for way, (against, _) in MQPY_WAYS.items()}
    return {"rabbitmq_version": _rabbitmq_version(), "features": built,
            "fdatasync_us": fsync, "rabbitmq": rabbit, "mqpy": ours, "ratios": ratios}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="300 messages, for a smoke run")
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    count = 300 if args.quick else args.count
    doc = {"benchmark": "vs_rabbitmq", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "load_average": os.getloadavg(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "commit": bindings_bench._commit(), "spinning": bindings_bench.spinning()}
    try:
        doc["results"] = run(count)
    except Unavailable as e:
        print(f"vs_rabbitmq skipped: {e}", file=sys.stderr)
        doc["skipped"] = str(e)
    bindings_bench.emit(doc, args.out)
    for way, r in doc.get("results", {}).get("ratios", {}).items():
        print(f"{way}: mqpy {r['mqpy_msgs_per_s']:,.0f} msgs/s, RabbitMQ "
              f"{r['rabbitmq_msgs_per_s']:,.0f}: {r['ratio']}x (target {r['target']}x)",
              file=sys.stderr)


if __name__ == "__main__":
    main()
