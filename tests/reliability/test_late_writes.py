"""No chunk is stored after a write call has raised.

Found by the hunt's fault programs on S3 (zarrhpc.testing.differential_faults, fsspec
backend): ``Executor.map`` re-raised the first job's failure while the other jobs went
on, so an orthogonal write that had raised ``StoreError`` stored a shard a second later
(its read-merge-upload finishing after the call), over whatever the caller wrote in
between. Now every write path waits for its running jobs (core/_tasks.py).

Reads had the same flaw: a decode still running after the first corrupt chunk raised
wrote into the caller's ``out=`` buffer after the call had returned.

Store here: memory, one key failing at once, every other read slow.
"""

import threading
import time

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage.memory import MemoryStore


class SlowReads(MemoryStore):
    fail_key = None

    def __init__(self):
        super().__init__()
        self.sets_after_raise = []
        self.raised = threading.Event()

    def _get(self, key):
        if self.fail_key is not None and key.endswith(self.fail_key):
            raise StoreError(f"{key}: read failed (injected)")
        if self.fail_key is not None and key.startswith("c/"):
            time.sleep(0.05)
        return super()._get(key)

    def _get_partial_values(self, key_ranges):
        for key, _, _ in key_ranges:
            self._get(key)
        return super()._get_partial_values(key_ranges)

    def _set(self, key, data):
        if self.raised.is_set():
            self.sets_after_raise.append(key)
        super()._set(key, data)


@pytest.mark.parametrize("shards", [None, (4, 4)])
@pytest.mark.parametrize("kind", ["oindex", "vindex", "basic"])
def test_nothing_stored_after_the_call_raised(shards, kind):
    store = SlowReads()
    a = zarrhpc.create_array(store, shape=(16, 16), chunks=(2, 2), shards=shards, dtype="i4",
                             fill_value=0, compressors=None)
    a[...] = 1
    store.fail_key = "c/0/0"
    with zarrhpc.config.set(threads=4):
        with pytest.raises(StoreError, match="injected"):
            if kind == "oindex":
                a.oindex[[0, 3, 5, 7, 9, 11, 13, 15], [1, 4, 6, 8, 10, 12, 14]] = 5
            elif kind == "vindex":
                a.vindex[np.r_[0, 0:16], np.r_[0, 15:-1:-1]] = 5
            else:
                a[1:15:2, 1:15:3] = 5
        store.raised.set()
        time.sleep(0.6)  # a job left running would store its chunk by now
    assert store.sets_after_raise == []


class SlowUploads(MemoryStore):
    """Uploads on a pool, slowly, as a remote store's (`Store.submit_set`)."""

    def __init__(self):
        super().__init__()
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(8)
        self.raised = threading.Event()
        self.sets_after_raise = []

    @property
    def concurrency(self):
        return 8

    def _slow_set(self, key, data):
        time.sleep(0.05)
        if self.raised.is_set():
            self.sets_after_raise.append(key)
        super()._set(key, data)

    def _submit_set(self, key, data):
        return self.pool.submit(self._slow_set, key, bytes(data))

    def _set_values(self, items):
        for f in [self._submit_set(k, d) for k, d in items]:
            f.result()


@pytest.mark.parametrize("shards", [None, (4, 4)])
def test_an_encode_error_while_uploads_are_in_flight(shards):
    """A chunk that cannot be encoded (cast_value out of range) among many being uploaded:
    the CodecError reaches the caller after every upload started has finished."""
    from zarrhpc.errors import CodecError

    store = SlowUploads()
    a = zarrhpc.create_array(store, shape=(32, 32), chunks=(2, 2), shards=shards, dtype="i4",
                             fill_value=0, compressors=None, filters=[{
                                 "name": "cast_value", "configuration": {"data_type": "uint8"}}])
    values = np.ones((32, 32), dtype="i4")
    values[30, 30] = 300  # the last chunk cannot be cast
    with zarrhpc.config.set(threads=2):
        with pytest.raises(CodecError, match="range"):
            a[...] = values
    store.raised.set()
    time.sleep(0.3)
    assert store.sets_after_raise == []
    stored = zarrhpc.open_array(store)[...]
    # every chunk that is stored holds the new values (the others the fill value)
    assert set(np.unique(stored)) <= {0, 1}


def test_no_decode_writes_into_out_after_the_read_raised():
    """A read whose first chunk is corrupt: the other chunks' decodes (slow: cast_value on
    a million elements) must not write into the caller's ``out=`` after the error."""
    from zarrhpc.errors import CorruptChunkError

    store = MemoryStore()
    n = 1 << 20
    a = zarrhpc.create_array(store, shape=(4, n), chunks=(1, n), dtype="i4", fill_value=0,
                             compressors=None, filters=[{"name": "cast_value", "configuration": {
                                 "data_type": "float64"}}])
    a[...] = 3
    store._set("c/0/0", memoryview(b"\x00" * 5))  # corrupt: too short
    out = np.empty((4, n), dtype="i4")
    with zarrhpc.config.set(threads=2):
        with pytest.raises(CorruptChunkError, match="c/0/0"):
            a.read(Ellipsis, out=out)
        out[...] = -1
        time.sleep(0.5)
    assert (out == -1).all()
