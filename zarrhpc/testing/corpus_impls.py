"""Stores in the exact forms the other Zarr implementations write (the writers of
zarr-developers/zarr_implementations and a few more), built byte by byte here.

Life cycle: :func:`implementation_variants` lists :class:`~zarrhpc.testing.corpus.Variant`
objects; each writes one store the way that implementation writes it -- its ``.zarray`` /
draft ``*.array.json`` members, spellings and key order, its fill value forms, its chunk
key layout and its compressor framing (e.g. jzarr's blosc with typesize 1) -- and returns
the values a correct reader reads. tests/conformance/test_corpus_impls.py opens each with
zarrhpc (and, where it reads the form, zarr-python) and compares.

The forms, from each writer's source:

- jzarr (Java, bcdev/jzarr): v2; ``dtype`` with an explicit byte order for every multi-byte
  type (``>i4`` by default, ``<`` when asked), ``|u1``/``|i1`` (old releases wrote ``>u1``);
  ``fill_value`` any Java Number (``0``, ``-9999``, ``0.0``, ``"NaN"`` quoted by Jackson);
  ``dimension_separator`` ``"."``, ``"/"`` or null; blosc ``{"clevel", "blocksize",
  "shuffle", "cname", "id"}`` compressing with typesize 1, zlib ``{"level", "id"}``.
- z5py (C++, constantinpape/z5): v2 with keys sorted (nlohmann::json); ``fill_value`` a
  double even for integer types (``0.0``), ``"NaN"``, ``"Infinity"``, ``"-Infinity"``;
  gzip (RFC 1952) and zlib ids, blosc with ``blocksize``, bz2, zstd; ``dimension_separator``
  always written. v3 (final): ``chunk_key_encoding`` default or v2, blosc ``shuffle`` as a
  string with ``typesize``, zstd ``checksum: false``, sharding with a crc32c index.
- xtensor-zarr (C++): v2 without ``dimension_separator`` unless nested; the 2022 draft with
  ``metadata_encoding`` the protocol URI, ``metadata_key_suffix`` top level, documents under
  ``meta/root``, ``chunk_grid.separator``, compressor codec URIs, group documents at
  ``meta/root/.group.json`` and ``meta/root/<g>/.group.json``.
- zarr.js (JavaScript): v2, compressor members in its order, ``fill_value`` 0/null/"NaN".
- zarrita (Python, 2021): the draft with ``fill_value`` null and implicit groups.
- n5-zarr (Java, saalfeldlab): v2, big-endian types (``>i2``...), ``fill_value`` a Long or
  a Double (Gson writes NaN as a bare token), blosc without ``nthreads``; strings as
  ``|O`` with a ``vlen-utf8`` filter.
- netCDF-C NCZarr: v2 with ``_nczarr_array`` inside ``.zarray`` and ``_nczarr_superblock`` /
  ``_nczarr_group`` inside ``.zgroup`` (members zarr-python ignores), ``.zattrs`` with
  ``_ARRAY_DIMENSIONS`` and ``_nczarr_attr``.
"""

from __future__ import annotations

import bz2
import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from zarrhpc.testing.corpus import Variant, Written, sample_data

__all__ = ["implementation_variants"]

SHAPE, CHUNKS = (9, 7), (4, 3)
GZIP_URI = "https://purl.org/zarr/spec/codec/gzip/1.0"
DRAFT_FORMAT = "https://purl.org/zarr/spec/protocol/core/3.0"


# ------------------------------------------------------------------------- compressors


def _raw(b: bytes, itemsize: int) -> bytes:
    return b


def _zlib(level: int) -> Callable:
    return lambda b, itemsize: zlib.compress(b, level)


def _gzip(level: int) -> Callable:
    return lambda b, itemsize: gzip.compress(b, level, mtime=0)


def _bz2(level: int) -> Callable:
    return lambda b, itemsize: bz2.compress(b, level)


def _zstd(level: int) -> Callable:
    def run(b, itemsize):
        import numcodecs

        return numcodecs.Zstd(level=level).encode(b)
    return run


def _blosc(cname: str, clevel: int, shuffle: int, typesize: int | None = None) -> Callable:
    """c-blosc1 through numcodecs; ``typesize`` (default: the element size) is the one in
    the chunk header (jzarr always compresses with 1)."""
    def run(b, itemsize):
        import numcodecs

        ts = typesize or itemsize
        view = np.frombuffer(b, dtype=f"V{ts}") if ts > 1 else np.frombuffer(b, dtype="u1")
        return numcodecs.Blosc(cname=cname, clevel=clevel, shuffle=shuffle).encode(view)
    return run


# ------------------------------------------------------------------------------ layout


def _chunks(data: np.ndarray, chunks, fill) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """(grid coordinates, full-size chunk padded with ``fill``) for every chunk."""
    grid = [-(-n // c) for n, c in zip(data.shape, chunks)]
    out = []
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunks))
        chunk = np.full(chunks, fill, dtype=data.dtype)
        part = data[region]
        chunk[tuple(slice(0, n) for n in part.shape)] = part
        out.append((coords, chunk))
    return out


def _put(path: Path, value: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(value if isinstance(value, bytes) else value.encode())


def _write_chunks(base: Path, data, chunks, dtype, compress, key, missing=(), pad=0,
                  serialize=None) -> np.ndarray:
    """Write every chunk but those in ``missing`` (full-size chunks, edges padded)."""
    for coords, chunk in _chunks(data, chunks, pad):
        if coords in missing:
            continue
        raw = serialize(chunk) if serialize else np.ascontiguousarray(chunk, dtype).tobytes()
        _put(base / key(coords), compress(raw, np.dtype(dtype).itemsize))


def _expected(data, chunks, missing, fill):
    out = data.copy()
    for coords in missing:
        region = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunks))
        out[region] = fill
    return out


MISSING = ((0, 1), (2, 2))  # two chunks never written: the fill value shows


def _v2(writer: str, name: str, dtype: str, *, meta: dict, compress=_raw, sep=".",
        fill_read=0, data=None, text: Callable[[dict], str] | None = None, arr_path="",
        zgroups=(), zattrs=None, missing=MISSING, serialize=None, values_dtype=None):
    """A v2 store: ``meta`` is the .zarray document as the writer spells it."""
    def writer_fn(root):
        base = Path(root) / f"{writer}-{name}.zarr"
        npdt = np.dtype(values_dtype or dtype)
        d = sample_data(npdt) if data is None else data
        adir = base / arr_path if arr_path else base
        doc = text(meta) if text else json.dumps(meta, indent=4)
        _put(adir / ".zarray", doc)
        for g in zgroups:
            _put(base / g / ".zgroup", json.dumps({"zarr_format": 2}))
        if zattrs is not None:
            _put(adir / ".zattrs", json.dumps(zattrs))

        def key(coords):
            return sep.join(str(c) for c in coords) if coords else "0"
        _write_chunks(adir, d, meta["chunks"], dtype, compress, key, missing,
                      pad=fill_read if npdt.kind != "O" else "", serialize=serialize)
        exp = _expected(d, meta["chunks"], missing, fill_read)
        attrs = {k: v for k, v in (zattrs or {}).items()}
        return Written(str(base) + (f"::{arr_path}" if arr_path else ""), exp, d.shape,
                       npdt, None, attrs, check_fill=False)
    return Variant(f"{writer}-{name}", writer_fn)


def _v2_meta(dtype, compressor, fill, *, sep: str | None | type = ".", order="C",
             keys=None, **extra) -> dict:
    doc = {"chunks": list(CHUNKS), "compressor": compressor, "dtype": dtype,
           "fill_value": fill, "filters": None, "order": order, "shape": list(SHAPE),
           "zarr_format": 2}
    if sep is not KeyError:
        doc["dimension_separator"] = sep
    doc.update(extra)
    if keys:
        doc = {k: doc[k] for k in keys if k in doc} | {k: v for k, v in doc.items()
                                                        if k not in keys}
    return doc


# ------------------------------------------------------------------------------- jzarr

_JZARR_KEYS = ["chunks", "compressor", "dtype", "fill_value", "filters", "order", "shape",
               "dimension_separator", "zarr_format"]


def _jackson(doc: dict) -> str:
    """Jackson's default pretty printer: ``"key" : value``, arrays on one line."""
    def val(v):
        if isinstance(v, list):
            return "[ " + ", ".join(json.dumps(x) for x in v) + " ]"
        if isinstance(v, dict):
            return "{\n" + ",\n".join(f'    "{k}" : {json.dumps(x)}' for k, x in v.items()) \
                + "\n  }"
        return json.dumps(v)
    return "{\n" + ",\n".join(f'  "{k}" : {val(v)}' for k, v in doc.items()) + "\n}"


def _jzarr() -> list[Variant]:
    out = []
    blosc = {"clevel": 5, "blocksize": 0, "shuffle": 1, "cname": "lz4", "id": "blosc"}
    comps = {
        "raw": (None, _raw),
        "zlib": ({"level": 1, "id": "zlib"}, _zlib(1)),
        "blosc-lz4": (blosc, _blosc("lz4", 5, 1, typesize=1)),
        "blosc-zstd-bitshuffle": ({**blosc, "cname": "zstd", "shuffle": 2},
                                  _blosc("zstd", 5, 2, typesize=1)),
        "blosc-noshuffle": ({**blosc, "shuffle": 0}, _blosc("blosclz", 5, 0, typesize=1)),
    }
    for dt in ["|u1", "|i1", ">i2", ">u2", ">i4", ">u4", ">i8", ">f4", ">f8", "<i4", "<f8",
               ">u1", ">i1"]:
        npdt = np.dtype(dt)
        fills = [(0, 0)]
        if npdt.kind == "f":
            fills += [("NaN", np.nan), (0.0, 0.0)]
        elif npdt.kind == "i" and npdt.itemsize > 1:
            fills += [(-9999, -9999), (-9999.0, -9999)]
        for cname, (conf, fn) in comps.items():
            for i, (fill, fill_read) in enumerate(fills):
                for sep in ([".", "/", None] if cname == "raw" and i == 0 else ["."]):
                    tag = {".": "dot", "/": "slash", None: "null"}[sep]
                    meta = _v2_meta(dt, conf, fill, sep=sep, keys=_JZARR_KEYS)
                    out.append(_v2("jzarr", f"{_tag(dt)}-{cname}-f{i}-{tag}", dt, meta=meta,
                                   compress=fn, sep=sep or ".", fill_read=fill_read,
                                   text=_jackson))
    # the zarr_implementations layout: a group with blosc/lz4, raw, zlib
    meta = _v2_meta("|u1", blosc, 0, keys=_JZARR_KEYS)
    out.append(_v2("jzarr", "nested-blosc-lz4", "|u1", meta=meta, arr_path="blosc/lz4",
                   compress=_blosc("lz4", 5, 1, typesize=1), zgroups=("",), text=_jackson))
    return out


# ------------------------------------------------------------------------------- z5py


def _z5_v2() -> list[Variant]:
    out = []
    comps = {
        "raw": (None, _raw),
        "gzip": ({"id": "gzip", "level": 5}, _gzip(5)),
        "zlib": ({"id": "zlib", "level": 5}, _zlib(5)),
        "bz2": ({"id": "bz2", "level": 5}, _bz2(5)),
        "zstd": ({"id": "zstd", "level": 3}, _zstd(3)),
        "blosc": ({"blocksize": 0, "clevel": 5, "cname": "lz4", "id": "blosc", "shuffle": 1},
                  _blosc("lz4", 5, 1)),
        "blosc-zstd-bit": ({"blocksize": 0, "clevel": 3, "cname": "zstd", "id": "blosc",
                            "shuffle": 2}, _blosc("zstd", 3, 2)),
    }
    for dt in ["|u1", "|i1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8", "<c8",
               "<c16"]:
        npdt = np.dtype(dt)
        fills = [(0.0, 0), (42.0, 42)] if npdt.kind in "iu" else [(0.0, 0)]
        if npdt.kind == "f":
            fills += [("NaN", np.nan), ("Infinity", np.inf), ("-Infinity", -np.inf)]
        for cname, (conf, fn) in comps.items():
            for i, (fill, fill_read) in enumerate(fills):
                for sep in ([".", "/"] if i == 0 else ["."]):
                    meta = _v2_meta(dt, conf, fill, sep=sep)
                    text = lambda d: json.dumps(dict(sorted(d.items())), indent=4)  # noqa: E731
                    out.append(_v2("z5py", f"{_tag(dt)}-{cname}-f{i}-"
                                   f"{'dot' if sep == '.' else 'slash'}", dt, meta=meta,
                                   compress=fn, sep=sep, fill_read=fill_read, text=text))
    return out


def _v3(writer: str, name: str, dtype: str, doc: dict, *, compress=_raw, key=None,
        fill_read=0, missing=MISSING, shard=None):
    """A final v3 array (``doc`` the zarr.json as the writer spells it)."""
    def writer_fn(root):
        base = Path(root) / f"{writer}-{name}.zarr"
        npdt = np.dtype(dtype)
        d = sample_data(npdt)
        _put(base / "zarr.json", json.dumps(doc, indent=4))
        grid = doc["chunk_grid"]["configuration"]["chunk_shape"]
        enc = doc["chunk_key_encoding"]
        sep = enc.get("configuration", {}).get("separator", "/" if enc["name"] == "default"
                                                else ".")

        def keyf(coords):
            k = sep.join(str(c) for c in coords)
            return ("c" + sep + k if coords else "c") if enc["name"] == "default" else (k or "0")
        if shard is None:
            _write_chunks(base, d, grid, npdt.newbyteorder("<"), compress, keyf, missing,
                          pad=fill_read)
        else:
            _write_shards(base, d, grid, shard, npdt.newbyteorder("<"), compress, keyf,
                          missing, fill_read)
        exp = _expected(d, grid, missing, fill_read)
        return Written(str(base), exp, d.shape, npdt, None, doc.get("attributes", {}),
                       check_fill=False)
    return Variant(f"{writer}-{name}", writer_fn)


def _write_shards(base, data, shard_shape, inner, dtype, compress, key, missing, fill):
    """sharding_indexed, index at the end with crc32c (as z5 writes it)."""
    import crc32c

    for coords, shard in _chunks(data, shard_shape, fill):
        if coords in missing:
            continue
        per = [s // c for s, c in zip(shard_shape, inner)]
        body, index = b"", []
        for _ic, chunk in _chunks(shard, inner, fill):
            enc = compress(np.ascontiguousarray(chunk, dtype).tobytes(), dtype.itemsize)
            index += [len(body), len(enc)]
            body += enc
        idx = np.array(index, dtype="<u8").tobytes()
        assert len(index) == 2 * int(np.prod(per))
        _put(base / key(coords), body + idx + crc32c.crc32c(idx).to_bytes(4, "little"))


_V3_NAMES = {"|u1": "uint8", "|i1": "int8", "<i2": "int16", "<u2": "uint16", "<i4": "int32",
             "<u4": "uint32", "<i8": "int64", "<u8": "uint64", "<f4": "float32",
             "<f8": "float64"}


def _z5_v3() -> list[Variant]:
    out = []
    little = {"name": "bytes", "configuration": {"endian": "little"}}
    for dt, name in _V3_NAMES.items():
        npdt = np.dtype(dt)
        chains = {
            "raw": ([little], _raw),
            "gzip": ([little, {"name": "gzip", "configuration": {"level": 5}}], _gzip(5)),
            "zstd": ([little, {"name": "zstd", "configuration": {"level": 3,
                                                                  "checksum": False}}],
                     _zstd(3)),
            "blosc": ([little, {"name": "blosc", "configuration": {
                "cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                "typesize": npdt.itemsize, "blocksize": 0}}], _blosc("lz4", 5, 1)),
        }
        fill = "NaN" if npdt.kind == "f" else 7
        fill_read = np.nan if npdt.kind == "f" else 7
        for cname, (codecs, fn) in chains.items():
            for enc_name, sep in [("default", "/"), ("v2", ".")]:
                doc = {"zarr_format": 3, "node_type": "array", "data_type": name,
                       "shape": list(SHAPE), "chunk_grid": {"name": "regular", "configuration":
                                                            {"chunk_shape": list(CHUNKS)}},
                       "chunk_key_encoding": {"name": enc_name,
                                              "configuration": {"separator": sep}},
                       "fill_value": fill, "codecs": codecs, "attributes": {}}
                out.append(_v3("z5py-v3", f"{name}-{cname}-{enc_name}", dt, doc, compress=fn,
                               fill_read=fill_read))
        sharded = {"zarr_format": 3, "node_type": "array", "data_type": name,
                   "shape": list(SHAPE), "chunk_grid": {"name": "regular", "configuration": {
                       "chunk_shape": [4, 6]}},
                   "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                   "fill_value": fill, "codecs": [{"name": "sharding_indexed", "configuration": {
                       "chunk_shape": [2, 3], "codecs": chains["gzip"][0],
                       "index_codecs": [little, {"name": "crc32c"}], "index_location": "end"}}],
                   "attributes": {}}
        out.append(_v3("z5py-v3", f"{name}-sharded", dt, sharded, compress=_gzip(5),
                       fill_read=fill_read, shard=(2, 3), missing=((1, 0),)))
    return out


# ------------------------------------------------------------------ xtensor-zarr, zarrita


def _draft(writer: str, name: str, dtype: str, *, arrays: dict, entry: dict,
           group_keys=(), sep="/"):
    """A 2022-draft hierarchy in zarr-python 2's layout (``meta/root``): ``arrays`` maps a
    path to ``(array document, compress)``."""
    def writer_fn(root):
        base = Path(root) / f"{writer}-{name}.zr3"
        _put(base / "zarr.json", json.dumps(entry, indent=4))
        for k in group_keys:
            _put(base / k, json.dumps({"attributes": {}, "extensions": []}, indent=4))
        npdt = np.dtype(dtype)
        d = sample_data(npdt)
        first = None
        for path, (doc, compress) in arrays.items():
            _put(base / f"meta/root/{path}.array.json", json.dumps(doc, indent=4))
            grid = doc["chunk_grid"]
            s = grid.get("separator", sep)

            def key(coords, path=path, s=s):
                return f"data/root/{path}/c" + s.join(str(c) for c in coords)
            fill = doc.get("fill_value")
            _write_chunks(base, d, grid["chunk_shape"], npdt, compress, key, MISSING,
                          pad=0 if fill is None else fill)
            if first is None:
                first = path
        # missing chunks read as the fill value (null: the type's zero)
        fill = arrays[first][0].get("fill_value")
        exp = _expected(d, arrays[first][0]["chunk_grid"]["chunk_shape"], MISSING,
                        0 if fill is None else fill)
        return Written(f"{base}::{first}", exp, d.shape, npdt, None, {}, check_fill=False)
    return Variant(f"{writer}-{name}", writer_fn)


def _draft_doc(dtype, compressor, fill, sep, layout="C"):
    doc = {"chunk_grid": {"type": "regular", "chunk_shape": list(CHUNKS), "separator": sep},
           "data_type": dtype, "chunk_memory_layout": layout}
    if compressor is not None:
        doc["compressor"] = compressor
    doc.update({"attributes": {}, "extensions": [], "shape": list(SHAPE), "fill_value": fill})
    return doc


def _draft_codecs():
    blosc = {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}
    return {
        "raw": (None, _raw),
        "gzip": ({"codec": GZIP_URI, "configuration": {"level": 1}}, _gzip(1)),
        "zlib": ({"codec": "https://purl.org/zarr/spec/codec/zlib/1.0",
                  "configuration": {"level": 1}}, _zlib(1)),
        "blosc/lz4": ({"codec": "https://purl.org/zarr/spec/codec/blosc/1.0",
                       "configuration": blosc}, _blosc("lz4", 5, 1)),
    }


def _xtensor() -> list[Variant]:
    out = []
    entry = {"zarr_format": DRAFT_FORMAT, "metadata_encoding": DRAFT_FORMAT,
             "metadata_key_suffix": ".json", "extensions": []}
    for dt, v3dt in [("|u1", "u1"), ("<f8", "<f8"), ("<i2", "<i2"), (">i4", ">i4")]:
        for sep in "./":
            tag = f"{_tag(dt)}-{'flat' if sep == '.' else 'nested'}"
            # v2: dimension_separator only when nested
            for cname, comp in [("raw", (None, _raw)), ("gzip", ({"id": "gzip", "level": 1},
                                                                 _gzip(1))),
                                ("zlib", ({"id": "zlib", "level": 1}, _zlib(1))),
                                ("blosc", ({"blocksize": 0, "clevel": 5, "cname": "lz4",
                                            "id": "blosc", "shuffle": 1},
                                           _blosc("lz4", 5, 1)))]:
                meta = {"chunks": list(CHUNKS)}
                if sep == "/":
                    meta["dimension_separator"] = "/"
                meta.update({"dtype": dt, "order": "C", "compressor": comp[0],
                             "filters": None, "zarr_format": 2, "shape": list(SHAPE),
                             "fill_value": 0})
                path = "blosc/lz4" if cname == "blosc" else cname
                out.append(_v2("xtensor-zarr", f"{tag}-{cname}", dt, meta=meta,
                               compress=comp[1], sep=sep, arr_path=path,
                               zgroups=("", "blosc") if cname == "blosc" else ("",)))
            # v3 draft: the generator's hierarchy with group documents at meta/root/.group.json
            for cname, (comp, fn) in _draft_codecs().items():
                doc = _draft_doc(v3dt, comp, 0, sep)
                out.append(_draft("xtensor-zarr-v3", f"{tag}-{cname.replace('/', '-')}", dt,
                                  arrays={cname: (doc, fn)}, entry=entry, sep=sep,
                                  group_keys=["meta/root/.group.json"] + (
                                      ["meta/root/blosc/.group.json"] if "/" in cname else [])))
    return out


def _zarrita() -> list[Variant]:
    out = []
    entry = {"zarr_format": DRAFT_FORMAT, "metadata_encoding": DRAFT_FORMAT,
             "metadata_key_suffix": ".json", "extensions": []}
    for dt in ["u1", "<i4", "<f8", ">u2"]:
        for sep in "./":
            for cname, (comp, fn) in _draft_codecs().items():
                doc = {"shape": list(SHAPE), "data_type": dt,
                       "chunk_grid": {"type": "regular", "chunk_shape": list(CHUNKS),
                                      "separator": sep},
                       "chunk_memory_layout": "C", "fill_value": None, "extensions": [],
                       "attributes": {}}
                if comp is not None:
                    doc["compressor"] = comp
                out.append(_draft("zarrita", f"{_tag(dt)}-{'flat' if sep == '.' else 'nested'}"
                                  f"-{cname.replace('/', '-')}", dt, arrays={cname: (doc, fn)},
                                  entry=entry, sep=sep))
    return out


# ----------------------------------------------------------------------------- zarr.js


def _zarr_js() -> list[Variant]:
    out = []
    comps = {"raw": (None, _raw), "gzip": ({"id": "gzip", "level": 1}, _gzip(1)),
             "zlib": ({"id": "zlib", "level": 1}, _zlib(1)),
             "blosc": ({"id": "blosc", "cname": "lz4", "clevel": 5, "blocksize": 0,
                        "shuffle": 1}, _blosc("lz4", 5, 1))}
    for dt in ["|u1", "<i2", "<f4", "<f8", "<u4", "|b1"]:
        npdt = np.dtype(dt)
        fills = [(0, 0), (None, 0)] + ([("NaN", np.nan)] if npdt.kind == "f" else [])
        if npdt.kind == "b":
            fills = [(False, False), (None, False)]
        for cname, (conf, fn) in comps.items():
            for i, (fill, fill_read) in enumerate(fills):
                meta = {"chunks": list(CHUNKS), "compressor": conf, "dtype": dt,
                        "fill_value": fill, "filters": None, "order": "C",
                        "shape": list(SHAPE), "zarr_format": 2}
                out.append(_v2("zarr.js", f"{_tag(dt)}-{cname}-f{i}", dt, meta=meta,
                               compress=fn, fill_read=fill_read,
                               missing=MISSING if fill is not None else (),
                               text=lambda d: json.dumps(d)))
    return out


# ----------------------------------------------------------------------------- n5-zarr


def _gson(doc: dict) -> str:
    """Gson with special floating point values: NaN and infinities as bare tokens."""
    return json.dumps(doc, allow_nan=True)


def _n5_zarr() -> list[Variant]:
    out = []
    comps = {"raw": (None, _raw), "gzip": ({"id": "gzip", "level": 6}, _gzip(6)),
             "zlib": ({"id": "zlib", "level": 6}, _zlib(6)),
             "bz2": ({"id": "bz2", "level": 9}, _bz2(9)),
             "zstd": ({"id": "zstd", "level": 3}, _zstd(3)),
             "blosc": ({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2,
                        "blocksize": 0}, _blosc("zstd", 3, 2))}
    for dt in ["|i1", "|u1", ">i2", ">u2", ">i4", ">u4", ">i8", ">u8", ">f4", ">f8"]:
        npdt = np.dtype(dt)
        fills = [(0, 0)] if npdt.kind in "iu" else [(0.0, 0), (float("nan"), np.nan)]
        for cname, (conf, fn) in comps.items():
            for sep in "./":
                for i, (fill, fill_read) in enumerate(fills):
                    meta = {"zarr_format": 2, "shape": list(SHAPE), "chunks": list(CHUNKS),
                            "dtype": dt, "fill_value": fill, "order": "C",
                            "dimension_separator": sep, "compressor": conf, "filters": None}
                    out.append(_v2("n5-zarr", f"{_tag(dt)}-{cname}-{'dot' if sep == '.' else 'slash'}"
                                   f"-f{i}", dt, meta=meta, compress=fn, sep=sep,
                                   fill_read=fill_read, text=_gson))
    # strings: |O with a vlen-utf8 filter
    meta = {"zarr_format": 2, "shape": list(SHAPE), "chunks": list(CHUNKS), "dtype": "|O",
            "fill_value": None, "order": "C", "dimension_separator": ".",
            "compressor": {"id": "gzip", "level": 6}, "filters": [{"id": "vlen-utf8"}]}
    out.append(_v2("n5-zarr", "strings-vlen-utf8", "|O", meta=meta, compress=_gzip(6),
                   fill_read="", data=sample_data("O"), missing=(), text=_gson,
                   serialize=_vlen_utf8, values_dtype="O"))
    return out


def _vlen_utf8(chunk: np.ndarray) -> bytes:
    import numcodecs

    return numcodecs.VLenUTF8().encode(np.ascontiguousarray(chunk, dtype=object).ravel())


# ------------------------------------------------------------------------------ NCZarr


def _nczarr() -> list[Variant]:
    out = []
    for dt, fill, fill_read in [("<i4", -2147483647, -2147483647), ("<f8", "NaN", np.nan),
                                ("<f4", 9.969209968386869e36, np.float32(9.969209968386869e36)),
                                ("|u1", 255, 255), ("<i2", -32767, -32767)]:
        for comp, fn, cname in [(None, _raw, "raw"), ({"id": "zlib", "level": 1}, _zlib(1),
                                                      "zlib")]:
            meta = {"zarr_format": 2, "shape": list(SHAPE), "dtype": dt, "chunks": list(CHUNKS),
                    "fill_value": fill, "order": "C", "compressor": comp, "filters": None,
                    "dimension_separator": ".",
                    "_nczarr_array": {"dimrefs": ["/y", "/x"], "storage": "chunked"}}
            out.append(_v2("nczarr", f"{_tag(dt)}-{cname}", dt, meta=meta, compress=fn,
                           fill_read=fill_read, arr_path="var", zgroups=(),
                           zattrs={"_ARRAY_DIMENSIONS": ["y", "x"],
                                   "_nczarr_attr": {"types": {"_ARRAY_DIMENSIONS": "<U1"}}}))
    return out


def _with_nczarr_group(variant: Variant) -> Variant:
    def writer_fn(root):
        written = variant.write(root)
        base = Path(written.path.partition("::")[0])
        _put(base / ".zgroup", json.dumps({
            "zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"},
            "_nczarr_group": {"dims": {"y": 9, "x": 7}, "vars": ["var"], "groups": []}}))
        return written
    return Variant(variant.name, writer_fn)


def _tag(text: str) -> str:
    return text.replace("|", "").replace("<", "l").replace(">", "b")


def implementation_variants() -> list[Variant]:
    """Every store form of the other implementations listed in the module docstring."""
    return (_jzarr() + _z5_v2() + _z5_v3() + _xtensor() + _zarrita() + _zarr_js()
            + _n5_zarr() + [_with_nczarr_group(v) for v in _nczarr()])
