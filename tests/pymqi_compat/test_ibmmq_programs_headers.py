"""IBM ``ibmmq``'s browsing example programs, hdr_browse.py (a queue's messages, their
MQXQH with its embedded MQMD, MQMDE, MQRFH2 and MQDLH headers formatted) and
dlq_browse.py (the dead-letter queue's MQDLH and MQRFH2), with ``import mqpy as mq`` as
the only change, over bindings and over a client connection
(tests/pymqi_compat/_ibmmq_programs.py).

The transmission queue QM2.STOPPED is one no channel serves, as the example's is; its
messages come from puts to a remote queue definition. The dead-letter messages are put
as a dead-letter handler finds them (an MQDLH, an MQRFH2 and a body).

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as mq
from mqpy import CMQC
from tests.client.conftest import Env, drain
from tests.pymqi_compat._ibmmq_programs import ADMIN_CHANNEL, MODES, QMGR, Where, module_env

pytestmark = pytest.mark.timeout(120)

user = "admin"
password = "password"
XMITQ = "QM2.STOPPED"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    for made in module_env(tmp_path_factory, "ibmmq-headers"):
        made.define("QLOCAL", XMITQ, USAGE="XMITQ")
        made.define("QREMOTE", "TO.QM2", RNAME="TARGET.Q", RQMNAME="QM2", XMITQ=XMITQ)
        yield made


@pytest.fixture(params=MODES)
def where(request, env) -> Iterator[Where]:
    yield Where(env, request.param == "client")
    qmgr = env.client(channel=ADMIN_CHANNEL)
    for queue in (XMITQ, DLQ):
        drain(qmgr, queue)
    qmgr.disconnect()


def _put_to_qm2(env: Env) -> None:
    """Two messages for QM2 on its transmission queue: a str, and one with a property."""
    qmgr = env.client(channel=ADMIN_CHANNEL)
    queue = mq.Queue(qmgr, "TO.QM2", CMQC.MQOO_OUTPUT)
    queue.put("Hello QM2")
    handle = mq.MessageHandle(qmgr)
    handle.properties.set("colour", "blue")
    pmo = mq.PMO(Version=CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    queue.put("Hello QM2 with a property", mq.MD(), pmo)
    queue.close()
    qmgr.disconnect()


def _put_dead_letter(env: Env) -> None:
    """A message as the queue manager dead-letters one: MQDLH (reason MQRC_Q_FULL), then an
    MQRFH2 with a usr folder, then a str body."""
    rfh2 = mq.RFH2(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208, NameValueCCSID=1208)
    rfh2.add_folder(b"<usr><colour>red</colour></usr>")
    dlh = mq.DLH(Reason=CMQC.MQRC_Q_FULL, DestQName=b"FULL.Q", DestQMgrName=QMGR.encode(),
                 Format=CMQC.MQFMT_RF_HEADER_2, Encoding=CMQC.MQENC_NATIVE,
                 CodedCharSetId=1208)
    qmgr = env.client(channel=ADMIN_CHANNEL)
    qmgr.put1(DLQ, dlh.pack() + rfh2.pack() + b"Dead letter body",
              mq.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER))
    qmgr.disconnect()


def hdr_browse(where: Where, queue_name: str) -> list[str]:
    """hdr_browse.py's loop over ``queue_name``; what it would print, as lines."""
    out = []
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, user, password)
    ok = True
    od = mq.OD()
    od.ObjectName = queue_name
    q = mq.Queue(qmgr, od, CMQC.MQOO_BROWSE)
    gmo = mq.GMO()
    gmo.Options = CMQC.MQGMO_BROWSE_FIRST
    cnt = 1
    while ok:
        try:
            md = mq.MD()
            msg = q.get(None, md, gmo)
            out.append(f"Message: {cnt}")
            cnt += 1
            gmo.Options = CMQC.MQGMO_BROWSE_NEXT
            fmt = md["Format"]
            headers = True
            offset = 0
            while headers:
                out.append(f'Header: {bytes.decode(fmt, "utf8")}')
                if fmt == CMQC.MQFMT_XMIT_Q_HEADER:
                    xqh = mq.XQH().get_header(msg)
                    out.append(str(xqh.to_string()["RemoteQName"]))
                    emd = mq.XQH().get_embedded_md(msg)
                    fmt = emd["Format"]
                    offset += CMQC.MQXQH_CURRENT_LENGTH
                    out.append(str(emd.to_string()["Format"]))
                elif fmt == CMQC.MQFMT_MD_EXTENSION:
                    mde = mq.MDE().unpack(msg[offset:offset + CMQC.MQMDE_CURRENT_LENGTH])
                    fmt = mde["Format"]
                    offset += CMQC.MQMDE_CURRENT_LENGTH
                    out.append(str(mde.to_string()["Format"]))
                elif fmt == CMQC.MQFMT_RF_HEADER_2:
                    rfh2 = mq.RFH2()
                    rfh2.unpack(msg[offset:], "utf8")
                    fmt = rfh2["Format"]
                    offset += rfh2["StrucLength"]
                    rfh2.to_string()
                    for folder in rfh2.get_folders():
                        out.append(f"  Folder {folder} = {rfh2[folder]!r}")
                elif fmt == CMQC.MQFMT_DEAD_LETTER_HEADER:
                    dlh = mq.DLH()
                    dlh.unpack(msg[offset:offset + CMQC.MQDLH_CURRENT_LENGTH])
                    fmt = dlh["Format"]
                    offset += CMQC.MQDLH_CURRENT_LENGTH
                    out.append(f"DLH reason {dlh.to_string()['Reason']}")
                else:
                    headers = False
            if fmt == CMQC.MQFMT_STRING:
                out.append("Body: " + bytes.decode(msg[offset:], "utf8"))
            else:
                out.append(f"Body: {msg[offset:]!r}")
        except mq.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                out.append("No more messages.")
                ok = False
            else:
                raise
    q.close()
    qmgr.disconnect()
    return out


def test_hdr_browse_of_a_transmission_queue(where):
    """Given hdr_browse.py, when the program browses a transmission queue no channel
    serves (BROWSE_FIRST then BROWSE_NEXT with a new MD each time), then each message's MQXQH
    names the remote queue, its embedded MQMD (XQH.get_embedded_md) the format that follows,
    the property's message has an MQRFH2 whose usr folder get_folders and rfh2[folder]
    show, and the bodies are the strs put. (Nothing here makes an MQMDE follow the MQXQH:
    the program's branch for it is not reached.)"""
    _put_to_qm2(where.env)
    out = hdr_browse(where, XMITQ)
    assert out[:5] == ["Message: 1", "Header: MQXMIT  ", "TARGET.Q", "MQSTR",
                       "Header: MQSTR   "]
    assert out[5] == "Body: Hello QM2"
    assert out[6:11] == ["Message: 2", "Header: MQXMIT  ", "TARGET.Q", "MQHRF2",
                         "Header: MQHRF2  "]
    assert out[11].startswith("  Folder usr = b'<usr><colour>blue</colour></usr>")
    assert out[12:] == ["Header: MQSTR   ", "Body: Hello QM2 with a property",
                        "No more messages."]


@pytest.mark.parametrize("program", ["hdr_browse", "dlq_browse"])
def test_browse_the_dead_letter_queue(where, program, capsys):
    """Given dlq_browse.py (a bindings connection, ``mq.connect('QM1')``; over a client
    connection here the example's channel and conn_info are given) and hdr_browse.py
    pointed at the dead-letter queue, when the queue holds an MQDLH, MQRFH2 and body
    message, then the MQDLH (DLH.get_header, to_string) shows its reason, the MQRFH2
    unpacked with the MQDLH's Encoding its folder, and the body follows them; each
    structure prints as ibmmq's do, one ``Name: value`` line a field."""
    _put_dead_letter(where.env)
    if program == "hdr_browse":
        out = hdr_browse(where, DLQ)
        assert out == ["Message: 1", "Header: MQDEAD  ", f"DLH reason {CMQC.MQRC_Q_FULL}",
                       "Header: MQHRF2  ",
                       "  Folder usr = b'<usr><colour>red</colour></usr> '",
                       "Header: MQSTR   ", "Body: Dead letter body", "No more messages."]
        return
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info)
    ok = True
    od = mq.OD()
    od.ObjectName = DLQ
    q = mq.Queue(qmgr, od, CMQC.MQOO_BROWSE)
    gmo = mq.GMO()
    gmo.Options = CMQC.MQGMO_BROWSE_FIRST
    while ok:
        try:
            md = mq.MD()
            msg = q.get(None, md, gmo)
            gmo.Options = CMQC.MQGMO_BROWSE_NEXT
            fmt = md["Format"]
            if fmt == CMQC.MQFMT_DEAD_LETTER_HEADER:
                offset = CMQC.MQDLH_LENGTH_1
                dlh = mq.DLH().get_header(msg)
                fmt = dlh["Format"]
                print("DLH: ", dlh.to_string())
                if fmt == CMQC.MQFMT_RF_HEADER_2:
                    rfh2 = mq.RFH2()
                    rfh2.unpack(msg[offset:], dlh["Encoding"])
                    print("RFH: ", rfh2.to_string())
                    offset += rfh2["StrucLength"]
                print("MSG: ", msg[offset:])
            else:
                print(msg)
        except mq.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                print("No more messages.")
                ok = False
            else:
                raise
    q.close()
    qmgr.disconnect()
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == ["DLH:  StrucId: DLH", "Version: 1", f"Reason: {CMQC.MQRC_Q_FULL}",
                       "DestQName: FULL.Q", f"DestQMgrName: {QMGR}"]
    rfh = out.index("RFH:  StrucId: RFH")
    assert "<colour>red</colour>" in "\n".join(out[rfh:-2])
    assert out[-2:] == ["MSG:  b'Dead letter body'", "No more messages."]
