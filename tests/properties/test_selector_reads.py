"""What a handle's selector keeps of a message's properties (``msgselection.names_read``): only
the properties its selection string can name, so that what it read of a message once is
small and selects as all of them would."""

from __future__ import annotations

import pytest

import mqpy
from mqpy.engine import msgselection
from mqpy.selection.evaluate import compile_selector

#: a message's properties: those the selectors below name, and many they do not
PROPERTIES = {
    "colour": "red", "size": 7, "weight": 2.5, "jms.Cid": "abc", "jms.Tms": 1234,
    "jms.Seq": 3, "mcd.Type": "car", "mqps.Top": "a/b", "Flag": True,
    **{f"other{i}": i for i in range(100)},
}


@pytest.mark.parametrize("text", [
    "colour = 'red'",
    "usr.colour = 'red'",
    "NOT (colour <> 'red')",
    "size BETWEEN 5 AND 9",
    "size + 1 > weight * 2",
    "colour IN ('blue', 'red')",
    "colour LIKE 'r%'",
    "colour IS NOT NULL AND Flag = TRUE",
    "colour = 'blue' OR size = 7 OR weight < 1",
    "JMSCorrelationID = 'abc'",
    "JMSTimestamp = 1234",
    "JMSXGroupSeq = 3",
    "JMSType = 'car'",
    "MQTopicString = 'a/b'",
    "Root.MQMD.Priority = 4 AND colour = 'red'",
])
def test_what_a_selector_keeps_selects_as_every_property_would(text):
    """Given a message's properties and a selector that selects it, when only the
    properties the selector names are kept, then the selector selects it from those."""
    selector = compile_selector(text)
    md = mqpy.MD(Priority=4, CorrelId=b"x" * 24)
    assert selector.matches(PROPERTIES, md)
    kept = {n: PROPERTIES[n] for n in msgselection.names_read(selector) if n in PROPERTIES}
    assert selector.matches(kept, md)
    assert len(kept) < 10

