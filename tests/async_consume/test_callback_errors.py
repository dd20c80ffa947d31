"""A message consumer's function that raises: as IBM's ``ibmmq`` package behaves (its proxy
callback reports the Python error and MQ's dispatcher goes on), the error is reported on
stderr and consumption goes on with the next message; the consumer stays registered. Over
an embedded, a bindings and a client connection."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site_here import here_started_site

from .conftest import Recorder, put

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for s in here_started_site(str(tmp_path_factory.mktemp("cb-errors") / "data")):
        s.mqsc("DEFINE QLOCAL(AC.Q1)\n")
        yield s


def test_a_callback_that_raises_is_reported_and_consumption_goes_on(qm, capfd):
    """Given three messages and a consumer whose function raises ValueError on the first,
    when MQOP_START_WAIT runs until the function stops the connection at the third, then
    the function was called for all three in order, the error's text is on stderr, and the
    consumer is still registered (MQOP_SUSPEND of it is accepted)."""
    _raises_on_the_first(qm, capfd)


def test_a_client_s_callback_that_raises_is_reported_and_consumption_goes_on(site, capfd):
    """The same over a client connection."""
    qm = site.client()
    try:
        _raises_on_the_first(qm, capfd)
    finally:
        qm.disconnect()


def _raises_on_the_first(conn: mqpy.QueueManager, capfd) -> None:
    put(conn, "AC.Q1", [b"one", b"two", b"three"])

    def then(*, queue_manager, queue, md, gmo, msg, cbc):
        if msg == b"one":
            raise ValueError("the application's own error")
        if msg == b"three":
            queue_manager.ctl(CMQC.MQOP_STOP)

    recorder = Recorder(then)
    q = mqpy.Queue(conn, "AC.Q1", CMQC.MQOO_INPUT_SHARED)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=recorder),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    conn.ctl(CMQC.MQOP_START_WAIT)
    assert recorder.messages() == [b"one", b"two", b"three"]
    assert "the application's own error" in capfd.readouterr().err
    q.cb(operation=CMQC.MQOP_SUSPEND)
    q.close()
