"""Inquire Connection: the connections DISPLAY CONN shows, answered from the processor's
connection rows. ConnectionId (or GenericConnectionId, empty for all) selects them;
ConnInfoType CONN answers each connection's attributes (ConnectionAttrs, default all),
HANDLE one response per open object handle, ALL both. A connection's attributes include
its ConnTag (MQBACF_CONN_TAG), as IBM's Multiplatforms make it: ``MQCT``, the 16 hex
digits of CONN, the queue manager's QMID and name, NUL-padded to MQ_CONN_TAG_LENGTH."""

from __future__ import annotations

from typing import Any

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    asked_attrs,
    attr_params,
)
from mqpy.engine.mqinq import qmgr_attribute
from mqpy.mqsc import pcfmap, queues

__all__ = ["CONNECTIONS"]

_OBJTYPES = {"QUEUE": CMQC.MQOT_Q}
_CONNOPTS = {"MQCNO_SHARED_BINDING": CMQC.MQCNO_SHARED_BINDING}


def _selected(req: PcfRequest, msg: pcf.PCFMessage) -> list[tuple[Any, dict, list]]:
    """The connection rows the request's ConnectionId / GenericConnectionId names."""
    exact = msg.get(CMQCFC.MQBACF_CONNECTION_ID)
    generic = msg.get(CMQCFC.MQBACF_GENERIC_CONNECTION_ID)
    if exact is not None and generic is not None:
        raise Refused(CMQCFC.MQRCCF_PARM_CONFLICT)
    wanted = exact if exact is not None else generic
    rows = queues.connection_rows(req.processor, "*", True)
    if not wanted:
        if exact is not None:
            raise Refused(CMQCFC.MQRCCF_CONNECTION_ID_ERROR)
        return rows
    if exact is not None and len(exact) != CMQC.MQ_CONNECTION_ID_LENGTH:
        raise Refused(CMQCFC.MQRCCF_CONNECTION_ID_ERROR)
    name = req.engine.name
    return [r for r in rows if queues.connection_id(name, r[0]).startswith(bytes(wanted))]


def _conn_tag(req: PcfRequest, conn: Any) -> pcf.Parameter:
    """The connection's ConnTag parameter."""
    name = req.engine.name
    with req.engine.lock:
        qmid = qmgr_attribute(CMQC.MQCA_Q_MGR_IDENTIFIER, name, req.engine.catalog.qmgr)
    tag = b"MQCT" + queues.conn_id(conn).encode("ascii") + bytes(qmid).rstrip() \
        + name.encode("latin-1")
    return pcf.CFBS(CMQCFC.MQBACF_CONN_TAG, tag[:CMQC.MQ_CONN_TAG_LENGTH].ljust(
        CMQC.MQ_CONN_TAG_LENGTH, b"\0"))


def inquire_connection(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    info = msg.get(CMQCFC.MQIACF_CONN_INFO_TYPE, CMQCFC.MQIACF_CONN_INFO_CONN)
    if info not in (CMQCFC.MQIACF_CONN_INFO_CONN, CMQCFC.MQIACF_CONN_INFO_HANDLE,
                    CMQCFC.MQIACF_CONN_INFO_ALL):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    rows = _selected(req, msg)
    if not rows:
        return [Response([], CMQC.MQCC_FAILED, CMQCFC.MQRCCF_NONE_FOUND)]
    wanted = asked_attrs(msg, CMQCFC.MQIACF_CONNECTION_ATTRS)
    out = []
    for conn, view, handles in rows:
        head = [pcf.CFBS(CMQCFC.MQBACF_CONNECTION_ID,
                         queues.connection_id(req.engine.name, conn))]
        if info != CMQCFC.MQIACF_CONN_INFO_HANDLE:
            values = {**view, "CONNOPTS": sum(_CONNOPTS.get(o, 0) for o in view["CONNOPTS"])}
            out.append(Response([*head, pcf.CFIN(CMQCFC.MQIACF_CONN_INFO_TYPE,
                                                 CMQCFC.MQIACF_CONN_INFO_CONN),
                                 *attr_params(values, pcfmap.CONNECTION, wanted),
                                 *([_conn_tag(req, conn)] if wanted is None
                                   or CMQCFC.MQBACF_CONN_TAG in wanted else [])]))
        if info != CMQCFC.MQIACF_CONN_INFO_CONN:
            out.extend(Response([
                *head, pcf.CFIN(CMQCFC.MQIACF_CONN_INFO_TYPE, CMQCFC.MQIACF_CONN_INFO_HANDLE),
                pcf.CFST(CMQCFC.MQCACF_OBJECT_NAME, objname.ljust(CMQC.MQ_OBJECT_NAME_LENGTH)),
                pcf.CFIN(CMQCFC.MQIACF_OBJECT_TYPE, _OBJTYPES.get(objtype, CMQC.MQOT_NONE))])
                for objname, objtype in handles)
    return out


#: command -> handler
CONNECTIONS: dict[int, PcfHandler] = {CMQCFC.MQCMD_INQUIRE_CONNECTION: inquire_connection}
