"""The qm.ini stanzas the engine's log and data manager read (``Log:``, ``TuningParameters:``).

They are data of :mod:`mqpy.config` as much as of the engine: defined here, outside
:mod:`mqpy.engine`, so that reading a queue manager's configuration does not load the engine.
"""

from __future__ import annotations

import os

import attrs

#: the log's page (IBM's 4 KB log file pages)
PAGE_SIZE = 4096


@attrs.define
class LogConfig:
    """qm.ini ``Log:`` stanza (IBM's names and defaults)."""

    # 16 MB segments, preallocated like IBM's; MQPY_LOG_FILE_PAGES changes the default (the
    # test suite uses small segments so hundreds of queue managers fit on a small disk)
    LogFilePages: int = attrs.field(
        factory=lambda: int(os.environ.get("MQPY_LOG_FILE_PAGES", "4096")))
    LogPrimaryFiles: int = 3
    LogSecondaryFiles: int = 2

    @property
    def segment_size(self) -> int:
        return self.LogFilePages * PAGE_SIZE

    @property
    def max_segments(self) -> int:
        return self.LogPrimaryFiles + self.LogSecondaryFiles


@attrs.define
class Tuning:
    """qm.ini ``TuningParameters:`` (mqpy's own; LOGLOAD is IBM's z/OS name and default)."""

    LogLoad: int = 10000
    BufferPoolBytes: int = 64 * 1024 * 1024
