"""The resource statistics a queue manager publishes: classes, their types and each type's
elements, with IBM's class, type and element names, descriptions and data types (a
declarative table). An element's ``key`` names the figure in a sample (``counters`` and
``platform`` make them); an element mqpy cannot measure honestly is not listed, so that no
monitor charts a made-up zero.

Data types are IBM's MQIAMO_MONITOR_*: DELTA (a count over the interval), UNIT (a value at
the time of the publication), PERCENT (hundredths of a per cent), HUNDREDTHS, MB (megabytes),
MICROSEC (microseconds).
"""

from __future__ import annotations

import attrs

from mqpy import CMQCFC

DELTA = CMQCFC.MQIAMO_MONITOR_DELTA
UNIT = CMQCFC.MQIAMO_MONITOR_UNIT
PERCENT = CMQCFC.MQIAMO_MONITOR_PERCENT
HUNDREDTHS = CMQCFC.MQIAMO_MONITOR_HUNDREDTHS
MB = CMQCFC.MQIAMO_MONITOR_MB
MICROSEC = CMQCFC.MQIAMO_MONITOR_MICROSEC


#: the table's entries are constants: compared and hashed by identity (a DataTopic that
#: holds them is a dictionary key on every publication)
@attrs.frozen(eq=False)
class Element:
    """One figure of a type: its index (the PCF parameter id it is published under), data
    type, description and the sample key it is read from."""

    index: int
    datatype: int
    description: str
    key: str


@attrs.frozen(eq=False)
class MonitorType:
    index: int
    name: str
    description: str
    elements: tuple[Element, ...]


@attrs.frozen(eq=False)
class MonitorClass:
    """``per_object``: the class is published per object (STATQ: per queue), its topic
    naming the object (MQIAMO_MONITOR_FLAGS_OBJNAME)."""

    index: int
    name: str
    description: str
    types: tuple[MonitorType, ...]
    per_object: bool = False

    @property
    def flags(self) -> int:
        return (CMQCFC.MQIAMO_MONITOR_FLAGS_OBJNAME if self.per_object
                else CMQCFC.MQIAMO_MONITOR_FLAGS_NONE)

    def type_named(self, name: str) -> MonitorType | None:
        return next((t for t in self.types if t.name == name), None)


def _elements(*rows: tuple[int, str, str]) -> tuple[Element, ...]:
    """Elements numbered in order: (data type, description, sample key) each."""
    return tuple(Element(i, dt, desc, key) for i, (dt, desc, key) in enumerate(rows))


CPU = MonitorClass(0, "CPU", "Platform central processing units", (
    MonitorType(0, "SystemSummary", "CPU performance - platform wide", _elements(
        (PERCENT, "User CPU time percentage", "cpu.user"),
        (PERCENT, "System CPU time percentage", "cpu.system"),
        (HUNDREDTHS, "CPU load - one minute average", "cpu.load1"),
        (HUNDREDTHS, "CPU load - five minute average", "cpu.load5"),
        (HUNDREDTHS, "CPU load - fifteen minute average", "cpu.load15"),
        (PERCENT, "RAM free percentage", "ram.free"),
        (MB, "RAM total bytes", "ram.total"))),
    MonitorType(1, "QMgrSummary", "CPU performance - running queue manager", _elements(
        (PERCENT, "User CPU time - percentage estimate for queue manager", "qm.cpu.user"),
        (PERCENT, "System CPU time - percentage estimate for queue manager", "qm.cpu.system"),
        (MB, "RAM total bytes - estimate for queue manager", "qm.ram"))),
))

DISK = MonitorClass(1, "DISK", "Platform persistent data stores", (
    MonitorType(0, "SystemSummary", "Disk usage - platform wide", _elements(
        (MB, "MQ errors file system - bytes in use", "errors.used"),
        (PERCENT, "MQ errors file system - free space", "errors.free"),
        (UNIT, "MQ FDC file count", "fdc.count"))),
    MonitorType(1, "QMgrSummary", "Disk usage - running queue managers", _elements(
        (MB, "Queue Manager file system - bytes in use", "qmfs.used"),
        (PERCENT, "Queue Manager file system - free space", "qmfs.free"))),
    MonitorType(2, "Log", "Disk usage - queue manager recovery log", _elements(
        (MB, "Log file system - bytes in use", "logfs.used"),
        (MB, "Log file system - bytes max", "logfs.max"),
        (DELTA, "Log - logical bytes written", "log.bytes"),
        (MICROSEC, "Log - write latency", "log.latency"),
        (UNIT, "Log - write size", "log.write_size"))),
))

STATMQI = MonitorClass(2, "STATMQI", "API usage statistics", (
    MonitorType(0, "CONNDISC", "MQCONN and MQDISC", _elements(
        (DELTA, "MQCONN/MQCONNX count", "connects"),
        (DELTA, "Failed MQCONN/MQCONNX count", "connect_fails"),
        (UNIT, "Concurrent connections - high water mark", "connections"),
        (DELTA, "MQDISC count", "disconnects"))),
    MonitorType(1, "OPENCLOSE", "MQOPEN and MQCLOSE", _elements(
        (DELTA, "MQOPEN count", "opens"),
        (DELTA, "Failed MQOPEN count", "open_fails"),
        (DELTA, "MQCLOSE count", "closes"),
        (DELTA, "Failed MQCLOSE count", "close_fails"))),
    MonitorType(2, "INQSET", "MQINQ and MQSET", _elements(
        (DELTA, "MQINQ count", "inqs"),
        (DELTA, "MQSET count", "sets"))),
    MonitorType(3, "PUT", "MQPUT and MQPUT1", _elements(
        (DELTA, "Interval total MQPUT/MQPUT1 count", "puts.all"),
        (DELTA, "Interval total MQPUT/MQPUT1 byte count", "put_bytes.all"),
        (DELTA, "Non-persistent message MQPUT count", "puts.np"),
        (DELTA, "Persistent message MQPUT count", "puts.p"),
        (DELTA, "Failed MQPUT count", "put_fails"),
        (DELTA, "Non-persistent message MQPUT1 count", "put1s.np"),
        (DELTA, "Persistent message MQPUT1 count", "put1s.p"),
        (DELTA, "Put non-persistent messages - byte count", "put_bytes.np"),
        (DELTA, "Put persistent messages - byte count", "put_bytes.p"))),
    MonitorType(4, "GET", "MQGET", _elements(
        (DELTA, "Interval total destructive get- count", "gets.all"),
        (DELTA, "Interval total destructive get - byte count", "get_bytes.all"),
        (DELTA, "Non-persistent message destructive get - count", "gets.np"),
        (DELTA, "Persistent message destructive get - count", "gets.p"),
        (DELTA, "Failed MQGET - count", "get_fails"),
        (DELTA, "Got non-persistent messages - byte count", "get_bytes.np"),
        (DELTA, "Got persistent messages - byte count", "get_bytes.p"),
        (DELTA, "Non-persistent message browse - count", "browses.np"),
        (DELTA, "Persistent message browse - count", "browses.p"),
        (DELTA, "Non-persistent message browse - byte count", "browse_bytes.np"),
        (DELTA, "Persistent message browse - byte count", "browse_bytes.p"),
        (DELTA, "Expired message count", "expired"),
        (DELTA, "Purged queue count", "purged"))),
    MonitorType(5, "SYNCPOINT", "Commit and rollback", _elements(
        (DELTA, "Commit count", "commits"),
        (DELTA, "Rollback count", "backouts"))),
))

STATQ = MonitorClass(3, "STATQ", "API per-queue usage statistics", (
    MonitorType(0, "PUT", "MQPUT and MQPUT1", _elements(
        (DELTA, "MQPUT/MQPUT1 count", "puts.all"),
        (DELTA, "MQPUT byte count", "put_bytes.all"),
        (DELTA, "MQPUT non-persistent message count", "puts.np"),
        (DELTA, "MQPUT persistent message count", "puts.p"),
        (DELTA, "MQPUT1 non-persistent message count", "put1s.np"),
        (DELTA, "MQPUT1 persistent message count", "put1s.p"),
        (DELTA, "non-persistent byte count", "put_bytes.np"),
        (DELTA, "persistent byte count", "put_bytes.p"))),
    MonitorType(1, "GET", "MQGET", _elements(
        (DELTA, "MQGET count", "gets.all"),
        (DELTA, "MQGET byte count", "get_bytes.all"),
        (DELTA, "destructive MQGET non-persistent message count", "gets.np"),
        (DELTA, "destructive MQGET persistent message count", "gets.p"),
        (DELTA, "destructive MQGET non-persistent byte count", "get_bytes.np"),
        (DELTA, "destructive MQGET persistent byte count", "get_bytes.p"),
        (DELTA, "MQGET browse non-persistent message count", "browses.np"),
        (DELTA, "MQGET browse persistent message count", "browses.p"),
        (DELTA, "MQGET browse non-persistent byte count", "browse_bytes.np"),
        (DELTA, "MQGET browse persistent byte count", "browse_bytes.p"),
        (DELTA, "destructive MQGET fails", "get_fails"),
        (DELTA, "MQGET browse fails", "browse_fails"),
        (DELTA, "messages expired", "expired"),
        (DELTA, "queue purged count", "purged"),
        (MICROSEC, "average queue time", "time_on_q"),
        (UNIT, "Queue depth", "depth"))),
), per_object=True)

CLASSES: tuple[MonitorClass, ...] = (CPU, DISK, STATMQI, STATQ)


def class_named(name: str) -> MonitorClass | None:
    return next((c for c in CLASSES if c.name == name), None)
