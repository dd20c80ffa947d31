"""Message selectors of an open queue handle (``MQOD.SelectionString``, MQOD version 4):
compiled once at MQOPEN, evaluated by the queue manager against each message an MQGET or a
browse meets, so that the application -- in this process, or over the bindings socket or a
client channel -- receives only the messages it selected; the others stay on the queue for
other handles.

A selector reads the message's properties (``propdelivery.message_properties``) and its MQMD
fields (``Root.MQMD.*``, the JMS names of ``mqpy.selection``). A selection string IBM's grammar
does not accept is MQRC_SELECTOR_SYNTAX_ERROR (2459) on the MQOPEN, nothing opened.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.engine import propdelivery
from mqpy.engine import records as R
from mqpy.selection.evaluate import ALWAYS, Selector, compile_selector
from mqpy.structs.charv import get_vs
from mqpy.structs.tables import MD

__all__ = ["for_open", "selects"]


def for_open(od: Any) -> Selector | None:
    """The compiled selector of an MQOPEN's MQOD, or None when it selects every message (no
    SelectionString, or a blank one)."""
    if od.Version < CMQC.MQOD_VERSION_4 or od.SelectionStringVSLength <= 0:
        return None
    text = get_vs(od, "SelectionString")
    if text is None:
        return None
    selector = compile_selector(text, od.SelectionStringVSCCSID)
    return None if selector is ALWAYS else selector


def selects(selector: Selector, record: bytes) -> bool:
    """Does ``selector`` select the stored message ``record``?"""
    _put_time, _backout, md_bytes, body = R.decode_message(record)
    props = propdelivery.message_properties(md_bytes, body) \
        if R.record_flags(record) & R.FLAG_PROPERTIES else {}
    return selector.matches(props, MD().unpack(md_bytes))
