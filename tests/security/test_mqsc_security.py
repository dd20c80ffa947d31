"""SET/DISPLAY CHLAUTH and SET/DELETE AUTHREC through runmqsc's processor."""

from __future__ import annotations

import mqpy
from mqpy import inprocess
from mqpy.mqsc.processor import MQSCProcessor


def test_chlauth_and_authrec_commands(tmp_path):
    """Given a queue manager, when SET CHLAUTH records a BLOCKADDR and an ADDRESSMAP rule and
    DISPLAY CHLAUTH lists them, then IBM's messages come back; SET/DELETE AUTHREC likewise;
    BLOCKADDR on a profile other than '*' is refused."""
    mqpy.embedded("SECQM", data_path=str(tmp_path))
    proc = MQSCProcessor(inprocess.running("SECQM", str(tmp_path)))
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
        inprocess.stop_all()


def test_display_authrec_with_nothing_to_show_names_what_was_asked(tmp_path):
    """Given a queue manager with no authority records of its own, when DISPLAY AUTHREC asks
    for a profile, or for every record, then the command fails with AMQ8147E naming that
    profile, or '*' when none was named (not an empty name)."""
    mqpy.embedded("SECQM", data_path=str(tmp_path))
    proc = MQSCProcessor(inprocess.running("SECQM", str(tmp_path)))
    try:
        named = proc.execute_text("DISPLAY AUTHREC PROFILE(NO.SUCH.Q) OBJTYPE(QUEUE)")
        assert not named.ok
        assert named.lines == ["AMQ8147E: IBM MQ object NO.SUCH.Q not found."]
        everything = proc.execute_text("DISPLAY AUTHREC PRINCIPAL('nobody')")
        assert not everything.ok
        assert everything.lines == ["AMQ8147E: IBM MQ object * not found."]
    finally:
        inprocess.stop_all()


def test_refresh_security_answers_amq8560i(tmp_path):
    """Given a queue manager with no channel initiator, when REFRESH SECURITY is issued with
    each TYPE (and none), then IBM's AMQ8560I comes back: nothing holds a key repository,
    and authorities and CONNAUTH are read afresh at every check anyway; a TYPE mqpy does not
    know is a syntax error."""
    mqpy.embedded("SECQM", data_path=str(tmp_path))
    proc = MQSCProcessor(inprocess.running("SECQM", str(tmp_path)))
    try:
        for text in ("REFRESH SECURITY", "REFRESH SECURITY(*) TYPE(AUTHSERV)",
                     "REFRESH SECURITY TYPE(CONNAUTH)", "REFRESH SECURITY TYPE(SSL)",
                     "REFRESH SECURITY TYPE(ALL)"):
            result = proc.execute_text(text)
            assert result.ok and result.lines == ["AMQ8560I: IBM MQ security cache refreshed."]
        assert not proc.execute_text("REFRESH SECURITY TYPE(BOGUS)").ok
    finally:
        inprocess.stop_all()
