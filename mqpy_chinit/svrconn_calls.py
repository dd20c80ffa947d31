"""The MQI calls a SVRCONN conversation makes, verb family by verb family: MQCONN (with
CHLAUTH's decision and the user it runs as) and MQDISC, MQOPEN and MQCLOSE, MQPUT, MQPUT1 and
MQGET (within MAXMSGL), MQCMIT and MQBACK, MQINQ and MQSET; each decoded request is called
on the conversation's async MQI and its reply encoded (``mqpy.fap.mqiflows``).

Security: before its MQCONN a conversation may flow USERID_DATA (the client's user id) and
CONAUTH_INFO (an MQCSP). At MQCONN the queue manager's channel authentication records decide
(``chinit.channel_decision``: BLOCKUSER, USERMAP, ADDRESSMAP, USERSRC, the default back-stop
rules) whether it may run and as whom (MCAUSER, else the mapped or flowed user id); a refusal
is MQRC_NOT_AUTHORIZED (2035) with AMQ9776E / AMQ9777E in the log, and the instance ends when
no other conversation is connected. The conversation then connects *as that user*
(``chinit.connect_for``) so that CONNAUTH (CHCKCLNT) and the object authority manager apply to
it in the queue manager. Its first successful MQCONN admits the instance
(``Conversation.authenticated``): the listener's limits on unauthenticated connections let go.

A part of :class:`~mqpy_chinit.svrconn.SvrconnInstance`, which holds the state it uses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from mqpy import CMQC, loopcalls, streamer
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.tsh import ByteOrder, SegmentType
from mqpy.pubsub import served
from mqpy_chinit import svrconn_stream, svrconn_wake, tlsstream
from mqpy_chinit.svrconn_conversation import ClientConversation, Identity, definition_attr

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


class MQICalls:
    """The handlers of the MQI verbs, one method each (``HANDLERS``). A reply's body is in
    the byte order of the flows we write on the instance, the client's (``_reply_order``)."""

    async def _in_order(self, answer: Awaitable[MQIReply]) -> MQIReply:
        """The reply ``answer`` gives (its body little-endian, as ``mqpy.pubsub.served``
        packs it) in the client's byte order."""
        reply = await answer
        order = self._reply_order()
        if order == ByteOrder.LITTLE or not reply.body:
            return reply
        decoded = mqiflows.decode_reply(reply, ByteOrder.LITTLE)
        return attrs.evolve(reply, body=mqiflows.encode_reply(
            decoded.verb, decoded.values, byte_order=order).body)

    async def _conn(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        if cc.backend is not None:
            return mqiflows.encode_reply(d.verb, [(self.chinit.qmgr_name, "")],
                                         comp=_WARNING, reason=CMQC.MQRC_ALREADY_CONNECTED,
                                         byte_order=self._reply_order())
        qmgr, appl = d.values[0]
        qmgr = qmgr.strip()
        # the MQCNO options the client's MQCONN carries: the queue manager acts on the
        # accounting ones only (the others are the client's own: reconnection, sharing)
        options = getattr(d.values[0], "options", 0) & mqiparams.ACCOUNTING_OPTIONS
        if qmgr and not qmgr.startswith("*") and qmgr != self.chinit.qmgr_name:
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
        ident = self.identities.pop(cc.conv_id, None) or Identity()
        mcauser = str(definition_attr(self.definition, "MCAUSER") or "").strip()
        # CHLAUTH judges the user the conversation will run as: the queue manager works it
        # out in one place (mqpy.security.channel_decision: ADOPTCTX for the MQCSP user,
        # then MCAUSER, USERSRC(MAP), BLOCKUSER), and CONNAUTH then authenticates the MQCSP
        # before the connection runs as that same user
        decision = await self.chinit.channel_decision(
            {"channel": self.name, "address": self.peer, "client_user": ident.client_user,
             "csp_user": ident.credentials.user if ident.credentials else None,
             "mcauser": mcauser, "appl": appl, **tlsstream.tls_identity(self.conv.stream)})
        if not decision["allowed"]:
            cc.refused = True
            self.log(str(decision["msgid"]), str(decision["text"]))
            raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED)
        if decision.get("warning"):
            self.log(str(decision["msgid"]), f"{decision['text']} (WARN(YES): allowed)")
        security = mqiparams.ConnSecurity(ident.credentials, user=str(decision["user"]),
                                         channel=self.name, address=self.peer,
                                         adopted=bool(decision.get("adopted")),
                                         options=options)
        self.status.mcauser = security.user
        conn = await self.chinit.connect_for(security, appl)
        handle = conn.connection() if hasattr(conn, "connection") else conn
        if options and hasattr(handle, "account_as_asked"):
            # the daemon's own client host (FASTPATH) connects to its engine: applied here,
            # before the first call, as the bindings listener applies a relayed MQCONN's
            handle.account_as_asked(options)
        if appl and isinstance(getattr(handle, "appl_name", None), bytes):
            handle.appl_name = appl.encode("latin-1", "replace")[:28]
        cc.connect(loopcalls.mqi_port(handle, self.registry.limiter))
        svrconn_wake.watch_waits(cc)  # its waiting gets: woken by the client's MQCTL
        self.status.remote_appl_tag = appl
        self.conv.authenticated()  # the channel is admitted: the listener's limits let go
        return mqiflows.encode_reply(d.verb, [(self.chinit.qmgr_name, appl)],
                                     hobj=int(getattr(handle, "hconn", 1) or 1),
                                     byte_order=self._reply_order())

    async def _disc(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.disconnect()
        cc.disconnected()
        return mqiflows.encode_reply(d.verb, [])

    async def _open(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        od, options = d.values
        hobj = await cc.backend.open(od, options)
        order = self._reply_order()
        # MQ's MQOPEN reply echoes the open options after the MQOD, as its request carries
        # them (Wireshark dissects both alike), then the object's defaults (FOPA)
        return streamer.open_reply(od, options, hobj,
                                   svrconn_stream.open_defaults(cc.backend, hobj),
                                   self.fap_level, order)

    async def _close(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.close(d.hobj, d.values[0])
        return mqiflows.encode_reply(d.verb, [])

    def _check_length(self, data: bytes) -> None:
        if self.max_msg_size and len(data) > self.max_msg_size:
            raise MQMIError(_FAILED, CMQC.MQRC_DATA_LENGTH_ERROR)

    async def _put(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        md, pmo, data = d.values
        self._check_length(data)
        warning = await cc.backend.put(d.hobj, md, pmo, data)
        self.status.bytes_received += len(data)
        return mqiflows.encode_reply(d.verb, [md, pmo], comp=_WARNING if warning else _OK,
                                     reason=warning, byte_order=self._reply_order())

    async def _put1(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        od, md, pmo, data = d.values
        self._check_length(data)
        warning = await cc.backend.put1(od, md, pmo, data)
        self.status.bytes_received += len(data)
        return mqiflows.encode_reply(d.verb, [od, md, pmo], comp=_WARNING if warning else _OK,
                                     reason=warning, byte_order=self._reply_order())

    async def _get(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        md, gmo, buffer_length = d.values
        wait_interval = gmo.WaitInterval
        if cc.last_read and gmo.Options & CMQC.MQGMO_WAIT and (
                wait_interval > 0 or wait_interval == CMQC.MQWI_UNLIMITED):
            # the client sends nothing more on the conversation (END_CONV, half-closed): no
            # get waits, as a relayed one does not (``svrconn_relay._relay_body``); the
            # reply's MQGMO is the client's
            gmo.WaitInterval = 0
        try:
            try:
                data = await cc.backend.get(d.hobj, md, gmo, self._max_length(buffer_length))
            finally:
                gmo.WaitInterval = wait_interval
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e, self._reply_order())
            if reply is None:
                raise
            return reply
        # (_serve_conversation counts the call in MSGS)
        self.status.message_moved(len(data), sent=True, counted=False)
        return mqiflows.encode_reply(d.verb, [md, gmo, len(data), data],
                                     byte_order=self._reply_order())

    async def _cmit(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.commit()
        return mqiflows.encode_reply(d.verb, [])

    async def _back(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.backout()
        return mqiflows.encode_reply(d.verb, [])

    async def _inq(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        (selectors,) = d.values
        values = await cc.backend.inquire_all(d.hobj, selectors)
        return mqiflows.encode_reply(d.verb, [values], byte_order=self._reply_order())

    async def _set(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.set_many(d.hobj, mqiflows.set_attributes(d.values))
        return mqiflows.encode_reply(d.verb, [])

    async def _stat(self, cc: ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        status_type, sts = d.values
        return mqiflows.encode_reply(d.verb, [status_type,
                                              await cc.backend.stat(status_type, sts)],
                                     byte_order=self._reply_order())


_Handler = Callable[[Any, ClientConversation, mqiflows.Decoded], Any]


#: each MQI verb's handler
HANDLERS: dict[SegmentType, _Handler] = {
    _T.MQCONN: MQICalls._conn,
    _T.MQDISC: MQICalls._disc,
    _T.MQOPEN: MQICalls._open,
    _T.MQCLOSE: MQICalls._close,
    _T.MQPUT: MQICalls._put,
    _T.MQPUT1: MQICalls._put1,
    _T.MQGET: MQICalls._get,
    _T.MQCMIT: MQICalls._cmit,
    _T.MQBACK: MQICalls._back,
    _T.MQINQ: MQICalls._inq,
    _T.MQSET: MQICalls._set,
    _T.MQSTAT: MQICalls._stat,
    _T.MQSUB: lambda calls, cc, d: calls._in_order(served.sub(cc.backend, d)),  # mqpy.pubsub
    _T.MQSUBRQ: lambda calls, cc, d: calls._in_order(served.subrq(cc.backend, d)),
}
