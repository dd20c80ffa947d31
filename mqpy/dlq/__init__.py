"""The dead-letter queue handler's rules table and matcher (runmqdlq), sans-IO.

``rules`` reads a rules table into immutable objects (or every error in it); ``matcher``
matches dead-lettered messages against the rules and keeps the per-message retry counts.
The loop that browses the DLQ and puts messages lives elsewhere and drives these objects.
"""

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
    "IgnoreReason",
    "Plan",
    "PutAut",
    "RetryBook",
    "Rule",
    "RuleCounters",
    "RuleError",
    "RulesTable",
    "Summary",
    "first_match",
    "format_errors",
    "matching_rules",
    "parse_rules",
    "plan_for",
    "rule_matches",
    "wildcard_match",
]
