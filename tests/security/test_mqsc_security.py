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
