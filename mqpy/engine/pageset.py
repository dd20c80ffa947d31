"""Pagesets: LMDB environments holding the queue manager's state as of the last checkpoint.

This is the only module that opens LMDB. Pageset 0 holds object definitions; the message
pagesets (1 and up; a queue's storage class chooses one) hold persistent messages. Each pageset
is written only by a checkpoint (or by an object change, after its log record is forced), always
in one LMDB transaction together with the LSN from which restart must redo, so a pageset is
always a consistent image "as of" that LSN.

A pageset is a directory holding two LMDB files:
- ``data.mdb`` with the databases ``meta`` (``redo_lsn``, ``next_seq``, ``next_uow``,
  ``next_qid`` as 8-byte little-endian ints), ``msgs`` (message key (queue id, arrival sequence)
  -> message record, see records.py) and, on pageset 0, ``objects`` (``TYPE/NAME`` -> JSON);
- ``index.mdb`` with ``idx``: message key -> the compact index entry restart needs (priority,
  ids, expiry, length, backout count). It is a file of its own so that restart reads a few
  megabytes of index and never pages in message bodies.

Space: LMDB grows a file by writing past its end, and a write the full disk cuts short is
reported as an I/O error (EIO), with the file left grown by what was written. So before a
transaction that may grow a file, the space it may take beyond the pages LMDB has free is
reserved (``posix_fallocate``): a full disk refuses it before anything is written, as
:class:`PagesetFull` naming ENOSPC, and the queue manager carries on from its log until a later
checkpoint finds the space (nothing is left half-written, nothing is kept from before). An
error LMDB reports anyway is named ENOSPC when the file system has no space left.

A checkpoint writes ``data.mdb`` first, then ``index.mdb``, then the redo point in pageset 0's
meta. A crash between them leaves at worst a body without an index entry or an index entry
whose delete is pending; restart redoes from the previous redo point, which re-creates the one
and re-applies the other, so the order is all the atomicity needed.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable, Iterator

import construct as c
import lmdb

from mqpy import filemodes
from mqpy.engine.layout import fast

#: Virtual size of the memory map; LMDB grows the file only as pages are used.
DEFAULT_MAP_SIZE = 64 * 1024**3

IndexEntry = c.Struct(
    "priority" / c.Int8ul,  # 0
    "persistence" / c.Int8ul,  # 1
    "flags" / c.Int16ul,  # 2
    "backout_count" / c.Int32ul,  # 4
    "length" / c.Int32ul,  # 8  data length
    "expiry_at" / c.Float64l,  # 12 absolute deadline, 0 = never
    "msgid" / c.Bytes(24),  # 20
    "correlid" / c.Bytes(24),  # 44
)  # 68 bytes
_IDX = fast(IndexEntry)
INDEX_SIZE = _IDX.size
_NONE = b"\x00" * 24
#: pages a transaction may take beyond its records' own (branch pages copied on write, the
#: free list, the meta pages' neighbours): reserved with them
_SLACK_PAGES = 16
#: OSError numbers that mean a full file system, not a failing one
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def pack_index(priority: int, backout: int, length: int, expiry_at: float, msgid: bytes,
               correlid: bytes) -> bytes:
    return _IDX.pack(priority, 1, 0, backout, length, expiry_at, msgid, correlid)


def unpack_index(raw: bytes) -> tuple[int, int, int, float, bytes, bytes]:
    """Return (priority, backout_count, length, expiry_at, msgid, correlid)."""
    prio, _pers, _flags, backout, length, expiry_at, msgid, correlid = _IDX.unpack(raw)
    if correlid == _NONE:
        correlid = _NONE  # one shared object for the usual MQCI_NONE
    return prio, backout, length, expiry_at or 0.0, msgid, correlid


class PagesetError(Exception):
    """The pageset cannot be opened or written (damaged file, full disk)."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail


class PagesetFull(PagesetError):
    """No space left for the pageset (MQRC_STORAGE_MEDIUM_FULL / PAGESET_FULL, 2192)."""


def _pages(nbytes: int, psize: int) -> float:
    """Pages LMDB takes for a value of ``nbytes``: overflow pages for a large one, a share of
    a leaf (counted twice: leaves split half full) for a small one."""
    if nbytes > psize // 2:
        return -(-(nbytes + 16) // psize)
    return 2 * (nbytes + 16) / psize


def _used(stat: dict) -> int:
    """Pages a database's statistics count as in use."""
    return stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]


def _int(v: bytes | None, default: int = 0) -> int:
    return int.from_bytes(v, "little") if v is not None else default


class Pageset:
    """One LMDB environment: a numbered pageset of one queue manager."""

    def __init__(self, directory: str, psid: int, map_size: int = DEFAULT_MAP_SIZE) -> None:
        self.psid = psid
        self.path = os.path.join(directory, f"pageset{psid:02d}")
        filemodes.makedirs(self.path)
        try:  # (mode: the data file's and its lock file's; LMDB's own default is 0755)
            self.env = lmdb.open(os.path.join(self.path, "data.mdb"), map_size=map_size,
                                 max_dbs=8, subdir=False, readahead=False, meminit=False,
                                 mode=filemodes.FILE_MODE)
            self._meta = self.env.open_db(b"meta")
            self._msgs = self.env.open_db(b"msgs")
            self._objects = self.env.open_db(b"objects")
        except lmdb.Error as exc:
            raise PagesetError(os.path.join(self.path, "data.mdb"), str(exc)) from exc
        try:
            self.ienv = lmdb.open(os.path.join(self.path, "index.mdb"), map_size=map_size,
                                  max_dbs=2, subdir=False, readahead=False, meminit=False,
                                  mode=filemodes.FILE_MODE)
            self._idx = self.ienv.open_db(b"idx")
        except lmdb.Error as exc:
            raise PagesetError(os.path.join(self.path, "index.mdb"), str(exc)) from exc
        # (descriptors of the files, for reserving space: see Space above)
        self._fds = {self.env: os.open(self.env.path(), os.O_RDWR),
                     self.ienv: os.open(self.ienv.path(), os.O_RDWR)}

    # ------------------------------------------------------------------ space

    def _reserve(self, env: lmdb.Environment, dbs: Iterable, sizes: Iterable[int]) -> None:
        """Make sure the file of ``env`` has the space a transaction writing values of
        ``sizes`` bytes may take, beyond the pages LMDB has free in it (those of its
        databases ``dbs`` and meta pages not counted as used): allocated now, or
        :class:`PagesetFull` (ENOSPC) with nothing written."""
        psize = env.stat()["psize"]
        need = int(sum(_pages(n, psize) for n in sizes)) + _SLACK_PAGES
        last = env.info()["last_pgno"] + 1
        with env.begin() as txn:
            used = 2 + sum(_used(txn.stat(db)) for db in dbs) + _used(env.stat())
        end = (last + max(0, need - max(0, last - used))) * psize
        fd = self._fds[env]
        size = os.fstat(fd).st_size
        if end <= size:
            return
        try:
            os.posix_fallocate(fd, size, end - size)
        except OSError as exc:
            if exc.errno in NO_SPACE:
                raise PagesetFull(env.path(), os.strerror(exc.errno)) from exc
            # (EOPNOTSUPP / EINVAL: a file system that cannot reserve; LMDB writes as it can)

    def _failed(self, exc: lmdb.Error) -> PagesetError:
        """The error to raise for what LMDB reported: a full pageset or disk (PagesetFull,
        naming ENOSPC when the file system has no space left: a write the disk cut short
        is EIO to LMDB), else PagesetError."""
        text = str(exc)
        if isinstance(exc, lmdb.MapFullError):
            return PagesetFull(self.path, text)
        if "No space" in text or "ENOSPC" in text or "quota" in text:
            return PagesetFull(self.path, text)
        if "Input/output error" in text and self._disk_full():
            where = text.split(":", 1)[0]
            return PagesetFull(self.path, f"{where}: {os.strerror(errno.ENOSPC)}")
        return PagesetError(self.path, text)

    def _disk_full(self) -> bool:
        """Has the file system of this pageset (almost) no space left for the queue
        manager's user (less than 1 MB)?"""
        try:
            vfs = os.statvfs(self.path)
        except OSError:
            return False
        return vfs.f_bavail * vfs.f_frsize < 1024 * 1024

    # ------------------------------------------------------------------ meta

    def read_meta(self) -> dict[str, int]:
        with self.env.begin(db=self._meta) as txn:
            return {k.decode(): _int(v) for k, v in txn.cursor()}

    # ------------------------------------------------------------------ messages

    def iter_index(self) -> Iterator[tuple[bytes, bytes]]:
        """All (message key, index entry) pairs, in key order (queue, then arrival)."""
        with self.ienv.begin(db=self._idx, buffers=False) as txn:
            yield from txn.cursor()

    def read_message(self, key: bytes) -> bytes | None:
        with self.env.begin(db=self._msgs) as txn:
            return txn.get(key)

    def apply(self, puts: Iterable[tuple[bytes, bytes, bytes]], deletes: Iterable[bytes],
              index_updates: Iterable[tuple[bytes, bytes]], meta: dict[str, int]) -> None:
        """Write one checkpoint's changes in a single durable transaction.

        ``puts`` are (key, message record, index entry); ``deletes`` are keys; ``index_updates``
        rewrite index entries (backout counts) of messages already stored.
        """
        puts = list(puts)
        deletes = list(deletes)
        index_updates = list(index_updates)
        try:
            if puts or deletes or meta:
                self._reserve(self.env, (self._meta, self._msgs, self._objects),
                              (len(k) + len(r) for k, r, _ in puts))
                with self.env.begin(write=True) as txn:
                    for key, record, _idx in puts:
                        txn.put(key, record, db=self._msgs)
                    for key in deletes:
                        txn.delete(key, db=self._msgs)
                    for name, value in meta.items():
                        txn.put(name.encode(), value.to_bytes(8, "little"), db=self._meta)
            if puts or deletes or index_updates:
                self._reserve(self.ienv, (self._idx,), (len(k) + INDEX_SIZE for k, _, _ in puts))
                with self.ienv.begin(write=True) as txn:
                    for key, _record, idx in puts:
                        txn.put(key, idx, db=self._idx)
                    for key in deletes:
                        txn.delete(key, db=self._idx)
                    for key, idx in index_updates:
                        if txn.get(key, db=self._idx) is not None:
                            txn.put(key, idx, db=self._idx)
        except lmdb.Error as exc:
            raise self._failed(exc) from exc

    def pages_used(self) -> tuple[int, int]:
        """(pages in use, pages in the map) for statistics."""
        info = self.env.info()
        stat = self.env.stat()
        return info["last_pgno"] + 1, info["map_size"] // stat["psize"]

    # ------------------------------------------------------------------ objects (pageset 0)

    def load_objects(self) -> list[dict]:
        with self.env.begin(db=self._objects) as txn:
            return [json.loads(v) for _, v in txn.cursor()]

    def store_object(self, objtype: str, name: str, definition: dict | None) -> None:
        self.store_objects([(objtype, name, definition)])

    def store_objects(self, changes: list[tuple[str, str, dict | None]]) -> None:
        """Object definitions (``(objtype, name, definition)``, None: deleted) written in one
        transaction, in their order."""
        items = [(f"{objtype}/{name}".encode(),
                  None if definition is None else json.dumps(definition, sort_keys=True).encode())
                 for objtype, name, definition in changes]
        try:
            self._reserve(self.env, (self._meta, self._msgs, self._objects),
                          tuple(len(key) + len(value or b"{}") for key, value in items))
            with self.env.begin(write=True, db=self._objects) as txn:
                for key, value in items:
                    if value is None:
                        txn.delete(key)
                    else:
                        txn.put(key, value)
        except lmdb.Error as exc:
            raise self._failed(exc) from exc

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds = {}
        self.env.close()
        self.ienv.close()
