"""The code paths of pymqi itself (dsuch/pymqi, code/pymqi/__init__.py, 1.12) that the
programs checked in this directory call, each as pymqi's source does it and a program
relies on it, with ``import mqpy as pymqi``:

* ``Queue(qmgr, OD(ObjectName=model, DynamicQName='TEMP.*'), opts)``: the OD is unpacked
  after MQOPEN, so ``od.ObjectName`` is the dynamic queue's name (PCFExecute's own reply
  queue is made so: ``reply_queue_name``); ``close(MQCO_DELETE)`` deletes it.
* ``QueueManager.inquire(selector)``: bytes for an MQCA_*, an int for an MQIA_*.
* ``Queue.get_rfh2(max_length, md, gmo, rfh2_list)``: the MQRFH2 headers unpacked into the
  list while ``Format`` is MQFMT_RF_HEADER_2, the data after them returned.
* ``Subscription.sub(sub_desc=sd, sub_queue=<a Queue>)`` and ``Subscription(qmgr,
  sub_desc=sd)`` (subscribes at once).
* ``PCFExecute.unpack(message)`` -> (dict, MQCFH), an MQMIError for a response whose CFH
  has a CompCode; ``stringify_keys``; ``reply_queue_name``, ``response_wait_interval``,
  ``convert``, ``command_queue_name``.
* ``TM().unpack(msg)`` of a trigger message from an initiation queue, and the ``TMC2`` a
  trigger monitor builds from it (character ApplType), packed and unpacked.
* ``MQMIError(comp, reason, message=..., original_length=...)`` of a truncated get:
  pymqi passes the part of the message IBM moved into the buffer as ``message`` for
  MQRC_TRUNCATED_MSG_FAILED too ("as much of the message as possible is moved into
  Buffer ... whether or not MQGMO_ACCEPT_TRUNCATED_MSG is specified", IBM's MQGET).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC
from tests.client.conftest import CHANNEL, Env, drain
from tests.pymqi_compat.conftest import QMGR, QUEUE, program_env

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
TRIGGERED = "APP.TRIGGERED"
INITQ = "APP.INITQ"


def _define(env: Env) -> None:
    env.define("QLOCAL", INITQ)
    env.define("PROCESS", "APP.PROCESS", APPLICID="/usr/bin/app", USERDATA="user data",
               ENVRDATA="env data")
    env.define("QLOCAL", TRIGGERED, TRIGGER="YES", TRIGTYPE="FIRST", INITQ=INITQ,
               PROCESS="APP.PROCESS", TRIGDATA="trigger data")


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "pymqipaths", _define)


@pytest.fixture(params=MODES)
def qmgr(request, env: Env) -> Iterator[pymqi.QueueManager]:
    qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info) if request.param == "client" \
        else pymqi.connect(QMGR)
    try:
        yield qmgr
        drain(qmgr)
    finally:
        qmgr.disconnect()


def test_a_dynamic_queue_named_in_its_od_then_deleted(qmgr):
    """Given an OD of SYSTEM.DEFAULT.MODEL.QUEUE and DynamicQName TEMP.*, when the program
    opens it for input, then the OD's ObjectName is the new queue's name (TEMP. and a
    suffix), a put1 to that name arrives, and after ``close(MQCO_DELETE)`` the name is
    MQRC_UNKNOWN_OBJECT_NAME."""
    od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"TEMP.*")
    queue = pymqi.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName
    assert name.startswith(b"TEMP.") and name.strip() != b"TEMP."
    qmgr.put1(name.strip(), b"to the dynamic queue")
    assert queue.get() == b"to the dynamic queue"
    queue.close(CMQC.MQCO_DELETE)
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.Queue(qmgr, name.strip(), CMQC.MQOO_INQUIRE)
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_queue_manager_inquire(qmgr):
    """Given the program's ``qmgr.inquire``, then an MQCA_* is bytes padded to its length
    and an MQIA_* an int."""
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME) == QMGR.encode().ljust(48)
    assert qmgr.inquire(CMQC.MQIA_COMMAND_LEVEL) == CMQC.MQCMDL_CURRENT_LEVEL


def test_get_rfh2_fills_the_list_with_the_headers(qmgr):
    """Given a message put with ``put_rfh2`` and two MQRFH2 headers, when the program gets
    it with ``get_rfh2(None, md, gmo, headers)``, then ``headers`` has both (their folders
    and the second's Format MQSTR) and the data after them is returned."""
    first = pymqi.RFH2()
    first.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    first["Format"] = CMQC.MQFMT_RF_HEADER_2
    second = pymqi.RFH2()
    second.add_folder(b"<usr><colour>blue</colour></usr>")
    second["Format"] = CMQC.MQFMT_STRING
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put_rfh2(b"payload", pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2), pymqi.PMO(),
                   [first, second])
    headers: list = []
    md = pymqi.MD()
    assert queue.get_rfh2(None, md, pymqi.GMO(), headers) == b"payload"
    queue.close()
    assert md.Format == CMQC.MQFMT_RF_HEADER_2
    assert [h["Format"] for h in headers] == [CMQC.MQFMT_RF_HEADER_2, CMQC.MQFMT_STRING]
    assert headers[1]["usr"].rstrip() == b"<usr><colour>blue</colour></usr>"


def test_subscriptions_to_a_queue_object_and_from_the_constructor(qmgr):
    """Given an open queue passed as ``sub_queue`` (no MQSO_MANAGED), when the program
    subscribes, then ``get_sub_queue()`` is that Queue and a publication arrives on it;
    ``Subscription(qmgr, sub_desc=sd)`` with MQSO_MANAGED subscribes at once."""
    queue = pymqi.Queue(qmgr, "APP.REPLY", CMQC.MQOO_INPUT_AS_Q_DEF)
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", "paths/queue")
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sd, sub_queue=queue)
    assert sub.get_sub_queue() is queue
    pymqi.Topic(qmgr, topic_string="paths/queue").pub(b"published")
    assert queue.get() == b"published"
    sub.close()
    queue.close()
    managed = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    managed.set_vs("ObjectString", "paths/managed")
    at_once = pymqi.Subscription(qmgr, sub_desc=managed)
    assert at_once.get_sub_queue() is not None
    at_once.close(close_sub_queue=True)


def test_pcfexecute_properties_unpack_and_stringify_keys(qmgr):
    """Given ``PCFExecute(qmgr, response_wait_interval=3000, convert=True)``, then its reply
    queue name is the dynamic PYMQPCF.* queue's (bytes, no padding), and its other
    settings read back; ``stringify_keys`` names an inquiry's MQCA_/MQIA_ keys; a response
    whose CFH has CompCode 2 unpacks to pymqi's MQMIError with its reason."""
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=3000, convert=True)
    assert pcf.reply_queue_name.startswith(b"PYMQPCF.") and not pcf.reply_queue_name.endswith(b" ")
    assert (pcf.response_wait_interval, pcf.convert, pcf.command_queue_name) == (
        3000, True, b"SYSTEM.ADMIN.COMMAND.QUEUE")
    [queue] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: QUEUE})
    named = pymqi.PCFExecute.stringify_keys(queue)
    assert named["MQCA_Q_NAME"] == QUEUE.encode().ljust(48)
    assert named["MQIA_MAX_Q_DEPTH"] == 100000
    failed = pymqi.CFH(Type=CMQCFC.MQCFT_RESPONSE, Command=CMQCFC.MQCMD_INQUIRE_Q,
                       CompCode=CMQC.MQCC_FAILED, Reason=CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                       Control=CMQCFC.MQCFC_LAST, ParameterCount=0).pack()
    with pytest.raises(pymqi.MQMIError) as err:
        pymqi.PCFExecute.unpack(failed)
    assert (err.value.comp, err.value.reason) == (2, CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def test_a_trigger_message_unpacked_and_passed_on_as_a_tmc2(qmgr):
    """Given a queue triggered FIRST to an initiation queue, when a message arrives and the
    program gets the trigger message, then ``TM().unpack`` has the queue, process,
    trigger data, application id, user and environment data; the TMC2 the program builds
    from it (ApplType as 4 characters) packs to IBM's 732 bytes and unpacks to the same
    fields."""
    initq = pymqi.Queue(qmgr, INITQ, CMQC.MQOO_INPUT_SHARED)
    try:
        qmgr.put1(TRIGGERED, b"wake up")
        md = pymqi.MD()
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000)
        data = initq.get(None, md, gmo)
    finally:
        initq.close()
    assert md.Format == CMQC.MQFMT_TRIGGER
    tm = pymqi.TM()
    tm.unpack(data)
    assert tm.QName.rstrip() == TRIGGERED.encode()
    assert tm.ProcessName.rstrip() == b"APP.PROCESS"
    assert tm.TriggerData.rstrip() == b"trigger data"
    assert tm.ApplId.rstrip() == b"/usr/bin/app"
    assert (tm.UserData.rstrip(), tm.EnvData.rstrip()) == (b"user data", b"env data")
    tmc2 = pymqi.TMC2(QName=tm.QName, ProcessName=tm.ProcessName, TriggerData=tm.TriggerData,
                      ApplType=b"%4d" % tm.ApplType, ApplId=tm.ApplId, EnvData=tm.EnvData,
                      UserData=tm.UserData, QMgrName=QMGR.encode())
    packed = tmc2.pack()
    assert len(packed) == 732 and packed[:8] == b"TMC    2"
    again = pymqi.TMC2()
    again.unpack(packed)
    assert (again.QName, again.ApplType, again.QMgrName.rstrip()) == (
        tm.QName, b"%4d" % tm.ApplType, QMGR.encode())
    pymqi.Queue(qmgr, TRIGGERED).get()


def test_a_short_buffer_fails_with_the_part_that_fitted(qmgr):
    """Given a 10-byte message, when a program gets it with max_length 4 and no
    MQGMO_ACCEPT_TRUNCATED_MSG, then the MQMIError (MQCC_WARNING,
    MQRC_TRUNCATED_MSG_FAILED) has ``original_length`` 10 and ``message`` the first 4
    bytes, as pymqi's, and the message stays on the queue."""
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(b"0123456789")
    with pytest.raises(pymqi.MQMIError) as err:
        queue.get(4)
    queue.close()
    assert (err.value.comp, err.value.reason) == (1, CMQC.MQRC_TRUNCATED_MSG_FAILED)
    assert err.value.original_length == 10
    assert drain(qmgr) == [b"0123456789"]
    assert err.value.message == b"0123"


@pytest.mark.parametrize("mode", ["embedded", "bindings", "client"])
def test_output_text_fields_are_padded_as_pymqi_unpacks_them(env, mode):
    """Given a program that compares output fields with fixed-length values (as pymqi
    unpacks every structure after a call: MQCHAR48 fields 48 bytes, blank-padded), when
    it opens a dynamic queue, puts and gets, then OD.ObjectName, PMO.ResolvedQName and
    ResolvedQMgrName, MD.PutApplName and UserIdentifier and GMO.ResolvedQName have their
    IBM lengths (48, 48, 48, 28, 12, 48), whatever the connection."""
    if mode == "embedded":
        qmgr = pymqi.embedded(QMGR, data_path=env.root, create=False)
    elif mode == "bindings":
        qmgr = pymqi.connect(QMGR)
    else:
        qmgr = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    try:
        od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"TEMP.*")
        queue = pymqi.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_OUTPUT)
        md, pmo = pymqi.MD(), pymqi.PMO()
        queue.put(b"x", md, pmo)
        got_md, gmo = pymqi.MD(), pymqi.GMO()
        queue.get(None, got_md, gmo)
        queue.close(CMQC.MQCO_DELETE)
        lengths = [len(v) for v in (od.ObjectName, pmo.ResolvedQName, pmo.ResolvedQMgrName,
                                    got_md.PutApplName, got_md.UserIdentifier,
                                    gmo.ResolvedQName)]
    finally:
        if mode != "embedded":
            qmgr.disconnect()
    assert lengths == [48, 48, 48, 28, 12, 48]
