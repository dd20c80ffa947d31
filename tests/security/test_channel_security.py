"""Channel authentication records evaluated on every inbound channel of a channel initiator
started by strmqm: SVRCONN conversations at their MQCONN, receiving message channels after
their INITIAL_DATA, BLOCKADDR in the listener. A refused channel gets MQ's answer, the log an
AMQ977x message, and the listener keeps serving the next partner."""

from __future__ import annotations

import socket

import attrs
import pytest

import mqpy
from mqpy import CMQC, CMQCFC, clientchannel, clientinstance, pcf
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import OUR_FAP_LEVEL, CapFlags1, InitialData
from mqpy.fap.statuscodes import StatusCode
from tests.support.site import ALICE, ALICE_PW, CHANNEL, QUEUE, Site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(str(tmp_path_factory.mktemp("chlauth")))
    try:
        s.start().mqsc(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n"
                       "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
                       f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') "
                       "AUTHADD(PUT,GET)\n")
        yield s
    finally:
        s.stop()


@pytest.fixture(autouse=True)
def _log_mark(site):
    """Each test's log checks see only what was written during that test."""
    site.mark()


def _refused(fn) -> int:
    with pytest.raises(mqpy.MQMIError) as err:
        fn()
    return err.value.reason


def _alice_works(site: Site) -> None:
    """The listener still serves a partner that is allowed in."""
    qm = site.client(ALICE, ALICE_PW)
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"still served")
        q.close()
    finally:
        qm.disconnect()


def _runs_as_bob(site: Site, qm: mqpy.QueueManager) -> None:
    """The channel runs as bob: DISPLAY CHSTATUS says MCAUSER(bob), and bob's authorities
    apply (he may connect but not put to APP.Q: 2035 at MQOPEN)."""
    try:
        status = site.mqsc(f"DISPLAY CHSTATUS({CHANNEL}) MCAUSER\n")
        assert "MCAUSER(bob)" in status, status
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        qm.disconnect()


def test_default_rule_blocks_privileged_client_users(site):
    """Given IBM's default BLOCKUSER('*MQADMIN') rule and a SVRCONN with a blank MCAUSER, when a
    client running as a privileged user (the owner, in mqm) connects without an MQCSP, then
    MQCONN is MQRC_NOT_AUTHORIZED (2035), the log has AMQ9776E, and alice is still served."""
    assert _refused(site.client) == CMQC.MQRC_NOT_AUTHORIZED
    log = site.wait_for_log("AMQ9776E")
    assert "AMQ9776E" in log and "mapped to a user ID which should be blocked" in log
    _alice_works(site)


def test_default_rule_blocks_system_channels(site):
    """Given IBM's default ADDRESSMAP rule for SYSTEM.* (USERSRC(NOACCESS)), when a client
    uses a SYSTEM.* server-connection channel, then MQCONN is 2035 and AMQ9777E is logged."""
    site.mqsc("DEFINE CHANNEL(SYSTEM.TEST.SVRCONN) CHLTYPE(SVRCONN) REPLACE\n")
    assert _refused(lambda: site.client(ALICE, ALICE_PW, channel="SYSTEM.TEST.SVRCONN")) == \
        CMQC.MQRC_NOT_AUTHORIZED
    log = site.wait_for_log("SYSTEM.TEST.SVRCONN' was blocked")
    assert "AMQ9777E" in log and "USERSRC(NOACCESS)" in log


def test_a_client_the_daemon_blocks_is_a_channel_blocked_event(site):
    """Given CHLEV(ENABLED) and IBM's default ADDRESSMAP rule for SYSTEM.* (NOACCESS), when
    a client the daemon serves itself (MQIBindType=FASTPATH) uses a SYSTEM.* server-connection
    channel, then besides its 2035 a Channel Blocked event (2577, NOACCESS) naming the
    channel is put on SYSTEM.ADMIN.CHANNEL.EVENT, as by the channel initiator."""
    site.mqsc("DEFINE CHANNEL(SYSTEM.TEST.SVRCONN) CHLTYPE(SVRCONN) REPLACE\n"
              "ALTER QMGR CHLEV(ENABLED)\n")
    qm = site.bindings()
    events = mqpy.Queue(qm, "SYSTEM.ADMIN.CHANNEL.EVENT", CMQC.MQOO_INPUT_SHARED)
    try:
        assert _refused(lambda: site.client(ALICE, ALICE_PW, channel="SYSTEM.TEST.SVRCONN")) \
            == CMQC.MQRC_NOT_AUTHORIZED
        while True:  # (a channel's own events may come first)
            msg = pcf.parse(events.get(None, mqpy.MD(), mqpy.GMO(
                Options=CMQC.MQGMO_WAIT, WaitInterval=10_000)))
            if msg.header.Reason == CMQC.MQRC_CHANNEL_BLOCKED:
                break
        got = {p.Parameter: getattr(p, "Value", getattr(p, "String", None))
               for p in msg.params}
        assert got[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CHANNEL_BLOCKED_NOACCESS
        assert got[CMQCFC.MQCACH_CHANNEL_NAME].rstrip(b" ") == b"SYSTEM.TEST.SVRCONN"
    finally:
        events.close()
        qm.disconnect()
        site.mqsc("ALTER QMGR CHLEV(DISABLED)\n")


def test_blockaddr_closes_at_the_listener(site):
    """Given SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1'), when a client connects
    from 127.0.0.1, then MQCONN is MQRC_Q_MGR_NOT_AVAILABLE (2059) and AMQ9782E is logged;
    once the address is removed the listener serves it again."""
    site.mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1')\n")
    try:
        assert _refused(lambda: site.client(ALICE, ALICE_PW)) == \
            CMQC.MQRC_Q_MGR_NOT_AVAILABLE
        assert "AMQ9782E" in site.wait_for_log("AMQ9782E")
    finally:
        site.mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1') ACTION(REMOVE)\n")
    _alice_works(site)


def test_addressmap_usersrc_map_and_noaccess(site):
    """Given ADDRESSMAP for 127.0.0.1 on APP.SVRCONN with USERSRC(MAP) MCAUSER('bob'), when the
    privileged client connects, then it runs as bob (not blocked, and bob's authorities apply);
    with USERSRC(NOACCESS) it is refused with 2035 and AMQ9777E."""
    site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(MAP) "
              "MCAUSER('bob')\n")
    try:
        _runs_as_bob(site, site.client())
        site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') "
                  "USERSRC(NOACCESS) ACTION(REPLACE)\n")
        site.mark()
        assert _refused(lambda: site.client(ALICE, ALICE_PW)) == CMQC.MQRC_NOT_AUTHORIZED
        assert "USERSRC(NOACCESS)" in site.wait_for_log(f"'{CHANNEL}' was blocked")
    finally:
        site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') "
                  "ACTION(REMOVE)\n")


def test_usermap_maps_the_flowed_client_user(site):
    """Given USERMAP CLNTUSER(<the client's own user id>) USERSRC(MAP) MCAUSER('bob'), when the
    client connects without an MQCSP (its user id flows in USERID_DATA), then it runs as bob."""
    import getpass

    me = getpass.getuser()
    site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(USERMAP) CLNTUSER('{me}') USERSRC(MAP) "
              "MCAUSER('bob')\n")
    try:
        _runs_as_bob(site, site.client())
    finally:
        site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(USERMAP) CLNTUSER('{me}') ACTION(REMOVE)\n")


def test_blockuser_on_the_channel(site):
    """Given SET CHLAUTH(APP.SVRCONN) TYPE(BLOCKUSER) USERLIST('alice'), when alice connects
    with her right password, then MQCONN is 2035 and AMQ9776E is logged."""
    site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(BLOCKUSER) USERLIST('{ALICE}')\n")
    try:
        assert _refused(lambda: site.client(ALICE, ALICE_PW)) == CMQC.MQRC_NOT_AUTHORIZED
        assert f"MCAUSER({ALICE})" in site.wait_for_log(f"MCAUSER({ALICE})")
    finally:
        site.mqsc(f"SET CHLAUTH({CHANNEL}) TYPE(BLOCKUSER) ACTION(REMOVEALL)\n")
    _alice_works(site)


def test_adopted_mqcsp_user_is_the_one_chlauth_judges(site):
    """Given a SVRCONN with MCAUSER('bob') and IBM's default *MQADMIN BLOCKUSER, when a client
    authenticates as admin2 (a member of mqm) with the right password, then ADOPTCTX(YES)
    makes admin2 the channel's user, so the channel is refused (2035, AMQ9776E naming
    admin2) rather than judged as bob and run as admin2."""
    from mqpy.security.users import UserFile, users_path

    users = UserFile(users_path(site.qmdir))
    if users.get("admin2") is None:
        users.add("admin2", "admin2-pw", ["mqm"])
    site.mqsc("DEFINE CHANNEL(BOB.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('bob') REPLACE\n")
    assert _refused(lambda: site.client("admin2", "admin2-pw", channel="BOB.SVRCONN")) == \
        CMQC.MQRC_NOT_AUTHORIZED
    assert "MCAUSER(admin2)" in site.wait_for_log("MCAUSER(admin2)")
    _alice_works(site)


def test_chlauth_disabled_evaluates_no_record(site):
    """Given ALTER QMGR CHLAUTH(DISABLED), when alice uses the SYSTEM.* channel the default
    rule blocks, then she is let in; CHLAUTH(ENABLED) blocks her again. (CONNAUTH still
    applies: a privileged client without a password stays refused by CHCKCLNT(REQDADM).)"""
    site.mqsc("DEFINE CHANNEL(SYSTEM.TEST.SVRCONN) CHLTYPE(SVRCONN) REPLACE\n"
              "ALTER QMGR CHLAUTH(DISABLED)\n")
    try:
        site.client(ALICE, ALICE_PW, channel="SYSTEM.TEST.SVRCONN").disconnect()
        assert _refused(site.client) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        site.mqsc("ALTER QMGR CHLAUTH(ENABLED)\n")
    assert _refused(lambda: site.client(ALICE, ALICE_PW, channel="SYSTEM.TEST.SVRCONN")) == \
        CMQC.MQRC_NOT_AUTHORIZED


# ---------------------------------------------------------------- receiving message channels


def _start_receiver(site: Site, channel: str, qmgr: str) -> object:
    """Act as a sending MCA: send INITIAL_DATA for ``channel`` from ``qmgr``; the answer."""
    writer, reader = SegmentWriter(), SegmentReader()
    ours = InitialData(fap_level=OUR_FAP_LEVEL, channel_name=channel, qmgr_name=qmgr,
                       max_msg_batch=50, max_transmission_size=32768, max_msg_size=4194304,
                       seq_wrap_value=999999999, heartbeat_interval=300,
                       cap_flags1=CapFlags1.MSG_SEQ | CapFlags1.SPLIT_MESSAGE)
    with socket.create_connection(("127.0.0.1", site.port), timeout=20) as sock:
        sock.sendall(writer.send(ours))
        while True:
            data = sock.recv(65536)
            if not data:
                return None
            events = reader.feed(data)
            if events:
                return events[0]


def test_receiver_blocked_by_default_and_by_qmgrmap(site):
    """Given a RCVR with a blank MCAUSER (it would run as the privileged channel initiator),
    when a partner starts it, then it gets STATUS SECURITY_FAILURE and the log AMQ9776E; with
    MCAUSER('bob') the channel is admitted (INITIAL_DATA comes back); a QMGRMAP for the
    partner's queue manager with USERSRC(NOACCESS) refuses it again with AMQ9777E."""
    site.mqsc("DEFINE CHANNEL(QMX.TO.QMS) CHLTYPE(RCVR) REPLACE\n")
    answer = _start_receiver(site, "QMX.TO.QMS", "QMX")
    assert isinstance(answer, Status) and answer.code == StatusCode.SECURITY_FAILURE
    assert "QMX.TO.QMS' was blocked" in site.wait_for_log("QMX.TO.QMS' was blocked")
    site.mqsc("ALTER CHANNEL(QMX.TO.QMS) CHLTYPE(RCVR) MCAUSER('bob')\n")
    assert isinstance(_start_receiver(site, "QMX.TO.QMS", "QMX"), InitialData)
    site.mqsc("SET CHLAUTH(QMX.TO.QMS) TYPE(QMGRMAP) QMNAME('QMX') USERSRC(NOACCESS)\n")
    site.mark()
    try:
        answer = _start_receiver(site, "QMX.TO.QMS", "QMX")
        assert isinstance(answer, Status) and answer.code == StatusCode.SECURITY_FAILURE
        log = site.wait_for_log("QMNAME(QMX)")
        assert "AMQ9777E" in log and "QMNAME(QMX)" in log
        # another partner queue manager is not matched by the record
        assert isinstance(_start_receiver(site, "QMX.TO.QMS", "QMY"), InitialData)
    finally:
        site.mqsc("SET CHLAUTH(QMX.TO.QMS) TYPE(QMGRMAP) QMNAME('QMX') ACTION(REMOVE)\n")


# ---------------------------------------------------------------- bad identity flows


def _raw_conversation(site: Site):
    """A started SVRCONN instance (INITIAL_DATA agreed) and its first conversation."""
    definition = clientchannel.ChannelDefinition(CHANNEL, (("127.0.0.1", site.port),))
    instance = clientinstance.open_socket("127.0.0.1", site.port, definition, "QMS")
    return instance, instance.open_conversation()


def _tshm(instance, conv) -> dict[str, int]:
    return {"conv_id": conv.conv_id, "request_id": 1} if instance.tshm else {}


@pytest.mark.parametrize("flow", ["UID", "MQCSP"])
def test_client_user_name_that_is_no_user_id_fails_mqconn_with_2035(site, monkeypatch, flow):
    """Given a client whose operating-system user name (the UID flow) or MQCSP user id is
    'j doe' (a blank inside: no MQ user id), when it connects, then its MQCONN fails with
    2035 (not a channel protocol error), AMQ9557E names the user in the queue manager's log
    as IBM's does, no AMQ9504E is logged, and the listener serves alice next."""
    from mqpy import client

    if flow == "UID":
        monkeypatch.setattr(client, "_os_user", lambda: "j doe")
        assert _refused(lambda: site.client()) == CMQC.MQRC_NOT_AUTHORIZED
    else:
        assert _refused(lambda: site.client("j doe", "pw")) == CMQC.MQRC_NOT_AUTHORIZED
    log = site.wait_for_log("AMQ9557E")
    assert "AMQ9557E" in log and "initialization failed for 'j doe'" in log, log
    assert "AMQ9504E" not in log
    monkeypatch.undo()
    _alice_works(site)


def test_garbled_conauth_info_ends_the_instance_with_amq9504(site):
    """Given a started SVRCONN instance, when the client sends a CONAUTH_INFO whose CAUT
    lengths run past the segment, then the instance ends (the client sees its conversation
    broken), AMQ9504E is logged, and the listener serves alice next."""
    from mqpy.fap.tsh import OtherSegment, SegmentType

    instance, conv = _raw_conversation(site)
    try:
        bad = b"CAUT" + (1).to_bytes(4, "little") + (64).to_bytes(4, "little") * 2 + \
            (60).to_bytes(4, "little") + (60).to_bytes(4, "little") + b"x" * 8
        instance.send(OtherSegment(segment_type=SegmentType.CONAUTH_INFO, body=bad,
                                   **_tshm(instance, conv)))
        assert conv.replies.get(timeout=20) is None  # the socket was closed on us
    finally:
        instance.close()
    assert "CAUT lengths run past the segment" in site.wait_for_log("CAUT lengths run past")
    _alice_works(site)


def test_client_may_not_assert_an_identity(site):
    """Given a started SVRCONN instance, when the client's MQCONN carries mqpy's bindings-only
    CSEC tail asserting a privileged user, then the instance ends with AMQ9504E (no
    connection is made for it) and the listener serves alice next."""
    from mqpy.fap import mqiflows, mqiparams
    from mqpy.fap.tsh import SegmentType

    instance, conv = _raw_conversation(site)
    try:
        request = mqiflows.encode_request(
            SegmentType.MQCONN, [("QMS", "intruder"),
                                 mqiparams.ConnSecurity(None, user="root", channel=CHANNEL)])
        instance.send(attrs.evolve(request, **_tshm(instance, conv)))
        assert conv.replies.get(timeout=20) is None
    finally:
        instance.close()
    assert "carried a security context" in site.wait_for_log("carried a security context")
    _alice_works(site)


def test_user_id_flows_for_too_many_conversations_end_the_instance(site):
    """Given a started instance sharing SHARECNV conversations, when a client sends
    USERID_DATA for more conversations than that without connecting any, then the instance
    ends with AMQ9504E (nothing piles up in the channel initiator)."""
    from mqpy.fap import userid

    instance, conv = _raw_conversation(site)
    try:
        for n in range(1, max(instance.sharing, 1) + 2):
            instance.send(userid.userid_event("flood", conv_id=n, request_id=0))
        assert conv.replies.get(timeout=20) is None
    finally:
        instance.close()
    assert "user-id flows for more" in site.wait_for_log("user-id flows for more")
    _alice_works(site)


def test_garbled_and_oversized_frames_at_the_daemons_listener(site):
    """Given the listener of the channel initiator strmqm started, when a partner sends bytes
    that are not MQ (an HTTP request), then it gets a STATUS and the connection is closed;
    when a running instance announces a segment beyond the negotiated maximum, the same; both
    are logged as AMQ9504E in AMQERR01.LOG and the listener serves alice next."""
    import time

    from mqpy.fap.framing import SegmentReader

    before = site.errors().count("AMQ9504E")
    with socket.create_connection(("127.0.0.1", site.port), timeout=20) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: mq\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    events = SegmentReader().feed(data)
    assert len(events) == 1 and isinstance(events[0], Status)
    instance, conv = _raw_conversation(site)
    try:
        instance.sock.sendall(b"TSHM" + (50_000_000).to_bytes(4, "big") + bytes(28))
        assert conv.replies.get(timeout=20) is None
    finally:
        instance.close()
    deadline = time.monotonic() + 10
    while site.errors().count("AMQ9504E") < before + 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert site.errors().count("AMQ9504E") >= before + 2
    _alice_works(site)
