"""A corpus of stores written by other Zarr implementations, for conformance tests.

Life cycle: :func:`zarr_python_variants` and :func:`tensorstore_variants` list
:class:`Variant` objects (a name and a writer function); :meth:`Variant.write` writes the
store under a directory with that implementation and returns the :class:`Written` record:
the path, and what the writer's own reader reads back (values, shape, dtype, fill value,
attributes).  tests/conformance/test_corpus_*.py open every store with zarrhpc and compare.

Peers are imported lazily, inside the writers.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Variant", "Written", "zarr_python_variants", "tensorstore_variants", "zarrs_variants",
           "sample_data", "compare_with_zarrhpc"]

SHAPE, CHUNKS = (9, 7), (4, 3)  # edge chunks on both axes


@dataclass
class Written:
    path: str
    values: Any
    shape: tuple
    dtype: Any
    fill_value: Any = None
    attrs: dict = field(default_factory=dict)
    check_fill: bool = True
    reader: str = "zarr"  # the writer's own reader: "zarr" or "tensorstore"
    driver: str = ""      # tensorstore's driver


@dataclass
class Variant:
    name: str
    writer: Callable[[str], Written]

    def write(self, root) -> Written:
        return self.writer(str(root))

    def __repr__(self):
        return self.name


#: variants their writer cannot write (the writer's limits, not zarrhpc's)
WRITER_CANNOT = frozenset({
    "zarr3-shard-transpose",       # zarr-python: KeyError writing a transposed inner chunk
    "zarrs-shard-transpose",
    "zarr2-object-vlenbytes",      # zarr-python: VLenBytes fill value b"" refused
})


def corpus_full() -> bool:
    """Whether ``ZARRHPC_CORPUS_FULL`` asks the corpus tests for every variant."""
    return os.environ.get("ZARRHPC_CORPUS_FULL", "") not in ("", "0")


def writable(variant) -> bool:
    """Whether the corpus tests use ``variant`` (its writer can write it; zarr-python's
    21-field structured variants are left out)."""
    return variant.name not in WRITER_CANNOT and "struct21" not in variant.name


def sample_data(dtype, shape=SHAPE, seed=0) -> np.ndarray:
    """Deterministic values of ``dtype`` that exercise its range (and NaN for floats)."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="),
                         endpoint=True).astype(dt)
    elif dt.kind == "f":
        v = (rng.standard_normal(n) * 100).astype(dt)
        v[::7] = np.nan
        v[1:2] = -0.0
    elif dt.kind == "c":
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    elif dt.kind in "mM":
        v = rng.integers(-10**9, 10**9, n).astype("i8").view(dt)
        v[3:4] = np.array("NaT").astype(dt)
    elif dt.kind == "U":
        pool = ["", "a", "héllo", "日本", "x" * dt.itemsize]
        v = np.array([pool[i % len(pool)] for i in rng.integers(0, 50, n)], dtype=dt)
    elif dt.kind == "S":
        pool = [b"", b"a", b"\x00b", b"xyz" * 3]
        v = np.array([pool[i % len(pool)] for i in rng.integers(0, 50, n)], dtype=dt)
    elif dt.kind == "V" and dt.fields:
        v = np.zeros(n, dtype=dt)
        for name in dt.names:
            sub = dt.fields[name][0]
            v[name] = sample_data(sub.base, (n,) + sub.shape, seed + 1)
    elif dt.kind == "V":
        v = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt)
    elif dt.kind == "O":
        pool = ["", "a", "héllo wörld", "日本語", "emb\x00nul", "long " * 10]
        v = np.array([pool[i] for i in rng.integers(0, len(pool), n)], dtype=object)
    else:
        raise ValueError(dtype)
    return v.reshape(shape)


# --------------------------------------------------------------------------- zarr-python


def _zarr_written(path, arr_path=None, check_fill=True) -> Written:
    import zarr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = zarr.open_array(path if arr_path is None else path, path=arr_path or "", mode="r")
        values = a[...]
        return Written(path if arr_path is None else f"{path}::{arr_path}", values, a.shape,
                       a.dtype, a.fill_value, dict(a.attrs), check_fill)


def _zarr_create_written(zarr, path, kw, data, partial):
    """Create the array with zarr-python, write ``data`` (only the first chunk when
    ``partial``) and return what zarr-python reads back."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = zarr.create_array(path, **kw)
        if partial:
            region = tuple(slice(0, c) for c in kw["chunks"])
            a[region] = data[region]
        else:
            a[...] = data
    return _zarr_written(path)


def _zarr_v3(name, dtype, *, fill=None, serializer="auto", compressors="auto", filters="auto",
             shards=None, cke=None, attrs=None, dimension_names=None, shape=SHAPE,
             chunks=CHUNKS, data=None, partial=False):
    def writer(root):
        import zarr

        path = f"{root}/{name}.zarr"
        d = sample_data(dtype if dtype not in ("str", "bytes") else
                        ("O" if dtype == "str" else "S6"), shape) if data is None else data
        if dtype == "bytes":
            d = d.astype(object)
        kw = dict(shape=shape, chunks=chunks, dtype=dtype, fill_value=fill,
                  serializer=serializer, compressors=compressors, filters=filters,
                  attributes=attrs or {}, dimension_names=dimension_names)
        if shards is not None:
            kw["shards"] = shards
        if cke is not None:
            kw["chunk_key_encoding"] = cke
        return _zarr_create_written(zarr, path, kw, d, partial)
    return Variant(f"zarr3-{name}", writer)


def _zarr_v2(name, dtype, *, fill=0, compressors="auto", filters=None, order="C", sep=".",
             shape=SHAPE, chunks=CHUNKS, attrs=None, object_codec=None, partial=False):
    def writer(root):
        import zarr

        path = f"{root}/{name}.zarr"
        d = sample_data(dtype if dtype not in ("str", "bytes") else "O", shape)
        kw = dict(shape=shape, chunks=chunks, dtype=dtype, fill_value=fill,
                  compressors=compressors, filters=filters, order=order, zarr_format=2,
                  chunk_key_encoding={"name": "v2", "separator": sep}, attributes=attrs or {})
        return _zarr_create_written(zarr, path, kw, d, partial)
    return Variant(f"zarr2-{name}", writer)


V3_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64", "complex64", "complex128", "<M8[ns]", "<M8[s]",
             "<m8[ms]", "<U4", "|S3", "|V3", "str"]
V2_DTYPES = ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", ">u8", "<f2", ">f4",
             "<f8", "<c8", ">c16", "<M8[ns]", ">m8[s]", "<U4", ">U3", "|S3", "|V3",
             [("a", "<i4"), ("b", ">f8")], [("x", "|u1"), ("y", "<i2", (2,))]]


def _fills(dtype):
    dt = np.dtype(dtype) if dtype not in ("str", "bytes") else None
    if dt is None:
        return ["", "fill"] if dtype == "str" else [b""]
    k = dt.kind
    if k == "f":
        return [0.0, float("nan"), float("-inf"), -0.0, 3.5]
    if k == "c":
        return [0j, complex(float("nan"), 1.0), 1.5 - 2j]
    if k == "b":
        return [False, True]
    if k in "iu":
        info = np.iinfo(dt)
        return [0, int(info.max), int(info.min)]
    if k in "mM":
        return [0, 123]
    if k == "U":
        return ["", "ab"]
    if k == "S":
        return [b"", b"ab"]
    return [None]


def zarr_python_variants() -> list[Variant]:
    """Every data type, fill value, codec (incl. the numcodecs.* ones), sharding layout,
    chunk key encoding and v2 layout zarr-python writes."""
    import numcodecs
    import zarr
    from zarr.codecs import numcodecs as znc

    C = zarr.codecs
    out: list[Variant] = []
    # v3: every dtype x fill value, written partially so the fill value shows
    for dt in V3_DTYPES:
        for i, fill in enumerate(_fills(dt)):
            out.append(_zarr_v3(f"dt-{np.dtype(dt).str if dt not in ('str',) else dt}-f{i}"
                                .replace("|", "").replace("<", "l").replace(">", "b"),
                                dt, fill=fill, partial=i > 0))
    # v3 structured
    for i, sdt in enumerate([[("a", "<i4"), ("b", "<f8")], [("x", "u1"), ("y", ">i2")]]):
        out.append(_zarr_v3(f"struct{i}", np.dtype(sdt)))
    # v3 serializers and byte orders
    for dt in ["int16", "float64", "complex64", "uint32"]:
        for endian in ["little", "big"]:
            out.append(_zarr_v3(f"bytes-{endian}-{dt}", dt, serializer=C.BytesCodec(endian=endian),
                                compressors=None))
            out.append(_zarr_v3(f"transpose-{endian}-{dt}", dt, compressors=None,
                                serializer=C.BytesCodec(endian=endian),
                                filters=[C.TransposeCodec(order=(1, 0))]))
    # v3 compressors (zarr.codecs)
    comps = {"gzip1": C.GzipCodec(level=1), "gzip9": C.GzipCodec(level=9),
             "zstd": C.ZstdCodec(level=3), "zstd-cs": C.ZstdCodec(level=1, checksum=True),
             "crc32c": C.Crc32cCodec(), "none": None}
    for cname, shuffle in itertools.product(["lz4", "lz4hc", "zstd", "zlib", "blosclz"],
                                            ["noshuffle", "shuffle", "bitshuffle"]):
        comps[f"blosc-{cname}-{shuffle}"] = C.BloscCodec(cname=cname, clevel=5, shuffle=shuffle)
    comps["blosc-blocksize"] = C.BloscCodec(cname="lz4", blocksize=16, shuffle="shuffle")
    comps["zstd+crc32c"] = [C.ZstdCodec(level=1), C.Crc32cCodec()]
    for cn, comp in comps.items():
        for dt in ["float32", "int64", "uint8"]:
            out.append(_zarr_v3(f"comp-{cn}-{dt}", dt, compressors=comp))
    # numcodecs.* in v3
    ncomp = {"n-zlib": znc.Zlib(level=1), "n-gzip": znc.GZip(level=1), "n-bz2": znc.BZ2(level=1),
             "n-lzma": znc.LZMA(), "n-lz4": znc.LZ4(), "n-zstd": znc.Zstd(level=1),
             "n-blosc": znc.Blosc(cname="zstd", clevel=1, shuffle=1),
             "n-crc32": znc.CRC32(), "n-crc32c": znc.CRC32C(), "n-adler32": znc.Adler32(),
             "n-fletcher32": znc.Fletcher32(), "n-jenkins": znc.JenkinsLookup3(),
             "n-shuffle": znc.Shuffle(elementsize=4)}

    if _importable("pcodec"):
        for dt in ["float32", "int64", "uint16"]:
            out.append(_zarr_v3(f"nser-pcodec-{dt}", dt, serializer=znc.PCodec(level=3),
                                compressors=None))
    for cn, comp in ncomp.items():
        for dt in ["float32", "int16"]:
            kw = {"compressors": comp}
            if cn == "n-shuffle":
                kw = {"compressors": [comp, C.ZstdCodec(level=1)]}
                if dt == "int16":
                    kw = {"compressors": [znc.Shuffle(elementsize=2)]}
            out.append(_zarr_v3(f"ncomp-{cn}-{dt}", dt, **kw))
    nfilt = {
        "n-delta": ("int32", [znc.Delta(dtype="<i4")]),
        "n-delta-astype": ("int64", [znc.Delta(dtype="<i8", astype="<i8")]),
        "n-bitround": ("float32", [znc.BitRound(keepbits=6)]),
        "n-bitround64": ("float64", [znc.BitRound(keepbits=12)]),
        "n-quantize": ("float64", [znc.Quantize(digits=3, dtype="<f8")]),
        "n-fso": ("float64", [znc.FixedScaleOffset(offset=10, scale=100, dtype="<f8",
                                                   astype="<i4")]),
        "n-astype": ("float64", [znc.AsType(encode_dtype="<f4", decode_dtype="<f8")]),
        "n-packbits": ("bool", [znc.PackBits()]),
    }
    for fn, (dt, filt) in nfilt.items():
        for comp_name, comp in [("none", None), ("zstd", C.ZstdCodec(level=1))]:
            out.append(_zarr_v3(f"nfilt-{fn}-{comp_name}", dt, filters=filt, compressors=comp,
                                data=_filter_data(fn, dt)))
    # sharding: index location, inner codecs, nesting, partial shards
    for loc in ["end", "start"]:
        for dt in ["int32", "float64"]:
            out.append(_zarr_v3(f"shard-{loc}-{dt}", dt, serializer=C.ShardingCodec(
                chunk_shape=(2, 3), codecs=[C.BytesCodec(), C.ZstdCodec(level=1)],
                index_location=loc), compressors=None, filters=None, chunks=(4, 6)))
            out.append(_zarr_v3(f"shardnest-{loc}-{dt}", dt, serializer=C.ShardingCodec(
                chunk_shape=(2, 6), codecs=[C.ShardingCodec(chunk_shape=(1, 3),
                                                            index_location=loc)],
                index_location=loc), compressors=None, filters=None, chunks=(4, 6)))
            out.append(_zarr_v3(f"shards-api-{loc}-{dt}", dt, shards=(4, 6), chunks=(2, 3),
                                partial=True, fill=7))
    out.append(_zarr_v3("shard-idx-nocrc", "uint16", compressors=None, filters=None,
                        chunks=(4, 6), serializer=C.ShardingCodec(
                            chunk_shape=(2, 3), index_codecs=[C.BytesCodec()])))
    out.append(_zarr_v3("shard-transpose", "int32", compressors=None, chunks=(4, 6),
                        filters=[C.TransposeCodec(order=(1, 0))],
                        serializer=C.ShardingCodec(chunk_shape=(2, 3), codecs=[
                            C.TransposeCodec(order=(1, 0)), C.BytesCodec(endian="big")])))
    # chunk key encodings, 0-d, 1-d, 3-d shapes, size-0 axes, attributes, dimension names
    for cke in [{"name": "default", "separator": "."}, {"name": "default", "separator": "/"},
                {"name": "v2", "separator": "."}, {"name": "v2", "separator": "/"}]:
        out.append(_zarr_v3(f"cke-{cke['name']}-{'dot' if cke['separator'] == '.' else 'slash'}",
                            "int32", cke=cke))
    out.append(_zarr_v3("0d", "float64", shape=(), chunks=()))
    out.append(_zarr_v3("1d", "int8", shape=(100,), chunks=(7,)))
    out.append(_zarr_v3("3d", "uint16", shape=(5, 6, 7), chunks=(2, 3, 4)))
    out.append(_zarr_v3("size0", "float32", shape=(0, 5), chunks=(2, 2)))
    out.append(_zarr_v3("attrs", "int32", attrs={"a": 1, "nested": {"x": [1, 2.5, None]},
                                                "unicode": "héllo", "nan": "NaN"},
                        dimension_names=["y", "x"]))
    out.append(_zarr_v3("str-zstd", "str", compressors=C.ZstdCodec(level=1)))
    out.append(_zarr_v3("str-sharded", "str", shards=(4, 6), chunks=(2, 3)))
    out.append(_zarr_v3("vbytes", "bytes", fill=b""))

    # v2: every dtype (incl. structured), orders, separators, compressors, filters
    for dt in V2_DTYPES:
        for order in "CF":
            name = np.dtype(dt).str if not isinstance(dt, list) else \
                f"struct{V2_DTYPES.index(dt)}"
            fills = [0] if isinstance(dt, list) else _fills(dt)[:2]
            if np.dtype(dt).kind == "V" and not isinstance(dt, list):
                fills = [None]
            for i, fill in enumerate(fills + [None]):
                out.append(_zarr_v2(
                    f"dt-{name}-{order}-f{i}".replace("|", "").replace("<", "l")
                    .replace(">", "b"), dt, fill=fill, order=order, partial=i > 0))
    v2comps = {"none": None, "zlib": numcodecs.Zlib(level=1), "gzip": numcodecs.GZip(level=1),
               "bz2": numcodecs.BZ2(level=1), "lzma": numcodecs.LZMA(),
               "lz4": numcodecs.LZ4(), "zstd": numcodecs.Zstd(level=1),
               "blosc-lz4-shuffle": numcodecs.Blosc(cname="lz4", shuffle=1),
               "blosc-zstd-bitshuffle": numcodecs.Blosc(cname="zstd", shuffle=2),
               "blosc-zlib-noshuffle": numcodecs.Blosc(cname="zlib", shuffle=0),
               "blosc-autoshuffle": numcodecs.Blosc(cname="lz4", shuffle=-1)}
    for cn, comp in v2comps.items():
        for dt in ["<f4", ">i8", "|u1"]:
            for sep in "./":
                out.append(_zarr_v2(f"comp-{cn}-{dt}-{'dot' if sep == '.' else 'slash'}"
                                    .replace("|", "").replace("<", "l").replace(">", "b"),
                                    dt, compressors=comp, sep=sep))
    v2filt = {
        "delta": ("<i4", [numcodecs.Delta(dtype="<i4")]),
        "delta-astype": ("<i4", [numcodecs.Delta(dtype="<i4", astype="<i2")]),
        "fso": ("<f8", [numcodecs.FixedScaleOffset(offset=1, scale=10, dtype="<f8",
                                                   astype="u1")]),
        "quantize": ("<f4", [numcodecs.Quantize(digits=2, dtype="<f4")]),
        "bitround": ("<f4", [numcodecs.BitRound(keepbits=5)]),
        "astype": ("<f8", [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")]),
        "packbits": ("|b1", [numcodecs.PackBits()]),
        "shuffle": ("<i4", [numcodecs.Shuffle(elementsize=4)]),
        "categorize": ("<U5", [numcodecs.Categorize(labels=["", "a", "héllo", "日本"],
                                                    dtype="<U5", astype="u1")]),
        "crc32": ("<i2", [numcodecs.CRC32()]),
        "adler32": ("<i2", [numcodecs.Adler32()]),
        "fletcher32": ("<i2", [numcodecs.Fletcher32()]),
    }
    if _importable("pcodec"):
        v2filt["pcodec"] = ("<f8", [numcodecs.PCodec(level=2)])
    for fn, (dt, filt) in v2filt.items():
        for comp_name, comp in [("none", None), ("blosc", numcodecs.Blosc(cname="lz4"))]:
            for order in "CF":
                out.append(_zarr_v2_filtered(fn, dt, filt, comp_name, comp, order))
    for oc_name, oc, kind in [("vlenutf8", numcodecs.VLenUTF8(), "str"),
                              ("vlenbytes", numcodecs.VLenBytes(), "bytes")]:
        out.append(_zarr_v2_object(oc_name, oc, kind))
    out.append(_zarr_v2("0d", "<f8", shape=(), chunks=()))
    out.append(_zarr_v2("3d-F", "<i2", shape=(5, 6, 7), chunks=(2, 3, 4), order="F"))
    out.append(_zarr_v2("size0", "<f4", shape=(3, 0), chunks=(2, 2)))
    out.append(_zarr_v2("attrs", "<i4", attrs={"a": [1, {"b": None}], "u": "ünï"}))
    out.extend(_consolidated_variants())
    return out


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def zarrs_variants() -> list[Variant]:
    """The zarr-python v3 variants written through the zarrs (Rust) codec pipeline; empty
    when the ``zarrs`` package is not installed."""
    if not _importable("zarrs"):
        return []
    out = []
    for v in zarr_python_variants():
        if not v.name.startswith("zarr3-"):
            continue

        def writer(root, inner=v.writer):
            import zarr

            with zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"}):
                written = inner(root)
            # expected values: zarr-python's own pipeline (zarrs 0.2.3 itself reads
            # big-endian complex edge chunks with real and imaginary parts swapped)
            base, _, arr_path = written.path.partition("::")
            return _zarr_written(base, arr_path or None, written.check_fill)
        out.append(Variant("zarrs-" + v.name[len("zarr3-"):], writer))
    return out


def _filter_data(fn, dt):
    d = sample_data(dt)
    if fn == "n-fso":
        d = np.round(np.nan_to_num(d) % 20, 2)
    if fn in ("n-delta", "n-delta-astype"):
        d = (d // 4).astype(dt)
    return d


def _zarr_v2_filtered(fn, dt, filt, comp_name, comp, order):
    def writer(root):
        import zarr

        path = f"{root}/v2filt-{fn}-{comp_name}-{order}.zarr"
        d = sample_data(dt)
        if fn == "fso":
            d = np.round(np.abs(np.nan_to_num(d)) % 20, 1)
        if fn == "delta-astype":
            d = (d % 1000).astype(dt)
        if fn == "categorize":
            d = np.array(["", "a", "héllo", "日本"], dtype=dt)[
                np.arange(int(np.prod(SHAPE))) % 4].reshape(SHAPE)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = zarr.create_array(path, shape=SHAPE, chunks=CHUNKS, dtype=dt, fill_value=0
                                  if np.dtype(dt).kind != "U" else "", filters=filt,
                                  compressors=comp, order=order, zarr_format=2)
            a[...] = d
        return _zarr_written(path)
    return Variant(f"zarr2-filt-{fn}-{comp_name}-{order}", writer)


def _zarr_v2_object(name, codec, kind):
    def writer(root):
        import zarr

        path = f"{root}/v2obj-{name}.zarr"
        d = sample_data("O")
        if kind == "bytes":
            d = np.array([s.encode() for s in d.ravel()], dtype=object).reshape(d.shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = zarr.create_array(path, shape=SHAPE, chunks=CHUNKS,
                                  dtype=str if kind == "str" else bytes,
                                  filters=[codec], compressors=None, zarr_format=2)
            a[...] = d
        return _zarr_written(path, check_fill=False)
    return Variant(f"zarr2-object-{name}", writer)


def _consolidated_variants():
    out = []
    for fmt in (2, 3):
        def writer(root, fmt=fmt):
            import zarr

            path = f"{root}/consolidated-v{fmt}.zarr"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                g = zarr.create_group(path, zarr_format=fmt, attributes={"g": 1})
                sub = g.create_group("sub", attributes={"s": "x"})
                a = sub.create_array("arr", shape=SHAPE, chunks=CHUNKS, dtype="<i4",
                                     fill_value=-1, attributes={"a": [1]})
                a[:4] = sample_data("<i4")[:4]
                zarr.consolidate_metadata(path)
            return _zarr_written(path, "sub/arr")
        out.append(Variant(f"zarr{fmt}-consolidated", writer))
    return out


# ---------------------------------------------------------------------------- tensorstore


def _ts_variant(name, spec_meta, dtype, driver, *, data=None, shape=SHAPE, partial=False):
    def writer(root):
        import tensorstore as ts

        path = f"{root}/ts-{name}.zarr"
        d = sample_data(dtype, shape) if data is None else data
        spec = {"driver": driver, "kvstore": {"driver": "file", "path": path},
                "metadata": spec_meta, "create": True, "delete_existing": True}
        t = ts.open(spec).result()
        if partial:
            region = tuple(slice(0, min(2, n)) for n in shape)
            t[region].write(d[region]).result()
        else:
            t.write(d).result()
        values = t.read().result()
        fill = None
        if driver == "zarr3":
            fill = spec_meta.get("fill_value")
        return Written(path, values, tuple(t.shape), t.dtype.numpy_dtype, fill, {},
                       check_fill=False, reader="tensorstore", driver=driver)
    return Variant(f"ts-{driver}-{name}", writer)


TS_V3_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def tensorstore_variants() -> list[Variant]:
    """tensorstore's zarr (v2) and zarr3 drivers: their dtypes, codecs and layouts."""
    import ml_dtypes

    out: list[Variant] = []
    for dt in TS_V3_DTYPES + ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4"]:
        npdt = np.dtype(getattr(ml_dtypes, dt)) if hasattr(ml_dtypes, dt) and dt not in \
            TS_V3_DTYPES else np.dtype(dt)
        data = _ml_data(npdt)
        for cname, codecs in _ts_v3_chains(npdt.itemsize).items():
            fill = _ts_fill(npdt)
            meta = {"shape": list(SHAPE), "data_type": dt, "codecs": codecs,
                    "chunk_grid": {"name": "regular",
                                   "configuration": {"chunk_shape": list(CHUNKS)}},
                    "fill_value": fill}
            out.append(_ts_variant(f"{dt}-{cname}", meta, npdt, "zarr3", data=data,
                                   partial=cname == "zstd"))
    for loc in ["end", "start"]:
        shard = {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 3], "index_location": loc,
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "zstd", "configuration": {"level": 1}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                             {"name": "crc32c"}]}}
        meta = {"shape": list(SHAPE), "data_type": "int32", "codecs": [shard],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}}}
        out.append(_ts_variant(f"shard-{loc}", meta, "int32", "zarr3", partial=True))
    for sep in [".", "/"]:
        meta = {"shape": list(SHAPE), "data_type": "uint16",
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": sep}},
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 3]}}}
        out.append(_ts_variant(f"cke-{'dot' if sep == '.' else 'slash'}", meta, "uint16",
                               "zarr3"))
    # v2 driver
    for dt in ["|b1", "|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8", "<f2", ">f4",
               "<f8", "<c8", ">c16", "bfloat16"]:
        npdt = np.dtype(ml_dtypes.bfloat16) if dt == "bfloat16" else np.dtype(dt)
        for cname, comp in {"none": None, "zlib": {"id": "zlib", "level": 1},
                            "blosc": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
                            "bz2": {"id": "bz2", "level": 1},
                            "zstd": {"id": "zstd", "level": 1}}.items():
            for order in "CF":
                meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": dt,
                        "compressor": comp, "order": order, "fill_value": None}
                out.append(_ts_variant(f"v2-{dt}-{cname}-{order}".replace("|", "")
                                       .replace("<", "l").replace(">", "b"), meta, npdt,
                                       "zarr", data=_ml_data(npdt), partial=cname == "zlib"))
    for sdt in [[["a", "<i4"], ["b", ">f8"]], [["x", "|u1"], ["y", "<i2", [2]]]]:
        npdt = np.dtype([tuple(f) for f in sdt])
        meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": sdt,
                "compressor": None, "fill_value": None}
        out.append(_ts_struct_variant(f"v2-struct{len(sdt[1])}", meta, npdt))
    for sep in "./":
        meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": "<i4",
                "compressor": {"id": "zlib", "level": 1}, "fill_value": 5,
                "dimension_separator": sep}
        out.append(_ts_variant(f"v2-sep-{'dot' if sep == '.' else 'slash'}", meta, "<i4",
                               "zarr", partial=True))
    return out


def _ts_struct_variant(name, meta, npdt):
    def writer(root):
        import tensorstore as ts

        path = f"{root}/ts-{name}.zarr"
        d = sample_data(npdt)
        spec = {"driver": "zarr", "kvstore": {"driver": "file", "path": path},
                "metadata": meta, "create": True, "delete_existing": True}
        ts.open(dict(spec, field=npdt.names[0])).result()
        for field_name in npdt.names:
            t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": path},
                         "field": field_name}).result()
            t.write(d[field_name]).result()
        values = np.zeros(SHAPE, dtype=npdt)
        for field_name in npdt.names:
            t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": path},
                         "field": field_name}).result()
            values[field_name] = t.read().result()
        return Written(path, values, SHAPE, npdt, None, {}, check_fill=False,
                       reader="tensorstore-fields", driver="zarr")
    return Variant(f"ts-zarr-{name}", writer)


def _ml_data(npdt):
    import ml_dtypes

    if npdt.kind in "biufc" and npdt.name in np.sctypeDict and npdt.names is None \
            and npdt.type.__module__ == "numpy":
        return sample_data(npdt)
    # ml_dtypes: finite small values (int4: -8..7)
    rng = np.random.default_rng(3)
    if npdt == np.dtype(ml_dtypes.int4):
        return rng.integers(-8, 8, SHAPE).astype(npdt)
    return (rng.standard_normal(SHAPE) * 4).astype(npdt)


def _ts_fill(npdt):
    k = npdt.kind
    if k == "b":
        return True
    if k == "c":
        return [1.5, -2.0]
    if npdt.kind in "iu" or "int" in npdt.name:
        return 3
    return -1.5


def _ts_v3_chains(itemsize):
    little = {"name": "bytes", "configuration": {"endian": "little"}}
    big = {"name": "bytes", "configuration": {"endian": "big"}}
    return {
        "raw": [little],
        "big": [big],
        "gzip": [little, {"name": "gzip", "configuration": {"level": 1}}],
        "zstd": [little, {"name": "zstd", "configuration": {"level": 1}}],
        "blosc": [little, {"name": "blosc", "configuration": {
            "cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": max(itemsize, 1),
            "blocksize": 0}}],
        "crc32c": [little, {"name": "crc32c"}],
        "transpose": [{"name": "transpose", "configuration": {"order": [1, 0]}}, big],
    }


# ------------------------------------------------------------------------------ compare


def _as_comparable(v):
    v = np.asarray(v)
    if v.dtype.kind in "OT" or v.dtype.kind == "U":
        return np.array([x if isinstance(x, bytes) else str(x) for x in v.ravel()],
                        dtype=object).reshape(v.shape)
    return v


def values_equal(a, b) -> bool:
    a, b = _as_comparable(a), _as_comparable(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "O" or b.dtype.kind == "O":
        return a.tolist() == b.tolist()
    if a.dtype.fields is None and a.dtype.kind not in "V":
        a = a.astype(a.dtype.newbyteorder("="))
        b = b.astype(b.dtype.newbyteorder("="))
    if a.dtype != b.dtype:
        return False
    # bitwise for everything fixed-size: NaN payloads, -0.0, NaT, structured padding
    if a.dtype.fields is None and a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True)) and \
            bool(np.array_equal(np.signbit(a.real), np.signbit(b.real)))
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _fill_equal(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        a = np.asarray(a)
        b = np.asarray(b)
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.array_equal(a.astype(complex), b.astype(complex), equal_nan=True))
        if a.dtype.kind in "mM" or b.dtype.kind in "mM":
            return a.astype("i8").tolist() == b.astype("i8").tolist() if a.dtype.kind in "mM" \
                and b.dtype.kind in "mM" else str(a) == str(b)
        return a.tobytes() == b.tobytes() if a.dtype == b.dtype else a.tolist() == b.tolist()
    except (TypeError, ValueError):
        return str(a) == str(b)


def compare_with_zarrhpc(w: Written) -> list[str]:
    """Open ``w`` with zarrhpc and list every difference from the writer's own read."""
    import zarrhpc

    path, _, arr_path = w.path.partition("::")
    problems = []
    a = zarrhpc.open_array(path, path=arr_path or "", mode="r")
    if tuple(a.shape) != tuple(w.shape):
        problems.append(f"shape {a.shape} != {w.shape}")
    got = a[...]
    if not values_equal(got, w.values):
        problems.append(f"values differ:\nzarrhpc {got!r}\nwriter  {w.values!r}")
    wd = np.dtype(w.dtype) if not hasattr(w.dtype, "to_native_dtype") else w.dtype
    # simple types: zarrhpc's and zarr-python's v2 arrays show the stored byte order,
    # tensorstore's the machine's: compared modulo byte order
    ad, wdt = np.dtype(a.dtype), np.dtype(wd)
    if ad.kind not in "OT" and wdt.kind not in "OT" and ad != wdt and (
            wdt.fields is not None or ad.newbyteorder("=") != wdt.newbyteorder("=")):
        problems.append(f"dtype {a.dtype} != {wd}")
    if w.check_fill and not _fill_equal(a.fill_value, w.fill_value):
        problems.append(f"fill_value {a.fill_value!r} != {w.fill_value!r}")
    if dict(a.attrs) != w.attrs:
        problems.append(f"attrs {dict(a.attrs)} != {w.attrs}")
    # a sub-selection decodes the same (exercises the partial-read paths)
    if len(w.shape) == 2 and all(w.shape):
        sub = a[1::2, ::-2]
        if not values_equal(sub, np.asarray(w.values)[1::2, ::-2]):
            problems.append(f"strided read differs: {sub!r}")
    return problems


METADATA_FILES = ("zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata")


def read_with_writer(w: Written, path: str):
    """What the implementation that wrote ``w`` reads at ``path`` (same layout)."""
    if w.reader == "zarr":
        import zarr

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base, _, arr_path = path.partition("::")
            return zarr.open_array(base, path=arr_path or "", mode="r")[...]
    import tensorstore as ts

    if w.reader == "tensorstore-fields":
        npdt = np.dtype(w.dtype)
        values = np.zeros(w.shape, dtype=npdt)
        for name in npdt.names:
            t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": path},
                         "field": name}).result()
            values[name] = t.read().result()
        return values
    t = ts.open({"driver": w.driver, "kvstore": {"driver": "file", "path": path}}).result()
    return t.read().result()


def rewrite_with_zarrhpc(w: Written, root: str) -> list[str]:
    """Write conformance: copy only the metadata of ``w`` to ``root``, write the writer's
    values with zarrhpc (whole array, then a strided region again), read them back with the
    writer's own reader and list every difference."""
    import shutil
    from pathlib import Path

    import zarrhpc

    src, _, arr_path = w.path.partition("::")
    dst = Path(root) / (Path(src).name + "-zh")
    for f in Path(src).rglob("*"):
        if f.name in METADATA_FILES:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
    a = zarrhpc.open_array(str(dst), path=arr_path or "", mode="r+")
    values = np.asarray(w.values)
    a[...] = values
    problems = []
    where = str(dst) + (f"::{arr_path}" if arr_path else "")
    got = read_with_writer(w, where)
    if not values_equal(got, values):
        problems.append(f"whole write: writer reads\n{got!r}\nexpected\n{values!r}")
    if values.ndim == 2 and all(values.shape):
        region = (slice(1, None, 2), slice(None, None, 3))
        a[region] = values[::-1, ::-1][region]
        expect = values.copy()
        expect[region] = values[::-1, ::-1][region]
        got = read_with_writer(w, where)
        if not values_equal(got, expect):
            problems.append(f"region write: writer reads\n{got!r}\nexpected\n{expect!r}")
    return problems


def zarr_python_reads_struct() -> bool:
    """Whether the installed zarr-python reads the zarr-extensions ``struct`` data type
    (zarrhpc writes it for ``zarrhpc.dtype.Struct``; zarr-python 3.1 reads only its legacy
    ``structured``, 3.2+ both)."""
    from zarr.core.dtype import get_data_type_from_json

    try:
        get_data_type_from_json({"name": "struct", "configuration": {"fields": [
            {"name": "a", "data_type": "int8"}]}}, zarr_format=3)
    except (ValueError, TypeError, KeyError):
        return False
    return True
