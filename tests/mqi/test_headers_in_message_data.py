"""An MQPUT whose MQMD Format names an MQ header -- MQFMT_XMIT_Q_HEADER, MQFMT_DEAD_LETTER_HEADER,
MQFMT_RF_HEADER_2 -- must carry a valid one at the start of its data, as IBM checks: else the
call fails MQRC_XQH_ERROR (2260), MQRC_DLH_ERROR (2141) or MQRC_RFH_ERROR (2334), and the
connection and its unit of work go on; a valid header is put as any message is. The same
embedded, over bindings and as a client."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.rfh2 import RFH2

from ._modes import QUEUE, drain, fails_alone

pytestmark = pytest.mark.timeout(180)

_XMIT, _DEAD, _RFH2 = (CMQC.MQFMT_XMIT_Q_HEADER, CMQC.MQFMT_DEAD_LETTER_HEADER,
                       CMQC.MQFMT_RF_HEADER_2)


def _put(fmt: bytes, data: bytes):
    return lambda qm, q: q.put(data, mqpy.MD(Format=fmt))


def _xqh(**fields) -> bytes:
    return mqpy.XQH(RemoteQName=b"Q", RemoteQMgrName=b"QM", **fields).pack()


def _rfh2() -> bytes:
    rfh2 = RFH2(Format=CMQC.MQFMT_STRING)
    rfh2.add_folder(b"<usr><colour>blue</colour></usr>")
    return rfh2.pack(CMQC.MQENC_NATIVE)


@pytest.mark.parametrize(("case", "call", "reason"), [
    ("xqh-junk", _put(_XMIT, b"junk"), CMQC.MQRC_XQH_ERROR),
    ("xqh-strucid", _put(_XMIT, b"XQX " + _xqh()[4:]), CMQC.MQRC_XQH_ERROR),
    ("xqh-version-2", _put(_XMIT, _xqh()[:4] + (2).to_bytes(4, "little") + _xqh()[8:]),
     CMQC.MQRC_XQH_ERROR),
    ("xqh-cut-short", _put(_XMIT, _xqh()[:200]), CMQC.MQRC_XQH_ERROR),
    ("dlh-junk", _put(_DEAD, b"junk" * 50), CMQC.MQRC_DLH_ERROR),
    ("dlh-cut-short", _put(_DEAD, mqpy.DLH().pack()[:100]), CMQC.MQRC_DLH_ERROR),
    ("dlh-format-unpadded", _put(b"MQDEAD", b"junk" * 50), CMQC.MQRC_DLH_ERROR),
    ("rfh2-junk", _put(_RFH2, b"junk" * 20), CMQC.MQRC_RFH_ERROR),
    ("rfh2-length-beyond-data", _put(_RFH2, _rfh2()[:40]), CMQC.MQRC_RFH_ERROR),
    ("put1-dlh-junk", lambda qm, q: qm.put1(QUEUE, b"junk", mqpy.MD(Format=_DEAD)),
     CMQC.MQRC_DLH_ERROR),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_bad_header_fails_only_its_call(connect, case, call, reason):
    """Given a connection with a message put in syncpoint, when a put's data does not
    start with the valid header its Format names, then that put fails with the header's
    reason, and the connection's unit of work still commits the message."""
    fails_alone(connect, call, reason)


def test_valid_headers_are_put_and_got_unchanged(connect):
    """Given valid MQXQH, MQDLH and MQRFH2 headers before message data, then each put
    completes and the message comes back as it was put."""
    bodies = [(_XMIT, _xqh() + b"after the xqh"),
              (_DEAD, mqpy.DLH(Reason=CMQC.MQRC_Q_FULL).pack() + b"after the dlh"),
              (_RFH2, _rfh2() + b"after the rfh2")]
    qm = connect()
    try:
        drain(qm)
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        for fmt, data in bodies:
            q.put(data, mqpy.MD(Format=fmt))
        q.close()
        assert drain(qm) == [data for _, data in bodies]
    finally:
        qm.disconnect()
