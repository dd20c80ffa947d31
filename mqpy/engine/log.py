"""The recovery log's vocabulary: a record as written (header, CRC-32; :func:`encode_record`,
:class:`LogRecord`), the qm.ini ``Log:`` stanza (:class:`LogConfig`), the log's errors and its
counters (:class:`LogStats`). It knows nothing of messages or queues: a record is a type byte
and a payload.

The log itself is :class:`~mqpy.engine.recoverylog.RecoveryLog`; how it works, and what was
measured to choose it, is in docs/engine/log.md.
"""

from __future__ import annotations

import errno
import zlib

import attrs
import construct as c

from mqpy.engine.layout import fast
from mqpy.qmstanzas import PAGE_SIZE as PAGE_SIZE
from mqpy.qmstanzas import LogConfig as LogConfig

RecordHeader = c.Struct(
    "magic" / c.Const(b"LR"),  # 0
    "rtype" / c.Int8ul,  # 2
    "flags" / c.Int8ul,  # 3
    "length" / c.Int32ul,  # 4  payload length
    "lsn" / c.Int64ul,  # 8  this record's own LSN
    "durable" / c.Int64ul,  # 16 LSN already forced when this record was appended
    "crc" / c.Int32ul,  # 24 CRC-32 of bytes 0..23 and the payload
)  # 28 bytes
_HDR = fast(RecordHeader)
_HEAD = fast(c.Struct(*RecordHeader.subcons[:-1]))  # the header up to its CRC
HEADER_SIZE = _HDR.size
MAGIC = b"LR"
#: Largest payload accepted: a 100 MB message plus its descriptor and headers.
MAX_RECORD = 128 * 1024 * 1024


class LogError(Exception):
    """Base of log failures."""


class LogFull(LogError):
    """No segment can be released: the active log is full (MQRC_RESOURCE_PROBLEM)."""


class LogDiskFull(LogFull):
    """A new segment could not be formatted (disk full, AMQ6708): the log is full as far as
    the caller is concerned, and nothing was appended."""

    def __init__(self, location: str, detail: str) -> None:
        super().__init__(f"disk full formatting a new log file in {location}: {detail}")
        self.location = location
        self.detail = detail


class LogNoSpace(LogDiskFull):
    """A write of the log found the disk full: what it was writing is kept and written again,
    first, by the next write (see Theory of operation), so the log goes on once there is
    space. The records of the round are neither durable nor lost: whoever forced them may
    force again."""

    def __init__(self, directory: str, error: OSError) -> None:
        super().__init__(directory, error.strerror or str(error))


#: OSError numbers of a write that a later write may retry: the disk was full (see above)
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class LogWriteError(LogError):
    """Writing or syncing the log failed. What was buffered may or may not be on disk, and
    after a failed fdatasync the kernel may have dropped the pages, so a retry proves
    nothing: the log refuses every later append and force (fail-stop), and restart recovers
    from what the disk holds."""

    def __init__(self, directory: str, error: OSError) -> None:
        super().__init__(f"{error.strerror or error} writing the log in {directory}")
        self.errno = error.errno
        self.detail = f"{error.errno} - {error.strerror or error}"


@attrs.define
class LogCorrupt(LogError):
    """A forced record is damaged: restart must not go on."""

    path: str
    offset: int
    lsn: int

    def __str__(self) -> str:
        return f"log record at LSN {self.lsn} damaged: file {self.path}, offset {self.offset}"


@attrs.frozen
class LogRecord:
    lsn: int
    rtype: int
    payload: bytes

    @property
    def end(self) -> int:
        return self.lsn + HEADER_SIZE + len(self.payload)



def _crc(header_wo_crc: bytes, payload: bytes | memoryview) -> int:
    return zlib.crc32(payload, zlib.crc32(header_wo_crc)) & 0xFFFFFFFF


def encode_record(rtype: int, payload: bytes, lsn: int, durable: int) -> bytes:
    """Header + payload, as written to the log."""
    head = _HEAD.pack(MAGIC, rtype, 0, len(payload), lsn, durable)
    return head + _crc(head, payload).to_bytes(4, "little") + payload


@attrs.define
class LogStats:
    """Counters for statistics (log bytes, records, forces)."""

    records: int = 0
    bytes: int = 0
    forces: int = 0  # write+sync rounds
    #: forces that waited for a round (a commit each, mostly): ``forced / forces`` is the
    #: number of commits an fsync carries
    forced: int = 0
    sync_seconds: float = 0.0  # time spent in the rounds' writes and syncs
    #: rounds that waited for the last round's forcers (_hold), how many of them ended the
    #: wait at its limit (not every one came back), and the time they waited
    holds: int = 0
    hold_timeouts: int = 0
    hold_seconds: float = 0.0
    #: new segments zero-filled by an append that needed them (under the log lock), and
    #: formatted ahead of need by a thread of their own
    formats: int = 0
    formats_ahead: int = 0
