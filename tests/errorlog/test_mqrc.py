"""``mqrc``: reason codes, AMQ messages and symbols explained, as IBM's utility does."""

from __future__ import annotations

from click.testing import CliRunner

from mqpy_cli.mqrc import mqrc


def _run(*args: str):
    return CliRunner().invoke(mqrc, list(args))


def test_a_reason_code_in_decimal_or_hex_or_by_name_prints_ibms_line():
    """Given 2085, 0x825 or MQRC_UNKNOWN_OBJECT_NAME, when mqrc runs, then it prints IBM's
    layout: the decimal code, its hex form and its name; a PCF reason (3008) is named too."""
    line = "      2085  0x00000825  MQRC_UNKNOWN_OBJECT_NAME"
    for arg in ("2085", "0x825", "MQRC_UNKNOWN_OBJECT_NAME", "mqrc_unknown_object_name"):
        result = _run(arg)
        assert result.exit_code == 0
        assert line in result.output.splitlines(), result.output
    assert "MQRCCF_COMMAND_FAILED" in _run("-r", "3008").output


def test_an_amq_message_prints_its_text_and_explanation_unless_brief():
    """Given AMQ7017 (mqpy's error-log catalogue) and AMQ8147 (the MQSC catalogue), when mqrc
    runs, then it prints the message with its severity letter and its inserts as <name>, and
    the explanation and action unless -b."""
    full = _run("AMQ7017").output
    assert "AMQ7017S: Log not available." in full
    assert "EXPLANATION:" in full and "<logfile>" in full and "ACTION:" in full
    brief = _run("-b", "-m", "AMQ7017S").output
    assert "AMQ7017S: Log not available." in brief and "EXPLANATION:" not in brief
    assert "AMQ8147E: IBM MQ object <insert> not found." in _run("AMQ8147").output
    # runmqsc's own answers too (the service commands' AMQ8733I)
    assert "AMQ8733I: Request to start Service accepted." in _run("AMQ8733").output


def test_a_range_of_reason_codes_and_what_is_not_known():
    """Given -R -f 2030 -l 2035, then the reason codes in that range print in order (2032 has
    no name and is left out); an argument nothing knows is named on stderr and the exit
    status is 1, while the others still print."""
    lines = [line.split()[-1] for line in _run("-R", "-f", "2030", "-l", "2035").output
             .splitlines() if line.strip()]
    assert lines == ["MQRC_MSG_TOO_BIG_FOR_Q", "MQRC_MSG_TOO_BIG_FOR_Q_MGR",
                     "MQRC_NO_MSG_AVAILABLE", "MQRC_NO_MSG_UNDER_CURSOR", "MQRC_NOT_AUTHORIZED"]
    result = CliRunner().invoke(mqrc, ["NO_SUCH_THING", "2053"])
    assert result.exit_code == 1
    assert "MQRC_Q_FULL" in result.stdout
    assert "'NO_SUCH_THING' is not a reason code" in result.stderr
    bad = CliRunner().invoke(mqrc, ["-R", "-f", "x"])
    assert bad.exit_code == 2 and "AMQ7027E" in bad.stderr


def test_a_symbol_that_is_not_a_reason_code_prints_its_value():
    """Given -s with an option (MQOO_OUTPUT), a selector (MQCA_Q_NAME) and a character
    constant (MQFMT_ADMIN), when mqrc runs, then each prints its value, an integer in the
    reason-code layout and the characters quoted (no Python bytes repr); -s with a number
    or an AMQ id is not a symbol: named on stderr, exit status 1."""
    result = _run("-s", "MQOO_OUTPUT", "-s", "mqca_q_name", "-s", "MQFMT_ADMIN")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ["        16  0x00000010  MQOO_OUTPUT",
                     "      2016  0x000007e0  MQCA_Q_NAME",
                     "MQFMT_ADMIN = 'MQADMIN '"]
    for arg in ("2085", "AMQ8147"):
        refused = CliRunner().invoke(mqrc, ["-s", arg])
        assert refused.exit_code == 1
        assert f"'{arg}' is not a reason code, AMQ message or symbol" in refused.stderr
