"""Statistics and accounting: IBM's PCF records, the STATINT task, the exporter, test data.

``records`` builds and flattens the messages, ``collector`` puts them every STATINT,
``exporter`` drains them (and the error logs) into JSON Lines for Spark, ``generator`` writes
seeded synthetic data in the exporter's format, ``display`` prints them as amqsmon does.
"""

from mqpy.stats.collector import StatisticsCollector, emit_now, start_statistics
from mqpy.stats.exporter import Exporter, ExportResult
from mqpy.stats.records import ChannelStatsTracker, channel_statistics_from_status

__all__ = ["ChannelStatsTracker", "ExportResult", "Exporter", "StatisticsCollector",
           "channel_statistics_from_status", "emit_now", "start_statistics"]
