"""What a runmqlsr does with the channel initiator's commands and how the channel initiator
merges the answers (``lsrcontrol``'s plain functions: no socket, no queue manager)."""

from __future__ import annotations

import trio

from mqpy_chinit import lsrcontrol
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus


class _NoAdmin:
    def channel(self, name: str) -> None:
        return None

    def channels(self) -> dict:
        return {}


def _listener_chinit() -> ChannelInitiator:
    return ChannelInitiator("QM2", lambda: None, _NoAdmin())


def _running_receiver(chinit: ChannelInitiator, name: str, partner: str,
                      peer: str) -> trio.CancelScope:
    status = chinit.statuses[(name, partner)] = ChannelStatus(name, "RCVR")
    for event in (ChannelEvent.START, ChannelEvent.BIND, ChannelEvent.NEGOTIATED):
        status.move(event)
    status.rqmname, status.conname = partner, peer.rsplit(":", 1)[0]
    scope = trio.CancelScope()
    chinit.receivers[(name, partner)] = (scope, peer)
    return scope


def test_a_listener_shows_its_instances_as_chstatus_rows():
    """Given a runmqlsr's receiver instance from QM1, when asked for STATUS of the channel
    (or generically), then its row is in the answer; another channel's is not."""
    chinit = _listener_chinit()
    _running_receiver(chinit, "QM1.TO.QM2", "QM1", "127.0.0.1:5000")
    _running_receiver(chinit, "OTHER", "QM3", "127.0.0.1:5001")
    reply = lsrcontrol.command(chinit, {"command": "STATUS", "channel": "QM1.*"})
    assert reply["ok"]
    assert [(r["CHANNEL"], r["STATUS"], r["RQMNAME"]) for r in reply["status"]] == \
        [("QM1.TO.QM2", "RUNNING", "QM1")]


async def test_stop_with_qmname_ends_that_partners_instance_only():
    """Given two instances of a generic receiver in a runmqlsr, when STOP names QMNAME(QM1)
    STATUS(INACTIVE), then only QM1's instance is cancelled and no STOPPED mark is left."""
    chinit = _listener_chinit()
    from_qm1 = _running_receiver(chinit, "GEN", "QM1", "10.0.0.1:5000")
    from_qm3 = _running_receiver(chinit, "GEN", "QM3", "10.0.0.3:5000")
    reply = lsrcontrol.command(chinit, {"command": "STOP", "channel": "GEN", "mode": "FORCE",
                                        "status": "INACTIVE", "qmname": "QM1"})
    assert reply == {"ok": True, "message": ""}
    assert from_qm1.cancel_called and not from_qm3.cancel_called
    assert "GEN" not in chinit.statuses


async def test_stop_status_stopped_leaves_a_mark_that_start_enables_again():
    """Given a runmqlsr's running receiver, when STOP (STATUS(STOPPED)) reaches it, then the
    instance is asked to stop at its next batch's end or heartbeat (MODE(QUIESCE)) and the
    channel is STOPPED there (its partner's next start is refused); START then enables it
    (INACTIVE), starting nothing."""
    chinit = _listener_chinit()
    scope = _running_receiver(chinit, "QM1.TO.QM2", "QM1", "127.0.0.1:5000")
    reply = lsrcontrol.command(chinit, {"command": "STOP", "channel": "QM1.TO.QM2",
                                        "mode": "QUIESCE", "status": "STOPPED",
                                        "chltype": "RCVR"})
    assert reply["ok"] and not scope.cancel_called
    assert chinit.statuses[("QM1.TO.QM2", "QM1")].stop_requested == "STOPPED"
    assert chinit.statuses["QM1.TO.QM2"].state is ChannelState.STOPPED
    assert lsrcontrol.command(chinit, {"command": "START", "channel": "QM1.TO.QM2"})["ok"]
    assert chinit.statuses["QM1.TO.QM2"].state is ChannelState.INACTIVE
    assert not chinit.running


async def test_stop_with_conname_naming_no_instance_is_not_active():
    chinit = _listener_chinit()
    _running_receiver(chinit, "QM1.TO.QM2", "QM1", "127.0.0.1:5000")
    reply = lsrcontrol.command(chinit, {"command": "STOP", "channel": "QM1.TO.QM2",
                                        "status": "INACTIVE", "conname": "10.9.9.9"})
    assert not reply["ok"] and reply["message"].startswith("AMQ9533E")


def test_an_unknown_command_is_refused_with_its_message():
    reply = lsrcontrol.command(_listener_chinit(), {"command": "PING", "channel": "X"})
    assert not reply["ok"] and reply["message"].startswith("AMQ8405E")


def _mark(name: str) -> dict[str, object]:
    return ChannelStatus(name, "RCVR", state=ChannelState.STOPPED).as_mqsc()


async def test_a_listener_leaves_its_stopped_marks_to_the_channel_initiator():
    """Given a runmqlsr's receiver instance and the STOPPED mark a STOP left there (the
    channel initiator keeps one too), when asked for STATUS, then only the instance is
    answered: the channel is shown STOPPED once, by the channel initiator, and never beside
    a sender's own row (STOPPING, or STOPPED with its CONNAME)."""
    chinit = _listener_chinit()
    _running_receiver(chinit, "QM1.TO.QM2", "QM1", "127.0.0.1:5000")
    assert lsrcontrol.command(chinit, {"command": "STOP", "channel": "QM1.TO.QM2",
                                       "status": "STOPPED", "chltype": "RCVR"})["ok"]
    assert lsrcontrol.command(chinit, {"command": "STOP", "channel": "TO.QM3",
                                       "status": "STOPPED", "chltype": "SDR"})["ok"]
    reply = lsrcontrol.command(chinit, {"command": "STATUS", "channel": "*"})
    assert [(r["CHANNEL"], r["RQMNAME"]) for r in reply["status"]] == [("QM1.TO.QM2", "QM1")]


def test_the_channel_initiators_rows_come_first_then_each_listeners():
    """The merge keeps every row, the channel initiator's first; what is not a row (a
    garbled answer) is left out, and a listener that answered nothing adds nothing."""
    instance = {"CHANNEL": "QM1.TO.QM2", "CHLTYPE": "RCVR", "STATUS": "RUNNING",
                "CONNAME": "127.0.0.1", "RQMNAME": "QM1"}
    mark = _mark("QM1.TO.QM2")
    rows = lsrcontrol.merged_status([mark], [{"ok": True, "status": [instance]},
                                             {"ok": True, "status": ["garbage"]}, {}])
    assert rows == [mark, instance]


def test_stop_is_done_if_the_channel_initiator_or_a_runmqlsr_stopped_an_instance():
    """STOP CHANNEL QMNAME/CONNAME: "not currently active" at the channel initiator is no
    failure when a runmqlsr stopped the instance; any other refusal stands."""
    not_active = "AMQ9533E: Channel 'C' is not currently active."
    assert lsrcontrol.merged_stop(not_active, [{"ok": False}, {"ok": True}]) is None
    assert lsrcontrol.merged_stop(not_active, [{"ok": False, "message": not_active}]) == \
        not_active
    assert lsrcontrol.merged_stop(not_active, []) == not_active
    assert lsrcontrol.merged_stop(None, [{"ok": False}]) is None
    other = "AMQ8147E: IBM MQ object C not found."
    assert lsrcontrol.merged_stop(other, [{"ok": True}]) == other


def test_the_registry_is_the_queue_manager_directory(tmp_path):
    """The control sockets found are those named runmqlsr.<pid>.sock, in order."""
    for name in ("runmqlsr.20.sock", "runmqlsr.3.sock", "qm.fastpath.sock", "runmqlsr.x"):
        (tmp_path / name).write_text("")
    assert [p.rsplit("/", 1)[1] for p in lsrcontrol.registered(str(tmp_path))] == \
        ["runmqlsr.20.sock", "runmqlsr.3.sock"]
    assert lsrcontrol.socket_path(str(tmp_path), 7) == str(tmp_path / "runmqlsr.7.sock")


async def test_a_control_socket_that_cannot_be_made_is_logged_and_the_listener_goes_on(
        tmp_path):
    """Given a queue-manager directory the runmqlsr cannot bind in, when its control socket
    is served, then the failure is logged (AMQ9999E, naming the socket) and the serving task
    returns at once: the runmqlsr serves its partners without it, no traceback."""
    logged: list[tuple[str, str]] = []
    path = str(tmp_path / "gone" / "runmqlsr.1.sock")
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(lsrcontrol.serve, _listener_chinit(), path,
                                lambda msgid, text: logged.append((msgid, text)))
    assert [m for m, _ in logged] == ["AMQ9999E"]
    assert "runmqlsr.1.sock could not be made" in logged[0][1]
