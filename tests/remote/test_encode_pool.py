"""Encode buffers reused across a write's chunks (`zarrhpc.codecs._pool.EncodePool`).

What must hold: a buffer is lent again only once nothing can read it -- not while a
memoryview, a numpy view or an exported buffer of it lives (a client library holding a
PUT body, a retry still sending it), never after its upload failed -- and every chunk
stored holds its own bytes. The store below keeps each upload's buffer zero-copy and
reads it only after the upload has been reported done (as a client whose cancelled
request lingers would): reusing a buffer it still holds would change what it stores.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

import zarrhpc
from zarrhpc.codecs._pool import EncodePool, lend
from zarrhpc.errors import StoreError
from zarrhpc.storage.memory import MemoryStore


def test_lent_only_inside_a_pooled_write():
    assert lend(16) is None
    pool = EncodePool()
    with pool.lending() as lent:
        a, b, c = lend(16), lend(16), lend(16)
    assert a is not None and b is not None
    assert c is None  # a chunk's share: the rest allocate as before
    assert len(lent) == 2
    assert lend(16) is None


@pytest.mark.parametrize("holder", ["memoryview", "slice", "numpy-view", "buffer-export"])
def test_a_referenced_buffer_is_not_lent_again(holder):
    pool = EncodePool()
    with pool.lending() as lent:
        buf = lend(64)
    if holder == "memoryview":
        held = memoryview(buf)[:10]
    elif holder == "slice":
        held = memoryview(buf)[:10][2:4]  # a view of a view, the first one released
    elif holder == "numpy-view":
        held = buf[8:].view(np.int32)
    else:  # what a client library holding a PUT body keeps: an exported Py_buffer
        held = memoryview(memoryview(buf))
    del buf
    pool.give_back(lent)
    del lent
    for _ in range(3):
        with pool.lending():
            other = lend(64)
        assert other is not None
        assert not np.shares_memory(other, np.asarray(held))
    assert pool.reused == 0
    held = None
    with pool.lending():
        again = lend(64)
    assert again is not None and pool.reused == 1


def test_settle_keeps_what_the_chunk_bytes_use():
    pool = EncodePool()
    with pool.lending() as lent:
        scratch = lend(32)
        out = lend(40)
        chunk = memoryview(out)[:7]
    del scratch, out
    held = pool.settle(lent)
    assert len(held) == 1 and np.shares_memory(held[0], np.asarray(chunk))
    assert len(pool._back) == 1  # the scratch, free at once


class LingeringStore(MemoryStore):
    """Uploads on threads, each keeping its buffer zero-copy; the bytes are stored only
    after the upload has been reported done (``linger`` calls later), or never when
    the key is in ``fail`` (the upload reported failed, its buffer still read after)."""

    def __init__(self, fail: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.fail = fail
        self._pool = ThreadPoolExecutor(8)
        self._late: list[tuple[str, memoryview]] = []
        self._late_lock = threading.Lock()
        self.bodies: dict[str, list[bytes]] = {}

    @property
    def concurrency(self) -> int:
        return 8

    def _upload(self, key: str, data: memoryview) -> None:
        held = memoryview(data)  # kept, as a client's request body is
        with self._late_lock:
            self._late.append((key, held))
            ready, self._late = self._late[:-4], self._late[-4:]
        for k, view in ready:  # read long after their uploads were reported done
            self.bodies.setdefault(k, []).append(bytes(view))
            if not k.endswith(self.fail):
                self._set(k, view)
        if key.endswith(self.fail):
            raise StoreError(f"{key}: upload failed (injected)")

    def flush(self) -> None:
        with self._late_lock:
            late, self._late = self._late, []
        for k, view in late:
            self.bodies.setdefault(k, []).append(bytes(view))
            if not k.endswith(self.fail):
                self._set(k, view)

    def _submit_set(self, key: str, data: memoryview) -> Future:
        return self._pool.submit(self._upload, key, data)


@pytest.mark.parametrize("compressors", ["blosc", None], ids=["blosc", "none"])
def test_chunks_keep_their_bytes_while_uploads_linger(compressors):
    store = LingeringStore()
    rng = np.random.default_rng(1)
    data = rng.integers(0, 1000, size=(64, 64, 16), dtype="i4")
    codec = ({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                 "shuffle": "shuffle", "typesize": 4}}
             if compressors else None)
    a = zarrhpc.create_array(store, shape=data.shape, dtype=data.dtype, chunks=(8, 8, 16),
                             compressors=codec)
    a[...] = data
    store.flush()
    np.testing.assert_array_equal(a[...], data)
    # what every lingering upload read, long after being reported done, is its chunk
    expected = MemoryStore()
    ref = zarrhpc.create_array(expected, shape=data.shape, dtype=data.dtype,
                               chunks=(8, 8, 16), compressors=codec)
    ref[...] = data
    assert len(store.bodies) == 64
    for key, bodies in store.bodies.items():
        assert bodies == [bytes(expected.get(key))], key


def test_a_failed_upload_never_gives_its_buffer_back(monkeypatch):
    """A buffer whose upload failed is not offered again, whatever its references say
    (a client may hold it in a way no reference count shows)."""
    given: list[np.ndarray] = []
    real = EncodePool.give_back

    def spy(self, buffers):
        given.extend(buffers)
        return real(self, buffers)

    monkeypatch.setattr(EncodePool, "give_back", spy)
    store = LingeringStore(fail=("c/1/1",))
    failed: list[np.ndarray] = []
    upload = store._upload

    def record(key, data):
        if key.endswith("c/1/1"):
            failed.append(np.asarray(data))
        return upload(key, data)

    store._upload = record
    data = np.arange(64 * 64, dtype="i4").reshape(64, 64)
    a = zarrhpc.create_array(store, shape=data.shape, dtype=data.dtype, chunks=(8, 8),
                             compressors=None)  # the bytes codec's buffer is the body
    with pytest.raises(StoreError, match="injected"):
        a[...] = data
    assert failed and given
    assert not any(np.shares_memory(failed[0], b) for b in given)
    store.flush()
    ref = MemoryStore()
    r = zarrhpc.create_array(ref, shape=data.shape, dtype=data.dtype, chunks=(8, 8),
                             compressors=None)
    r[...] = data
    assert store.bodies["c/1/1"] == [bytes(ref.get("c/1/1"))]
