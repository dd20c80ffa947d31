"""What dspmq and dspmqver print, as IBM's do: a queue manager never started is "Ended
normally", and one version (the IBM MQ level mqpy implements) wherever a version is shown."""

from __future__ import annotations

import pytest

from mqpy import CMQC, errorlog, version
from mqpy.engine.mqinq import version_of
from mqpy_cli.control import crtmqm, dspmq, dspmqver, format_dspmq_line
from tests.support.cli import run

pytestmark = pytest.mark.system  # dspmqver asks the platform (uname) in a subprocess


def _fields(output: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (line.partition(":")
                                                 for line in output.splitlines())}


def test_given_a_created_queue_manager_never_started_when_dspmq_then_it_is_ended_normally(
        tmp_path):
    assert run(crtmqm, "QM1", root=str(tmp_path)).exit_code == 0
    shown = run(dspmq, root=str(tmp_path))
    assert shown.output.strip() == format_dspmq_line("QM1", "Ended normally")


def test_given_the_installation_when_dspmqver_runs_then_it_shows_the_one_version(tmp_path):
    """dspmqver's Version and command level, the error log's VRMF() (strmqm's V...: the
    lifecycle test) and DISPLAY QMGR VERSION are one version: MQCMDL_CURRENT_LEVEL's."""
    fields = _fields(run(dspmqver, root=str(tmp_path)).output)
    assert fields["Version"] == version.VRMF == "9.2.5.0"
    assert fields["MaxCmdLevel"] == str(CMQC.MQCMDL_CURRENT_LEVEL)
    assert errorlog.VRMF == version.VRMF
    assert version_of(CMQC.MQCMDL_CURRENT_LEVEL) == "09020500"
