"""Hand-written stores in the 2022 draft of Zarr v3 (test helpers).

Each builder writes one small store byte by byte from the draft's text -- JSON documents
as the draft's examples show them, chunks as element bytes (C or F layout, little or big
endian) passed through the named compressor -- and returns the array data it holds.
"""

from __future__ import annotations

import gzip
import json

import numcodecs
import numpy as np
import zstandard

__all__ = ["ENTRY", "put", "root_array_store", "spec_store", "zarr_python2_store"]

ENTRY = {"zarr_format": "https://purl.org/zarr/spec/core/3.0",
         "metadata_encoding": {"type": "json", "metadata_key_suffix": ".json"},
         "extensions": []}
GZIP = "https://purl.org/zarr/spec/codecs/gzip/1.0"


def put(root, key, value):
    p = root / key
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(value if isinstance(value, bytes) else json.dumps(value, indent=4).encode())


def chunks_of(data, chunk_shape):
    """(coords, chunk array padded to the chunk shape) for every chunk of ``data``."""
    grid = [-(-n // c) for n, c in zip(data.shape, chunk_shape)]
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunk_shape))
        chunk = np.zeros(chunk_shape, dtype=data.dtype)
        part = data[region]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        yield coords, chunk


def spec_store(root):
    """The draft's own example layout: root group, implicit group foo, array foo/bar."""
    put(root, "zarr.json", ENTRY)
    put(root, "meta/group.json", {"attributes": {"spam": "ham", "eggs": 42}})
    data = np.arange(35, dtype="<f8").reshape(5, 7) / 4
    put(root, "meta/foo/bar.array.json", {
        "shape": [5, 7], "data_type": "<f8",
        "chunk_grid": {"type": "regular", "chunk_shape": [2, 3], "separator": "/"},
        "chunk_memory_layout": "C",
        "codecs": [{"type": GZIP, "configuration": {"level": 1}}],
        "fill_value": "NaN", "extensions": [], "attributes": {"foo": 42},
    })
    for coords, chunk in chunks_of(data, (2, 3)):
        if coords == (2, 2):
            continue  # missing: reads as the fill value
        key = "data/foo/bar/c" + "/".join(map(str, coords))
        put(root, key, gzip.compress(chunk.astype("<f8").tobytes(order="C"), mtime=0))
    expected = data.copy()
    expected[4:, 6:] = np.nan
    return expected


def zarr_python2_store(root):
    """zarr-python 2's experimental layout: meta/root..., compressor with a codec URI."""
    put(root, "zarr.json", ENTRY)
    put(root, "meta/root.group.json", {"attributes": {"a": 1}})
    put(root, "meta/root/g.group.json", {"attributes": {}})
    data = (np.arange(30, dtype="i2") * 7 - 50).reshape(6, 5)
    put(root, "meta/root/g/x.array.json", {
        "shape": [6, 5], "data_type": ">i2",
        "chunk_grid": {"type": "regular", "chunk_shape": [4, 2], "separator": "."},
        "chunk_memory_layout": "F",
        "compressor": {"codec": "https://purl.org/zarr/spec/codec/blosc/1.0",
                       "configuration": {"cname": "lz4", "clevel": 5, "shuffle": 1,
                                         "blocksize": 0}},
        "fill_value": None, "extensions": [], "attributes": {},
    })
    blosc = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)
    for coords, chunk in chunks_of(data, (4, 2)):
        raw = chunk.astype(">i2").tobytes(order="F")
        put(root, "data/root/g/x/c" + ".".join(map(str, coords)),
            blosc.encode(np.frombuffer(raw, dtype=">i2")))
    return data


def root_array_store(root):
    """A root array (meta/array.json), float32 named the v3 way, the endian codec (big)
    and zstd."""
    put(root, "zarr.json", ENTRY)
    data = np.linspace(-1, 1, 12, dtype="f4").reshape(3, 4)
    put(root, "meta/array.json", {
        "shape": [3, 4], "data_type": "float32",
        "chunk_grid": {"type": "regular", "chunk_shape": [2, 4], "separator": "/"},
        "chunk_memory_layout": "C",
        "codecs": [{"type": "https://purl.org/zarr/spec/codecs/endian/1.0",
                    "configuration": {"endian": "big"}},
                   {"type": "https://purl.org/zarr/spec/codecs/zstd/1.0",
                    "configuration": {"level": 3}}],
        "fill_value": "-Infinity", "extensions": [], "attributes": {},
    })
    for coords, chunk in chunks_of(data, (2, 4)):
        put(root, "data/c" + "/".join(map(str, coords)),
            zstandard.ZstdCompressor(level=3).compress(chunk.astype(">f4").tobytes()))
    return data
