"""SET/DISPLAY CHLAUTH and SET/DELETE AUTHREC through runmqsc's processor."""

from __future__ import annotations

import mqpy
from mqpy import local
from mqpy.mqsc.processor import MQSCProcessor


def test_chlauth_and_authrec_commands(tmp_path):
    """Given a queue manager, when SET CHLAUTH records a BLOCKADDR and an ADDRESSMAP rule and
    DISPLAY CHLAUTH lists them, then IBM's messages come back; SET/DELETE AUTHREC likewise;
    BLOCKADDR on a profile other than '*' is refused."""
    mqpy.embedded("SECQM", data_path=str(tmp_path))
    proc = MQSCProcessor(local.running("SECQM", str(tmp_path)))
    try:
        ok = proc.execute_text("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.0.0.1')")
        assert ok.ok and ok.lines == ["AMQ8877I: IBM MQ channel authentication record set."]
        assert not proc.execute_text("SET CHLAUTH('APP.*') TYPE(BLOCKADDR) "
                                     "ADDRLIST('10.0.0.2')").ok
        shown = proc.execute_text("DISPLAY CHLAUTH(*)")
        assert shown.ok and "TYPE(BLOCKADDR)" in "\n".join(shown.lines)
        assert proc.execute_text("SET AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) PRINCIPAL('alice') "
                                 "AUTHADD(PUT)").lines == ["AMQ8862I: IBM MQ authority record set."]
        assert proc.execute_text("DELETE AUTHREC PROFILE(Q1) OBJTYPE(QUEUE) "
                                 "PRINCIPAL('alice')").ok
    finally:
        local.stop_all()


def test_refresh_security_answers_amq8560i(tmp_path):
    """Given a queue manager with no channel initiator, when REFRESH SECURITY is issued with
    each TYPE (and none), then IBM's AMQ8560I comes back: nothing holds a key repository,
    and authorities and CONNAUTH are read afresh at every check anyway; a TYPE mqpy does not
    know is a syntax error."""
    mqpy.embedded("SECQM", data_path=str(tmp_path))
    proc = MQSCProcessor(local.running("SECQM", str(tmp_path)))
    try:
        for text in ("REFRESH SECURITY", "REFRESH SECURITY(*) TYPE(AUTHSERV)",
                     "REFRESH SECURITY TYPE(CONNAUTH)", "REFRESH SECURITY TYPE(SSL)",
                     "REFRESH SECURITY TYPE(ALL)"):
            result = proc.execute_text(text)
            assert result.ok and result.lines == ["AMQ8560I: IBM MQ security cache refreshed."]
        assert not proc.execute_text("REFRESH SECURITY TYPE(BOGUS)").ok
    finally:
        local.stop_all()
