"""runmqsc's options as IBM documents them: -e leaves the commands out of the report, -v
checks them without a queue manager, and the options of other platforms (-x for z/OS, -n
for CCDT editing) are refused with the usage line and 20."""

from __future__ import annotations

from click.testing import CliRunner

from mqpy.cmdserver import start_command_server
from mqpy_cli.control import crtmqm
from mqpy_cli.runmqsc import runmqsc


def _run(*args: str, text: str = "DEFINE QLOCAL(Q1)\n"):
    return CliRunner().invoke(runmqsc, list(args), input=text)


def test_given_v_when_runmqsc_reads_a_script_then_it_verifies_it_without_a_queue_manager(
        tmp_path):
    result = _run("-v", "--data-path", str(tmp_path), "NOQM",
                  text="DEFINE QLOCAL(Q1)\nDEFINE QLOCAL\n")
    assert "AMQ8146E" not in result.output  # nothing connected
    assert "     1 : DEFINE QLOCAL(Q1)" in result.output
    assert "One MQSC command read." not in result.output
    assert "2 MQSC commands read." in result.output and result.exit_code == 10


def test_given_e_when_runmqsc_verifies_then_the_commands_are_not_echoed(tmp_path):
    result = _run("-e", "-v", "--data-path", str(tmp_path), "NOQM")
    assert "DEFINE QLOCAL(Q1)" not in result.output
    assert "One MQSC command read." in result.output


def test_given_options_of_other_platforms_when_runmqsc_then_usage_and_20():
    for args in (("-w", "10", "-x", "QM1"), ("-n",)):
        result = _run(*args)
        assert result.exit_code == 20, result.output
        assert result.output.splitlines()[-1].startswith("Usage: runmqsc [-c] [-e] [-v]")


def test_given_a_default_queue_manager_when_runmqsc_names_none_then_it_starts_mqsc_for_it(
        tmp_path):
    """crtmqm -q made QMD the default: runmqsc without a name works on it (IBM 9.x's banner
    names it); with no default, the name is blank and AMQ8146E follows."""
    root = str(tmp_path)
    assert _run("--data-path", root, text="DISPLAY QMGR\n").output.splitlines()[1] == \
        "Starting MQSC for queue manager ."
    CliRunner().invoke(crtmqm, ["-q", "QMD", "--data-path", root])
    result = _run("-v", "--data-path", root)
    assert "Starting MQSC for queue manager QMD." in result.output


def test_given_w_and_m_when_runmqsc_sends_to_a_queue_manager_then_its_replies_come_back(
        qmgr):
    """-w 5 -m QM1 QM1: the commands go to QM1's command queue addressed by queue-manager
    name, as to a remote one, and the replies are waited for 5 seconds each."""
    _, eng, root = qmgr
    start_command_server("QM1", root)
    result = CliRunner().invoke(runmqsc, ["-w", "5", "-m", "QM1", "--data-path", root, "QM1"],
                                input="DEFINE QLOCAL(REMOTE.Q)\n")
    assert result.exit_code == 0, result.output
    assert "AMQ8006I: IBM MQ queue created." in result.output
    assert eng.lookup("QLOCAL", "REMOTE.Q") is not None


def test_runmqsc_shows_the_ibm_mq_level_dspmqver_shows():
    """Given runmqsc's banner, then it names the one version mqpy shows everywhere (the IBM
    MQ level it implements, as dspmqver and strmqm do), not the Python package's."""
    from mqpy.mqsc.transcript import BANNER
    from mqpy.version import VRMF

    assert f"V{VRMF}" in BANNER and "0.1.0" not in BANNER
