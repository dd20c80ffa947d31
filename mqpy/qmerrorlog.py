"""The QMErrorLog service's rules: qm.ini's ``QMErrorLog`` stanza as the error log applies it.

``ErrorLogSize`` is the size at which AMQERR01.LOG is copied to AMQERR02.LOG (IBM: 32768 to
2147483648 bytes, 32 MB when absent); ``ExcludeMessage`` lists message numbers never written;
``SuppressMessage`` lists numbers written once per ``SuppressInterval`` seconds (1 to 86400,
30 when absent); a number in both lists is excluded. :class:`Suppression` keeps, for one
process and one errors directory, when each suppressed number was last written.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import threading

import attrs

#: ErrorLogSize when qm.ini has none: IBM MQ's 32 MB (since 9.0.4; 2 MB before).
DEFAULT_ERROR_LOG_SIZE = 32 * 1024 * 1024
#: ErrorLogSize's range, bytes.
ERROR_LOG_SIZE_RANGE = (32768, 2147483648)
#: SuppressInterval when qm.ini has none, seconds.
DEFAULT_SUPPRESS_INTERVAL = 30
#: SuppressInterval's range, seconds.
SUPPRESS_INTERVAL_RANGE = (1, 86400)
#: The message numbers IBM documents for ExcludeMessage and SuppressMessage (channel
#: starts and ends, connection failures, blocked channels). mqpy applies the lists to any
#: AMQ number; these are the ones IBM names.
IBM_LISTED = frozenset({
    "5211", "5973", "5974", "6254", "7163", "7234", "9001", "9002", "9202", "9208", "9209",
    "9228", "9489", "9508", "9524", "9528", "9542", "9545", "9558", "9637", "9776", "9777",
    "9782", "9999"})

_NUMBER = re.compile(r"^(?:AMQ)?(\d{4,5})[IWEST]?$", re.IGNORECASE)


def message_number(msgid: str) -> str:
    """``AMQ9544W`` -> ``9544``: the number ExcludeMessage and SuppressMessage name."""
    m = _NUMBER.match(msgid.strip())
    return m.group(1) if m else msgid


def parse_numbers(raw: str) -> frozenset[str] | None:
    """A comma-separated list of message numbers (``9001,9202``; ``AMQ9001`` is taken too);
    None when an item is not one."""
    items = [item.strip() for item in raw.split(",") if item.strip()]
    numbers = [_NUMBER.match(item) for item in items]
    if not all(numbers):
        return None
    return frozenset(m.group(1) for m in numbers if m)


@attrs.frozen
class QMErrorLogConfig:
    """What the ``QMErrorLog`` stanza says, IBM's defaults where it says nothing."""

    error_log_size: int = DEFAULT_ERROR_LOG_SIZE
    exclude: frozenset[str] = frozenset()
    suppress: frozenset[str] = frozenset()
    suppress_interval: int = DEFAULT_SUPPRESS_INTERVAL


class Suppression:
    """Which entries the writers of one errors directory in this process leave out:
    excluded numbers always, a suppressed number when it was written less than
    SuppressInterval ago."""

    _known: dict[tuple[int, str], Suppression] = {}
    _known_lock = threading.Lock()

    def __init__(self) -> None:
        self._last: dict[str, _dt.datetime] = {}

    @classmethod
    def of_directory(cls, directory: str) -> Suppression:
        """The one of this process for ``directory``, shared by all its writers."""
        key = (os.getpid(), os.path.realpath(directory))
        with cls._known_lock:
            return cls._known.setdefault(key, cls())

    def excluded(self, rules: QMErrorLogConfig, msgid: str) -> bool:
        return message_number(msgid) in rules.exclude

    def allows(self, rules: QMErrorLogConfig, msgid: str, now: _dt.datetime) -> bool:
        """Whether an entry for ``msgid`` at ``now`` is written; a written one starts its
        interval."""
        number = message_number(msgid)
        if number in rules.exclude:
            return False
        if number not in rules.suppress:
            return True
        last = self._last.get(number)
        if last is not None and now - last < _dt.timedelta(seconds=rules.suppress_interval):
            return False
        self._last[number] = now
        return True
