"""Benchmarks of zarrhpc.storage: the Store interface on LocalStore, ZipStore and
MemoryStore (the in-process baseline).

Values of 8 KiB (a small chunk, read with one pread) and 2 MiB (above LocalStore's 1 MiB
mmap threshold; ZipStore maps the whole archive). Reads return views where the store can:
the timings include no copy of the data, as on the read path. ``setup_cache`` writes the
stores once, in asv's temporary directory (``make bench`` puts it in /dev/shm); write
benchmarks get a fresh store in a scratch directory before every timed call.
"""

import os

import numpy as np

import zarrhpc
from zarrhpc.storage import LocalStore, MemoryStore, ZipStore

from ._data import COMPRESSORS, field, remove, scratch_dir, touched

STORES = ["local", "zip", "memory"]
SIZES = [8 << 10, 2 << 20]
NKEYS = 16


def _values(size):
    rng = np.random.default_rng(size)
    return {f"a/c/{i}/0": rng.bytes(size) for i in range(NKEYS)}


def _open(kind, root, size, mode="r"):
    if kind == "local":
        return LocalStore(os.path.join(root, f"local-{size}"), read_only=(mode == "r"))
    if kind == "zip":
        return ZipStore(os.path.join(root, f"zip-{size}.zip"), mode=mode)
    return MemoryStore(_values(size)) if mode == "r" else MemoryStore()


class StoreReads:
    """get, get of every key, get_partial_values (a shard-index-like batch of ranges)."""

    params = [STORES, SIZES]
    param_names = ["store", "size"]

    def setup_cache(self):
        root = os.path.abspath(".")
        for size in SIZES:
            for kind in ("local", "zip"):
                with _open(kind, root, size, mode="w") as store:
                    for key, value in _values(size).items():
                        store.set(key, value)
        return root

    def setup(self, root, kind, size):
        self.store = _open(kind, root, size)
        self.keys = list(_values(size)) if kind == "memory" else sorted(self.store.list())
        step = max(size // NKEYS, 1)
        self.ranges = [(self.keys[0], i * step, 512) for i in range(NKEYS)]

    def teardown(self, root, kind, size):
        self.store.close()

    def time_get(self, root, kind, size):
        self.store.get(self.keys[3])

    def time_get_all(self, root, kind, size):
        get = self.store.get
        for key in self.keys:
            get(key)

    def time_get_partial_values(self, root, kind, size):
        self.store.get_partial_values(self.ranges)

    def time_list_dir(self, root, kind, size):
        self.store.list_dir("a/c")


class StoreWrites:
    """set of 16 values into a fresh store (for a zip: appended entries, then close()
    writes the central directory)."""

    params = [STORES, SIZES]
    param_names = ["store", "size"]

    def setup(self, kind, size):
        self.dir = scratch_dir()
        self.values = _values(size)
        self.store = _open(kind, self.dir, size, mode="w")

    def teardown(self, kind, size):
        self.store.close()
        remove(self.dir)

    def time_set(self, kind, size):
        set_ = self.store.set
        for key, value in self.values.items():
            set_(key, value)

    def time_set_and_close(self, kind, size):
        set_ = self.store.set
        for key, value in self.values.items():
            set_(key, value)
        self.store.close()


class ZipOpen:
    """Opening a zip of 10000 entries: parsing its central directory once."""

    def setup_cache(self):
        with ZipStore("many.zip", mode="w") as store:
            for i in range(10000):
                store.set(f"a/c/{i // 100}/{i % 100}", b"x" * 64)
        return os.path.abspath("many.zip")

    def time_open_and_close(self, path):
        ZipStore(path).close()

    def time_open_and_read_one(self, path):
        with ZipStore(path) as store:
            store.get("a/c/50/50")


class ArrayOnStore:
    """An 8 MiB float32 array (64 chunks) read from a directory and from a zip."""

    params = [["local", "zip"], ["none", "blosc-lz4"]]
    param_names = ["store", "codec"]
    shape, chunks = (128, 128, 128), (32, 32, 32)

    def setup_cache(self):
        data = field(self.shape, "f4")
        for codec in self.params[1]:
            for path in (f"{codec}.zarr", f"{codec}.zip"):
                a = zarrhpc.create_array(path, shape=self.shape, chunks=self.chunks,
                                         dtype="f4", compressors=COMPRESSORS[codec])
                a[...] = data
                a.store.close()
        return os.path.abspath(".")

    def setup(self, root, kind, codec):
        path = os.path.join(root, f"{codec}.zarr" if kind == "local" else f"{codec}.zip")
        self.arr = zarrhpc.open_array(path)
        self.out = touched(self.shape, "f4")

    def teardown(self, root, kind, codec):
        self.arr.store.close()

    def time_read_full_into(self, root, kind, codec):
        self.arr.read(Ellipsis, out=self.out)

    def time_read_one_chunk(self, root, kind, codec):
        self.arr[32:64, 32:64, 32:64]
