"""The dead-letter queue handler (runmqdlq): rules table and matcher (sans-IO), and its loop.

``rules`` reads a rules table into immutable objects (or every error in it); ``matcher``
matches dead-lettered messages against the rules and keeps the per-message retry counts.
``handler.DeadLetterHandler`` is the loop that browses the DLQ and moves messages through the
MQI, driven by these objects (runmqdlq, or a program's own handler).
"""

from mqpy.dlq.handler import DeadLetterHandler, PassResult, dead_letter_queue_of
from mqpy.dlq.matcher import (
    DLQMessageFields,
    IgnoreReason,
    Plan,
    RetryBook,
    RuleCounters,
    Summary,
    first_match,
    matching_rules,
    plan_for,
    rule_matches,
    wildcard_match,
)
from mqpy.dlq.rules import (
    Action,
    ControlData,
    PutAut,
    Rule,
    RuleError,
    RulesTable,
    format_errors,
    parse_rules,
)

__all__ = [
    "Action",
    "ControlData",
    "DLQMessageFields",
    "DeadLetterHandler",
    "IgnoreReason",
    "PassResult",
    "Plan",
    "PutAut",
    "RetryBook",
    "Rule",
    "RuleCounters",
    "RuleError",
    "RulesTable",
    "Summary",
    "dead_letter_queue_of",
    "first_match",
    "format_errors",
    "matching_rules",
    "parse_rules",
    "plan_for",
    "rule_matches",
    "wildcard_match",
]
