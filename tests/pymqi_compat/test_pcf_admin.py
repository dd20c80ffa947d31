"""The PCF administration commands pymqi's own tests send besides queues and channels:
Inquire Queue Manager's CONNAUTH and VERSION, Inquire Authentication Information, Set /
Inquire / Delete Authority Record, Create / Change / Copy / Inquire / Delete Namelist,
Inquire Connection, Set / Inquire Channel Authentication Record, Change Queue Manager; a
filter on an attribute the request did not ask for; QueueManager.get_handle.

what pymqi users rely on: "pymqi compatibility": PCFExecute answers as IBM's command server.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC, CMQXC
from tests.client.conftest import Env, env_in
from tests.pymqi_compat.conftest import QMGR, QUEUE


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    """QM1 and its channel initiator, shared by the module's tests: each leaves it as it
    found it (what it made deleted, what it changed put back)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from env_in(tmp_path_factory.mktemp("pcf_admin"), monkeypatch)


def _reason(call) -> int:
    with pytest.raises(pymqi.MQMIError) as err:
        call()
    return err.value.reason


def test_get_handle_is_the_integer_hconn_and_pyiferror_when_not_connected(qmgr):
    """Given a connected QueueManager, when get_handle is called, then it answers an
    integer Hconn; given one not connected, then it raises PYIFError as pymqi does."""
    assert isinstance(qmgr.get_handle(), int)
    assert qmgr.getHandle() == qmgr.get_handle()
    with pytest.raises(pymqi.PYIFError):
        pymqi.QueueManager(None).get_handle()


def test_inquire_q_mgr_answers_connauth_version_and_certlabl(pcf_exec):
    """Given a queue manager, when Inquire Queue Manager asks for CONNAUTH, VERSION and
    CERTLABL, then each is answered (CERTLABL IBM's default ibmwebspheremq<qmgr>)."""
    (qm,) = pcf_exec.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [
        CMQC.MQCA_CONN_AUTH, CMQC.MQCA_VERSION, CMQC.MQCA_CERT_LABEL]})
    assert len(qm[CMQC.MQCA_CONN_AUTH]) == CMQC.MQ_AUTH_INFO_NAME_LENGTH
    assert len(qm[CMQC.MQCA_VERSION]) == CMQC.MQ_VERSION_LENGTH
    assert qm[CMQC.MQCA_CERT_LABEL].strip() == b"ibmwebspheremq" + QMGR.lower().encode()


def test_create_and_inquire_auth_info(pcf_exec):
    """Given an IDPWOS authentication information object made by Create Authentication
    Information with CHCKCLNT(REQDADM), when Inquire Authentication Information names it
    with AuthInfoType MQAIT_IDPW_OS and asks for CHCKCLNT, then it answers the object's
    name, type and CHCKCLNT; an unknown name is MQRC_UNKNOWN_OBJECT_NAME."""
    pcf_exec.MQCMD_CREATE_AUTH_INFO({
        CMQC.MQCA_AUTH_INFO_NAME: b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
        CMQC.MQIA_AUTH_INFO_TYPE: CMQC.MQAIT_IDPW_OS,
        CMQC.MQIA_CHECK_CLIENT_BINDING: CMQCFC.MQCHK_REQUIRED_ADMIN,
        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    (ai,) = pcf_exec.MQCMD_INQUIRE_AUTH_INFO({
        CMQC.MQCA_AUTH_INFO_NAME: b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
        CMQC.MQIA_AUTH_INFO_TYPE: CMQC.MQAIT_IDPW_OS,
        CMQCFC.MQIACF_AUTH_INFO_ATTRS: [CMQC.MQIA_CHECK_CLIENT_BINDING]})
    assert ai[CMQC.MQCA_AUTH_INFO_NAME].strip() == b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    assert ai[CMQC.MQIA_AUTH_INFO_TYPE] == CMQC.MQAIT_IDPW_OS
    assert ai[CMQC.MQIA_CHECK_CLIENT_BINDING] == CMQCFC.MQCHK_REQUIRED_ADMIN
    assert CMQC.MQCA_AUTH_INFO_DESC not in ai
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_AUTH_INFO(
        {CMQC.MQCA_AUTH_INFO_NAME: b"NO.SUCH.AUTHINFO"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_set_inquire_and_delete_authority_record(pcf_exec):
    """Given a principal, when Set Authority Record adds dsp and inq on a queue profile,
    then Inquire Authority Record answers those authorities for it, and after Delete
    Authority Record it answers none."""
    key = {CMQCFC.MQCACF_AUTH_PROFILE_NAME: QUEUE.encode(),
           CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q}
    pcf_exec.MQCMD_SET_AUTH_REC([
        pymqi.CFST(Parameter=CMQCFC.MQCACF_AUTH_PROFILE_NAME, String=QUEUE.encode()),
        pymqi.CFIN(Parameter=CMQCFC.MQIACF_OBJECT_TYPE, Value=CMQC.MQOT_Q),
        pymqi.CFIL(Parameter=CMQCFC.MQIACF_AUTH_ADD_AUTHS,
                   Values=[CMQCFC.MQAUTH_DISPLAY, CMQCFC.MQAUTH_INQUIRE]),
        pymqi.CFSL(Parameter=CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES, Strings=[b"fred"])])
    found = pcf_exec.MQCMD_INQUIRE_AUTH_RECS({
        **key, CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_NAME_EXPLICIT
        | CMQCFC.MQAUTHOPT_ENTITY_EXPLICIT,
        CMQCFC.MQCACF_ENTITY_NAME: b"fred"})
    (record,) = found
    assert sorted(record[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == sorted(
        [CMQCFC.MQAUTH_DISPLAY, CMQCFC.MQAUTH_INQUIRE])
    assert record[CMQCFC.MQCACF_ENTITY_NAME].strip() == b"fred"
    pcf_exec.MQCMD_DELETE_AUTH_REC([
        pymqi.CFST(Parameter=CMQCFC.MQCACF_AUTH_PROFILE_NAME, String=QUEUE.encode()),
        pymqi.CFIN(Parameter=CMQCFC.MQIACF_OBJECT_TYPE, Value=CMQC.MQOT_Q),
        pymqi.CFSL(Parameter=CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES, Strings=[b"fred"])])
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_AUTH_RECS({
        **key, CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_NAME_EXPLICIT
        | CMQCFC.MQAUTHOPT_ENTITY_EXPLICIT, CMQCFC.MQCACF_ENTITY_NAME: b"fred"})) in (
        CMQCFC.MQRCCF_OBJECT_NAME_ERROR, CMQC.MQRC_UNKNOWN_ENTITY)


@pytest.mark.parametrize("names", [[], [b"ONE"], [b"ONE", b"TWO", b"THREE"]])
def test_create_inquire_change_copy_and_delete_namelist(pcf_exec, names):
    """Given no namelist NL.A, when Create Namelist makes it with Names, then Inquire
    Namelist answers the names and NameCount; Change Namelist replaces them; Copy Namelist
    makes NL.B alike; Delete Namelist removes both (Inquire then MQRC_UNKNOWN_OBJECT_NAME)."""
    pcf_exec.MQCMD_CREATE_NAMELIST([
        pymqi.CFST(Parameter=CMQC.MQCA_NAMELIST_NAME, String=b"NL.A"),
        pymqi.CFSL(Parameter=CMQC.MQCA_NAMES, Strings=names),
        pymqi.CFIN(Parameter=CMQCFC.MQIACF_REPLACE, Value=CMQCFC.MQRP_YES)])
    (nl,) = pcf_exec.MQCMD_INQUIRE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"NL.A",
                                             CMQCFC.MQIACF_NAMELIST_ATTRS: [
                                                 CMQC.MQCA_NAMES, CMQC.MQIA_NAME_COUNT]})
    assert nl[CMQC.MQIA_NAME_COUNT] == len(names)
    assert [n.strip() for n in nl.get(CMQC.MQCA_NAMES, [])] == names
    pcf_exec.MQCMD_CHANGE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"NL.A",
                                    CMQC.MQCA_NAMELIST_DESC: b"changed"})
    pcf_exec.MQCMD_COPY_NAMELIST({CMQCFC.MQCACF_FROM_NAMELIST_NAME: b"NL.A",
                                  CMQCFC.MQCACF_TO_NAMELIST_NAME: b"NL.B"})
    (copy,) = pcf_exec.MQCMD_INQUIRE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"NL.B"})
    assert copy[CMQC.MQCA_NAMELIST_DESC].strip() == b"changed"
    assert copy[CMQC.MQIA_NAME_COUNT] == len(names)
    for name in (b"NL.A", b"NL.B"):
        pcf_exec.MQCMD_DELETE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: name})
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_NAMELIST(
        {CMQC.MQCA_NAMELIST_NAME: b"NL.A"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_inquire_connection_answers_the_user_applications(pcf_exec):
    """Given the program's own connection, when Inquire Connection asks for every
    connection (GenericConnectionId empty) filtered on ApplType MQAT_USER, then at least
    one answers, with its ConnectionId and channel/connection names."""
    found = pcf_exec.MQCMD_INQUIRE_CONNECTION(
        {CMQCFC.MQBACF_GENERIC_CONNECTION_ID: pymqi.ByteString(b""),
         CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_CONN,
         CMQCFC.MQIACF_CONNECTION_ATTRS: [CMQCFC.MQCACH_CONNECTION_NAME,
                                          CMQCFC.MQCACH_CHANNEL_NAME]},
        [pymqi.Filter(CMQC.MQIA_APPL_TYPE).equal(CMQC.MQAT_USER)])
    assert found
    for conn in found:
        assert len(conn[CMQCFC.MQBACF_CONNECTION_ID]) == CMQC.MQ_CONNECTION_ID_LENGTH
        assert CMQCFC.MQCACH_CONNECTION_NAME in conn and CMQCFC.MQCACH_CHANNEL_NAME in conn


def test_a_filter_on_an_attribute_not_asked_for_is_evaluated_and_returned(pcf_exec):
    """Given APP.Q holding a message, when Inquire Queue asks only for DESCR and filters on
    CURDEPTH > 0, then APP.Q is answered with its CURDEPTH too (IBM evaluates the filter on
    the object and returns the filtered attribute)."""
    pymqi.Queue(pcf_exec.qm, QUEUE).put(b"deep")
    try:
        found = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*",
                                          CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]},
                                         [pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    finally:
        assert pymqi.Queue(pcf_exec.qm, QUEUE).get() == b"deep"
    assert [(q[CMQC.MQCA_Q_NAME].strip(), q[CMQC.MQIA_CURRENT_Q_DEPTH]) for q in found] == [
        (QUEUE.encode(), 1)]
    assert CMQC.MQCA_Q_DESC in found[0]


def test_set_and_inquire_channel_authentication_record(pcf_exec):
    """Given no CHLAUTH record for APP.*, when Set Channel Authentication Record adds a
    BLOCKUSER record, then Inquire Channel Authentication Records answers it; removing it
    leaves none."""
    add = {CMQCFC.MQCACH_CHANNEL_NAME: b"APP.*", CMQCFC.MQIACF_CHLAUTH_TYPE:
           CMQCFC.MQCAUT_BLOCKUSER, CMQCFC.MQCACH_MCA_USER_ID_LIST: [b"nobody"]}
    pcf_exec.MQCMD_SET_CHLAUTH_REC(add)
    (rec,) = pcf_exec.MQCMD_INQUIRE_CHLAUTH_RECS({CMQCFC.MQCACH_CHANNEL_NAME: b"APP.*"})
    assert rec[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_BLOCKUSER
    assert [u.strip() for u in rec[CMQCFC.MQCACH_MCA_USER_ID_LIST]] == [b"nobody"]
    pcf_exec.MQCMD_SET_CHLAUTH_REC({**add, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVE})
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_CHLAUTH_RECS(
        {CMQCFC.MQCACH_CHANNEL_NAME: b"APP.*"})) == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND


def test_change_q_mgr_sets_an_attribute(pcf_exec):
    """Given the queue manager, when Change Queue Manager sets its description and
    CHLAUTH(DISABLED), then Inquire Queue Manager answers them."""
    attrs = {CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_Q_MGR_DESC, CMQC.MQIA_CHLAUTH_RECORDS]}
    (was,) = pcf_exec.MQCMD_INQUIRE_Q_MGR(attrs)
    pcf_exec.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_Q_MGR_DESC: b"changed by PCF",
                                 CMQC.MQIA_CHLAUTH_RECORDS: CMQCFC.MQCHLA_DISABLED})
    try:
        (qm,) = pcf_exec.MQCMD_INQUIRE_Q_MGR(attrs)
    finally:
        pcf_exec.MQCMD_CHANGE_Q_MGR({
            CMQC.MQCA_Q_MGR_DESC: was[CMQC.MQCA_Q_MGR_DESC].rstrip(b" \0"),
            CMQC.MQIA_CHLAUTH_RECORDS: was[CMQC.MQIA_CHLAUTH_RECORDS]})
    assert qm[CMQC.MQCA_Q_MGR_DESC].strip() == b"changed by PCF"
    assert qm[CMQC.MQIA_CHLAUTH_RECORDS] == CMQCFC.MQCHLA_DISABLED
    assert _reason(lambda: pcf_exec.MQCMD_CHANGE_Q_MGR(
        {CMQC.MQIA_CURRENT_Q_DEPTH: 1})) == CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR




def test_create_inquire_copy_and_delete_process_and_its_names(pcf_exec):
    """Given no process PR.A, when Create Process makes it with APPLICID, then Inquire
    Process answers it, Copy Process makes PR.B alike, Inquire Process Names lists both,
    and Delete Process removes them."""
    pcf_exec.MQCMD_CREATE_PROCESS({CMQC.MQCA_PROCESS_NAME: b"PR.A",
                                   CMQC.MQCA_APPL_ID: b"/bin/true",
                                   CMQC.MQIA_APPL_TYPE: CMQC.MQAT_UNIX})
    pcf_exec.MQCMD_COPY_PROCESS({CMQCFC.MQCACF_FROM_PROCESS_NAME: b"PR.A",
                                 CMQCFC.MQCACF_TO_PROCESS_NAME: b"PR.B"})
    (copy,) = pcf_exec.MQCMD_INQUIRE_PROCESS({CMQC.MQCA_PROCESS_NAME: b"PR.B",
                                              CMQCFC.MQIACF_PROCESS_ATTRS: [CMQC.MQCA_APPL_ID]})
    assert copy[CMQC.MQCA_APPL_ID].strip() == b"/bin/true"
    assert CMQC.MQIA_APPL_TYPE not in copy
    (names,) = pcf_exec.MQCMD_INQUIRE_PROCESS_NAMES({CMQC.MQCA_PROCESS_NAME: b"PR.*"})
    assert [n.strip() for n in names[CMQCFC.MQCACF_PROCESS_NAMES]] == [b"PR.A", b"PR.B"]
    for name in (b"PR.A", b"PR.B"):
        pcf_exec.MQCMD_DELETE_PROCESS({CMQC.MQCA_PROCESS_NAME: name})
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_PROCESS(
        {CMQC.MQCA_PROCESS_NAME: b"PR.A"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_create_change_and_inquire_listener(pcf_exec):
    """Given no listener LS.A, when Create Listener makes a TCP one on a port and Change
    Listener sets its BACKLOG, then Inquire Listener selected by TransportType TCP answers
    its port, backlog and type; Delete Listener removes it."""
    pcf_exec.MQCMD_CREATE_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"LS.A",
                                    CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
                                    CMQCFC.MQIACH_PORT: 1499})
    pcf_exec.MQCMD_CHANGE_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"LS.A",
                                    CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
                                    CMQCFC.MQIACH_BACKLOG: 50})
    (ls,) = pcf_exec.MQCMD_INQUIRE_LISTENER({
        CMQCFC.MQCACH_LISTENER_NAME: b"LS.*", CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
        CMQCFC.MQIACF_LISTENER_ATTRS: [CMQCFC.MQIACH_PORT, CMQCFC.MQIACH_BACKLOG]})
    assert (ls[CMQCFC.MQIACH_PORT], ls[CMQCFC.MQIACH_BACKLOG],
            ls[CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE]) == (1499, 50, CMQXC.MQXPT_TCP)
    pcf_exec.MQCMD_DELETE_LISTENER({CMQCFC.MQCACH_LISTENER_NAME: b"LS.A"})
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_LISTENER(
        {CMQCFC.MQCACH_LISTENER_NAME: b"LS.A"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


@pytest.mark.parametrize(("command", "params", "expected"), [
    ("MQCMD_CREATE_NAMELIST", {CMQC.MQCA_NAMELIST_NAME: b"NL.LONG",
                                    CMQC.MQCA_NAMELIST_DESC: b"d" * 65},
     CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR),
    ("MQCMD_CREATE_NAMELIST", {CMQC.MQCA_NAMELIST_NAME: b"NL.LONG",
                                    CMQC.MQCA_NAMES: [b"N" * 49]},
     CMQCFC.MQRCCF_CFSL_STRING_LENGTH_ERR),
    ("MQCMD_CREATE_LISTENER", {CMQCFC.MQCACH_LISTENER_NAME: b"LS.BAD",
                                    CMQCFC.MQIACH_XMIT_PROTOCOL_TYPE: CMQXC.MQXPT_TCP,
                                    CMQCFC.MQIACH_PORT: 70000},
     CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("MQCMD_CREATE_Q", {CMQC.MQCA_Q_NAME: b"Q.BAD", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                             CMQC.MQIA_MAX_Q_DEPTH: -1},
     CMQCFC.MQRCCF_PARM_VALUE_ERROR),
])
def test_a_value_the_attribute_cannot_hold_is_refused(pcf_exec, command, params, expected):
    """Given a create request with a string longer than its attribute or a number out of
    its range, when the command server gets it, then it is refused with the structure's
    MQRCCF_*_STRING_LENGTH_ERR or MQRCCF_PARM_VALUE_ERROR, as runmqsc refuses the same
    value, and nothing is made."""
    assert _reason(lambda: getattr(pcf_exec, command)(params)) == expected
    assert _reason(lambda: pcf_exec.MQCMD_INQUIRE_NAMELIST(
        {CMQC.MQCA_NAMELIST_NAME: b"NL.LONG"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_copy_and_clear_queue_copy_channel_and_channel_names(pcf_exec):
    """Given APP.Q holding a message with MAXDEPTH 4000, when Copy Queue makes APP.COPY
    from it, then the copy has its MAXDEPTH and no messages; Clear Queue empties APP.Q;
    Copy Channel makes a SVRCONN like an existing one, and Inquire Channel Names of
    SVRCONN channels lists it."""
    (was,) = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode(),
                                      CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_MAX_Q_DEPTH]})
    try:
        _copy_and_clear_queue_copy_channel_and_channel_names(pcf_exec)
    finally:
        pcf_exec.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode(),
                                 CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                 CMQC.MQIA_MAX_Q_DEPTH: was[CMQC.MQIA_MAX_Q_DEPTH]})
        for delete, key, name in (
                (pcf_exec.MQCMD_DELETE_Q, CMQC.MQCA_Q_NAME, b"APP.COPY"),
                (pcf_exec.MQCMD_DELETE_CHANNEL, CMQCFC.MQCACH_CHANNEL_NAME, b"COPY.SVRCONN")):
            try:
                delete({key: name})
            except pymqi.MQMIError:
                pass  # not made


def _copy_and_clear_queue_copy_channel_and_channel_names(pcf_exec) -> None:
    """The test's steps (its caller puts back what they change)."""
    pcf_exec.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                             CMQC.MQIA_MAX_Q_DEPTH: 4000})
    pymqi.Queue(pcf_exec.qm, QUEUE).put(b"kept")
    pcf_exec.MQCMD_COPY_Q({CMQCFC.MQCACF_FROM_Q_NAME: QUEUE.encode(),
                           CMQCFC.MQCACF_TO_Q_NAME: b"APP.COPY",
                           CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    (copy,) = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.COPY"})
    assert (copy[CMQC.MQIA_MAX_Q_DEPTH], copy[CMQC.MQIA_CURRENT_Q_DEPTH]) == (4000, 0)
    pcf_exec.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: QUEUE.encode()})
    (cleared,) = pcf_exec.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE.encode()})
    assert cleared[CMQC.MQIA_CURRENT_Q_DEPTH] == 0
    pcf_exec.MQCMD_COPY_CHANNEL({CMQCFC.MQCACF_FROM_CHANNEL_NAME: b"SYSTEM.DEF.SVRCONN",
                                 CMQCFC.MQCACF_TO_CHANNEL_NAME: b"COPY.SVRCONN",
                                 CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN})
    (names,) = pcf_exec.MQCMD_INQUIRE_CHANNEL_NAMES({
        CMQCFC.MQCACH_CHANNEL_NAME: b"COPY.*", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN})
    assert [n.strip() for n in names[CMQCFC.MQCACH_CHANNEL_NAMES]] == [b"COPY.SVRCONN"]
