"""ibmmq's CMQSTRC: for each family of IBM's constants, ``<family>_DICT`` maps a value to its
name (``CMQSTRC.MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"``, ``MQBNO_TIMEOUT_DICT``...).

The tables are made on first use from mqpy's constant modules (:mod:`mqpy.constants`: the
first name defined for a value wins); a family's structure identifiers, versions and
lengths are not in its table, as in IBM's."""

from __future__ import annotations

from functools import cache

from mqpy import constants

#: name parts that mark a structure's own constants rather than a family's values
_STRUCTURAL = ("_STRUC_ID", "_VERSION_", "_CURRENT_VERSION", "_LENGTH_", "_CURRENT_LENGTH")


@cache
def _table(family: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for name, value in constants.names(family).items():
        if isinstance(value, int) and not any(part in name for part in _STRUCTURAL):
            out.setdefault(value, name)
    return out


def __getattr__(name: str) -> dict[int, str]:
    if name.startswith("MQ") and name.endswith("_DICT"):
        table = _table(name.removesuffix("_DICT") + "_")
        if table:
            return table
    raise AttributeError(f"module 'CMQSTRC' has no attribute {name!r}")
