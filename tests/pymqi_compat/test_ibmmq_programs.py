"""The example programs of IBM's ``ibmmq`` package (its code/examples directory) that put,
get, browse and inquire, each written as an ibmmq user writes it, with ``import mqpy as
mq`` for ``import ibmmq as mq`` as the only change, run over bindings and over a client
connection to QM1 (tests/pymqi_compat/_ibmmq_programs.py). A program's constants are its
own but for where it connects (the test's port; channel and conn_info None over bindings);
print stays print, and the test reads what it printed and what the queues hold.

what ibmmq users rely on: "a pymqi or ibmmq program runs with only its import changed".
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime

import pytest

import mqpy as mq
from mqpy import CMQC, CMQSTRC
from tests.client.conftest import Env
from tests.pymqi_compat._ibmmq_programs import MODES, QMGR, QUEUE_1, Where, module_env, where_in

pytestmark = pytest.mark.timeout(120)

user = "app"
password = "password"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from module_env(tmp_path_factory, "ibmmq-programs")


@pytest.fixture(params=MODES)
def where(request, env) -> Iterator[Where]:
    yield from where_in(env, request.param)


def test_put_message_then_get_message(where, capsys):
    """Given put_message.py and get_message.py, when the first puts its str and the second
    gets with a default get, then the second has the str's bytes."""
    queue_manager, queue_name = QMGR, QUEUE_1
    channel, conn_info = where.channel(), where.conn_info
    message = "Hello from Python!"

    qmgr = mq.connect(queue_manager, channel, conn_info, user, password)
    queue = mq.Queue(qmgr, queue_name)
    queue.put(message)
    queue.close()
    qmgr.disconnect()

    qmgr = mq.connect(queue_manager, channel, conn_info, user, password)
    queue = mq.Queue(qmgr, queue_name)
    message = queue.get()
    print("Here is the message:", message)
    queue.close()
    qmgr.disconnect()
    assert capsys.readouterr().out == "Here is the message: b'Hello from Python!'\n"


def test_put1_message_and_message_priority(where):
    """Given put1_message.py (qmgr.put1 of a queue name and a str) and
    message_priority.py (an MD's random Priority on put, read back from the get's MD),
    then the put1's message is on the queue, and the priority comes back as put."""
    channel, conn_info = where.channel(), where.conn_info
    qmgr = mq.connect(QMGR, channel, conn_info, user, password)
    qmgr.put1(QUEUE_1, "Hello from Python!")
    qmgr.disconnect()

    priority = random.randint(0, 9)
    put_md = mq.MD()
    put_md.Priority = priority
    qmgr = mq.connect(QMGR, channel, conn_info, user, password)
    put_queue = mq.Queue(qmgr, QUEUE_1)
    put_queue.put("Hello from Python!", put_md)
    get_md = mq.MD()
    get_queue = mq.Queue(qmgr, QUEUE_1)
    bodies = [get_queue.get(None, get_md)]
    got_priority = get_md.Priority
    bodies.append(get_queue.get())
    put_queue.close()
    get_queue.close()
    qmgr.disconnect()
    assert bodies == [b"Hello from Python!"] * 2
    assert got_priority == priority or priority == 0


def test_channel_compression_puts_a_large_message(where):
    """Given channel_compression.py, when the program sets ``cd.MsgCompList[0]`` of an MQCD
    it does not pass on, connects and puts a 180000-byte str, then the message is on the
    queue whole."""
    message = "Hello from Python!" * 10000
    cd = mq.CD()
    cd.MsgCompList[0] = mq.CMQXC.MQCOMPRESS_ZLIBHIGH
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    queue = mq.Queue(qmgr, QUEUE_1)
    queue.put(message)
    queue.close()
    assert mq.Queue(qmgr, QUEUE_1).get() == message.encode()
    qmgr.disconnect()


def test_get_wait_multiple_messages_until_none_is_left(where, capsys):
    """Given get_wait_multiple_messages.py, when three messages are on the queue and the
    program gets in a loop with MQGMO_WAIT (resetting MsgId, CorrelId and GroupId), then it
    reads the three and ends at MQRC_NO_MSG_AVAILABLE once the wait interval passes."""
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    for n in range(3):
        qmgr.put1(QUEUE_1, f"message {n}")
    md = mq.MD()
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.MatchOptions = mq.CMQC.MQMO_NONE
    gmo.WaitInterval = 1 * 1000
    queue = mq.Queue(qmgr, QUEUE_1)
    keep_running = True
    while keep_running:
        try:
            message = queue.get(None, md, gmo)
            print("Received message:", message)
            md.MsgId = mq.CMQC.MQMI_NONE
            md.CorrelId = mq.CMQC.MQCI_NONE
            md.GroupId = mq.CMQC.MQGI_NONE
        except mq.MQMIError as e:
            if e.comp == mq.CMQC.MQCC_FAILED and e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE:
                print("No more messages.")
                keep_running = False
            else:
                raise
    queue.close()
    qmgr.disconnect()
    assert capsys.readouterr().out.splitlines() == [
        "Received message: b'message 0'", "Received message: b'message 1'",
        "Received message: b'message 2'", "No more messages."]


def test_get_wait_truncated_message(where, capsys):
    """Given get_wait_truncated_message.py, when the program gets with a 2-byte buffer and
    MQGMO_ACCEPT_TRUNCATED_MSG, then MQMIError is MQCC_WARNING
    MQRC_TRUNCATED_MSG_ACCEPTED (2079) with ``original_length`` the message's length and
    ``message`` its first two bytes, and the message is gone from the queue."""
    md = mq.MD()
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.Options |= mq.CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
    gmo.WaitInterval = 5 * 1000
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    qmgr.put1(QUEUE_1, "Hello from Python!")
    queue = mq.Queue(qmgr, QUEUE_1)
    try:
        max_length = 2
        message = queue.get(max_length, md, gmo)
    except mq.MQMIError as e:
        if e.comp == mq.CMQC.MQCC_WARNING and e.reason == mq.CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
            print(f"Original length: {e.original_length}")
            message = e.message
        else:
            raise e
    print("Message: ", message)
    queue.close()
    depth = mq.Queue(qmgr, QUEUE_1, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    qmgr.disconnect()
    assert capsys.readouterr().out.splitlines() == ["Original length: 18", "Message:  b'He'"]
    assert depth == 0


def test_inq_set_on_the_queue_manager_and_a_queue(where, capsys):
    """Given inq_set.py, when the program inquires MQCA_VERSION alone and with
    MQIA_COMMAND_LEVEL in a list, names each selector through CMQSTRC's dicts, sets a
    queue's trigger data (a str) and depth in one MQSET and inquires five attributes, then
    each inquiry answers and the set values come back."""
    attr_dicts = {}
    for d in (CMQSTRC.MQIA_DICT, CMQSTRC.MQIACF_DICT, CMQSTRC.MQIACH_DICT,
              CMQSTRC.MQCA_DICT, CMQSTRC.MQCACF_DICT, CMQSTRC.MQCACH_DICT):
        attr_dicts.update(d)

    def dump_attrs(attributes):
        for k in attributes:
            try:
                k_desc = attr_dicts[k]
            except KeyError:
                k_desc = "Unknown"
            print(f"  {k} [{k_desc}] = {attributes[k]}")

    csp = mq.CSP()
    csp.CSPUserId = user
    csp.CSPPassword = password
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, csp=csp)
    version = qmgr.inquire(CMQC.MQCA_VERSION)
    attrs = qmgr.inquire([CMQC.MQCA_VERSION, CMQC.MQIA_COMMAND_LEVEL])
    dump_attrs(attrs)
    od = mq.OD()
    od.ObjectName = QUEUE_1
    q = mq.Queue(qmgr, od, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    now = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    depth = random.randint(1, 99)
    selectors = {CMQC.MQCA_TRIGGER_DATA: now, CMQC.MQIA_TRIGGER_DEPTH: depth}
    q.set(selectors)
    attrs = q.inquire([CMQC.MQCA_Q_DESC, CMQC.MQIA_TRIGGER_DEPTH,
                       CMQC.MQCA_BACKOUT_REQ_Q_NAME, CMQC.MQCA_TRIGGER_DATA,
                       CMQC.MQIA_CURRENT_Q_DEPTH])
    dump_attrs(attrs)
    q.close()
    qmgr.disconnect()
    out = capsys.readouterr().out.splitlines()
    assert version == attrs_version(out) and len(version) == CMQC.MQ_VERSION_LENGTH
    assert f"  {CMQC.MQIA_COMMAND_LEVEL} [MQIA_COMMAND_LEVEL] = {CMQC.MQCMDL_CURRENT_LEVEL}" \
        in out or any(line.startswith(f"  {CMQC.MQIA_COMMAND_LEVEL} [MQIA_COMMAND_LEVEL]")
                      for line in out)
    assert attrs[CMQC.MQIA_TRIGGER_DEPTH] == depth
    assert attrs[CMQC.MQCA_TRIGGER_DATA].rstrip() == now.encode()
    assert attrs[CMQC.MQIA_CURRENT_Q_DEPTH] == 0
    assert len(attrs[CMQC.MQCA_Q_DESC]) == CMQC.MQ_Q_DESC_LENGTH


def attrs_version(out: list[str]) -> bytes:
    line = next(line for line in out if "[MQCA_VERSION]" in line)
    return eval(line.split(" = ", 1)[1])  # noqa: S307 - the repr of bytes the program printed


def test_set_identity_context_and_alternate_user_id(where):
    """Given set_identity.py (an MD's ApplIdentityData put with MQOO_ / MQPMO_
    SET_IDENTITY_CONTEXT) and alternate_user_id.py (an OD's AlternateUserId opened with
    MQOO_ALTERNATE_USER_AUTHORITY), on a queue manager whose security is off, then both
    put, the first with its ApplIdentityData on the message."""
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info)
    od = mq.OD()
    od.ObjectName = QUEUE_1
    queue = mq.Queue(qmgr)
    queue.open(od, mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_SET_IDENTITY_CONTEXT)
    md = mq.MD()
    md.ApplIdentityData = "MyApplId"
    pmo = mq.PMO()
    pmo.Options = mq.CMQC.MQPMO_SET_IDENTITY_CONTEXT
    queue.put("Hello from Python!", md, pmo)
    queue.close()
    qmgr.disconnect()

    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    od = mq.OD()
    od.ObjectName = QUEUE_1
    od.AlternateUserId = "altusr"
    queue = mq.Queue(qmgr)
    queue.open(od, mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
    queue.put("Hello from Python!")
    queue.close()

    got = mq.MD()
    reader = mq.Queue(qmgr, QUEUE_1)
    assert reader.get(None, got) == b"Hello from Python!"
    assert got.ApplIdentityData.rstrip() == b"MyApplId"
    assert reader.get() == b"Hello from Python!"
    reader.close()
    qmgr.disconnect()


def test_dynamic_queue_as_a_reply_destination(where):
    """Given dynamic_queues.py, when the program opens SYSTEM.DEFAULT.MODEL.QUEUE with
    DynamicQName 'MY.REPLIES.*' and MQOO_INPUT_EXCLUSIVE, then the OD's ObjectName is the
    new queue's name (MY.REPLIES. and a suffix), which the request's ReplyToQ carries;
    closing it deletes the temporary queue."""
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    dyn_od = mq.OD()
    dyn_od.ObjectName = "SYSTEM.DEFAULT.MODEL.QUEUE"
    dyn_od.DynamicQName = "MY.REPLIES.*"
    dyn_queue = mq.Queue(qmgr, dyn_od, mq.CMQC.MQOO_INPUT_EXCLUSIVE)
    dyn_queue_name = dyn_od.ObjectName.strip()
    md = mq.MD()
    md.ReplyToQ = dyn_queue_name
    queue = mq.Queue(qmgr, QUEUE_1)
    queue.put("Please reply to a dynamic queue, thanks.", md)
    dyn_queue.close()
    queue.close()

    got = mq.MD()
    mq.Queue(qmgr, QUEUE_1).get(None, got)
    assert dyn_queue_name.startswith(b"MY.REPLIES.") and len(dyn_queue_name) > 11
    assert got.ReplyToQ.rstrip() == dyn_queue_name
    with pytest.raises(mq.MQMIError) as err:
        mq.Queue(qmgr, dyn_queue_name.decode(), CMQC.MQOO_INQUIRE)
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    qmgr.disconnect()


def test_inq_set_with_a_selector_mqset_cannot_set_sets_none(where):
    """Given inq_set.py's MQSET of a dict, when the dict also names MQCA_Q_DESC (an
    attribute MQSET cannot set), then the call fails MQRC_SELECTOR_ERROR and, as IBM's
    MQSET sets a call's attributes all or none, the trigger depth beside it is unchanged."""
    qmgr = mq.connect(QMGR, where.channel(), where.conn_info, user, password)
    q = mq.Queue(qmgr, QUEUE_1, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    before = q.inquire(CMQC.MQIA_TRIGGER_DEPTH)
    with pytest.raises(mq.MQMIError) as err:
        q.set({CMQC.MQIA_TRIGGER_DEPTH: before + 1, CMQC.MQCA_Q_DESC: "not settable"})
    after = q.inquire(CMQC.MQIA_TRIGGER_DEPTH)
    q.close()
    qmgr.disconnect()
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_ERROR)
    assert after == before
