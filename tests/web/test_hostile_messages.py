"""Messages an application put with hostile properties, browsed and got through the
messaging REST API: a property whose value holds a line break (a header of its own, were it
pasted), a character beyond Latin-1, leading blanks, or whose element is namespaced is
answered as a percent-encoded ``ibm-mq-usr-*`` header (UTF-8, ``%`` as ``%25``), never a
500; a destructive get answers the message it took, so that none is lost; and a put's
percent-encoded property value is stored decoded."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

import mqpy
from mqpy import CMQC
from mqpy.rfh2 import RFH2
from tests.support.web import ALICE, CSRF, PUT, QM, REST

MSG = f"{REST}/messaging/qmgr/{QM}/queue/APP.Q/message"


def _depth(qm: mqpy.QueueManager) -> int:
    q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def _drain(qm: mqpy.QueueManager) -> None:
    q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_INPUT_SHARED)
    try:
        while True:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
    except mqpy.MQMIError:
        pass
    finally:
        q.close()


def _put_folder(qm: mqpy.QueueManager, folder: bytes, body: bytes = b"the body") -> None:
    """An application's put of ``body`` behind an MQRFH2 holding ``folder``."""
    rfh = RFH2(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208, NameValueCCSID=1208)
    rfh.add_folder(folder)
    md = mqpy.MD(Format=CMQC.MQFMT_RF_HEADER_2)
    qm.put1("APP.Q", rfh.pack(md.Encoding) + body, md)


@pytest.fixture()
def qm(web):
    conn = web.site.bindings()
    _drain(conn)
    try:
        yield conn
    finally:
        _drain(conn)
        conn.disconnect()


HOSTILE = [
    ("<usr><a>x&#13;&#10;Set-Cookie: evil=1</a></usr>", "a", "x\r\nSet-Cookie: evil=1"),
    ("<usr><a>\u20ac and \u00e9</a></usr>", "a", "\u20ac and \u00e9"),
    ("<usr><a>  padded  </a></usr>", "a", "  padded  "),
    ("<usr><a>50%</a></usr>", "a", "50%"),
    ("<usr><a>\u0001\u007f</a></usr>".replace("\u0001", "&#9;"), "a", "\t\x7f"),
    ("<usr xmlns:n='urn:x'><n:a>1</n:a></usr>", "n:a", "1"),
    ("<usr><caf\u00e9>1</caf\u00e9></usr>", "caf\u00e9", "1"),
]


@pytest.mark.parametrize("folder,name,value", HOSTILE)
def test_a_hostile_property_is_browsed_and_got_as_an_encoded_header(web, qm, folder, name,
                                                                       value):
    """Given a message whose usr property is hostile, when it is browsed and then got
    through REST, then both answer 200 with the body, the property as a percent-encoded
    header that decodes to its value, no header of its own making, and the destructive get
    took exactly that message (nothing lost)."""
    _put_folder(qm, folder.encode("utf-8"))
    header = "ibm-mq-usr-" + "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_.-~") else
        "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in name)
    with web.client(ALICE) as c:
        browsed = c.get(MSG)
        assert browsed.status_code == 200, browsed.text
        assert browsed.content == b"the body"
        assert _depth(qm) == 1
        got = c.delete(MSG, headers=CSRF)
    assert got.status_code == 200, got.text
    assert got.content == b"the body" and _depth(qm) == 0
    for r in (browsed, got):
        raw = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in r.headers.raw}
        assert "set-cookie" not in raw
        assert unquote(raw[header.lower()]) == value
        assert all(0x20 <= ord(ch) < 0x7f for v in raw.values() for ch in v)


def test_a_folder_that_is_not_properties_leaves_the_message_whole(web, qm):
    """Given a usr folder the property reader refuses (a DOCTYPE), when it is got through
    REST, then 200 with the body and no property: the message is answered, not lost."""
    _put_folder(qm, b"<!DOCTYPE usr []><usr><a>1</a></usr>")
    with web.client(ALICE) as c:
        got = c.delete(MSG, headers=CSRF)
    assert got.status_code == 200 and got.content == b"the body"
    assert _depth(qm) == 0 and "ibm-mq-usr-a" not in got.headers


def test_a_percent_encoded_value_put_is_stored_decoded(web, qm):
    """Given a put whose ibm-mq-usr-* value is percent-encoded UTF-8, then the property
    stored is the decoded text, and it comes back encoded the same way."""
    with web.client(ALICE) as c:
        put = c.post(MSG, headers={**PUT, "ibm-mq-usr-city": "Z%C3%BCrich 50%25"},
                     content=b"x")
        assert put.status_code == 201, put.text
        handle = mqpy.MessageHandle(qm, mqpy.CMHO())
        gmo = mqpy.GMO(Version=CMQC.MQGMO_VERSION_4,
                       Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE
                       | CMQC.MQGMO_BROWSE_FIRST)
        gmo.MsgHandle = handle.msg_handle
        q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_BROWSE)
        try:
            q.get(None, mqpy.MD(), gmo)
        finally:
            q.close()
        assert handle.properties.get("city") == "Z\u00fcrich 50%"
        got = c.delete(MSG, headers=CSRF)
    assert unquote(got.headers["ibm-mq-usr-city"]) == "Z\u00fcrich 50%"
