"""crtmqm, strmqm, endmqm, dspmq, dltmqm: IBM's messages and return codes, and what
applications see when the queue manager ends under them."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.version import VRMF
from mqpy_cli.control import format_dspmq_line
from tests.support.installation import QM


def _status(install) -> str:
    proc = install.run("dspmq", "-m", QM)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_dspmq_layout_is_ibms():
    """Given a queue manager name, when dspmq formats it, then STATUS starts in column 57 (a
    48-character name field after QMNAME()."""
    assert format_dspmq_line("QM1", "Running") == (
        "QMNAME(QM1)                                              STATUS(Running)")


def test_create_start_twice_end_delete_with_ibm_return_codes(install):
    """Given a data path, when a queue manager is created, started twice, ended and deleted,
    then the commands answer with IBM's messages and return codes and dspmq follows along."""
    assert install.run("crtmqm", QM).returncode == 0
    again = install.run("crtmqm", QM)
    assert (again.returncode, again.stderr.strip()) == (
        8, "AMQ8110E: IBM MQ queue manager already exists.")
    assert _status(install) == format_dspmq_line(QM, "Ended normally")

    started = install.run("strmqm", QM)
    assert started.returncode == 0, started.stderr
    assert "IBM MQ queue manager 'QM1' starting." in started.stdout
    assert f"IBM MQ queue manager 'QM1' started using V{VRMF}." in started.stdout
    assert _status(install) == format_dspmq_line(QM, "Running")
    twice = install.run("strmqm", QM)
    assert (twice.returncode, twice.stderr.strip()) == (5, "IBM MQ queue manager running.")
    busy = install.run("dltmqm", QM)
    assert (busy.returncode, busy.stderr.strip()) == (5, "IBM MQ queue manager running.")

    ended = install.run("endmqm", "-w", QM)
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.splitlines()[-1] == "IBM MQ queue manager 'QM1' ended."
    assert _status(install) == format_dspmq_line(QM, "Ended normally")
    not_running = install.run("endmqm", QM)
    assert (not_running.returncode, not_running.stderr.strip()) == (
        40, "AMQ8146E: IBM MQ queue manager not available.")
    log = open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")).read()
    assert "AMQ8003I: IBM MQ queue manager 'QM1' started" in log
    assert "AMQ8004I: IBM MQ queue manager 'QM1' ended." in log

    deleted = install.run("dltmqm", QM)
    assert (deleted.returncode, deleted.stdout.strip()) == (
        0, "IBM MQ queue manager 'QM1' deleted.")
    assert not os.path.exists(install.qmdir())
    for command in ("dltmqm", "strmqm", "endmqm"):
        gone = install.run(command, QM)
        assert (gone.returncode, gone.stderr.strip()) == (
            16, "AMQ8118E: IBM MQ queue manager does not exist."), command
    assert install.run("dspmq", "-m", QM).returncode == 72


def test_immediate_end_and_a_killed_daemon_show_in_dspmq(install):
    """Given a running queue manager, when it is ended with -i, then dspmq says Ended
    immediately; when its process is killed, dspmq says Ended unexpectedly."""
    install.create(queues=())
    install.start()
    assert install.run("endmqm", "-i", QM).returncode == 0
    assert _status(install) == format_dspmq_line(QM, "Ended immediately")
    pid = install.start()
    os.kill(pid, signal.SIGKILL)
    install.wait_ended()
    assert _status(install) == format_dspmq_line(QM, "Ended unexpectedly")
    assert install.start()  # and it restarts


def test_what_the_daemon_writes_outside_its_error_log_is_kept(install):
    """Given a queue manager whose daemon's interpreter writes to stderr (here Python's
    import-time profile, asked for through the environment strmqm passes on), when strmqm
    starts it, then that output is in the queue manager's errors/daemon.out, not lost."""
    install.create(queues=())
    install.env["PYTHONPROFILEIMPORTTIME"] = "1"
    install.start()
    with open(os.path.join(install.qmdir(), "errors", "daemon.out")) as f:
        assert "import time:" in f.read()


def test_a_killed_daemon_breaks_connections_with_2009(install):
    """Given an application connected over bindings, when the queue-manager process is
    SIGKILLed, then its next call fails with MQRC_CONNECTION_BROKEN, and so do later ones."""
    install.create(queues=("Q1",))
    pid = install.start()
    qm = mqpy.connect(QM)
    q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT)
    q.put(b"before")
    os.kill(pid, signal.SIGKILL)
    install.wait_ended()
    for _ in range(2):
        try:
            q.put(b"after")
        except mqpy.MQMIError as e:
            assert (e.comp, e.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
        else:
            raise AssertionError("the put succeeded on a dead queue manager")


def test_controlled_end_fails_a_waiting_fail_if_quiescing_get_with_2161(install):
    """Given a get waiting with MQGMO_FAIL_IF_QUIESCING, when endmqm -c is issued, then the
    get fails with MQRC_Q_MGR_QUIESCING at once, new connections are refused, and the queue
    manager ends when the application disconnects."""
    install.create(queues=("Q1",))
    install.start()
    qm = mqpy.connect(QM)
    q = mqpy.Queue(qm, "Q1", CMQC.MQOO_INPUT_AS_Q_DEF)
    outcome = {}

    def wait_for_message() -> None:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                       WaitInterval=CMQC.MQWI_UNLIMITED)
        try:
            q.get(None, mqpy.MD(), gmo)
        except mqpy.MQMIError as e:
            outcome["reason"] = e.reason

    waiter = threading.Thread(target=wait_for_message)
    waiter.start()
    time.sleep(0.3)
    ended = install.run("endmqm", "-c", QM)
    assert ended.returncode == 0
    assert ended.stdout.startswith("Quiesce request accepted.")
    waiter.join(10)
    assert outcome == {"reason": CMQC.MQRC_Q_MGR_QUIESCING}
    try:
        mqpy.connect(QM)
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_Q_MGR_QUIESCING
    else:
        raise AssertionError("a new connection was accepted while quiescing")
    assert _status(install) == format_dspmq_line(QM, "Quiescing")
    qm.disconnect()
    install.wait_ended()
    assert _status(install) == format_dspmq_line(QM, "Ended normally")


def test_a_damaged_log_stops_strmqm_with_amq7017_naming_the_file(install):
    """Given forced persistent puts after the last checkpoint and a byte flipped inside the
    middle one, when strmqm runs, then it fails with 23 and AMQ7017S naming the log file and
    offset, on the console and in the error log."""
    install.create(queues=("Q1",))
    pid = install.start()
    qm = mqpy.connect(QM)
    for tag in (b"AAAA", b"DAMAGE-ME", b"CCCC"):
        qm.put1("Q1", tag * 20, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    os.kill(pid, signal.SIGKILL)  # no clean checkpoint: restart must replay these records
    install.wait_ended()
    segment = os.path.join(install.qmdir(), "log", "S0000000.LOG")
    with open(segment, "r+b") as f:
        blob = f.read()
        at = blob.index(b"DAMAGE-ME")
        f.seek(at)
        f.write(b"X")
    failed = install.run("strmqm", QM)
    assert failed.returncode == 23, failed.stdout + failed.stderr
    assert "AMQ7017S: Log not available." in failed.stderr
    assert "S0000000.LOG" in failed.stderr
    log = open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")).read()
    assert "AMQ7017S" in log and "S0000000.LOG" in log
    assert "Traceback" not in failed.stderr


def test_a_bad_qm_ini_number_stops_strmqm_with_amq8940_naming_it(install):
    """Given a qm.ini whose Channels stanza says MaxChannels=lots, or whose Log stanza has a
    LogPrimaryFiles out of range, when strmqm runs, then it fails with 39 and AMQ8940E naming
    the file, stanza, key and value, on the console and in the error log, with no FDC and no
    traceback, and nothing is left running; once the value is corrected it starts."""
    from mqpy import config

    install.create(queues=("Q1",))
    ini = os.path.join(install.qmdir(), "qm.ini")
    good = open(ini).read()
    for stanza, key, value in (("Channels", "MaxChannels", "lots"),
                               ("Log", "LogPrimaryFiles", "0")):
        config.write_stanzas(ini, [(n, {**v, key: value} if n == stanza else v)
                                   for n, v in config.read_stanzas(ini)])
        failed = install.run("strmqm", QM)
        assert failed.returncode == 39, failed.stdout + failed.stderr
        assert "AMQ8940E" in failed.stderr
        assert f"{stanza}: {key}={value} is not a number" in failed.stderr
        assert "Traceback" not in failed.stderr
        assert "STATUS(Running)" not in install.run("dspmq", "-m", QM).stdout
        log = open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")).read()
        assert f"{stanza}: {key}={value}" in log
        assert not [f for f in os.listdir(os.path.join(install.qmdir(), "errors"))
                    if f.endswith(".FDC")]
        with open(ini, "w") as f:
            f.write(good)
    install.start()
    assert install.run("endmqm", "-i", QM).returncode == 0


def test_a_bad_qm_ini_number_refuses_an_embedded_start_and_dltmqm_still_deletes(tmp_path):
    """Given a queue manager whose qm.ini has LogFilePages=abc, when an application starts
    it in its own process, then MQCONN fails with 2059 (MQRC_Q_MGR_NOT_AVAILABLE) and the
    error log has AMQ8940E naming the value, no traceback; dltmqm still deletes it."""
    from click.testing import CliRunner

    import mqpy
    from mqpy import CMQC, config
    from mqpy_cli.control import dltmqm

    root = str(tmp_path)
    mqpy.embedded("BADINI", data_path=root).disconnect()
    mqpy.stop_embedded("BADINI", data_path=root)
    qmdir = config.qmgr_dir("BADINI", root)
    ini = os.path.join(qmdir, "qm.ini")
    config.write_stanzas(ini, [(n, {**v, "LogFilePages": "abc"} if n == "Log" else v)
                               for n, v in config.read_stanzas(ini)])
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.embedded("BADINI", data_path=root, create=False)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    log = open(os.path.join(qmdir, "errors", "AMQERR01.LOG")).read()
    assert "AMQ8940E" in log and "Log: LogFilePages=abc" in log
    result = CliRunner().invoke(dltmqm, ["--data-path", root, "BADINI"])
    assert result.exit_code == 0, result.output
    assert not os.path.exists(qmdir)


def test_qm_ini_numbers_are_read_whatever_the_case_within_their_ranges(tmp_path):
    """Given qm.ini keys in IBM's other spelling (PIPELINELENGTH, maxchannels), when the
    configuration is loaded, then they are read; a value outside its range or not a number
    is a ConfigError naming the stanza and key."""
    import pytest

    from mqpy import config

    qmdir = config.qmgr_dir("CFGQM", str(tmp_path))
    os.makedirs(qmdir)
    ini = os.path.join(qmdir, "qm.ini")
    config.write_stanzas(ini, [("Log", {"LogFilePages": "64"}),
                               ("Channels", {"maxchannels": "7", "PIPELINELENGTH": "2"})])
    cfg = config.QMgrConfig.load("CFGQM", str(tmp_path))
    assert cfg.log.LogFilePages == 64
    # the numbers are kept as load checked them, for the channel initiator
    assert cfg.channel_limits == config.ChannelsConfig(
        max_channels=7, max_active_channels=7, pipeline_length=2)
    assert config.ChannelsConfig.parse({"PipeLineLength": "9"}).pipeline_length == 2
    assert config.ChannelsConfig.parse(None) == config.ChannelsConfig()
    for stanza, key, value in (("Channels", "MaxInitiators", "4"),
                               ("Channels", "AdoptNewMCATimeout", "x"),
                               ("Log", "LogFilePages", "3")):
        config.write_stanzas(ini, [(stanza, {key: value})])
        with pytest.raises(config.ConfigError) as err:
            config.QMgrConfig.load("CFGQM", str(tmp_path))
        assert (err.value.stanza, err.value.key, err.value.value) == (stanza, key, value)


def test_runmqchi_and_runmqchl_refuse_a_qm_ini_edited_after_strmqm_with_exit_20(install):
    """Given a running queue manager whose qm.ini is then edited to PipeLineLength=x, when
    runmqchi (or runmqchl) starts, then it ends with 20 (the queue manager cannot be served)
    and AMQ8940E naming the stanza, key and value, no traceback, as strmqm refuses the same
    file; it does not fall back to a default."""
    import subprocess
    import sys

    from mqpy import config

    install.create(queues=())
    install.start()
    ini = os.path.join(install.qmdir(), "qm.ini")
    config.set_channels_value(QM, "PipeLineLength", "x", install.root)
    assert "PipeLineLength=x" in open(ini).read()
    for command, args in (("runmqchi", ["-m", QM]), ("runmqchl", ["-c", "ANY", "-m", QM])):
        done = subprocess.run(
            [sys.executable, "-c", f"import sys; from mqpy_cli.chinit import {command} as c; "
             f"c.main(args=sys.argv[1:], prog_name='{command}')", *args,
             "--data-path", install.root],
            env=install.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 20, (command, done.stdout, done.stderr)
        assert "AMQ8940E" in done.stderr and "Channels: PipeLineLength=x" in done.stderr
        assert "Traceback" not in done.stderr
    assert install.run("endmqm", "-i", QM).returncode == 0


def test_chinit_restart_waits_double_each_time_it_ends_before_serving():
    """Given a channel initiator that had served SYSTEM.CHANNEL.INITQ, when it ends, then it is
    restarted after 1 s; given restarts that end before serving (a qm.ini it refuses), then
    each waits twice as long as the last, up to a minute, and a serving one starts over."""
    from mqpy.daemon import CHINIT_RETRY_MAX, chinit_restart_delay

    assert chinit_restart_delay(True, None) == 1.0
    assert chinit_restart_delay(False, None) == 1.0
    waits, delay = [], None
    for ready in (True, False, False, False):
        delay = chinit_restart_delay(ready, delay)
        waits.append(delay)
    assert waits == [1.0, 2.0, 4.0, 8.0]
    assert chinit_restart_delay(False, 50.0) == CHINIT_RETRY_MAX == 60.0
    assert chinit_restart_delay(True, 60.0) == 1.0


def test_a_channel_initiator_refusing_its_qm_ini_is_restarted_less_and_less_often(install):
    """Given a running queue manager whose qm.ini is then edited to PipeLineLength=x, when its
    channel initiator is killed, then the daemon restarts it after 1 s (AMQ9570E), each
    restart ends with 20, and the next restarts wait 2 s, then 4 s: not one a second."""
    from mqpy import config

    install.env = {k: v for k, v in install.env.items() if k != "MQPY_NO_CHINIT"}
    install.create(queues=())
    install.start()
    deadline = time.monotonic() + 30
    while install.chinit_pid() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    pid = install.chinit_pid()
    assert pid is not None
    config.set_channels_value(QM, "PipeLineLength", "x", install.root)
    os.kill(pid, signal.SIGKILL)
    log = os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")
    waits: list[str] = []
    deadline = time.monotonic() + 30
    while len(waits) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        text = open(log, errors="replace").read() if os.path.exists(log) else ""
        waits = [line.split("restarted in ")[1].split()[0]
                 for line in text.splitlines() if "restarted in " in line]
    assert waits[:3] == ["1", "2", "4"], waits
    assert install.run("endmqm", "-i", QM).returncode == 0
