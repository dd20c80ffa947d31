"""A SVRCONN instance's SOCKET_ACTION flows: its conversations started and ended by the client.

On an instance that shares conversations (SHARECNV above 0) IBM's client starts each
conversation it adds to the instance with a SOCKET_ACTION START_CONV in a TSHC and waits
for the queue manager's ACCEPT_CONV on the new conversation's TSHM (RequestId 0) -- or a
STATUS with ERROR there, which fails its MQCONN (IBM MQ classes for Java, MQ 9.3:
``RemoteSession.startConversation``); it ends each conversation, after its MQDISC or
instead of it, with END_CONV in a TSHC, CLOSE_CHANNEL set when no conversation is left
and the client closes the socket next (``RemoteConnection.confirmSessionEndToQMgr``).

Here, START_CONV of a conversation the instance does not have is accepted (over SHARECNV:
the STATUS with ERROR, the instance goes on); END_CONV ends that conversation alone -- a
unit of work it left is backed out, as for a client gone without MQDISC -- or, with
CLOSE_CHANNEL, the instance, quietly. What a client does not send (a type of the queue
manager's, an unknown one), a short body, START_CONV of a live conversation and END_CONV
of one the instance never had break the protocol: ProtocolError, which ends that instance
(AMQ9504E, STATUS). mqpy's own client starts a conversation with its MQCONN and ends it
with its MQDISC, which a SVRCONN takes as well.

END_CONV takes its place in its conversation's order, as a queue manager serves a
conversation's flows in the order they came: the requests of that conversation read
before it (queued for its task, or being served) are served and answered first, and the
conversation ends after them. The client said it sends nothing more there, as a client
that half-closes its socket says it of all of them (``svrconn_relay._replies_owed``), and
is treated alike: no MQGET of the conversation waits any more (one waiting now, or queued,
ends MQRC_NO_MSG_AVAILABLE rather than take a message that came meanwhile for a reader
that is gone). Nothing that came after END_CONV is served for the ended conversation: a
call on its ConvId is answered MQRC_HCONN_ERROR, and a conversation started again on that
ConvId is served once the ended one's task is done (``ClientConversation.after``). With
CLOSE_CHANNEL the conversations' tasks are given HALF_CLOSE_GRACE seconds to answer what
they hold before the instance ends.
"""

from __future__ import annotations

from typing import Any

from mqpy.fap import sockact
from mqpy.fap.controlflows import Status
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, OtherSegment
from mqpy_chinit import svrconn_wake

__all__ = ["KEPT_IDS", "ConvIds", "SocketActions"]

#: ConvIds a conversation of the instance had, remembered for a late END_CONV (after its
#: MQDISC); beyond this many, the oldest are forgotten (a client that never sends END_CONV)
KEPT_IDS = 4096

_A = SocketActionType


class ConvIds:
    """The ConvIds of an instance's conversations: started or connected, not yet ended by
    END_CONV (oldest first)."""

    def __init__(self) -> None:
        self.ids: dict[int, bool] = {}  # ConvId: started by START_CONV, no MQCONN yet

    def started(self, conv_id: int) -> None:
        self._keep(conv_id, True)

    def connected(self, conv_id: int) -> None:
        self._keep(conv_id, False)

    def pending(self) -> int:
        """Conversations started and not yet connected."""
        return sum(self.ids.values())

    def _keep(self, conv_id: int, pending: bool) -> None:
        self.ids.pop(conv_id, None)
        self.ids[conv_id] = pending
        if len(self.ids) > KEPT_IDS:
            del self.ids[next(iter(self.ids))]


class SocketActions:
    """SvrconnInstance's handling of a client's SOCKET_ACTION (a mixin: ``conversations``,
    ``identities``, ``sharing``, ``conv_ids``, ``ending`` and the send methods are the
    instance's)."""

    conversations: dict[int | None, Any]
    identities: dict[int | None, Any]
    sharing: int
    closing: bool
    conv_ids: ConvIds
    #: conversations ended by END_CONV whose tasks still serve what came before it
    ending: dict[int | None, Any]
    status: Any

    async def _socket_action(self, ev: OtherSegment) -> bool:
        """A client's SOCKET_ACTION; False: the instance ends (the client's last
        conversation ended). ProtocolError: a flow a client does not send."""
        action = sockact.parse(ev.body, ev.byte_order == ByteOrder.LITTLE)
        if action.conv_id < 0:  # a ConvId no TSHM can carry (unsigned there)
            raise ProtocolError(StatusCode.CONV_ID_ERROR,
                                f"a SOCKET_ACTION of conversation {action.conv_id}")
        if action.type == _A.START_CONV:
            await self._start_conv(action.conv_id)
            return True
        if action.type == _A.END_CONV:
            self._end_conv(action.conv_id)
            if ev.flags & ControlFlags1.CLOSE_CHANNEL:  # no conversation left: it closes
                self.closing = True
                await self._replies_owed()  # (what came before it answered first)
                return False
            return True
        name = action.type.name if isinstance(action.type, _A) else str(action.type)
        raise ProtocolError(StatusCode.SOCKET_ACTION_TYPE,
                            f"a SOCKET_ACTION of type {name} from a client")

    async def _start_conv(self, conv_id: int) -> None:
        """START_CONV: ACCEPT_CONV on the conversation's TSHM; over SHARECNV, a STATUS with
        ERROR there (its MQCONN fails, the instance goes on)."""
        if conv_id in self.conversations or self.conv_ids.ids.get(conv_id):
            raise ProtocolError(StatusCode.CONV_ID_ERROR,
                                f"START_CONV of conversation {conv_id}, which is running")
        tshm = {"conv_id": conv_id, "request_id": 0}
        if len(self.conversations) + self.conv_ids.pending() >= self.sharing:
            await self._send(Status(code=StatusCode.CHANNEL_UNAVAILABLE,
                                    flags=ControlFlags1.ERROR, **tshm))
            return
        self.conv_ids.started(conv_id)
        little = self._reply_order() == ByteOrder.LITTLE
        await self._send(sockact.event(SocketAction(conv_id, _A.ACCEPT_CONV), little, **tshm))

    def _end_conv(self, conv_id: int) -> None:
        """END_CONV: the conversation ends once the requests it holds are served (its unit
        of work then backed out if it did not MQDISC); one the instance never had is a
        ProtocolError."""
        cc = self.conversations.get(conv_id)
        if cc is None and conv_id not in self.conv_ids.ids:
            raise ProtocolError(StatusCode.CONV_ID_ERROR,
                                f"END_CONV of conversation {conv_id}, which the instance "
                                f"does not have")
        self.conv_ids.ids.pop(conv_id, None)
        self.identities.pop(conv_id, None)
        if cc is not None:
            del self.conversations[conv_id]
            self.status.current_conversations = len(self.conversations)
            self.ending[conv_id] = cc
            self._end_after_requests(cc)

    def _end_after_requests(self, cc: Any) -> None:
        """Conversation ``cc`` takes no more requests: its task serves and answers those it
        holds, no get of it waiting (one waiting now ends MQRC_NO_MSG_AVAILABLE), and ends,
        backing out what it left (``SvrconnInstance._serve_conversation``)."""
        cc.dropped = True
        cc.requests_ended()
        svrconn_wake.wake(cc)
