"""The WHERE keyword of DISPLAY: one filter (selection.where_passes) for every display of
definitions and of status (IBM: "DISPLAY CHSTATUS", "DISPLAY LSSTATUS", WHERE)."""

from __future__ import annotations

import pytest

from mqpy.mqsc.parser import Where
from mqpy.mqsc.selection import where_passes

from .conftest import run

pytestmark = pytest.mark.timeout(60)

CHANNELS = [
    {"CHANNEL": "TO.QM2", "CHLTYPE": "SDR", "CONNAME": "127.0.0.1(1415)", "RQMNAME": "QM2",
     "STATUS": "RUNNING", "SUBSTATE": "MQGET", "XMITQ": "QM2", "MSGS": 5},
    {"CHANNEL": "TO.QM3", "CHLTYPE": "SDR", "CONNAME": "127.0.0.1(1416)", "RQMNAME": "QM3",
     "STATUS": "RETRYING", "SUBSTATE": "", "XMITQ": "QM3", "MSGS": 0},
]
LISTENERS = [{"LISTENER": "L1", "STATUS": "RUNNING", "PID": 10, "PORT": 1414},
             {"LISTENER": "L2", "STATUS": "RUNNING", "PID": 10, "PORT": 1420}]


@pytest.fixture
def chinit(proc, monkeypatch):
    """The channel initiator's answers, as the processor asks for them."""
    def ask(request):
        return {"STATUS": {"ok": True, "status": CHANNELS},
                "LSSTATUS": {"ok": True, "status": LISTENERS}}[request["command"]]
    monkeypatch.setattr(proc, "chinit", ask)
    return proc


def _names(lines: list[str], keyword: str) -> list[str]:
    return [ln.split(f"{keyword}(", 1)[1].split(")", 1)[0] for ln in lines
            if f"{keyword}(" in ln]


def test_where_passes_is_the_one_rule():
    """A row without the WHERE keyword fails it; with none every row passes."""
    where = Where("STATUS", "EQ", "RUNNING")
    assert where_passes(None, {})
    assert where_passes(where, {"STATUS": "RUNNING"})
    assert not where_passes(where, {"STATUS": "RETRYING"})
    assert not where_passes(where, {"CHANNEL": "X"})


def test_display_chstatus_obeys_where_and_shows_its_keyword(chinit):
    """Given two channel instances, one RUNNING with 5 messages and one RETRYING, when
    DISPLAY CHSTATUS(*) WHERE(...) is issued, then only the matching instance is shown, with
    the WHERE keyword among its attributes; a WHERE nothing matches shows nothing."""
    lines = run(chinit, "DISPLAY CHSTATUS(*) WHERE(STATUS EQ RETRYING)")
    assert _names(lines, "CHANNEL") == ["TO.QM3"]
    lines = run(chinit, "DISPLAY CHSTATUS(TO.*) WHERE(MSGS GT 0)")
    assert _names(lines, "CHANNEL") == ["TO.QM2"] and "MSGS(5)" in "".join(lines)
    assert run(chinit, "DISPLAY CHSTATUS(*) WHERE(RQMNAME EQ QM9)") == []


def test_display_lsstatus_obeys_where(chinit):
    """Given two running listeners, when DISPLAY LSSTATUS(*) WHERE(PORT EQ 1420) is issued,
    then only L2 is shown."""
    assert _names(run(chinit, "DISPLAY LSSTATUS(*)"), "LISTENER") == ["L1", "L2"]
    assert _names(run(chinit, "DISPLAY LSSTATUS(*) WHERE(PORT EQ 1420)"),
                  "LISTENER") == ["L2"]
