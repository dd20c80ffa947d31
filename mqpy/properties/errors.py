"""``PropertyError``: the MQMIError of the message-property calls (MQCC_FAILED unless said)."""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError

__all__ = ["PropertyError", "fail", "warn"]


class PropertyError(MQMIError):
    """An MQSETMP / MQINQMP / MQDLTMP / MQCRTMH ... failure with IBM's reason code; extras
    (``data_length`` of MQRC_PROPERTY_VALUE_TOO_BIG, ``position`` of a selector error) ride
    as attributes, as pymqi's MQMIError carries its own."""


def fail(reason: int, **kw: Any) -> PropertyError:
    """MQCC_FAILED with ``reason``."""
    return PropertyError(CMQC.MQCC_FAILED, reason, **kw)


def warn(reason: int, **kw: Any) -> PropertyError:
    """MQCC_WARNING with ``reason``."""
    return PropertyError(CMQC.MQCC_WARNING, reason, **kw)
