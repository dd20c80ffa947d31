"""Statistics and accounting: IBM's PCF records, the STATINT task, the exporter, test data.

``records`` builds and flattens the messages (``channels`` counts the channels' intervals),
``collector`` puts them every STATINT, ``exporter`` drains them (and the error logs) into JSON
Lines for Spark, ``generator`` writes seeded synthetic data in the exporter's format,
``display`` prints them as amqsmon does.

The names below load their module when first asked for (``__getattr__``): the daemon imports
the collector, a channel initiator the channels' intervals, and neither the exporter.
"""

from __future__ import annotations

import importlib

#: each name of the package, from the module that defines it
_MODULE_OF = {
    "StatisticsCollector": "mqpy.stats.collector",
    "emit_now": "mqpy.stats.collector",
    "start_statistics": "mqpy.stats.collector",
    "ExportResult": "mqpy.stats.exporter",
    "Exporter": "mqpy.stats.exporter",
    "ChannelStatsTracker": "mqpy.stats.records",
    "channel_statistics_from_status": "mqpy.stats.records",
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> object:
    """A name of the package, from the module that defines it (imported now if it is not
    yet), kept in the package for the next look-up."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
