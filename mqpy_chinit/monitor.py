"""Channel monitoring (MONCHL): the figures DISPLAY CHSTATUS MONITOR shows.

Monitoring is off by default because on IBM MQ it costs extra timestamps; the channel's own
MONCHL wins over the queue manager's unless it is MONCHL(QMGR) (seed 003, "Channel
Monitoring"). The level is fixed when an instance starts, as MQ fixes it. With monitoring off
the fields are shown blank.

Most figures are pairs: a short-term and a long-term rolling, weighted average. IBM does not
publish its weights; mqpy uses exponentially weighted averages in which the newest sample
counts 1/8 (short term) and 1/64 (long term), and the first sample sets both.

- XQTIME: microseconds a message spent on the transmission queue (its MQMD PutDate/PutTime
  to the sending MCA's MQGET; PutTime is in hundredths of a second, so is the resolution).
- NETTIME: microseconds of a network round trip, measured by a sending channel at batch
  confirmation and at heartbeats. IBM leaves the receiver's MQCMIT out; mqpy's figure at batch
  confirmation includes the receiver's commit (the wire does not carry its duration).
- XBATCHSZ: messages per batch achieved.
- EXITTIME: microseconds a message spent in the channel's exits (its message and
  message-retry exits, and the send and receive exits since the message before), 0,0 before
  any; COMPTIME, COMPRATE: mqpy runs no compression, so they are 0.
- XQMSGSA (cluster-sender channels): messages waiting for the channel, counted up to 999.
"""

from __future__ import annotations

import calendar
import time

import attrs

from mqpy import CMQC

SHORT_WEIGHT = 1 / 8
LONG_WEIGHT = 1 / 64
XQMSGSA_CAP = 999
LEVELS = ("LOW", "MEDIUM", "HIGH")


_MQMON = {CMQC.MQMON_LOW: "LOW", CMQC.MQMON_MEDIUM: "MEDIUM", CMQC.MQMON_HIGH: "HIGH"}


def effective_level(channel_monchl: object, qmgr_monchl: object) -> str:
    """The level an instance runs with: OFF, LOW, MEDIUM or HIGH. ``qmgr_monchl`` may be
    the MQSC word or the MQINQ number (MQMON_*)."""
    if isinstance(qmgr_monchl, int):
        qmgr_monchl = "NONE" if qmgr_monchl == CMQC.MQMON_NONE else _MQMON.get(qmgr_monchl,
                                                                                "OFF")
    if str(qmgr_monchl).upper() == "NONE":
        return "OFF"  # MONCHL(NONE): off whatever the channels say
    own = str(channel_monchl or "QMGR").upper()
    level = str(qmgr_monchl or "OFF").upper() if own == "QMGR" else own
    return level if level in LEVELS else "OFF"


@attrs.define
class Average:
    """A short-term and a long-term weighted average of one measurement."""

    short: float = 0.0
    long: float = 0.0
    samples: int = 0

    def add(self, value: float) -> None:
        if self.samples == 0:
            self.short = self.long = float(value)
        else:
            self.short += (value - self.short) * SHORT_WEIGHT
            self.long += (value - self.long) * LONG_WEIGHT
        self.samples += 1

    def shown(self) -> str:
        """"short,long"; blank before the first sample (a receiver never takes XQTIME)."""
        return f"{round(self.short)},{round(self.long)}" if self.samples else ""


@attrs.define
class ChannelMonitor:
    level: str = "OFF"
    xqtime: Average = attrs.Factory(Average)
    nettime: Average = attrs.Factory(Average)
    xbatchsz: Average = attrs.Factory(Average)
    exittime: Average = attrs.Factory(Average)
    xqmsgsa: int | None = None  # cluster-sender channels only

    @property
    def on(self) -> bool:
        return self.level != "OFF"

    def message_got(self, put_date: bytes, put_time: bytes, now: float | None = None) -> None:
        if self.on:
            waited = time_on_xmitq_us(put_date, put_time, time.time() if now is None else now)
            if waited is not None:
                self.xqtime.add(waited)

    def round_trip(self, micros: int) -> None:
        if self.on:
            self.nettime.add(micros)

    def exit_called(self, micros: int) -> None:
        if self.on:
            self.exittime.add(micros)

    def batch_done(self, size: int) -> None:
        if self.on:
            self.xbatchsz.add(size)

    def as_mqsc(self) -> dict[str, object]:
        """The MONITOR fields, blank when monitoring is off."""
        out: dict[str, object] = {"MONCHL": self.level}
        pairs = {"XQTIME": self.xqtime, "NETTIME": self.nettime, "XBATCHSZ": self.xbatchsz}
        for key, avg in pairs.items():
            out[key] = avg.shown() if self.on else ""
        out["EXITTIME"] = (self.exittime.shown() or "0,0") if self.on else ""
        for key in ("COMPTIME", "COMPRATE"):
            out[key] = "0,0" if self.on else ""
        if self.xqmsgsa is not None:
            out["XQMSGSA"] = min(self.xqmsgsa, XQMSGSA_CAP) if self.on else ""
        return out


def time_on_xmitq_us(put_date: bytes, put_time: bytes, now: float) -> int | None:
    """Microseconds from an MQMD's PutDate (YYYYMMDD) and PutTime (HHMMSSTH, GMT) to ``now``;
    None when the fields are not a time (an application may set context itself)."""
    try:
        d, t = put_date.decode("ascii"), put_time.decode("ascii")
        put = calendar.timegm((int(d[0:4]), int(d[4:6]), int(d[6:8]), int(t[0:2]),
                               int(t[2:4]), int(t[4:6]), 0, 0, 0)) + int(t[6:8]) / 100
    except (ValueError, UnicodeDecodeError, IndexError):
        return None
    return max(0, int((now - put) * 1e6))
