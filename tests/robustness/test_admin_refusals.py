"""Administrative commands an operator gets wrong get IBM's specific refusal, with an AMQ id,
through runmqsc against a queue manager started by strmqm (its channel initiator running), and
with the MQRCCF_* reason through PCF where the command server serves the command:

- SET AUTHREC for a principal or group the queue manager's user file does not know;
- PING CHANNEL of a channel that is not a sending one (SVRCONN, RCVR);
- SET CHLAUTH with an ADDRESS / ADDRLIST that is not an address pattern, or a range whose
  first number is not below its last.
"""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from tests.support.pcf import _ask
from tests.support.site import QUEUE, Site

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(str(tmp_path_factory.mktemp("refusals")))
    try:
        yield s.start()
    finally:
        s.stop()


def _answer(site: Site, command: str) -> str:
    return site.mqsc(command + "\n", ok=False)


@pytest.mark.parametrize("entity", ["PRINCIPAL('nosuchuser')", "GROUP('nosuchgroup')"])
def test_set_authrec_for_an_unknown_entity_is_refused(site, entity):
    """Given a principal (or group) nobody defined, when SET AUTHREC names it, then runmqsc
    answers AMQ7026E (a principal or group name was invalid), not AMQ8862I, and no record
    is kept for it."""
    out = _answer(site, f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) {entity} AUTHADD(PUT)")
    assert "AMQ7026E: A principal or group name was invalid." in out, out
    assert "AMQ8862I" not in out
    shown = _answer(site, f"DISPLAY AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE)")
    assert "nosuch" not in shown, shown


def test_set_authrec_for_a_known_principal_and_group_is_set(site):
    """Given alice (a user) and apps (bob's group) in the user file, then SET AUTHREC for
    each is AMQ8862I."""
    for entity in ("PRINCIPAL('alice')", "GROUP('apps')"):
        out = _answer(site, f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) {entity} "
                            "AUTHADD(BROWSE)")
        assert "AMQ8862I" in out, out


@pytest.mark.parametrize("chltype", ["SVRCONN", "RCVR"])
def test_ping_of_a_channel_that_does_not_send_is_amq9502(site, chltype):
    """Given a SVRCONN (or RCVR) channel, when the operator pings it, then runmqsc answers
    AMQ9502E "Type of channel not suitable for action requested." (not a bare
    "CONNAME is blank")."""
    site.mqsc_here(f"DEFINE CHANNEL(PING.{chltype}) CHLTYPE({chltype}) REPLACE\n")
    out = _answer(site, f"PING CHANNEL(PING.{chltype})")
    assert "AMQ9502E: Type of channel not suitable for action requested." in out, out
    assert "CONNAME is blank" not in out


def test_ping_of_a_server_without_a_conname_is_a_tcp_configuration_error(site):
    """Given a SVR channel with a blank CONNAME (it only answers requesters), when the
    operator pings it, then the channel initiator's answer carries an AMQ id (AMQ9203E, a
    configuration error for TCP/IP), also in the error log."""
    site.mqsc_here("DEFINE CHANNEL(PING.SVR) CHLTYPE(SVR) XMITQ(APP.Q) REPLACE\n")
    out = _answer(site, "PING CHANNEL(PING.SVR)")
    assert "AMQ9203E: A configuration error for TCP/IP occurred: CONNAME is blank." in out, out
    assert "AMQ9203E" in site._log_text()


@pytest.mark.parametrize("command, line", [
    ("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('1.2.3') ACTION(REPLACE)",
     "AMQ8897E: The IP address '1.2.3' is not valid."),
    ("SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('300.1.1.1') USERSRC(NOACCESS)",
     "AMQ8897E: The IP address '300.1.1.1' is not valid."),
    ("SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('host name') USERSRC(NOACCESS)",
     "AMQ8897E: The IP address 'host name' is not valid."),
    ("SET CHLAUTH('APP.*') TYPE(ADDRESSMAP) ADDRESS('9.9.9.5-1') USERSRC(NOACCESS)",
     "AMQ8898E: The IP address range '9.9.9.5-1' is not valid."),
])
def test_set_chlauth_with_a_bad_address_names_it(site, command, line):
    """Given an address that is no IP address or pattern (or a range whose first number is
    not below its last), then SET CHLAUTH answers the specific message naming it, not the
    generic AMQ8101S, and stores nothing."""
    out = _answer(site, command)
    assert line in out, out
    assert "AMQ8101S" not in out and "AMQ8877I" not in out


def test_removing_a_chlauth_record_that_does_not_exist_is_amq8884(site):
    """Given no ADDRESSMAP record for NO.SUCH.* at 10.9.9.9, when SET CHLAUTH ACTION(REMOVE)
    names it, then runmqsc answers AMQ8884E (channel authentication record not found), as
    DISPLAY CHLAUTH does, not AMQ8101S."""
    out = _answer(site, "SET CHLAUTH('NO.SUCH.*') TYPE(ADDRESSMAP) ADDRESS('10.9.9.9') "
                        "ACTION(REMOVE)")
    assert "AMQ8884E: Channel authentication record not found." in out, out
    assert "AMQ8101S" not in out


def test_pcf_ping_of_a_server_connection_channel_is_channel_type_error(server, engine):
    """Given a SVRCONN, when Ping Channel names it, then the response is
    MQRCCF_CHANNEL_TYPE_ERROR (3034), whether or not a channel initiator runs."""
    engine.define("CHANNEL", "PCF.PING.SVRCONN", {"CHLTYPE": "SVRCONN"}, replace=True)
    comp, reason = _ask(server, CMQCFC.MQCMD_PING_CHANNEL,
                        [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"PCF.PING.SVRCONN")])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR)
