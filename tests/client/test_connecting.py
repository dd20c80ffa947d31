"""Where a client connection goes: pymqi's calls, MQSERVER, a JSON CCDT, and IBM's reasons
when it cannot (client connections)."""

from __future__ import annotations

import json

import pytest

import mqpy
from mqpy import CMQC
from mqpy.client import ClientConnection
from mqpy.clientchannel import ChannelDefinition as C
from mqpy.clientchannel import load_ccdt, parse_mqserver, select_from_ccdt
from tests.client.conftest import CHANNEL, QMGR, QUEUE
from tests.support.ports import free_port


def _is_client(qm: mqpy.QueueManager) -> bool:
    return isinstance(qm.connection(), ClientConnection)


def test_pymqi_connect_and_connect_tcp_client(env):
    """Given a SVRCONN, when a program uses pymqi.connect(qm, channel, "host(port)") or
    QueueManager(None).connect_tcp_client(qm, CD(), channel, conn_info, user, password),
    then both are client connections to the queue manager and MQDISC commits."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    assert _is_client(qm) and qm.is_connected and qm.get_name() == QMGR
    mqpy.Queue(qm, QUEUE).put(b"a", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.disconnect()
    assert not qm.is_connected
    assert env.depth() == 1  # MQDISC committed the unit of work

    qm2 = mqpy.QueueManager(None)
    qm2.connect_tcp_client(QMGR, mqpy.CD(), CHANNEL.encode(), env.conn_info.encode(),
                           "app", "secret")
    assert _is_client(qm2)
    qm2.disconnect()


def test_connect_with_options_and_a_blank_or_wildcard_qmgr_name(env):
    """Given an MQCD, then MQCONNX connects through it; a blank name or '*QM1' is accepted
    and the reply names the queue manager actually reached."""
    cd = mqpy.CD(ChannelName=CHANNEL.encode(), ConnectionName=env.conn_info.encode())
    for name in ("", "*QM1", QMGR):
        qm = mqpy.QueueManager(None)
        qm.connect_with_options(name, cd=cd)
        assert _is_client(qm) and qm.get_name() == QMGR
        qm.disconnect()


def test_wrong_qmgr_name_is_2058(env):
    """Given a client naming another queue manager, then MQCONN fails 2058."""
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect("QM9", CHANNEL, env.conn_info)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_nobody_listening_is_2538(env):
    """Given a connection name where nothing listens, then MQCONN fails 2538."""
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({free_port()})")
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_HOST_NOT_AVAILABLE)


def test_connection_name_list_tries_the_next_address(env):
    """Given CONNAME 'dead(port),live(port)', then the client reaches the live one."""
    qm = mqpy.connect(QMGR, CHANNEL, f"127.0.0.1({free_port()}),{env.conn_info}")
    assert _is_client(qm)
    qm.disconnect()


def test_mqserver_when_the_queue_manager_is_not_local(env, monkeypatch):
    """Given MQSERVER=CHANNEL/TCP/host(port) and no local queue manager of that name, when
    a program does QueueManager('QM1'), then it is a client connection, as MQ's client."""
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{env.conn_info}")
    # the queue manager runs under another data path: MQCONN finds no local one
    qm = mqpy.QueueManager(QMGR)
    assert _is_client(qm)
    mqpy.Queue(qm, QUEUE).put(b"via MQSERVER")
    qm.disconnect()
    assert env.depth() == 1


def test_mq_connect_type_client_forces_a_client_connection(env, monkeypatch):
    """Given MQ_CONNECT_TYPE=CLIENT and MQSERVER, then even the local queue manager is
    reached as a client; without MQSERVER or a CCDT MQCONN fails 2058."""
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/tcp/{env.conn_info}")
    qm = mqpy.QueueManager(None)
    qm.connect(QMGR, data_path=env.root)
    assert _is_client(qm)
    qm.disconnect()
    monkeypatch.delenv("MQSERVER")
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.QueueManager(QMGR)
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR


@pytest.mark.parametrize("value", ["NOSLASHES", "CHL/LU62/host(1414)", "/TCP/host(1)",
                                   "CHL/TCP/host(port)"])
def test_malformed_mqserver_is_2539(value):
    """Given a malformed MQSERVER, then MQCONN fails MQRC_CHANNEL_CONFIG_ERROR (2539)."""
    with pytest.raises(mqpy.MQMIError) as err:
        parse_mqserver(value)
    assert err.value.reason == CMQC.MQRC_CHANNEL_CONFIG_ERROR


def test_mqserver_default_port_is_1414():
    """Given MQSERVER without a port, then the port is 1414."""
    assert parse_mqserver("CH/TCP/mqhost").connections == (("mqhost", 1414),)


def _ccdt(path, entries) -> str:
    doc = {"channel": [
        {"name": name, "type": "clientConnection",
         "clientConnection": {"connection": [{"host": "127.0.0.1", "port": port}],
                              "queueManager": qmgr},
         "connectionManagement": {"sharingConversations": 10, "heartbeatInterval": 300}}
        for name, port, qmgr in entries]}
    path.write_text(json.dumps(doc))
    return path.as_uri()


def test_json_ccdt_selects_by_queue_manager_and_skips_dead_entries(env, monkeypatch,
                                                                   tmp_path):
    """Given an MQ 9 JSON CCDT (MQCCDTURL) whose first eligible entry (alphabetically) has
    nobody listening, then MQCONN('QM1') connects through the next; an unknown queue-manager
    name finds no entry (2058)."""
    url = _ccdt(tmp_path / "ccdt.json", [("B.LIVE", env.chinit.port, QMGR),
                                         ("A.DEAD", free_port(), QMGR),
                                         ("C.OTHER", env.chinit.port, "QM2")])
    env.define("CHANNEL", "B.LIVE", CHLTYPE="SVRCONN")
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    monkeypatch.setenv("MQCCDTURL", url)
    qm = mqpy.QueueManager(QMGR)
    assert _is_client(qm) and qm.connection().channel == "B.LIVE"
    qm.disconnect()
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.QueueManager("QM3")
    assert err.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR


def test_ccdt_queue_manager_groups():
    """Given CCDT entries, then '*GRP' selects the group GRP and a blank name any entry,
    in channel-name order."""

    defs = [C("Z", (("h", 1),), "GRP"), C("A", (("h", 1),), "GRP"), C("M", (("h", 1),), "QX")]
    assert [d.channel for d in select_from_ccdt(defs, "*GRP")] == ["A", "Z"]
    assert [d.channel for d in select_from_ccdt(defs, "")] == ["A", "M", "Z"]
    assert select_from_ccdt(defs, "QY") == []


def test_unreadable_ccdt_is_2539(monkeypatch, tmp_path):
    """Given MQCCDTURL naming a file that is not a JSON CCDT, then MQCONN fails 2539."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    monkeypatch.setenv("MQCCDTURL", str(bad))
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.QueueManager(QMGR)
    assert err.value.reason == CMQC.MQRC_CHANNEL_CONFIG_ERROR


def test_ccdt_transmission_security_is_read(monkeypatch, tmp_path):
    """Given a JSON CCDT entry with transmissionSecurity (IBM's cipherSpecification and
    certificatePeerName), then its definition asks for TLS with that CipherSpec and peer
    name, and the key repository MQSSLKEYR names."""

    doc = {"channel": [{"name": "TLS.SVRCONN", "type": "clientConnection",
                        "clientConnection": {"connection": [{"host": "127.0.0.1",
                                                             "port": 1414}],
                                             "queueManager": QMGR},
                        "transmissionSecurity": {"cipherSpecification": "ANY_TLS12",
                                                 "certificatePeerName": "CN=QM1, O=mqpy"}}]}
    path = tmp_path / "ccdt.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setenv("MQSSLKEYR", str(tmp_path / "keys"))
    (d,) = load_ccdt(path.as_uri())
    assert (d.ssl_cipher_spec, d.ssl_peer_name, d.key_repository) == \
        ("ANY_TLS12", "CN=QM1, O=mqpy", str(tmp_path / "keys"))


def test_ccdt_tls_entry_never_connects_in_plaintext(env, monkeypatch, tmp_path):
    """Given a CCDT entry with transmissionSecurity for a queue manager whose channel is
    plain, and no usable key repository, when the application connects, then MQCONN fails
    with a TLS reason (2381 key repository / 2393 TLS initialisation) and no plaintext
    connection (no password in the clear) is made."""
    doc = {"channel": [{"name": CHANNEL, "type": "clientConnection",
                        "clientConnection": {"connection": [{"host": "127.0.0.1",
                                                             "port": env.chinit.port}],
                                             "queueManager": QMGR},
                        "transmissionSecurity": {"cipherSpecification": "ANY_TLS12"}}]}
    path = tmp_path / "ccdt.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    monkeypatch.setenv("MQCCDTURL", path.as_uri())
    monkeypatch.delenv("MQSSLKEYR", raising=False)
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.QueueManager(QMGR)
    assert err.value.reason in (CMQC.MQRC_KEY_REPOSITORY_ERROR,
                                CMQC.MQRC_SSL_INITIALIZATION_ERROR)
    assert env.chinit.svrconn_statuses() == []


def test_each_client_gets_the_hconn_of_its_own_queue_manager_connection(env):
    """Given two client connections, when they connect, then each MQCONN reply carries the
    Hconn of its own connection in the queue manager (not one shared placeholder)."""
    first, second = env.client(), env.client()
    try:
        hconns = {first.connection().hconn, second.connection().hconn}
        assert len(hconns) == 2 and hconns <= set(env.engine.connections)
    finally:
        first.disconnect()
        second.disconnect()
