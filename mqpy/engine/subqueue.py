"""A subqueue: the messages of one priority and persistence of a local queue (a queue is 20
of them), as sequence numbers in arrival order, in chunks, with each cold message's fixed-size
record (:data:`ColdRecord`) beside its number (:class:`Subqueue`)."""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_left, bisect_right

import construct as c

from mqpy.engine.layout import fast
from mqpy.engine.pageset import INDEX_SIZE, IndexEntry

#: A cold message's record: the pageset's index entry as restart reads it, then what the
#: pageset index does not keep (a message loaded at restart has put time 0.0, report 0).
ColdRecord = c.Struct(
    *IndexEntry.subcons,  # 0  priority, persistence, flags, backout, length, expiry, ids
    "put_time" / c.Float64l,  # 68
    "report" / c.Int32sl,  # 76
)  # 80 bytes
_COLD = fast(ColdRecord)
COLD_SIZE = _COLD.size
_COLD_TAIL = b"\x00" * (COLD_SIZE - INDEX_SIZE)
_BLANK = b"\x00" * COLD_SIZE  # the record slot of a live message (the Entry is the truth)
# views of ColdRecord for whole-subqueue scans (iter_unpack): fields at offsets 12, 20, 44, 68
_EXPIRY_IDS = struct.Struct("<12xd24s24s12x")  # expiry, MsgId, CorrelId
_EXPIRY = struct.Struct("<12xd60x")
_PUT_TIME = struct.Struct("<68xd4x")
_LENGTH = struct.Struct("<8xI")  # the data length, of an index entry or a ColdRecord
assert _EXPIRY_IDS.size == _EXPIRY.size == _PUT_TIME.size == COLD_SIZE
_LOAD = 256  # sequence numbers per chunk when appending; a chunk splits above twice that


def _subqueue(priority: int, persistent: bool) -> int:
    return priority * 2 + (1 if persistent else 0)


class Subqueue:
    """One subqueue: its messages' sequence numbers in order, in chunks of ``array('q')``, each
    with a parallel bytearray of COLD_SIZE-byte records, or None while every message of the
    chunk is live (so a queue of live messages pays nothing for records). Chunks keep an insert
    or a delete anywhere a small memmove; ``maxes`` (each chunk's last sequence) finds a chunk.
    """

    __slots__ = ("seqs", "recs", "maxes", "size", "version")

    def __init__(self) -> None:
        self.seqs: list[array] = []
        self.recs: list[bytearray | None] = []
        self.maxes: list[int] = []
        self.size = 0
        self.version = 0  # changes with every insert or delete, so iterators can re-seek

    def __len__(self) -> int:
        return self.size

    def records(self, ci: int) -> bytearray:
        """Chunk ``ci``'s records, made real if the chunk had none (about to hold a cold one)."""
        recs = self.recs[ci]
        if recs is None:
            recs = self.recs[ci] = bytearray(len(self.seqs[ci]) * COLD_SIZE)
        return recs

    def insert(self, seq: int, rec: bytes | None) -> None:
        """Add ``seq`` with its cold record, or with None for a live message."""
        self.size += 1
        self.version += 1
        maxes = self.maxes
        if not maxes or seq > maxes[-1]:
            if maxes and len(self.seqs[-1]) < _LOAD:
                recs = self.recs[-1]
                if rec is not None and recs is None:
                    recs = self.records(len(maxes) - 1)  # before the append: one per message
                self.seqs[-1].append(seq)
                if recs is not None:
                    recs += rec if rec is not None else _BLANK
                maxes[-1] = seq
            else:
                self.seqs.append(array("q", (seq,)))
                self.recs.append(bytearray(rec) if rec is not None else None)
                maxes.append(seq)
            return
        ci = bisect_left(maxes, seq)
        chunk = self.seqs[ci]
        pos = bisect_left(chunk, seq)
        if chunk[pos] == seq:
            self.size -= 1
            raise KeyError(seq)
        recs = self.recs[ci]
        if rec is not None and recs is None:
            recs = self.records(ci)
        chunk.insert(pos, seq)
        if recs is not None:
            off = pos * COLD_SIZE
            recs[off:off] = rec if rec is not None else _BLANK
        if len(chunk) > 2 * _LOAD:
            half = len(chunk) // 2
            self.seqs[ci:ci + 1] = [chunk[:half], chunk[half:]]
            if recs is not None:
                cut = half * COLD_SIZE
                self.recs[ci:ci + 1] = [recs[:cut], recs[cut:]]
            else:
                self.recs[ci:ci + 1] = [None, None]
            maxes[ci:ci + 1] = [chunk[half - 1], chunk[-1]]

    def locate(self, seq: int) -> tuple[int, int] | None:
        """(chunk, position) of ``seq``, or None."""
        maxes = self.maxes
        ci = bisect_left(maxes, seq)
        if ci == len(maxes):
            return None
        chunk = self.seqs[ci]
        pos = bisect_left(chunk, seq)
        if chunk[pos] != seq:
            return None
        return ci, pos

    def after(self, seq: int) -> tuple[int, int]:
        """(chunk, position) of the first sequence number greater than ``seq``."""
        ci = bisect_right(self.maxes, seq)
        if ci == len(self.maxes):
            return ci, 0
        return ci, bisect_right(self.seqs[ci], seq)

    def delete(self, ci: int, pos: int) -> None:
        self.size -= 1
        self.version += 1
        chunk = self.seqs[ci]
        del chunk[pos]
        recs = self.recs[ci]
        if recs is not None:
            off = pos * COLD_SIZE
            del recs[off:off + COLD_SIZE]
        if not chunk:
            del self.seqs[ci]
            del self.recs[ci]
            del self.maxes[ci]
        elif pos == len(chunk):
            self.maxes[ci] = chunk[-1]
