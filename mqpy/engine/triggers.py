"""Trigger conditions: when a message arriving on a queue makes a trigger message.

Pure decision: the engine gives the queue's attributes and live counts, this module answers
whether a trigger message is due and whether TRIGGER must then be switched off (TRIGTYPE DEPTH).
IBM's conditions, for a message that becomes available (at put, or at commit for a put in a unit
of work):

- the queue has TRIGGER on, TRIGTYPE is not NONE, and the message's priority is at least
  TRIGMPRI (only such messages count towards the depth);
- an initiation queue is named, exists, and some application has it open for input (a trigger
  monitor or channel initiator is listening); a process is named unless the queue is a
  transmission queue (the channel initiator needs none);
- FIRST: the eligible depth went from 0 to 1, and the queue is not open for input; or the queue
  was already non-empty and TRIGINT milliseconds have passed since the last trigger message;
- EVERY: every eligible message;
- DEPTH: the eligible depth reached TRIGDPTH and the queue is not open for input; TRIGGER is then
  switched off (the application switches it on again).

When the initiation queue is opened for input and a queue meets its FIRST or DEPTH condition
with messages already waiting, a trigger message is made then ("trigger on open").
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Decision:
    fire: bool
    switch_off: bool = False


NO = Decision(False)


def on_arrival(attributes: dict[str, object], *, eligible_depth: int, priority: int,
               input_open: bool, initq_listening: bool, has_process: bool, now_ms: float,
               last_trigger_ms: float | None, trigint_ms: int) -> Decision:
    """Should the arrival of one message (already counted in ``eligible_depth``) trigger?"""
    if attributes.get("TRIGGER") != "YES":
        return NO
    ttype = attributes.get("TRIGTYPE", "FIRST")
    if ttype == "NONE" or priority < int(attributes.get("TRIGMPRI", 0)):  # type: ignore[arg-type]
        return NO
    if not initq_listening or not attributes.get("INITQ"):
        return NO
    if not has_process and attributes.get("USAGE") != "XMITQ":
        return NO
    if ttype == "EVERY":
        return Decision(True)
    if input_open:
        return NO
    if ttype == "FIRST":
        if eligible_depth == 1:
            return Decision(True)
        if last_trigger_ms is not None and now_ms - last_trigger_ms >= trigint_ms:
            return Decision(True)
        return NO
    if ttype == "DEPTH":
        if eligible_depth >= int(attributes.get("TRIGDPTH", 1)):  # type: ignore[arg-type]
            return Decision(True, switch_off=True)
        return NO
    return NO


def on_initq_open(attributes: dict[str, object], *, eligible_depth: int, input_open: bool,
                  has_process: bool) -> Decision:
    """A trigger monitor opened the initiation queue: is this queue's condition already met?"""
    if attributes.get("TRIGGER") != "YES" or input_open or eligible_depth == 0:
        return NO
    if not has_process and attributes.get("USAGE") != "XMITQ":
        return NO
    ttype = attributes.get("TRIGTYPE", "FIRST")
    if ttype == "FIRST":
        return Decision(True)
    if ttype == "DEPTH" and eligible_depth >= int(attributes.get("TRIGDPTH", 1)):  # type: ignore[arg-type]
        return Decision(True, switch_off=True)
    return NO
