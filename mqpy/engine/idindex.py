"""The compact MsgId/CorrelId index of cold messages (:class:`IdIndex`): a hash table of
plain integers, no Python object per message."""

from __future__ import annotations

from array import array


class IdIndex:
    """MsgId or CorrelId -> the messages carrying it, without a Python object per message.

    An open-addressing table (linear probing) of two arrays: the id's hash, and the message as
    ``seq << 5 | subqueue`` (0 empty, -1 deleted). Equal hashes are only candidates: the caller
    compares the ids themselves. Repeated ids simply occupy several slots of one probe run.
    """

    __slots__ = ("_h", "_v", "_mask", "_used", "_filled")

    def __init__(self, capacity: int = 8) -> None:
        self._reset(capacity)

    def _reset(self, capacity: int) -> None:
        self._h = array("q", bytes(8 * capacity))
        self._v = array("q", bytes(8 * capacity))
        self._mask = capacity - 1
        self._used = 0
        self._filled = 0  # used + deleted slots: what the probes must walk

    def __len__(self) -> int:
        return self._used

    @staticmethod
    def capacity_for(n: int) -> int:
        cap = 8
        while cap < n * 2:
            cap *= 2
        return cap

    def add(self, h: int, v: int) -> None:
        if (self._filled + 1) * 4 > (self._mask + 1) * 3:
            self._rebuild(self.capacity_for(self._used + 1))
        hs, vs, mask = self._h, self._v, self._mask
        i = h & mask
        while vs[i] > 0:
            i = (i + 1) & mask
        if vs[i] == 0:
            self._filled += 1
        hs[i] = h
        vs[i] = v
        self._used += 1

    def find(self, h: int) -> list[int]:
        hs, vs, mask = self._h, self._v, self._mask
        i = h & mask
        out = []
        while True:
            v = vs[i]
            if v == 0:
                return out
            if v > 0 and hs[i] == h:
                out.append(v)
            i = (i + 1) & mask

    def discard(self, h: int, v: int) -> None:
        hs, vs, mask = self._h, self._v, self._mask
        i = h & mask
        while True:
            x = vs[i]
            if x == 0:
                return
            if x == v and hs[i] == h:
                vs[i] = -1
                self._used -= 1
                break
            i = (i + 1) & mask
        if not self._used:
            if self._mask > 7:
                self._reset(8)
            else:  # nothing left: every slot is free again
                self._v = array("q", bytes(8 * (self._mask + 1)))
                self._filled = 0
        elif self._used * 8 < self._mask + 1 and self._mask > 63:
            self._rebuild(self.capacity_for(self._used))

    def _rebuild(self, capacity: int) -> None:
        old = [(h, v) for h, v in zip(self._h, self._v, strict=True) if v > 0]
        self._reset(capacity)
        self.extend(old)

    def extend(self, items) -> None:
        """Add many (hash, value) pairs; the table must already be large enough."""
        hs, vs, mask = self._h, self._v, self._mask
        n = 0
        for h, v in items:
            i = h & mask
            while vs[i] != 0:
                i = (i + 1) & mask
            hs[i] = h
            vs[i] = v
            n += 1
        self._used += n
        self._filled += n
