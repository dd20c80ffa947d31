"""Configuration events of MQI calls (CONFIGEV): an MQSET of a queue's attributes is Change
Object (two messages, before and after, one CorrelId, EventOrigin MQEVO_MQSET), an MQCLOSE
that deletes a permanent dynamic queue is Delete Object; a temporary dynamic queue raises
none. And CLEAR QLOCAL, a get operation for IBM's queue service interval rules.

One embedded queue manager for the file, its event queues added as strmqm adds them, the MQSC
layer's hook installed in its engine as the queue manager's start installs it."""

from __future__ import annotations

import getpass

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, cmdserver
from mqpy.engine import instrumentation
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.mqsc import adminevents
from mqpy.mqsc.processor import MQSCProcessor
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import PERFM_EVENTS, params, put, read_events

CONFIG_EVENTS = "SYSTEM.ADMIN.CONFIG.EVENT"
CHANGE, DELETE = CMQC.MQRC_CONFIG_CHANGE_OBJECT, CMQC.MQRC_CONFIG_DELETE_OBJECT


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    qmgr = EmbeddedQMgr("QMMQIEV", str(tmp_path_factory.mktemp("qmmqiev")))
    add_missing_objects(qmgr.eng)
    adminevents.install(MQSCProcessor(qmgr.eng))
    yield from ended_at_teardown(qmgr)


@pytest.fixture
def cfg(qmgr):
    """CONFIGEV(ENABLED) and the configuration event queue empty; DISABLED at the end."""
    qmgr.eng.alter_qmgr({"CONFIGEV": "ENABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)
    yield qmgr
    qmgr.eng.alter_qmgr({"CONFIGEV": "DISABLED", "PERFMEV": "DISABLED"})
    read_events(qmgr.qm, CONFIG_EVENTS)


def config_events(qmgr) -> list[tuple[mqpy.MD, int, dict]]:
    return [(md, m.header.Reason, dict(params(m)))
            for md, m in read_events(qmgr.qm, CONFIG_EVENTS)]


def test_mqset_is_a_change_object_pair_with_origin_mqset(cfg):
    """Given CONFIGEV(ENABLED) and a queue open for set, when MQSET inhibits puts and sets
    its trigger depth, then two Change Object events (before: puts allowed, depth 1; after:
    inhibited, depth 7) with one CorrelId, EventOrigin MQEVO_MQSET, the connection's user."""
    cfg.eng.define("QLOCAL", "CFG.SET", {}, replace=True)
    read_events(cfg.qm, CONFIG_EVENTS)
    q = mqpy.Queue(cfg.qm, "CFG.SET", CMQC.MQOO_SET)
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    q.close()
    (md1, r1, before), (md2, r2, after) = config_events(cfg)
    assert (r1, r2) == (CHANGE, CHANGE)
    assert md1.CorrelId == md2.CorrelId != CMQC.MQCI_NONE
    for event in (before, after):
        assert event[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_MQSET
        assert event[CMQCFC.MQCACF_EVENT_USER_ID] == getpass.getuser()[:12]
        assert event[CMQCFC.MQIACF_OBJECT_TYPE] == CMQC.MQOT_Q
        assert event[CMQC.MQCA_Q_NAME] == "CFG.SET"
    assert (before[CMQC.MQIA_INHIBIT_PUT], after[CMQC.MQIA_INHIBIT_PUT]) == (
        CMQC.MQQA_PUT_ALLOWED, CMQC.MQQA_PUT_INHIBITED)


def test_mqset_of_a_temporary_dynamic_queue_or_with_configev_disabled_is_no_event(cfg):
    """Given a temporary dynamic queue, when MQSET inhibits its gets, then no event; given
    CONFIGEV(DISABLED), when MQSET changes a predefined queue, then no event either."""
    od = mqpy.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"CFG.TEMP.*")
    q = mqpy.Queue(cfg.qm, od, CMQC.MQOO_SET | CMQC.MQOO_INPUT_EXCLUSIVE)
    q.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    q.close()
    assert config_events(cfg) == []
    cfg.eng.define("QLOCAL", "CFG.OFF", {}, replace=True)
    cfg.eng.alter_qmgr({"CONFIGEV": "DISABLED"})
    read_events(cfg.qm, CONFIG_EVENTS)
    q = mqpy.Queue(cfg.qm, "CFG.OFF", CMQC.MQOO_SET)
    q.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    q.close()
    assert config_events(cfg) == []


def test_mqclose_deleting_a_permanent_dynamic_queue_is_delete_object(cfg):
    """Given a permanent dynamic queue made from a PERMDYN model, when MQCLOSE with
    MQCO_DELETE deletes it, then one Delete Object event names it, its DefinitionType
    permanent dynamic, EventOrigin MQEVO_OTHER (an MQI call, none of IBM's command origins)."""
    cfg.eng.define("QMODEL", "CFG.PERM.MODEL", {"DEFTYPE": "PERMDYN"}, replace=True)
    od = mqpy.OD(ObjectName=b"CFG.PERM.MODEL", DynamicQName=b"CFG.PERM.*")
    q = mqpy.Queue(cfg.qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.rstrip(b" \0").decode()
    read_events(cfg.qm, CONFIG_EVENTS)  # (its creation by MQOPEN is not a command's)
    q.close(CMQC.MQCO_DELETE)
    assert cfg.eng.lookup("QLOCAL", name) is None
    (_, reason, event), = config_events(cfg)
    assert reason == DELETE
    assert event[CMQC.MQCA_Q_NAME] == name
    assert event[CMQC.MQIA_DEFINITION_TYPE] == CMQC.MQQDT_PERMANENT_DYNAMIC
    assert event[CMQCFC.MQIACF_EVENT_ORIGIN] == CMQCFC.MQEVO_OTHER
    assert event[CMQC.MQIA_CURRENT_Q_DEPTH] == 0


def test_clear_qlocal_is_a_get_for_the_service_interval(cfg, monkeypatch):
    """Given PERFMEV(ENABLED) and a queue QSVCIEV(HIGH) QSVCINT(1000), when its message waits
    1.5 s and CLEAR QLOCAL removes it, then Queue Service Interval High (QSVCIEV becomes OK);
    when the next is cleared 0.2 s after its put, then Queue Service Interval OK."""
    now = [1_000_000.0]
    monkeypatch.setattr(instrumentation, "_clock", lambda: now[0])
    eng = cfg.eng
    eng.alter_qmgr({"PERFMEV": "ENABLED"})
    eng.define("QLOCAL", "CFG.SVC", {"QSVCIEV": "HIGH", "QSVCINT": 1000}, replace=True)
    read_events(cfg.qm, PERFM_EVENTS)
    proc = MQSCProcessor(eng)
    put(cfg.qm, "CFG.SVC", 1)
    now[0] += 1.5
    assert proc.execute_text("CLEAR QLOCAL(CFG.SVC)").ok
    got = [(m.header.Reason, dict(params(m))) for _, m in read_events(cfg.qm, PERFM_EVENTS)]
    assert [(r, p[CMQC.MQCA_BASE_Q_NAME]) for r, p in got] == [
        (CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, "CFG.SVC")]
    assert eng.lookup("QLOCAL", "CFG.SVC").attributes["QSVCIEV"] == "OK"
    put(cfg.qm, "CFG.SVC", 1)
    now[0] += 0.2
    assert proc.execute_text("CLEAR QLOCAL(CFG.SVC)").ok
    got = [m.header.Reason for _, m in read_events(cfg.qm, PERFM_EVENTS)]
    assert got == [CMQC.MQRC_Q_SERVICE_INTERVAL_OK]


def test_the_command_server_start_gives_the_engine_its_mqi_configuration_events(qmgr):
    """Given a queue manager whose engine has no object_changed hook, when its command
    server starts (strmqm starts it), then the hook is installed: MQSET and MQCLOSE are
    configuration events in a running queue manager, not only where a test installs it."""
    eng = qmgr.eng
    hook, eng.object_changed = eng.object_changed, None
    try:
        cmdserver.start_command_server(qmgr.name, qmgr.root)
        assert eng.object_changed is not None
    finally:
        cmdserver.stop_command_server(qmgr.name, qmgr.root)
        eng.object_changed = hook
