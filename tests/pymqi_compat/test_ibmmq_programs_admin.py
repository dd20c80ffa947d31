"""IBM ``ibmmq``'s PCF example programs (def_channel.py, def_queue.py, dis_channels.py,
dis_queues.py, dis_queues_extended.py, dis_conns.py, set_auth_rec.py), with ``import mqpy
as mq`` as the only change, against QM1's command server over bindings and over a client
connection through DEV.ADMIN.SVRCONN (tests/pymqi_compat/_ibmmq_programs.py). QM1's
security is off, so the examples' admin credentials connect as any would.

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import mqpy as mq
from tests.client.conftest import Env
from tests.pymqi_compat._ibmmq_programs import (
    ADMIN_CHANNEL,
    MODES,
    QMGR,
    QUEUE_1,
    Where,
    module_env,
    where_in,
)

pytestmark = pytest.mark.timeout(120)

user = "admin"
password = "password"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from module_env(tmp_path_factory, "ibmmq-admin")


@pytest.fixture(params=MODES)
def where(request, env) -> Iterator[Where]:
    yield from where_in(env, request.param)


def _admin_csp() -> mq.CSP:
    csp = mq.CSP()
    csp.CSPUserId = "admin"
    csp.CSPPassword = "password"
    return csp


def test_def_channel_with_a_dict_and_def_queue_with_a_list(where):
    """Given def_channel.py (MQCMD_CREATE_CHANNEL of a dict: name, MQCHT_SVRCONN,
    MQIACF_REPLACE MQRP_YES) and def_queue.py (MQCMD_CREATE_Q of a list of CFST and CFIN:
    name, MQQT_LOCAL, a random MAXDEPTH, REPLACE), each run twice, then the channel and the
    queue are defined, the queue with the second run's MAXDEPTH."""
    for _ in range(2):
        args = {
            mq.CMQCFC.MQCACH_CHANNEL_NAME: "MYCHANNEL.1",
            mq.CMQCFC.MQIACH_CHANNEL_TYPE: mq.CMQXC.MQCHT_SVRCONN,
            mq.CMQCFC.MQIACF_REPLACE: mq.CMQCFC.MQRP_YES,
        }
        qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, user, password)
        pcf = mq.PCFExecute(qmgr)
        pcf.MQCMD_CREATE_CHANNEL(args)
        qmgr.disconnect()

        max_depth = random.randint(100, 1000) * 100
        args = []
        args.append(mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String="MYQUEUE.1"))
        args.append(mq.CFIN(Parameter=mq.CMQC.MQIA_Q_TYPE, Value=mq.CMQC.MQQT_LOCAL))
        args.append(mq.CFIN(Parameter=mq.CMQC.MQIA_MAX_Q_DEPTH, Value=max_depth))
        args.append(mq.CFIN(Parameter=mq.CMQCFC.MQIACF_REPLACE, Value=mq.CMQCFC.MQRP_YES))
        qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, user, password)
        pcf = mq.PCFExecute(qmgr)
        pcf.MQCMD_CREATE_Q(args)
        qmgr.disconnect()

    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info)
    queue = mq.Queue(qmgr, "MYQUEUE.1", mq.CMQC.MQOO_INQUIRE)
    assert queue.inquire(mq.CMQC.MQIA_MAX_Q_DEPTH) == max_depth
    queue.close()
    channels = mq.PCFExecute(qmgr).MQCMD_INQUIRE_CHANNEL(
        {mq.CMQCFC.MQCACH_CHANNEL_NAME: "MYCHANNEL.1"})
    qmgr.disconnect()
    assert [c[mq.CMQCFC.MQIACH_CHANNEL_TYPE] for c in channels] == [mq.CMQXC.MQCHT_SVRCONN]


def test_dis_channels_by_prefix(where, capsys):
    """Given dis_channels.py, when the program inquires channels named 'SYSTEM.*' with a
    dict, then it logs each channel's name, the default SYSTEM.DEF ones among them. Its
    "no channels matched" branch catches MQRC_UNKNOWN_OBJECT_NAME, which IBM's command
    server answers for queues; for a channel prefix nothing matches it answers MQCC_FAILED
    MQRCCF_CHANNEL_NOT_FOUND (4032), as mqpy does, and the program's ``raise`` lets that
    go: the test follows IBM's documented answer."""
    prefix = "SYSTEM.*"
    args = {mq.CMQCFC.MQCACH_CHANNEL_NAME: prefix}
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, user, password)
    pcf = mq.PCFExecute(qmgr)
    try:
        response = pcf.MQCMD_INQUIRE_CHANNEL(args)
    except mq.MQMIError as e:
        if e.comp == mq.CMQC.MQCC_FAILED and e.reason == mq.CMQC.MQRC_UNKNOWN_OBJECT_NAME:
            print(f"No channels matched prefix `{prefix}`")
        else:
            raise
    else:
        for channel_info in response:
            channel_name = channel_info[mq.CMQCFC.MQCACH_CHANNEL_NAME]
            print(f"Found channel `{mq.to_string(channel_name)}`")
    with pytest.raises(mq.MQMIError) as err:
        pcf.MQCMD_INQUIRE_CHANNEL({mq.CMQCFC.MQCACH_CHANNEL_NAME: "NOTHING.LIKE.THIS.*"})
    qmgr.disconnect()
    out = capsys.readouterr().out.splitlines()
    assert "Found channel `SYSTEM.DEF.SVRCONN`" in out
    assert all(line.startswith("Found channel `SYSTEM.") for line in out)
    assert (err.value.comp, err.value.reason) == (mq.CMQC.MQCC_FAILED,
                                                  mq.CMQCFC.MQRCCF_CHANNEL_NOT_FOUND)


@pytest.mark.parametrize("extended", [False, True], ids=["dis_queues", "extended"])
def test_dis_queues_and_their_status(where, capsys, extended):
    """Given dis_queues.py and dis_queues_extended.py, when the program inquires local
    queues named 'SYSTEM.*' (a list of CFST and CFIN; the extended one with a
    ``responses`` list of (parameters, MQCFH)), then their status with a CFIL of
    MQIACF_ALL, then it finds the SYSTEM queues, and each status answers its depth and
    its last put date and time (blank when none was put)."""
    prefix = "SYSTEM.*"
    name_attrs = []
    name_attrs.append(mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=prefix))
    name_attrs.append(mq.CFIN(Parameter=mq.CMQC.MQIA_Q_TYPE, Value=mq.CMQC.MQQT_LOCAL))
    status_attrs = []
    status_attrs.append(mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=prefix))
    status_attrs.append(mq.CFIL(Parameter=mq.CMQCFC.MQIACF_Q_STATUS_ATTRS,
                                Values=[mq.CMQCFC.MQIACF_ALL]))
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, csp=_admin_csp())
    pcf = mq.PCFExecute(qmgr, response_wait_interval=15000)

    if extended:
        response = []
        pcf.MQCMD_INQUIRE_Q(name_attrs, responses=response)
        for queue_info in response:
            queue_name = queue_info[0][mq.CMQC.MQCA_Q_NAME]
            errcode = queue_info[1].Reason
            err_string = (f"Error: {errcode} [{mq.CMQSTRC.MQRC_DICT[errcode]}]"
                          if errcode != mq.CMQC.MQRC_NONE else "")
            print(f'Found queue "{mq.to_string(queue_name)}" {err_string}')
        response = []
        pcf.MQCMD_INQUIRE_Q_STATUS(status_attrs, responses=response)
        statuses = [resp[0] for resp in response]
    else:
        for queue_info in pcf.MQCMD_INQUIRE_Q(name_attrs):
            print(f'Found queue "{mq.to_string(queue_info[mq.CMQC.MQCA_Q_NAME])}" ')
        statuses = pcf.MQCMD_INQUIRE_Q_STATUS(status_attrs)
    for queue_info in statuses:
        try:
            queue_name = queue_info[mq.CMQC.MQCA_Q_NAME]
            depth = queue_info[mq.CMQC.MQIA_CURRENT_Q_DEPTH]
            lputtime = mq.to_string(queue_info[mq.CMQCFC.MQCACF_LAST_PUT_TIME])
            lputdate = mq.to_string(queue_info[mq.CMQCFC.MQCACF_LAST_PUT_DATE])
            lput = lputdate + ":" + lputtime if lputdate != "" else "N/A"
            print(f"Found queue {mq.to_string(queue_name)} depth: {depth} lastPut: {lput}")
        except KeyError as e:
            print("Failure to decode msg because ", e)
    qmgr.disconnect()
    out = capsys.readouterr().out.splitlines()
    assert 'Found queue "SYSTEM.DEAD.LETTER.QUEUE" ' in out
    assert "Found queue SYSTEM.DEAD.LETTER.QUEUE depth: 0 lastPut: N/A" in out
    assert not [line for line in out if line.startswith("Failure")]


def test_dis_conns_finds_the_program_itself(where, capsys):
    """Given dis_conns.py, when the program inquires connections with a generic
    connection id of ``ByteString('')``, then each response has an application tag, the
    program's own connection among them, and a connection tag."""
    args_name = {mq.CMQCFC.MQBACF_GENERIC_CONNECTION_ID: mq.ByteString("")}
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, csp=_admin_csp())
    pcf = mq.PCFExecute(qmgr, response_wait_interval=15000)
    tags = []
    response = pcf.MQCMD_INQUIRE_CONNECTION(args_name)
    for conn_info in response:
        appl_tag = conn_info[mq.CMQCFC.MQCACF_APPL_TAG]
        s_appl_tag = mq.to_string(appl_tag)
        print(f'Found application "{s_appl_tag}"')
        tags.append((s_appl_tag, conn_info[mq.CMQCFC.MQBACF_CONN_TAG]))
    qmgr.disconnect()
    assert tags and all(len(tag) == mq.CMQC.MQ_CONN_TAG_LENGTH and tag.startswith(b"MQCT")
                        for _, tag in tags)
    assert len({tag for _, tag in tags}) == len(tags)


def test_set_auth_rec_for_a_principal(where):
    """Given set_auth_rec.py, when the program sets +browse +inq on DEV.QUEUE.1 for the
    principal 'app' (a list of MQAUTH values and a list of bytes names), then the command
    succeeds, and the authority record is there to inquire."""
    qmgr = mq.connect(QMGR, where.channel(ADMIN_CHANNEL), where.conn_info, user, password)
    pcf = mq.PCFExecute(qmgr)
    authorities = [mq.CMQCFC.MQAUTH_BROWSE, mq.CMQCFC.MQAUTH_INQUIRE]
    args = {mq.CMQCFC.MQCACF_AUTH_PROFILE_NAME: QUEUE_1,
            mq.CMQCFC.MQIACF_OBJECT_TYPE: mq.CMQC.MQOT_Q,
            mq.CMQCFC.MQIACF_AUTH_ADD_AUTHS: authorities,
            mq.CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]}
    pcf.MQCMD_SET_AUTH_REC(args)
    records = pcf.MQCMD_INQUIRE_AUTH_RECS({
        mq.CMQCFC.MQIACF_AUTH_OPTIONS: mq.CMQCFC.MQAUTHOPT_NAME_EXPLICIT
        | mq.CMQCFC.MQAUTHOPT_ENTITY_EXPLICIT,
        mq.CMQCFC.MQCACF_AUTH_PROFILE_NAME: QUEUE_1,
        mq.CMQCFC.MQIACF_OBJECT_TYPE: mq.CMQC.MQOT_Q,
        mq.CMQCFC.MQCACF_ENTITY_NAME: "app",
        mq.CMQCFC.MQIACF_ENTITY_TYPE: mq.CMQZC.MQZAET_PRINCIPAL})
    qmgr.disconnect()
    auths = set(records[0][mq.CMQCFC.MQIACF_AUTHORIZATION_LIST])
    assert {mq.CMQCFC.MQAUTH_BROWSE, mq.CMQCFC.MQAUTH_INQUIRE} <= auths
