"""ibmmq's MQObject: the base of QueueManager and Queue (and of the object classes to come),
with its ``to_string`` helper."""

from __future__ import annotations

from typing import Any

__all__ = ["MQObject"]


class MQObject:
    """What an MQ object of the MQI is; ibmmq's base class."""

    def __init__(self, name: Any = None) -> None:
        self._name = name

    @staticmethod
    def to_string(v: Any, encoding: str = "utf8") -> Any:
        """An MQCHAR value as str: cut at its first NUL, blanks stripped; a value that is not
        bytes, or does not decode, unchanged."""
        if isinstance(v, bytes):
            try:
                return v.split(b"\0", 1)[0].decode(encoding).strip()
            except UnicodeDecodeError:
                pass
        return v
