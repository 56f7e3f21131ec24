"""Array read/write through the whole stack (store, codecs, kernels), small sizes.

Mirrors zarrhpc/core: full writes and reads, an unaligned sub-volume, single elements,
and opening an array. Stores live in a temporary directory per benchmark class.
"""

import shutil
import tempfile

import numpy as np

import zarrhpc

COMPRESSORS = {
    "none": None,
    "blosc-lz4": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                    "shuffle": "shuffle"}},
    "zstd-1": {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
    "gzip-1": {"name": "gzip", "configuration": {"level": 1}},
}
SHAPE, CHUNKS = (128, 128, 128), (32, 32, 32)  # 8 MiB float32, 64 chunks


def _field(seed=0):
    rng = np.random.default_rng(seed)
    base = np.linspace(0, 1, SHAPE[-1], dtype="f4")
    return (base + rng.standard_normal(SHAPE, dtype="f4") * 0.01).astype("f4")


class ArrayReadWrite:
    params = [list(COMPRESSORS)]
    param_names = ["codec"]
    timeout = 120

    def setup(self, codec):
        self.dir = tempfile.mkdtemp(prefix="zarrhpc-asv-")
        self.data = _field()
        self.arr = zarrhpc.create_array(self.dir, name="a", shape=SHAPE, chunks=CHUNKS,
                                        dtype="f4", compressors=COMPRESSORS[codec])
        self.arr[...] = self.data
        self.out = np.empty(SHAPE, "f4")

    def teardown(self, codec):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_write_full(self, codec):
        self.arr[...] = self.data

    def time_read_full(self, codec):
        self.arr[...]

    def time_read_full_into(self, codec):
        self.arr.read(Ellipsis, out=self.out)

    def time_read_unaligned(self, codec):
        self.arr[20:100, 7:90, 1:127]

    def peakmem_read_full(self, codec):
        self.arr[...]


class SmallOps:
    timeout = 60

    def setup(self):
        self.dir = tempfile.mkdtemp(prefix="zarrhpc-asv-")
        a = zarrhpc.create_array(self.dir, name="a", shape=SHAPE, chunks=CHUNKS, dtype="f4",
                                 compressors=None)
        a[...] = _field()
        self.arr = a

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_open_array(self):
        zarrhpc.open_array(self.dir, path="a")

    def time_single_element_read(self):
        self.arr[17, 99, 3]

    def time_block_8x8x8_read(self):
        self.arr[40:48, 60:68, 100:108]
