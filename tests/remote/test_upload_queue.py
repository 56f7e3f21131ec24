"""The write path's uploads to a store that uploads concurrently (`UploadQueue`).

No server: a MemoryStore whose `submit_set` runs each upload on a thread pool, slowly,
as a remote store's does. Each chunk's upload starts from the thread that encoded it;
these tests check what that must keep: every chunk stored, the uploads in flight bounded
by the store's concurrency, chunks equal to the fill value erased (found by several encode
threads at once), a failed upload raised with nothing left running.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

import zarrhpc
from zarrhpc.core._write import UploadQueue
from zarrhpc.errors import StoreError
from zarrhpc.storage.memory import MemoryStore


class SlowUploads(MemoryStore):
    """Uploads on a pool of 16 threads, each taking ``delay`` seconds; counts what is in
    flight and can fail the uploads of chosen keys."""

    def __init__(self, limit: int, delay: float = 0.002, fail: str | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.delay = delay
        self.fail = fail
        self.in_flight = 0
        self.max_in_flight = 0
        self.started: list[str] = []
        self._count = threading.Lock()
        self._pool = ThreadPoolExecutor(16)

    @property
    def concurrency(self) -> int:
        return self.limit

    def _slow_set(self, key: str, data: memoryview) -> None:
        with self._count:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.started.append(key)
        try:
            time.sleep(self.delay)
            if self.fail is not None and key.endswith(self.fail):
                raise StoreError(f"{key}: upload failed (injected)")
            self._set(key, data)
        finally:
            with self._count:
                self.in_flight -= 1

    def _submit_set(self, key: str, data: memoryview) -> Future:
        return self._pool.submit(self._slow_set, key, bytes(data))


@pytest.mark.parametrize("threads", [1, 2])
def test_every_chunk_stored_uploads_bounded(threads):
    store = SlowUploads(limit=3)
    data = np.arange(40 * 40, dtype="i4").reshape(40, 40)
    with zarrhpc.config.set(threads=threads):
        a = zarrhpc.create_array(store, shape=data.shape, dtype="i4", chunks=(5, 5))
        a[...] = data
    assert store.in_flight == 0
    assert 2 <= store.max_in_flight <= 3, store.max_in_flight
    assert sorted(store.started) == sorted(f"c/{i}/{j}" for i in range(8) for j in range(8))
    np.testing.assert_array_equal(a[...], data)


def test_fill_chunks_found_by_many_threads_all_erased():
    """Half the chunks become equal to the fill value: each stored copy must go (one
    left behind would read back as the old values)."""
    store = SlowUploads(limit=8, delay=0.0005)
    old = np.arange(1, 64 * 64 + 1, dtype="i4").reshape(64, 64)
    with zarrhpc.config.set(threads=2):
        a = zarrhpc.create_array(store, shape=old.shape, dtype="i4", chunks=(4, 4),
                                 fill_value=0)
        a[...] = old
        new = old.copy()
        new[:, 32:] = 0  # 128 chunks of fill value, among 128 stored again
        a[...] = new
    keys = set(store.list_prefix("c/"))
    assert keys == {f"c/{i}/{j}" for i in range(16) for j in range(8)}
    np.testing.assert_array_equal(a[...], new)


def test_failed_upload_raised_nothing_left_running():
    store = SlowUploads(limit=4, fail="c/3/3")
    data = np.ones((40, 40), dtype="i4")
    a = zarrhpc.create_array(store, shape=data.shape, dtype="i4", chunks=(5, 5))
    with pytest.raises(StoreError, match="c/3/3"):
        a[...] = data
    assert store.in_flight == 0
    assert "c/3/3" not in set(store.list_prefix("c/"))


def test_queue_put_after_a_failure_raises_and_starts_nothing():
    store = SlowUploads(limit=2, fail="bad")
    queue = UploadQueue(store)
    queue.put([("bad", b"x")])
    deadline = time.monotonic() + 30  # until the failed upload has finished (however busy)
    while queue._error is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert queue._error is not None
    with pytest.raises(StoreError, match="bad"):
        queue.put([("good", b"y")])
    assert store.started == ["bad"]
    with pytest.raises(StoreError, match="bad"):
        queue.drain()
