"""Encode buffers reused across the chunks of one write (`EncodePool`).

Why: a remote write encodes every chunk into new memory -- the bytes codec's contiguous
copy and the compressor's output, a fresh allocation each (zeroed, first-touched, then
copied once more into an exact-size ``bytes``) -- while the previous chunks' outputs sit
in uploads that finish moments later. The write path (`zarrhpc.core._write`) lends the
encoders buffers from a pool instead and gives each chunk's buffers back once its upload
has succeeded.

Life cycle: the write path makes one `EncodePool` per call and encodes each chunk inside
``with pool.lending() as lent:``; while that block runs on a thread, a codec asking
`lend` gets a buffer from the pool (elsewhere `lend` returns None and the codec allocates
as before: codecs return what they always did outside a pooled write). ``lent`` lists the
buffers the chunk took; the write path passes them to `EncodePool.give_back` when the
chunk's upload has completed without error. A failed, retried or cancelled upload never
gives its buffers back: they are freed when the last reference goes.

Safety does not rest on that bookkeeping alone: a buffer given back is lent again only
once nothing else can read it -- no memoryview of it or numpy view left anywhere, no
buffer exported to a client library (obstore holds its PUT body zero-copy while the
request lives), checked by its reference count (`_unreferenced`) at the moment it is
lent. A buffer still held is kept aside and checked again later, never written.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import deque
from collections.abc import Iterator

import numpy as np

__all__ = ["EncodePool", "lend"]

_local = threading.local()


#: Buffers lent per chunk: the bytes codec's copy and the compressor's output. A codec
#: encoding many pieces per chunk (a shard's inner chunks) allocates the rest itself, so
#: a shard's upload never holds a buffer per inner chunk.
_PER_CHUNK = 2


def lend(nbytes: int) -> np.ndarray | None:
    """A 1-d ``uint8`` buffer of at least ``nbytes`` bytes from the pool lending on this
    thread (contents undefined), or None when no pooled write is encoding here (or this
    chunk has had its share)."""
    pool = getattr(_local, "pool", None)
    if pool is None or len(_local.lent) >= _PER_CHUNK:
        return None
    buf = pool._take(nbytes)
    _local.lent.append(buf)
    return buf


def _unreferenced(buf: np.ndarray) -> bool:
    # the caller's name and getrefcount's argument: any other reference (a memoryview's
    # managed buffer, a numpy view's base, an exported Py_buffer) means someone may
    # still read it
    return sys.getrefcount(buf) <= 3


class EncodePool:
    """Buffers lent to the encoders of one write (see the module docstring).

    Parameters
    ----------
    max_bytes : int
        The most bytes kept for reuse (beyond it, buffers given back are dropped).
    """

    def __init__(self, max_bytes: int = 256 << 20) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._back: deque[np.ndarray] = deque()  # given back, not yet checked
        self._kept = 0  # bytes in _back
        self.reused = 0  # buffers lent again (tests, benchmarks)
        self.made = 0

    @contextlib.contextmanager
    def lending(self) -> Iterator[list[np.ndarray]]:
        """Lend buffers to codecs on this thread inside the block; yields the list of
        buffers lent (to give back once the chunk's bytes are no longer needed)."""
        lent: list[np.ndarray] = []
        outer = getattr(_local, "pool", None), getattr(_local, "lent", None)
        _local.pool, _local.lent = self, lent
        try:
            yield lent
        finally:
            _local.pool, _local.lent = outer

    def give_back(self, buffers: list[np.ndarray]) -> None:
        """Offer ``buffers`` for reuse (after the upload of what they hold succeeded)."""
        with self._lock:
            for buf in buffers:
                if self._kept + buf.nbytes <= self.max_bytes:
                    self._back.append(buf)
                    self._kept += buf.nbytes

    def settle(self, lent: list[np.ndarray]) -> list[np.ndarray]:
        """Give back at once the buffers of ``lent`` that nothing references any more (a
        copy the next codec has consumed); return the others (the chunk's bytes)."""
        held = []
        for _ in range(len(lent)):
            buf = lent.pop()
            if _unreferenced(buf):
                self.give_back([buf])
            else:
                held.append(buf)
            del buf
        return held

    def _take(self, nbytes: int) -> np.ndarray:
        with self._lock:
            # a few candidates, oldest first; one still referenced goes to the back
            for _ in range(min(len(self._back), 4)):
                buf = self._back.popleft()
                if buf.nbytes >= nbytes and _unreferenced(buf):
                    self._kept -= buf.nbytes
                    self.reused += 1
                    return buf
                if buf.nbytes >= nbytes:
                    self._back.append(buf)
                else:  # another size: not of this write's chunks
                    self._kept -= buf.nbytes
                del buf
            self.made += 1
        return np.empty(nbytes, dtype=np.uint8)
