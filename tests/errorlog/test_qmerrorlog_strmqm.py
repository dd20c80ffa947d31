"""The QMErrorLog stanza with a real queue manager: strmqm checks it as it checks qm.ini's
other stanzas, and the running queue manager's error log obeys it."""

from __future__ import annotations

import os

from mqpy import config
from tests.daemon.conftest import install  # noqa: F401 (the daemon suite's fixture)
from tests.support.installation import QM


def _set_qmerrorlog(ini: str, values: dict[str, str]) -> None:
    stanzas = [(n, v) for n, v in config.read_stanzas(ini) if n != "QMErrorLog"]
    config.write_stanzas(ini, [*stanzas, ("QMErrorLog", values)])


def test_strmqm_refuses_a_bad_qmerrorlog_value_then_applies_the_corrected_stanza(install):  # noqa: F811
    """Given QM1 whose qm.ini says QMErrorLog SuppressInterval=0, when strmqm runs, then it
    fails with AMQ8940E naming the stanza, key and value (console and error log) and nothing
    runs; given the value corrected and ExcludeMessage=8003, when strmqm runs, then QM1
    starts and its error log has no AMQ8003I (queue manager started)."""
    install.create(queues=())
    ini = os.path.join(install.qmdir(), "qm.ini")
    _set_qmerrorlog(ini, {"ExcludeMessage": "8003", "SuppressInterval": "0"})
    failed = install.run("strmqm", QM)
    assert failed.returncode == 39, failed.stdout + failed.stderr
    assert "QMErrorLog: SuppressInterval=0 is not a number from 1 to 86400" in failed.stderr
    assert "Traceback" not in failed.stderr
    log_path = os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")
    assert "QMErrorLog: SuppressInterval=0" in open(log_path).read()

    _set_qmerrorlog(ini, {"ExcludeMessage": "8003", "SuppressInterval": "30"})
    started = install.run("strmqm", QM)
    assert started.returncode == 0, started.stdout + started.stderr
    assert install.run("endmqm", "-i", QM).returncode == 0
    log = open(log_path).read()
    assert "AMQ8940E" in log and "AMQ8003" not in log
