"""Message handles on the application's side of the MQI: pymqi's / ``ibmmq``'s
``MessageHandle``, and what MQPUT, MQPUT1 and MQGET do with the handles their MQPMO / MQGMO
name. As in IBM's MQ client, a connection's message handles live in the application's
process (one ``MessageHandleTable`` per connection), in every mode:

- MQPUT / MQPUT1 with ``MQPMO.OriginalMsgHandle`` or ``NewMsgHandle`` (MQPMO version 3; the
  new handle's properties when both are given): the properties go in front of the message
  data as one MQRFH2 (NameValueCCSID 1208) for the call only; the caller's MQMD keeps its
  Format. Over the bindings socket and the client channel that is the MQPUT flow's message
  data, which Wireshark's MQ dissector decodes as an MQRFH2. An unknown handle is
  MQRC_HMSG_ERROR, nothing put.
- MQGET with ``MQGMO.MsgHandle`` (MQGMO version 4): the handle's properties are replaced by
  those of the message got. When the queue manager put them into the handle
  (``mqpy.engine.propdelivery``: MsgHandle returned as MQHM_UNUSABLE_HMSG) the MQRFH2 in
  front of the data moves into the handle and MsgHandle is the caller's again.

Nothing here does I/O.
"""

from __future__ import annotations

import weakref
from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.facade import Properties
from mqpy.properties.handles import MessageHandleTable
from mqpy.properties.propset import PropertySet
from mqpy.structs.propstructs import CMHO, DMHO
from mqpy.structs.tables import MD

__all__ = ["MessageHandle", "after_get", "disconnected", "get_with_handle", "handle_table",
           "handle_getter", "put_data", "put_with_properties", "restore_put", "wants_handle"]

C = CMQC
_HANDED_OVER = C.MQHM_UNUSABLE_HMSG  # mqpy.engine.propdelivery.HANDED_OVER
_KEY = "_message_handles"
#: the connections (QueueManager objects) of this process that have message handles
_HOLDERS: weakref.WeakSet = weakref.WeakSet()


def handle_table(qmgr: Any) -> MessageHandleTable:
    """The message handles of the connection ``qmgr`` (made on first use)."""
    table = qmgr.__dict__.get(_KEY)
    if table is None:
        table = qmgr.__dict__[_KEY] = MessageHandleTable()
        _HOLDERS.add(qmgr)
    return table


def _table_of(conn: Any, hmsg: int) -> MessageHandleTable:
    """The message handles ``conn`` names: a handle table, a connection (QueueManager), or,
    as pymqi programs pass it, a connection's integer Hconn (``qmgr.get_handle()``): the
    connected one of this process with that Hconn that holds ``hmsg`` (Hconns of two queue
    managers may be equal); MQRC_HCONN_ERROR if none does."""
    if isinstance(conn, MessageHandleTable):
        return conn
    if not isinstance(conn, int):
        return handle_table(conn)
    for qmgr in list(_HOLDERS):
        table = qmgr.__dict__.get(_KEY)
        if table is None or not qmgr.is_connected or qmgr.get_handle() != conn:
            continue
        try:
            table.properties(hmsg)
        except MQMIError:
            continue
        return table
    raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)


class _HandleProperties(Properties):
    """pymqi's ``MessageHandle._Properties(conn_handle, msg_handle)``: the properties of
    message handle ``hmsg`` of the connection ``conn`` (see :func:`_table_of`)."""

    def __init__(self, conn: Any, hmsg: int, owner: Any = None) -> None:
        super().__init__(_table_of(conn, hmsg), hmsg, owner)


def _properties(qmgr: Any, hmsg: int) -> PropertySet:
    table = qmgr.__dict__.get(_KEY)
    if table is None:
        raise MQMIError(C.MQCC_FAILED, C.MQRC_HMSG_ERROR)
    return table.properties(hmsg)


def disconnected(qmgr: Any) -> None:
    """MQDISC of ``qmgr``: every message handle of the connection is deleted."""
    table = qmgr.__dict__.get(_KEY)
    if table is not None:
        table.close_all()


class MessageHandle:
    """pymqi's ``MessageHandle(qmgr, cmho)``: MQCRTMH on ``qmgr``'s connection; ``properties``
    sets, inquires and deletes its properties; ``dlt()`` (ibmmq) is MQDLTMH."""

    #: pymqi's: the class of ``properties``, and the value buffer its ``get`` gives MQINQMP
    #: when none is named (set here, it applies to every handle's properties, as in pymqi)
    _Properties = _HandleProperties
    default_value_length = Properties.default_value_length

    def __init__(self, qmgr: Any = None, cmho: CMHO | None = None) -> None:
        if qmgr is None:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR)
        self.qmgr = qmgr
        self.conn_handle = qmgr.get_handle() if qmgr.is_connected else C.MQHC_UNUSABLE_HCONN
        table = handle_table(qmgr)
        self.msg_handle = table.crtmh(CMHO() if cmho is None else cmho)
        self.properties = self._Properties(table, self.msg_handle, owner=type(self))

    def dlt(self, dmho: DMHO | None = None) -> None:
        """MQDLTMH."""
        self.msg_handle = handle_table(self.qmgr).dltmh(self.msg_handle, dmho)


# -- MQPUT / MQPUT1 ---------------------------------------------------------------------------
def put_data(qmgr: Any, md: MD, pmo: Any, data: bytes) -> tuple[bytes, tuple | None]:
    """The message data an MQPUT with ``pmo``'s message handle sends (its properties as an
    MQRFH2 in front), and the MQMD fields to give back to the caller after the call (None:
    no properties)."""
    hmsg = pmo.NewMsgHandle or pmo.OriginalMsgHandle
    pset = _properties(qmgr, hmsg)
    if not len(pset):
        return data, None
    saved = (md.Format, md.Encoding, md.CodedCharSetId)
    return give_properties(pset, data, md), saved


def restore_put(md: MD, saved: tuple | None) -> None:
    """The caller's MQMD Format, Encoding and CodedCharSetId as they were before the put."""
    if saved is not None:
        md.Format, md.Encoding, md.CodedCharSetId = saved


# -- MQGET --------------------------------------------------------------------------------------
def wants_handle(gmo: Any) -> bool:
    """Does this MQGMO name a message handle (version 4, MsgHandle set)?"""
    return gmo is not None and gmo.Version >= C.MQGMO_VERSION_4 \
        and gmo.MsgHandle not in (C.MQHM_NONE, _HANDED_OVER)


def after_get(qmgr: Any, hmsg: int, gmo: Any, md: MD, data: bytes) -> bytes:
    """After MQGET with message handle ``hmsg``: the handle holds the message's properties
    (none unless the queue manager handed them over); returns the data the caller gets."""
    handed = gmo.MsgHandle == _HANDED_OVER
    gmo.MsgHandle = hmsg
    pset = _properties(qmgr, hmsg)
    pset.clear()
    if not handed:
        return data
    return take_properties(data, md, pset)


def put_with_properties(put: Any, qmgr: Any, msg: Any, md: MD | None, pmo: Any) -> None:
    """MQPUT / MQPUT1 of ``msg`` with ``pmo``'s message handle: ``put(data, md, pmo)`` makes
    the call with the properties in front of the data (the MQPMO's handles MQHM_NONE for
    it); the caller's MQMD and MQPMO are given back as they were but for what the put fills
    in."""
    md = md if md is not None else MD()
    if type(msg) is not bytes:
        msg = qmgr._message_bytes(msg, md)
    data, saved = put_data(qmgr, md, pmo, msg)
    handles = pmo.OriginalMsgHandle, pmo.NewMsgHandle
    pmo.OriginalMsgHandle = pmo.NewMsgHandle = C.MQHM_NONE
    try:
        put(data, md, pmo)
    finally:
        pmo.OriginalMsgHandle, pmo.NewMsgHandle = handles
        restore_put(md, saved)


def get_with_handle(qmgr: Any, get: Any, md: MD | None, gmo: Any) -> bytes:
    """MQGET with ``gmo``'s message handle: ``get(md, gmo)`` makes the call; the handle then
    holds the message's properties (:func:`after_get`), a truncated message's included."""
    hmsg = gmo.MsgHandle
    _properties(qmgr, hmsg)  # an unknown handle: MQRC_HMSG_ERROR before anything is got
    md = md if md is not None else MD()
    try:
        data = get(md, gmo)
    except MQMIError as e:
        message = getattr(e, "message", None)
        if isinstance(message, bytes):
            e.message = after_get(qmgr, hmsg, gmo, md, message)  # type: ignore[attr-defined]
        else:
            gmo.MsgHandle = hmsg
        raise
    return after_get(qmgr, hmsg, gmo, md, data)


def handle_getter(qmgr: Any, get: Any) -> Any:
    """The connection's MQGET ``get(hobj, md, gmo, max_length)`` made for an MQGMO with a
    message handle (an asynchronous consumer's): the handle then holds the message's
    properties, as after :func:`get_with_handle`."""

    def get_into_handle(hobj: int, md: MD, gmo: Any, max_length: int | None) -> bytes:
        return get_with_handle(qmgr, lambda m, g: get(hobj, m, g, max_length), md, gmo)

    return get_into_handle
