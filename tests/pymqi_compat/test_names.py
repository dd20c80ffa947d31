"""The module-level names and method names of pymqi 1.12 that a pymqi program may use, and
what they do: lower-case structure aliases, make_q_desc / common_q_args, ensure_bytes and
friends, get_length, camelCase method names, Queue.set_handle, connect's positional
disconnect_on_exit.

what pymqi users rely on: "pymqi compatibility": the names in pymqi's documentation and examples
exist with the same signatures and behaviour.
"""

from __future__ import annotations

import inspect

import pytest

import mqpy as pymqi
from mqpy import CMQC
from tests.client.conftest import CHANNEL
from tests.pymqi_compat.conftest import QMGR, QUEUE

#: pymqi 1.12's top-level names for queuing, MQI structures and PCF (those of publish/
#: subscribe and message properties: tests/pubsub, tests/message_properties)
PYMQI_NAMES = """
    CMQC CMQCFC CMQXC CMQZC Error MQMIError PYIFError QueueManager Queue PCFExecute connect
    MD OD PMO GMO CD SCO TM TMC2 XQH RFH2 md od pmo gmo cd sco
    CFH CFBF CFBS CFGR CFIF CFIL CFIL64 CFIN CFIN64 CFSF CFSL CFST
    Filter FilterOperator StringFilter IntegerFilter ByteString
    make_q_desc makeQDesc common_q_args commonQArgs ensure_bytes ensure_not_unicode
    is_unicode default __version__ MQOpts MQLONG_TYPE INTEGER64_TYPE py23long padded_count
""".split()


def test_every_pymqi_name_for_queuing_and_pcf_exists():
    """Given pymqi's list of names for queuing, structures and PCF, when a program looks
    them up on mqpy, then every one is there."""
    assert [name for name in PYMQI_NAMES if not hasattr(pymqi, name)] == []


@pytest.mark.parametrize(("function", "parameters"), [
    (pymqi.connect, ["queue_manager", "channel", "conn_info", "user", "password",
                     "disconnect_on_exit", "bytes_encoding", "default_ccsid"]),
    (pymqi.QueueManager, ["name", "disconnect_on_exit", "bytes_encoding", "default_ccsid"]),
    (pymqi.PCFExecute, ["name", "disconnect_on_exit", "model_queue_name",
                        "dynamic_queue_name", "command_queue_name", "response_wait_interval",
                        "convert"]),
    (pymqi.QueueManager.connect_tcp_client, ["self", "name", "cd", "channel", "conn_name",
                                             "user", "password"]),
    (pymqi.Queue.get_rfh2, ["self", "max_length", "opts"]),
    (pymqi.Queue.put_rfh2, ["self", "msg", "opts"]),
    (pymqi.Queue.set_handle, ["self", "queue_handle"]),
    (pymqi.RFH2.add_folder, ["self", "folder_data"]),
    (pymqi.RFH2.pack, ["self", "encoding"]),
    (pymqi.RFH2.unpack, ["self", "buff", "encoding"]),
    (pymqi.FilterOperator, ["selector", "operator_name"]),
    (pymqi.ByteString, ["value"]),
])
def test_signatures_start_with_pymqis_parameters(function, parameters):
    """Given a pymqi function or method, when its parameters are listed, then pymqi's come
    first, with pymqi's names, in pymqi's order (so keyword and positional calls work)."""
    names = list(inspect.signature(function).parameters)
    assert names[: len(parameters)] == parameters


def test_module_helpers_behave_as_pymqis():
    """Given pymqi's helpers, when a program uses them, then a name becomes an OD and an OD
    stays itself, missing put/get arguments become a fresh MD and None, str is encoded or
    refused as pymqi does, and the lower-case aliases are the structure classes."""
    od = pymqi.make_q_desc("APP.Q")
    assert isinstance(od, pymqi.OD) and od.ObjectName == b"APP.Q"
    assert pymqi.makeQDesc(od) is od
    md, options = pymqi.common_q_args()
    assert isinstance(md, pymqi.MD) and options is None
    gmo = pymqi.GMO()
    assert pymqi.commonQArgs(None, gmo)[1] is gmo
    with pytest.raises(TypeError):
        pymqi.common_q_args(pymqi.MD(), gmo, "extra")
    assert pymqi.ensure_bytes("abc") == b"abc" and pymqi.ensure_bytes(b"x") == b"x"
    assert pymqi.is_unicode("a") and not pymqi.is_unicode(b"a")
    with pytest.raises(TypeError):
        pymqi.ensure_not_unicode("text")
    pymqi.ensure_not_unicode(b"bytes")
    assert (pymqi.default.ccsid, pymqi.default.bytes_encoding) == (1208, "utf8")
    assert (pymqi.md, pymqi.od, pymqi.gmo, pymqi.pmo, pymqi.cd, pymqi.sco) == \
        (pymqi.MD, pymqi.OD, pymqi.GMO, pymqi.PMO, pymqi.CD, pymqi.SCO)


def test_get_length_is_what_pack_produces():
    """Given MQI structures, when get_length() is asked, then it is the length of pack()'s
    bytes for the structure's Version (MQMD v1 324, v2 364)."""
    assert pymqi.MD(Version=1).get_length() == 324 == len(pymqi.MD(Version=1).pack())
    assert pymqi.MD(Version=2).get_length() == 364
    assert pymqi.GMO().get_length() == len(pymqi.GMO().pack())


def test_camel_case_names_and_set_handle(env):
    """Given a client connection made with connectTCPClient and a Queue opened on it, when
    another Queue object adopts its handle with set_handle, then a put through the second
    object lands on the queue and getHandle answers the connection's handle."""
    qm = pymqi.QueueManager(None, False)
    qm.connectTCPClient(QMGR, pymqi.CD(), CHANNEL, env.conn_info, None, None)
    assert qm.getHandle() == qm.get_handle()
    opened = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    adopted = pymqi.Queue(qm)
    adopted.set_handle(opened.get_handle())
    adopted.put(b"through an adopted handle")
    assert env.depth() == 1
    opened.close()
    qm.disconnect()


def test_connect_takes_disconnect_on_exit_positionally(env):
    """Given pymqi.connect's positional form (queue manager, channel, conn_info, user,
    password, disconnect_on_exit), when a program calls it, then it is a client
    connection and the flag is kept."""
    qm = pymqi.connect(QMGR, CHANNEL, env.conn_info, None, None, False)
    assert qm.is_connected and qm.disconnect_on_exit is False
    qm.put1(QUEUE, b"via connect")
    assert env.depth() == 1
    qm.disconnect()
