"""Reverse lookups over IBM's constants: number -> name, name -> number.

Error messages, MQSC and PCF output and the DLQ handler's rules table all speak in IBM's
symbolic names (``MQRC_Q_FULL``); this module maps between those names and the numbers held
in the generated modules CMQC, CMQCFC, CMQXC and CMQZC. It owns no values of its own.

Determinism: modules are searched in the order CMQC, CMQCFC, CMQXC, CMQZC and names in their
definition order, and the first name defined for a value wins (MQRC 2120 is
MQRC_CONVERTED_MSG_TOO_BIG, not its later alias). A prefix names a *family*: ``MQRC_`` never
matches ``MQRCCF_``, ``MQCA_`` never matches ``MQCACF_``.

Caution: a few names appear in both CMQC and CMQXC with different values (MQCD_LENGTH_4..6,
MQCD_CURRENT_*; CMQC carries IBM's 32-bit figures). ``value_of`` returns CMQC's; use
``CMQXC.MQCD_*`` for 64-bit channel-definition lengths.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from mqpy import CMQC, CMQCFC, CMQXC, CMQZC

__all__ = ["MODULES", "comp_name", "lookup", "names", "reason_name", "value_of"]

#: Search order for every lookup in this module.
MODULES: tuple[ModuleType, ...] = (CMQC, CMQCFC, CMQXC, CMQZC)


@cache
def _all_names() -> dict[str, int | bytes]:
    """Every constant, first module wins for a name defined in more than one module."""
    table: dict[str, int | bytes] = {}
    for module in MODULES:
        for name, value in vars(module).items():
            if name.startswith("MQ") and isinstance(value, (int, bytes)):
                table.setdefault(name, value)
    return table


def _family(prefix: str) -> str:
    """``'MQRC'`` and ``'MQRC_'`` both mean the MQRC_ family."""
    return prefix if prefix.endswith("_") else prefix + "_"


@cache
def _family_index(prefix: str) -> dict[int | bytes, str]:
    index: dict[int | bytes, str] = {}
    for name, value in _all_names().items():
        if name.startswith(prefix):
            index.setdefault(value, name)
    return index


def names(prefix: str) -> dict[str, int | bytes]:
    """All names of one family with their values, in definition order."""
    family = _family(prefix)
    return {n: v for n, v in _all_names().items() if n.startswith(family)}


def lookup(prefix: str, value: int | bytes) -> str | None:
    """The first-defined name of the ``prefix`` family with this value, or None.

    >>> lookup('MQFB_', 259)
    'MQFB_COA'
    """
    return _family_index(_family(prefix)).get(value)


def reason_name(reason: int) -> str:
    """Name of an MQRC_ (or PCF MQRCCF_) reason code; ``'MQRC_UNKNOWN(n)'``-style if none."""
    name = lookup("MQRC_", reason) or lookup("MQRCCF_", reason)
    return name if name is not None else f"UNKNOWN_REASON({reason})"


def comp_name(comp: int) -> str:
    """Name of a completion code: 0 MQCC_OK, 1 MQCC_WARNING, 2 MQCC_FAILED."""
    name = lookup("MQCC_", comp)
    return name if name is not None else f"UNKNOWN_COMPCODE({comp})"


def value_of(name: str) -> int | bytes:
    """The value of a symbolic constant such as ``'MQRC_Q_FULL'``; KeyError naming it if unknown.

    Surrounding blanks are ignored and the name is matched case-insensitively, because
    MQSC and DLQ rules tables accept ``mqrc_q_full`` as readily as ``MQRC_Q_FULL``.
    """
    key = name.strip().upper()
    try:
        return _all_names()[key]
    except KeyError:
        raise KeyError(f"{name!r} is not an IBM MQ constant") from None
