"""Stores written by z5py (Constantin Pape's C++ library, z5, with its Python bindings):
Zarr v2, Zarr v3 (with sharding) and N5, read back by z5py.

Run in a throw-away venv (never the test venv)::

    python -m venv /tmp/z5 && /tmp/z5/bin/pip install z5py numpy
    /tmp/z5/bin/python gen_z5py.py

Per format: every data type z5py writes, each of its compressors (v2: raw, blosc with three
cnames and shuffles, zlib, gzip, bzip2, zstd; v3: raw, blosc, gzip, zstd; N5: raw, gzip,
bzip2, xz, lz4, zstd, blosc), fill values, partial writes (missing chunks), 1-d to 4-d shapes
with edge chunks, both v2 separators, both v3 chunk key encodings, v3 shards, attributes
and nested groups.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import z5py

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder, sample  # noqa: E402

SHAPE, CHUNKS = (9, 7), (4, 3)
TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
         "float64"]
COMPRESSIONS = {
    "zarr2": {"raw": {}, "blosc-lz4": {"codec": "lz4", "shuffle": 1},
              "blosc-zstd-bit": {"codec": "zstd", "shuffle": 2},
              "blosc-blosclz-no": {"codec": "blosclz", "shuffle": 0},
              "zlib": {"level": 4}, "gzip": {"level": 6}, "bzip2": {"level": 3},
              "zstd": {"level": 5}},
    "zarr3": {"raw": {}, "blosc-lz4": {"codec": "lz4", "shuffle": 1},
              "blosc-zstd-bit": {"codec": "zstd", "shuffle": 2}, "gzip": {"level": 6},
              "zstd": {"level": 5}},
    "n5": {"raw": {}, "gzip": {"level": 6}, "bzip2": {"level": 3}, "xz": {"level": 2},
           "lz4": {"level": 6}, "zstd": {"level": 5}, "blosc-lz4": {"codec": "lz4",
                                                                     "shuffle": 1}},
}


def _file(path: Path, fmt: str, sep: str = "."):
    if fmt == "n5":
        return z5py.File(str(path), mode="w", use_zarr_format=False)
    return z5py.File(str(path), mode="w", use_zarr_format=True, dimension_separator=sep,
                     zarr_format=3 if fmt == "zarr3" else 2)


def main():
    rec = Recorder(f"z5py-{z5py.__version__}", {"z5py": z5py.__version__,
                                                "numpy": np.__version__})
    n = 0

    def case(name, fmt, dtype, *, shape=SHAPE, chunks=CHUNKS, compression="raw", opts=None,
             fillvalue=0, partial=False, sep=".", attrs=None, group=None, **kw):
        nonlocal n
        n += 1
        store = f"{name}.{'n5' if fmt == 'n5' else 'zarr'}"
        try:
            f = _file(rec.stores / store, fmt, sep)
            parent = f.create_group(group) if group else f
            ds = parent.create_dataset("data", shape=shape, chunks=chunks, dtype=dtype,
                                       compression=compression.split("-")[0],
                                       fillvalue=fillvalue, **(opts or {}), **kw)
            data = sample(np.dtype(dtype), shape, seed=n)
            if partial:  # the first chunk only: the others are missing (fill value)
                ds[tuple(slice(0, c) for c in chunks)] = data[tuple(slice(0, c) for c in chunks)]
            else:
                ds[...] = data
            if attrs:
                ds.attrs.update(attrs)
            back = z5py.File(str(rec.stores / store), mode="r")
            node = back[group]["data"] if group else back["data"]
            values = node[...]
            rec.add(name, store, f"{group}/data" if group else "data", values,
                    fill=fillvalue, format=fmt, compression=compression)
        except Exception as exc:  # noqa: BLE001 - recorded as the writer's limit
            rec.skip(name, exc)

    for fmt, comps in COMPRESSIONS.items():
        for t in TYPES:
            for cname, opts in comps.items():
                case(f"{fmt}-{t}-{cname}", fmt, t, compression=cname, opts=opts,
                     partial=cname == "gzip")
            case(f"{fmt}-{t}-fill", fmt, t, fillvalue=3, partial=True)
        for label, shape, chunks in (("1d", (10,), (4,)), ("3d", (5, 6, 7), (2, 4, 3)),
                                     ("4d", (3, 4, 5, 2), (2, 3, 2, 2)),
                                     ("one-chunk", (4, 3), (4, 3)),
                                     ("big-chunk", (5, 5), (8, 8))):
            case(f"{fmt}-shape-{label}", fmt, "float32", shape=shape, chunks=chunks,
                 compression="gzip" if fmt != "zarr2" else "zlib",
                 opts={"level": 1}, partial=True)
        case(f"{fmt}-nan-fill", fmt, "float64", fillvalue=float("nan"), partial=True)
        case(f"{fmt}-attrs-group", fmt, "int16", attrs={"unit": "m", "scale": [1, 2.5],
                                                        "nested": {"a": None}},
             group="g1/g2")
    for sep in ("/", "."):
        case(f"zarr2-sep-{'slash' if sep == '/' else 'dot'}", "zarr2", "int32", sep=sep,
             compression="zlib", opts={"level": 1}, partial=True)
    for cke in ("default", "v2"):
        case(f"zarr3-cke-{cke}", "zarr3", "uint16", chunk_key_encoding=cke, partial=True)
    for label, shards in (("shard", (8, 6)), ("shard-whole", (12, 9))):
        for cname, opts in (("raw", {}), ("zstd", {"level": 3})):
            case(f"zarr3-{label}-{cname}", "zarr3", "int32", shards=shards,
                 compression=cname, opts=opts)
            case(f"zarr3-{label}-{cname}-partial", "zarr3", "float64", shards=shards,
                 compression=cname, opts=opts, partial=True, fillvalue=-1)
    rec.pack()


if __name__ == "__main__":
    main()
