"""How a client sample finds its channel, IBM's client's rules beyond MQSERVER: a JSON
CCDT named by MQCCDTURL; a CCDT named by MQCHLLIB / MQCHLTAB, or by the CHANNELS stanza of
mqclient.ini (ChannelDefinitionDirectory, ChannelDefinitionFile); mqclient.ini's
ServerConnectionParms (MQSERVER's value in the file). The client library does the finding
(``mqpy.client.connect_from_environment``)."""

from __future__ import annotations

import json

from .conftest import CHANNEL, QM, sample


def _ccdt(site, directory) -> str:
    """A JSON CCDT with SAMP.SVRCONN's CLNTCONN for SAMPQM, in ``directory``."""
    path = directory / "ccdt.json"
    path.write_text(json.dumps({"channel": [{
        "name": CHANNEL, "type": "clientConnection",
        "clientConnection": {"connection": [{"host": "127.0.0.1", "port": site.port}],
                             "queueManager": QM}}]}))
    return str(path)


def _client_env(site, **extra: str) -> dict[str, str]:
    env = site.env(client=True, **extra)
    del env["MQSERVER"]
    return env


def _puts(site, env) -> list[str]:
    return sample(env, "amqsputc", "SAMP.PUT", QM, stdin="via the ccdt\n").stdout.splitlines()


_PUT = ["Sample AMQSPUT0 start", "target queue is SAMP.PUT", "Sample AMQSPUT0 end"]


def test_given_mqccdturl_when_amqsputc_connects_then_the_ccdt_gives_the_channel(site,
                                                                                 tmp_path):
    assert _puts(site, _client_env(site, MQCCDTURL=_ccdt(site, tmp_path))) == _PUT


def test_given_mqchllib_and_mqchltab_when_amqsputc_connects_then_that_ccdt_is_used(
        site, tmp_path):
    _ccdt(site, tmp_path)
    env = _client_env(site, MQCHLLIB=str(tmp_path), MQCHLTAB="ccdt.json")
    assert _puts(site, env) == _PUT


def test_given_mqclient_ini_naming_a_ccdt_when_amqsputc_connects_then_it_is_used(
        site, tmp_path):
    _ccdt(site, tmp_path)
    ini = tmp_path / "mqclient.ini"
    ini.write_text(f"CHANNELS:\n   ChannelDefinitionDirectory={tmp_path}\n"
                   "   ChannelDefinitionFile=ccdt.json\n")
    assert _puts(site, _client_env(site, MQCLNTCF=str(ini))) == _PUT


def test_given_mqclient_ini_server_connection_parms_when_amqsputc_connects_then_it_is_used(
        site, tmp_path):
    ini = tmp_path / "mqclient.ini"
    ini.write_text(f"CHANNELS:\n   ServerConnectionParms={site.mqserver}\n")
    assert _puts(site, _client_env(site, MQCLNTCF=str(ini))) == _PUT
