"""A sender-receiver channel over TLS: both ends' CipherSpec, certificates from each queue
manager's SSLKEYR, SSLPEER checked at both ends, messages moved once. Two queue managers and
their channel initiators in this process (as tests/channels runs them)."""

from __future__ import annotations

import pytest
import trio
import trustme

from mqpy import inprocess
from tests.support.qmgr import QMgr
from tests.support.site import key_repository
from tests.support.waiting import wait_until

CIPH = "ECDHE_ECDSA_AES_256_GCM_SHA384"


@pytest.fixture
def ca():
    return trustme.CA()


@pytest.fixture
def pair(tmp_path, ca):
    made = []
    for name in ("QM1", "QM2"):
        root = str(tmp_path / name)
        inprocess.create(name, root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
        qm = QMgr(name, root, inprocess.start(name, root))
        repo = key_repository(str(tmp_path / f"{name}.keys"), ca,
                           ca.issue_cert(f"{name.lower()}.example", common_name=name))
        qm.engine.alter_qmgr({"SSLKEYR": repo})
        made.append(qm)
    yield made
    inprocess.stop_all()



async def test_messages_cross_a_tls_channel(pair):
    """Given SDR and RCVR QM1.TO.QM2 with SSLCIPH(ECDHE_ECDSA_AES_256_GCM_SHA384), each
    naming the other's certificate in SSLPEER, when 50 messages are put for QM2 and the
    channel starts, then all arrive in order (a plain or mismatched session would have been
    refused by the receiver), and neither end logged a TLS refusal."""
    qm1, qm2 = pair
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="SDR", XMITQ="QM2", SSLCIPH=CIPH,
                   SSLPEER="CN=QM2", CONNAME=f"127.0.0.1({c2.ports[0]})")
        qm2.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="RCVR", SSLCIPH=CIPH, SSLPEER="CN=QM1",
                   MCAUSER="app")
        qm2.define("QLOCAL", "TARGET", MAXDEPTH=1000)
        for i in range(50):
            qm1.put("TARGET", b"tls %02d" % i, qmgr="QM2")
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.start_channel("QM1.TO.QM2") is None
        await wait_until(lambda: qm2.committed("TARGET") == 50, 20)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"tls %02d" % i for i in range(50)]
    assert not [t for m, t in qm2.log if m in ("AMQ9631E", "AMQ9636E", "AMQ9665E")]


async def test_sslpeer_mismatch_refuses_the_sender(pair):
    """Given a RCVR whose SSLPEER names another queue manager, when QM1's sender starts,
    then QM2 refuses it with AMQ9636E and nothing crosses."""
    qm1, qm2 = pair
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="SDR", XMITQ="QM2", SSLCIPH=CIPH,
                   CONNAME=f"127.0.0.1({c2.ports[0]})", SHORTRTY=0, LONGRTY=0)
        qm2.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="RCVR", SSLCIPH=CIPH,
                   SSLPEER="CN=SOMEONE.ELSE", MCAUSER="app")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"stays", qmgr="QM2")
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        c1.start_channel("QM1.TO.QM2")
        await wait_until(lambda: any(m == "AMQ9636E" for m, _ in qm2.log), 20)
        nursery.cancel_scope.cancel()
    assert qm2.depth("TARGET") == 0 and qm1.depth("QM2") == 1


async def test_each_channel_initiator_uses_its_own_key_repository(pair):
    """Given QM1 and QM2 with their channel initiators in one process, each with its own
    SSLKEYR, and TLS senders both ways whose receivers' SSLPEER name the sending queue
    manager, when both senders start (QM1's channel initiator started last), then messages
    cross both ways: each outbound handshake shows its own queue manager's certificate,
    not that of whichever channel initiator was made last."""
    qm1, qm2 = pair
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        for src, dst, chinit in ((qm1, qm2, c2), (qm2, qm1, c1)):
            channel = f"{src.name}.TO.{dst.name}"
            src.define("QLOCAL", dst.name, USAGE="XMITQ")
            src.define("CHANNEL", channel, CHLTYPE="SDR", XMITQ=dst.name, SSLCIPH=CIPH,
                       SSLPEER=f"CN={dst.name}", CONNAME=f"127.0.0.1({chinit.ports[0]})")
            dst.define("CHANNEL", channel, CHLTYPE="RCVR", SSLCIPH=CIPH,
                       SSLPEER=f"CN={src.name}", MCAUSER="app")
            dst.define("QLOCAL", "TARGET")
            src.put("TARGET", f"from {src.name}".encode(), qmgr=dst.name)
        assert c1.start_channel("QM1.TO.QM2") is None
        assert c2.start_channel("QM2.TO.QM1") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.committed("TARGET") == 1, 20)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"from QM1"] and qm1.drain("TARGET") == [b"from QM2"]
    assert not [t for m, t in qm1.log + qm2.log if m in ("AMQ9636E", "AMQ9665E")]


async def test_a_new_sslkeyr_is_used_at_the_next_start(pair, ca, tmp_path):
    """Given a RCVR on QM2 whose SSLPEER names CN=QM1.NEW, when QM1's sender starts with its
    old certificate (CN=QM1), then QM2 refuses it (AMQ9636E); after ALTER QMGR SSLKEYR on
    QM1 names a directory holding a CN=QM1.NEW certificate, the next start (no restart of
    the channel initiator) crosses."""

    qm1, qm2 = pair
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="SDR", XMITQ="QM2", SSLCIPH=CIPH,
                   CONNAME=f"127.0.0.1({c2.ports[0]})", SHORTRTY=0, LONGRTY=0)
        qm2.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="RCVR", SSLCIPH=CIPH,
                   SSLPEER="CN=QM1.NEW", MCAUSER="app")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"renewed", qmgr="QM2")
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        c1.start_channel("QM1.TO.QM2")
        await wait_until(lambda: any(m == "AMQ9636E" for m, _ in qm2.log), 20)
        await wait_until(lambda: "QM1.TO.QM2" not in c1.running, 20)
        new = key_repository(str(tmp_path / "QM1.new.keys"), ca,
                          ca.issue_cert("qm1.example", common_name="QM1.NEW"))
        qm1.engine.alter_qmgr({"SSLKEYR": new})
        assert c1.start_channel("QM1.TO.QM2") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1, 20)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"renewed"]


async def _mqsc(qm, text: str):
    from mqpy.mqsc.processor import MQSCProcessor

    return await trio.to_thread.run_sync(MQSCProcessor(qm.engine).execute_text, text)


async def test_refresh_security_ssl_renews_running_tls_channels(pair, ca, tmp_path):
    """Given a running TLS channel QM1.TO.QM2, when QM1's key repository files are replaced
    by a CN=QM1.NEW certificate, QM2's RCVR is altered to SSLPEER('CN=QM1.NEW') and REFRESH
    SECURITY TYPE(SSL) is issued on QM1, then AMQ8560I answers, the sender finishes its
    batch and handshakes again on a new connection (QM2 admits the new certificate), and a
    message put afterwards crosses; REFRESH SECURITY TYPE(SSL) on QM2 then stops the
    receiving instance (AMQ9528I, IBM's "User requested closure of channel"; never AMQ9534,
    IBM's E message for a channel not enabled) and the sender's retry brings the channel
    back."""

    qm1, qm2 = pair
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="SDR", XMITQ="QM2", SSLCIPH=CIPH,
                   CONNAME=f"127.0.0.1({c2.ports[0]})", SHORTTMR=1, HBINT=0)
        qm2.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="RCVR", SSLCIPH=CIPH, SSLPEER="CN=QM1",
                   MCAUSER="app")
        qm2.define("QLOCAL", "TARGET")
        qm1.put("TARGET", b"before", qmgr="QM2")
        c1 = qm1.make_chinit()
        await nursery.start(c1.run)
        assert c1.start_channel("QM1.TO.QM2") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1, 20)
        [(_, first_peer)] = list(c2.receivers.values())
        repo = str(qm1.engine.catalog.qmgr["SSLKEYR"])
        key_repository(repo, ca, ca.issue_cert("qm1.example", common_name="QM1.NEW"))
        qm2.engine.alter("CHANNEL", "QM1.TO.QM2", {"SSLPEER": "CN=QM1.NEW"})
        result = await _mqsc(qm1, "REFRESH SECURITY TYPE(SSL)")
        assert result.ok and result.lines == ["AMQ8560I: IBM MQ security cache refreshed."]
        await wait_until(lambda: any(p != first_peer for _, p in c2.receivers.values()), 20)
        qm1.put("TARGET", b"after", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 2, 20)
        result = await _mqsc(qm2, "REFRESH SECURITY TYPE(SSL)")
        assert result.ok
        await wait_until(lambda: any(m == "AMQ9528I" and "REFRESH SECURITY TYPE(SSL)" in t
                                     for m, t in qm2.log), 20)
        qm1.put("TARGET", b"again", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 3, 20)
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"before", b"after", b"again"]
    assert not [t for m, t in qm2.log if m == "AMQ9636E" or m.startswith("AMQ9534")]
