"""The messaging REST API v2's work: put a message (the body; ``ibm-mq-md-*`` headers for
the MQMD, ``ibm-mq-usr-*`` for user properties, carried in an MQRFH2 ``usr`` folder),
destructive get (``wait=``, ``correlationId=``, ``messageId=``; the MQMD back as headers),
browse, and the message list, through mqpy's MQI as the caller."""

from __future__ import annotations

import binascii
import contextlib
import re
from urllib.parse import quote, unquote
from xml.sax.saxutils import escape

import attrs

import mqpy
from mqpy import CMQC
from mqpy.properties import rfh2props
from mqpy.properties.errors import PropertyError
from mqpy.rfh2 import RFH2
from mqpy.structs.tables import GMO, MD, PMO
from mqpy_cli.web.errors import RestError, from_reason

MD_PREFIX, USR_PREFIX = "ibm-mq-md-", "ibm-mq-usr-"
_PROPERTY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MAX_WAIT_MS = 3_600_000
#: MQMD.Expiry is an MQLONG of tenths of a second
MAX_EXPIRY_MS = 2_147_483_647 * 100
#: what a header value may hold as it is: printable ASCII but ``%`` (the escape)
_HEADER_SAFE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "%")


def header_value(text: str) -> str:
    """A property's text as an HTTP header value: printable ASCII as it is, every other
    character (a line break, a control, one beyond ASCII) and ``%`` as percent-encoded
    UTF-8, blanks at either end too (HTTP would drop them), so that no value can end its
    header or start another."""
    out = quote(text, safe=_HEADER_SAFE)
    core = out.strip(" ")
    lead = len(out) - len(out.lstrip(" "))
    tail = len(out) - len(core) - lead
    return "%20" * lead + core + "%20" * tail


def header_name(name: str) -> str:
    """A property's name as the rest of an ``ibm-mq-usr-`` header name: letters, digits and
    ``_.-~`` as they are, any other character as percent-encoded UTF-8 (HTTP token
    characters all)."""
    return quote(name, safe="")


def _digits(value: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes ``²`` and other scripts' digits)."""
    return value.isascii() and value.isdigit()


@attrs.define
class Message:
    """A message as the REST API hands it back: body, headers, content type."""

    body: bytes
    headers: dict[str, str]
    content_type: str


def _hex_id(value: str, header: str) -> bytes:
    """An MQ id in IBM's REST form (48 hex digits, or fewer, padded with zeros)."""
    text = value[4:] if value.lower().startswith("0x") else value
    try:
        raw = binascii.unhexlify(text)
    except (binascii.Error, ValueError):
        raise RestError(400, "MQWB0302E", header, value) from None
    if len(raw) > CMQC.MQ_MSG_ID_LENGTH:
        raise RestError(400, "MQWB0302E", header, value)
    return raw.ljust(CMQC.MQ_MSG_ID_LENGTH, b"\0")


def _md_from_headers(headers: dict[str, str]) -> tuple[MD, dict[str, str]]:
    """The MQMD of a put and the user properties named by its headers."""
    md = MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF)
    props: dict[str, str] = {}
    for key, value in headers.items():
        key = key.lower()
        if key.startswith(USR_PREFIX):
            name = key[len(USR_PREFIX):]
            if not _PROPERTY.match(name):
                raise RestError(400, "MQWB0302E", key, value)
            props[name] = unquote(value)
        elif key == MD_PREFIX + "persistence":
            words = {"persistent": CMQC.MQPER_PERSISTENT,
                     "nonpersistent": CMQC.MQPER_NOT_PERSISTENT}
            if value.lower() not in words:
                raise RestError(400, "MQWB0302E", key, value)
            md.Persistence = words[value.lower()]
        elif key == MD_PREFIX + "correlationid":
            md.CorrelId = _hex_id(value, key)
        elif key == MD_PREFIX + "expiry":
            if value.lower() == "unlimited":
                continue
            if not _digits(value) or int(value) > MAX_EXPIRY_MS:
                raise RestError(400, "MQWB0302E", key, value)
            md.Expiry = max(1, int(value) // 100)  # milliseconds -> tenths of a second
        elif key == MD_PREFIX + "replyto":
            queue, _, qmgr = (part.encode() for part in value.partition("@"))
            if len(queue) > CMQC.MQ_Q_NAME_LENGTH or len(qmgr) > CMQC.MQ_Q_MGR_NAME_LENGTH:
                raise RestError(400, "MQWB0302E", key, value)
            md.ReplyToQ, md.ReplyToQMgr = queue, qmgr
    return md, props


def _usr_folder(props: dict[str, str]) -> bytes:
    inner = "".join(f"<{n}>{escape(v)}</{n}>" for n, v in props.items())
    return f"<usr>{inner}</usr>".encode()


#: IBM: the put takes text bodies of these media types, in UTF-8
TEXT_TYPES = frozenset({"text/plain", "text/html", "text/xml", "application/json",
                        "application/xml"})


def check_text(content_type: str | None) -> None:
    """RestError 415 (MQWB0306E) unless ``content_type`` is a text type IBM's put takes,
    with no charset or UTF-8."""
    media, _, rest = (content_type or "").partition(";")
    charset = ""
    for part in rest.split(";"):
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset":
            charset = value.strip().strip('"').lower()
    if media.strip().lower() not in TEXT_TYPES or charset not in ("", "utf-8", "utf8"):
        raise RestError(415, "MQWB0306E")


def _outgoing(body: bytes, headers: dict[str, str]) -> tuple[MD, bytes]:
    """The MQMD and data of a put or publication of ``body`` with ``headers``."""
    check_text(headers.get("content-type"))
    md, props = _md_from_headers(headers)
    data = body
    if props:
        rfh = RFH2(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
        rfh.add_folder(_usr_folder(props))
        data = rfh.pack(md.Encoding) + body
        md.Format = CMQC.MQFMT_RF_HEADER_2
    return md, data


def put(qm: mqpy.QueueManager, queue: str, body: bytes, headers: dict[str, str]) -> str:
    """POST .../queue/{queue}/message: the new message's id (hex)."""
    md, data = _outgoing(body, headers)
    try:
        qm.put1(queue, data, md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except mqpy.MQMIError as e:
        raise from_reason(e.reason, queue) from None
    return md.MsgId.hex()


def publish(qm: mqpy.QueueManager, topic_string: str, body: bytes,
            headers: dict[str, str]) -> str:
    """POST .../topic/{topicString}/message: the publication's message id (hex). The
    topic is opened by its string for output (PUB authority on the closest topic object
    applies) and the message put as a queue put's would be."""
    md, data = _outgoing(body, headers)
    if not topic_string:
        raise RestError(400, "MQWB0302E", "topicString", topic_string)
    try:
        topic = mqpy.Topic(qm, topic_string=topic_string,
                           open_opts=CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        raise from_reason(e.reason, topic_string) from None
    try:
        topic.pub(data, md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    except mqpy.MQMIError as e:
        if e.comp != CMQC.MQCC_WARNING:
            raise from_reason(e.reason, topic_string) from None
    finally:
        with contextlib.suppress(mqpy.MQMIError):
            topic.close()
    return md.MsgId.hex()


def _usr_properties(rfh: RFH2) -> dict[str, str]:
    """The usr folders' properties as text (read as MQGET reads them: a folder that is not
    well formed, declares a DOCTYPE or nests too deep holds none)."""
    props: dict[str, str] = {}
    for folder in rfh.folders():
        try:
            name, found = rfh2props.read_folder(folder, rfh["NameValueCCSID"])
        except PropertyError:
            continue
        if name != "usr" or found is None:
            continue
        for p in found:
            props.setdefault(p.name, rfh2props.value_text(p.type, p.value))
    return props


def _strip_rfh2(md: MD, data: bytes) -> tuple[bytes, dict[str, str], bytes]:
    """The body after an MQRFH2 (its usr folder's properties) and the body's format."""
    if md.Format.rstrip() != CMQC.MQFMT_RF_HEADER_2.rstrip() or data[:4] != b"RFH ":
        return data, {}, md.Format
    rfh = RFH2()
    try:
        rfh.unpack(data, md.Encoding)
    except mqpy.PYIFError:
        return data, {}, md.Format
    return data[rfh.get_length():], _usr_properties(rfh), rfh["Format"]


def _id(value: bytes) -> str:
    return value.hex()


def _message(md: MD, data: bytes) -> Message:
    body, props, fmt = _strip_rfh2(md, data)
    headers = {MD_PREFIX + "messageId": _id(md.MsgId),
               MD_PREFIX + "correlationId": _id(md.CorrelId),
               MD_PREFIX + "persistence": "persistent" if md.Persistence == CMQC.MQPER_PERSISTENT
               else "nonPersistent",
               MD_PREFIX + "expiry": "unlimited" if md.Expiry == CMQC.MQEI_UNLIMITED
               else str(md.Expiry * 100)}
    reply_q = md.ReplyToQ.rstrip(b" \0").decode("latin-1")
    if reply_q:
        headers[MD_PREFIX + "replyTo"] = \
            f"{reply_q}@{md.ReplyToQMgr.rstrip(b' ').decode('latin-1')}"
    for name, value in props.items():
        headers[USR_PREFIX + header_name(name)] = header_value(value)
    text = fmt.rstrip() == CMQC.MQFMT_STRING.rstrip()
    return Message(body, headers, "text/plain;charset=utf-8" if text
                   else "application/octet-stream")


def _selection(params: dict[str, str]) -> tuple[MD, int]:
    md, match = MD(), 0
    if params.get("messageId"):
        md.MsgId = _hex_id(params["messageId"], "messageId")
        match |= CMQC.MQMO_MATCH_MSG_ID
    if params.get("correlationId"):
        md.CorrelId = _hex_id(params["correlationId"], "correlationId")
        match |= CMQC.MQMO_MATCH_CORREL_ID
    return md, match


def _wait(params: dict[str, str]) -> int:
    raw = params.get("wait", "0")
    if not _digits(raw) or int(raw) > MAX_WAIT_MS:
        raise RestError(400, "MQWB0302E", "wait", raw)
    return int(raw)


def get(qm: mqpy.QueueManager, queue: str, params: dict[str, str], *,
        browse: bool) -> Message | None:
    """DELETE (``browse`` False) or GET .../message: the first message the selection
    matches, None when there is none (after ``wait`` milliseconds)."""
    md, match = _selection(params)
    wait = _wait(params) if not browse else 0
    options = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING \
        | (CMQC.MQGMO_WAIT if wait else CMQC.MQGMO_NO_WAIT) \
        | (CMQC.MQGMO_BROWSE_FIRST if browse else 0)
    gmo = GMO(Options=options, WaitInterval=wait, MatchOptions=match,
              Version=CMQC.MQGMO_VERSION_2)
    open_opts = CMQC.MQOO_BROWSE if browse else CMQC.MQOO_INPUT_AS_Q_DEF
    try:
        q = mqpy.Queue(qm, queue, open_opts | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        raise from_reason(e.reason, queue) from None
    try:
        data = q.get(None, md, gmo)
    except mqpy.MQMIError as e:
        if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise from_reason(e.reason, queue) from None
    finally:
        with contextlib.suppress(mqpy.MQMIError):
            q.close()
    return _message(md, data)


def message_list(qm: mqpy.QueueManager, queue: str, params: dict[str, str]) -> dict:
    """GET .../messagelist: the messages' descriptors, browsed in queue order."""
    raw = params.get("limit", "")
    if raw and not _digits(raw):
        raise RestError(400, "MQWB0302E", "limit", raw)
    limit = int(raw) if raw else None
    try:
        q = mqpy.Queue(qm, queue, CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING)
    except mqpy.MQMIError as e:
        raise from_reason(e.reason, queue) from None
    out = []
    option = CMQC.MQGMO_BROWSE_FIRST
    try:
        while limit is None or len(out) < limit:
            md = MD()
            gmo = GMO(Options=option | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
            try:
                q.get(0, md, gmo)
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                    pass
                elif e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                else:
                    raise from_reason(e.reason, queue) from None
            option = CMQC.MQGMO_BROWSE_NEXT
            out.append(_summary(md))
    finally:
        with contextlib.suppress(mqpy.MQMIError):
            q.close()
    return {"messages": out}


def _summary(md: MD) -> dict:
    def text(b: bytes) -> str:
        return b.rstrip(b" \0").decode("latin-1")

    return {"messageId": _id(md.MsgId), "correlationId": _id(md.CorrelId),
            "format": text(md.Format),
            "persistence": "persistent" if md.Persistence == CMQC.MQPER_PERSISTENT
            else "nonPersistent",
            "priority": md.Priority, "putApplicationName": text(md.PutApplName),
            "putDate": text(md.PutDate), "putTime": text(md.PutTime),
            "userId": text(md.UserIdentifier)}
