"""Selections through the whole stack, small sizes: issue 15's W8-W11 and the W4 block.

Scaled-down versions of ``zarrhpc bench`` W8 (vindex: random points), W9 (oindex: random
indices per axis), W10 (a 1 % boolean mask), W11 (vindex on a sharded array) and W4's
8^3 blocks, uncompressed and blosc lz4. Public API only: ``a.vindex``, ``a.oindex``,
``a.vindex[mask]``, ``a[box]``; a method that does not exist yet is skipped.

The arrays are written once per class by ``setup_cache`` in asv's temporary directory.
"""

import os

import numpy as np

import zarrhpc

from ._data import COMPRESSORS, field

SHAPE, CHUNKS = (128, 128, 128), (32, 32, 32)  # 8 MiB float32, 64 chunks of 128 KiB
SHARDS, INNER = (64, 64, 64), (16, 16, 16)
CODECS = ["none", "blosc-lz4"]


def _selections(shape, seed=15):
    rng = np.random.default_rng(seed)
    points = tuple(rng.integers(0, n, 10_000) for n in shape)
    ortho = tuple(rng.choice(n, 16, replace=False) for n in shape)
    mask = rng.random(shape) < 0.01
    blocks = []
    for _ in range(200):
        lo = [int(rng.integers(0, n - 8 + 1)) for n in shape]
        blocks.append(tuple(slice(a, a + 8) for a in lo))
    return points, ortho, mask, blocks


class Selections:
    """W8/W9/W10/W11 and W4 blocks at 8 MiB: time per selection."""

    params = [CODECS]
    param_names = ["codec"]
    timeout = 120

    def setup_cache(self):
        data = field(SHAPE, "f4")
        for codec in CODECS:
            compressors = COMPRESSORS[codec]
            a = zarrhpc.create_array("arrays", name=codec, shape=SHAPE, chunks=CHUNKS,
                                     dtype="f4", compressors=compressors)
            a[...] = data
            s = zarrhpc.create_array("arrays", name=f"{codec}-sharded", shape=SHAPE,
                                     chunks=INNER, shards=SHARDS, dtype="f4",
                                     compressors=compressors)
            s[...] = data
        return os.path.abspath(".")

    setup_cache.timeout = 300

    def setup(self, root, codec):
        self.arr = zarrhpc.open_array(os.path.join(root, "arrays"), path=codec, mode="r")
        self.sharded = zarrhpc.open_array(os.path.join(root, "arrays"),
                                          path=f"{codec}-sharded", mode="r")
        if not hasattr(self.arr, "vindex"):
            raise NotImplementedError("no vindex/oindex")
        self.points, self.ortho, self.mask, self.blocks = _selections(SHAPE)

    def time_w8_vindex(self, root, codec):
        self.arr.vindex[self.points]

    def time_w9_oindex(self, root, codec):
        self.arr.oindex[self.ortho]

    def time_w10_mask(self, root, codec):
        self.arr.vindex[self.mask]

    def time_w11_sharded_vindex(self, root, codec):
        self.sharded.vindex[self.points]

    def time_w4_blocks(self, root, codec):
        for b in self.blocks:
            self.arr[b]


class SelectionWrites:
    """W8w/W9w/W10w at 8 MiB: the vindex (distinct points), oindex and 1 % mask writes,
    random values, time per write (each write repeats the same one: same work); W11w:
    the vindex write into the sharded array (shards ``SHARDS``, inner chunks ``INNER``)."""

    params = [CODECS]
    param_names = ["codec"]
    timeout = 120

    def setup(self, codec):
        data = field(SHAPE, "f4")
        self.arr = zarrhpc.create_array(f"writes-{codec}", shape=SHAPE, chunks=CHUNKS,
                                        dtype="f4", compressors=COMPRESSORS[codec],
                                        overwrite=True)
        self.arr[...] = data
        self.sharded = zarrhpc.create_array(f"writes-{codec}-sharded", shape=SHAPE,
                                            chunks=INNER, shards=SHARDS, dtype="f4",
                                            compressors=COMPRESSORS[codec], overwrite=True)
        self.sharded[...] = data
        rng = np.random.default_rng(16)
        flat = rng.choice(data.size, 10_000, replace=False)
        self.points = np.unravel_index(flat, SHAPE)
        self.ortho = tuple(rng.choice(n, 16, replace=False) for n in SHAPE)
        self.mask = rng.random(SHAPE) < 0.01
        self.pv = rng.random(len(flat), dtype=np.float32)
        self.ov = rng.random((16, 16, 16), dtype=np.float32)
        self.mv = rng.random(int(self.mask.sum()), dtype=np.float32)

    def time_w8w_vindex_write(self, codec):
        self.arr.vindex[self.points] = self.pv

    def time_w9w_oindex_write(self, codec):
        self.arr.oindex[self.ortho] = self.ov

    def time_w10w_mask_write(self, codec):
        self.arr.vindex[self.mask] = self.mv

    def time_w11w_sharded_vindex_write(self, codec):
        self.sharded.vindex[self.points] = self.pv
