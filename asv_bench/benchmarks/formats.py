"""Zarr v2 against v3 on the same data and codec (issue 5: v2 within 10% of v3).

Both formats run the same codec pipeline and kernels (v2 metadata is translated into a
v3-shaped chain), so the times should match; this guards against a v2-only slow path.
"""

import shutil
import tempfile

import numpy as np

import zarrhpc

CODECS = {
    "none": (None, None),
    "blosc-lz4": ({"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle"}},
                  {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}),
    "zstd-1": ({"name": "zstd", "configuration": {"level": 1, "checksum": False}},
               {"id": "zstd", "level": 1}),
}
SHAPE, CHUNKS = (1024, 1024), (256, 256)  # 8 MiB float64, 16 chunks


class FormatReadWrite:
    params = [[2, 3], list(CODECS)]
    param_names = ["zarr_format", "codec"]
    timeout = 120

    def setup(self, zarr_format, codec):
        self.dir = tempfile.mkdtemp(prefix="zarrhpc-asv-")
        rng = np.random.default_rng(0)
        self.data = (rng.standard_normal(SHAPE) * 100).round()
        comp = CODECS[codec][0 if zarr_format == 3 else 1]
        self.arr = zarrhpc.create_array(self.dir, name="a", shape=SHAPE, chunks=CHUNKS,
                                        dtype="f8", compressors=comp, zarr_format=zarr_format)
        self.arr[...] = self.data
        self.out = np.empty_like(self.data)

    def teardown(self, zarr_format, codec):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_write(self, zarr_format, codec):
        self.arr[...] = self.data

    def time_read(self, zarr_format, codec):
        self.arr.read(out=self.out)
