"""amqsrua / amqsruac: show the resource usage statistics a queue manager publishes on its
system topics (IBM's sample AMQSRUAA; amqsruac connects as a client).

    amqsrua [-m QMGR] [-c CLASS [-t TYPE [-o OBJECT]]...]... [-n COUNT] [-p PREFIX]
            [-s MODEL] [-d LEVEL]

As IBM's does, it reads what the queue manager publishes from its metadata (the retained
publications of ``$SYS/MQ/INFO/QMGR/<qmgr>/Monitor/METADATA/...``: the classes, each
class's types, each type's elements and the topic of its data), asks for a CLASS and a TYPE
when none is given (``Enter Class selection``, ``Enter Type selection``) and for the object
of a per-object class (STATQ's queue: ``Enter object name``), subscribes to the data topics
with a temporary dynamic queue of MODEL (SYSTEM.DEFAULT.MODEL.QUEUE) as the destination and
prints each publication in IBM's layout: ``Publication received PutDate:... PutTime:...
Interval:...``, then an element a line (a per-queue line starts with the queue's name padded
to 48), counts with their rate a second, per cents, MB, uSec. It ends after COUNT
publications (exit 0), or when none comes for 30 seconds or a call fails (exit 20, IBM's).
An option's value follows it in the same argument or the next (``-mQM1``, ``-m QM1``).

Not IBM's: the metadata is looked for in one language (IBM's first tries the LANG
environment variable's, waiting 10 seconds when the queue manager has none).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import attrs

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.fields import StructError
from mqpy_cli.samples import atoi, connect, entry_point

ERROR_RETURN = 20  # IBM's exit code for any error
DEFAULT_PREFIX = "$SYS/MQ/INFO/QMGR"
DEFAULT_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
METADATA_WAIT_MS = 10000  # IBM's wait for each retained metadata publication
WAIT_MS = 30000  # IBM's wait for the next publication
BUFFER_LENGTH = 4096  # IBM's buffer
_OPTIONS = ("m", "c", "t", "o", "n", "d", "p", "s")
USAGE = ("{prog} [-m QMGR-NAME] [-c CLASS-NAME]\n\t [-o object name] [-t TYPE-NAME]\n"
         "\t [-n publication count]")


# ------------------------------------------------------------------ the metadata tree

@attrs.frozen
class Element:
    index: int
    datatype: int
    description: str


@attrs.define
class MonitorType:
    index: int
    name: str
    description: str
    topic: str  #: the ELEMENTS metadata topic, then (once read) the data topic
    flags: int = 0
    elements: dict[int, Element] = attrs.Factory(dict)


@attrs.define
class MonitorClass:
    index: int
    name: str
    description: str
    topic: str  #: the TYPES metadata topic
    flags: int = 0
    types: list[MonitorType] = attrs.Factory(list)

    def type_named(self, name: str) -> MonitorType | None:
        return next((t for t in self.types if t.name == name), None)


@attrs.define
class Selection:
    """What the command line asks for: classes, each with its types and objects."""

    qmgr: str = ""
    classes: list[tuple[str, list[tuple[str, str | None]], str | None]] = \
        attrs.Factory(list)
    count: int = -1
    prefix: str = DEFAULT_PREFIX
    model: str = DEFAULT_MODEL
    debug: int = 0


class Failed(Exception):
    """The sample ends with exit code 20 (its line printed already)."""


def parse_args(argv: list[str]) -> Selection | None:
    """The command line as IBM's sample reads it; None for anything else (the usage)."""
    sel = Selection()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if len(arg) < 2 or arg[0] != "-" or arg[1] not in _OPTIONS:
            return None
        value = arg[2:]
        if not value and i + 1 < len(argv):
            i += 1
            value = argv[i]
        flag = arg[1]
        if flag == "m":
            sel.qmgr = value
        elif flag == "c":
            sel.classes.append((value, [], None))
        elif flag == "t":
            if not sel.classes:
                return None
            sel.classes[-1][1].append((value, None))
        elif flag == "o":
            if not sel.classes:
                return None
            name, types, obj = sel.classes[-1]
            if types:
                types[-1] = (types[-1][0], value)
            sel.classes[-1] = (name, types, obj or value)
        elif flag == "n":
            sel.count = atoi(value)
        elif flag == "d":
            sel.debug = atoi(value)
        elif flag == "p":
            sel.prefix = value.rstrip("/")
        elif flag == "s":
            sel.model = value
        i += 1
    return sel


def _text(param: pcf.Parameter) -> str:
    value = param.value
    return value.rstrip(b" \0").decode("utf-8", "replace") if isinstance(value, bytes) \
        else str(value)


def read_classes(msg: pcf.PCFMessage) -> list[MonitorClass]:
    """METADATA/CLASSES: a class a group."""
    out = []
    for group in msg.groups(CMQCFC.MQGACF_MONITOR_CLASS):
        values = {p.Parameter: p for p in group.Parameters}
        out.append(MonitorClass(
            index=values[CMQCFC.MQIAMO_MONITOR_CLASS].value,
            name=_text(values[CMQCFC.MQCAMO_MONITOR_CLASS]),
            description=_text(values[CMQCFC.MQCAMO_MONITOR_DESC]),
            topic=_text(values[CMQC.MQCA_TOPIC_STRING]),
            flags=values[CMQCFC.MQIAMO_MONITOR_FLAGS].value
            if CMQCFC.MQIAMO_MONITOR_FLAGS in values else 0))
    return out


def read_types(msg: pcf.PCFMessage, cls: MonitorClass) -> list[MonitorType]:
    """METADATA/<class>/TYPES: a type a group; the flags (MQIAMO_MONITOR_FLAGS_OBJNAME:
    the data is per object) are the message's, else its class's."""
    flags = msg.get(CMQCFC.MQIAMO_MONITOR_FLAGS, cls.flags)
    out = []
    for group in msg.groups(CMQCFC.MQGACF_MONITOR_TYPE):
        values = {p.Parameter: p for p in group.Parameters}
        out.append(MonitorType(
            index=values[CMQCFC.MQIAMO_MONITOR_TYPE].value,
            name=_text(values[CMQCFC.MQCAMO_MONITOR_TYPE]),
            description=_text(values[CMQCFC.MQCAMO_MONITOR_DESC]),
            topic=_text(values[CMQC.MQCA_TOPIC_STRING]), flags=flags))
    return out


def read_elements(msg: pcf.PCFMessage, typ: MonitorType) -> None:
    """METADATA/<class>/<type>/ELEMENTS: the data topic and an element a group."""
    topic = msg.get(CMQC.MQCA_TOPIC_STRING)
    if topic is not None:
        typ.topic = topic.rstrip(b" \0").decode("utf-8", "replace")
    for group in msg.groups(CMQCFC.MQGACF_MONITOR_ELEMENT):
        values = {p.Parameter: p for p in group.Parameters}
        element = Element(values[CMQCFC.MQIAMO_MONITOR_ELEMENT].value,
                          values[CMQCFC.MQIAMO_MONITOR_DATATYPE].value,
                          _text(values[CMQCFC.MQCAMO_MONITOR_DESC]))
        typ.elements[element.index] = element


# ---------------------------------------------------------------- the publications

def interval_text(microseconds: int) -> str:
    """MQIAMO64_MONITOR_INTERVAL as IBM's sample shows it (``10.000 seconds``,
    ``4 minutes,39.974 seconds``)."""
    millis = (microseconds % 1_000_000) // 1000
    seconds = microseconds // 1_000_000
    text = ""
    if seconds:
        minutes, seconds = divmod(seconds, 60)
        if minutes:
            hours, minutes = divmod(minutes, 60)
            if hours:
                days, hours = divmod(hours, 24)
                text += (f"{days} days," if days else "") + f"{hours} hours,"
            text += f"{minutes} minutes,"
    return text + f"{seconds}.{millis:03d} seconds"


def element_line(element: Element, value: int, interval: int) -> str:
    """One element's line: its description and value in its data type's unit."""
    desc, dt = element.description, element.datatype
    if dt == CMQCFC.MQIAMO_MONITOR_PERCENT:
        return f"{desc} {value / 100:.2f}%"
    if dt == CMQCFC.MQIAMO_MONITOR_HUNDREDTHS:
        return f"{desc} {value / 100:.2f}"
    if dt == CMQCFC.MQIAMO_MONITOR_KB:
        return f"{desc} {value}KB"
    if dt == CMQCFC.MQIAMO_MONITOR_MB:
        return f"{desc} {value}MB"
    if dt == CMQCFC.MQIAMO_MONITOR_GB:
        return f"{desc} {value}GB"
    if dt == CMQCFC.MQIAMO_MONITOR_MICROSEC:
        return f"{desc} {value} uSec"
    if dt == CMQCFC.MQIAMO_MONITOR_DELTA:
        rate = ""
        if interval >= 10000:  # IBM: shorter intervals give misleading rates
            per_second = (value * 1_000_000 + interval // 2) // interval
            rate = f"{per_second}/sec" if per_second else ""
        return f"{desc} {value} {rate}"
    return f"{desc} {value}"


def format_publication(md: mqpy.MD, msg: pcf.PCFMessage, classes: list[MonitorClass]
                       ) -> list[str]:
    """A data publication's lines, as IBM's sample prints them."""
    values = {p.Parameter: p for p in msg.params}
    head = f"Publication received PutDate:{md.PutDate.decode()[:8]} " \
           f"PutTime:{md.PutTime.decode()[:8]}"
    interval = -1
    if CMQCFC.MQIAMO64_MONITOR_INTERVAL in values:
        interval = values[CMQCFC.MQIAMO64_MONITOR_INTERVAL].value
        head += " Interval:" + interval_text(interval)
    lines = [head]
    class_id = msg.get(CMQCFC.MQIAMO_MONITOR_CLASS, -1)
    cls = next((c for c in classes if c.index == class_id), None)
    if cls is None:
        return lines + ["Unrecognised resource usage message"]
    type_id = msg.get(CMQCFC.MQIAMO_MONITOR_TYPE, -1)
    typ = next((t for t in cls.types if t.index == type_id), None)
    if typ is None:
        return lines + [f"Unrecognised resource usage message for class {cls.name} {type_id}"]
    obj = values.get(CMQC.MQCA_Q_NAME)
    prefix = f"{_text(obj):<48.48} " if obj is not None else ""
    skipped = (CMQCFC.MQIAMO_MONITOR_CLASS, CMQCFC.MQIAMO_MONITOR_TYPE,
               CMQCFC.MQIACF_OBJECT_TYPE, CMQCFC.MQIAMO64_MONITOR_INTERVAL)
    for param in msg.params:
        if not isinstance(param, (pcf.CFIN, pcf.CFIN64)) or param.Parameter in skipped:
            continue
        element = typ.elements.get(param.Parameter)
        if element is None:
            lines.append(f"Parameter({param.Parameter}) Value({param.value}) not recognised")
        else:
            lines.append(prefix + element_line(element, param.value, interval))
    return lines


# ---------------------------------------------------------------------------- the MQI

class Monitor:
    """The sample's connection, its temporary dynamic queue and its subscriptions."""

    def __init__(self, qm: mqpy.QueueManager, queue: mqpy.Queue, debug: int) -> None:
        self.qm, self.queue, self.debug = qm, queue, debug
        #: the data subscriptions, kept open until MQDISC (a Subscription freed is closed)
        self.following: list[mqpy.Subscription] = []

    def subscribe(self, topic: str) -> mqpy.Subscription:
        """MQSUB of ``topic`` with the sample's queue as its destination."""
        sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE
                     | CMQC.MQSO_FAIL_IF_QUIESCING)
        sd.set_vs("ObjectString", topic)
        if self.debug > 0:
            print(f"Subscribing to topic: {topic}")
        sub = mqpy.Subscription(self.qm)
        sub.sub(sub_desc=sd, sub_queue=self.queue)
        return sub

    def get(self, wait_ms: int) -> tuple[mqpy.MD, bytes]:
        md = mqpy.MD()
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                       | CMQC.MQGMO_CONVERT | CMQC.MQGMO_NO_PROPERTIES,
                       WaitInterval=wait_ms, MatchOptions=CMQC.MQMO_NONE)
        return md, self.queue.get(BUFFER_LENGTH, md, gmo)

    def metadata(self, topic: str) -> pcf.PCFMessage:
        """The retained publication of a metadata topic (subscribe, get, close)."""
        try:
            sub = self.subscribe(topic)
        except mqpy.MQMIError as e:
            print(f"MQSUB ended with reason code {e.reason}")
            raise Failed from None
        try:
            _, data = self.get(METADATA_WAIT_MS)
        except mqpy.MQMIError as e:
            print(f"MQGET ended with reason code {e.reason}")
            raise Failed from None
        finally:
            sub.close()
        try:
            return pcf.parse(data)
        except StructError:
            print(f"Metadata on {topic} is not a PCF message")
            raise Failed from None

    def discover(self, qmgr: str, prefix: str) -> list[MonitorClass]:
        """The classes, their types and the types' elements, as the metadata says."""
        classes = read_classes(self.metadata(f"{prefix}/{qmgr}/Monitor/METADATA/CLASSES"))
        for cls in classes:
            cls.types = read_types(self.metadata(cls.topic), cls)
            for typ in cls.types:
                read_elements(self.metadata(typ.topic), typ)
        return classes


def _prompt(label: str) -> str:
    print(f"Enter {label}\n==> ", end="", flush=True)
    return sys.stdin.readline()


def _selection_word(line: str) -> str:
    """A class or type typed at the prompt: its letters and digits up to the first other
    character (IBM's reading)."""
    word = ""
    for ch in line:
        if not ch.isalnum():
            break
        word += ch
    return word


def prompt_class(classes: list[MonitorClass]) -> MonitorClass:
    for cls in classes:
        print(f"{cls.name} : {cls.description}")
    word = _selection_word(_prompt("Class selection"))
    cls = next((c for c in classes if c.name == word), None)
    if cls is None:
        print(f"Invalid Class ({word}) supplied")
        raise Failed
    return cls


def prompt_type(cls: MonitorClass) -> MonitorType:
    for typ in cls.types:
        print(f"{typ.name} : {typ.description}")
    word = _selection_word(_prompt("Type selection"))
    typ = cls.type_named(word)
    if typ is None:
        print(f"Invalid Type ({word}) supplied")
        raise Failed
    return typ


def _wanted(sel: Selection, classes: list[MonitorClass]
            ) -> Iterator[tuple[MonitorClass, MonitorType, str | None]]:
    """The class, type and object of each subscription the selection asks for (prompting
    for what it leaves out)."""
    if not sel.classes:
        cls = prompt_class(classes)
        sel.classes.append((cls.name, [], None))
    for name, types, obj in sel.classes:
        cls = next((c for c in classes if c.name == name), None)
        if cls is None:
            print(f"Class {name} not recognised")
            raise Failed
        if not types:
            types = [(prompt_type(cls).name, None)]
        for type_name, type_obj in types:
            typ = cls.type_named(type_name)
            if typ is None:
                print(f"Class: {name} Type: {type_name} not recognised")
                raise Failed
            yield cls, typ, type_obj or obj


def _data_topic(cls: MonitorClass, typ: MonitorType, obj: str | None) -> str:
    if not typ.flags & CMQCFC.MQIAMO_MONITOR_FLAGS_OBJNAME:
        return typ.topic
    if obj is None:
        print(f"An object name is required for Class({cls.name}) Type({typ.name})")
        obj = _prompt("object name").rstrip("\r\n")[:CMQC.MQ_OBJECT_NAME_LENGTH]
    return typ.topic.replace("%s", obj, 1)


def run(sel: Selection, client: bool) -> int:
    if sel.debug > 0:
        print("Sample AMQSRUAA start")
    qm = connect(sel.qmgr, "MQCONN ended with reason code {reason}", client=client)
    if isinstance(qm, int):
        return ERROR_RETURN
    try:
        return _monitor(qm, sel)
    except Failed:
        return ERROR_RETURN
    finally:
        try:
            qm.disconnect()
        except mqpy.MQMIError as e:
            print(f"MQDISC ended with reason code {e.reason}")


def _monitor(qm: mqpy.QueueManager, sel: Selection) -> int:
    try:
        name = qm.inquire(CMQC.MQCA_Q_MGR_NAME)
    except mqpy.MQMIError as e:
        print(f"MQINQ ended with reason code {e.reason}")
        raise Failed from None
    qmgr = (name.decode("latin-1") if isinstance(name, bytes) else str(name)).strip()
    try:
        queue = mqpy.Queue(qm, mqpy.OD(ObjectName=sel.model.encode()),
                           CMQC.MQOO_INPUT_EXCLUSIVE)
    except mqpy.MQMIError as e:
        print(f"MQOPEN ended with reason code {e.reason}")
        raise Failed from None
    monitor = Monitor(qm, queue, sel.debug)
    classes = monitor.discover(qmgr, sel.prefix)
    for cls, typ, obj in list(_wanted(sel, classes)):
        topic = _data_topic(cls, typ, obj)
        try:
            monitor.following.append(monitor.subscribe(topic))
        except mqpy.MQMIError as e:
            print(f"Subscribe to {topic} failed for {e.comp}:{e.reason}")
            raise Failed from None
    return _show(monitor, classes, sel.count)


def _show(monitor: Monitor, classes: list[MonitorClass], count: int) -> int:
    """Print publications until ``count`` are shown (0) or none comes or a get fails (20)."""
    shown = 0
    while count < 0 or shown < count:
        shown += 1
        try:
            md, data = monitor.get(WAIT_MS)
        except mqpy.MQMIError as e:
            print("no more messages" if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                  else f"MQGET ended with reason code {e.reason}")
            if e.comp == CMQC.MQCC_FAILED:
                return ERROR_RETURN
            continue
        try:
            msg = pcf.parse(data)
        except StructError:
            print("Unrecognised resource usage message\n")
            continue
        print("\n".join(format_publication(md, msg, classes)) + "\n", flush=True)
    return 0


def main(argv: list[str], client: bool = False) -> int:
    """Show the queue manager's resource usage publications."""
    sel = parse_args(argv)
    if sel is None:
        print(USAGE.format(prog="amqsruac" if client else "amqsrua"))
        return ERROR_RETURN
    try:
        return run(sel, client)
    except KeyboardInterrupt:
        return ERROR_RETURN


amqsrua = entry_point(main)
amqsruac = entry_point(main, client=True)
