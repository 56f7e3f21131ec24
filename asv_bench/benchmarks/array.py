"""Array reads and writes through the whole stack (store, codecs, kernels), small sizes.

Mirrors zarrhpc/core/array.py with scaled-down versions of issue 3's standard workloads:
full writes and reads (W1/W2), an unaligned sub-volume (W3), single elements and 8^3
blocks (W4), opening an array (W6) and an array of many small chunks (W7). Public API only.

The arrays are written once per class by ``setup_cache``, in the temporary directory asv
makes for it and removes afterwards (``make bench`` puts it in /dev/shm); ``setup``, which
asv runs again before every timed call, only opens them.
"""

import os

import numpy as np

import zarrhpc

from ._data import COMPRESSORS, field, touched

SHAPE, CHUNKS = (128, 128, 128), (32, 32, 32)  # 8 MiB float32, 64 chunks of 128 KiB


class ArrayReadWrite:
    """W1/W2/W3 at 8 MiB: MB/s = 8 MiB / time."""

    params = [list(COMPRESSORS)]
    param_names = ["codec"]
    timeout = 120

    def setup_cache(self):
        data = field(SHAPE, "f4")
        np.save("data.npy", data)
        for codec, compressors in COMPRESSORS.items():
            a = zarrhpc.create_array("arrays", name=codec, shape=SHAPE, chunks=CHUNKS,
                                     dtype="f4", compressors=compressors)
            a[...] = data
        return os.path.abspath(".")

    setup_cache.timeout = 300

    def setup(self, root, codec):
        self.data = np.load(os.path.join(root, "data.npy"))
        self.arr = zarrhpc.open_array(os.path.join(root, "arrays"), path=codec, mode="r+")
        self.out = touched(SHAPE, "f4")

    def time_write_full(self, root, codec):
        self.arr[...] = self.data

    def time_read_full(self, root, codec):
        self.arr[...]

    def time_read_full_into(self, root, codec):
        self.arr.read(Ellipsis, out=self.out)

    def time_read_unaligned(self, root, codec):
        self.arr[20:100, 7:90, 1:127]

    def peakmem_read_full(self, root, codec):
        self.arr[...]


class SmallOps:
    """W4/W6: fixed costs per request, on uncompressed 128 KiB chunks."""

    timeout = 60

    def setup_cache(self):
        a = zarrhpc.create_array("small", name="a", shape=SHAPE, chunks=CHUNKS, dtype="f4",
                                 compressors=None)
        a[...] = field(SHAPE, "f4")
        return os.path.abspath("small")

    def setup(self, path):
        self.arr = zarrhpc.open_array(path, path="a", mode="r+")
        self.points = [tuple(p) for p in np.random.default_rng(1).integers(0, 120, (20, 3))]

    def time_open_array(self, path):
        zarrhpc.open_array(path, path="a")

    def time_open_group(self, path):
        zarrhpc.open_group(path)

    def time_single_element_read(self, path):
        self.arr[17, 99, 3]

    def time_single_element_reads_20(self, path):
        arr = self.arr
        for i, j, k in self.points:
            arr[i, j, k]

    def time_block_8x8x8_read(self, path):
        self.arr[40:48, 60:68, 100:108]

    def time_single_element_write(self, path):
        self.arr[17, 99, 3] = 1.0


class ManyChunks:
    """W7 at 8 MiB: float64 (1024, 1024) in 1024 chunks of (32, 32) = 8 KiB, uncompressed:
    the per-chunk overhead of the read and write paths (time / 1024 = cost per chunk)."""

    timeout = 120

    def setup_cache(self):
        data = field((1024, 1024), "f8")
        np.save("data.npy", data)
        a = zarrhpc.create_array("many", name="a", shape=(1024, 1024), chunks=(32, 32),
                                 dtype="f8", compressors=None)
        a[...] = data
        return os.path.abspath(".")

    def setup(self, root):
        self.data = np.load(os.path.join(root, "data.npy"))
        self.arr = zarrhpc.open_array(os.path.join(root, "many"), path="a", mode="r+")
        self.out = touched((1024, 1024), "f8")

    def time_write(self, root):
        self.arr[...] = self.data

    def time_read(self, root):
        self.arr.read(Ellipsis, out=self.out)

    def time_read_row_of_chunks(self, root):
        self.arr[100:132, :]
