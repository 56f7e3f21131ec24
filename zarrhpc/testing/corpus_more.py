"""More of the writer corpus (:mod:`zarrhpc.testing.corpus`): every codec variant and data
type the writers in the environment produce beyond the base lists.

- tensorstore zarr3: every ml_dtypes type its driver writes (float8_e3m4, _e4m3fnuz,
  _e4m3b11fnuz, _e5m2fnuz, _e8m0fnu, float4_e2m1fn, int2), blosc with every cname x
  shuffle, gzip and zstd levels and checksums, NaN/Inf fills, dimension names, v2 chunk
  keys, and sharding with blosc/gzip/crc32c/transposed inner chains, index at the start,
  without an index checksum, nested, 3-d and partially written;
- tensorstore zarr (v2): blosc with every cname x shuffle (incl. -1), gzip, zstd levels,
  fill values;
- zarr-python v3 with every ``numcodecs.*`` codec in every configuration form that
  changes its bytes (levels, checksums, presets, blosc cnames and shuffles, filters on
  other types);
- zarr-python v2 with every numcodecs compressor in those forms and the filters the base
  list lacks (base64, crc32c, jenkins_lookup3, and blosc with every cname x shuffle);
- xarray's ``to_zarr`` (v2 and v3; CF-encoded floats with NaN, integers, datetimes,
  strings, bools, consolidated metadata), each variable one store entry.

Each entry is a :class:`~zarrhpc.testing.corpus.Variant`; peers are imported lazily.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from zarrhpc.testing.corpus import (
    CHUNKS,
    SHAPE,
    Variant,
    _ml_data,
    _ts_variant,
    _zarr_v2,
    _zarr_v3,
    _zarr_written,
    sample_data,
)

__all__ = ["more_tensorstore_variants", "more_zarr_python_variants", "xarray_variants"]

_CNAMES = ("lz4", "lz4hc", "blosclz", "zstd", "zlib")
_GRID = {"name": "regular", "configuration": {"chunk_shape": list(CHUNKS)}}
_LITTLE = {"name": "bytes", "configuration": {"endian": "little"}}
_BIG = {"name": "bytes", "configuration": {"endian": "big"}}


def _tag(text: str) -> str:
    return text.replace("|", "").replace("<", "l").replace(">", "b")


# ---------------------------------------------------------------------------- tensorstore


def more_tensorstore_variants() -> list[Variant]:
    """tensorstore's zarr3 and zarr drivers beyond :func:`corpus.tensorstore_variants`."""
    import ml_dtypes

    out: list[Variant] = []
    # every further ml_dtypes type the zarr3 driver writes
    for name in ("float8_e3m4", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz",
                 "float8_e8m0fnu", "float4_e2m1fn", "int2"):
        npdt = np.dtype(getattr(ml_dtypes, name))
        data = _ml_data(npdt) if name != "int2" else np.random.default_rng(5).integers(
            -2, 2, SHAPE).astype(npdt)
        fill = 1 if name == "int2" else 0.5
        for cname, codecs in {"raw": [_LITTLE], "zstd": [_LITTLE, {"name": "zstd",
                                                                    "configuration": {"level": 1}}],
                              "big": [_BIG]}.items():
            meta = {"shape": list(SHAPE), "data_type": name, "codecs": codecs,
                    "chunk_grid": _GRID, "fill_value": fill}
            # float8_e8m0fnu written whole: tensorstore 0.1.86 turns its JSON fill value
            # into the wrong bits (0.5 -> 0x3e, 2**-65; the spec and ml_dtypes: 0x7e), so
            # a missing chunk would read differently from every spec reader
            out.append(_ts_variant(f"{name}-{cname}", meta, npdt, "zarr3", data=data,
                                   partial=cname == "zstd" and name != "float8_e8m0fnu"))
    # blosc: every cname x shuffle, for a 4-byte and a 1-byte type
    for cname, shuffle, dt in itertools.product(_CNAMES, ("noshuffle", "shuffle", "bitshuffle"),
                                                ("float32", "uint8")):
        npdt = np.dtype(dt)
        codecs = [_LITTLE, {"name": "blosc", "configuration": {
            "cname": cname, "clevel": 5, "shuffle": shuffle, "typesize": npdt.itemsize,
            "blocksize": 0}}]
        meta = {"shape": list(SHAPE), "data_type": dt, "codecs": codecs, "chunk_grid": _GRID,
                "fill_value": 0}
        out.append(_ts_variant(f"blosc-{cname}-{shuffle}-{dt}", meta, npdt, "zarr3"))
    # gzip / zstd levels and checksums
    for label, codec in {"gzip0": {"name": "gzip", "configuration": {"level": 0}},
                         "gzip9": {"name": "gzip", "configuration": {"level": 9}},
                         "zstd-cs": {"name": "zstd", "configuration": {"level": 3,
                                                                       "checksum": True}},
                         "zstd-neg": {"name": "zstd", "configuration": {"level": -5}},
                         "zstd19": {"name": "zstd", "configuration": {"level": 19}}}.items():
        meta = {"shape": list(SHAPE), "data_type": "int64", "codecs": [_LITTLE, codec],
                "chunk_grid": _GRID, "fill_value": 0}
        out.append(_ts_variant(f"codec-{label}", meta, "int64", "zarr3"))
    # fill values, dimension names, v2 chunk keys
    for label, fill in {"nan": "NaN", "inf": "Infinity", "ninf": "-Infinity",
                        "hexnan": "0x7ff8000000000001", "neg0": -0.0}.items():
        meta = {"shape": list(SHAPE), "data_type": "float64", "codecs": [_LITTLE],
                "chunk_grid": _GRID, "fill_value": fill}
        out.append(_ts_variant(f"fill-{label}", meta, "float64", "zarr3", partial=True))
    meta = {"shape": list(SHAPE), "data_type": "int16", "chunk_grid": _GRID,
            "dimension_names": ["y", None]}
    out.append(_ts_variant("dimnames", meta, "int16", "zarr3"))
    for sep in "./":
        meta = {"shape": list(SHAPE), "data_type": "uint32", "chunk_grid": _GRID,
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": sep}}}
        out.append(_ts_variant(f"cke-v2-{'dot' if sep == '.' else 'slash'}", meta, "uint32",
                               "zarr3", partial=True))
    out.extend(_ts_sharding())
    out.extend(_ts_v2())
    return out


def _shard(inner, codecs, index_codecs=None, loc="end"):
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner), "codecs": codecs, "index_location": loc,
        "index_codecs": index_codecs or [_LITTLE, {"name": "crc32c"}]}}


def _ts_sharding() -> list[Variant]:
    blosc = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                "shuffle": "shuffle", "typesize": 4,
                                                "blocksize": 0}}
    gzip = {"name": "gzip", "configuration": {"level": 5}}
    chains = {
        "blosc": [_shard((2, 3), [_LITTLE, blosc])],
        "gzip-start": [_shard((2, 3), [_LITTLE, gzip], loc="start")],
        "crc32c-inner": [_shard((2, 3), [_LITTLE, {"name": "crc32c"}])],
        "idx-nocrc": [_shard((2, 3), [_LITTLE], index_codecs=[_LITTLE])],
        "idx-big": [_shard((2, 3), [_BIG], index_codecs=[_BIG, {"name": "crc32c"}])],
        "transposed": [_shard((2, 3), [{"name": "transpose", "configuration": {
            "order": [1, 0]}}, _BIG, gzip])],
        "nested": [_shard((2, 6), [_shard((1, 3), [_LITTLE])])],
        "outer-transpose": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                            _shard((3, 2), [_LITTLE, blosc])],
    }
    out = []
    for label, codecs in chains.items():
        grid = {"name": "regular", "configuration": {"chunk_shape": [4, 6]}}
        meta = {"shape": list(SHAPE), "data_type": "float32", "codecs": codecs,
                "chunk_grid": grid, "fill_value": "NaN"}
        out.append(_ts_variant(f"shard-{label}", meta, "float32", "zarr3",
                               partial=label in ("blosc", "nested")))
    shape3 = (5, 6, 7)
    meta = {"shape": list(shape3), "data_type": "uint16", "fill_value": 9,
            "codecs": [_shard((2, 3, 4), [_LITTLE, gzip])],
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6, 4]}}}
    out.append(_ts_variant("shard-3d", meta, "uint16", "zarr3", shape=shape3, partial=True))
    return out


def _ts_v2() -> list[Variant]:
    out = []
    for cname, shuffle, dt in itertools.product(_CNAMES, (0, 1, 2, -1), ("<f4", "|u1")):
        comp = {"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle}
        meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": dt, "compressor": comp,
                "fill_value": 0}
        out.append(_ts_variant(_tag(f"v2-blosc-{cname}-{shuffle}-{dt}"), meta, dt, "zarr"))
    for label, comp in {"gzip1": {"id": "gzip", "level": 1}, "gzip9": {"id": "gzip", "level": 9},
                        "zstd-3": {"id": "zstd", "level": -3},
                        "zstd19": {"id": "zstd", "level": 19}}.items():
        meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": ">i8",
                "compressor": comp, "fill_value": 0}
        out.append(_ts_variant(f"v2-{label}", meta, ">i8", "zarr"))
    for label, (dt, fill) in {"nan": ("<f8", "NaN"), "ninf": (">f4", "-Infinity"),
                              "int": ("<i2", -7), "bool": ("|b1", True),
                              "c8": ("<c8", [1.5, "NaN"])}.items():
        meta = {"shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": dt,
                "compressor": {"id": "zlib", "level": 1}, "fill_value": fill}
        out.append(_ts_variant(f"v2-fill-{label}", meta, dt, "zarr", partial=True))
    return out


# ---------------------------------------------------------------------------- zarr-python


def more_zarr_python_variants() -> list[Variant]:
    """zarr-python v3 ``numcodecs.*`` and v2 numcodecs forms beyond the base list."""
    import numcodecs
    import zarr
    from zarr.codecs import numcodecs as znc

    C = zarr.codecs
    out: list[Variant] = []
    ncomp = {
        "n-zlib9": znc.Zlib(level=9), "n-gzip9": znc.GZip(level=9), "n-bz2-9": znc.BZ2(level=9),
        "n-lzma-p9": znc.LZMA(preset=9), "n-lzma-alone": znc.LZMA(format=2),
        "n-lz4-acc": znc.LZ4(acceleration=10), "n-zstd-cs": znc.Zstd(level=3, checksum=True),
        "n-zstd-neg": znc.Zstd(level=-3),
    }
    for cname, shuffle in itertools.product(_CNAMES, (0, 1, 2)):
        ncomp[f"n-blosc-{cname}-{shuffle}"] = znc.Blosc(cname=cname, clevel=3, shuffle=shuffle)
    for label, comp in ncomp.items():
        for dt in ("float64", "uint8"):
            out.append(_zarr_v3(f"ncomp-{label}-{dt}", dt, compressors=comp))
    nfilt = {
        "n-delta-i2": ("int16", [znc.Delta(dtype="<i2")]),
        "n-delta-u8": ("uint8", [znc.Delta(dtype="|u1")]),
        "n-bitround-f2": ("float16", [znc.BitRound(keepbits=3)]),
        "n-quantize-f4": ("float32", [znc.Quantize(digits=2, dtype="<f4")]),
        "n-astype-i8": ("int64", [znc.AsType(encode_dtype="<i4", decode_dtype="<i8")]),
        "n-delta+fso": ("float64", [znc.FixedScaleOffset(offset=0, scale=10, dtype="<f8",
                                                         astype="<i8"),
                                    znc.Delta(dtype="<i8")]),
    }
    for fn, (dt, filt) in nfilt.items():
        data = sample_data(dt)
        if fn == "n-astype-i8":
            data = (data % 10**6).astype(dt)
        if fn == "n-delta-i2":
            data = (data // 4).astype(dt)
        if fn == "n-delta+fso":
            data = np.round(np.nan_to_num(data) % 50, 1)
        out.append(_zarr_v3(f"nfilt-{fn}", dt, filters=filt, compressors=C.ZstdCodec(level=1),
                            data=data))
    out.append(_zarr_v3("ncomp-shuffle8-zstd", "float64", compressors=[
        znc.Shuffle(elementsize=8), C.ZstdCodec(level=1)]))
    out.append(_zarr_v3("ncomp-shuffle2-blosc", "int16", compressors=[
        znc.Shuffle(elementsize=2), C.BloscCodec(cname="lz4", shuffle="noshuffle")]))
    out.append(_zarr_v3("ncheck-crc32c-after-zstd", "int32", compressors=[
        C.ZstdCodec(level=1), znc.CRC32C()]))
    out.append(_zarr_v3("ncheck-adler32-after-gzip", "int32", compressors=[
        C.GzipCodec(level=1), znc.Adler32()]))
    # v2: every compressor form and the filters the base list lacks
    v2comps = {
        "zstd-cs": numcodecs.Zstd(level=3, checksum=True), "zstd-neg": numcodecs.Zstd(level=-3),
        "gzip9": numcodecs.GZip(level=9), "zlib9": numcodecs.Zlib(level=9),
        "bz2-9": numcodecs.BZ2(level=9), "lzma-p9": numcodecs.LZMA(preset=9),
        "lzma-alone": numcodecs.LZMA(format=2), "lz4-acc": numcodecs.LZ4(acceleration=10),
    }
    for cname, shuffle in itertools.product(_CNAMES, (0, 1, 2, -1)):
        v2comps[f"blosc-{cname}-{shuffle}"] = numcodecs.Blosc(cname=cname, clevel=3,
                                                              shuffle=shuffle)
    for label, comp in v2comps.items():
        for dt in ("<f8", "|u1"):
            out.append(_zarr_v2(_tag(f"comp-{label}-{dt}"), dt, compressors=comp))
    v2filt = {"base64": ("<i4", [numcodecs.Base64()]),
              "crc32c": ("<i2", [numcodecs.CRC32C()]),
              "jenkins": ("<i2", [numcodecs.JenkinsLookup3()]),
              "delta+blosc-filter": ("<i4", [numcodecs.Delta(dtype="<i4"),
                                             numcodecs.Blosc(cname="zstd", shuffle=2)]),
              "quantize-f8": ("<f8", [numcodecs.Quantize(digits=4, dtype="<f8")])}
    for fn, (dt, filt) in v2filt.items():
        for order in "CF":
            out.append(_zarr_v2(f"filt2-{fn}-{order}", dt, filters=filt, order=order,
                                compressors=None if fn != "base64" else numcodecs.Zlib(1)))
    return out


# --------------------------------------------------------------------------------- xarray


def xarray_variants() -> list[Variant]:
    """xarray's ``to_zarr`` in both formats: each variable of one dataset is an entry."""
    names = ["temp", "count", "flag", "label", "time", "x"]
    out = []
    for fmt, var in itertools.product((2, 3), names):
        out.append(Variant(f"xarray{fmt}-{var}", _xarray_writer(fmt, var)))
    return out


def _xarray_writer(fmt: int, var: str):
    def writer(root):
        import pandas as pd
        import xarray as xr

        path = f"{root}/xarray-v{fmt}.zarr"
        rng = np.random.default_rng(11)
        temp = rng.standard_normal(SHAPE).astype("f4")
        temp[1, 2] = np.nan
        ds = xr.Dataset(
            {"temp": (("t", "x"), temp, {"units": "K"}),
             "count": (("t", "x"), rng.integers(0, 100, SHAPE).astype("i8")),
             "flag": (("t", "x"), rng.integers(0, 2, SHAPE).astype(bool)),
             "label": (("t",), np.array([f"s{i}é" for i in range(SHAPE[0])], dtype=object))},
            coords={"time": ("t", pd.date_range("2020-01-01", periods=SHAPE[0], freq="6h")),
                    "x": ("x", np.arange(SHAPE[1], dtype="f8") * 0.5)},
            attrs={"title": "corpus"})
        encoding = {"temp": {"chunks": CHUNKS, "dtype": "f4"},
                    "count": {"chunks": CHUNKS, "_FillValue": -1}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not _exists(path):
                ds.to_zarr(path, zarr_format=fmt, encoding=encoding, consolidated=True,
                           mode="w")
            return _zarr_written(path, var)
    return writer


def _exists(path: str) -> bool:
    import os

    return os.path.exists(path)
