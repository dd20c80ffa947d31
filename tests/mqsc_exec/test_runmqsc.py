"""runmqsc through the command server, and the CLI's exit codes."""

from __future__ import annotations

from click.testing import CliRunner

from mqpy_cli.runmqsc import dspmqcsv, endmqcsv, run_local, runmqsc, strmqcsv
from tests.support.installation import Installation


def test_run_local_goes_through_the_command_server(qmgr):
    """Given an embedded queue manager, run_local sends each command as MQCMD_ESCAPE and
    prints the same report as the in-process processor."""
    _, eng, _ = qmgr
    lines, code = run_local(eng, "DEFINE QLOCAL(RL.Q)\nDISPLAY QLOCAL(RL.Q) MAXDEPTH\n"
                                 "DELETE QLOCAL(NOPE)\n")
    assert lines[4:] == [
        "     1 : DEFINE QLOCAL(RL.Q)", "AMQ8006I: IBM MQ queue created.",
        "     2 : DISPLAY QLOCAL(RL.Q) MAXDEPTH", "AMQ8409I: Display Queue details.",
        "   QUEUE(RL.Q)                             TYPE(QLOCAL)", "   MAXDEPTH(5000)",
        "     3 : DELETE QLOCAL(NOPE)", "AMQ8147E: IBM MQ object NOPE not found.",
        "3 MQSC commands read.", "No commands have a syntax error.",
        "One valid MQSC command could not be processed."]
    assert code == 10
    assert eng.lookup("QLOCAL", "RL.Q") is not None


def test_queue_manager_not_available_exits_20(tmp_path):
    """Given no running queue manager, runmqsc prints AMQ8146E and exits 20."""
    result = CliRunner().invoke(runmqsc, ["--data-path", str(tmp_path), "NOQM"],
                                input="DISPLAY QMGR\n")
    assert result.exit_code == 20
    assert result.output.splitlines()[1:] == ["Starting MQSC for queue manager NOQM.", "", "",
                                              "AMQ8146E: IBM MQ queue manager not available."]


def test_verify_needs_no_queue_manager(tmp_path):
    """Given -v, runmqsc checks syntax without a queue manager: 0 when clean, 10 otherwise."""
    ok = CliRunner().invoke(runmqsc, ["-v", "--data-path", str(tmp_path), "NOQM"],
                            input="DEFINE QLOCAL(A)\n")
    assert ok.exit_code == 0
    assert ok.output.splitlines()[-2:] == ["One MQSC command read.",
                                           "No commands have a syntax error."]
    bad = CliRunner().invoke(runmqsc, ["-v", "-e", "--data-path", str(tmp_path), "NOQM"],
                             input="DEFINE QLOCAL(A) XYZ\n")
    assert bad.exit_code == 10
    assert "     1 : " not in bad.output


def test_command_server_commands_need_a_running_queue_manager(tmp_path):
    """Given no running queue manager, strmqcsv/endmqcsv/dspmqcsv answer AMQ8146E, exit 40."""
    for cmd in (strmqcsv, endmqcsv, dspmqcsv):
        result = CliRunner().invoke(cmd, ["--data-path", str(tmp_path), "QM1"])
        assert result.exit_code == 40
        assert "AMQ8146E" in result.output


def test_endmqcsv_strmqcsv_dspmqcsv_on_a_daemon(tmp_path):
    """Given a queue manager started with strmqm, when endmqcsv then strmqcsv run, then
    dspmqcsv reports Running, Stopped, Running, and commands are answered only while it
    runs.  spec: operations-dlq-clusters 7.7"""

    site = Installation(str(tmp_path))
    try:
        assert site.run("crtmqm", "CSVQM").returncode == 0
        assert site.run("strmqm", "CSVQM").returncode == 0
        root = str(tmp_path)

        def status() -> str:
            return CliRunner().invoke(dspmqcsv, ["--data-path", root, "CSVQM"]).output

        assert "Running" in status()
        out = CliRunner().invoke(endmqcsv, ["--data-path", root, "CSVQM"])
        assert out.exit_code == 0 and "AMQ8028I" in out.output
        assert "Stopped" in status()
        out = CliRunner().invoke(strmqcsv, ["--data-path", root, "CSVQM"])
        assert out.exit_code == 0 and "AMQ8024I" in out.output
        assert "Running" in status()
    finally:
        site.run("endmqm", "-i", "CSVQM")


def test_cli_against_a_queue_manager_in_this_process(qmgr):
    """Given QM1 embedded here with its command server, `runmqsc -e QM1` runs the script and
    exits 0 when every command worked."""
    from mqpy.cmdserver import start_command_server

    _, eng, root = qmgr
    start_command_server("QM1", root)
    result = CliRunner().invoke(runmqsc, ["-e", "--data-path", root, "QM1"],
                                input="DEFINE QLOCAL(CLI.Q)\nPING QMGR\n")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[4:6] == [
        "AMQ8006I: IBM MQ queue created.",
        "AMQ8415I: Ping IBM MQ queue manager command complete."]
    assert eng.lookup("QLOCAL", "CLI.Q") is not None
