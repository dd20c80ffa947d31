"""PCF Refresh Queue Manager (MQCMD_REFRESH_Q_MGR), answered for each RefreshType as IBM's
command server on Multiplatforms answers a queue manager with no configuration events and
no publish/subscribe engine: never MQRCCF_CFH_COMMAND_ERROR."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.security.policy import set_authority
from tests.pcf_commands.conftest import reason_of
from tests.security.conftest import carol, secured  # noqa: F401 - fixtures
from tests.security.requester import reason

pytestmark = pytest.mark.timeout(60)


def _refresh(admin, refresh_type: int):
    return lambda: admin.MQCMD_REFRESH_Q_MGR({CMQCFC.MQIACF_REFRESH_TYPE: refresh_type})


def test_configuration_refresh_answers_events_disabled(admin):
    """Given a queue manager whose configuration events are not enabled (CONFIGEV DISABLED,
    the default; mqpy emits none), when Refresh Queue Manager asks for MQRT_CONFIGURATION,
    then it is refused MQRCCF_EVENTS_DISABLED, as IBM refuses it."""
    assert reason_of(_refresh(admin, CMQCFC.MQRT_CONFIGURATION)) \
        == CMQCFC.MQRCCF_EVENTS_DISABLED


def test_proxy_subscription_refresh_answers_pubsub_inhibited(admin):
    """Given no publish/subscribe engine, when Refresh Queue Manager asks for MQRT_PROXYSUB,
    then it is refused MQRCCF_PUBSUB_INHIBITED."""
    assert reason_of(_refresh(admin, CMQCFC.MQRT_PROXYSUB)) == CMQCFC.MQRCCF_PUBSUB_INHIBITED


@pytest.mark.parametrize("refresh_type", [CMQCFC.MQRT_EXPIRY, CMQCFC.MQRT_NSPROC,
                                          99])
def test_z_os_only_and_unknown_types_are_a_parameter_value_error(admin, refresh_type):
    """Given a RefreshType valid only on z/OS (EXPIRY, NSPROC) or none IBM defines,
    when Refresh Queue Manager is sent, then it is refused MQRCCF_PARM_VALUE_ERROR."""
    assert reason_of(_refresh(admin, refresh_type)) == CMQCFC.MQRCCF_PARM_VALUE_ERROR


def test_refresh_type_is_required(admin):
    """Given no RefreshType, when Refresh Queue Manager is sent, then it is refused
    MQRCCF_PARM_COUNT_TOO_SMALL; a RefreshType sent as a string (MQCFST, where IBM takes an
    MQCFIN) is refused MQRCCF_CFST_PARM_ID_ERROR."""
    assert reason_of(lambda: admin.MQCMD_REFRESH_Q_MGR({})) \
        == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    assert reason_of(lambda: admin.MQCMD_REFRESH_Q_MGR(
        {CMQCFC.MQIACF_REFRESH_TYPE: b"CONFIGEV"})) == CMQCFC.MQRCCF_CFST_PARM_ID_ERROR


def test_refresh_needs_chg_on_the_queue_manager(carol):  # noqa: F811
    """Given carol (outside mqm) with only dsp on the queue manager, when she sends Refresh
    Queue Manager, then she is refused MQRC_NOT_AUTHORIZED; with chg granted, she gets
    the answer for the type (MQRCCF_EVENTS_DISABLED)."""

    request = [pcf.CFIN(CMQCFC.MQIACF_REFRESH_TYPE, CMQCFC.MQRT_CONFIGURATION)]
    refused = carol.requester.command(CMQCFC.MQCMD_REFRESH_Q_MGR, request)
    assert reason(refused) == CMQC.MQRC_NOT_AUTHORIZED
    set_authority(carol.eng, "qmgr", carol.eng.name, ["+chg"], principal="carol")
    answered = carol.requester.command(CMQCFC.MQCMD_REFRESH_Q_MGR, request)
    assert reason(answered) == CMQCFC.MQRCCF_EVENTS_DISABLED

