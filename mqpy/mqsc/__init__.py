"""The MQSC command language: runmqsc's syntax, and the command processor that carries it out.

Syntax, with no I/O and no queue manager:

- :mod:`~mqpy.mqsc.lexer`: lines -> commands (comments, ``+``/``-`` continuation, ``;``),
  command text -> tokens;
- :mod:`~mqpy.mqsc.grammar`: verbs, objects, attributes and their values, as data tables;
- :mod:`~mqpy.mqsc.parser`: command text -> :class:`MQSCCommand` or :class:`MQSCError`;
- :mod:`~mqpy.mqsc.display`: DISPLAY output layout;
- :mod:`~mqpy.mqsc.messages`: runmqsc's message ids and texts.

Carried out on a queue manager: :mod:`~mqpy.mqsc.processor` (the dispatcher) and one module
per object family (definitions, queues, channels, listeners_services, security_records,
clusters, queue_manager); :mod:`~mqpy.mqsc.transcript` is runmqsc's report around them.
"""

from mqpy.mqsc.display import format_attrs, format_item
from mqpy.mqsc.grammar import (
    COMMANDS,
    OBJECTS,
    VERBS,
    Attr,
    CommandSpec,
    canonical_object,
    canonical_verb,
    command_spec,
    syntax_help,
)
from mqpy.mqsc.lexer import MAX_COMMAND_LENGTH, SourceItem, scan_lines, split_commands
from mqpy.mqsc.messages import MESSAGES, MQSCError, summary_lines
from mqpy.mqsc.parser import MQSCCommand, Where, parse_command, parse_script

__all__ = [
    "Attr",
    "COMMANDS",
    "CommandSpec",
    "MAX_COMMAND_LENGTH",
    "MESSAGES",
    "MQSCCommand",
    "MQSCError",
    "OBJECTS",
    "SourceItem",
    "VERBS",
    "Where",
    "canonical_object",
    "canonical_verb",
    "command_spec",
    "format_attrs",
    "format_item",
    "parse_command",
    "parse_script",
    "scan_lines",
    "split_commands",
    "summary_lines",
    "syntax_help",
]
