"""Differential testing of N5 reads: random containers, every selection form, numpy model.

Life cycle: :func:`run_case` draws (from one seed) a dataset -- 1-4 dimensions, a random
shape with edge blocks, block sizes, one of N5's ten data types, a compression -- and a
writer:

- ``"tensorstore"``: tensorstore's ``n5`` driver writes it (whole edge blocks);
- ``"short"``: blocks written here from the N5 format description as Java's N5 and z5py
  lay them out: mode-0 header, edge blocks stored at their cut size;
- ``"varlength"``: the same with mode-1 headers (element count = the block's size);
  (N5's ``lz4``, lz4-java frames, is written here only: tensorstore has no N5 lz4)

some blocks left out (they read as 0). The values are kept in N5's axis order (the
``axis_order="n5"`` view); zarrhpc reads the container through both views (the default
``"zarr2"`` view must equal the transpose) with basic selections (steps, negative steps,
integers), ``oindex``, ``vindex``, boolean masks and ``blocks``, each compared with numpy.
With ``lie=True`` one block's header is made to lie about its size (larger than the
block, another dimension count, a size whose bytes are not there): the read must raise
:class:`~zarrhpc.errors.CorruptChunkError` naming the key, never return values.

Only helpers live here; the test is tests/reliability/test_n5_differential.py, short in
``make test`` and long with ``ZARRHPC_LONG=1``.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import struct
import zlib

import numpy as np

import zarrhpc
from zarrhpc.errors import CorruptChunkError

__all__ = ["COMPRESSIONS", "DTYPES", "run_case"]

DTYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
          "float32", "float64"]
COMPRESSIONS = [{"type": "raw"}, {"type": "gzip"}, {"type": "gzip", "useZlib": True},
                {"type": "bzip2"}, {"type": "xz"}, {"type": "zstd"},
                {"type": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
                {"type": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2},
                {"type": "lz4", "blockSize": 64}, {"type": "lz4"}]


def _compress(comp: dict, data: bytes) -> bytes:
    kind = comp["type"]
    if kind == "raw":
        return data
    if kind == "gzip":
        return zlib.compress(data) if comp.get("useZlib") else gzip.compress(data)
    if kind == "bzip2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ)
    if kind == "zstd":
        import zstandard
        return zstandard.ZstdCompressor().compress(data)
    if kind == "blosc":
        from numcodecs import Blosc
        return bytes(Blosc(cname=comp["cname"], clevel=comp["clevel"],
                           shuffle=comp["shuffle"]).encode(data))
    if kind == "lz4":  # lz4-java's LZ4BlockOutputStream, as Java's N5 writes it
        from numcodecs.lz4 import compress

        out = b""
        size = comp.get("blockSize", 65536)
        for i in range(0, len(data), size):
            piece = data[i:i + size]
            packed = bytes(compress(piece))[4:]  # numcodecs prefixes the decoded size
            raw = len(packed) >= len(piece)
            body = piece if raw else packed
            out += struct.pack("<8sBiii", b"LZ4Block", 0x10 if raw else 0x25, len(body),
                               len(piece), 0) + body
        return out + struct.pack("<8sBiii", b"LZ4Block", 0x10, 0, 0, 0)
    raise ValueError(kind)


def _values(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        out = rng.standard_normal(shape).astype(dtype)
        return out
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def block_bytes(data: np.ndarray, mode: int = 0) -> bytes:
    """One N5 block of ``data`` (N5 axis order) before compression: header and the
    big-endian elements, fastest axis (N5's first) first."""
    sizes = data.shape
    head = struct.pack(f">HH{len(sizes)}I", mode, len(sizes), *sizes)
    if mode == 1:
        head += struct.pack(">i", data.size)
    body = np.asarray(data, dtype=data.dtype.newbyteorder(">")).ravel(order="F").tobytes()
    return head + body


def _write_by_hand(root: str, values, block, comp, mode, missing, rng):
    attrs = {"dimensions": list(values.shape), "blockSize": list(block),
             "dataType": str(values.dtype), "compression": comp}
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "attributes.json"), "w") as f:
        json.dump(attrs, f)
    grid = [-(-n // b) for n, b in zip(values.shape, block)]
    for idx in np.ndindex(*grid):
        if idx in missing:
            continue
        region = tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in
                       zip(idx, block, values.shape))
        raw = block_bytes(values[region], mode)
        path = os.path.join(root, *map(str, idx))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(raw[:4 + 4 * values.ndim + (4 if mode == 1 else 0)]
                    + _compress(comp, raw[4 + 4 * values.ndim + (4 if mode == 1 else 0):]))


def _write_tensorstore(root: str, values, block, comp, missing):
    import tensorstore as ts

    t = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": root},
                 "metadata": {"dimensions": list(values.shape), "blockSize": list(block),
                              "dataType": str(values.dtype), "compression": comp},
                 "create": True}).result()
    written = values.copy()
    grid = [-(-n // b) for n, b in zip(values.shape, block)]
    for idx in np.ndindex(*grid):
        region = tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in
                       zip(idx, block, values.shape))
        if idx in missing:
            written[region] = 0
        else:
            t[region] = values[region]
    return written


def _selection(rng, shape, chunks):
    """One random ``(kind, selection)`` on an array of ``shape``."""
    kind = rng.choice(["basic", "basic", "oindex", "vindex", "mask", "blocks"])
    if kind == "basic":
        sel = []
        for n in shape:
            r = rng.random()
            if r < 0.2 and n:
                sel.append(int(rng.integers(-n, n)))
            else:
                a, b = sorted(int(v) for v in rng.integers(-n - 1, n + 2, 2))
                step = int(rng.choice([1, 1, 2, 3, -1, -2]))
                sel.append(slice(a, b, step) if step > 0 else slice(b, a, step))
        return kind, tuple(sel)
    if kind == "oindex":
        return kind, tuple(np.sort(rng.integers(0, n, int(rng.integers(1, 5))))
                           if rng.random() < 0.7 else slice(None) for n in shape)
    if kind == "vindex":
        k = int(rng.integers(1, 12))
        return kind, tuple(rng.integers(0, n, k) for n in shape)
    if kind == "mask":
        return kind, rng.random(shape) < 0.3
    # blocks: one block index or a block slice per dimension
    sel = []
    for n, c in zip(shape, chunks):
        nb = -(-n // c)
        i = int(rng.integers(0, nb))
        sel.append(i if rng.random() < 0.4 else slice(i, i + int(rng.integers(1, 3))))
    return kind, tuple(sel)


def _expected(model, kind, sel, chunks):
    if kind == "basic":
        return model[sel]
    if kind == "oindex":
        idx = tuple(s if isinstance(s, np.ndarray) else np.arange(n)
                    for s, n in zip(sel, model.shape))
        return model[np.ix_(*idx)]
    if kind in ("vindex", "mask"):
        return model[sel]
    out = []
    for s, c in zip(sel, chunks):
        out.append(slice(s * c, (s + 1) * c) if isinstance(s, int)
                   else slice(s.start * c, s.stop * c))
    return model[tuple(out)]


def _read(arr, kind, sel):
    if kind in ("basic", "mask"):
        return arr[sel]
    return getattr(arr, kind)[sel]


def run_case(seed: int, tmp: str, lie: bool = False) -> dict:
    """One random container in ``tmp`` (a fresh directory) read and checked; returns counts
    ``{"reads": ..., "lies": ...}``. Raises AssertionError on any wrong value."""
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    block = [int(rng.integers(1, 6)) for _ in range(ndim)]
    shape = [int(rng.integers(1, 3 * b + 3)) for b in block]
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    comp = COMPRESSIONS[int(rng.integers(len(COMPRESSIONS)))]
    writer = str(rng.choice(["tensorstore", "short", "varlength"]))
    if writer == "tensorstore" and comp["type"] == "lz4":
        writer = "short"  # tensorstore has no N5 lz4
    values = _values(rng, shape, dtype)
    grid = [-(-n // b) for n, b in zip(shape, block)]
    all_blocks = list(np.ndindex(*grid))
    missing = {all_blocks[i] for i in range(len(all_blocks)) if rng.random() < 0.15}
    root = os.path.join(tmp, f"c{seed}.n5")
    if writer == "tensorstore":
        model = _write_tensorstore(root, values, block, comp, missing)
    else:
        _write_by_hand(root, values, block, comp, 1 if writer == "varlength" else 0,
                       missing, rng)
        model = values.copy()
        for idx in missing:
            model[tuple(slice(i * b, (i + 1) * b) for i, b in zip(idx, block))] = 0
    where = f"seed {seed}: {writer} {dtype} {comp} shape {shape} block {block}"
    reads = 0
    views = {"zarr2": (zarrhpc.open(root, mode="r"), model.T, tuple(block[::-1])),
             "n5": (zarrhpc.open_array(zarrhpc.storage.N5Store(root, axis_order="n5")),
                    model, tuple(block))}
    for name, (arr, want, chunks) in views.items():
        assert arr.shape == want.shape and arr.chunks == chunks, (where, name, arr.shape)
        assert arr.dtype == want.dtype, (where, name)
        got = arr[...]
        assert np.array_equal(got, want), (where, name, "whole array")
        reads += 1
        for _ in range(6):
            kind, sel = _selection(rng, want.shape, chunks)
            exp = _expected(want, kind, sel, chunks)
            got = _read(arr, kind, sel)
            assert np.array_equal(np.asarray(got), exp) and np.shape(got) == exp.shape, (
                where, name, kind, sel)
            reads += 1
    lies = 0
    if lie:
        lies = _lie(rng, root, values, block, comp, where)
    return {"reads": reads, "lies": lies}


def _lie(rng, root, values, block, comp, where) -> int:
    """Rewrite one interior-or-edge block with a lying header; every read of it must fail."""
    grid = [-(-n // b) for n, b in zip(values.shape, block)]
    idx = tuple(int(rng.integers(0, g)) for g in grid)
    region = tuple(slice(i * b, min((i + 1) * b, n)) for i, b, n in zip(idx, block, values.shape))
    data = values[region]
    ndim = values.ndim
    raw = block_bytes(data)
    head, body = raw[:4 + 4 * ndim], raw[4 + 4 * ndim:]
    sizes = list(data.shape)
    how = str(rng.choice(["larger", "ndim", "fewer_bytes", "more_bytes", "count"]))
    if how == "larger":
        d = int(rng.integers(ndim))
        sizes[d] = block[d] + int(rng.integers(1, 3))
        head = struct.pack(f">HH{ndim}I", 0, ndim, *sizes)
    elif how == "ndim":
        head = struct.pack(f">HH{ndim + 1}I", 0, ndim + 1, *sizes, 1)
    elif how == "fewer_bytes":
        if len(body) == 0:
            return 0
        body = body[:-int(rng.integers(1, len(body) + 1))]
    elif how == "more_bytes":
        body = body + bytes(int(rng.integers(1, 9)))
    else:  # mode 1 whose count is not the size's product
        head = struct.pack(f">HH{ndim}Ii", 1, ndim, *sizes, data.size + 1)
    path = os.path.join(root, *map(str, idx))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head + _compress(comp, body))
    for axis_order in ("zarr2", "n5"):
        arr = zarrhpc.open_array(zarrhpc.storage.N5Store(root, axis_order=axis_order))
        sel = tuple(region) if axis_order == "n5" else tuple(region[::-1])
        try:
            got = arr[sel]
        except CorruptChunkError:
            continue
        raise AssertionError(f"{where}: block {idx} with a lying header ({how}) read as "
                             f"{got!r}, expected CorruptChunkError")
    return 1
