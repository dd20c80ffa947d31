"""amqspub publishes each line of standard input on a topic string and amqssub subscribes
(non-durable, managed) and prints each publication, with IBM's lines; their client variants
(amqspubc, amqssubc) do the same through the channel MQSERVER names."""

from __future__ import annotations

from .conftest import read_until, sample, started


def _subscriber(env, name: str, topic: str):
    proc = started(env, name, topic, "SAMPQM")
    assert read_until(proc, "Calling MQGET") == [
        "Sample AMQSSUBA start", "Calling MQGET : 30 seconds wait time"]
    return proc


def test_given_a_subscriber_when_amqspub_publishes_lines_then_amqssub_prints_them(site):
    sub = _subscriber(site.env(), "amqssub", "samples/prices/fruit")
    try:
        pub = sample(site.env(), "amqspub", "samples/prices/fruit", "SAMPQM",
                     stdin="apples 12\npears 9\n\nnot published\n")
        assert pub.returncode == 0, pub.stdout + pub.stderr
        assert pub.stdout.splitlines() == ["Sample AMQSPUBA start",
                                           "target topic is samples/prices/fruit",
                                           "Sample AMQSPUBA end"]
        assert read_until(sub, "message <pears 9>") == [
            "message <apples 12>", "Calling MQGET : 30 seconds wait time",
            "message <pears 9>"]
    finally:
        sub.kill()
        sub.wait()


def test_given_amqssubc_when_amqspubc_publishes_then_it_arrives_through_the_channel(site):
    sub = _subscriber(site.env(client=True), "amqssubc", "samples/client/news")
    try:
        pub = sample(site.env(client=True), "amqspubc", "samples/client/news", "SAMPQM",
                     "8196", stdin="headline\n")
        assert pub.stdout.splitlines() == ["Sample AMQSPUBA start", "publish options are 8196",
                                           "target topic is samples/client/news",
                                           "Sample AMQSPUBA end"]
        assert read_until(sub, "message <")[-1] == "message <headline>"
    finally:
        sub.kill()
        sub.wait()


def test_given_a_publication_longer_than_its_buffer_when_amqssub_gets_it_then_2080_and_end(
        site):
    """IBM's subscriber reads into 1023 bytes and treats a longer publication as a failure:
    MQGET's 2080, the subscription closed, the sample's end (exit 0)."""
    sub = _subscriber(site.env(), "amqssub", "samples/long")
    try:
        sample(site.env(), "amqspub", "samples/long", "SAMPQM", stdin="x" * 2000 + "\n")
        out, _ = sub.communicate(timeout=60)
    finally:
        sub.kill()
        sub.wait()
    assert out.splitlines() == ["MQGET ended with reason code 2080", "Sample AMQSSUBA end"]
    assert sub.returncode == 0


def test_given_no_topic_string_when_amqspub_or_amqssub_runs_then_99(site):
    pub = sample(site.env(), "amqspub")
    assert pub.returncode == 99
    assert pub.stdout.splitlines() == ["Sample AMQSPUBA start",
                                       "Required parameter missing - topic string"]
    sub = sample(site.env(), "amqssub")
    assert sub.returncode == 99
    assert sub.stdout.splitlines() == ["Sample AMQSSUBA start",
                                       "Required parameter missing - topic string"]
