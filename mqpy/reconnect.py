"""Automatic client reconnection: IBM's rules, as small pure functions.

Owns what a reconnectable client connection decides -- whether it reconnects at all, how long
it waits between attempts and for how long it tries, and what becomes of the MQI call that was
in flight when the connection broke and of the unit of work it was in -- and nothing that
does it: no socket, no clock, no random source is touched here (they are passed in). The
connection that acts on these answers is ``mqpy.client.ClientConnection``.

IBM's rules, numbered as the functions below take them:

1. Whether a connection reconnects (:func:`resolve_mode`): MQCNO_RECONNECT_DISABLED never;
   DISABLED as the default (mqclient.ini's CHANNELS DefRecon, else the client channel's
   DEFRECON / the MQCD's DefReconnect) never, whatever the MQCONNX asked; MQCNO_RECONNECT
   (any queue manager of the connection's list) and MQCNO_RECONNECT_Q_MGR (only a queue
   manager with the QMID first connected to, else MQRC_RECONNECT_QMID_MISMATCH);
   MQCNO_RECONNECT_AS_DEF (0, what MQCONN gives) the default: DefRecon from mqclient.ini
   when it is set, else the channel's DefReconnect, else no.
2. When (:func:`delays`, :class:`Schedule`): mqclient.ini's CHANNELS ReconDelay, a list of
   ``(milliseconds[,random milliseconds])`` pairs: the n-th wait is the n-th pair's delay plus
   a random part up to its second value, the last pair for every later one (IBM's example,
   taken here as the default: ``(1000,200)(2000,200)(4000,1000)``: about a second first,
   growing). Attempts stop once MQReconnectTimeout seconds (CHANNELS stanza, default 1800)
   have passed since the connection broke; the connection's calls then fail with
   MQRC_RECONNECT_FAILED (2548).
3. What becomes of the call in flight (:func:`in_flight_outcome`): an MQPUT or MQPUT1 of a
   message that may be persistent outside syncpoint, whose outcome is not known, is
   MQRC_CALL_INTERRUPTED (2549); an MQCMIT of a unit of work with such a message the same;
   any other MQCMIT MQRC_BACKED_OUT (MQCC_WARNING); an MQBACK is done (the queue manager backed
   the unit of work out when the connection broke); a put or get under syncpoint
   MQRC_BACKED_OUT (its unit of work is gone); anything else (a get outside syncpoint, an
   MQOPEN, an MQINQ ...) is made again on the new connection: a get waiting goes on waiting
   there. A non-persistent message got outside syncpoint as the connection broke may be lost,
   as IBM says.
4. After a reconnection in a unit of work (:func:`after_backout`): its MQGET, MQPUT and
   MQPUT1 under syncpoint fail with MQRC_BACKED_OUT (MQCC_FAILED), MQCMIT answers
   MQRC_BACKED_OUT (MQCC_WARNING) and MQBACK ends it; calls outside syncpoint go on.
5. Options that need state the queue manager loses (:func:`incompatible`): MQPMO_LOGICAL_ORDER
   and MQGMO_LOGICAL_ORDER on a reconnectable connection are MQRC_RECONNECT_INCOMPATIBLE.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from mqpy import CMQC, CMQXC

__all__ = [
    "DEFAULT_RECON_DELAY",
    "DEFAULT_TIMEOUT",
    "Mode",
    "Outcome",
    "Schedule",
    "after_backout",
    "delays",
    "in_flight_outcome",
    "incompatible",
    "mode_of_defrecon",
    "parse_recon_delay",
    "resolve_mode",
]

#: MQReconnectTimeout's default (seconds)
DEFAULT_TIMEOUT = 1800.0
#: ReconDelay's: (delay, random part) in milliseconds, the last for every later attempt
DEFAULT_RECON_DELAY: tuple[tuple[int, int], ...] = ((1000, 200), (2000, 200), (4000, 1000))

_RECONNECT_OPTIONS = (CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_DISABLED
                      | CMQC.MQCNO_RECONNECT_Q_MGR)


class Mode(enum.Enum):
    """What a connection does when it breaks."""

    NO = "NO"  #: fails its calls (MQRC_CONNECTION_BROKEN)
    YES = "YES"  #: reconnects to any queue manager of its list
    QMGR = "QMGR"  #: reconnects to the queue manager of the same QMID only
    DISABLED = "DISABLED"  #: as NO, whatever the application asked

    @property
    def reconnects(self) -> bool:
        return self in (Mode.YES, Mode.QMGR)


_RCN_MODES = {CMQXC.MQRCN_NO: Mode.NO, CMQXC.MQRCN_YES: Mode.YES,
              CMQXC.MQRCN_Q_MGR: Mode.QMGR, CMQXC.MQRCN_DISABLED: Mode.DISABLED}
_INI_MODES = {"NO": Mode.NO, "YES": Mode.YES, "QMGR": Mode.QMGR, "DISABLED": Mode.DISABLED}


def mode_of_defrecon(value: Any) -> Mode | None:
    """A DefReconnect (MQRCN_*), DEFRECON or DefRecon value as a Mode; None when it is not
    one (an unset or unknown value counts as not given)."""
    if isinstance(value, int):
        return _RCN_MODES.get(value)
    text = str(value or "").strip().upper()
    if text in ("QUEUEMANAGER", "Q_MGR"):
        text = "QMGR"
    return _INI_MODES.get(text)


def resolve_mode(options: int, ini_defrecon: Mode | None, channel_defrecon: Mode | None
                 ) -> Mode:
    """Rule 1: the Mode of a connection made with MQCNO ``options``, mqclient.ini's DefRecon
    ``ini_defrecon`` and the channel's DefReconnect ``channel_defrecon`` (None: not set)."""
    default = ini_defrecon if ini_defrecon is not None else channel_defrecon
    if default is None:
        default = Mode.NO
    asked = options & _RECONNECT_OPTIONS
    if asked & CMQC.MQCNO_RECONNECT_DISABLED:
        return Mode.DISABLED
    if default is Mode.DISABLED:
        return Mode.DISABLED
    if asked & CMQC.MQCNO_RECONNECT_Q_MGR:
        return Mode.QMGR
    if asked & CMQC.MQCNO_RECONNECT:
        return Mode.YES
    return default


_PAIR = re.compile(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")


def parse_recon_delay(text: str | None) -> tuple[tuple[int, int], ...]:
    """Rule 2: ReconDelay ``(d[,r])(d[,r])...`` as (delay, random part) milliseconds; the
    default when it is unset or malformed (IBM's client ignores a value it cannot read)."""
    if not text or not text.strip():
        return DEFAULT_RECON_DELAY
    compact = text.replace(" ", "")
    pairs = _PAIR.findall(compact)
    if not pairs or "".join(f"({d}{',' + r if r else ''})" for d, r in pairs) != compact:
        return DEFAULT_RECON_DELAY
    return tuple((int(d), int(r or 0)) for d, r in pairs)


def delays(table: Sequence[tuple[int, int]], attempt: int, random: Callable[[], float]
           ) -> float:
    """Rule 2: the wait in seconds before attempt ``attempt`` (0 the first) with ReconDelay
    ``table``; ``random()`` a number in [0, 1)."""
    delay, spread = table[min(attempt, len(table) - 1)]
    return (delay + spread * random()) / 1000


@attrs.define
class Schedule:
    """Rule 2 for one reconnection: started when the connection broke (``started``, on the
    caller's clock), its ReconDelay ``table`` and MQReconnectTimeout ``timeout``."""

    started: float
    timeout: float = DEFAULT_TIMEOUT
    table: tuple[tuple[int, int], ...] = DEFAULT_RECON_DELAY
    attempt: int = 0

    @property
    def deadline(self) -> float:
        return self.started + self.timeout

    def next_wait(self, now: float, random: Callable[[], float]) -> float | None:
        """How long to wait before the next attempt (cut to the deadline), or None once the
        timeout has passed (the reconnection failed)."""
        if now >= self.deadline:
            return None
        wait = delays(self.table, self.attempt, random)
        self.attempt += 1
        return max(0.0, min(wait, self.deadline - now))


class Outcome(enum.Enum):
    """What becomes of the call in flight when the connection broke (rule 3)."""

    RETRY = "RETRY"  #: made again on the new connection
    DONE = "DONE"  #: answered MQCC_OK without being made again (MQBACK, MQDISC)
    BACKED_OUT = "BACKED_OUT"  #: MQRC_BACKED_OUT
    INTERRUPTED = "INTERRUPTED"  #: MQRC_CALL_INTERRUPTED


def may_be_persistent(md: Any) -> bool:
    """A message whose MQMD is not MQPER_NOT_PERSISTENT may be persistent (AS_Q_DEF: the
    queue's DEFPSIST, which the client does not know)."""
    return getattr(md, "Persistence", CMQC.MQPER_PERSISTENCE_AS_Q_DEF) != CMQC.MQPER_NOT_PERSISTENT


def put_in_syncpoint(pmo: Any) -> bool:
    """An MQPUT / MQPUT1 with these MQPMO options is in a unit of work (the default on
    Multiplatforms is outside syncpoint)."""
    return bool(getattr(pmo, "Options", 0) & CMQC.MQPMO_SYNCPOINT)


def get_in_syncpoint(gmo: Any, persistent_unknown: bool = True) -> bool:
    """An MQGET with these MQGMO options is (or may be) in a unit of work."""
    options = getattr(gmo, "Options", 0)
    return bool(options & CMQC.MQGMO_SYNCPOINT
                or (persistent_unknown and options & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT))


def in_flight_outcome(verb: str, md: Any = None, opts: Any = None,
                      uow_persistent: bool = False) -> Outcome:
    """Rule 3: the call ``verb`` ("MQPUT", "MQPUT1", "MQGET", "MQCMIT", "MQBACK", "MQDISC", or
    any other verb's name) in flight with its MQMD ``md`` and MQPMO / MQGMO ``opts``;
    ``uow_persistent``: the unit of work holds a message that may be persistent."""
    if verb in ("MQPUT", "MQPUT1"):
        if put_in_syncpoint(opts):
            return Outcome.BACKED_OUT
        return Outcome.INTERRUPTED if may_be_persistent(md) else Outcome.RETRY
    if verb == "MQGET":
        return Outcome.BACKED_OUT if get_in_syncpoint(opts) else Outcome.RETRY
    if verb == "MQCMIT":
        return Outcome.INTERRUPTED if uow_persistent else Outcome.BACKED_OUT
    if verb in ("MQBACK", "MQDISC"):
        return Outcome.DONE
    return Outcome.RETRY


def after_backout(verb: str, opts: Any = None) -> tuple[int, int] | None:
    """Rule 4: the answer (CompCode, Reason) of ``verb`` with MQPMO / MQGMO ``opts`` made
    after a reconnection backed its unit of work out, or None when it is made as usual
    (MQBACK, and calls outside syncpoint; MQBACK and MQCMIT end the backed-out unit)."""
    if verb == "MQCMIT":
        return CMQC.MQCC_WARNING, CMQC.MQRC_BACKED_OUT
    if verb in ("MQPUT", "MQPUT1") and put_in_syncpoint(opts) \
            or verb == "MQGET" and get_in_syncpoint(opts, persistent_unknown=False):
        return CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT
    return None


def incompatible(verb: str, opts: Any) -> bool:
    """Rule 5: ``opts`` of ``verb`` rely on state the queue manager loses on reconnection."""
    options = getattr(opts, "Options", 0)
    if verb in ("MQPUT", "MQPUT1"):
        return bool(options & CMQC.MQPMO_LOGICAL_ORDER)
    if verb == "MQGET":
        return bool(options & CMQC.MQGMO_LOGICAL_ORDER)
    return False
