"""The PCF security inquiries besides the records themselves: Inquire Entity Authority
(what one principal or group may do with one object, as dspmqaut answers) and Inquire
Channel Authentication Records with Match MQMATCH_RUNCHECK (the record an inbound channel
with the given address and user would be decided by, as DISPLAY CHLAUTH MATCH(RUNCHECK))."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, CMQZC
from tests.pcf_commands.conftest import reason_of

pytestmark = pytest.mark.timeout(60)


def _entity(name: bytes, etype: int, objtype: int, objname: bytes | None = None) -> dict:
    request = {CMQCFC.MQCACF_ENTITY_NAME: name, CMQCFC.MQIACF_ENTITY_TYPE: etype,
               CMQCFC.MQIACF_OBJECT_TYPE: objtype,
               CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_CUMULATIVE}
    if objname is not None:
        request[CMQCFC.MQCACF_OBJECT_NAME] = objname
    return request


def test_inquire_entity_authority(admin, env):
    """Given fred's +put +get on the generic profile APP.* and group apps' +dsp on APP.Q,
    when Inquire Entity Authority asks about each for queue APP.Q, then it answers the
    queue-manager name, options, object name, entity, its type, the object type and the
    authority list; an entity with no authority gets MQAUTH_NONE; a missing EntityName,
    EntityType, ObjectType, Options (MQAUTHOPT_CUMULATIVE) or ObjectName (an object that
    is not the queue manager) is refused with IBM's reason."""
    for profile, entity, auths in ((b"APP.*", CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES,
                                    [CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_INPUT]),
                                   (b"APP.Q", CMQCFC.MQCACF_GROUP_ENTITY_NAMES,
                                    [CMQCFC.MQAUTH_DISPLAY])):
        admin.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile,
                                  CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                  CMQCFC.MQIACF_AUTH_ADD_AUTHS: auths,
                                  entity: [b"fred" if profile == b"APP.*" else b"apps"]})
    (fred,) = admin.MQCMD_INQUIRE_ENTITY_AUTH(
        _entity(b"fred", CMQZC.MQZAET_PRINCIPAL, CMQC.MQOT_Q, b"APP.Q"))
    assert fred[CMQC.MQCA_Q_MGR_NAME].strip() == env.name.encode()
    assert fred[CMQCFC.MQCACF_OBJECT_NAME].strip() == b"APP.Q"
    assert fred[CMQCFC.MQIACF_AUTH_OPTIONS] == CMQCFC.MQAUTHOPT_CUMULATIVE
    assert fred[CMQCFC.MQCACF_ENTITY_NAME].strip() == b"fred"
    assert fred[CMQCFC.MQIACF_ENTITY_TYPE] == CMQZC.MQZAET_PRINCIPAL
    assert fred[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q
    assert sorted(fred[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == sorted(
        [CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_INPUT])
    (apps,) = admin.MQCMD_INQUIRE_ENTITY_AUTH(
        _entity(b"apps", CMQZC.MQZAET_GROUP, CMQC.MQOT_Q, b"APP.Q"))
    assert apps[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_DISPLAY]
    (other,) = admin.MQCMD_INQUIRE_ENTITY_AUTH(
        _entity(b"fred", CMQZC.MQZAET_PRINCIPAL, CMQC.MQOT_Q, b"SYSTEM.DEFAULT.LOCAL.QUEUE"))
    assert other[CMQCFC.MQIACF_AUTHORIZATION_LIST] == [CMQCFC.MQAUTH_NONE]
    full = _entity(b"fred", CMQZC.MQZAET_PRINCIPAL, CMQC.MQOT_Q, b"APP.Q")
    for left_out, reason in ((CMQCFC.MQCACF_ENTITY_NAME, CMQCFC.MQRCCF_ENTITY_NAME_MISSING),
                             (CMQCFC.MQIACF_ENTITY_TYPE, CMQCFC.MQRCCF_ENTITY_TYPE_MISSING),
                             (CMQCFC.MQIACF_OBJECT_TYPE, CMQCFC.MQRCCF_OBJECT_TYPE_MISSING),
                             (CMQCFC.MQIACF_AUTH_OPTIONS, CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL),
                             (CMQCFC.MQCACF_OBJECT_NAME, CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)):
        request = {k: v for k, v in full.items() if k != left_out}
        assert reason_of(lambda r=request: admin.MQCMD_INQUIRE_ENTITY_AUTH(r)) == reason


def _runcheck(channel: bytes, **values: bytes) -> dict:
    params = {"address": CMQCFC.MQCACH_CONNECTION_NAME,
              "clntuser": CMQCFC.MQCACH_CLIENT_USER_ID, "qmname": CMQC.MQCA_REMOTE_Q_MGR_NAME}
    return {CMQCFC.MQCACH_CHANNEL_NAME: channel, CMQCFC.MQIACH_MATCH: CMQCFC.MQMATCH_RUNCHECK,
            **{params[k]: v for k, v in values.items()}}


def test_inquire_chlauth_runcheck_answers_the_deciding_record(admin):
    """Given a USERMAP record mapping client user bob on APP.SVRCONN to alice, when Inquire
    Channel Authentication Records asks with MQMATCH_RUNCHECK for APP.SVRCONN from
    10.1.2.3 as bob, then it answers that record (type USERMAP, MCAUSER alice); given
    IBM's default SYSTEM.* ADDRESSMAP NOACCESS record, for SYSTEM.DEF.SVRCONN it answers
    that record; a
    generic channel name or user is MQRCCF_CHLAUTH_RUNCHECK_ERROR, a run check without an
    address MQRCCF_PARM_COUNT_TOO_SMALL, and a channel no record decides
    MQRCCF_CHLAUTH_NOT_FOUND."""
    admin.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: b"APP.SVRCONN",
                                 CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_USERMAP,
                                 CMQCFC.MQCACH_CLIENT_USER_ID: b"bob",
                                 CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_MAP,
                                 CMQCFC.MQCACH_MCA_USER_ID: b"alice"})
    admin.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: b"SYSTEM.*",
                                 CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_ADDRESSMAP,
                                 CMQCFC.MQCACH_CONNECTION_NAME: b"*",
                                 CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_NOACCESS})
    (rec,) = admin.MQCMD_INQUIRE_CHLAUTH_RECS(
        _runcheck(b"APP.SVRCONN", address=b"10.1.2.3", clntuser=b"bob"))
    assert rec[CMQCFC.MQCACH_CHANNEL_NAME].strip() == b"APP.SVRCONN"
    assert rec[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_USERMAP
    assert rec[CMQCFC.MQCACH_MCA_USER_ID].strip() == b"alice"
    assert rec[CMQCFC.MQCACH_CLIENT_USER_ID].strip() == b"bob"
    (default,) = admin.MQCMD_INQUIRE_CHLAUTH_RECS(
        _runcheck(b"SYSTEM.DEF.SVRCONN", address=b"10.1.2.3", clntuser=b"bob"))
    assert default[CMQCFC.MQCACH_CHANNEL_NAME].strip() == b"SYSTEM.*"
    assert default[CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_ADDRESSMAP
    assert default[CMQCFC.MQIACH_USER_SOURCE] == CMQC.MQUSRC_NOACCESS
    for bad in (_runcheck(b"APP.*", address=b"10.1.2.3", clntuser=b"bob"),
                _runcheck(b"APP.SVRCONN", address=b"10.1.2.3", clntuser=b"b*")):
        assert reason_of(lambda b=bad: admin.MQCMD_INQUIRE_CHLAUTH_RECS(b)) \
            == CMQCFC.MQRCCF_CHLAUTH_RUNCHECK_ERROR
    assert reason_of(lambda: admin.MQCMD_INQUIRE_CHLAUTH_RECS(
        _runcheck(b"APP.SVRCONN", clntuser=b"bob"))) == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    assert reason_of(lambda: admin.MQCMD_INQUIRE_CHLAUTH_RECS(
        _runcheck(b"OTHER.SVRCONN", address=b"10.1.2.3", clntuser=b"carol"))) \
        == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND
