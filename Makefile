# mqpy — everything installs itself into .venv; nothing is installed by hand.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: all venv bytecode test-bytecode tools test test-fast soak bench demo lint compat clean

all: test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# tshark checks our frames against Wireshark's MQ dissector, and Debian's chromium (with
# chromium-driver) runs the web console's browser tests; their tests skip when they are
# absent, so a machine where they cannot be installed still runs everything else.
# The project's own modules compiled to bytecode (incremental): where PYTHONDONTWRITEBYTECODE
# is set, as on this project's machines, every process (daemon, channel initiator, command,
# application) would otherwise compile them again: about 40% of each one's start-up.
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 mqpy mqpy_chinit mqpy_cli tests benchmarks examples >/dev/null

# pytest rewrites each test module's asserts as it imports it (what a failing assert then
# shows) and keeps the rewritten module only where bytecode may be written: with
# PYTHONDONTWRITEBYTECODE set, each of make test's workers rewrote every module again as it
# collected (14 s of the 22 s of CPU a collection took). They are written here instead, by
# two collections each over half the test folders, and read by every pytest run after
# (made again only once a file under tests/ changed, and then only the changed modules are
# rewritten). A collection error is left for the run itself to report.
REWRITE := PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -p no:cacheprovider --collect-only -o addopts=""
REWRITTEN := tests/__pycache__/.rewritten

$(REWRITTEN): $(STAMP) $(shell find tests -name '*.py' -not -path '*/__pycache__/*') | bytecode
	@set -- $$(ls -d tests/*/ | grep -v __pycache__); a=; b=; while [ $$# -gt 0 ]; do \
	  a="$$a $$1"; b="$$b $${2:-}"; shift; [ $$# -gt 0 ] && shift; done; \
	  { $(REWRITE) $$a >/dev/null 2>&1 & $(REWRITE) $$b >/dev/null 2>&1; wait; } || true
	@mkdir -p $(@D) && touch $@

test-bytecode: bytecode $(REWRITTEN)

tools:
	@command -v tshark >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark) \
	  >/dev/null 2>&1 || echo "tshark not installed: the Wireshark checks will be skipped"; }
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || { \
	  [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      chromium chromium-driver) >/dev/null 2>&1 \
	  || echo "chromium not installed: the web console's browser tests will be skipped"; }

# Four workers on two cores: the suite waits much of its time (daemons, channels, timers):
# its processes used about 860 s of CPU (a cgroup's count beside other work, 2026-11-29)
# while three workers took 9:22, so a fourth keeps the cores busier (8:13 then). A file's
# tests stay on one worker so module-scoped set-ups are made once; files are handed out in
# collection order, the longest first (tests/support/schedule.py), not by number of tests;
# the tests/spark files go to one worker together, which makes one Spark session for them.
test: $(STAMP) tools test-bytecode
	$(PY) -m pytest -q -p no:cacheprovider -n 4 --dist loadfile --no-loadscope-reorder

# The pure layer only: no test marked system (processes, daemons, sockets to them: see
# tests/support/system.py) and no soak; under a minute.
test-fast: $(STAMP) test-bytecode
	$(PY) -m pytest -q -p no:cacheprovider -n 3 --dist loadfile -o addopts="" -m "not system and not soak"

# The long crash, fuzz and soak runs (tests marked soak). Their lengths, each defaulting to
# what it was written with: MQPY_FUZZ_SEED/FLOWS/SECONDS (tests/soak: 800 flows, 200 s),
# MQPY_CHAOS_SEED/FAULTS (tests/chaos: 100 faults), MQPY_CRASH_KILLS/SEED
# (tests/recovery/test_crash.py: 150 kills), MQPY_SOAK_EXAMPLES_PERCENT (the robustness
# differentials' examples: 100).
soak: $(STAMP) test-bytecode
	$(PY) -m pytest -q -p no:cacheprovider -m soak -o addopts=""

# pymqi's own test suite (../shared/peer-tests/pymqi, never copied here) against a queue
# manager set up as pymqi's CI sets up IBM's developer container: tests/peer/pymqi_suite.py
compat: $(STAMP) bytecode
	$(PY) -m tests.peer.pymqi_suite

# The bench extra (pika), and Debian's rabbitmq-server for benchmarks/vs_rabbitmq.py, which
# says it is skipped where it cannot be installed.
BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP) bytecode
	@[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rabbitmq-server) \
	  >/dev/null 2>&1 || echo "rabbitmq-server not installed: benchmarks/vs_rabbitmq.py will be skipped"; }
	$(PY) -m benchmarks.run --out benchmarks/results.json
	$(PY) -m benchmarks.channel_bench --out benchmarks/channel_results.json
	$(PY) -m benchmarks.channel_daemons_bench --out benchmarks/channel_daemons_results.json
	$(PY) -m benchmarks.client_bench --out benchmarks/client_results.json
	$(PY) -m benchmarks.client_bench --deployed --no-tls --out benchmarks/client_deployed_results.json
	$(PY) -m benchmarks.bindings_bench --out benchmarks/bindings_results.json
	$(PY) -m benchmarks.bindings_cpu_bench --out benchmarks/bindings_cpu_results.json
	$(PY) -m benchmarks.deployed_bench --out benchmarks/deployed_results.json
	$(PY) -m benchmarks.vs_rabbitmq --out benchmarks/vs_rabbitmq_results.json
	$(PY) -m benchmarks.report_bench --out benchmarks/report_results.json
	$(PY) -m benchmarks.web_bench --out benchmarks/web_results.json
	$(PY) -m benchmarks.startup_bench --out benchmarks/startup_results.json
	$(PY) -m benchmarks.pubsub_bench --out benchmarks/pubsub_results.json
	$(PY) -m benchmarks.idle_bench --out benchmarks/idle_results.json

demo: $(STAMP) bytecode
	$(PY) -m examples.demo

# ruff, then the layers contract (mqpy < mqpy_chinit < mqpy_cli, no import cycles:
# tests/architecture, also part of `make test`)
lint: $(STAMP)
	$(VENV)/bin/ruff check mqpy mqpy_chinit mqpy_cli tests benchmarks examples
	$(PY) -m pytest -q -p no:cacheprovider tests/architecture

clean:
	rm -rf $(VENV) build *.egg-info
