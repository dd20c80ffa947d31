"""The PCF messages of resource statistics (pure): the metadata IBM publishes as retained
publications (classes, types, elements), and a data publication built from a sample.

A data publication is an MQCFH (MQCFT_STATISTICS) followed by MQCA_Q_MGR_NAME,
MQCA_Q_NAME (per-queue classes), MQIAMO_MONITOR_CLASS, MQIAMO_MONITOR_TYPE,
MQIAMO64_MONITOR_INTERVAL (microseconds) and one MQCFIN64 per element, its parameter id the
element's index, as amqsrua and mq_prometheus read them. A sample holds base units (counts,
bytes, seconds, per cent); each element is encoded in its data type's unit.

Data publications are many (two a queue followed, every interval): they are packed and read
with ``struct`` (:func:`data_message`, :func:`read_data`), byte for byte what ``mqpy.pcf``
builds (a test compares them); the few metadata messages use ``mqpy.pcf``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

import attrs

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
#: MQCFH: Type, StrucLength, Version, Command, MsgSeqNumber, Control, CompCode, Reason,
#: ParameterCount (native encoding: little-endian integers)
_CFH = struct.Struct("<9i")
_HEAD = struct.Struct("<3i")  #: Type, StrucLength, Parameter: the start of every parameter
_CFST = struct.Struct("<5i")  #: ... CodedCharSetId, StringLength
_CFIN = struct.Struct("<4i")  #: ... Value
_CFIN64 = struct.Struct("<4iq")  #: ... Reserved, Value
_I32, _I64 = struct.Struct("<i"), struct.Struct("<q")


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
    """METADATA/<class>/TYPES: the class and its flags, then a group per type (index,
    name, description, the topic of its elements), as IBM's amqsrua reads them."""
    return _message([
        pcf.CFIN(CMQCFC.MQIAMO_MONITOR_CLASS, cls.index),
        pcf.CFIN(CMQCFC.MQIAMO_MONITOR_FLAGS, cls.flags),
        *(pcf.CFGR(CMQCFC.MQGACF_MONITOR_TYPE, [
            pcf.CFIN(CMQCFC.MQIAMO_MONITOR_TYPE, t.index),
            _st(CMQCFC.MQCAMO_MONITOR_TYPE, t.name),
            _st(CMQCFC.MQCAMO_MONITOR_DESC, t.description),
            _st(CMQC.MQCA_TOPIC_STRING, topics.elements_topic(qmgr, cls, t))])
          for t in cls.types)])


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


def _packed_string(parameter: int, text: str) -> bytes:
    data = text.encode("utf-8")
    pad = b"\0" * (-len(data) % 4)
    return _CFST.pack(CMQCFC.MQCFT_STRING, CMQCFC.MQCFST_STRUC_LENGTH_FIXED + len(data) + len(pad),
                      parameter, CMQC.MQCCSI_DEFAULT, len(data)) + data + pad


def _int64(parameter: int, value: int) -> bytes:
    return _CFIN64.pack(CMQCFC.MQCFT_INTEGER64, CMQCFC.MQCFIN64_STRUC_LENGTH, parameter, 0,
                        value)


def data_message(qmgr: str, cls: MonitorClass, typ: MonitorType, sample: Mapping[str, float],
                 interval: float, obj: str | None = None) -> bytes:
    """One data publication: ``typ``'s elements read from ``sample`` (a missing key is 0),
    over ``interval`` seconds, for the queue ``obj`` of a per-object class."""
    parts = [_packed_string(CMQC.MQCA_Q_MGR_NAME, qmgr)]
    if obj is not None:
        parts.append(_packed_string(CMQC.MQCA_Q_NAME, obj))
    parts += [_CFIN.pack(CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH,
                         CMQCFC.MQIAMO_MONITOR_CLASS, cls.index),
              _CFIN.pack(CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFIN_STRUC_LENGTH,
                         CMQCFC.MQIAMO_MONITOR_TYPE, typ.index),
              _int64(CMQCFC.MQIAMO64_MONITOR_INTERVAL, round(interval * 1_000_000))]
    parts += [_int64(e.index, encoded(e, sample.get(e.key, 0))) for e in typ.elements]
    header = _CFH.pack(CMQCFC.MQCFT_STATISTICS, CMQCFC.MQCFH_STRUC_LENGTH,
                       CMQCFC.MQCFH_VERSION_3, CMQCFC.MQCMD_NONE, 1, CMQCFC.MQCFC_LAST, 0, 0,
                       len(parts))
    return header + b"".join(parts)


@attrs.define
class Reading:
    """What a data publication says: its queue manager, queue (None: the queue manager's
    own figures), class and type indexes, interval (seconds), and each element's value by
    index."""

    qmgr: str = ""
    queue: str | None = None
    cls: int = -1
    typ: int = -1
    interval: float = 0.0
    values: dict[int, int] = attrs.Factory(dict)


_TEXT = {CMQC.MQCA_Q_MGR_NAME: "qmgr", CMQC.MQCA_Q_NAME: "queue"}
_FIELDS = {CMQCFC.MQIAMO_MONITOR_CLASS: "cls", CMQCFC.MQIAMO_MONITOR_TYPE: "typ"}


def read_data(data: bytes) -> Reading:
    """A data publication read (little-endian, as mqpy and IBM MQ on x86 write it);
    parameters of other types are passed over. ValueError when it is not one."""
    if len(data) < _CFH.size:
        raise ValueError("shorter than an MQCFH")
    count = _CFH.unpack_from(data)[8]
    out = Reading()
    pos = _CFH.size
    for _ in range(count):
        kind, length, parameter = _HEAD.unpack_from(data, pos)
        if length < _HEAD.size or pos + length > len(data):
            raise ValueError(f"parameter at offset {pos} has length {length}")
        if kind == CMQCFC.MQCFT_STRING and parameter in _TEXT:
            n = _I32.unpack_from(data, pos + 16)[0]
            text = data[pos + 20:pos + 20 + n].decode("utf-8", "replace").rstrip(" \0")
            setattr(out, _TEXT[parameter], text)
        elif kind == CMQCFC.MQCFT_INTEGER:
            value = _I32.unpack_from(data, pos + 12)[0]
            if parameter in _FIELDS:
                setattr(out, _FIELDS[parameter], value)
            else:
                out.values[parameter] = value
        elif kind == CMQCFC.MQCFT_INTEGER64:
            value = _I64.unpack_from(data, pos + 16)[0]
            if parameter == CMQCFC.MQIAMO64_MONITOR_INTERVAL:
                out.interval = value / 1_000_000
            else:
                out.values[parameter] = value
        pos += length
    return out
