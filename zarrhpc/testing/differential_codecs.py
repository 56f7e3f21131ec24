"""Random write/read programs on the codecs zarrs brought (new in the sixth session).

Life cycle: :func:`run_program` draws (from one seed) an array -- 1-4 dimensions with edge
chunks, sometimes sharded, sometimes zstd-compressed -- whose chain holds one of
``zarrs.squeeze``, ``reshape``, ``cast_value``, ``scale_offset``, ``zfp`` (reversible),
``numcodecs.zfpy`` (reversible), ``zarrs.vlen`` (each index type, endianness and
location) or ``zarrs.vlen_v2``; then ten rounds of a random write (basic with integers,
orthogonal, coordinate, mask) followed by three random reads (also ``blocks``) through a
freshly opened handle, each compared with a numpy model. Values are chosen so that every
codec is lossless on them.

Only helpers live here; the test is tests/reliability/test_codecs_differential.py.
"""

from __future__ import annotations

import numpy as np

import zarrhpc
from zarrhpc.testing.differential_n5 import _expected, _read, _selection

__all__ = ["run_program"]


def _layout(rng):
    ndim = int(rng.integers(1, 5))
    chunks = [int(rng.choice([1, 1, 2, 3, 4])) for _ in range(ndim)]
    shape = [int(rng.integers(1, 3 * c + 3)) for c in chunks]
    kind = str(rng.choice(["squeeze", "reshape", "cast", "scale", "zfp", "vlen", "vlen2", "zfpy"]))
    dtype = str(rng.choice(["<i4", "<u2", "<f8", "<f4", "i1"]))
    filters, serializer, compressors = [], "auto", None
    if kind == "squeeze":
        filters = [{"name": "zarrs.squeeze"}]
    elif kind == "reshape":
        filters = [{"name": "reshape", "configuration": {"shape": [-1]}}] if rng.random() < .5 else \
                  [{"name": "reshape", "configuration": {"shape": [list(range(ndim))]}}]
    elif kind == "cast":
        dtype = "<i4"
        filters = [{"name": "cast_value", "configuration": {"data_type": "float64"}}]
    elif kind == "scale":
        dtype = "<f8"
        filters = [{"name": "scale_offset", "configuration": {"offset": 3, "scale": 4}}]
    elif kind in ("zfp", "zfpy"):
        dtype = "<f8"
        serializer = ({"name": "zfp", "configuration": {"mode": "reversible"}} if kind == "zfp"
                      else {"name": "numcodecs.zfpy", "configuration": {"mode": 5}})
        if rng.random() < .5:
            filters = [{"name": "zarrs.squeeze"}]
    elif kind == "vlen":
        dtype = str
        serializer = {"name": "zarrs.vlen", "configuration": {
            "index_codecs": [{"name": "bytes", "configuration": {"endian": str(rng.choice(["little", "big"]))}}],
            "data_codecs": [{"name": "bytes"}], "index_data_type": str(rng.choice(["uint32", "uint64"])),
            "index_location": str(rng.choice(["start", "end"]))}}
    elif kind == "vlen2":
        dtype = str
        serializer = {"name": "zarrs.vlen_v2"}
    if rng.random() < 0.3 and kind not in ("zfp", "zfpy"):
        compressors = [{"name": "zstd", "configuration": {"level": 1}}]
    shards = None
    if rng.random() < 0.35:
        shards = [c * int(rng.integers(1, 3)) for c in chunks]
    return dict(shape=shape, chunks=chunks, shards=shards, dtype=dtype, filters=filters,
                serializer=serializer, compressors=compressors), kind

def _values(rng, shape, dtype):
    if dtype is str:
        pool = np.array(["", "a", "héllo", "xyz" * 5, "日本"], dtype=object)
        return pool[rng.integers(0, len(pool), shape)]
    d = np.dtype(dtype)
    if d.kind == "f":
        return (rng.integers(-1000, 1000, shape) / 4).astype(d)
    info = np.iinfo(d)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(d)

def _write(rng, a, model, lay, chunks) -> None:
    """One random write to ``a`` and the model (targets without duplicates)."""
    k, sel = _selection(rng, model.shape, chunks)
    if k == "blocks" or (k == "basic" and any(isinstance(s, slice) and (s.step or 1) < 0
                                              for s in sel)):
        k, sel = "basic", tuple(slice(int(rng.integers(0, n)), None) for n in model.shape)
    v = _values(rng, model.shape, lay["dtype"])
    if k == "oindex":
        idx = tuple(np.unique(s) if isinstance(s, np.ndarray) else np.arange(n)
                    for s, n in zip(sel, model.shape))
        model[np.ix_(*idx)] = v[np.ix_(*idx)]
        a.oindex[idx] = v[np.ix_(*idx)]
    elif k == "vindex":
        pts = np.unravel_index(np.unique(np.ravel_multi_index(sel, model.shape)), model.shape)
        model[pts] = v[pts]
        a.vindex[pts] = v[pts]
    else:  # basic or mask
        model[sel] = v[sel]
        a[sel] = v[sel]


def run_program(seed: int, tmp: str) -> str:
    """One random program in the directory ``tmp``; returns the codec it tried."""
    rng = np.random.default_rng(seed)
    lay, kind = _layout(rng)
    fill = "" if lay["dtype"] is str else 0
    if kind == "scale":
        fill = 3
    a = zarrhpc.create_array(tmp + "/a", fill_value=fill, **lay)
    model = np.full(lay["shape"], fill, dtype=object if lay["dtype"] is str else lay["dtype"])
    chunks = tuple(lay["shards"] or lay["chunks"])  # blocks index the stored chunks (shards)
    for step in range(10):
        if rng.random() < 0.5:
            _write(rng, a, model, lay, chunks)
        b = zarrhpc.open_array(tmp + "/a")
        for _ in range(3):
            k, sel = _selection(rng, model.shape, chunks)
            exp = np.asarray(_expected(model, k, sel, chunks), dtype=model.dtype)
            got = _read(b, k, sel)
            got = np.asarray(got, dtype=object) if lay["dtype"] is str else got
            if not (np.shape(got) == exp.shape and np.array_equal(np.asarray(got), exp)):
                raise AssertionError(f"seed {seed} {kind} {lay} step {step} {k} {sel}\n got {got}\n exp {exp}")
    return kind
