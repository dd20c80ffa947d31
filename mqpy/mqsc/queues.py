"""MQSC for queues beyond their definitions: DISPLAY QUEUE (TYPE(QCLUSTER) asks the
cluster), DISPLAY QSTATUS (TYPE QUEUE or HANDLE), DISPLAY CONN and CLEAR QLOCAL. The status
rows are the ones PCF's Inquire Queue Status answers from."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import attrs

from mqpy import CMQC, CMQCFC
from mqpy.engine import readahead
from mqpy.engine.queues import max_file_megabytes
from mqpy.errors import MQMIError
from mqpy.mqsc import clusters, definitions, qtime
from mqpy.mqsc.display import date_time, format_attrs
from mqpy.mqsc.mapping import display_items
from mqpy.mqsc.messages import DISPLAY_HEADERS, message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, from_mqi
from mqpy.mqsc.selection import generic_match, selected, where_passes

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["CHANNEL_APPL_DESC", "COMMANDS", "QMGR_URID", "appl_desc", "conn_id",
           "connection_id", "connection_rows", "extconn_of", "handle_status", "qmurid",
           "queue_status_view"]


def _text(value: bytes | str) -> str:
    return value.decode("latin-1").rstrip(" \x00") if isinstance(value, bytes) else value


def display_queue(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY QUEUE: TYPE(QCLUSTER) asks the cluster, as DISPLAY QCLUSTER does."""
    if cmd.params.get("TYPE") == "QCLUSTER":
        return clusters.display(proc, attrs.evolve(cmd, objtype="QCLUSTER"), who)
    return definitions.display(proc, cmd, who)


def _opened_for(view: dict[str, object], opentype: str) -> bool:
    """DISPLAY QSTATUS OPENTYPE(INPUT|OUTPUT|ALL): whether a row is open that way."""
    if opentype == "INPUT":
        return bool(view.get("IPPROCS") or view.get("INPUT", "NO") != "NO")
    if opentype == "OUTPUT":
        return bool(view.get("OPPROCS") or view.get("OUTPUT") == "YES")
    return True


def display_qstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    name = str(cmd.name)
    objs = proc.matching(("QLOCAL",), name, cmd.generic, who)
    if not objs:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    handles = cmd.params.get("TYPE") == "HANDLE"
    opentype = str(cmd.params.get("OPENTYPE", "ALL"))
    default = not cmd.display_attrs and "ALL" not in cmd.flags
    lines: list[str] = []
    index = None if handles else proc.engine.open_handles_by_queue()
    for obj in objs:
        rows = handle_status(proc, obj) if handles else [queue_status_view(proc, obj, index)]
        for view in rows:
            if not _opened_for(view, opentype) or not where_passes(cmd.where, view):
                continue
            if handles:
                rest = selected(cmd, view, everything=default)
            else:
                rest = selected(cmd, view)
                if "MONITOR" in cmd.flags:  # IBM's "also displayed by selection of MONITOR"
                    rest.update({k: view[k] for k in MONITOR_FIELDS})
                if default and "MONITOR" not in cmd.flags:
                    rest["CURDEPTH"] = view["CURDEPTH"]
            head = [("QUEUE", obj.name), ("TYPE", "HANDLE" if handles else "QUEUE")]
            lines.append(message(DISPLAY_HEADERS["QSTATUS"]))
            lines.extend(format_attrs(head + display_items(rest)))
    return lines


#: DISPLAY QSTATUS MONITOR: the queue monitoring fields
MONITOR_FIELDS = ("LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ", "MSGAGE", "QTIME")


def queue_status_view(proc: MQSCProcessor, obj: Any,
                      index: dict[int, list[Any]] | None = None) -> dict[str, object]:
    """DISPLAY QSTATUS TYPE(QUEUE) values of one local queue (``index``: the engine's
    ``open_handles_by_queue``, for many queues)."""
    eng = proc.engine
    with eng.lock:
        status = eng.queue_status(obj.name, index)
        mq = eng.catalog.queues.get(obj.qid)
        oldest = mq.oldest_put_time() if mq else 0.0
        last_put = getattr(mq, "last_put", 0.0)
        last_get = getattr(mq, "last_get", 0.0)
        monq = monitoring_in_effect(obj.attributes.get("MONQ", "QMGR"),
                                    eng.catalog.qmgr.get("MONQ", "OFF"))
        on_q_time = qtime.on_queue_time(eng, obj.name, monitored=monq != "OFF")
        curfsize = mq.file_megabytes() if mq else 0
    # the monitoring fields (IBM's "also displayed by selection of the MONITOR parameter":
    # the last get and put, the oldest message's age, the time on queue) have values only
    # with the queue's monitoring on: blank with MONQ OFF, and PCF's OldestMsgAge and
    # OnQTime MQMON_NOT_AVAILABLE then
    monitored = monq != "OFF"
    lgetdate, lgettime = date_time(last_get) if monitored else ("", "")
    lputdate, lputtime = date_time(last_put) if monitored else ("", "")
    uncom = int(status.get("UNCOM", 0))  # type: ignore[call-overload]
    return {
        "CURDEPTH": status["CURDEPTH"], "IPPROCS": status["IPPROCS"],
        "OPPROCS": status["OPPROCS"], "UNCOM": uncom or "NO",
        "LGETDATE": lgetdate, "LGETTIME": lgettime, "LPUTDATE": lputdate,
        "LPUTTIME": lputtime, "MEDIALOG": "", "MONQ": monq,
        "MSGAGE": "" if not monitored else int(time.time() - oldest) if oldest else 0,
        "QTIME": on_q_time, "CURFSIZE": curfsize,
        "CURMAXFS": max_file_megabytes(obj.attributes.get("MAXFSIZE")),
    }  # fmt: skip


def monitoring_in_effect(queue_monq: object, qmgr_monq: object) -> str:
    """A queue's MONQ in effect: its own, or the queue manager's for MONQ(QMGR); OFF
    whatever the queue says when the queue manager's is NONE."""
    if str(qmgr_monq) == "NONE":
        return "OFF"
    return str(qmgr_monq if queue_monq == "QMGR" else queue_monq)


#: URID / EXTURID of a unit of work the queue manager coordinates (URTYPE QMGR): runmqsc on
#: IBM's Multiplatforms shows its empty XA identifier so
QMGR_URID = "XA_FORMATID[] XA_GTRID[] XA_BQUAL[]"
#: APPLDESC of an application connected through a server-connection channel, IBM's words
#: for it; one connected over bindings is no program the queue manager knows: blank
CHANNEL_APPL_DESC = "IBM MQ Channel"


def appl_desc(conn: Any) -> str:
    """APPLDESC (ApplDesc) of a connection."""
    return CHANNEL_APPL_DESC if conn.channel else ""


def qmurid(conn: Any) -> str:
    """QMURID (QMgrUOWId) of a connection: its unit of work's number as IBM's Multiplatforms
    show it, the two 32-bit halves of a 64-bit transaction id (``0.28672``); ``0.0`` with no
    unit of work."""
    uow_id = conn.uow.uow_id if conn.uow is not None else 0
    return f"{uow_id >> 32 & 0xFFFFFFFF}.{uow_id & 0xFFFFFFFF}"


def _yes(opts: int, flag: int) -> str:
    return "YES" if opts & flag else "NO"


def handle_status(proc: MQSCProcessor, obj: Any, *, with_options: bool = False
                  ) -> list[dict[str, object]]:
    """DISPLAY QSTATUS TYPE(HANDLE): one row per open handle on the queue; ``with_options``
    adds OPENOPTS, the MQOO_* options the handle was opened with (which Inquire Queue
    Status answers and DISPLAY QSTATUS does not show)."""
    eng = proc.engine
    rows = []
    inputs = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE
    with eng.lock:
        mq = eng.catalog.queues.get(obj.qid)
        for conn in eng.connections.values():
            for h in conn.handles.values():
                if h.mq is not mq:
                    continue
                opts = h.options
                row: dict[str, object] = {
                    "APPLTAG": _text(conn.appl_name), "APPLTYPE": "USER",
                    "ASTATE": "NONE", "BROWSE": _yes(opts, CMQC.MQOO_BROWSE),
                    "CHANNEL": conn.channel, "CONNAME": conn.conname,
                    "INPUT": ("EXCL" if h.exclusive else "SHARED") if opts & inputs else "NO",
                    "INQUIRE": _yes(opts, CMQC.MQOO_INQUIRE),
                    "OUTPUT": _yes(opts, CMQC.MQOO_OUTPUT), "SET": _yes(opts, CMQC.MQOO_SET),
                    "PID": process_id(conn), "TID": conn.hconn, "URTYPE": "QMGR",
                    "USERID": _text(conn.user), "APPLDESC": appl_desc(conn),
                    # an MQGET waiting is the one MQI call in progress the command server
                    # can see (the engine serves one call at a time): IBM's ACTIVE
                    "HSTATE": "ACTIVE" if h.waiter is not None and h.waiter in mq.waiters
                    else "INACTIVE",
                    "QMURID": qmurid(conn), "URID": QMGR_URID,
                    # read ahead in effect for the handle (engine.readahead's rules)
                    "READA": "YES" if readahead.in_effect(opts, h.obj) else "NO",
                }  # fmt: skip
                if with_options:
                    row["OPENOPTS"] = opts
                rows.append(row)
    return rows


def process_id(conn: Any) -> int:
    """The process of the application a connection serves (DISPLAY CONN's and a handle's
    PID, PCF's ProcessId), as the side that made the connection gave it (``process_id``:
    an application's connection made in its own process, :func:`mqpy.mqi.attach`'s); 0
    where it gave none."""
    return int(getattr(conn, "process_id", 0) or 0)


def connection_rows(proc: MQSCProcessor, name: str, generic: bool
                    ) -> list[tuple[Any, dict, list]]:
    """The connections DISPLAY CONN (Inquire Connection) names: (connection, its values,
    its handles' objects)."""
    eng = proc.engine
    with eng.lock:
        conns = [c for c in eng.connections.values()
                 if generic_match(name, conn_id(c)) or not generic and conn_id(c) == name]
        rows = []
        for c in sorted(conns, key=lambda c: c.hconn):
            date, tod = date_time(c.connected_at)
            uow = c.uow is not None
            handles = [(h.obj.name, "QUEUE") for h in c.handles.values()]
            rows.append((c, {
                "APPLTAG": _text(c.appl_name), "APPLTYPE": "USER", "ASTATE": "NONE",
                "CHANNEL": c.channel, "CONNAME": c.conname,
                "CONNOPTS": ("MQCNO_SHARED_BINDING",),
                "USERID": _text(c.user), "UOWLOGDA": "", "UOWLOGTI": "",
                "UOWSTDA": date if uow else "", "UOWSTTI": tod if uow else "",
                "UOWSTATE": "ACTIVE" if uow else "NONE", "QMURID": qmurid(c),
                "EXTURID": QMGR_URID, "URTYPE": "QMGR", "APPLDESC": appl_desc(c),
                "PID": process_id(c), "TID": c.hconn, "CONNTAG": "NO",
            }, handles))  # fmt: skip
    return rows


def display_conn(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    rows = connection_rows(proc, str(cmd.name), cmd.generic)
    if not rows:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", str(cmd.name))
    ctype = str(cmd.params.get("TYPE", "CONN"))
    extconn = extconn_of(proc.engine.name).hex().upper()
    lines: list[str] = []
    for conn, view, handles in rows:
        if not where_passes(cmd.where, view):
            continue
        items: list[tuple[str, object]] = [("CONN", conn_id(conn)), ("EXTCONN", extconn),
                                           ("TYPE", ctype)]
        if ctype in ("CONN", "ALL"):
            items += display_items(selected(cmd, view))
        if ctype in ("HANDLE", "ALL"):
            for objname, objtype in handles:
                items += [("OBJNAME", objname), ("OBJTYPE", objtype)]
        lines.append(message(DISPLAY_HEADERS["CONN"]))
        lines.extend(format_attrs(items))
    return lines


def extconn_of(qmgr: str) -> bytes:
    """The first 16 bytes of every connection id of queue manager ``qmgr`` (EXTCONN)."""
    return b"AMQC" + qmgr[:12].ljust(12).encode("latin-1")


def connection_id(qmgr: str, conn: Any) -> bytes:
    """The 24-byte ConnectionId of PCF: EXTCONN, then the 8 bytes CONN shows in hex."""
    return extconn_of(qmgr) + bytes.fromhex(conn_id(conn))


def conn_id(conn: Any) -> str:
    """The CONN(...) identifier: 16 hex digits (IBM shows the low half of the 24-byte
    connection id)."""
    return f"{int(conn.connected_at * 1000) & 0xFFFFFFFF:08X}{conn.hconn:08X}"


def clear(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    name = str(cmd.name)
    if proc.existing("QLOCAL", name) is None:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    try:
        proc.engine.clear(name)
    except MQMIError as err:
        raise from_mqi(err, name) from None
    return [message("AMQ8022I")]


def stop_conn(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """STOP CONN(connection-identifier): the connection is broken (its application's next
    call answers MQRC_CONNECTION_BROKEN); an identifier no connection has is
    MQRCCF_CONNECTION_ID_ERROR."""
    wanted = str(cmd.name).upper()
    with proc.engine.lock:
        found = [c for c in proc.engine.connections.values() if conn_id(c) == wanted]
    if not found:
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_CONNECTION_ID_ERROR)
    found[0].stop()
    return [message("AMQ8458I")]


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    ("DISPLAY", "QUEUE"): display_queue, ("DISPLAY", "QSTATUS"): display_qstatus,
    ("DISPLAY", "CONN"): display_conn, ("CLEAR", "QLOCAL"): clear,
    ("STOP", "CONN"): stop_conn,
}
