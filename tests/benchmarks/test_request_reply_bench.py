"""The request/reply benchmarks (IBM MQ's requester/responder shape): a tiny run of each new
scenario completes, every request answered, and its JSON has the figures the comparison
with IBM MQ and RabbitMQ is read from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from benchmarks import deployed_bench, vs_rabbitmq

pytestmark = pytest.mark.system

REPO = deployed_bench.REPO
ROUND_TRIPS = 5  #: each requester's: enough to go round, few enough to be quick


def _is_cpu_split(figure: object) -> bool:
    return (isinstance(figure, list) and len(figure) == 2
            and all(isinstance(x, float) and x >= 0 for x in figure))


def _answered_every_request(result: dict, requesters: int) -> None:
    assert result["requesters"] == requesters
    assert result["responders"] == requesters
    assert result["message_bytes"] == 2048
    assert result["round_trips"] == requesters * ROUND_TRIPS
    assert result["round_trips_per_s"] > 0
    apps = result["application_cpu_us_per_round_trip_user_system"]
    assert set(apps) == {"requesters", "responders"}
    assert all(_is_cpu_split(us) for us in apps.values())
    assert sum(apps["requesters"]) > 0 and sum(apps["responders"]) > 0
    assert all(cpu >= 0 for cpu in result["server_cpu_us_per_round_trip"].values())


def test_each_request_reply_scenario_runs_on_the_deployed_path(tmp_path):
    # given: the deployed queue manager the benchmark makes (crtmqm, strmqm, a listener)
    out = tmp_path / "deployed.json"
    scenarios = [arg for name in deployed_bench.REQUEST_REPLY for arg in ("--scenario", name)]

    # when: each request/reply scenario runs a few round trips a requester
    proc = subprocess.run([sys.executable, "-m", "benchmarks.deployed_bench", "--count", "200",
                           "--round-trips", str(ROUND_TRIPS), "--out", str(out), *scenarios],
                          cwd=REPO, capture_output=True, text=True, timeout=280,
                          env={**os.environ, "PYTHONPATH": REPO})

    # then: every scenario's requests were answered, with its figures in the JSON
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {r["scenario"]: r for r in json.loads(out.read_text())["results"]["scenarios"]}
    assert set(results) == set(deployed_bench.REQUEST_REPLY)
    for name, shape in deployed_bench.REQUEST_REPLY.items():
        result = results[name]
        _answered_every_request(result, shape["requesters"])
        assert result["replies"] == result["round_trips"]
        assert result["persistent"] == shape.get("persistent", False)
        assert result["requester_connection"] == ("client" if shape.get("client")
                                                  else "bindings")
        calls = {"round_trip", "put", "get"} | (
            {"put_commit", "get_commit"} if result["persistent"] else set())
        assert calls <= set(result)
        assert all(result[call]["median_us"] > 0 for call in calls)
        assert set(result["server_cpu_us_per_round_trip"]) == {"qmgr", "chinit"}
        assert all(_is_cpu_split(us) for us in
                   result["server_cpu_us_per_round_trip_user_system"].values())


@pytest.mark.soak  # (a RabbitMQ node of its own: under `make soak`, beside `make bench`)
@pytest.mark.skipif(not os.path.exists(vs_rabbitmq.RABBITMQ_SERVER)
                    or shutil.which("epmd") is None,
                    reason="Debian's rabbitmq-server is not installed")
def test_each_request_reply_way_runs_with_rabbitmq():
    pytest.importorskip("pika")
    # given: a RabbitMQ node of the benchmark's own
    with vs_rabbitmq.RabbitMQ() as broker:
        # when: each request/reply way runs a few round trips a requester
        results = {way: vs_rabbitmq.rabbitmq_request_reply(broker, persistent, requesters,
                                                           ROUND_TRIPS)
                   for way, (persistent, requesters) in vs_rabbitmq.REQUEST_REPLY_WAYS.items()}

    # then: every request was answered, with the broker's CPU a round trip beside
    for way, (_, requesters) in vs_rabbitmq.REQUEST_REPLY_WAYS.items():
        _answered_every_request(results[way], requesters)
        assert set(results[way]["server_cpu_us_per_round_trip"]) == {"rabbitmq"}
