"""amqsevt: read the messages of event queues and print each event as readable text, or as
JSON with ``-o json`` (IBM's sample AMQSEVT).

    amqsevt [-m QMGR] [-q QUEUE]... [-w SECONDS] [-b] [-o text|json] [-d]

Without ``-q`` it reads IBM's default set of event queues (SYSTEM.ADMIN.*.EVENT: performance,
channel, queue manager, logger, publish/subscribe, configuration, command), skipping those the
queue manager lacks; without ``-w`` it waits for events until interrupted. ``-b`` browses,
leaving the events on their queues; ``-d`` prints constants as the MQ headers spell them.

What IBM's sample prints, kept here: a heading per message (``**** Message #n (len Bytes) on
Queue name ****``), then Event Type and Reason as readable names with their numbers ("Config
Event [43]", "Config Change Object [2368]"), the creation time from the MQMD (GMT), Object
state for a Change Object (Before Change, After Change) and the Correlation ID of a
configuration or command event; then each parameter, its name made readable from its MQ
constant (MQCA_Q_MGR_NAME: "Queue Mgr Name", a lone Q read as Queue, the family prefix
dropped), a value of a known family named the same way (MQEVO_CONSOLE: "Console"), a byte
string in hex, a list a line a value; a group (a command event's CommandContext and
CommandData) a heading with its members indented beneath. The colons line up in one column.
The JSON form carries the same: eventSource, eventType, eventReason, eventCreation (RFC 3339
time and Unix epoch), objectState, correlationID, and eventData whose keys are the readable
names in camel case (queueMgrName), groups nested objects, lists arrays, a value of digits
alone a number.
"""

from __future__ import annotations

import calendar
import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

import attrs
import click

import mqpy
from mqpy import CMQC, CMQCFC, constants, pcf
from mqpy_cli.samples import run_command

#: the queues amqsevt reads when none is named (IBM's default set, in IBM's order)
EVENT_QUEUES = ("SYSTEM.ADMIN.PERFM.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT",
                "SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.LOGGER.EVENT",
                "SYSTEM.ADMIN.PUBSUB.EVENT", "SYSTEM.ADMIN.CONFIG.EVENT",
                "SYSTEM.ADMIN.COMMAND.EVENT")
_POLL_MS = 200  # each queue is asked in turn this long when several are read
#: the column of the colon: a name is padded to it, whatever its indentation (IBM's 32)
_COLUMN = 32

#: the constant families a parameter's name is looked up in, by PCF structure (IBM's order)
_INT_FAMILIES = ("MQIA_", "MQIACF_", "MQIACH_", "MQIAMO_", "MQIAMO64_")
_STRING_FAMILIES = ("MQCA_", "MQCACF_", "MQCACH_", "MQCAMO_")
_BYTES_FAMILIES = ("MQBACF_",)
_GROUP_FAMILIES = ("MQGACF_",)
_PARAMETER_FAMILIES = frozenset(
    (*_INT_FAMILIES, *_STRING_FAMILIES, *_BYTES_FAMILIES, *_GROUP_FAMILIES, "MQRC_", "MQRCCF_"))
_MARKERS = ("_FIRST", "_LAST", "_LAST_USED")

#: an integer parameter -> the constant family that names its values
_VALUE_FAMILIES: Mapping[int, str] = {
    **dict.fromkeys((CMQC.MQIA_APPL_TYPE, CMQCFC.MQIACF_EVENT_APPL_TYPE), "MQAT_"),
    **dict.fromkeys((CMQC.MQIA_BASE_TYPE, CMQCFC.MQIACF_OBJECT_TYPE,
                     CMQCFC.MQIACF_AUTH_REC_TYPE, CMQCFC.MQIACH_CHANNEL_INSTANCE_TYPE),
                    "MQOT_"),
    **dict.fromkeys((CMQC.MQIA_AUTHORITY_EVENT, CMQC.MQIA_BRIDGE_EVENT,
                     CMQC.MQIA_CHANNEL_AUTO_DEF_EVENT, CMQC.MQIA_CHANNEL_EVENT,
                     CMQC.MQIA_COMMAND_EVENT, CMQC.MQIA_CONFIGURATION_EVENT,
                     CMQC.MQIA_INHIBIT_EVENT, CMQC.MQIA_LOCAL_EVENT, CMQC.MQIA_LOGGER_EVENT,
                     CMQC.MQIA_PERFORMANCE_EVENT, CMQC.MQIA_Q_DEPTH_HIGH_EVENT,
                     CMQC.MQIA_Q_DEPTH_LOW_EVENT, CMQC.MQIA_Q_DEPTH_MAX_EVENT,
                     CMQC.MQIA_Q_SERVICE_INTERVAL_EVENT, CMQC.MQIA_REMOTE_EVENT,
                     CMQC.MQIA_START_STOP_EVENT, CMQC.MQIA_SSL_EVENT), "MQEVR_"),
    **dict.fromkeys((CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE, CMQC.MQIA_ACCOUNTING_MQI,
                     CMQC.MQIA_ACCOUNTING_Q, CMQC.MQIA_ACTIVITY_CONN_OVERRIDE,
                     CMQC.MQIA_ACTIVITY_TRACE, CMQC.MQIA_MONITORING_AUTO_CLUSSDR,
                     CMQC.MQIA_MONITORING_CHANNEL, CMQC.MQIA_MONITORING_Q,
                     CMQC.MQIA_STATISTICS_AUTO_CLUSSDR, CMQC.MQIA_STATISTICS_CHANNEL,
                     CMQC.MQIA_STATISTICS_MQI, CMQC.MQIA_STATISTICS_Q), "MQMON_"),
    **dict.fromkeys((CMQC.MQIA_ACTIVITY_RECORDING, CMQC.MQIA_TRACE_ROUTE_RECORDING),
                    "MQRECORDING_"),
    **dict.fromkeys((CMQC.MQIA_CHINIT_CONTROL, CMQC.MQIA_CMD_SERVER_CONTROL,
                     CMQC.MQIA_SERVICE_CONTROL, CMQCFC.MQIACH_LISTENER_CONTROL),
                    "MQSVC_CONTROL_"),
    **dict.fromkeys((CMQC.MQIA_DEF_PERSISTENCE, CMQC.MQIA_TOPIC_DEF_PERSISTENCE), "MQPER_"),
    **dict.fromkeys((CMQC.MQIA_PUB_SCOPE, CMQC.MQIA_SUB_SCOPE), "MQSCOPE_"),
    **dict.fromkeys((CMQC.MQIA_CHECK_CLIENT_BINDING, CMQC.MQIA_CHECK_LOCAL_BINDING), "MQCHK_"),
    **dict.fromkeys((CMQCFC.MQIACH_CHANNEL_DISP, CMQCFC.MQIACH_DEF_CHANNEL_DISP), "MQCHLD_"),
    CMQC.MQIA_ADOPTNEWMCA_CHECK: "MQADOPT_CHECK_", CMQC.MQIA_ADOPTNEWMCA_TYPE: "MQADOPT_TYPE_",
    CMQC.MQIA_AUTH_INFO_TYPE: "MQAIT_", CMQC.MQIA_CERT_VAL_POLICY: "MQ_CERT_VAL_POLICY_",
    CMQC.MQIA_CHANNEL_AUTO_DEF: "MQCHAD_", CMQC.MQIA_CHLAUTH_RECORDS: "MQCHLA_",
    CMQC.MQIA_CLWL_USEQ: "MQCLWL_USEQ_", CMQC.MQIA_DEF_BIND: "MQBND_",
    CMQC.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: "MQCLXQ_", CMQC.MQIA_DEF_INPUT_OPEN_OPTION: "MQOO_",
    CMQC.MQIA_DEF_PUT_RESPONSE_TYPE: "MQPRT_", CMQC.MQIA_DEF_READ_AHEAD: "MQREADA_",
    CMQC.MQIA_DEFINITION_TYPE: "MQQDT_", CMQC.MQIA_DIST_LISTS: "MQDL_",
    CMQC.MQIA_DURABLE_SUB: "MQSUB_DURABLE_", CMQC.MQIA_HARDEN_GET_BACKOUT: "MQQA_BACKOUT_",
    CMQC.MQIA_INDEX_TYPE: "MQIT_", CMQC.MQIA_INHIBIT_GET: "MQQA_GET_",
    CMQC.MQIA_INHIBIT_PUB: "MQTA_PUB_", CMQC.MQIA_INHIBIT_PUT: "MQQA_PUT_",
    CMQC.MQIA_INHIBIT_SUB: "MQTA_SUB_", CMQC.MQIA_IP_ADDRESS_VERSION: "MQIPADDR_",
    CMQC.MQIA_MSG_DELIVERY_SEQUENCE: "MQMDS_", CMQC.MQIA_NAMELIST_TYPE: "MQNT_",
    CMQC.MQIA_NPM_CLASS: "MQNPM_", CMQC.MQIA_PLATFORM: "MQPL_",
    CMQC.MQIA_PROPERTY_CONTROL: "MQPROP_", CMQC.MQIA_PROXY_SUB: "MQTA_PROXY_SUB_",
    CMQC.MQIA_PUBSUB_MODE: "MQPSM_", CMQC.MQIA_Q_TYPE: "MQQT_", CMQC.MQIA_QSG_DISP: "MQQSGD_",
    CMQC.MQIA_SCOPE: "MQSCO_", CMQC.MQIA_SERVICE_TYPE: "MQSVC_TYPE_",
    CMQC.MQIA_SSL_FIPS_REQUIRED: "MQSSL_FIPS_", CMQC.MQIA_SYNCPOINT: "MQSP_",
    CMQC.MQIA_TOPIC_TYPE: "MQTOPT_", CMQC.MQIA_TRIGGER_CONTROL: "MQTC_",
    CMQC.MQIA_TRIGGER_TYPE: "MQTT_", CMQC.MQIA_USAGE: "MQUS_",
    CMQC.MQIA_USE_DEAD_LETTER_Q: "MQUSEDLQ_", CMQC.MQIA_WILDCARD_OPERATION: "MQTA_",
    CMQCFC.MQIACF_ACTION: "MQACT_", CMQCFC.MQIACF_CHLAUTH_TYPE: "MQCAUT_",
    CMQCFC.MQIACF_COMMAND: "MQCMD_", CMQCFC.MQIACF_ENTITY_TYPE: "MQZAET_",
    CMQCFC.MQIACF_EVENT_ORIGIN: "MQEVO_", CMQCFC.MQIACF_REASON_QUALIFIER: "MQRQ_",
    CMQCFC.MQIACH_CHANNEL_TYPE: "MQCHT_", CMQCFC.MQIACH_DATA_CONVERSION: "MQCDC_",
    CMQCFC.MQIACH_MCA_TYPE: "MQMCAT_", CMQCFC.MQIACH_PUT_AUTHORITY: "MQPA_",
    CMQCFC.MQIACH_SSL_CLIENT_AUTH: "MQSCA_", CMQCFC.MQIACH_USER_SOURCE: "MQUSRC_",
    CMQCFC.MQIACH_WARNING: "MQWARN_", CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: "MQXPT_",
    CMQCFC.MQIACF_AUTHORIZATION_LIST: "MQAUTH_", CMQCFC.MQIACF_AUTH_ADD_AUTHS: "MQAUTH_",
    CMQCFC.MQIACF_AUTH_REMOVE_AUTHS: "MQAUTH_",
}
#: a value several constants of a family share -> the name IBM's sample prints for it
_PREFERRED = {("MQAT_", CMQC.MQAT_UNIX): "MQAT_UNIX", ("MQPL_", CMQC.MQPL_UNIX): "MQPL_UNIX",
              ("MQCA_", CMQC.MQCA_BASE_OBJECT_NAME): "MQCA_BASE_OBJECT_NAME"}
#: words IBM's sample keeps in capitals once a constant is in mixed case
_FORCE_UPPER = ("Amqp", "Clwl", "Cpi", "Crl", "Csp", "Dns", "Dn", "Idpw", "Igq", "Ip ", "Ipv",
                "Ldap", "Lu62", "Mca ", "Mqi", "Mqsc", "Mr ", "Mru", "Pcf", "Sctq", "Ssl", "Tcp")
#: the MQOO_, MQCO_ and MQSO_ options spelled as setmqaut-like words (IBM's sample's)
_OPEN_OPTIONS = (
    (CMQC.MQOO_ALTERNATE_USER_AUTHORITY, "altusr"), (CMQC.MQOO_BIND_ON_OPEN, "bind_open"),
    (CMQC.MQOO_BIND_NOT_FIXED, "bind_not_fix"), (CMQC.MQOO_BIND_AS_Q_DEF, "bind_as_q"),
    (CMQC.MQOO_BROWSE, "brw"), (CMQC.MQOO_CO_OP, "coop"),
    (CMQC.MQOO_FAIL_IF_QUIESCING, "fiq"), (CMQC.MQOO_INPUT_AS_Q_DEF, "in_as_q"),
    (CMQC.MQOO_INPUT_SHARED, "in_shared"), (CMQC.MQOO_INPUT_EXCLUSIVE, "in_excl"),
    (CMQC.MQOO_INQUIRE, "inq"), (CMQC.MQOO_NO_READ_AHEAD, "nora"), (CMQC.MQOO_OUTPUT, "out"),
    (CMQC.MQOO_PASS_ALL_CONTEXT, "passall"), (CMQC.MQOO_PASS_IDENTITY_CONTEXT, "passid"),
    (CMQC.MQOO_READ_AHEAD, "ra"), (CMQC.MQOO_READ_AHEAD_AS_Q_DEF, "ra_as_q"),
    (CMQC.MQOO_RESOLVE_LOCAL_Q, "rslv_q"),
    (CMQC.MQOO_SAVE_ALL_CONTEXT, "save_ctx"), (CMQC.MQOO_SET, "set"),
    (CMQC.MQOO_SET_ALL_CONTEXT, "setall"), (CMQC.MQOO_SET_IDENTITY_CONTEXT, "setid"))
_CLOSE_OPTIONS = ((CMQC.MQCO_DELETE, "del"), (CMQC.MQCO_DELETE_PURGE, "del_purge"),
                  (CMQC.MQCO_KEEP_SUB, "keep_sub"), (CMQC.MQCO_REMOVE_SUB, "remove_sub"),
                  (CMQC.MQCO_QUIESCE, "quiesce"))
_SUB_OPTIONS = (
    (CMQC.MQSO_ALTERNATE_USER_AUTHORITY, "altusr"), (CMQC.MQSO_ALTER, "alter"),
    (CMQC.MQSO_CREATE, "create"), (CMQC.MQSO_RESUME, "resume"), (CMQC.MQSO_DURABLE, "dur"),
    (CMQC.MQSO_GROUP_SUB, "group_sub"), (CMQC.MQSO_MANAGED, "managed"),
    (CMQC.MQSO_SET_IDENTITY_CONTEXT, "setid"), (CMQC.MQSO_NO_MULTICAST, "mcast"),
    (CMQC.MQSO_FIXED_USERID, "fixed_id"), (CMQC.MQSO_ANY_USERID, "any_id"),
    (CMQC.MQSO_PUBLICATIONS_ON_REQUEST, "on_req"),
    (CMQC.MQSO_NEW_PUBLICATIONS_ONLY, "new_only"), (CMQC.MQSO_FAIL_IF_QUIESCING, "fiq"),
    (CMQC.MQSO_WILDCARD_CHAR, "wc_char"), (CMQC.MQSO_WILDCARD_TOPIC, "wc_topic"),
    (CMQC.MQSO_SET_CORREL_ID, "set_cid"), (CMQC.MQSO_SCOPE_QMGR, "sc_qmgr"),
    (CMQC.MQSO_NO_READ_AHEAD, "nora"), (CMQC.MQSO_READ_AHEAD, "ra"))
_OPTIONS = {CMQCFC.MQIACF_OPEN_OPTIONS: _OPEN_OPTIONS,
            CMQCFC.MQIACF_CLOSE_OPTIONS: _CLOSE_OPTIONS, CMQCFC.MQIACF_SUB_OPTIONS: _SUB_OPTIONS}


# ------------------------------------------------------------------ constants made readable


def constant_name(families: tuple[str, ...], value: int) -> str | None:
    """The MQ constant of the first of ``families`` with ``value`` (where several share it,
    the one IBM's sample prints; a parameter family's range markers, MQIA_FIRST and the
    like, left out), or None."""
    for family in families:
        preferred = _PREFERRED.get((family, value))
        if preferred is not None:
            return preferred
        markers = family in _PARAMETER_FAMILIES
        for name, number in constants.names(family).items():
            if number == value and not (markers and name.endswith(_MARKERS)):
                return name
    return None


def readable(name: str, *, raw: bool = False, mixed_case: bool = True) -> str:
    """An MQ constant as IBM's sample shows it: a lone Q read as QUEUE (the first ``_Q_``,
    else a ``_Q`` at the end), the family prefix dropped, the words split and in mixed case
    ("MQCA_Q_MGR_NAME": "Queue Mgr Name"), a few kept in capitals (MQSC, PCF, SSL ...);
    ``raw`` (``-d``): the constant as it is."""
    if raw or "_" not in name:
        return name
    if name == "MQOT_Q":
        return "Queue"
    if "_Q_" in name:
        name = name.replace("_Q_", "_QUEUE_", 1)
    elif name.endswith("_Q"):
        name = name[:-2] + "_QUEUE"
    words = name.split("_")[1:]
    if not mixed_case:
        return " ".join(words)
    text = " ".join(w[:1] + w[1:].lower() for w in words)
    for word in _FORCE_UPPER:
        text = text.replace(word, word.upper())
    text = text.replace("Zos", "zOS", 1).replace(" Os", " OS", 1)
    return "OS" + text[2:] if text.startswith("Os") else text


def _unknown(value: int) -> str:
    return f"Unknown [{value}]"


def json_key(label: str) -> str:
    """A readable name as a JSON key (IBM's sample's): its words joined in camel case
    ("Queue Mgr Name": "queueMgrName"); a name with an underscore (``-d``) unchanged."""
    if "_" in label:
        return label
    words = label.split(" ")
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:])


# ------------------------------------------------------------------ one event, structured


@attrs.frozen
class Group:
    """A group of parameters (MQCFGR): its heading in the text form (IBM's: its constant's
    words in capitals) and its members as (readable name, value)."""

    heading: str
    members: list[tuple[str, object]]


@attrs.frozen
class Event:
    """One event as amqsevt shows it, both forms' facts: where it was read, its type and
    reason (readable name, number), its creation (the MQMD's, GMT: as text with hundredths,
    as RFC 3339 and epoch), Object state and Correlation ID where it has them, its data."""

    queue: str
    qmgr: str
    type: tuple[str, int]
    reason: tuple[str, int]
    created: str
    timestamp: str
    epoch: int
    object_state: str | None
    correlation_id: str | None
    data: list[tuple[str, object]]


def _text(value: bytes) -> str:
    return value.rstrip(b" \0").decode("utf-8", "replace")


def _options(value: int, table: tuple[tuple[int, str], ...]) -> list[str]:
    return [word for flag, word in table if value & flag] or ["None"]


def _integer(parameter: int, value: int, raw: bool) -> object:
    """An integer parameter's value as IBM's sample shows it: named from its family, an
    options word list, else the number."""
    options = _OPTIONS.get(parameter)
    if options is not None:
        return {"options": value, "optionsString": _options(value, options)}
    if parameter in (CMQCFC.MQIACF_REASON_CODE, CMQCFC.MQIACF_COMP_CODE):
        family = ("MQRC_", "MQRCCF_") if parameter == CMQCFC.MQIACF_REASON_CODE else ("MQCC_",)
        return {"name": readable(constant_name(family, value) or _unknown(value), raw=raw),
                "value": value}
    if parameter in (CMQCFC.MQIACF_ERROR_ID, CMQCFC.MQIACF_ENCODING):
        return f"0x{value & 0xFFFFFFFF:08X}"
    if parameter == CMQC.MQIA_SHAREABILITY:  # (no family names its values: IBM's words)
        return readable("MQQA_SHAREABLE" if value else "MQQA_NOT_SHAREABLE", raw=raw)
    if parameter == CMQC.MQIA_CODED_CHAR_SET_ID and value <= 0:
        return readable(constant_name(("MQCCSI_",), value) or _unknown(value), raw=raw)
    family = _VALUE_FAMILIES.get(parameter)
    if family is None:
        return value
    name = constant_name((family,), value)
    return readable(name, raw=raw) if name is not None else _unknown(value)


def _label(families: tuple[str, ...], parameter: int, raw: bool) -> str:
    name = constant_name(families, parameter)
    return readable(name, raw=raw) if name is not None else _unknown(parameter)


def event_data(params: list, raw: bool = False) -> list[tuple[str, object]]:
    """The parameters of an event as (readable name, value) in their order: a string
    blank-trimmed, a byte string in hex, a list a list, a group (its name, its members'
    pairs) nested."""
    out: list[tuple[str, object]] = []
    for p in params:
        if isinstance(p, pcf.CFGR):
            name = constant_name(_GROUP_FAMILIES, p.Parameter) or _unknown(p.Parameter)
            out.append((readable(name, raw=raw), Group(readable(name, raw=raw, mixed_case=False),
                                                       event_data(p.Parameters, raw))))
        elif isinstance(p, pcf.CFST):
            out.append((_label(_STRING_FAMILIES, p.Parameter, raw), _text(p.String)))
        elif isinstance(p, pcf.CFSL):
            out.append((_label(_STRING_FAMILIES, p.Parameter, raw),
                        [_text(s) for s in p.Strings]))
        elif isinstance(p, pcf.CFBS):
            out.append((_label(_BYTES_FAMILIES, p.Parameter, raw), bytes(p.String).hex().upper()))
        elif isinstance(p, (pcf.CFIL, pcf.CFIL64)):
            out.append((_label(_INT_FAMILIES, p.Parameter, raw),
                        [_integer(p.Parameter, v, raw) for v in p.Values]))
        elif isinstance(p, (pcf.CFIN, pcf.CFIN64)):
            out.append((_label(_INT_FAMILIES, p.Parameter, raw),
                        _integer(p.Parameter, p.Value, raw)))
    return out


def event_record(queue: str, qmgr: str, md: mqpy.MD, msg: pcf.PCFMessage, *,
                 raw: bool = False) -> Event:
    """One event read from ``queue`` of ``qmgr`` with its MQMD, as amqsevt shows it."""
    h = msg.header
    date, tod = md.PutDate.decode("ascii", "replace"), md.PutTime.decode("ascii", "replace")
    state = None
    if h.Reason == CMQC.MQRC_CONFIG_CHANGE_OBJECT:
        state = "After Change" if h.Control == CMQCFC.MQCFC_LAST else "Before Change"
    correl = bytes(md.CorrelId).hex().upper() if h.Command in (
        CMQCFC.MQCMD_CONFIG_EVENT, CMQCFC.MQCMD_COMMAND_EVENT) else None
    return Event(
        queue=queue, qmgr=qmgr,
        type=(readable(constant_name(("MQCMD_",), h.Command) or _unknown(h.Command),
                       raw=raw), h.Command),
        reason=(readable(constant_name(("MQRC_", "MQRCCF_"), h.Reason) or _unknown(h.Reason),
                         raw=raw), h.Reason),
        created=f"{date[:4]}/{date[4:6]}/{date[6:8]} {tod[:2]}:{tod[2:4]}:{tod[4:6]}."
                f"{tod[6:8]} GMT",
        timestamp=f"{date[:4]}-{date[4:6]}-{date[6:8]}T{tod[:2]}:{tod[2:4]}:{tod[4:6]}Z",
        epoch=_epoch(date, tod), object_state=state, correlation_id=correl,
        data=event_data(msg.params, raw))


def _epoch(date: str, tod: str) -> int:
    try:
        return calendar.timegm(time.strptime(date[:8] + tod[:6], "%Y%m%d%H%M%S"))
    except ValueError:
        return 0


# ------------------------------------------------------------------ the two forms


def _line(indent: int, label: str, value: str | None, raw: bool = False) -> str:
    """One ``name : value`` line, the colon in IBM's column (six further right for ``-d``'s
    longer names); a group's heading alone."""
    if value is None:
        return " " * indent + label
    column = _COLUMN + 6 if raw else _COLUMN
    return f"{' ' * indent}{label:<{max(column - indent, 0)}} : {value}".rstrip()


def _shown(value: object) -> str:
    if isinstance(value, dict) and "optionsString" in value:
        return f"0x{value['options'] & 0xFFFFFFFF:08X} [ {' '.join(value['optionsString'])} ]"
    if isinstance(value, dict):
        return f"{value['name']} [{value['value']}]"
    return str(value)


def _data_lines(data: list[tuple[str, object]], indent: int, raw: bool) -> Iterator[str]:
    for label, value in data:
        if isinstance(value, Group):
            yield _line(indent, value.heading, None)
            yield from _data_lines(value.members, indent + 2, raw)
        elif isinstance(value, list):
            for i, item in enumerate(value or [""]):
                yield _line(indent, label if i == 0 else "", _shown(item), raw)
        else:
            yield _line(indent, label, _shown(value), raw)


def format_text(number: int, length: int, event: Event, raw: bool = False) -> list[str]:
    """The text form: a blank line, the heading naming the message and its queue, then a
    line a field, the colons in one column."""
    lines = ["", f"**** Message #{number} ({length} Bytes) on Queue {event.queue} ****",
             _line(0, "Event Type", f"{event.type[0]} [{event.type[1]}]", raw),
             _line(0, "Reason", f"{event.reason[0]} [{event.reason[1]}]", raw),
             _line(0, "Event created", event.created, raw)]
    if event.object_state is not None:
        lines.append(_line(0, "Object state", event.object_state, raw))
    if event.correlation_id is not None:
        lines.append(_line(0, "Correlation ID", event.correlation_id, raw))
    return lines + list(_data_lines(event.data, 2, raw))


def _json_value(value: object) -> object:
    if isinstance(value, Group):
        return {json_key(k): _json_value(v) for k, v in value.members}
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, int) and value < 0:
        return str(value)  # (IBM's sample writes only digits as a number)
    return value


def json_record(event: Event) -> dict[str, Any]:
    """The JSON form of one event: eventSource, eventType, eventReason, eventCreation, then
    objectState and correlationID where the event has them, then eventData (its keys the
    readable names in camel case, groups nested objects, lists arrays)."""
    out: dict[str, Any] = {
        "eventSource": {"objectName": event.queue, "objectType": "Queue",
                        "queueMgr": event.qmgr},
        "eventType": {"name": event.type[0], "value": event.type[1]},
        "eventReason": {"name": event.reason[0], "value": event.reason[1]},
        "eventCreation": {"timeStamp": event.timestamp, "epoch": event.epoch}}
    if event.object_state is not None:
        out["objectState"] = event.object_state
    if event.correlation_id is not None:
        out["correlationID"] = event.correlation_id
    out["eventData"] = {json_key(k): _json_value(v) for k, v in event.data}
    return out


# ------------------------------------------------------------------ reading the queues


def _open_all(qm: mqpy.QueueManager, names: tuple[str, ...], browse: bool, fmt: str,
              defaults: bool) -> list[tuple[str, mqpy.Queue]] | None:
    options = (CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_AS_Q_DEF) \
        | CMQC.MQOO_FAIL_IF_QUIESCING
    opened = []
    for name in names:
        try:
            opened.append((name, mqpy.Queue(qm, name, options)))
        except mqpy.MQMIError as e:
            if defaults and e.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
                if fmt == "text":  # (not every queue manager has every event queue)
                    click.echo(f"MQOPEN of '{name}' failure ignored.")
                continue
            click.echo(f"MQOPEN of '{name}' ended with reason code "
                       f"{constants.reason_name(e.reason)} [{e.reason}]")
            click.echo("Exiting ...")
            for _, q in opened:
                q.close()
            return None
    return opened


def _read(qm: mqpy.QueueManager, queues: list[tuple[str, mqpy.Queue]], wait: int | None,
          browse: bool, fmt: str, raw: bool) -> int:
    """Show every event until none has arrived for ``wait`` seconds (0: as soon as a pass
    over the queues finds none; None: until interrupted); the number shown."""
    shown = 0
    first = {name: True for name, _ in queues}
    idle_since = time.monotonic()
    qmgr = qm.get_name().strip()
    while queues:
        found = False
        for name, q in queues:
            gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
                           | CMQC.MQGMO_WAIT | CMQC.MQGMO_CONVERT,
                           WaitInterval=_POLL_MS // len(queues) or 1 if wait != 0 else 0)
            if browse:
                gmo.Options |= CMQC.MQGMO_BROWSE_FIRST if first[name] else \
                    CMQC.MQGMO_BROWSE_NEXT
            md = mqpy.MD()
            try:
                data = q.get(None, md, gmo)
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    click.echo(f"MQGET ended with reason code "
                               f"{constants.reason_name(e.reason)} [{e.reason}]")
                    return shown
                continue
            first[name] = False
            found = True
            shown += 1
            idle_since = time.monotonic()
            _show(shown, name, qmgr, md, data, fmt, raw)
        if not found and wait is not None and time.monotonic() - idle_since >= wait:
            return shown
    return shown


def _show(number: int, queue: str, qmgr: str, md: mqpy.MD, data: bytes, fmt: str,
          raw: bool) -> None:
    try:
        record = event_record(queue, qmgr, md, pcf.parse(data, md.Encoding), raw=raw)
    except Exception as exc:  # noqa: BLE001 - one malformed message must not end the display
        click.echo(f"**** Message #{number} ({len(data)} Bytes) on Queue {queue} ****")
        click.echo(f"*** Message is not a recognised event format: {exc}")
        return
    if fmt == "json":
        click.echo(json.dumps(json_record(record)))
    else:
        click.echo("\n".join(format_text(number, len(data), record, raw)))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-m", "qmgr", default="", help="Queue manager (default: the default one).")
@click.option("-q", "queues", multiple=True, help="An event queue to read (repeatable).")
@click.option("-w", "wait", type=click.IntRange(0), default=None,
              help="End when no event has arrived for this many seconds.")
@click.option("-b", "browse", is_flag=True, help="Browse: leave the events on their queues.")
@click.option("-d", "raw", is_flag=True, help="Print constants as the MQ headers name them.")
@click.option("-o", "fmt", type=click.Choice(["text", "json"]), default="text")
def amqsevt(qmgr: str, queues: tuple[str, ...], wait: int | None, browse: bool, raw: bool,
            fmt: str) -> None:
    """Format the instrumentation events of a queue manager."""
    if fmt == "text":
        click.echo("Sample AMQSEVT start\n")
    try:
        qm = mqpy.connect(qmgr)
    except mqpy.MQMIError as e:
        click.echo(f"MQCONNX ended with reason code {constants.reason_name(e.reason)} "
                   f"[{e.reason}]")
        raise SystemExit(e.reason) from None
    if not queues and fmt == "text":
        click.echo("Using default set of event queues.")
    opened = _open_all(qm, queues or EVENT_QUEUES, browse, fmt, defaults=not queues)
    try:
        if opened is not None:
            try:
                _read(qm, opened, wait, browse, fmt, raw)
            except KeyboardInterrupt:
                pass
    finally:
        for _, q in opened or ():
            q.close()
        qm.disconnect()


def main(argv: list[str]) -> int:
    """amqsevt with ``argv``: its exit code."""
    return run_command(amqsevt, argv)
