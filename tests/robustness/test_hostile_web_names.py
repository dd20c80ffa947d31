"""Names the web server hands the command server in PCF: a queue name MQ cannot hold (a
quote and a bracket, a blank, a character beyond ASCII) is refused by PCF Create Queue, as
MQSC's DEFINE refuses it (AMQ8424E). The web server refuses such names itself (400,
tests/web/test_hostile_requests.py); these check the command server, which any application
allowed to put to SYSTEM.ADMIN.COMMAND.QUEUE reaches without it."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC, pcf
from tests.support.pcf import _ask


@pytest.mark.parametrize("name", [b"X') DELETE QLOCAL('APP.Q", b"A B", b"caf\xe9", b"Q" * 49])
def test_pcf_create_queue_refuses_a_name_mq_cannot_hold(server, name):
    comp, reason = _ask(server, CMQCFC.MQCMD_CREATE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, name), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_OBJECT_NAME_ERROR)


@pytest.mark.parametrize("name", [b"X') DELETE QLOCAL('APP.Q", b"A B"])
def test_pcf_copy_queue_refuses_a_new_name_mq_cannot_hold(server, name):
    comp, reason = _ask(server, CMQCFC.MQCMD_COPY_Q, [
        pcf.CFST(CMQCFC.MQCACF_FROM_Q_NAME, b"SYSTEM.DEFAULT.LOCAL.QUEUE"),
        pcf.CFST(CMQCFC.MQCACF_TO_Q_NAME, name), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)])
    assert (comp, reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
