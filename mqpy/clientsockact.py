"""A client channel instance's SOCKET_ACTIONs (``mqpy.fap.sockact``): a conversation of a
shared instance ended as IBM's client ends it, and the queue manager's END_CONV of one.

After a conversation's MQDISC IBM's client sends END_CONV in a TSHC (CLOSE_CHANNEL on the
instance's last conversation) and does not wait for an answer; mqpy's does the same, to a
queue manager that takes it (``ChannelInstance.ends_conversations``). A queue manager's
END_CONV ends that conversation alone: its call waiting for the reader fails at once, its
own read ends, its later calls fail (MQRC_CONNECTION_BROKEN), and the instance's other
conversations go on; it is confirmed with END_CONV when the queue manager asks
(CONFIRM_REQUEST). The other types a queue manager sends (a quiesce, a reconnect) need
nothing here.
"""

from __future__ import annotations

from typing import Any

from mqpy.fap import sockact
from mqpy.fap.tsh import ByteOrder, ControlFlags1, OtherSegment

__all__ = ["end_conv", "on_socket_action"]

_LITTLE = ByteOrder.LITTLE
_END_CONV = sockact.SocketActionType.END_CONV


def end_conv(instance: Any, conv: Any, last: bool) -> None:
    """After ``conv``'s MQDISC on an ``instance`` that shares conversations: END_CONV in a
    TSHC, CLOSE_CHANNEL when it was the ``last`` (the socket closes next). A socket lost
    meanwhile: the conversation is over anyway."""
    if not instance.tshm or not instance.ends_conversations or conv.conv_id is None \
            or conv.ended:
        return
    flags = ControlFlags1.CLOSE_CHANNEL if last else ControlFlags1.NONE
    try:
        instance.send(sockact.event(sockact.SocketAction(conv.conv_id, _END_CONV),
                                    instance.writer.byte_order == _LITTLE, flags))
    except OSError:
        pass


def on_socket_action(instance: Any, event: OtherSegment) -> None:
    """The queue manager's SOCKET_ACTION ``event`` on ``instance`` (read in its own byte
    order): an END_CONV of a conversation it has ends that conversation (module docstring)."""
    action = sockact.parse(event.body, event.byte_order == _LITTLE)
    conv = instance.conversations.get(action.conv_id) if instance.tshm else None
    if action.type != _END_CONV or conv is None:
        return
    with instance.role_lock:
        conv.ended = True
        if instance.waiters.pop(conv.conv_id, None) is not None:
            conv.replies.put(None)
    if event.flags & ControlFlags1.CONFIRM_REQUEST:
        instance.send(sockact.event(sockact.SocketAction(conv.conv_id, _END_CONV),
                                    instance.writer.byte_order == _LITTLE))
