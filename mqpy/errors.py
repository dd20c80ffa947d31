"""The MQI's exceptions, shaped like pymqi's so that code written for pymqi keeps working.

Every failure an application sees from the MQI is an MQMIError carrying IBM's completion code
and reason code; PYIFError is for misuse of the Python interface itself (pymqi's name). This
module owns no numbers: names come from ``mqpy.constants``.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.constants import lookup

__all__ = ["Error", "MQMIError", "PYIFError"]


class Error(Exception):
    """Base class of every mqpy interface error (pymqi.Error)."""


class _ReasonNames:
    """pymqi's reason-name dictionary of one family (``'MQRC_'``, ``'MQRCCF_'``): ``d[2033]``
    is ``'MQRC_NO_MSG_AVAILABLE'``, ``2033 in d``; KeyError for a value it has no name for."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix

    def __getitem__(self, code: int) -> str:
        name = lookup(self._prefix, code)
        if name is None:
            raise KeyError(code)
        return name

    def __contains__(self, code: object) -> bool:
        return isinstance(code, int) and lookup(self._prefix, code) is not None

    def has_key(self, code: object) -> bool:
        """pymqi's deprecated spelling of ``in``."""
        return code in self


class MQMIError(Error):
    """An MQI call completed with ``comp`` (MQCC_*) and ``reason`` (MQRC_* / MQRCCF_*).

    Equality is identity (no ``__eq__``): two failures with the same codes are still two
    events. Compare ``.comp`` and ``.reason`` instead.
    """

    #: pymqi's class attributes: OK codes, and the dictionaries errorAsString reads
    comp: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE
    errStringDicts = (_ReasonNames("MQRC_"), _ReasonNames("MQRCCF_"))  # noqa: N815

    def __init__(self, comp: int, reason: int, **kw: Any) -> None:
        super().__init__(comp, reason)
        self.comp = comp
        self.reason = reason
        for name, value in kw.items():  # pymqi's extras: message=, original_length= ...
            setattr(self, name, value)

    def errorAsString(self) -> str:  # noqa: N802 - pymqi's name
        """``'FAILED: MQRC_UNKNOWN_OBJECT_NAME'``, ``'WARNING: ...'`` or ``'OK'``."""
        if self.comp == CMQC.MQCC_OK:
            return "OK"
        prefix = "WARNING: " if self.comp == CMQC.MQCC_WARNING else "FAILED: "
        name = lookup("MQRC_", self.reason) or lookup("MQRCCF_", self.reason)
        if name is None:
            return f"{prefix}Error code {self.reason} not defined"
        return prefix + name

    #: ibmmq's name of errorAsString
    error_as_string = errorAsString

    def get(self, name: str) -> Any:
        """ibmmq's: an extra the error carries (``message``, ``original_length``...)."""
        return getattr(self, name)

    def __str__(self) -> str:
        return f"MQI Error. Comp: {self.comp}, Reason {self.reason}: {self.errorAsString()}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(comp={self.comp!r}, reason={self.reason!r})"


class PYIFError(Error):
    """Misuse of the Python interface (a bad argument type, a closed handle...)."""

    def __init__(self, e: object) -> None:
        super().__init__(e)
        self.error = e

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error}"
