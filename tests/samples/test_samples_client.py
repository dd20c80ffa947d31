"""The client samples (amqsputc, amqsgetc, amqsbcgc, amqsreqc) connect as IBM's client
library does: through the channel MQSERVER names, never a queue manager of this machine;
MQSAMP_USER_ID's user with the password read from standard input, a wrong one refused with
2035; no channel to be found is MQCONNX's 2058. The bindings samples take IBM's further
arguments (open and close options, the target queue manager)."""

from __future__ import annotations

from .conftest import PASSWORD, USER, sample


def test_given_mqserver_when_amqsputc_then_amqsgetc_then_the_lines_go_through_the_channel(
        site):
    env = site.env(client=True)
    put = sample(env, "amqsputc", "SAMP.PUT", "SAMPQM", stdin="first\nsecond\n\n")
    assert put.returncode == 0, put.stdout + put.stderr
    assert put.stdout.splitlines() == ["Sample AMQSPUT0 start", "target queue is SAMP.PUT",
                                       "Sample AMQSPUT0 end"]
    browse = sample(env, "amqsbcgc", "SAMP.PUT", "SAMPQM")
    assert " MQGET of message number 2, CompCode:0 Reason:0" in browse.stdout
    assert "  Format : 'MQSTR   '" in browse.stdout
    get = sample(env, "amqsgetc", "SAMP.PUT", "SAMPQM", "8193", timeout=60)
    assert get.stdout.splitlines() == [
        "Sample AMQSGET0 start", "open  options are 8193", "message <first>",
        "message <second>", "no more messages", "Sample AMQSGET0 end"]
    # the channel instance of each client is the SVRCONN's: the bindings route was not open
    assert "MQPY_DATA_PATH" in env and "no-qmgrs-here" in env["MQPY_DATA_PATH"]


def test_given_no_channel_when_a_client_sample_connects_then_mqconnx_2058(site):
    """Neither MQSERVER nor a CCDT: IBM's client has no channel to use (2058), and the
    sample exits with the reason."""
    env = site.env(client=True)
    del env["MQSERVER"]
    put = sample(env, "amqsputc", "SAMP.PUT", "SAMPQM", stdin="lost\n")
    assert put.returncode == 2058 & 0xFF  # exit(2058), as the shell sees IBM's too
    assert put.stdout.splitlines() == ["Sample AMQSPUT0 start",
                                       "MQCONNX ended with reason code 2058"]


def test_given_mqsamp_user_id_when_amqsputc_then_the_password_is_read_from_stdin(site):
    env = site.env(client=True, MQSAMP_USER_ID=USER)
    put = sample(env, "amqsputc", "SAMP.AUTH", "SAMPQM", stdin=f"{PASSWORD}\nsecret data\n")
    assert put.stdout.splitlines() == [
        "Sample AMQSPUT0 start", "Enter password: target queue is SAMP.AUTH",
        "Sample AMQSPUT0 end"]
    get = sample(site.env(client=True, MQSAMP_USER_ID=USER), "amqsgetc", "SAMP.AUTH",
                 "SAMPQM", stdin=f"{PASSWORD}\n")
    assert get.stdout.splitlines()[:2] == ["Sample AMQSGET0 start",
                                           "Enter password: message <secret data>"]


def test_given_a_wrong_password_when_amqsgetc_connects_then_2035(site):
    env = site.env(client=True, MQSAMP_USER_ID=USER)
    get = sample(env, "amqsgetc", "SAMP.AUTH", "SAMPQM", stdin="not-the-password\n")
    assert get.returncode == 2035 & 0xFF
    assert get.stdout.splitlines() == ["Sample AMQSGET0 start",
                                       "Enter password: MQCONNX ended with reason code 2035"]


def test_given_a_reply_queue_when_amqsreqc_sends_to_an_unknown_queue_then_2085(site):
    req = sample(site.env(client=True), "amqsreqc", "NO.SUCH.QUEUE", "SAMPQM",
                 stdin="ping\n")
    lines = req.stdout.splitlines()
    assert lines[0] == "Sample AMQSREQ0 start" and lines[1] == "server queue is NO.SUCH.QUEUE"
    assert lines[-3:] == ["MQOPEN ended with reason code 2085",
                          "unable to open queue for output", "Sample AMQSREQ0 end"]


def test_given_ibms_further_arguments_when_amqsput_runs_then_it_says_and_uses_them(site):
    """amqsput QUEUE QMGR OPEN CLOSE TARGET_QMGR: IBM's lines for each; the open options
    given (MQOO_INQUIRE alone, 32) make MQPUT fail with 2039, as IBM's would."""
    put = sample(site.env(), "amqsput", "SAMP.PUT", "SAMPQM", "32", "0", "SAMPQM",
                 stdin="never\n")
    assert put.stdout.splitlines() == [
        "Sample AMQSPUT0 start", "target queue is SAMP.PUT", "target queue manager is SAMPQM",
        "open  options are 32", "MQPUT ended with reason code 2039", "close options are 0",
        "Sample AMQSPUT0 end"]


def test_given_a_local_queue_manager_when_amqsputc_connects_then_only_the_channel_counts(
        site):
    """The queue manager reachable through bindings too, MQSERVER naming a channel it does
    not have: the client sample goes to the channel (2540, IBM's for an unknown channel)
    where the bindings sample connects."""
    env = site.env(MQSERVER=f"NO.SUCH.SVRCONN/TCP/{site.conname}")
    put = sample(env, "amqsputc", "SAMP.PUT", "SAMPQM", stdin="refused\n")
    assert put.stdout.splitlines() == ["Sample AMQSPUT0 start",
                                       "MQCONNX ended with reason code 2540"]
    bindings = sample(env, "amqsput", "SAMP.PUT", "SAMPQM", stdin="\n")
    assert bindings.stdout.splitlines() == ["Sample AMQSPUT0 start",
                                            "target queue is SAMP.PUT", "Sample AMQSPUT0 end"]
