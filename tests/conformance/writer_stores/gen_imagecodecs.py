"""Zarr v2 stores whose compressors and filters are imagecodecs' numcodecs codecs
(``imagecodecs_*`` ids), written and read back by zarr-python with imagecodecs registered.

Run in a throw-away venv (never the test venv)::

    python -m venv /tmp/imc && /tmp/imc/bin/pip install imagecodecs zarr
    /tmp/imc/bin/python gen_imagecodecs.py

Image codecs (png, jpeg, jpeg2k, jpegxl, webp, qoi, tiff, avif, htj2k, jpegls, jpegxr,
lerc, ...), byte compressors (deflate, lzw, zstd, lz4, bz2, brotli, snappy, lzf, lzma,
zlibng, zopfli, blosc, blosc2, aec, ...), scientific codecs (zfp, sz3, sperr, pcodec) and
filters (delta, xor, floatpred, byteshuffle, bitshuffle, bitorder, bfloat16, float24,
quantize, packints), each on the data types it takes, in both orders. Lossy codecs record
what zarr-python decodes, which is what zarrhpc must decode. A codec this imagecodecs
build lacks, or that refuses the case, is listed under ``skipped``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder  # noqa: E402


def img(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    # smooth images (so that lossy codecs stay close) with some noise
    grids = np.meshgrid(*[np.linspace(0, 3, s) for s in shape], indexing="ij")
    base = np.sin(sum(grids)) * 0.5 + 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        hi = min(info.max, 60000)
        return (base * hi * 0.9 + rng.integers(0, 5, shape)).astype(dt)
    return (base * 100 + rng.standard_normal(shape)).astype(dt)


COMPRESSORS = {
    # id: [(dtype, shape, chunks, kwargs)]
    "imagecodecs_png": [("u1", (37, 29), (16, 16), {}), ("u2", (20, 30), (20, 30), {}),
                        ("u1", (18, 22, 3), (9, 11, 3), {})],
    "imagecodecs_jpeg": [("u1", (40, 32), (16, 16), {"level": 90}),
                         ("u1", (24, 24, 3), (16, 16, 3), {"level": 80})],
    "imagecodecs_jpeg2k": [("u1", (37, 29), (16, 16), {"level": 0}),
                           ("u2", (32, 32), (16, 16), {"level": 0})],
    "imagecodecs_jpegxl": [("u1", (37, 29), (16, 16), {"lossless": True}),
                           ("u2", (32, 32), (16, 16), {"level": 90})],
    "imagecodecs_jpegls": [("u1", (37, 29), (16, 16), {}), ("u2", (32, 32), (16, 16), {})],
    "imagecodecs_jpegxr": [("u1", (32, 32), (16, 16), {})],
    "imagecodecs_htj2k": [("u1", (32, 32), (16, 16), {})],
    "imagecodecs_webp": [("u1", (24, 24, 3), (16, 16, 3), {"lossless": True})],
    "imagecodecs_avif": [("u1", (32, 32, 3), (16, 16, 3), {"level": 90})],
    "imagecodecs_qoi": [("u1", (16, 16, 3), (16, 16, 3), {})],
    "imagecodecs_tiff": [("u2", (20, 30), (20, 30), {})],
    "imagecodecs_bmp": [("u1", (24, 24, 3), (24, 24, 3), {})],
    "imagecodecs_lerc": [("f4", (37, 29), (16, 16), {"level": 0.0}),
                         ("i2", (37, 29), (16, 16), {})],
    "imagecodecs_zfp": [("f4", (37, 29), (16, 16), {"level": 8, "mode": "R"}),
                        ("f8", (20, 20), (8, 8), {})],
    "imagecodecs_sz3": [("f4", (37, 29), (16, 16), {"shape": (16, 16), "dtype": "<f4",
                                                    "mode": "abs", "abs": 0.01})],
    "imagecodecs_sperr": [("f8", (32, 32), (16, 16), {"mode": "pwe", "level": 0.01})],
    "imagecodecs_pcodec": [("f8", (37, 29), (16, 16), {"shape": (16, 16), "dtype": "<f8"}),
                           ("i4", (37, 29), (16, 16), {"shape": (16, 16), "dtype": "<i4"})],
    "imagecodecs_deflate": [("f8", (37, 29), (16, 16), {}), ("u1", (37, 29), (16, 16), {})],
    "imagecodecs_zlib": [("i4", (37, 29), (16, 16), {})],
    "imagecodecs_zlibng": [("i4", (37, 29), (16, 16), {})],
    "imagecodecs_zopfli": [("i2", (37, 29), (16, 16), {})],
    "imagecodecs_gzip": [("i2", (37, 29), (16, 16), {})],
    "imagecodecs_lzw": [("u2", (37, 29), (16, 16), {})],
    "imagecodecs_zstd": [("f4", (37, 29), (16, 16), {"level": 5})],
    "imagecodecs_lz4": [("f4", (37, 29), (16, 16), {})],
    "imagecodecs_lz4f": [("f4", (37, 29), (16, 16), {})],
    "imagecodecs_lz4h5": [("f4", (37, 29), (16, 16), {})],
    "imagecodecs_bz2": [("u8", (37, 29), (16, 16), {})],
    "imagecodecs_lzma": [("u8", (37, 29), (16, 16), {})],
    "imagecodecs_brotli": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_snappy": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_lzf": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_lzfse": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_lzham": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_lzo": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_pglz": [("i8", (37, 29), (16, 16), {})],
    "imagecodecs_blosc": [("f8", (37, 29), (16, 16), {"shuffle": 1})],
    "imagecodecs_blosc2": [("f8", (37, 29), (16, 16), {})],
    "imagecodecs_aec": [("u2", (37, 29), (16, 16), {"bitspersample": 16})],
    "imagecodecs_szip": [("u2", (37, 29), (16, 16), {"options_mask": 4 | 128,
                                                    "pixels_per_block": 16,
                                                    "bits_per_pixel": 16,
                                                    "pixels_per_scanline": 256})],
    "imagecodecs_packbits": [("u1", (37, 29), (16, 16), {})],
    "imagecodecs_rcomp": [("i4", (37, 29), (16, 16), {"shape": (16, 16), "dtype": "<i4"})],
    "imagecodecs_meshopt": [("f4", (36, 30), (12, 15), {"shape": (12, 15),
                                                        "dtype": "<f4"})],
}
FILTERS = {
    "imagecodecs_delta": [("i4", {}), ("f4", {})],
    "imagecodecs_xor": [("f4", {}), ("u2", {})],
    "imagecodecs_floatpred": [("f4", {"shape": (16, 16), "dtype": "<f4"}),
                              ("f8", {"shape": (16, 16), "dtype": "<f8"})],
    "imagecodecs_byteshuffle": [("f4", {"shape": (16, 16), "dtype": "<f4"})],
    "imagecodecs_bitshuffle": [("i2", {"itemsize": 2})],
    "imagecodecs_bitorder": [("u1", {})],
    "imagecodecs_bfloat16": [("f4", {})],
    "imagecodecs_float24": [("f4", {})],
    "imagecodecs_quantize": [("f4", {"mode": "bitround", "nsd": 7}),
                             ("f8", {"mode": "granularbr", "nsd": 5})],
    "imagecodecs_packints": [("u1", {"dtype": "u1", "bitspersample": 8})],
}


def main():
    import imagecodecs
    import numcodecs
    import zarr
    from imagecodecs.numcodecs import register_codecs

    register_codecs()
    versions = {"imagecodecs": imagecodecs.__version__, "zarr": zarr.__version__,
                "numcodecs": numcodecs.__version__, "numpy": np.__version__}
    rec = Recorder(f"imagecodecs-{imagecodecs.__version__}", versions)
    cases = []
    for cid, lst in COMPRESSORS.items():
        for i, (dt, shape, chunks, kw) in enumerate(lst):
            for order in ("C", "F") if i == 0 and len(shape) == 2 else ("C",):
                cases.append((f"{cid[12:]}-{dt}-{i}-{order}", dt, shape, chunks,
                              None, {"id": cid, **kw}, order))
    for cid, lst in FILTERS.items():
        for i, (dt, kw) in enumerate(lst):
            cases.append((f"filter-{cid[12:]}-{dt}-{i}", dt, (37, 29), (16, 16),
                          [{"id": cid, **kw}], {"id": "zlib", "level": 1}, "C"))
    for name, dt, shape, chunks, filters, compressor, order in cases:
        path = rec.stores / f"{name}.zarr"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = img(shape, dt)
                kw = dict(store=str(path), shape=shape, dtype=dt, chunks=chunks, order=order,
                          zarr_format=2, fill_value=0,
                          compressor=numcodecs.get_codec(compressor) if compressor else None,
                          filters=[numcodecs.get_codec(f) for f in filters] if filters else None)
                a = zarr.create_array(**{k: v for k, v in kw.items()
                                         if k not in ("compressor",)},
                                      compressors=kw["compressor"]) \
                    if hasattr(zarr, "create_array") else None
                a[...] = data
                b = zarr.open_array(str(path), mode="r")
                rec.add(name, f"{name}.zarr", "", np.asarray(b[...]), fill=b.fill_value,
                        codec=compressor, filters=filters,
                        max_abs_error=float(np.max(np.abs(b[...].astype("f8")
                                                          - data.astype("f8")))))
        except Exception as exc:
            rec.skip(name, exc)
            import shutil

            shutil.rmtree(path, ignore_errors=True)
    rec.pack()


if __name__ == "__main__":
    main()
