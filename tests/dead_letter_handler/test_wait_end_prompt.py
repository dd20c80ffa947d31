"""The handler's end is at once while it waits at the end of the DLQ for arrivals: its own stop
(runmqdlq's SIGINT/SIGTERM) wakes the waiting browse, and a queue manager that quiesces ends
it too, rather than either waiting for the browse's wait to pass. The browses here wait far
longer than any test (_WAIT_SLICE patched)."""

from __future__ import annotations

import threading

import pytest

import mqpy
from mqpy import CMQC
from mqpy.dlq import handler as dlq_handler
from mqpy.dlq.handler import DeadLetterHandler
from tests.support.daemon_pair import bind
from tests.support.installation import Installation

from .conftest import table

#: the handler's browse at the end of the queue made to wait ten minutes
LONG_SLICE = 600.0
#: far less than LONG_SLICE: an end that waited for the browse would never be seen within it
WITHIN = 10.0
RULES = "WAIT(YES) RETRYINT(600)\nACTION(DISCARD)\n"


def _running(handler: DeadLetterHandler, stop: threading.Event
             ) -> tuple[threading.Thread, dict]:
    """The handler run in a thread of its own; its summary or error in the dict."""
    done: dict = {}

    def run() -> None:
        try:
            done["summary"] = handler.run(stop)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            done["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(0.5)  # past its first pass: waiting at the end of the queue
    assert thread.is_alive()
    return thread, done


def test_a_stopped_handler_ends_at_once(dlq, monkeypatch):
    """Given a WAIT(YES) handler on an empty DLQ, its browse at the end of the queue waiting
    ten minutes, when it is stopped (runmqdlq's signal), then it ends within seconds with its
    summary and AMQ8709, and the DLQ is no longer open."""
    monkeypatch.setattr(dlq_handler, "_WAIT_SLICE", LONG_SLICE)
    handler, out = dlq.handler(RULES)
    stop = threading.Event()
    thread, done = _running(handler, stop)
    stop.set()
    thread.join(WITHIN)
    assert not thread.is_alive() and "summary" in done, done
    assert "AMQ8709" in out.getvalue()
    assert dlq.eng.queue_status("DLQ")["IPPROCS"] == 0


def test_a_quiescing_queue_manager_ends_the_handler_at_once(dlq, monkeypatch):
    """Given a WAIT(YES) handler on an empty DLQ, its browse at the end of the queue waiting
    ten minutes, when its queue manager quiesces (endmqm), then the handler ends within
    seconds with MQRC_Q_MGR_QUIESCING (runmqdlq's exit 10), its summary written."""
    monkeypatch.setattr(dlq_handler, "_WAIT_SLICE", LONG_SLICE)
    handler, out = dlq.handler(RULES)
    thread, done = _running(handler, threading.Event())
    dlq.eng.quiesce()
    thread.join(WITHIN)
    assert not thread.is_alive(), "the handler did not end"
    assert isinstance(done.get("error"), mqpy.MQMIError), done
    assert done["error"].reason == CMQC.MQRC_Q_MGR_QUIESCING
    assert "AMQ8709" in out.getvalue()


@pytest.fixture
def site(tmp_path):
    """An installation whose queue managers run as daemons, killed by pid at the end."""
    inst = Installation(str(tmp_path / "site"))
    yield inst
    inst.kill_all()


def test_a_stopped_handler_over_bindings_ends_at_once(site, monkeypatch):
    """Given a WAIT(YES) handler connected over bindings (as runmqdlq) to a queue manager
    started by strmqm, on its empty DLQ, its browse waiting in the queue manager for ten
    minutes, when it is stopped, then it ends within seconds with its summary."""
    monkeypatch.setattr(dlq_handler, "_WAIT_SLICE", LONG_SLICE)
    assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", "QM1").returncode == 0
    site.start("QM1")
    qm = bind(site, "QM1")
    try:
        handler = DeadLetterHandler(qm, table(RULES), out=_Discard())
        stop = threading.Event()
        thread, done = _running(handler, stop)
        stop.set()
        thread.join(WITHIN)
        assert not thread.is_alive() and "summary" in done, done
    finally:
        qm.disconnect()


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False
