"""A client connection's alternate-user and context authorities are judged for the user the
conversation runs as (the SVRCONN's MCAUSER, or the user CHLAUTH mapped it to), never for the
channel initiator that carries its calls: IBM's OAM checks ``altusr`` on the queue manager
for MQOO/MQPMO_ALTERNATE_USER_AUTHORITY and ``setall`` (``setid``) for
MQOO/MQPMO_SET_ALL_CONTEXT (SET_IDENTITY_CONTEXT), on the queue and on the queue manager,
against the connection's user."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site import ALICE, QUEUE, Site

CHANNEL = "RUNAS.SVRCONN"
MAPPED = "MAPPED.SVRCONN"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """bob (outside mqm) may connect and put to APP.Q and nothing more; RUNAS.SVRCONN runs
    as bob by MCAUSER, MAPPED.SVRCONN by a CHLAUTH ADDRESSMAP to bob."""
    s = Site(str(tmp_path_factory.mktemp("runas")))
    try:
        s.start().mqsc(
            f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MCAUSER('bob')\n"
            f"DEFINE CHANNEL({MAPPED}) CHLTYPE(SVRCONN)\n"
            f"SET CHLAUTH({MAPPED}) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(MAP) "
            "MCAUSER('bob')\n"
            "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
            f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(PUT)\n"
            f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') "
            "AUTHADD(PUT)\n")
        yield s
    finally:
        s.stop()


def _reason(fn) -> int:
    with pytest.raises(mqpy.MQMIError) as err:
        fn()
    return err.value.reason


def _grant(site: Site, objtype: str, profile: str, auth: str) -> None:
    prof = f"PROFILE({profile}) " if profile else ""
    site.mqsc(f"SET AUTHREC {prof}OBJTYPE({objtype}) PRINCIPAL('bob') AUTHADD({auth})\n")


def _revoke(site: Site, objtype: str, profile: str, auth: str) -> None:
    prof = f"PROFILE({profile}) " if profile else ""
    site.mqsc(f"SET AUTHREC {prof}OBJTYPE({objtype}) PRINCIPAL('bob') AUTHRMV({auth})\n")


def _open_as_alice(qm: mqpy.QueueManager) -> None:
    od = mqpy.OD(ObjectName=QUEUE.encode(), AlternateUserId=ALICE.encode())
    q = mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
    q.put(b"put with alice's authority")
    q.close()


def _put1_as_alice(qm: mqpy.QueueManager) -> None:
    od = mqpy.OD(ObjectName=QUEUE.encode(), AlternateUserId=ALICE.encode())
    qm.put1(od, b"put1 with alice's authority", mqpy.MD(),
            mqpy.PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY))


def _put1_set_all(qm: mqpy.QueueManager) -> None:
    md = mqpy.MD(UserIdentifier=b"someone", ApplIdentityData=b"forged",
                 PutApplName=b"forged appl")
    qm.put1(QUEUE, b"all context set", md, mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))


@pytest.mark.parametrize("channel", [CHANNEL, MAPPED])
def test_altusr_is_judged_for_the_final_user(site, channel):
    """Given a client conversation running as bob (MCAUSER, or a CHLAUTH map), when it opens
    APP.Q with MQOO_ALTERNATE_USER_AUTHORITY for alice (who may put), or puts with MQPUT1 and
    MQPMO_ALTERNATE_USER_AUTHORITY, then each fails with 2035 and AMQ8077W names bob: the channel initiator's own (mqm) authority does not
    count; after bob is given altusr on the queue manager both succeed."""
    qm = site.client(channel=channel)
    try:
        site.mark()
        assert _reason(lambda: _open_as_alice(qm)) == CMQC.MQRC_NOT_AUTHORIZED
        log = site.wait_for_log("AMQ8077W")
        assert "Entity 'bob' has insufficient authority" in log and "altusr" in log, log
        assert _reason(lambda: _put1_as_alice(qm)) == CMQC.MQRC_NOT_AUTHORIZED
        _grant(site, "QMGR", "", "ALTUSR")
        try:
            _open_as_alice(qm)
            _put1_as_alice(qm)
        finally:
            _revoke(site, "QMGR", "", "ALTUSR")
    finally:
        qm.disconnect()


@pytest.mark.parametrize("channel", [CHANNEL, MAPPED])
def test_set_all_context_is_judged_for_the_final_user(site, channel):
    """Given a client conversation running as bob, when it puts (MQPUT1) to APP.Q with
    MQPMO_SET_ALL_CONTEXT, then 2035 and AMQ8077W naming bob and setall; an MQOPEN with
    MQOO_SET_ALL_CONTEXT is refused too; setall on APP.Q alone is not enough (IBM: on the
    queue manager as well); once bob holds both the put keeps the context it set."""
    qm = site.client(channel=channel)
    try:
        site.mark()
        assert _reason(lambda: _put1_set_all(qm)) == CMQC.MQRC_NOT_AUTHORIZED
        log = site.wait_for_log("AMQ8077W")
        assert "Entity 'bob' has insufficient authority" in log and "setall" in log, log
        assert _reason(lambda: mqpy.Queue(
            qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)) == \
            CMQC.MQRC_NOT_AUTHORIZED
        _grant(site, "QUEUE", QUEUE, "SETALL")
        try:
            site.mark()  # IBM: setall on the queue manager as well as on the queue
            assert _reason(lambda: _put1_set_all(qm)) == CMQC.MQRC_NOT_AUTHORIZED
            log = site.wait_for_log("AMQ8077W")
            assert "access object 'QMS'" in log and "setall" in log, log
            _grant(site, "QMGR", "", "SETALL")
            _put1_set_all(qm)
        finally:
            _revoke(site, "QUEUE", QUEUE, "SETALL")
            _revoke(site, "QMGR", "", "SETALL")
    finally:
        qm.disconnect()
    reader = site.bindings()
    try:
        q = mqpy.Queue(reader, QUEUE, CMQC.MQOO_INPUT_SHARED)
        md = mqpy.MD()
        body = None
        while body != b"all context set":  # earlier tests' messages come first
            md = mqpy.MD()
            body = q.get(None, md)
        assert md.UserIdentifier.strip() == b"someone"
        assert md.PutApplName.strip() == b"forged appl"
        q.close()
    finally:
        reader.disconnect()
