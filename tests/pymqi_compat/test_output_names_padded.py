"""The character fields the queue manager fills in are the same over the three connection
kinds: inside the process (embedded), over the bindings socket, and as a client. A client
connection gets them unpacked from the reply's bytes, each at its MQ length, blank-padded
(as pymqi gives every field after a call); embedded and bindings connections give them so
too: the MQOD's ObjectName of a dynamic queue and its ResolvedQName and ResolvedQMgrName,
the MQPMO's and MQGMO's ResolvedQName, the MQMD's context a put fills (ReplyToQMgr,
UserIdentifier, PutApplName...), MQINQ's character attributes.

A differential test: the same calls on each kind, every output field compared with the
client connection's. And what the status of each kind's connection shows: its process
(ProcessId), which IBM gives for every kind and mqpy only for an application's connection
made in its own process (the others are expected failures naming what is missing)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC
from mqpy.bindings import BindingsConnection
from tests.client.conftest import CHANNEL, Env
from tests.pymqi_compat.conftest import QMGR, program_env
from tests.support.installation import QM, Installation, started

pytestmark = pytest.mark.timeout(120)

#: a connection to the queue manager of this process (embedded, and bindings, which finds it
#: running here), one over the bindings socket of a queue manager strmqm started, a client
MODES = ("embedded", "bindings", "socket", "client")
#: the MQMD fields a put fills in or leaves as the program gave them
MD_FIELDS = ("ReplyToQ", "ReplyToQMgr", "UserIdentifier", "AccountingToken",
             "ApplIdentityData", "PutApplType", "PutApplName", "PutDate", "PutTime",
             "ApplOriginData", "Format", "MsgId", "CorrelId", "GroupId")
#: the MQOD fields an MQOPEN fills in
OD_FIELDS = ("ObjectName", "ObjectQMgrName", "DynamicQName", "ResolvedQName",
             "ResolvedQMgrName")


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "padded")


@pytest.fixture(scope="module")
def daemon(tmp_path_factory) -> Iterator[Installation]:
    """A queue manager strmqm started, reached over its bindings socket."""
    inst = Installation(str(tmp_path_factory.mktemp("paddedsocket")))
    inst.create(queues=())
    yield from started(inst)


def _connect(env: Env | Installation, mode: str) -> pymqi.QueueManager:
    """A connection of ``mode`` to ``env``'s queue manager (named by its data path: the
    daemon's fixture points MQPY_DATA_PATH at its own)."""
    if mode == "embedded":
        return pymqi.embedded(QMGR, data_path=env.root, create=False)
    if mode == "client":
        return pymqi.connect(QMGR, CHANNEL, env.conn_info)
    qmgr = pymqi.QueueManager(None)
    qmgr.connect(QM if mode == "socket" else QMGR, data_path=env.root)
    assert isinstance(qmgr.connection(), BindingsConnection) == (mode == "socket")
    return qmgr


def _lengths(struct, names) -> dict[str, object]:
    """Each field's length (bytes) or value (numbers): what differs when padding does."""
    return {n: len(struct[n]) if isinstance(struct[n], bytes) else struct[n] for n in names}


def _outputs(env: Env | Installation, mode: str) -> dict[str, object]:
    """The output fields of a dynamic queue's open, a put to it with a blank ReplyToQMgr,
    a get, and inquiries of its and the queue manager's character attributes."""
    qmgr = _connect(env, mode)
    try:
        od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"PADDED.*")
        queue = pymqi.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_OUTPUT
                            | CMQC.MQOO_INQUIRE)
        md, pmo = pymqi.MD(ReplyToQ=b"REPLY"), pymqi.PMO()
        queue.put(b"x", md, pmo)
        got, gmo = pymqi.MD(), pymqi.GMO()
        queue.get(None, got, gmo)
        inquired = {s: len(queue.inquire(s)) for s in (
            CMQC.MQCA_Q_NAME, CMQC.MQCA_Q_DESC, CMQC.MQCA_BACKOUT_REQ_Q_NAME,
            CMQC.MQCA_CREATION_DATE, CMQC.MQCA_PROCESS_NAME)}
        inquired[CMQC.MQCA_Q_MGR_NAME] = len(qmgr.inquire(CMQC.MQCA_Q_MGR_NAME))
        queue.close(CMQC.MQCO_DELETE)
    finally:
        if mode != "embedded":
            qmgr.disconnect()
    return {"od": _lengths(od, OD_FIELDS), "put md": _lengths(md, MD_FIELDS),
            "pmo": _lengths(pmo, ("ResolvedQName", "ResolvedQMgrName")),
            "got md": _lengths(got, MD_FIELDS), "gmo": _lengths(gmo, ("ResolvedQName",)),
            "inquired": inquired}


@pytest.fixture(scope="module")
def client_outputs(env: Env) -> dict[str, object]:
    return _outputs(env, "client")


def test_the_client_gives_every_name_at_its_mq_length(client_outputs):
    """Given a client connection (the reference: fields unpacked from the reply), then the
    dynamic queue's name, the resolved names and the put's context have their IBM lengths
    (MQCHAR48 48, MQCHAR28 28, MQCHAR12 12)."""
    assert client_outputs["od"]["ObjectName"] == 48
    assert client_outputs["pmo"] == {"ResolvedQName": 48, "ResolvedQMgrName": 48}
    put = client_outputs["put md"]
    assert (put["ReplyToQMgr"], put["UserIdentifier"], put["PutApplName"]) == (48, 12, 28)


@pytest.mark.parametrize("mode", ["embedded", "bindings"])
def test_output_names_are_what_a_client_connection_gives(env, client_outputs, mode):
    """Given the same calls over an embedded or a bindings connection, then every output
    field has the length (and every number the value) the client connection's has."""
    assert _outputs(env, mode) == client_outputs


def test_over_the_bindings_socket_too(daemon, client_outputs):
    """Given the same calls over the bindings socket of a queue manager strmqm started,
    then every output field is as the client connection's."""
    assert _outputs(daemon, "socket") == client_outputs


def _pids(env: Env | Installation, mode: str) -> tuple[int, set[tuple[str, int, int]]]:
    """The Hconn of a connection of ``mode`` (bindings or client) from this process, and
    (channel, ThreadId, ProcessId) of each connection Inquire Connection shows meanwhile
    (a local connection's ThreadId is its Hconn)."""
    app = _connect(env, mode)
    admin = _connect(env, "socket" if mode == "socket" else "bindings")
    try:
        replies = pymqi.PCFExecute(admin, response_wait_interval=5000).MQCMD_INQUIRE_CONNECTION({
            CMQCFC.MQBACF_GENERIC_CONNECTION_ID: pymqi.ByteString(b""),
            CMQCFC.MQIACF_CONNECTION_ATTRS: [CMQCFC.MQCACH_CHANNEL_NAME,
                                             CMQCFC.MQIACF_THREAD_ID,
                                             CMQCFC.MQIACF_PROCESS_ID]})
        hconn = app.get_handle()
    finally:
        admin.disconnect()
        app.disconnect()
    return hconn, {(r[CMQCFC.MQCACH_CHANNEL_NAME].decode().strip(),
                    r[CMQCFC.MQIACF_THREAD_ID], r[CMQCFC.MQIACF_PROCESS_ID])
                   for r in replies if r.get(CMQCFC.MQIACF_CONN_INFO_TYPE)
                   == CMQCFC.MQIACF_CONN_INFO_CONN}


def test_a_bindings_connection_shows_the_applications_process(daemon):
    """Given an application of this process connected over the bindings socket, then
    Inquire Connection shows a connection without a channel whose ProcessId is this
    process's id (IBM: the connected application's process)."""
    hconn, rows = _pids(daemon, "socket")
    assert ("", hconn, os.getpid()) in rows


def test_a_client_connection_shows_its_channels_process(env):
    """Given a client connected through APP.SVRCONN, whose instance runs in this process
    (the test's channel initiator), then Inquire Connection shows the connection of that
    channel with ProcessId this process's id: as IBM shows a client connection's PID, the
    channel process's (amqrmppa), not the client's (whose pid its initial data carries)."""
    _, rows = _pids(env, "client")
    assert os.getpid() in {pid for channel, _, pid in rows if channel == CHANNEL}
