"""The conversations a SVRCONN channel instance carries (SHARECNV): one client Hconn each,
told apart by the ConvId of its TSHM (SHARECNV(0): plain TSH, one conversation), each with its
own MQI connection to the queue manager and its own queue of requests; and the definition
attributes a SVRCONN uses, with IBM's SVRCONN defaults.
"""

from __future__ import annotations

from typing import Any

import attrs
import trio

from mqpy.fap import channeldefs as D
from mqpy.fap import userid
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.tsh import SegmentType

#: IBM's defaults for the attributes a SVRCONN uses (DISCINT is 0 for SVRCONN, not 6000).
SVRCONN_DEFAULTS: dict[str, object] = {
    "DISCINT": 0, "HBINT": 300, "SHARECNV": 10, "MAXINST": 999999999,
    "MAXINSTC": 999999999, "MAXMSGL": 4194304, "MCAUSER": "",
}

#: CHSTATUS SUBSTATE of a call in progress, by verb (``SegmentType.name`` is a property)
SUBSTATES = {t: t.name for t in SegmentType}
#: what the trace of a reply segment made already names (its kind: an MQIReply)
A_REPLY = (MQIReply(segment_type=SegmentType.MQGET_REPLY),)


def definition_attr(definition: dict[str, object], key: str) -> object:
    """A SVRCONN definition's attribute, IBM's default when blank or absent."""
    value = definition.get(key)
    if value is None or value == "":
        return SVRCONN_DEFAULTS.get(key, D.DEFAULTS.get(key, value))
    return value


def definition_int(definition: dict[str, object], key: str) -> int:
    """A SVRCONN definition's numeric attribute, IBM's default when blank or absent."""
    return int(definition_attr(definition, key))  # type: ignore[arg-type]


@attrs.define(eq=False)
class ClientConversation:
    """One client Hconn: its MQI connection to the queue manager and its request queue."""

    conv_id: int | None
    send: trio.MemorySendChannel[MQIRequest]
    receive: trio.MemoryReceiveChannel[MQIRequest]
    backend: Any = None  # its async MQI (mqpy.loopcalls.mqi_port)
    ended: bool = False  # MQDISC done (and no MQCONN since)
    refused: bool = False  # CHLAUTH refused its MQCONN
    #: its last call was relayed: between calls its task waits on the queue manager's
    #: socket, so that the receiver can relay the next one at once (``_start_relay``)
    on_qm: bool = False
    idle: trio.CancelScope | None = None  # while it waits there: cancelled to wake it
    queued: int = 0  # requests sent to its task (``send``) and not yet taken
    calling: bool = False  # its task has taken a request and not yet sent the reply
    #: the client's CONN_STATE came while a call of its was queued or served but not yet
    #: waiting (one read brought the get and the wake): that call's wait ends at once
    wake_due: bool = False
    #: a call the receiver relayed, whose reply is the task's: (request, verb, data length)
    relayed: tuple[MQIRequest, SegmentType, int | None] | None = None
    #: END_CONV ended it (``svrconn_sockact``): its task serves what came before that,
    #: then backs out what it left
    dropped: bool = False
    #: the conversation of the same ConvId ended by END_CONV whose task still answers what
    #: came before it: this one's calls are served once that task is done
    after: ClientConversation | None = None
    #: what its last MQPUT and MQGET served from their bytes were read as
    #: (``svrconn_packed.Kept``)
    kept: Any = None
    #: the client sends nothing more (it half-closed its socket): its task serves what it
    #: holds and ends (``requests_ended``)
    last_read: bool = False
    done: trio.Event = attrs.field(factory=trio.Event)  #: set when its task has ended

    def connect(self, backend: Any) -> None:
        """Its MQCONN succeeded: ``backend`` is its MQI (again, after an MQDISC)."""
        self.backend = backend
        self.ended = False

    def disconnected(self) -> None:
        """Its MQDISC is done: it has no connection, as before its MQCONN. A request queued
        behind the MQDISC (the client wrote it with the MQDISC) is answered as a request in
        a later write is: MQRC_HCONN_ERROR, and an MQCONN connects the conversation again;
        its task serves them all before the conversation goes
        (``SvrconnInstance._serve_calls``)."""
        self.backend = None
        self.ended = True
        self.on_qm = False  # its calls are no longer relayed
        self.kept = None

    def requests_ended(self) -> None:
        """The client sends nothing more: its task serves the requests queued, and the call
        in progress or relayed, and ends, rather than wait for another (on its queue or on
        the queue manager's socket)."""
        self.last_read = True
        self.send.close()
        self.on_qm = False
        idle, self.idle = self.idle, None
        if idle is not None:
            idle.cancel()


@attrs.define
class Identity:
    """What a client said about itself before its MQCONN (USERID_DATA, CONAUTH_INFO)."""

    client_user: str | None = None
    credentials: userid.Credentials | None = None
