"""Message selectors of an open queue handle (``MQOD.SelectionString``, MQOD version 4):
compiled once at MQOPEN, evaluated by the queue manager against each message an MQGET or a
browse meets, so that the application -- in this process, or over the bindings socket or a
client channel -- receives only the messages it selected; the others stay on the queue for
other handles.

A selector reads the message's properties (``propdelivery.message_properties``) and its MQMD
fields (``Root.MQMD.*``, the JMS names of ``mqpy.selection``). A selection string IBM's grammar
does not accept is MQRC_SELECTOR_SYNTAX_ERROR (2459) on the MQOPEN, nothing opened.

Theory of operation (what a walk under the engine's lock may read of properties):

1. The handle's :class:`HandleSelector` keeps, for each message whose properties it has read,
   only the properties its selector can name (:func:`names_read`): a message's properties
   never change, its MQMD may (BackoutCount), so the MQMD is read at each pass and the
   properties once.
2. A pass of MQGET's walk (:meth:`HandleSelector.begin`) reads under the lock the properties
   of messages no longer than ``INLINE_BUDGET`` bytes together; the first message beyond it
   makes the walk *defer*: that one and the next messages not yet read (up to
   ``DEFERRED_MESSAGES`` / ``DEFERRED_BYTES``) are set aside and no later message is
   selected in this pass, for one set aside may come first. The walk then ends in
   :class:`Unselected`, having changed nothing (raised through the lock, which lets it go).
3. The caller reads what was set aside with no lock held (:meth:`Unselected.judge`, on a
   worker thread in the daemon), keeps it in the handle's selector (taking the lock for
   that alone), and makes the pass again. The queue may have changed meanwhile: the pass
   walks it again from the start, as it is, reading what was kept.
4. What is kept is dropped for messages no longer on the queue once the selector keeps
   twice as many as the queue holds (and ``KEEP_AT_LEAST``), so that it never outgrows the
   queue; never for a message still on it, so that every pass gets further than the last.
"""

from __future__ import annotations

from typing import Any

import attrs

from mqpy import CMQC
from mqpy.engine import propdelivery
from mqpy.engine import records as R
from mqpy.selection.evaluate import ALWAYS, Selector, _identifier, compile_selector
from mqpy.selection.parser import Ident
from mqpy.structs.charv import get_vs
from mqpy.structs.tables import MD

__all__ = ["DEFERRED_BYTES", "DEFERRED_MESSAGES", "INLINE_BUDGET", "HandleSelector",
           "Unselected", "for_open", "names_read", "selects"]

#: bytes of message data whose properties one pass may read under the engine's lock
INLINE_BUDGET = 32 * 1024
#: how many messages, and how many bytes of their data, a deferring pass sets aside
DEFERRED_MESSAGES = 1024
DEFERRED_BYTES = 8 * 1024 * 1024
#: a selector keeps what it read of this many messages before it looks for those gone
KEEP_AT_LEAST = 1024
#: properties a JMS name reads when set (``mqpy.selection.evaluate._jms_getter``)
_JMS_PROPERTIES = frozenset(("jms.Cid", "jms.Tms", "jms.Seq"))


def for_open(od: Any) -> HandleSelector | None:
    """The selector of an MQOPEN's MQOD, or None when it selects every message (no
    SelectionString, or a blank one)."""
    if od.Version < CMQC.MQOD_VERSION_4 or od.SelectionStringVSLength <= 0:
        return None
    text = get_vs(od, "SelectionString")
    if text is None:
        return None
    selector = compile_selector(text, od.SelectionStringVSCCSID)
    return None if selector is ALWAYS else HandleSelector(selector)


def names_read(selector: Selector) -> frozenset[str]:
    """The kept property names ``selector`` can read: those its identifiers name, and the
    JMS properties a JMS name reads before the MQMD."""
    names = set(_JMS_PROPERTIES)
    stack = [selector.tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Ident):
            kept = _identifier(node.name)[1]
            if kept is not None:
                names.add(kept)
        elif attrs.has(type(node)):
            stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)))
        elif isinstance(node, tuple):
            stack.extend(node)
    return frozenset(names)


def _read(names: frozenset[str], md_bytes: bytes, body: bytes) -> dict[str, Any]:
    """What a selector naming ``names`` reads of a stored message's properties (its data
    ``body`` behind the MQMD ``md_bytes``)."""
    props = propdelivery.message_properties(md_bytes, body)
    return {name: props[name] for name in names if name in props}


class HandleSelector:
    """An open handle's compiled ``selector`` and the properties it has read (rule 1),
    by message (``seq``; a message's stored bytes when the walk names no entry)."""

    __slots__ = ("budget", "deferred", "deferred_bytes", "kept", "lock", "mq", "names",
                 "selector")

    def __init__(self, selector: Selector) -> None:
        self.selector = selector
        self.names = names_read(selector)
        self.kept: dict[Any, tuple[Any, dict[str, Any]]] = {}
        self.mq: Any = None
        self.lock: Any = None
        self.budget = INLINE_BUDGET
        self.deferred: list[tuple[Any, Any, bytes, bytes]] = []
        self.deferred_bytes = 0

    @property
    def text(self) -> str:
        return self.selector.text

    def begin(self, mq: Any, lock: Any) -> None:
        """A pass of MQGET's walk of ``mq`` starts (the engine's ``lock`` held): its budget
        whole, nothing set aside."""
        self.mq, self.lock = mq, lock
        self.budget = INLINE_BUDGET
        if self.deferred:
            self.deferred = []
        self.deferred_bytes = 0

    def selects(self, record: bytes, entry: Any = None) -> bool:
        """Does the selector select the stored message ``record`` (``entry``'s, when the
        walk names it)? False, without reading it, for a message set aside (rule 2)."""
        if not R.record_flags(record) & R.FLAG_PROPERTIES:
            if self.deferred:
                return False
            _put_time, _backout, md_bytes, _body = R.decode_message(record)
            return self.selector.matches({}, MD().unpack(md_bytes))
        key = record if entry is None else entry.seq
        kept = self.kept.get(key)
        if kept is not None:
            if self.deferred:
                return False
            _put_time, _backout, md_bytes, _body = R.decode_message(record)
            return self.selector.matches(kept[1], MD().unpack(md_bytes))
        _put_time, _backout, md_bytes, body = R.decode_message(record)
        if not self.deferred and len(body) <= self.budget:
            self.budget -= len(body)
            props = _read(self.names, md_bytes, body)
            self._keep(key, entry, props)
            return self.selector.matches(props, MD().unpack(md_bytes))
        self.deferred.append((key, entry, md_bytes, body))
        self.deferred_bytes += len(body)
        if entry is None or len(self.deferred) >= DEFERRED_MESSAGES \
                or self.deferred_bytes >= DEFERRED_BYTES:
            raise self.unselected()  # (a walk naming no entry cannot end in it: now)
        return False

    def unselected(self) -> Unselected:
        """The end of a pass that set messages aside (rule 2)."""
        deferred, self.deferred = self.deferred, []
        self.deferred_bytes = 0
        return Unselected(self, deferred, self.lock)

    def _keep(self, key: Any, entry: Any, props: dict[str, Any]) -> None:
        """Keep what was read of a message (engine lock held), first dropping what was kept
        of messages gone when there is much of it (rule 4)."""
        kept = self.kept
        mq = self.mq
        if len(kept) >= KEEP_AT_LEAST and mq is not None and len(kept) >= 2 * mq.count:
            for k, (e, _props) in list(kept.items()):
                if e is None or mq.find(e.seq, e.priority, e.persistent) is None:
                    del kept[k]
        kept[key] = (entry, props)

    def learn(self, read: list[tuple[Any, Any, dict[str, Any]]]) -> None:
        """Keep what was read with no lock held (engine lock held)."""
        for key, entry, props in read:
            self._keep(key, entry, props)


class Unselected(propdelivery.Unread):
    """A pass of MQGET's walk set messages aside (rule 2) and changed nothing: reading
    them (:meth:`judge`) needs no lock. Raised through the lock, which lets it go; a caller
    that handles ``propdelivery.Unread`` (an event loop's) handles this one alike."""

    def __init__(self, selector: HandleSelector, deferred: list[tuple[Any, Any, bytes, bytes]],
                 lock: Any) -> None:
        Exception.__init__(self, len(deferred))
        self.selector, self.deferred, self.lock, self.lsn = selector, deferred, lock, None

    def judge(self) -> None:  # type: ignore[override]
        """Read what was set aside, with no lock held, and keep it in the selector (under
        the engine's lock, only for that); nothing for the property delivery."""
        names = self.selector.names
        read = [(key, entry, _read(names, md_bytes, body))
                for key, entry, md_bytes, body in self.deferred]
        with self.lock:
            self.selector.learn(read)


def selects(selector: Any, record: bytes, entry: Any = None) -> bool:
    """Does the handle's ``selector`` (:class:`HandleSelector`) select the stored message
    ``record``?"""
    return selector.selects(record, entry)
