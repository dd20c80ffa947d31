"""PCF Reset Queue Statistics (MQCMD_RESET_Q_STATS): each local queue's counts since the last
reset or since the queue manager started (HighQDepth, MsgEnqCount, MsgDeqCount,
TimeSinceReset), answered and started again, as IBM's command server on Multiplatforms."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.security.policy import set_authority
from tests.pcf_commands.conftest import reason_of
from tests.security.conftest import carol, secured  # noqa: F401 - fixtures
from tests.security.requester import q_name, reason

pytestmark = pytest.mark.timeout(60)

_COUNTS = (CMQC.MQIA_HIGH_Q_DEPTH, CMQC.MQIA_MSG_ENQ_COUNT, CMQC.MQIA_MSG_DEQ_COUNT)


def _counts(reply) -> tuple[int, int, int]:
    return tuple(reply[p] for p in _COUNTS)


@pytest.fixture
def perf_admin(admin):
    """The administrator's PCFExecute with the queue manager's PERFMEV ENABLED."""
    admin.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED})
    return admin


def test_reset_answers_the_counts_since_the_start_and_starts_them_again(perf_admin, env):
    """Given three messages put to APP.Q, one got and one browsed, when Reset Queue
    Statistics names APP.Q, then it answers QName, HighQDepth 3, MsgEnqCount 3, MsgDeqCount
    1 (the browse is no get) and a TimeSinceReset; a second reset answers 0 puts and 0 gets
    since the first, the peak being the two messages still there."""
    qm = env.bindings()
    queue = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
                       | CMQC.MQOO_BROWSE)
    for n in range(3):
        queue.put(b"m%d" % n)
    queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    queue.get()
    (first,) = perf_admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.Q"})
    assert first[CMQC.MQCA_Q_NAME].strip() == b"APP.Q"
    assert _counts(first) == (3, 3, 1)
    assert 0 <= first[CMQC.MQIA_TIME_SINCE_RESET] < 60
    (second,) = perf_admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.Q"})
    assert _counts(second) == (2, 0, 0)
    assert second[CMQC.MQIA_TIME_SINCE_RESET] <= first[CMQC.MQIA_TIME_SINCE_RESET] + 1
    queue.close()
    qm.disconnect()


def test_reset_counts_puts_backed_out_and_gets_under_syncpoint(perf_admin, env):
    """Given a put under syncpoint that is backed out and a get under syncpoint that is
    committed, when the statistics are reset, then both count: a backout does not take a
    put back (IBM: MsgEnqCount is not decremented), and an uncommitted get is a get."""
    qm = env.bindings()
    queue = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    perf_admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.Q"})
    queue.put(b"kept")
    queue.put(b"undone", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.backout()
    queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.commit()
    (reply,) = perf_admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.Q"})
    assert _counts(reply) == (2, 2, 1)
    queue.close()
    qm.disconnect()


def test_a_generic_name_resets_every_local_queue_it_names(perf_admin, env):
    """Given local queues STATS.A and STATS.B and an alias STATS.ALIAS, when Reset Queue
    Statistics names STATS.*, then one response comes for each local queue, with its own
    counts, and none for the alias."""
    for name in (b"STATS.A", b"STATS.B"):
        perf_admin.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    perf_admin.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"STATS.ALIAS",
                               CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                               CMQC.MQCA_BASE_Q_NAME: b"STATS.A"})
    qm = env.bindings()
    mqpy.Queue(qm, "STATS.A", CMQC.MQOO_OUTPUT).put(b"one")
    replies = perf_admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"STATS.*"})
    by_name = {r[CMQC.MQCA_Q_NAME].strip(): _counts(r) for r in replies}
    assert by_name == {b"STATS.A": (1, 1, 0), b"STATS.B": (0, 0, 0)}
    qm.disconnect()


def test_reset_is_refused_as_ibm_refuses_it(admin, env):
    """Given PERFMEV DISABLED (the default), when Reset Queue Statistics is sent, then it is
    refused MQRCCF_EVENTS_DISABLED; with PERFMEV ENABLED, an alias queue is
    MQRCCF_Q_WRONG_TYPE, an unknown queue MQRC_UNKNOWN_OBJECT_NAME, a generic name that
    names no local queue too, and a request without QName MQRCCF_PARM_COUNT_TOO_SMALL."""
    assert reason_of(lambda: admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.Q"})) \
        == CMQCFC.MQRCCF_EVENTS_DISABLED
    admin.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED})
    admin.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"APP.ALIAS", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                          CMQC.MQCA_BASE_Q_NAME: b"APP.Q"})
    assert reason_of(lambda: admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"APP.ALIAS"})) \
        == CMQCFC.MQRCCF_Q_WRONG_TYPE
    assert reason_of(lambda: admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"NO.SUCH.Q"})) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(lambda: admin.MQCMD_RESET_Q_STATS({CMQC.MQCA_Q_NAME: b"NONE.*"})) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(lambda: admin.MQCMD_RESET_Q_STATS({})) \
        == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL


def test_reset_needs_dsp_and_chg_on_the_queue(carol):  # noqa: F811
    """Given carol (outside mqm) with dsp and chg on PAY.IN but only dsp on PAY.OUT, when
    she resets PAY.OUT's statistics, then she is refused MQRC_NOT_AUTHORIZED; PAY.IN's
    are answered; a generic PAY.* answers PAY.IN only."""
    eng = carol.eng
    eng.alter_qmgr({"PERFMEV": "ENABLED"})
    admin = carol.requester
    set_authority(eng, "queue", "PAY.IN", ["+dsp", "+chg"], principal="carol")
    set_authority(eng, "queue", "PAY.OUT", ["+dsp"], principal="carol")
    refused = admin.command(CMQCFC.MQCMD_RESET_Q_STATS, [q_name("PAY.OUT")])
    assert reason(refused) == CMQC.MQRC_NOT_AUTHORIZED
    (answered,) = admin.command(CMQCFC.MQCMD_RESET_Q_STATS, [q_name("PAY.IN")])
    assert answered.header.CompCode == CMQC.MQCC_OK
    generic = admin.command(CMQCFC.MQCMD_RESET_Q_STATS, [q_name("PAY.*")])
    assert [r.get(CMQC.MQCA_Q_NAME).strip() for r in generic] == [b"PAY.IN"]
