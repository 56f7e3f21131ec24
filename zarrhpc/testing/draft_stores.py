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

__all__ = ["ENTRY", "put", "root_array_store", "spec_store", "zarr_python2_draft_hierarchy",
           "zarr_python2_draft_root_array", "zarr_python2_store"]

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


ZP2_ENTRY = {"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
             "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
             "metadata_key_suffix": ".json", "extensions": []}
_CODEC = "https://purl.org/zarr/spec/codec/{}/1.0"


def _zp2_array(root, path, data, chunks, data_type, fill, order="C", sep="/",
               compressor=None, filters=None):
    """One array as zarr-python 2.x's experimental v3 wrote it (meta/root/<path>.array.json,
    chunks data/root/<path>/c<i><sep><j>, filters kept in the attributes)."""
    meta = {"shape": list(data.shape),
            "chunk_grid": {"type": "regular", "chunk_shape": list(chunks), "separator": sep},
            "data_type": data_type, "fill_value": fill, "chunk_memory_layout": order,
            "attributes": {"filters": [f.get_config() for f in filters]} if filters else {},
            "extensions": [], "dimension_separator": sep}
    if compressor is not None:
        conf = compressor.get_config()
        meta["compressor"] = {"codec": _CODEC.format(conf.pop("id")), "configuration": conf}
    name = f"root/{path}" if path else "root"
    put(root, f"meta/{name}.array.json", meta)
    prefix = f"data/root/{path}/" if path else "data/root/"
    for coords, chunk in chunks_of(data, chunks):
        arr = np.asfortranarray(chunk) if order == "F" else np.ascontiguousarray(chunk)
        flat = arr.reshape(-1, order="A")
        for f in filters or []:
            flat = f.encode(flat)
        if data.dtype.kind != "O" or not filters:
            flat = np.asarray(flat).tobytes(order="A")
        raw = compressor.encode(flat) if compressor is not None else bytes(flat)
        put(root, prefix + "c" + sep.join(map(str, coords)), bytes(raw))


def zarr_python2_draft_hierarchy(root):
    """A hierarchy in the form zarr-python 2.11-2.18 wrote with its experimental v3 API:
    nested paths, numpy type names (plain and as extension objects), v2-style fill values,
    order F, both separators, compressors by codec URI, filters in the attributes."""
    put(root, "zarr.json", ZP2_ENTRY)
    put(root, "meta/root.group.json", {"attributes": {"title": "zp2"}})
    put(root, "meta/root/foo.group.json", {"attributes": {}})
    expected = {}
    f8 = np.linspace(-2, 2, 35).reshape(5, 7)
    _zp2_array(root, "foo/bar", f8, (2, 3), "<f8", "NaN",
               compressor=numcodecs.Blosc("lz4", 5, 1))
    expected["foo/bar"] = f8
    i2 = (np.arange(30) * 3 - 40).astype(">i2").reshape(6, 5)
    _zp2_array(root, "foo/f_order", i2, (4, 2), ">i2", 7, order="F", sep=".",
               compressor=numcodecs.Zlib(1))
    expected["foo/f_order"] = i2
    s = np.array([b"ab", b"", b"xyz", b"q"], dtype="|S3")
    _zp2_array(root, "bytes", s, (3,), "|S3", "", compressor=numcodecs.GZip(1))
    expected["bytes"] = s
    u = np.array(["é", "ab", "", "z", "yy"], dtype="<U2")
    _zp2_array(root, "text", u, (2,), {"extension": "TODO: unicode array protocol URL",
                                       "type": "<U2", "fallback": None}, "",
               compressor=numcodecs.Zstd(1))
    expected["text"] = u
    o = np.array(["a", "bé", "", "long string"], dtype=object)
    _zp2_array(root, "objects", o, (3,), {"extension": "TODO: object array protocol URL",
                                          "type": "|O", "fallback": None}, "",
               compressor=numcodecs.Zstd(1), filters=[numcodecs.VLenUTF8()])
    expected["objects"] = o
    t = np.array([0, 10**12, -5, 7], dtype="<M8[ns]")
    _zp2_array(root, "times", t, (3,), {"extension": "https://zarr-specs.readthedocs.io/en/"
                                        "latest/extensions/data-types/datetime/v1.0.html",
                                        "type": "<M8[ns]", "fallback": None}, 0)
    expected["times"] = t
    c = np.array([1 + 2j, -3.5j, 0], dtype="<c16")
    _zp2_array(root, "cplx", c, (2,), {"extension": "https://zarr-specs.readthedocs.io/en/"
                                       "core-protocol-v3.0-dev/protocol/extensions/"
                                       "complex-dtypes/v1.0.html", "type": "<c16",
                                       "fallback": None}, [1.0, -1.0])
    expected["cplx"] = c
    rec = np.array([(1, 2.5), (-3, 0.0)], dtype=[("a", "<i4"), ("b", "<f8")])
    _zp2_array(root, "records", rec, (1,), {"extension": "TODO: structured array protocol URL",
                                           "type": [["a", "<i4"], ["b", "<f8"]],
                                           "fallback": None}, "AAAAAAAAAAAAAAAA")
    expected["records"] = rec
    d = np.arange(12, dtype="<f8").reshape(3, 4) ** 2
    _zp2_array(root, "delta", d, (2, 2), "<f8", 0.0, compressor=numcodecs.BZ2(1),
               filters=[numcodecs.Delta("<f8")])
    expected["delta"] = d
    b = np.array([True, False, True])
    _zp2_array(root, "flags", b, (2,), "bool", False)
    expected["flags"] = b
    u1 = np.arange(5, dtype="u1")
    _zp2_array(root, "small", u1, (2,), "u1", 3, compressor=numcodecs.LZMA())
    expected["small"] = u1
    return expected


def zarr_python2_draft_root_array(root):
    """A root array in zarr-python 2's experimental v3 layout (meta/root.array.json)."""
    put(root, "zarr.json", ZP2_ENTRY)
    data = (np.arange(20, dtype="<i4") - 10).reshape(4, 5)
    _zp2_array(root, "", data, (3, 2), "<i4", -1, order="F",
               compressor=numcodecs.Blosc("zstd", 3, 2))
    return data
