"""The command server's loop when the queue manager refuses it something other than its
end: a failed commit (a full log) backs the request out and the server goes on serving;
only the queue manager ending (or the connection breaking) ends it."""

from __future__ import annotations

import threading

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import CommandServer
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, attach
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import CFH, GMO, MD

pytestmark = pytest.mark.timeout(60)

REQUESTS = "ROBUST.COMMANDS"
REPLIES = "ROBUST.REPLIES"


@pytest.fixture
def looping(engine):
    """A command server serving its own request queue in a thread; stopped at the end."""
    for name in (REQUESTS, REPLIES):
        if engine.lookup("QLOCAL", name) is None:
            engine.define("QLOCAL", name, {})
    srv = CommandServer(attach(engine), lambda: MQSCProcessor(engine),
                        command_queue=REQUESTS)
    stop = threading.Event()
    thread = threading.Thread(target=srv.serve, args=(stop,), kwargs={"poll_ms": 50},
                              daemon=True)
    yield srv, thread
    stop.set()
    thread.join(10)


def _ping(app) -> None:
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN, ReplyToQ=REPLIES.encode())
    app.put1(REQUESTS, pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_PING_Q_MGR), [])), md)


def _reply(app) -> pcf.PCFMessage:
    gmo = GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000)
    return pcf.parse(Queue(app, REPLIES).get(None, MD(), gmo))


@pytest.mark.parametrize("reason", [CMQC.MQRC_RESOURCE_PROBLEM, CMQC.MQRC_BACKED_OUT])
def test_a_failed_commit_backs_out_and_the_server_goes_on(engine, looping, monkeypatch,
                                                          reason):
    """Given a commit that fails once with ``reason``, when a request is served, then the
    server is still running and the request is answered once (after its backout, again)."""
    srv, thread = looping
    real_commit = srv.qm.commit
    failures = [reason]

    def commit():
        if failures:
            raise MQMIError(CMQC.MQCC_FAILED, failures.pop())
        real_commit()

    monkeypatch.setattr(srv.qm, "commit", commit)
    thread.start()
    app = attach(engine)
    _ping(app)
    assert _reply(app).header.Reason == 0
    assert thread.is_alive()
    _ping(app)  # and it serves the next one too
    assert _reply(app).header.Reason == 0
    gmo = GMO(Options=CMQC.MQGMO_NO_WAIT)
    with pytest.raises(MQMIError) as extra:  # the backed-out reply was not also sent
        Queue(app, REPLIES).get(None, MD(), gmo)
    assert extra.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
