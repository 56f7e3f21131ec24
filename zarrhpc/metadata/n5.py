"""N5 ``attributes.json`` -> the v3 ``zarr.json`` an N5 node is read as (pure, no I/O).

N5 (saalfeldlab/n5, format 1.x-4.x) keeps each node's metadata in ``attributes.json``;
a dataset has ``dimensions``, ``blockSize``, ``dataType`` and ``compression`` (format
1.0+) or ``compressionType`` (+ ``level``/``blockSize``/...; format 0.x), everything
else is user attributes. The root's ``"n5": "<version>"`` marks a container. Any
directory is a group.

Axis order: N5 lists dimensions fastest-varying first (column-major). zarr-python 2's
``N5Store`` and z5py present an N5 dataset in C order, its axes reversed: shape
``dimensions[::-1]``, chunks ``blockSize[::-1]``, chunk ``(i, j, k)`` in the N5 block
``k/j/i``; zarrhpc does the same by default (pyn5 too; the zarr_implementations suite
checks all three against one image). tensorstore's ``n5`` driver and zarr-extensions'
``n5_default`` README present the transpose of this view (N5's own order):
``axis_order="n5"``. The block bytes of a full block are the chunk in C order of the
reversed view, big-endian.

The chain is the ``n5_default`` codec of zarr-extensions (``codecs/n5_default``) over
``bytes`` (big-endian) and the container's compressor, without its leading transpose:
the axes are already reversed (``zarrhpc.codecs.n5`` takes both forms). Compressors:
``raw``; ``gzip`` (``useZlib``: a zlib stream) -> ``gzip`` / ``numcodecs.zlib``;
``bzip2`` -> ``numcodecs.bz2``; ``xz`` -> ``numcodecs.lzma``; ``lz4`` -> ``n5.lz4``
(lz4-java's ``LZ4BlockOutputStream`` frames as Java's N5 writes them, or numcodecs' LZ4
as zarr-python 2's ``N5Store`` did, told apart by the block's first bytes); ``blosc``
(n5-blosc) -> ``blosc``; ``zstd`` (n5-zstandard) -> ``zstd``. Any other type is what
zarr-python 2's ``N5Store`` wrote for a numcodecs compressor without an N5 name
(``{"type": <id>, <its config>}``, e.g. ``lzma`` with a non-xz ``format``) and becomes
``numcodecs.<id>``, as that store read it back; ``jpeg`` is refused by name. Fill value
0 (N5 has none; missing blocks read as zeros, as every N5 reader does).

Life cycle: :class:`zarrhpc.storage.n5.N5Store` calls :func:`node_json` whenever a
``zarr.json`` is asked for; the result is parsed by :mod:`zarrhpc.metadata.v3` like any
other document.
"""

from __future__ import annotations

from typing import Any

from zarrhpc.errors import MetadataError

__all__ = ["ARRAY_KEYS", "N5_TYPES", "array_json", "group_json", "is_array", "node_json"]

N5_TYPES = {"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
            "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
            "float32": "float32", "float64": "float64"}
#: members of a dataset's attributes.json that are N5's, not the user's
ARRAY_KEYS = ("dimensions", "blockSize", "dataType", "compression", "compressionType")
_OLD_COMPRESSION_KEYS = ("level", "blockSize", "useZlib", "preset", "cname", "clevel",
                         "shuffle", "blocksize", "nthreads")
_ITEMSIZE = {"uint8": 1, "int8": 1}


def is_array(attrs: dict) -> bool:
    """Whether ``attrs`` (a parsed attributes.json) describe a dataset."""
    return isinstance(attrs, dict) and all(k in attrs for k in ("dimensions", "blockSize",
                                                                 "dataType"))


def _int_list(value: Any, doc: str, key: str, lo: int) -> list[int]:
    ok = isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= lo for v in value)
    if not ok:
        raise MetadataError(f"{doc}: {key}: expected a list of integers >= {lo}, got {value!r}")
    return list(value)


def _compressor(comp: Any, doc: str) -> list[dict]:
    """The v3 bytes->bytes entries of an N5 ``compression`` object."""
    if not isinstance(comp, dict) or not isinstance(comp.get("type"), str):
        raise MetadataError(f"{doc}: compression: expected an object with a string 'type', "
                            f"got {comp!r}")
    kind = comp["type"]

    def level(key: str, default: int, lo: int, hi: int) -> int:
        value = comp.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise MetadataError(f"{doc}: compression.{key}: expected an integer, got {value!r}")
        return min(max(value, lo), hi)  # -1 is "the library's default"; decoding ignores it

    if kind == "raw":
        return []
    if kind == "gzip":
        if comp.get("useZlib", False):
            return [{"name": "numcodecs.zlib", "configuration": {"level": level("level", 6, 0, 9)}}]
        return [{"name": "gzip", "configuration": {"level": level("level", 6, 0, 9)}}]
    if kind == "bzip2":
        return [{"name": "numcodecs.bz2", "configuration": {"level": level("blockSize", 9, 1, 9)}}]
    if kind == "xz":
        return [{"name": "numcodecs.lzma", "configuration": {
            "format": 1, "check": -1, "preset": level("preset", 6, 0, 9), "filters": None}}]
    if kind == "lz4":  # lz4-java frames (Java) or numcodecs' LZ4 (zarr-python 2): by content
        return [{"name": "n5.lz4", "configuration": {}}]
    if kind == "lzma":  # zarr-python 2's N5Store: an lzma stream that is not plain xz
        return [{"name": "numcodecs.lzma", "configuration": {
            "format": comp.get("format", 1), "check": comp.get("check", -1),
            "preset": comp.get("preset"), "filters": comp.get("filters")}}]
    if kind == "blosc":
        return [{"name": "numcodecs.blosc", "configuration": {
            "cname": comp.get("cname", "lz4"), "clevel": level("clevel", 5, 0, 9),
            "shuffle": level("shuffle", 1, 0, 2), "blocksize": level("blocksize", 0, 0, 1 << 30)}}]
    if kind == "zstd":
        return [{"name": "zstd", "configuration": {"level": level("level", 3, -131072, 22),
                                                   "checksum": False}}]
    if kind in ("jpeg", "xz-java"):
        raise MetadataError(f"{doc}: compression: N5 compression type {kind!r} is not "
                            "supported (raw, gzip, bzip2, xz, lz4, blosc, zstd are)")
    # zarr-python 2's N5Store wrote any other numcodecs compressor as its id and config
    return [{"name": f"numcodecs.{kind}",
             "configuration": {k: v for k, v in comp.items() if k != "type"}}]


def array_json(attrs: dict, doc: str, axis_order: str = "zarr2") -> dict:
    """The v3 array document an N5 dataset is read as.

    ``axis_order="zarr2"`` (default): the axes reversed, as zarr-python 2, z5py and pyn5
    present N5 (module docstring). ``"n5"``: N5's own order, as tensorstore's n5 driver
    and zarr-extensions' ``n5_default`` README present it (the chain starts with a
    transpose reversing every axis; chunk keys are the N5 block paths as they are).

    Raises
    ------
    MetadataError
        A member is missing or malformed, the data type or compression is not one N5
        defines, or ``blockSize`` does not match ``dimensions``.
    """
    dims = _int_list(attrs.get("dimensions"), doc, "dimensions", 0)
    block = _int_list(attrs.get("blockSize"), doc, "blockSize", 1)
    if len(block) != len(dims) or not dims:
        raise MetadataError(f"{doc}: blockSize {block} and dimensions {dims}: expected lists "
                            "of one (non-zero) length")
    dtype = attrs.get("dataType")
    if dtype not in N5_TYPES:
        raise MetadataError(f"{doc}: dataType: {dtype!r} is not readable (expected one of "
                            f"{', '.join(N5_TYPES)})")
    if "compression" in attrs:
        comp = attrs["compression"]
    else:  # format 0.x: the compressor's members at the top level
        comp = {"type": attrs.get("compressionType", "raw"),
                **{k: attrs[k] for k in _OLD_COMPRESSION_KEYS if k in attrs and k != "blockSize"}}
    inner: list[dict] = [{"name": "bytes"} if _ITEMSIZE.get(dtype) else
                         {"name": "bytes", "configuration": {"endian": "big"}}]
    inner += _compressor(comp, doc)
    if axis_order == "n5":
        inner.insert(0, {"name": "transpose",
                         "configuration": {"order": list(range(len(dims)))[::-1]}})
    elif axis_order != "zarr2":
        raise MetadataError(f"{doc}: axis_order: expected 'zarr2' or 'n5', got {axis_order!r}")
    view = (lambda v: v[::-1]) if axis_order == "zarr2" else list
    user = {k: v for k, v in attrs.items() if k not in ARRAY_KEYS and k != "n5"
            and not ("compressionType" in attrs and k in _OLD_COMPRESSION_KEYS)}
    return {
        "zarr_format": 3, "node_type": "array", "shape": view(dims),
        "data_type": N5_TYPES[dtype],
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": view(block)}},
        "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
        "fill_value": 0,
        "codecs": [{"name": "n5_default", "configuration": {"codecs": inner}}],
        "attributes": user,
    }


def group_json(attrs: dict | None) -> dict:
    """The v3 group document of an N5 group (user attributes: all but ``n5``)."""
    user = {k: v for k, v in (attrs or {}).items() if k != "n5"}
    return {"zarr_format": 3, "node_type": "group", "attributes": user}


def node_json(attrs: dict | None, doc: str, axis_order: str = "zarr2") -> dict:
    """:func:`array_json` for a dataset's attributes, else :func:`group_json`."""
    if attrs and is_array(attrs):
        return array_json(attrs, doc, axis_order)
    return group_json(attrs)
