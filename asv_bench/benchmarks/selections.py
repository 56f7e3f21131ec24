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
