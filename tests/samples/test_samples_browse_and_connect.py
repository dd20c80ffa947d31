"""amqsgbr browses a queue showing each message's number and data (IBM's AMQSGBR0, the
messages left where they are); amqscnxc connects with the channel and connection name given
on its command line and shows the queue manager's name (IBM's AMQSCNXC), its usage and 99
for a command line IBM's sample refuses."""

from __future__ import annotations

from .conftest import CHANNEL, PASSWORD, USER, sample


def test_given_messages_when_amqsgbr_browses_then_it_lists_them_and_leaves_them(site):
    put = sample(site.env(), "amqsput", "SAMP.BROWSE", "SAMPQM", stdin="one\ntwo\n")
    assert put.returncode == 0, put.stdout + put.stderr
    for name, env in (("amqsgbr", site.env()), ("amqsgbrc", site.env(client=True))):
        gbr = sample(env, name, "SAMP.BROWSE", "SAMPQM")
        assert gbr.stdout.splitlines() == [
            "Sample AMQSGBR0 (browse) start", "SAMPQM", "Messages for " + "SAMP.BROWSE".ljust(48),
            "1 <one>", "2 <two>", "no more messages", "Sample AMQSGBR0 (browse) end"], name
    get = sample(site.env(), "amqsget", "SAMP.BROWSE", "SAMPQM")
    assert "message <one>" in get.stdout and "message <two>" in get.stdout


def test_given_an_unknown_queue_when_amqsgbr_browses_then_2085(site):
    gbr = sample(site.env(), "amqsgbr", "NO.SUCH.QUEUE", "SAMPQM")
    assert gbr.returncode == 0
    assert gbr.stdout.splitlines() == [
        "Sample AMQSGBR0 (browse) start", "SAMPQM", "MQOPEN ended with reason code 2085",
        "unable to open queue for input", "Sample AMQSGBR0 (browse) end"]


def test_given_a_conname_and_channel_when_amqscnxc_connects_then_it_names_the_qmgr(site):
    """No MQSERVER: the MQCD of -x and -c is the only way to the queue manager."""
    env = site.env(client=True)
    del env["MQSERVER"]
    cnx = sample(env, "amqscnxc", "-x", site.conname, "-c", CHANNEL, "SAMPQM")
    assert cnx.returncode == 0, cnx.stdout + cnx.stderr
    assert cnx.stdout.splitlines() == [
        "Sample AMQSCNXC start", "Connecting to queue manager " + "SAMPQM".ljust(48),
        f"using the server connection channel {CHANNEL}",
        f"on connection name {site.conname}.",
        "Connection established to queue manager " + "SAMPQM".ljust(48),
        "Sample AMQSCNXC end"]


def test_given_no_conname_when_amqscnxc_connects_then_the_client_finds_mqserver(site):
    cnx = sample(site.env(client=True), "amqscnxc", f"-u{USER}", stdin=f"{PASSWORD}\n")
    assert cnx.stdout.splitlines() == [
        "Sample AMQSCNXC start", "Connecting to the default queue manager",
        "with no client connection information specified.",
        "Enter password: Connection established to queue manager " + "SAMPQM".ljust(48),
        "Sample AMQSCNXC end"]


def test_given_the_default_channel_missing_when_amqscnxc_connects_then_mqconnx_fails(site):
    """-x without -c: SYSTEM.DEF.SVRCONN, IBM's default (blocked for this user by the
    back-stop rule of CHLAUTH, as on IBM MQ: 2035)."""
    env = site.env(client=True)
    del env["MQSERVER"]
    cnx = sample(env, "amqscnxc", "-x", site.conname, "SAMPQM")
    lines = cnx.stdout.splitlines()
    assert lines[2] == "using the server connection channel SYSTEM.DEF.SVRCONN"
    assert lines[-1].startswith("MQCONNX ended with reason code ")
    assert cnx.returncode == int(lines[-1].split()[-1]) & 0xFF


def test_given_a_channel_without_conname_when_amqscnxc_starts_then_usage_and_99(site):
    for argv in (["-c", CHANNEL, "SAMPQM"], ["-q"], ["QM1", "QM2"], ["?"], ["-x"]):
        cnx = sample(site.env(client=True), "amqscnxc", *argv)
        assert cnx.returncode == 99, argv
        assert cnx.stdout.splitlines() == [
            "Sample AMQSCNXC start", "Usage:",
            "\tamqscnxc [-x ConnName [-c SvrconnChannelName]] [-u User] [QMgrName]"], argv
