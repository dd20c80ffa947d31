"""The administrative REST API v2's work, as blocking functions of (queue manager, caller's
identity, request values) that answer IBM's JSON shapes: the installation, queue managers
and their state, queues (GET with attributes=, status=, filter=; POST; PATCH; DELETE) and
channels (GET with status) through PCF to the command server."""

from __future__ import annotations

import os

import mqpy
from mqpy import CMQC, CMQCFC, config, pcf
from mqpy.command.inquiries import CHS
from mqpy.mqsc import pcfmap
from mqpy.mqsc.parser import definable_name
from mqpy.version import CMDLEVEL, VRMF
from mqpy_cli.control import INSTALLATION, dspmq_status
from mqpy_cli.web import attributes as A
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer

#: dspmq's status -> IBM's REST state
QMGR_STATES = {"Running": "running", "Ended normally": "ended",
               "Ended immediately": "endedImmediately",
               "Ended pre-emptively": "endedPreemptively",
               "Ended unexpectedly": "endedUnexpectedly", "Starting": "starting",
               "Quiescing": "quiescing", "Ending immediately": "endingImmediately",
               "Ending pre-emptively": "endingPreemptively"}


def installation(data_path: str) -> dict:
    """GET /admin/installation."""
    return {"installation": [{
        "name": INSTALLATION, "version": VRMF, "level": f"p{CMDLEVEL}-L0",
        "installationPath": os.path.dirname(os.path.dirname(os.path.abspath(mqpy.__file__))),
        "dataPath": config.data_root(data_path), "maximumCommandLevel": CMDLEVEL,
        "platform": "unix", "architecture": "64-bit"}]}


def qmgr_state(name: str, data_path: str) -> str:
    return QMGR_STATES.get(dspmq_status(config.qmgr_dir(name, data_path)), "endedUnexpectedly")


def qmgrs(data_path: str, name: str | None = None, state: str | None = None) -> list[dict]:
    """The installation's queue managers (``name``: only it; 404 when it is not there)."""
    names = config.list_qmgrs(data_path)
    if name is not None:
        if name not in names:
            raise RestError(404, "MQWB0009E", name, reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        names = [name]
    out = [{"name": n, "state": qmgr_state(n, data_path)} for n in names]
    return [q for q in out if state is None or q["state"] == state]


_QMSTATUS = {CMQCFC.MQIACF_CONNECTION_COUNT: "connectionCount",
             CMQCFC.MQIACF_CHINIT_STATUS: "channelInitiatorState",
             CMQCFC.MQIACF_CMD_SERVER_STATUS: "commandServerState"}
_SVC = {v: k.lower() for k, v in pcfmap.SVC_STATUS.items()}


def qmgr_status(server: CommandServer) -> dict:
    """status.* of a running queue manager (Inquire Queue Manager Status)."""
    msg = server.run(CMQCFC.MQCMD_INQUIRE_Q_MGR_STATUS, [])[0]
    out: dict = {}
    for param, rest in _QMSTATUS.items():
        value = msg.get(param)
        if value is not None:
            out[rest] = value if rest == "connectionCount" else _SVC.get(value, str(value))
    date, time = (_text(msg.get(p)) for p in (CMQCFC.MQCACF_Q_MGR_START_DATE,
                                               CMQCFC.MQCACF_Q_MGR_START_TIME))
    if date:
        out["started"] = f"{date}T{time.replace('.', ':')}Z"
    return out


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    return "" if value is None else str(value)


# ----------------------------------------------------------------------- queues

_QUEUE_BY_PARAM = pcfmap.by_parameter(pcfmap.QUEUE)
_QUEUE_BY_KW = pcfmap.by_keyword(pcfmap.QUEUE)
_QSTATUS = {CMQC.MQIA_CURRENT_Q_DEPTH: "CURDEPTH", CMQC.MQIA_OPEN_INPUT_COUNT: "IPPROCS",
            CMQC.MQIA_OPEN_OUTPUT_COUNT: "OPPROCS", CMQCFC.MQIACF_UNCOMMITTED_MSGS: "UNCOM",
            CMQCFC.MQIACF_OLDEST_MSG_AGE: "MSGAGE",
            CMQCFC.MQIACF_CUR_Q_FILE_SIZE: "CURFSIZE",
            CMQCFC.MQIACF_CUR_MAX_FILE_SIZE: "CURMAXFS"}


def _keywords(msg: pcf.PCFMessage, table) -> dict[str, object]:  # noqa: ANN001
    """A PCF response as MQSC keywords and stored values."""
    out: dict[str, object] = {}
    for p in msg.params:
        attr = table.get(p.Parameter)
        if attr is not None:
            try:
                out[attr.keyword] = attr.from_pcf(p.value)
            except ValueError:
                out[attr.keyword] = p.value
    return out


def _when(date: object, time: object) -> str | None:
    d, t = _text(date), _text(time)
    return f"{d}T{t.replace('.', ':')}Z" if d and t else None


def queue_status(server: CommandServer, name: str) -> dict[str, dict]:
    """Queue name -> its status keywords (local queues only, as DISPLAY QSTATUS)."""
    out: dict[str, dict] = {}
    responses = server.ask(CMQCFC.MQCMD_INQUIRE_Q_STATUS,
                           [pcf.CFST(CMQC.MQCA_Q_NAME, name.encode())])
    for msg in responses:
        if msg.header.CompCode != CMQC.MQCC_OK:
            continue
        row = {kw: msg.get(p) for p, kw in _QSTATUS.items() if msg.get(p) is not None}
        row["LPUT"] = _when(msg.get(CMQCFC.MQCACF_LAST_PUT_DATE),
                            msg.get(CMQCFC.MQCACF_LAST_PUT_TIME))
        row["LGET"] = _when(msg.get(CMQCFC.MQCACF_LAST_GET_DATE),
                            msg.get(CMQCFC.MQCACF_LAST_GET_TIME))
        out[_text(msg.get(CMQC.MQCA_Q_NAME))] = row
    return out


_FILTER_OPS = {"equalTo": lambda a, b: a == b, "notEqualTo": lambda a, b: a != b,
               "greaterThan": lambda a, b: a > b, "lessThan": lambda a, b: a < b,
               "greaterThanOrEqualTo": lambda a, b: a >= b,
               "lessThanOrEqualTo": lambda a, b: a <= b}


def parse_filter(text: str | None, table: tuple[A.RestAttr, ...]):  # noqa: ANN201
    """IBM's ``filter=attribute:operator:value``: (attribute, test) or None; RestError 400
    when the attribute or the operator is not one IBM names."""
    if not text:
        return None
    parts = text.split(":", 2)
    attrs_ = A.by_rest(table)
    if len(parts) != 3 or parts[0] not in attrs_ or parts[1] not in _FILTER_OPS:
        raise RestError(400, "MQWB0302E", "filter", text)
    attr, op, raw = attrs_[parts[0]], _FILTER_OPS[parts[1]], parts[2]

    def test(value: object) -> bool:
        try:
            other = type(value)(raw) if not isinstance(value, bool) else raw == "true"
            return op(value, other)
        except (TypeError, ValueError):
            return False

    return attr, test


def _render(name: str, rest_type: str, stored: dict, status: dict | None,
            chosen: list[A.RestAttr], chosen_status: list[A.RestAttr]) -> dict:
    out: dict = {"name": name, "type": rest_type}
    for attr in chosen:
        if attr.keyword in stored:
            A.put_path(out, attr.rest, attr.out(stored[attr.keyword]))
    for attr in chosen_status:
        if status is not None and attr.keyword in status:
            A.put_path(out, attr.rest, attr.out(status[attr.keyword]))
    return out


def get_queues(server: CommandServer, name: str | None, *, attributes: str | None = None,
               status: str | None = None, filter_: str | None = None,
               qtype: str = "all") -> dict:
    """GET /admin/qmgr/{qmgr}/queue[/{queue}]."""
    try:
        chosen = A.select(A.QUEUE, attributes)
        chosen_status = A.select(A.QUEUE_STATUS, status)
    except ValueError as e:
        raise RestError(400, "MQWB0302E", "attributes", str(e)) from None
    flt = parse_filter(filter_, A.QUEUE + A.QUEUE_STATUS)
    params = [pcf.CFST(CMQC.MQCA_Q_NAME, (name or "*").encode()),
              pcf.CFIL(CMQCFC.MQIACF_Q_ATTRS, _asked(chosen, flt))]
    if qtype != "all":
        if qtype not in A.QUEUE_TYPE_WORDS:
            raise RestError(400, "MQWB0302E", "type", qtype)
        params.append(pcf.CFIN(CMQC.MQIA_Q_TYPE, pcfmap.WORDS["TYPE"][
            A.QUEUE_TYPE_WORDS[qtype]]))
    responses = server.run(CMQCFC.MQCMD_INQUIRE_Q, params, name or "*")
    statuses = queue_status(server, name or "*") if chosen_status or flt else {}
    out = []
    for msg in responses:
        stored = _keywords(msg, _QUEUE_BY_PARAM)
        qname = str(stored.get("QUEUE", ""))
        rest_type = A.QUEUE_TYPES.get(str(stored.get("TYPE")), "local")
        st = statuses.get(qname)
        if flt is not None:
            attr, test = flt
            value = (st or {}).get(attr.keyword) if attr.rest.startswith("status.") \
                else stored.get(attr.keyword)
            if value is None or not test(attr.out(value)):
                continue
        out.append(_render(qname, rest_type, stored, st, chosen, chosen_status))
    return {"queue": out}


def _asked(chosen: list[A.RestAttr], flt) -> list[int]:  # noqa: ANN001
    """QAttrs of an Inquire Queue: only what the answer shows or the filter tests (the
    command server builds and the server parses far less; the name and type come always)."""
    wanted = [a.keyword for a in chosen]
    if flt is not None and not flt[0].rest.startswith("status."):
        wanted.append(flt[0].keyword)
    ids = {_QUEUE_BY_KW[k].parameter for k in wanted if k in _QUEUE_BY_KW}
    return sorted(ids) or [CMQC.MQCA_Q_NAME]


_MQLONG_MIN, _MQLONG_MAX = -(2**31), 2**31 - 1


def _attribute_params(body: dict, allowed: tuple[A.RestAttr, ...]) -> list:
    """A request body's attributes as PCF parameters; RestError 400 naming one it cannot
    set."""
    table = A.by_rest(allowed)
    params = []
    for path, value in A.flatten(body).items():
        attr = table.get(path)
        if attr is None or attr.rest.startswith("timestamps."):
            raise RestError(400, "MQWB0302E", path, value)
        pattr = _QUEUE_BY_KW[attr.keyword]
        try:
            converted = pattr.to_pcf(attr.into(value))
        except (TypeError, ValueError):
            raise RestError(400, "MQWB0302E", path, value) from None
        if not pattr.is_string and not (isinstance(converted, int)
                                        and _MQLONG_MIN <= converted <= _MQLONG_MAX):
            raise RestError(400, "MQWB0302E", path, value)  # an MQCFIN holds an MQLONG
        params.append(pcf.CFST(pattr.parameter, converted.rstrip()) if pattr.is_string
                      else pcf.CFIN(pattr.parameter, converted))
    return params


def create_queue(server: CommandServer, body: dict) -> str:
    """POST /admin/qmgr/{qmgr}/queue: the new queue's name."""
    if not isinstance(body, dict) or not isinstance(body.get("name"), str):
        raise RestError(400, "MQWB2004E")
    if not definable_name(body["name"]):  # (1-48 of A-Z a-z 0-9 . / _ %, as MQSC's DEFINE)
        raise RestError(400, "MQWB0302E", "name", body["name"])
    fields = {k: v for k, v in body.items() if k not in ("name", "type")}
    rest_type = body.get("type", "local")
    if rest_type not in A.QUEUE_TYPE_WORDS:
        raise RestError(400, "MQWB0302E", "type", rest_type)
    params = [pcf.CFST(CMQC.MQCA_Q_NAME, body["name"].encode()),
              pcf.CFIN(CMQC.MQIA_Q_TYPE, pcfmap.WORDS["TYPE"][A.QUEUE_TYPE_WORDS[rest_type]]),
              *_attribute_params(fields, A.QUEUE)]
    server.run(CMQCFC.MQCMD_CREATE_Q, params, body["name"])
    return body["name"]


def _queue_type(server: CommandServer, name: str) -> int:
    msg = server.run(CMQCFC.MQCMD_INQUIRE_Q, [pcf.CFST(CMQC.MQCA_Q_NAME, name.encode())],
                     name)[0]
    return msg.get(CMQC.MQIA_Q_TYPE)


def change_queue(server: CommandServer, name: str, body: dict) -> None:
    """PATCH /admin/qmgr/{qmgr}/queue/{queue}."""
    if not isinstance(body, dict):
        raise RestError(400, "MQWB2004E")
    fields = {k: v for k, v in body.items() if k not in ("name", "type")}
    params = [pcf.CFST(CMQC.MQCA_Q_NAME, name.encode()),
              pcf.CFIN(CMQC.MQIA_Q_TYPE, _queue_type(server, name)),
              *_attribute_params(fields, A.QUEUE)]
    server.run(CMQCFC.MQCMD_CHANGE_Q, params, name)


def delete_queue(server: CommandServer, name: str, purge: bool) -> None:
    """DELETE /admin/qmgr/{qmgr}/queue/{queue}[?purge=true]."""
    params = [pcf.CFST(CMQC.MQCA_Q_NAME, name.encode()),
              pcf.CFIN(CMQC.MQIA_Q_TYPE, _queue_type(server, name))]
    if purge:
        params.append(pcf.CFIN(CMQCFC.MQIACF_PURGE, CMQCFC.MQPO_YES))
    server.run(CMQCFC.MQCMD_DELETE_Q, params, name)


# ----------------------------------------------------------------------- channels

_CHANNEL_BY_PARAM = pcfmap.by_parameter(pcfmap.CHANNEL)
_CHS_WORDS = {v: k for k, v in CHS.items()}
_CHSTATUS = {CMQCFC.MQCACH_CHANNEL_NAME: "CHANNEL", CMQCFC.MQCACH_CONNECTION_NAME: "CONNAME",
             CMQC.MQCA_REMOTE_Q_MGR_NAME: "RQMNAME", CMQCFC.MQCACH_XMIT_Q_NAME: "XMITQ",
             CMQCFC.MQIACH_MSGS: "MSGS", CMQCFC.MQIACH_BYTES_SENT: "BYTSSENT",
             CMQCFC.MQIACH_BYTES_RECEIVED: "BYTSRCVD", CMQCFC.MQIACH_BATCHES: "BATCHES",
             CMQCFC.MQCACH_LAST_MSG_DATE: "LSTMSGDA", CMQCFC.MQCACH_LAST_MSG_TIME: "LSTMSGTI",
             CMQCFC.MQCACH_CHANNEL_START_DATE: "CHSTADA",
             CMQCFC.MQCACH_CHANNEL_START_TIME: "CHSTATI"}


def channel_status(server: CommandServer, name: str) -> dict[str, dict]:
    """Channel name -> DISPLAY CHSTATUS keywords of its (first) current instance."""
    out: dict[str, dict] = {}
    for msg in server.ask(CMQCFC.MQCMD_INQUIRE_CHANNEL_STATUS,
                          [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, name.encode())]):
        if msg.header.CompCode != CMQC.MQCC_OK:
            continue
        row = {kw: (_text(v) if isinstance(v, bytes) else v)
               for p, kw in _CHSTATUS.items() if (v := msg.get(p)) is not None}
        row["STATUS"] = _CHS_WORDS.get(msg.get(CMQCFC.MQIACH_CHANNEL_STATUS), "INACTIVE")
        row["INDOUBT"] = "YES" if msg.get(CMQCFC.MQIACH_INDOUBT_STATUS) == \
            CMQCFC.MQCHIDS_INDOUBT else "NO"
        out.setdefault(str(row.get("CHANNEL", "")), row)
    return out


def get_channels(server: CommandServer, name: str | None, *, attributes: str | None = None,
                 status: str | None = None) -> dict:
    """GET /admin/qmgr/{qmgr}/channel[/{channel}]: a channel without a current status
    shows status.state "inactive"."""
    try:
        chosen = A.select(A.CHANNEL, attributes)
        chosen_status = A.select(A.CHANNEL_STATUS, status)
    except ValueError as e:
        raise RestError(400, "MQWB0302E", "attributes", str(e)) from None
    responses = server.run(CMQCFC.MQCMD_INQUIRE_CHANNEL,
                           [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, (name or "*").encode())],
                           name or "*")
    statuses = channel_status(server, name or "*") if chosen_status else {}
    out = []
    for msg in responses:
        stored = _keywords(msg, _CHANNEL_BY_PARAM)
        cname = str(stored.get("CHANNEL", ""))
        st = statuses.get(cname, {"STATUS": "INACTIVE"}) if chosen_status else None
        out.append(_render(cname, A.CHANNEL_TYPES.get(str(stored.get("CHLTYPE")), "unknown"),
                           stored, st, chosen, chosen_status))
    return {"channel": out}
