"""What a command comes to and who asks for it: the :class:`Result` runmqsc prints and the
command server answers with, the refusal a handler raises (:class:`CommandFailed`), and the
:class:`Requester` each request is run for (its authority guard and display filter)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand

if TYPE_CHECKING:
    # (the events' module loads PCF: runmqsc -v, which runs this module, loads neither)
    from mqpy.events import EventOrigin
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["EVERYONE", "CommandFailed", "Handler", "Requester", "Result", "from_mqi",
           "not_supported"]


def _lines(lines: Iterable[str]) -> list[str]:
    """``list(lines)``: a Python function, not ``list`` itself, because attrs reads a
    converter's signature and a builtin's is parsed by the tokenizer (whose regular
    expression runmqsc then compiled at its start)."""
    return list(lines)


@attrs.frozen(slots=True)
class Result:
    """What one command printed, whether it worked, and the PCF reason if it did not."""

    lines: list[str] = attrs.field(converter=_lines)
    ok: bool = True
    reason: int = 0  #: MQRC_* / MQRCCF_* for a PCF response (0 when ok)


class CommandFailed(Exception):
    """A command refused: runmqsc's lines and the PCF reason."""

    def __init__(self, lines: list[str], reason: int) -> None:
        super().__init__(lines[0] if lines else "")
        self.lines = lines
        self.reason = reason

    @classmethod
    def of(cls, reason: int, msgid: str, *inserts: object) -> CommandFailed:
        return cls([message(msgid, *inserts)], reason)

    @classmethod
    def in_hex(cls, reason: int) -> CommandFailed:
        """``AMQ8101S: IBM MQ error (<reason in hex>) has occurred.``"""
        return cls.of(reason, "AMQ8101S", f"{reason:X}")


def not_supported() -> CommandFailed:
    """A command mqpy does not run: MQRC_FUNCTION_NOT_SUPPORTED."""
    return CommandFailed.in_hex(CMQC.MQRC_FUNCTION_NOT_SUPPORTED)


# engine reason -> (message id, PCF reason)
_REASONS: dict[int, tuple[str, int]] = {
    CMQC.MQRC_OBJECT_ALREADY_EXISTS: ("AMQ8150E", CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS),
    CMQC.MQRC_UNKNOWN_OBJECT_NAME: ("AMQ8147E", CMQC.MQRC_UNKNOWN_OBJECT_NAME),
    CMQC.MQRC_OBJECT_IN_USE: ("AMQ8148E", CMQCFC.MQRCCF_OBJECT_IN_USE),
    CMQC.MQRC_Q_NOT_EMPTY: ("AMQ8143E", CMQC.MQRC_Q_NOT_EMPTY),
}


def from_mqi(err: MQMIError, name: str = "") -> CommandFailed:
    """An engine's MQMIError as the command's refusal (its AMQ line and PCF reason)."""
    msgid, reason = _REASONS.get(err.reason, ("AMQ8101S", err.reason))
    if msgid == "AMQ8101S":
        return CommandFailed.of(reason, msgid, f"{err.reason:X}")
    return CommandFailed.of(reason, msgid, name)


#: ``visible(objtype, name, attributes)``: whether a generic DISPLAY shows this object or row
Visible = Callable[[str, str, Mapping[str, object]], bool]


@attrs.frozen(slots=True)
class Requester:
    """Who a command runs for, passed with each command: ``guard`` may refuse it (raising
    :class:`CommandFailed`), ``visible`` hides the objects and the status rows a generic
    DISPLAY would show. None: everything is allowed (:data:`EVERYONE`). ``events``: the
    origin and CorrelId the events of a command server's request report, made when asked
    (None: a command of the console, each its own CorrelId)."""

    guard: Callable[[MQSCCommand], None] | None = None
    visible: Visible | None = None
    events: Callable[[], tuple[EventOrigin, bytes]] | None = None

    def check(self, cmd: MQSCCommand) -> None:
        """Refuse ``cmd`` if the guard does."""
        if self.guard is not None:
            self.guard(cmd)

    def sees(self, objtype: str, name: str, attributes: Mapping[str, object]) -> bool:
        return self.visible is None or self.visible(objtype, name, attributes)


#: runmqsc -v, the queue manager's own commands, tests: nothing is refused or hidden.
EVERYONE = Requester()

#: a command's handler in a family's table: (processor, command, requester) -> its lines
Handler = Callable[["MQSCProcessor", MQSCCommand, Requester], list[str]]
