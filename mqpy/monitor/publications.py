"""The PCF messages of resource statistics (pure): the metadata IBM publishes as retained
publications (classes, types, elements), and a data publication built from a sample.

A data publication is an MQCFH (MQCFT_STATISTICS) followed by MQCA_Q_MGR_NAME,
MQCA_Q_NAME (per-queue classes), MQIAMO_MONITOR_CLASS, MQIAMO_MONITOR_TYPE,
MQIAMO64_MONITOR_INTERVAL (microseconds) and one MQCFIN64 per element, its parameter id the
element's index, as amqsrua and mq_prometheus read them. A sample holds base units (counts,
bytes, seconds, per cent); each element is encoded in its data type's unit.
"""

from __future__ import annotations

from collections.abc import Mapping

from mqpy import CMQC, CMQCFC, pcf
from mqpy.monitor import topics
from mqpy.monitor.elements import (
    CLASSES,
    HUNDREDTHS,
    MB,
    MICROSEC,
    PERCENT,
    Element,
    MonitorClass,
    MonitorType,
)
from mqpy.structs.tables import CFH

_MIB = 1024 * 1024


def _message(params: list) -> bytes:
    header = CFH(Type=CMQCFC.MQCFT_STATISTICS, Version=CMQCFC.MQCFH_VERSION_3,
                 Command=CMQCFC.MQCMD_NONE)
    return pcf.build(pcf.PCFMessage(header, params))


def _st(parameter: int, text: str) -> pcf.CFST:
    return pcf.CFST(parameter, text.encode("utf-8"))


def classes_message(qmgr: str) -> bytes:
    """METADATA/CLASSES: a group per class (index, flags, name, description, the topic of
    its types)."""
    return _message([pcf.CFGR(CMQCFC.MQGACF_MONITOR_CLASS, [
        pcf.CFIN(CMQCFC.MQIAMO_MONITOR_CLASS, c.index),
        pcf.CFIN(CMQCFC.MQIAMO_MONITOR_FLAGS, c.flags),
        _st(CMQCFC.MQCAMO_MONITOR_CLASS, c.name),
        _st(CMQCFC.MQCAMO_MONITOR_DESC, c.description),
        _st(CMQC.MQCA_TOPIC_STRING, topics.types_topic(qmgr, c))]) for c in CLASSES])


def types_message(qmgr: str, cls: MonitorClass) -> bytes:
    """METADATA/<class>/TYPES: a group per type (index, name, description, the topic of
    its elements)."""
    return _message([pcf.CFGR(CMQCFC.MQGACF_MONITOR_TYPE, [
        pcf.CFIN(CMQCFC.MQIAMO_MONITOR_TYPE, t.index),
        _st(CMQCFC.MQCAMO_MONITOR_TYPE, t.name),
        _st(CMQCFC.MQCAMO_MONITOR_DESC, t.description),
        _st(CMQC.MQCA_TOPIC_STRING, topics.elements_topic(qmgr, cls, t))])
        for t in cls.types])


def elements_message(qmgr: str, cls: MonitorClass, typ: MonitorType) -> bytes:
    """METADATA/<class>/<type>/ELEMENTS: the data topic (``%s`` for the object of a
    per-object class), then a group per element (index, data type, description)."""
    return _message([_st(CMQC.MQCA_TOPIC_STRING, topics.data_topic(qmgr, cls, typ))] + [
        pcf.CFGR(CMQCFC.MQGACF_MONITOR_ELEMENT, [
            pcf.CFIN(CMQCFC.MQIAMO_MONITOR_ELEMENT, e.index),
            pcf.CFIN(CMQCFC.MQIAMO_MONITOR_DATATYPE, e.datatype),
            _st(CMQCFC.MQCAMO_MONITOR_DESC, e.description)]) for e in typ.elements])


def metadata(qmgr: str) -> dict[str, bytes]:
    """Every metadata publication of ``qmgr`` by its topic string."""
    out = {topics.classes_topic(qmgr): classes_message(qmgr)}
    for cls in CLASSES:
        out[topics.types_topic(qmgr, cls)] = types_message(qmgr, cls)
        for typ in cls.types:
            out[topics.elements_topic(qmgr, cls, typ)] = elements_message(qmgr, cls, typ)
    return out


def encoded(element: Element, value: float) -> int:
    """A sample's value (base units) in the element's data type's unit."""
    dt = element.datatype
    if dt in (PERCENT, HUNDREDTHS):
        return round(value * 100)
    if dt == MB:
        return int(value // _MIB)
    if dt == MICROSEC:
        return round(value * 1_000_000)
    return int(value)


def decoded(datatype: int, value: int) -> float:
    """A published value in base units (per cent, bytes, seconds), as mq_prometheus
    normalises it."""
    if datatype in (PERCENT, HUNDREDTHS):
        return value / 100
    if datatype == MB:
        return float(value * _MIB)
    if datatype == MICROSEC:
        return value / 1_000_000
    return float(value)


def data_message(qmgr: str, cls: MonitorClass, typ: MonitorType, sample: Mapping[str, float],
                 interval: float, obj: str | None = None) -> bytes:
    """One data publication: ``typ``'s elements read from ``sample`` (a missing key is 0),
    over ``interval`` seconds, for the queue ``obj`` of a per-object class."""
    params: list = [_st(CMQC.MQCA_Q_MGR_NAME, qmgr)]
    if obj is not None:
        params.append(_st(CMQC.MQCA_Q_NAME, obj))
    params += [pcf.CFIN(CMQCFC.MQIAMO_MONITOR_CLASS, cls.index),
               pcf.CFIN(CMQCFC.MQIAMO_MONITOR_TYPE, typ.index),
               pcf.CFIN64(CMQCFC.MQIAMO64_MONITOR_INTERVAL, round(interval * 1_000_000))]
    params += [pcf.CFIN64(e.index, encoded(e, sample.get(e.key, 0))) for e in typ.elements]
    return _message(params)
