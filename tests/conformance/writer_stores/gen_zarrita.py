"""Stores written by zarrita (Norman Rzepka's early Zarr v3 writer, the prototype of
zarr-python 3), v3 and v2, read back by zarrita.

Run in a throw-away venv (never the test venv)::

    python -m venv /tmp/zarrita && /tmp/zarrita/bin/pip install zarrita
    /tmp/zarrita/bin/python gen_zarrita.py

Every data type zarrita has, its codecs (bytes little/big, transpose C/F/permutation, blosc
with each cname and shuffle, gzip, zstd with and without checksum, crc32c), sharding with
the index at the start and at the end and with compressed inner chunks, both chunk key
encodings and separators, fill values, dimension names, attributes, groups, resize, and
zarrita's v2 arrays with their conversion to v3.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import zarrita
from zarrita import codecs as zc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder, sample  # noqa: E402

SHAPE, CHUNKS = (9, 7), (4, 3)
TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]


def full(ndim):
    """zarrita takes no Ellipsis: the whole array as slices."""
    return tuple(slice(None) for _ in range(ndim))


def main():
    rec = Recorder(f"zarrita-{zarrita.__version__ if hasattr(zarrita, '__version__') else '0.2.7'}",
                   {"zarrita": "0.2.7", "numpy": np.__version__})
    store = zarrita.LocalStore(str(rec.stores))
    cases = []
    for t in TYPES:
        isz = np.dtype(t).itemsize
        for fill in (None, 1):
            cases.append((f"{t}-plain-fill{fill}", dict(dtype=t, fill_value=fill)))
        cases.append((f"{t}-big", dict(dtype=t, codecs=[zc.bytes_codec("big")])))
        cases.append((f"{t}-F", dict(dtype=t, codecs=[zc.transpose_codec("F"),
                                                      zc.bytes_codec()])))
        cases.append((f"{t}-blosc", dict(dtype=t, codecs=[zc.bytes_codec(),
                                                          zc.blosc_codec(typesize=isz)])))
        cases.append((f"{t}-shard", dict(dtype=t, chunk_shape=(8, 6), codecs=[
            zc.sharding_codec((4, 3), [zc.bytes_codec(), zc.zstd_codec(3)])])))
    for cname in ("lz4", "lz4hc", "blosclz", "zstd", "zlib"):
        for shuf in ("noshuffle", "shuffle", "bitshuffle"):
            cases.append((f"blosc-{cname}-{shuf}", dict(dtype="int32", codecs=[
                zc.bytes_codec(), zc.blosc_codec(typesize=4, cname=cname, shuffle=shuf)])))
    for lvl in (1, 9):
        cases.append((f"gzip{lvl}", dict(dtype="float64", codecs=[zc.bytes_codec(),
                                                                   zc.gzip_codec(lvl)])))
    for checksum in (False, True):
        cases.append((f"zstd-checksum{checksum}", dict(dtype="uint16", codecs=[
            zc.bytes_codec(), zc.zstd_codec(5, checksum)])))
    cases.append(("crc32c", dict(dtype="int64", codecs=[zc.bytes_codec(), zc.crc32c_codec()])))
    cases.append(("transpose-perm", dict(dtype="int16", codecs=[zc.transpose_codec((1, 0)),
                                                                 zc.bytes_codec("big"),
                                                                 zc.gzip_codec()])))
    for loc in ("start", "end"):
        cases.append((f"shard-index-{loc}", dict(dtype="float32", chunk_shape=(8, 6), codecs=[
            zc.sharding_codec((2, 2), [zc.transpose_codec("F"), zc.bytes_codec(),
                                       zc.blosc_codec(typesize=4)],
                              index_location=loc)])))
    cases.append(("shard-partial", dict(dtype="uint8", chunk_shape=(8, 6), fill_value=3,
                                        partial=True,
                                        codecs=[zc.sharding_codec((2, 3))])))
    for enc in (("default", "/"), ("default", "."), ("v2", "."), ("v2", "/")):
        cases.append((f"cke-{enc[0]}-{'slash' if enc[1] == '/' else 'dot'}",
                      dict(dtype="int32", chunk_key_encoding=enc)))
    cases.append(("dimnames-attrs", dict(dtype="float64", dimension_names=["y", "x"],
                                         attributes={"a": [1, 2], "b": {"c": None}})))
    cases.append(("partial-fill", dict(dtype="float64", fill_value=-1.5, partial=True)))
    cases.append(("nan-fill", dict(dtype="float32", fill_value=float("nan"), partial=True)))
    cases.append(("one-d", dict(dtype="int64", shape=(10,), chunk_shape=(3,))))
    cases.append(("three-d", dict(dtype="int16", shape=(5, 4, 3), chunk_shape=(2, 3, 2),
                                  codecs=[zc.transpose_codec((2, 0, 1)), zc.bytes_codec(),
                                          zc.gzip_codec()])))
    for name, kw in cases:
        kw = dict(kw)
        partial = kw.pop("partial", False)
        shape = kw.pop("shape", SHAPE)
        kw.setdefault("chunk_shape", CHUNKS if len(shape) == 2 else shape)
        try:
            a = zarrita.Array.create(store / name, shape=shape, **kw)
            data = sample(kw["dtype"], shape)
            if partial:
                a[tuple(slice(0, c) for c in kw["chunk_shape"])] = \
                    data[tuple(slice(0, c) for c in kw["chunk_shape"])]
            else:
                a[full(data.ndim)] = data
            b = zarrita.Array.open(store / name)
            rec.add(name, name, "", b[full(data.ndim)], fill=b.metadata.fill_value,
                    attrs=b.metadata.attributes)
        except Exception as exc:
            rec.skip(name, exc)
    # resize: shrink and grow
    try:
        a = zarrita.Array.create(store / "resized", shape=SHAPE, dtype="int32",
                                 chunk_shape=CHUNKS, fill_value=-7)
        a[full(2)] = sample("int32")
        a = a.resize((5, 11))
        b = zarrita.Array.open(store / "resized")
        rec.add("resized", "resized", "", b[full(2)], fill=-7)
    except Exception as exc:
        rec.skip("resized", exc)
    # groups
    try:
        g = zarrita.Group.create(store / "group", attributes={"root": True})
        g2 = g.create_group("sub", attributes={"level": 2})
        a = g2.create_array("arr", shape=(6, 4), dtype="uint16", chunk_shape=(4, 4),
                            codecs=[zc.bytes_codec(), zc.gzip_codec()])
        a[full(2)] = np.arange(24, dtype="u2").reshape(6, 4)
        b = zarrita.Group.open(store / "group")["sub"]["arr"]
        rec.add("group-sub-arr", "group", "sub/arr", b[full(2)], members=["sub/", "sub/arr"])
    except Exception as exc:
        rec.skip("group", exc)
    # v2 arrays written by zarrita, and their conversion to v3
    for name, kw in {
        "v2-plain": dict(dtype="int32"),
        "v2-F-blosc": dict(dtype="float64", order="F",
                           compressor={"id": "blosc", "cname": "zstd", "clevel": 5,
                                       "shuffle": 1, "blocksize": 0}),
        "v2-slash-zlib": dict(dtype="uint8", dimension_separator="/",
                              compressor={"id": "zlib", "level": 4}),
        "v2-fill": dict(dtype="int16", fill_value=-3, partial=True),
        "v2-gzip": dict(dtype="float32", compressor={"id": "gzip", "level": 1}),
    }.items():
        kw = dict(kw)
        partial = kw.pop("partial", False)
        try:
            a = zarrita.ArrayV2.create(store / name, shape=SHAPE, chunks=CHUNKS, **kw)
            data = sample(kw["dtype"])
            if partial:
                a[:4, :3] = data[:4, :3]
            else:
                a[full(2)] = data
            b = zarrita.ArrayV2.open(store / name)
            rec.add(name, name, "", b[full(2)], fill=b.metadata.fill_value)
            try:
                a3 = b.convert_to_v3()
                rec.add(f"{name}-as-v3", name, "", a3[full(2)], fill=a3.metadata.fill_value,
                        note="convert_to_v3 wrote zarr.json beside .zarray")
            except Exception as exc:
                rec.skip(f"{name}-as-v3", exc)
        except Exception as exc:
            rec.skip(name, exc)
    rec.pack()


if __name__ == "__main__":
    main()
