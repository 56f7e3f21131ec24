"""Write the zarr-python 2.x and 3.0.x fixture stores (run with that zarr, not the test venv).

Life cycle: run once per zarr release in a throw-away virtual environment, e.g.::

    python -m venv /tmp/z218 && /tmp/z218/bin/pip install "zarr==2.18.*" msgpack fsspec \
        pytest    # zarr 2.18's sharding transformer imports its tests (and so pytest)
    ZARR_V3_EXPERIMENTAL_API=1 ZARR_V3_SHARDING=1 /tmp/z218/bin/python generate.py
    # likewise zarr==2.11.* with "numpy<2" "numcodecs==0.12.*", and zarr==3.0.* with
    # "numcodecs<0.16" (its own variant table: the forms 3.1 changed)

It writes every variant below with the installed zarr 2.x into a temporary directory, reads
each back with that same zarr 2.x, and packs stores plus what zarr 2.x read (``expected/
<name>.npz``: values and fill value; ``manifest.json``: shape, dtype, attributes, members)
into ``zarr-<version>.tar.xz`` beside this file.  tests/conformance/test_zarr2_fixtures.py
opens every store with zarrhpc and compares; the test suite never needs zarr 2.x.

A variant the installed release cannot write is left out and listed in the manifest's
``skipped`` with the writer's error.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import numcodecs
import numpy as np
import zarr

SHAPE, CHUNKS = (9, 7), (4, 3)
HERE = Path(__file__).resolve().parent
V = tuple(int(x) for x in zarr.__version__.split(".")[:2])
NC = tuple(int(x) for x in numcodecs.__version__.split(".")[:2])


sys.path.insert(0, str(HERE.parent / "writer_stores"))
from _pack import _load_corpus, write_archive  # noqa: E402

_corpus = _load_corpus()


def sample(dtype, shape=SHAPE, seed=0):
    """Deterministic values of ``dtype`` (NaN, -0.0, NaT, non-ASCII, empty strings)."""
    return _corpus.sample_data(dtype, shape, seed)


def strings(shape=SHAPE, seed=0):
    return _corpus.sample_data("O", shape, seed)


VARIANTS: dict[str, callable] = {}


def variant(name):
    def deco(fn):
        VARIANTS[name] = fn
        return fn
    return deco


def _array(path, data, *, partial=False, **kw):
    """zarr.open_array(mode="w") at ``path`` and write ``data`` (only the first chunk when
    ``partial``, so that the fill value shows)."""
    kw.setdefault("chunks", CHUNKS if data.ndim == 2 else data.shape)
    a = zarr.open_array(str(path), mode="w", shape=data.shape, **kw)
    # zarr 2.x leaves missing chunks of a fill_value None array uninitialised (np.empty):
    # only object arrays (None elements) have defined values there
    if partial and (kw.get("fill_value", 0) is not None or data.dtype.kind == "O"):
        region = tuple(slice(0, c) for c in a.chunks)
        a[region] = data[region]
    else:
        a[...] = data
    return a


def _add(name, fn):
    VARIANTS[name] = fn


def _slug(s):
    return str(s).replace("|", "").replace("<", "l").replace(">", "b").replace("[", "") \
        .replace("]", "").replace(" ", "").replace("'", "").replace(",", "_") \
        .replace("(", "").replace(")", "")


# ------------------------------------------------------------------------- v2 variants

V2_DTYPES = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", ">u8", "<f2", ">f4",
             "<f8", "<c8", ">c16", "<M8[ns]", ">M8[D]", "<m8[s]", "<M8[ms]", "<U4", ">U3",
             "|S3", "|V3"]
STRUCTS = {
    "struct-ab": [("a", "<i4"), ("b", ">f8")],
    "struct-sub": [("x", "|u1"), ("y", "<i2", (2,))],
    "struct-nest": [("p", [("q", "<u2"), ("r", "|S2")]), ("t", "<M8[s]")],
}


def _fills(dt):
    k = np.dtype(dt).kind
    if k == "f":
        return [0, None, float("nan"), float("-inf"), -0.0, 3.5]
    if k == "c":
        return [0, None, complex(float("nan"), 1.0)]
    if k == "b":
        return [False, True, None]
    if k in "iu":
        info = np.iinfo(np.dtype(dt))
        return [0, None, int(info.max), int(info.min)]
    if k in "mM":
        return [0, None, 123, "NaT"]
    if k == "U":
        return ["", None, "ab"]
    if k == "S":
        return [b"", None, b"ab", 0]
    return [None]


for _dt in V2_DTYPES:
    for _order in "CF":
        for _i, _fill in enumerate(_fills(_dt)):
            def _w(path, dt=_dt, order=_order, fill=_fill, i=_i):
                return _array(path, sample(dt), dtype=dt, order=order, fill_value=fill,
                              partial=i > 0)
            _add(f"v2-dt-{_slug(_dt)}-{_order}-f{_i}", _w)

for _name, _sdt in STRUCTS.items():
    for _order in "CF":
        for _fi, _fill in enumerate([None, 0]):
            def _w(path, sdt=_sdt, order=_order, fill=_fill):
                return _array(path, sample(np.dtype(sdt)), dtype=sdt, order=order,
                              fill_value=fill, partial=True)
            _add(f"v2-{_name}-{_order}-f{_fi}", _w)

# compressors: every numcodecs compressor, blosc in every cname x shuffle
COMPRESSORS = {
    "none": lambda: None, "default": lambda: "default",
    "zlib1": lambda: numcodecs.Zlib(level=1), "zlib9": lambda: numcodecs.Zlib(level=9),
    "gzip": lambda: numcodecs.GZip(level=5), "bz2": lambda: numcodecs.BZ2(level=9),
    "lzma": lambda: numcodecs.LZMA(), "lzma-xz-preset": lambda: numcodecs.LZMA(preset=1),
    "lzma-raw": lambda: numcodecs.LZMA(format=3, filters=[dict(id=3, dist=4),
                                                          dict(id=33, preset=1)]),
    "lz4": lambda: numcodecs.LZ4(), "lz4-accel": lambda: numcodecs.LZ4(acceleration=5),
    "zstd": lambda: numcodecs.Zstd(level=1), "zstd-neg": lambda: numcodecs.Zstd(level=-3),
    "crc32": lambda: numcodecs.CRC32(), "adler32": lambda: numcodecs.Adler32(),
    "blosc-blocksize": lambda: numcodecs.Blosc(cname="lz4", blocksize=256),
    "blosc-autoshuffle": lambda: numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.AUTOSHUFFLE),
}
if NC >= (0, 13):
    COMPRESSORS["zstd-checksum"] = lambda: numcodecs.Zstd(level=2, checksum=True)
for _cn in ["lz4", "lz4hc", "zstd", "zlib", "blosclz"]:
    for _sh in [0, 1, 2]:
        COMPRESSORS[f"blosc-{_cn}-{_sh}"] = lambda cn=_cn, sh=_sh: numcodecs.Blosc(
            cname=cn, clevel=5, shuffle=sh)

for _cname, _make in COMPRESSORS.items():
    for _dt in ["<f8", ">i2", "|u1"]:
        def _w(path, dt=_dt, make=_make):
            c = make()
            kw = {} if c == "default" else {"compressor": c}
            return _array(path, sample(dt), dtype=dt, **kw)
        _add(f"v2-comp-{_cname}-{_slug(_dt)}", _w)

FILTERS = {
    "delta": ("<i4", lambda: [numcodecs.Delta(dtype="<i4")]),
    "delta-astype": ("<i4", lambda: [numcodecs.Delta(dtype="<i4", astype="<i8")]),
    "delta-be": (">i8", lambda: [numcodecs.Delta(dtype=">i8")]),
    "fso": ("<f8", lambda: [numcodecs.FixedScaleOffset(offset=1, scale=10, dtype="<f8",
                                                       astype="u1")]),
    "fso-i2": ("<f4", lambda: [numcodecs.FixedScaleOffset(offset=-3, scale=1000, dtype="<f4",
                                                          astype="<i2")]),
    "quantize": ("<f4", lambda: [numcodecs.Quantize(digits=2, dtype="<f4")]),
    "quantize64": ("<f8", lambda: [numcodecs.Quantize(digits=5, dtype="<f8", astype="<f4")]),
    "astype": ("<f8", lambda: [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")]),
    "packbits": ("|b1", lambda: [numcodecs.PackBits()]),
    "categorize": ("<U5", lambda: [numcodecs.Categorize(labels=["", "a", "héllo", "日本"],
                                                        dtype="<U5", astype="u1")]),
    "crc32": ("<i2", lambda: [numcodecs.CRC32()]),
    "adler32": ("<i2", lambda: [numcodecs.Adler32()]),
    "fletcher32": ("<i2", lambda: [numcodecs.Fletcher32()]),
    "jenkins": ("<i2", lambda: [numcodecs.JenkinsLookup3()]),
    "zlib-filter": ("<f8", lambda: [numcodecs.Zlib(level=3)]),
    "gzip-filter": ("<i4", lambda: [numcodecs.GZip(level=3)]),
    "zstd-filter": ("<u2", lambda: [numcodecs.Zstd(level=3)]),
    "lz4-filter": ("<u2", lambda: [numcodecs.LZ4()]),
    "bz2-filter": ("<i8", lambda: [numcodecs.BZ2()]),
    "lzma-filter": ("<f4", lambda: [numcodecs.LZMA()]),
    "blosc-filter": ("<f8", lambda: [numcodecs.Blosc(cname="zstd", shuffle=2)]),
    "delta+zlib-filters": ("<i4", lambda: [numcodecs.Delta(dtype="<i4"), numcodecs.Zlib()]),
    "two-checksums": ("<f4", lambda: [numcodecs.CRC32(), numcodecs.Adler32()]),
}
if hasattr(numcodecs, "BitRound"):
    FILTERS["bitround"] = ("<f4", lambda: [numcodecs.BitRound(keepbits=5)])
    FILTERS["bitround64"] = ("<f8", lambda: [numcodecs.BitRound(keepbits=20)])
if hasattr(numcodecs, "Shuffle"):
    FILTERS["shuffle"] = ("<i4", lambda: [numcodecs.Shuffle(elementsize=4)])
for _fname, (_dt, _make) in FILTERS.items():
    for _cname, _comp in [("none", lambda: None), ("blosc", lambda: numcodecs.Blosc()),
                          ("zstd", lambda: numcodecs.Zstd(level=1))]:
        for _order in "CF":
            def _w(path, dt=_dt, make=_make, comp=_comp, order=_order, fname=_fname):
                data = strings() if dt == "object" else sample(dt)
                if fname.startswith(("fso", "quantize", "astype")):
                    data = np.nan_to_num(data, nan=1.5) / 50
                if fname == "delta-astype":
                    data = (data // 4).astype(dt)
                kw = {"object_codec": numcodecs.VLenUTF8()} if dt == "object" else {}
                return _array(path, data, dtype=dt, filters=make(), compressor=comp(),
                              order=order, **kw)
            _add(f"v2-filt-{_fname}-{_cname}-{_order}", _w)

# object arrays: every object codec zarr 2 takes
OBJECT_CODECS = {
    "vlenutf8": (lambda: numcodecs.VLenUTF8(), strings),
    "vlenbytes": (lambda: numcodecs.VLenBytes(),
                  lambda: np.array([s.encode() for s in strings().ravel()],
                                   dtype=object).reshape(SHAPE)),
    "vlenarray": (lambda: numcodecs.VLenArray("<i4"), lambda: _ragged("<i4")),
    "vlenarray-f8": (lambda: numcodecs.VLenArray(">f8"), lambda: _ragged(">f8")),
    "json": (lambda: numcodecs.JSON(), strings),
    "msgpack": (lambda: numcodecs.MsgPack(), strings),
    "json-mixed": (lambda: numcodecs.JSON(), lambda: _mixed()),
    "msgpack-mixed": (lambda: numcodecs.MsgPack(), lambda: _mixed()),
}


def _ragged(dt):
    rng = np.random.default_rng(5)
    out = np.empty(int(np.prod(SHAPE)), dtype=object)
    for i in range(out.size):
        out[i] = rng.integers(-50, 50, int(rng.integers(0, 5))).astype(dt)
    return out.reshape(SHAPE)


def _mixed():
    pool = ["s", 1, 2.5, None, [1, "a"], {"k": "v"}, True]
    out = np.empty(int(np.prod(SHAPE)), dtype=object)
    for i in range(out.size):
        out[i] = pool[i % len(pool)]
    return out.reshape(SHAPE)


for _oname, (_codec, _data) in OBJECT_CODECS.items():
    for _cname, _comp in [("none", lambda: None), ("default", lambda: "default"),
                          ("zstd", lambda: numcodecs.Zstd(level=1))]:
        for _fi, _fill in enumerate([None, 0, ""]):
            for _partial in (False, True):
                if _fi and not _partial:
                    continue
                def _w(path, codec=_codec, data=_data, comp=_comp, fill=_fill,
                       partial=_partial):
                    c = comp()
                    kw = {} if c == "default" else {"compressor": c}
                    return _array(path, data(), dtype=object, object_codec=codec(),
                                  fill_value=fill, partial=partial, **kw)
                _add(f"v2-obj-{_oname}-{_cname}-f{_fi}{'-partial' if _partial else ''}", _w)

for _dt in ["str", "bytes"]:  # dtype=str / dtype=bytes: zarr 2 picks the object codec
    def _w(path, dt=_dt):
        d = strings() if dt == "str" else \
            np.array([s.encode() for s in strings().ravel()], dtype=object).reshape(SHAPE)
        return _array(path, d, dtype=dt)
    _add(f"v2-obj-dtype-{_dt}", _w)
    _add(f"v2-obj-dtype-{_dt}-partial",
         lambda path, dt=_dt: _array(path, strings() if dt == "str" else np.array(
             [s.encode() for s in strings().ravel()], dtype=object).reshape(SHAPE),
             dtype=dt, partial=True))

# layouts: separators, stores, shapes
for _sep in [".", "/"]:
    for _order in "CF":
        _add(f"v2-sep-{_slug(_sep) if _sep == '.' else 'slash'}-{_order}",
             lambda path, sep=_sep, order=_order: _array(
                 path, sample("<f4", (5, 6, 7)), chunks=(2, 3, 4), dtype="<f4", order=order,
                 dimension_separator=sep, fill_value=-1, partial=True))


@variant("v2-nested-directory-store")
def _nested(path):
    store = zarr.storage.NestedDirectoryStore(str(path))
    a = zarr.create(store=store, shape=(5, 6, 7), chunks=(2, 3, 4), dtype="<i4",
                    fill_value=3)
    a[:, :3] = sample("<i4", (5, 6, 7))[:, :3]
    return a


@variant("v2-fsstore-key-separator")
def _fsstore(path):
    store = zarr.storage.FSStore(str(path), key_separator="/", auto_mkdir=True)
    a = zarr.create(store=store, shape=SHAPE, chunks=CHUNKS, dtype="<u2", fill_value=7)
    a[:5] = sample("<u2")[:5]
    return a


@variant("v2-zipstore")
def _zip(path):
    store = zarr.ZipStore(str(path) + ".zip", mode="w")
    g = zarr.group(store=store)
    g.attrs["z"] = 1
    a = g.create_dataset("arr", shape=SHAPE, chunks=CHUNKS, dtype="<f8",
                         compressor=numcodecs.Zlib())
    a[...] = sample("<f8")
    a.attrs["unit"] = "m"
    store.close()
    return ("zip", "arr")


@variant("v2-zipstore-deflated-rewritten")
def _zip_deflated(path):
    """ZIP_DEFLATED entries; a chunk and .zattrs written twice (zip keeps both entries,
    the last one counts)."""
    import zipfile

    store = zarr.ZipStore(str(path) + ".zip", mode="w", compression=zipfile.ZIP_DEFLATED)
    g = zarr.group(store=store)
    a = g.create_dataset("x", shape=SHAPE, chunks=CHUNKS, dtype="<i4", compressor=None,
                         fill_value=-1)
    a[:5] = sample("<i4")[:5]
    a[0, 0] = -5
    a.attrs["k"] = 1
    a.attrs["k"] = 2
    store.close()
    return ("zip", "x")


for _name, _shape, _chunks in [("0d", (), ()), ("1d", (100,), (7,)), ("3d", (5, 6, 7),
                                                                     (2, 3, 4)),
                               ("size0", (0, 5), (2, 2)), ("size0-both", (3, 0), (2, 2)),
                               ("chunk-bigger", (3, 4), (10, 10)), ("chunk1", (4, 3), (1, 1)),
                               ("4d", (3, 2, 4, 5), (2, 1, 3, 2))]:
    _add(f"v2-shape-{_name}", lambda path, s=_shape, c=_chunks: _array(
        path, sample("<i4", s), chunks=c, dtype="<i4", fill_value=-9))


@variant("v2-chunks-auto")
def _auto(path):
    return _array(path, sample("<f4", (300, 200)), chunks=True, dtype="<f4")


@variant("v2-resize-append")
def _resize(path):
    a = _array(path, sample("<i8", (4, 7)), dtype="<i8", fill_value=11)
    a.append(sample("<i8", (3, 7), seed=3))
    a.resize(12, 9)
    return a


@variant("v2-write-empty-chunks-false")
def _wec(path):
    if V < (2, 11):
        raise RuntimeError("write_empty_chunks needs zarr 2.11")
    a = zarr.open_array(str(path), mode="w", shape=SHAPE, chunks=CHUNKS, dtype="<f4",
                        fill_value=0.0, write_empty_chunks=False)
    d = sample("<f4")
    d[:4, :3] = 0
    a[...] = d
    return a


@variant("v2-attrs")
def _attrs(path):
    a = _array(path, sample("<i4"), dtype="<i4")
    a.attrs.update({"a": [1, {"b": None}], "u": "ünï", "f": 1.5, "nested": {"x": {"y": []}},
                    "_ARRAY_DIMENSIONS": ["y", "x"]})
    return a


@variant("v2-hierarchy")
def _hierarchy(path):
    root = zarr.open_group(str(path), mode="w")
    root.attrs["root"] = True
    g = root.create_group("g1")
    g.attrs["title"] = "group one"
    sub = g.create_group("sub/deeper")
    a = sub.create_dataset("arr", data=sample("<f8"), chunks=CHUNKS)
    a.attrs["x"] = 1
    root.create_dataset("top", data=sample("<i2"), chunks=CHUNKS, fill_value=4)
    root.create_group("empty")
    return ("group", "g1/sub/deeper/arr")


@variant("v2-consolidated")
def _consolidated(path):
    root = zarr.open_group(str(path), mode="w")
    root.attrs["c"] = "yes"
    g = root.create_group("g")
    a = g.create_dataset("arr", shape=SHAPE, chunks=CHUNKS, dtype="<u4", fill_value=2)
    a[:4] = sample("<u4")[:4]
    a.attrs["a"] = [1, 2]
    root.create_dataset("s", data=strings(), dtype=str, chunks=CHUNKS)
    zarr.consolidate_metadata(str(path))
    return ("group", "g/arr")


# ------------------------------------------------------------- v3 (2022 draft) variants

def _v3_array(path, data, *, partial=False, **kw):
    kw.setdefault("chunks", CHUNKS if data.ndim == 2 else data.shape)
    a = zarr.open_array(str(path), mode="w", shape=data.shape, zarr_version=3,
                        path=kw.pop("arr_path", "arr"), **kw)
    if partial and kw.get("fill_value", 0) is not None:
        region = tuple(slice(0, c) for c in a.chunks)
        a[region] = data[region]
    else:
        a[...] = data
    return a


if V >= (2, 12) and os.environ.get("ZARR_V3_EXPERIMENTAL_API") == "1":
    for _dt in ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8", "<f2", ">f4",
                "<f8", "<c8", ">c16", "<M8[ns]", "<m8[s]", "<U4", "|S3", "|V3"]:
        for _order in "CF":
            for _i, _fill in enumerate(_fills(_dt)[:3]):
                _add(f"v3-dt-{_slug(_dt)}-{_order}-f{_i}",
                     lambda path, dt=_dt, order=_order, fill=_fill, i=_i: _v3_array(
                         path, sample(dt), dtype=dt, order=order, fill_value=fill,
                         partial=i > 0))
    for _cname, _make in COMPRESSORS.items():
        for _dt in ["<f8", ">i2"]:
            def _w(path, dt=_dt, make=_make):
                c = make()
                kw = {} if c == "default" else {"compressor": c}
                return _v3_array(path, sample(dt), dtype=dt, **kw)
            _add(f"v3-comp-{_cname}-{_slug(_dt)}", _w)
    for _fname, (_dt, _make) in FILTERS.items():
        if _dt == "object":
            continue
        _add(f"v3-filt-{_fname}", lambda path, dt=_dt, make=_make, fname=_fname: _v3_array(
            path, (np.nan_to_num(sample(dt), nan=1.5) / 50) if fname.startswith(
                ("fso", "quantize", "astype")) else (sample(dt) // 4).astype(dt)
            if fname == "delta-astype" else sample(dt), dtype=dt, filters=make(),
            compressor=numcodecs.Zlib()))
    for _sep in [".", "/"]:
        _add(f"v3-sep-{'dot' if _sep == '.' else 'slash'}", lambda path, sep=_sep: _v3_array(
            path, sample("<i4", (5, 6, 7)), chunks=(2, 3, 4), dtype="<i4",
            dimension_separator=sep, fill_value=-2, partial=True))
    for _name, _shape, _chunks in [("0d", (), ()), ("1d", (100,), (7,)),
                                   ("size0", (0, 5), (2, 2))]:
        _add(f"v3-shape-{_name}", lambda path, s=_shape, c=_chunks: _v3_array(
            path, sample("<i4", s), chunks=c, dtype="<i4", fill_value=-9))
    for _oname in ["vlenutf8", "vlenbytes", "json", "msgpack"]:
        _add(f"v3-obj-{_oname}", lambda path, o=_oname: _v3_array(
            path, OBJECT_CODECS[o][1](), dtype=object, object_codec=OBJECT_CODECS[o][0]()))

    @variant("v3-attrs-nested-path")
    def _v3attrs(path):
        a = _v3_array(path, sample("<f4"), dtype="<f4", arr_path="a/b/c")
        a.attrs.update({"x": [1, 2], "u": "ü"})
        return a

    @variant("v3-hierarchy")
    def _v3h(path):
        root = zarr.open_group(str(path), mode="w", zarr_version=3, path="/")
        root.attrs["root"] = 1
        g = root.create_group("g")
        g.attrs["t"] = "x"
        a = g.create_dataset("arr", data=sample("<i2"), chunks=CHUNKS)
        a.attrs["k"] = "v"
        root.create_dataset("top", data=sample("<f8"), chunks=CHUNKS)
        return ("group", "g/arr")

    if os.environ.get("ZARR_V3_SHARDING") == "1":
        from zarr._storage.v3_storage_transformers import ShardingStorageTransformer

        for _cps, _dt, _comp in [((2, 1), "<i4", None), ((1, 3), ">f8", "zlib"),
                                 ((2, 2), "<u2", "blosc")]:
            def _w(path, cps=_cps, dt=_dt, comp=_comp):
                c = {None: None, "zlib": numcodecs.Zlib(), "blosc": numcodecs.Blosc()}[comp]
                return _v3_sharded(path, sample(dt), cps, dtype=dt, compressor=c)
            _add(f"v3-shard-{_cps[0]}x{_cps[1]}-{_slug(_dt)}-{_comp}", _w)
            _add(f"v3-shard-{_cps[0]}x{_cps[1]}-{_slug(_dt)}-{_comp}-partial",
                 lambda path, cps=_cps, dt=_dt: _v3_sharded(path, sample(dt), cps, dtype=dt,
                                                            partial=True))

        def _v3_sharded(path, data, cps, *, partial=False, **kw):
            # zarr.open_array drops storage_transformers: zarr.create keeps them
            st = ShardingStorageTransformer("indexed", chunks_per_shard=cps)
            a = zarr.create(store=zarr.DirectoryStoreV3(str(path)), path="arr",
                            shape=data.shape, chunks=CHUNKS, zarr_version=3, fill_value=5,
                            storage_transformers=[st], **kw)
            if partial:
                a[:4, :3] = data[:4, :3]
            else:
                a[...] = data
            return a


# ------------------------------------------------------- zarr-python 3.0.x (3.0 forms)

if V[0] >= 3:
    VARIANTS.clear()  # the zarr 2 API above is not zarr 3's: its own table
    import numcodecs.zarr3 as nz3
    from zarr import codecs as zc

    def _z3(path, data, *, partial=False, fmt=3, **kw):
        kw.setdefault("chunks", CHUNKS if data.ndim == 2 else data.shape)
        a = zarr.create_array(str(path), shape=data.shape, zarr_format=fmt, **kw)
        if partial:
            region = tuple(slice(0, c) for c in kw["chunks"])
            a[region] = data[region]
        else:
            a[...] = data
        return a

    Z3_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64", "complex64", "complex128", "<U4",
                 "|S3", "str"]

    def _z3_fills(dt):
        if dt == "str":
            return ["default", "", "fill"]
        k = np.dtype(dt).kind
        if k in "iu":
            return ["default", int(np.iinfo(np.dtype(dt)).max)]
        return {"f": ["default", 0.0, float("nan"), float("-inf"), 3.5],
                "c": ["default", 1.5 - 2j], "b": ["default", True],
                "U": ["default", "ab"], "S": ["default", b"ab"]}[k]

    for _fmt in (3, 2):
        for _dt in Z3_DTYPES:
            for _i, _fill in enumerate(_z3_fills(_dt)):
                def _w(path, dt=_dt, fill=_fill, fmt=_fmt, i=_i):
                    data = strings() if dt == "str" else sample(dt)
                    kw = {} if fill == "default" else {"fill_value": fill}
                    return _z3(path, data, dtype=dt, fmt=fmt, partial=i > 0 or dt in "strU4S3",
                               **kw)
                _add(f"z30-v{_fmt}-dt-{_slug(_dt)}-f{_i}", _w)
    _Z3_COMP = {
        "none": None, "zstd": zc.ZstdCodec(level=3), "zstd-cs": zc.ZstdCodec(checksum=True),
        "gzip": zc.GzipCodec(level=5), "blosc": zc.BloscCodec(cname="lz4", shuffle="shuffle"),
        "blosc-bit": zc.BloscCodec(cname="zstd", shuffle="bitshuffle", clevel=3),
        "crc32c": [zc.ZstdCodec(level=1), zc.Crc32cCodec()],
        "n-bz2": nz3.BZ2(level=5), "n-lz4": nz3.LZ4(), "n-lzma": nz3.LZMA(),
        "n-zlib": nz3.Zlib(level=3), "n-crc32": nz3.CRC32(), "n-adler32": nz3.Adler32(),
        "n-fletcher32": nz3.Fletcher32(), "n-jenkins": nz3.JenkinsLookup3(),
        "n-shuffle": [nz3.Shuffle(elementsize=4), zc.ZstdCodec(level=1)],
    }
    for _cn, _comp in _Z3_COMP.items():
        for _dt in ["float32", "int64"]:
            _add(f"z30-v3-comp-{_cn}-{_dt}", lambda path, dt=_dt, comp=_comp: _z3(
                path, sample(dt), dtype=dt, compressors=comp))
    _Z3_FILT = {
        "n-delta": ("int32", [nz3.Delta(dtype="<i4")]),
        "n-bitround": ("float32", [nz3.BitRound(keepbits=6)]),
        "n-fso": ("float64", [nz3.FixedScaleOffset(offset=10, scale=100, dtype="<f8",
                                                   astype="<i4")]),
        "n-quantize": ("float64", [nz3.Quantize(digits=3, dtype="<f8")]),
        "n-astype": ("float64", [nz3.AsType(encode_dtype="<f4", decode_dtype="<f8")]),
        "n-packbits": ("bool", [nz3.PackBits()]),
        "transpose": ("int16", [zc.TransposeCodec(order=(1, 0))]),
    }
    for _fn, (_dt, _filt) in _Z3_FILT.items():
        def _w(path, dt=_dt, filt=_filt, fn=_fn):
            data = sample(dt)
            if dt.startswith("float"):
                data = np.nan_to_num(data, nan=1.5) / 50
            return _z3(path, data, dtype=dt, filters=filt, compressors=zc.ZstdCodec(level=1))
        _add(f"z30-v3-filt-{_fn}", _w)
    for _loc in ("end", "start"):
        _add(f"z30-v3-shard-{_loc}", lambda path, loc=_loc: _z3(
            path, sample("int32"), dtype="int32", chunks=(4, 6), compressors=None, filters=None,
            serializer=zc.ShardingCodec(chunk_shape=(2, 3), index_location=loc,
                                        codecs=[zc.BytesCodec(), zc.ZstdCodec(level=1)])))
        _add(f"z30-v3-shards-api-{_loc}", lambda path: _z3(
            path, sample("float64"), dtype="float64", shards=(4, 6), chunks=(2, 3),
            fill_value=7.0, partial=True))
    for _cn, _comp in {"zstd": numcodecs.Zstd(level=1), "blosc": numcodecs.Blosc(),
                       "zlib": numcodecs.Zlib(), "gzip": numcodecs.GZip(),
                       "bz2": numcodecs.BZ2(), "lzma": numcodecs.LZMA(),
                       "lz4": numcodecs.LZ4(), "none": None}.items():
        _add(f"z30-v2-comp-{_cn}", lambda path, comp=_comp: _z3(
            path, sample("<f8"), dtype="<f8", fmt=2, compressors=comp))
    for _fn, _filt in {"delta": [numcodecs.Delta(dtype="<i4")],
                       "zlib-filter": [numcodecs.Zlib()], "crc32": [numcodecs.CRC32()]}.items():
        _add(f"z30-v2-filt-{_fn}", lambda path, filt=_filt: _z3(
            path, sample("<i4"), dtype="<i4", fmt=2, filters=filt, compressors=None))
    for _order in "CF":
        _add(f"z30-v2-order-{_order}", lambda path, order=_order: _z3(
            path, sample("<i2", (5, 6, 7)), chunks=(2, 3, 4), dtype="<i2", fmt=2, order=order))
    for _fmt in (2, 3):
        for _sep in "./":
            _add(f"z30-v{_fmt}-cke-{'dot' if _sep == '.' else 'slash'}",
                 lambda path, sep=_sep, fmt=_fmt: _z3(
                     path, sample("uint16"), dtype="uint16", fmt=fmt, chunk_key_encoding={
                         "name": "v2" if fmt == 2 else "default", "separator": sep}))

        @variant(f"z30-v{_fmt}-consolidated")
        def _cons(path, fmt=_fmt):
            root = zarr.open_group(str(path), mode="w", zarr_format=fmt)
            root.attrs["c"] = "yes"
            g = root.create_group("g", attributes={"t": 1})
            a = g.create_array("arr", shape=SHAPE, chunks=CHUNKS, dtype="<u4", fill_value=2)
            a[:4] = sample("<u4")[:4]
            a.attrs["a"] = [1, 2]
            s = root.create_array("s", shape=SHAPE, chunks=CHUNKS, dtype=str)
            s[...] = strings()
            zarr.consolidate_metadata(str(path))
            return ("group", "g/arr")

        @variant(f"z30-v{_fmt}-0d")
        def _zero_d(path, fmt=_fmt):
            return _z3(path, sample("float64", ()), dtype="float64", fmt=fmt, chunks=())

        @variant(f"z30-v{_fmt}-dimension-names")
        def _dims(path, fmt=_fmt):
            kw = {"dimension_names": ["y", "x"]}
            return _z3(path, sample("float32"), dtype="float32", fmt=fmt,
                       attributes={"u": "ü", "n": [1, None]}, **kw)


# --------------------------------------------------------------------------- pack


def _fill_of(a):
    fv = a.fill_value
    if fv is None:
        return np.array(None, dtype=object)
    if a.dtype.kind in "OT":
        return np.array(fv, dtype=object)
    return np.array(fv, dtype=a.dtype)


def _members(g, prefix=""):
    out = []
    for name, node in g.groups():
        out.append(prefix + name + "/")
        out += _members(node, prefix + name + "/")
    for name, _ in g.arrays():
        out.append(prefix + name)
    return sorted(out)


def main():
    only = sys.argv[1:]
    version = zarr.__version__
    manifest = {"zarr": version, "numcodecs": numcodecs.__version__, "numpy": np.__version__,
                "stores": {}, "skipped": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, fn in VARIANTS.items():
            if only and not any(o in name for o in only):
                continue
            store = tmp / "stores" / f"{name}.zarr"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = fn(store)
                    entry = {"store": f"stores/{name}.zarr", "path": "", "format": 2}
                    if name.startswith("z30-v3"):
                        entry["format"] = 3
                    if name.startswith("v3-"):
                        entry["format"] = "3draft"
                        entry["path"] = res.path if hasattr(res, "path") else ""
                    members = None
                    if isinstance(res, tuple) and res[0] == "zip":
                        entry["store"] += ".zip"
                        entry["path"] = res[1]
                        zs = zarr.ZipStore(str(store) + ".zip", mode="r")
                        a = zarr.open_array(zs, mode="r", path=res[1])
                    elif isinstance(res, tuple) and res[0] == "group":
                        entry["path"] = res[1]
                        kw = {"zarr_version": 3} if entry["format"] == "3draft" else {}
                        root = zarr.open_group(str(store), mode="r", **kw)
                        if V[0] >= 3:  # consolidated: what zarr-python reads through it
                            root = zarr.open_consolidated(str(store), mode="r") if \
                                "consolidated" in name else root
                        members = _members(root)
                        a = root[res[1]]
                    else:
                        kw = {"zarr_version": 3, "path": entry["path"]} \
                            if entry["format"] == "3draft" else {}
                        a = zarr.open_array(str(store), mode="r", **kw)
                    values = a[...]
                    if values.dtype.kind in "OT":  # StringDType: saved as objects
                        values = values.astype(object)
                    entry.update(shape=list(a.shape), dtype="|O" if a.dtype.kind in "OT" else
                                 str(a.dtype.descr if a.dtype.fields else a.dtype.str),
                                 attrs=dict(a.attrs), members=members)
                    buf = io.BytesIO()
                    np.savez(buf, values=values, fill=_fill_of(a))
                    (tmp / "expected").mkdir(exist_ok=True)
                    (tmp / "expected" / f"{name}.npz").write_bytes(buf.getvalue())
                    manifest["stores"][name] = entry
            except Exception as e:  # the writer's limits: recorded, not packed
                manifest["skipped"][name] = f"{type(e).__name__}: {e}"[:300]
                if os.environ.get("TRACE"):
                    traceback.print_exc()
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
        out = write_archive(tmp, HERE / f"zarr-{version}.tar.xz")
    print(f"{out.name}: {len(manifest['stores'])} stores, {len(manifest['skipped'])} skipped")
    for k, v in manifest["skipped"].items():
        print("  skipped", k, v)


if __name__ == "__main__":
    main()
