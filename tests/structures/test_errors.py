"""MQMIError and PYIFError behave like pymqi's."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.errors import Error, MQMIError, PYIFError


def test_mqmierror_text_names_the_reason():
    """Given comp 2 / reason 2085, when printed, then the text is pymqi's."""
    e = MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    assert (e.comp, e.reason) == (2, 2085)
    assert str(e) == "MQI Error. Comp: 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME"
    assert e.errorAsString() == "FAILED: MQRC_UNKNOWN_OBJECT_NAME"


def test_mqmierror_warning_ok_pcf_and_unknown():
    """Given warning, OK, PCF and undefined reasons, then each is described as pymqi does."""
    assert MQMIError(1, 2079).errorAsString() == "WARNING: MQRC_TRUNCATED_MSG_ACCEPTED"
    assert MQMIError(0, 0).errorAsString() == "OK"
    assert MQMIError(2, 3008).errorAsString() == "FAILED: MQRCCF_COMMAND_FAILED"
    assert MQMIError(2, 424242).errorAsString() == "FAILED: Error code 424242 not defined"


def test_mqmierror_equality_is_identity_and_subclassable():
    """Given two errors with the same codes, then they are distinct; subclasses still catch."""
    assert MQMIError(2, 2085) != MQMIError(2, 2085)

    class QFull(MQMIError):
        pass

    with pytest.raises(MQMIError) as info:
        raise QFull(2, 2053)
    assert isinstance(info.value, Error) and "MQRC_Q_FULL" in str(info.value)


def test_pyiferror_text():
    """Given an interface misuse, then PYIFError reads like pymqi's."""
    e = PYIFError("not connected")
    assert str(e) == "PYMQI Error: not connected" and e.error == "not connected"
    assert isinstance(e, Error)
