"""The control commands take IBM's options where they make sense here (dspmq -a -n -x -o
installation|standby|default|all, strmqm -z -c, endmqm -z, dspmqver -b -f -p -a -v -i) and
refuse the others as IBM does: the usage line, return code 36."""

from __future__ import annotations

import json
import os
import socket

import pytest

from mqpy import inprocess
from mqpy.engine.objects import SYSTEM_OBJECTS
from mqpy.version import VRMF
from mqpy_cli.control import (
    crtmqm,
    dltmqm,
    dspmq,
    dspmqver,
    endmqm,
    format_dspmq_line,
    strmqm,
)
from mqpy_cli.usage import RC_INVALID_ARGS
from tests.support.cli import run

pytestmark = pytest.mark.system  # dspmqver asks the platform (uname) in a subprocess


@pytest.fixture
def root(tmp_path) -> str:
    """QM1 running in this process (it holds qm.lock, as a daemon does), QM2 created only."""
    root = str(tmp_path)
    for name in ("QM1", "QM2"):
        assert run(crtmqm, name, root=root).exit_code == 0
    inprocess.start("QM1", root)
    yield root
    inprocess.stop_all()


def _lines(result) -> list[str]:
    return result.output.splitlines()


def test_given_one_running_and_one_ended_when_dspmq_a_then_only_the_running_one(root):
    assert _lines(run(dspmq, "-a", root=root)) == [
        "QMNAME(QM1)                                              STATUS(Running)"]
    assert run(dspmq, "-n", "-a", root=root).output == run(dspmq, "-a", root=root).output


def test_given_a_running_queue_manager_when_dspmq_x_then_its_instance_is_active(root):
    assert _lines(run(dspmq, "-x", "-m", "QM1", root=root)) == [
        "QMNAME(QM1)                                              STATUS(Running)",
        f"    INSTANCE({socket.gethostname()}) MODE(Active)"]
    assert _lines(run(dspmq, "-x", "-m", "QM2", root=root)) == [
        "QMNAME(QM2)                                              STATUS(Ended normally)"]


def test_when_dspmq_o_installation_then_it_names_the_installation_and_its_version(root):
    line = _lines(run(dspmq, "-o", "installation", "-m", "QM2", root=root))[0]
    assert line.startswith("QMNAME(QM2)") and "STATUS(" not in line
    assert "INSTNAME(Installation1)" in line and f"INSTVER({VRMF})" in line
    assert "INSTPATH(" in line


def test_when_dspmq_o_standby_then_a_single_instance_is_not_permitted_to_stand_by(root):
    assert "STANDBY(Not permitted)" in run(dspmq, "-o", "standby", "-m", "QM1", root=root).output
    assert "STANDBY(Not applicable)" in run(dspmq, "-o", "standby", "-m", "QM2",
                                            root=root).output


def test_when_dspmq_o_all_then_every_field_in_ibms_order(root):
    line = _lines(run(dspmq, "-o", "all", "-m", "QM1", root=root))[0]
    order = [line.index(f) for f in ("STATUS(", "DEFAULT(", "STANDBY(", "INSTNAME(",
                                     "INSTPATH(", "INSTVER(")]
    assert order == sorted(order)


def test_when_dspmq_o_json_then_scripts_read_every_field_of_each_queue_manager(root):
    """Given QM1 running and QM2 ended, when a script runs `dspmq -o json -x`, then one JSON
    document lists both with the fields -o all shows, by name, and -a keeps only QM1."""
    doc = json.loads(run(dspmq, "-o", "json", "-x", root=root).output)
    by_name = {q["name"]: q for q in doc["queueManagers"]}
    assert set(by_name) == {"QM1", "QM2"}
    assert by_name["QM1"]["status"] == "Running" and by_name["QM2"]["status"] == "Ended normally"
    assert by_name["QM1"]["instances"] == [{"host": socket.gethostname(), "mode": "Active"}]
    assert by_name["QM2"]["instances"] == [] and by_name["QM2"]["standby"] == "Not applicable"
    assert by_name["QM1"]["installationVersion"] == VRMF
    assert isinstance(by_name["QM1"]["default"], bool)
    active = json.loads(run(dspmq, "-o", "json", "-a", root=root).output)
    assert [q["name"] for q in active["queueManagers"]] == ["QM1"]


def test_given_an_option_ibm_has_and_mqpy_does_not_when_dspmq_then_usage_and_36(root):
    result = run(dspmq, "-c", root=root)
    assert result.exit_code == RC_INVALID_ARGS
    assert result.output.splitlines()[-1].startswith("Usage: dspmq [-a] [-m QMgrName]")


def test_given_options_ibm_has_for_standby_and_backups_when_strmqm_endmqm_then_usage(root):
    # (endmqm -r, reconnectable clients to reconnect, is taken: test_reconnect)
    for command, args in ((strmqm, ("-a", "QM2")), (endmqm, ("-s", "QM1"))):
        result = run(command, *args, root=root)
        assert result.exit_code == RC_INVALID_ARGS, (command.name, result.output)
        assert f"Usage: {command.name} " in result.output


def test_given_z_when_strmqm_or_endmqm_fails_then_no_message_but_the_return_code(root):
    missing = run(strmqm, "-z", "NOSUCH", root=root)
    assert (missing.exit_code, missing.output) == (16, "")
    not_running = run(endmqm, "-z", "QM2", root=root)
    assert (not_running.exit_code, not_running.output) == (40, "")


def test_when_dspmqver_b_f_then_only_the_fields_asked_for_without_labels(root):
    assert run(dspmqver, "-b", "-f", "2", root=root).output == f"{VRMF}\n"
    shown = _lines(run(dspmqver, "-f", "3", root=root))
    assert [line.split(":")[0] for line in shown] == ["Name", "Version"]
    assert run(dspmqver, "-a", root=root).output == run(dspmqver, root=root).output
    assert run(dspmqver, "-p", "1", "-v", "-i", root=root).exit_code == 0
    assert os.sep in run(dspmqver, "-b", "-f", "128", root=root).output  # InstPath


def test_given_a_default_queue_manager_when_strmqm_and_endmqm_name_none_then_it_is_used(
        tmp_path):
    """No name: IBM's strmqm and endmqm act on the default queue manager (crtmqm -q);
    without one, AMQ8118E and 16."""
    root = str(tmp_path)
    assert run(endmqm, root=root).exit_code == 16
    assert run(crtmqm, "-q", "QMD", root=root).exit_code == 0
    ended = run(endmqm, root=root)
    assert (ended.exit_code, ended.output.strip()) == (
        40, "AMQ8146E: IBM MQ queue manager not available.")


def test_given_a_running_queue_manager_when_endmqm_p_then_it_ends_pre_emptively(install):
    """endmqm -p: IBM's ending and ended lines, 0, dspmq says Ended pre-emptively, and the
    next strmqm recovers it."""
    install.create(queues=())
    install.start()
    ended = install.run("endmqm", "-p", "QM1")
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.splitlines() == ["IBM MQ queue manager 'QM1' ending.",
                                         "IBM MQ queue manager 'QM1' ended."]
    assert install.run("dspmq", "-m", "QM1").stdout.strip() == format_dspmq_line(
        "QM1", "Ended pre-emptively")
    install.start()
    assert "STATUS(Running)" in install.run("dspmq", "-m", "QM1").stdout


def test_given_ibms_crtmqm_options_when_a_queue_manager_is_created_then_it_has_them(tmp_path):
    """crtmqm -c DESCR, -d DEFXMITQ, -h MAXHANDS, -t TRIGINT, -x MAXUMSGS and -p a listener
    that starts and stops with the queue manager."""
    root = str(tmp_path)
    made = run(crtmqm, "-c", "Orders hub", "-d", "TO.QM2", "-h", "300", "-t", "5000",
               "-x", "500", "-p", "1415", "QMA", root=root)
    assert made.exit_code == 0, made.output
    eng = inprocess.start("QMA", root)
    try:
        qmgr = eng.catalog.qmgr
        assert (qmgr["DESCR"], qmgr["DEFXMITQ"], qmgr["MAXHANDS"], qmgr["TRIGINT"],
                qmgr["MAXUMSGS"]) == ("Orders hub", "TO.QM2", 300, 5000, 500)
        listener = eng.lookup("LISTENER", "SYSTEM.LISTENER.TCP.1").attributes
        assert (listener["PORT"], listener["CONTROL"]) == (1415, "QMGR")
    finally:
        inprocess.stop_all()
    assert run(dspmq, "-m", "QMA", root=root).output.strip() == format_dspmq_line(
        "QMA", "Ended normally")


def test_given_crtmqm_z_or_a_bad_option_when_creating_then_ibms_answers(tmp_path):
    root = str(tmp_path)
    assert run(crtmqm, "QMA", root=root).exit_code == 0
    again = run(crtmqm, "-z", "QMA", root=root)
    assert (again.exit_code, again.output) == (8, "")
    refused = run(crtmqm, "-lla", "QMB", root=root)
    assert refused.exit_code == 39 and "Usage: crtmqm " in refused.output
    too_long = run(crtmqm, "-c", "x" * 65, "QMB", root=root)
    assert too_long.exit_code == 39 and "AMQ7027E" in too_long.output


def test_given_z_when_dltmqm_finds_no_queue_manager_then_16_without_a_message(tmp_path):
    result = run(dltmqm, "-z", "NOSUCH", root=str(tmp_path))
    assert (result.exit_code, result.output) == (16, "")
    assert "Usage: dltmqm [-z] QMgrName" in run(dltmqm, "-a", "X", root=str(tmp_path)).output


def test_given_changed_default_objects_when_strmqm_c_then_they_are_reset_and_it_stops(root):
    """Given ended QM2 whose SYSTEM.DEFAULT.LOCAL.QUEUE was altered (MAXDEPTH 7, TRIGDATA,
    DESCR) and whose SYSTEM.DEFAULT.PROCESS was deleted, and an application queue APP.Q,
    when the administrator runs strmqm -c QM2, then it says IBM's default-objects lines (1
    created, the rest replaced, 0 failed), exits 0 and leaves QM2 ended; the default local
    queue has IBM's defaults again (reset, not merged: TRIGDATA is blank), the process is
    back, and APP.Q with its messages is untouched."""
    eng = inprocess.start("QM2", root)
    eng.alter("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE",
              {"MAXDEPTH": 7, "TRIGDATA": "left over", "DESCR": "changed"})
    eng.delete("PROCESS", "SYSTEM.DEFAULT.PROCESS")
    eng.define("QLOCAL", "APP.Q", {"MAXDEPTH": 9})
    inprocess.stop("QM2", root)
    result = run(strmqm, "-c", "QM2", root=root)
    assert result.exit_code == 0, result.output
    lines = _lines(result)
    assert lines[0] == "IBM MQ queue manager 'QM2' starting."
    total = len(SYSTEM_OBJECTS)
    assert f"Default objects statistics : 1 created. {total - 1} replaced. 0 failed." in lines
    assert lines[-1] == "Setup completed.", lines
    assert not inprocess.is_locked(os.path.join(root, "qmgrs", "QM2"))
    eng = inprocess.start("QM2", root)
    try:
        local = eng.lookup("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE").attributes
        assert (local["MAXDEPTH"], local["TRIGDATA"], local["DESCR"]) == (5000, "", "")
        assert eng.lookup("PROCESS", "SYSTEM.DEFAULT.PROCESS") is not None
        assert eng.lookup("QLOCAL", "APP.Q").attributes["MAXDEPTH"] == 9
    finally:
        inprocess.stop("QM2", root)


def test_given_a_running_queue_manager_when_strmqm_c_then_it_is_refused_as_running(root):
    """Given QM1 running, when strmqm -c QM1, then it is refused as strmqm refuses a running
    queue manager ("IBM MQ queue manager running.", 5) and nothing is replaced."""
    result = run(strmqm, "-c", "QM1", root=root)
    assert result.exit_code == 5 and "running" in result.output, result.output
