"""The 2022 draft of Zarr v3 ("Zarr core specification 3.0, editor's draft 25 May 2022"):
read-only metadata.

Layout (draft section "Storage keys"):

- entry point ``zarr.json`` at the store root: ``{"zarr_format":
  "https://purl.org/zarr/spec/core/3.0", "metadata_encoding": {"type": "json",
  "metadata_key_suffix": ".json"}, "extensions": []}``;
- documents under ``meta/``: the root group ``meta/group.json`` (root array
  ``meta/array.json``), a node at path ``/foo/bar`` at ``meta/foo/bar.group.json`` or
  ``meta/foo/bar.array.json``; zarr-python 2's experimental v3 API put the whole
  hierarchy under a ``root`` node (``meta/root.group.json``, ``meta/root/foo.array.json``,
  chunks under ``data/root/foo/``), which is read as the same hierarchy;
- chunks under ``data/``: ``data/foo/bar/c0/1`` (``c`` then the indices joined by the
  grid's ``separator``);
- groups need no document (implicit groups: a prefix under ``meta/`` holding nodes).

Array documents: ``shape``, ``data_type`` (``"float64"`` or numpy-style ``"<f8"``,
``">i2"``; ``r*``), ``chunk_grid`` ``{"type": "regular", "chunk_shape", "separator"}``,
``chunk_memory_layout`` ``"C"``/``"F"``, ``fill_value`` (numbers, ``"NaN"``,
``"+Infinity"``/``"Infinity"``, ``"-Infinity"``, ``"0x..."``, and ``null`` as zarr-python 2
wrote it), ``codecs`` (``{"type": URI, "configuration"}``: the codecs that declare a draft
name, such as gzip, blosc, zstd and ``endian``, and numcodecs ids), or zarr-python 2's ``compressor`` ``{"codec": URI, "configuration"}``
and numcodecs-style ``filters``, ``extensions``, ``attributes``.

``to_spec()`` gives the v3-shaped chain: ``F`` becomes a transpose, the byte order (from
the data type or the ``endian`` codec) the ``bytes`` codec's ``endian``. Pure: no I/O.
"""

from __future__ import annotations

import copy
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zarrhpc.codec_forms import draft_entry, draft_names, is_serializer
from zarrhpc.errors import MetadataError, UnsupportedError
from zarrhpc.metadata.dtypes import DataType, _show, data_type_from_numpy
from zarrhpc.metadata.dtypes_ext import vlen_fill
from zarrhpc.metadata.names import member_error as _err
from zarrhpc.metadata.spec import ArraySpec
from zarrhpc.metadata.v2 import _data_type as v2_data_type
from zarrhpc.metadata.v2 import codecs_v2_to_v3, dtype_from_json_v2, parse_fill_value_v2

__all__ = [
    "DRAFT_FORMAT",
    "ArrayMetadataV3Draft",
    "DraftChunkKeyEncoding",
    "DraftLayout",
    "GroupMetadataV3Draft",
    "parse_entry_point",
]

DRAFT_FORMAT = "https://purl.org/zarr/spec/core/3.0"
#: the draft's URI, and the one zarr-python 2's experimental v3 wrote
DRAFT_FORMATS = (DRAFT_FORMAT, "https://purl.org/zarr/spec/protocol/core/3.0")
_ARRAY_KEYS = {"shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value",
               "extensions", "attributes", "codecs", "storage_transformers", "compressor",
               "filters", "dimension_separator"}


def _load(data: Any, doc: str) -> dict:
    try:
        obj = json.loads(bytes(data).decode("utf-8")) if not isinstance(data, dict) else data
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MetadataError(f"{doc}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise MetadataError(f"{doc}: expected a JSON object, got {_show(obj)}")
    return obj


def _check_extensions(value: Any, doc: str) -> None:
    if value in (None, []):
        return
    if not isinstance(value, list):
        raise _err(doc, "extensions", f"expected an array, got {_show(value)}")
    for i, ext in enumerate(value):
        if not isinstance(ext, dict) or ext.get("must_understand") is not False:
            raise UnsupportedError(f"{doc}: extensions[{i}]: extension {_show(ext)} must be "
                                   f"understood and zarrhpc implements none")


def is_draft_entry(raw: Any) -> bool:
    """Whether the bytes of a ``zarr.json`` are a draft entry point (its ``zarr_format`` is
    one of :data:`DRAFT_FORMATS`), cheaply refusing ordinary v3 documents."""
    data = bytes(raw)
    if b"purl.org/zarr/spec/" not in data:
        return False
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and doc.get("zarr_format") in DRAFT_FORMATS


def parse_entry_point(data: Any, doc: str = "zarr.json") -> str:
    """Validate the entry point document; return the metadata key suffix (``".json"``).

    Both forms are read: the draft's (``metadata_encoding: {"type": "json",
    "metadata_key_suffix": ".json"}``) and zarr-python 2's (``metadata_encoding`` the
    protocol URI, ``metadata_key_suffix`` at the top level).
    """
    d = _load(data, doc)
    if d.get("zarr_format") not in DRAFT_FORMATS:
        raise _err(doc, "zarr_format",
                   f"expected {DRAFT_FORMAT!r}, got {_show(d.get('zarr_format'))}")
    enc = d.get("metadata_encoding", {"type": "json", "metadata_key_suffix": ".json"})
    if isinstance(enc, str) and enc in DRAFT_FORMATS:  # zarr-python 2: JSON, by the URI
        enc = {"type": "json", "metadata_key_suffix": d.get("metadata_key_suffix", ".json")}
    if not isinstance(enc, dict) or enc.get("type") != "json" or "extension" in enc:
        raise UnsupportedError(
            f"{doc}: metadata_encoding: only JSON is supported, got {_show(enc)}")
    suffix = enc.get("metadata_key_suffix", ".json")
    if not isinstance(suffix, str):
        raise _err(doc, "metadata_encoding.metadata_key_suffix",
                   f"expected a string, got {_show(suffix)}")
    _check_extensions(d.get("extensions"), doc)
    return suffix


@dataclass(frozen=True)
class DraftLayout:
    """Where documents and chunks of a draft hierarchy live.

    Parameters
    ----------
    root : str
        ``""`` for the spec's layout, ``"root"`` for zarr-python 2's (``meta/root...``).
    suffix : str
        The metadata key suffix (``".json"``).
    """

    root: str = ""
    suffix: str = ".json"

    def _name(self, path: str) -> str:
        return "/".join(p for p in (self.root, path) if p)

    def meta_key(self, path: str, node_type: str) -> str:
        """Key of the ``array``/``group`` document of the node at ``path`` (``""``: root)."""
        name = self._name(path)
        return f"meta/{name}.{node_type}{self.suffix}" if name else f"meta/{node_type}{self.suffix}"

    def meta_keys(self, path: str, node_type: str) -> tuple[str, ...]:
        """Where the document of the node at ``path`` may be: :meth:`meta_key`, then
        xtensor-zarr's spelling ``meta/root/<path>/.group.json`` (``meta/root/.group.json``
        for the root)."""
        key = self.meta_key(path, node_type)
        if not self.root:
            return (key,)
        return key, f"meta/{self._name(path)}/.{node_type}{self.suffix}"

    def data_prefix(self, path: str) -> str:
        """Prefix of the chunk keys of the array at ``path``."""
        name = self._name(path)
        return f"data/{name}/" if name else "data/"

    def path_of(self, key: str) -> tuple[str, str] | None:
        """``(path, node_type)`` of a document key, or None for other keys."""
        for node_type in ("array", "group"):
            tail = f".{node_type}{self.suffix}"
            if not key.endswith(tail) or not key.startswith("meta/"):
                continue
            name = key[len("meta/"):-len(tail)]
            if self.root and name.endswith("/"):  # xtensor-zarr: meta/root/<path>/.group.json
                name = name[:-1]
            if name == "" or (self.root and name == self.root):
                return "", node_type
            if key == f"meta/{node_type}{self.suffix}" and not self.root:
                return "", node_type
            prefix = f"{self.root}/" if self.root else ""
            if name.startswith(prefix):
                return name[len(prefix):], node_type
        return None


@dataclass(frozen=True)
class DraftChunkKeyEncoding:
    """``c`` followed by the chunk indices joined by the grid's separator."""

    separator: str = "/"
    #: the key of a 0-d array's chunk: zarr-python 2 wrote ``c0`` (its v2 key ``0``, prefixed)
    zero_d: str = "c"

    def encode(self, coords: tuple[int, ...]) -> str:
        if not coords:
            return self.zero_d
        return "c" + self.separator.join(str(int(c)) for c in coords)


def _data_type(obj: Any, doc: str, filters: list | None = None
               ) -> tuple[DataType, str | None, np.dtype | None]:
    """The data type, the byte order its name implies (None: the default, little) and,
    for numpy-style names, the numpy type as written (fill values then read as in v2)."""
    if isinstance(obj, dict):
        # zarr-python 2's extended types: {"extension": URL, "type": <numpy form>, ...}
        if "type" not in obj:
            raise UnsupportedError(f"{doc}: data_type: extension data types are not "
                                   f"supported, got {_show(obj)}")
        obj = obj["type"]
        if isinstance(obj, list):  # a structured type's descr
            npdt = dtype_from_json_v2(obj, doc, "data_type")
            return v2_data_type(npdt, filters, doc), None, npdt
    if not isinstance(obj, str):
        raise _err(doc, "data_type", f"expected a data type name, got {_show(obj)}")
    if obj[:1] in "<>|" and len(obj) > 1:
        npdt = dtype_from_json_v2(obj, doc, "data_type")
        order = {"<": "little", ">": "big"}.get(obj[0])
        if npdt.kind in "biufc" and npdt.fields is None:
            return data_type_from_numpy(npdt.newbyteorder("=")), order, npdt
        return v2_data_type(npdt, filters, doc), order, npdt
    if obj in ("b1", "i1", "u1"):
        return data_type_from_numpy(obj), None, None
    try:
        return data_type_from_numpy(obj), None, None
    except (MetadataError, UnsupportedError):
        raise _err(doc, "data_type", f"unknown data type {obj!r}") from None


def _codec_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(c, dict) and isinstance(c.get("id"), str) for c in value)


def _fill_v2(npdt: np.dtype, dt: DataType, value: Any, doc: str) -> np.ndarray:
    """A fill value of a numpy-named type: zarr-python 2 wrote v2's forms; the draft's
    own forms ("+Infinity", "0x...") are read too."""
    try:
        fill = parse_fill_value_v2(npdt, dt, value, doc)
    except MetadataError:
        if dt.kind in ("object", "string", "bytes", "datetime", "timedelta", "structured",
                       "raw"):
            raise
        return _fill(dt, value, doc)
    if fill is None:
        return vlen_fill(dt, None, doc, False) if dt.kind == "object" else np.zeros(
            (), dt.dtype)
    return fill


def _fill(dt: DataType, value: Any, doc: str) -> np.ndarray:
    if value is None:
        return np.zeros((), dt.dtype)
    kind = dt.kind
    if isinstance(value, str) and value.startswith(("0x", "0b")) and kind != "raw":
        base = 16 if value[1] == "x" else 2
        bits = int(value[2:], base)
        return np.array(bits, dtype=f"u{dt.itemsize}").view(dt.dtype).reshape(())
    special = {"NaN": math.nan, "+Infinity": math.inf, "Infinity": math.inf,
               "-Infinity": -math.inf}
    try:
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError("expected true or false")
            return np.array(value, dtype=dt.dtype)
        if kind in ("int", "uint"):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError("expected an integer")
            info = np.iinfo(dt.dtype)
            if not info.min <= value <= info.max:
                raise ValueError(f"out of range [{info.min}, {info.max}]")
            return np.array(value, dtype=dt.dtype)
        if kind in ("float", "complex"):
            parts = value if isinstance(value, list) and kind == "complex" else [value, 0.0]
            nums = [special[p] if isinstance(p, str) else float(p) for p in parts]
            v = complex(*nums) if kind == "complex" else nums[0]
            return np.array(v, dtype=dt.dtype)
        if kind == "raw" and isinstance(value, list):
            return np.frombuffer(bytes(value), dtype=dt.dtype).reshape(()).copy()
    except (ValueError, TypeError, KeyError) as exc:
        raise _err(doc, "fill_value", f"{exc} for {dt.name}, got {_show(value)}") from None
    raise _err(doc, "fill_value", f"unsupported fill value {_show(value)} for {dt.name}")


def _codec_name(entry: dict, key: str, doc: str, where: str) -> str:
    uri = entry.get(key)
    if isinstance(uri, str):
        tail = uri.rstrip("/").split("/")
        # https://purl.org/zarr/spec/codec/<name>/<version>; any <name> that is not a
        # declared draft name is numcodecs' (zarr-python 2 wrote numcodecs ids there)
        if len(tail) >= 3 and tail[-3] in ("codec", "codecs") and re.match(r"^[a-z][a-z0-9_.-]*$", tail[-2]):
            return tail[-2]
    raise UnsupportedError(f"{doc}: {where}: codec {_show(uri)} is not supported "
                           f"(expected https://purl.org/zarr/spec/codec/<name>/<version>; "
                           f"known: {', '.join(draft_names())})")


def _codec_chain(d: dict, dt: DataType, endian: str | None, doc: str) -> list[dict]:
    entries: list[tuple[str, dict, str]] = []
    for i, c in enumerate(d.get("codecs") or []):
        if not isinstance(c, dict):
            raise _err(doc, f"codecs[{i}]", f"expected an object, got {_show(c)}")
        entries.append((_codec_name(c, "type", doc, f"codecs[{i}]"),
                        c.get("configuration") or {}, f"codecs[{i}]"))
    filters = d.get("filters") or []
    comp = d.get("compressor")
    if comp is not None:
        if not isinstance(comp, dict):
            raise _err(doc, "compressor", f"expected an object or null, got {_show(comp)}")
        entries.append((_codec_name(comp, "codec", doc, "compressor"),
                        comp.get("configuration") or {}, "compressor"))
    out = []
    for name, conf, _where in entries:
        entry = draft_entry(name, conf, dt.dtype)
        if entry["name"] == "bytes":  # the draft's endian codec: the array->bytes step
            endian = (entry.get("configuration") or {}).get("endian", endian)
            continue
        out.append(entry)
    pre = codecs_v2_to_v3(dt.dtype, "C", 1, filters, None, doc) if filters else []
    if any(is_serializer(f) for f in filters):  # an object codec serialises the chunk
        return pre + out
    bytes_entry = {"name": "bytes"}
    if dt.swap_size:
        bytes_entry["configuration"] = {"endian": endian or "little"}
    if not pre:
        return [bytes_entry] + out
    # zarr-python 2 stored filters as v2 does: its bytes step (followed by any filters that
    # work on bytes, zlib or crc32 as a filter) takes the draft's byte order
    at = next(i for i, e in enumerate(pre) if e["name"] == "bytes")
    return pre[:at] + [bytes_entry] + pre[at + 1:] + out


SHARDING_TRANSFORMER = "https://purl.org/zarr/spec/storage_transformers/sharding/1.0"


def _chunks_per_shard(value: Any, ndim: int, doc: str) -> list[int] | None:
    """``chunks_per_shard`` of zarr-python 2's one sharding storage transformer, or None
    when there is no transformer; any other transformer is refused."""
    if not value:
        return None
    where = "storage_transformers"
    if not isinstance(value, list) or len(value) != 1 or not isinstance(value[0], dict):
        raise UnsupportedError(f"{doc}: {where}: only one sharding transformer is supported, "
                               f"got {_show(value)}")
    t = value[0]
    if t.get("extension") != SHARDING_TRANSFORMER or t.get("type") != "indexed":
        raise UnsupportedError(f"{doc}: {where}[0]: only the 'indexed' sharding transformer "
                               f"({SHARDING_TRANSFORMER}) is supported, got {_show(t)}")
    cps = (t.get("configuration") or {}).get("chunks_per_shard")
    if not isinstance(cps, list) or len(cps) != ndim or not all(
            isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in cps):
        raise _err(doc, f"{where}[0].configuration.chunks_per_shard",
                   f"expected {ndim} positive integers, got {_show(cps)}")
    return cps


def _sharded(codecs: list[dict], chunks: list[int], per_shard: list[int]
             ) -> tuple[list[dict], list[int]]:
    """The ``sharding_indexed`` form of zarr-python 2's sharding transformer: a shard holds
    ``per_shard`` chunks (each through the array's codecs) followed by the index, one
    little-endian ``(offset, nbytes)`` uint64 pair per chunk in C order, 2**64-1 for a
    missing chunk, without checksum."""
    conf = {"chunk_shape": list(chunks), "codecs": codecs,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_location": "end"}
    return ([{"name": "sharding_indexed", "configuration": conf}],
            [c * k for c, k in zip(chunks, per_shard)])


@dataclass(frozen=True, kw_only=True, eq=False)
class ArrayMetadataV3Draft:
    """A draft array document (read-only).

    Parameters
    ----------
    path : str
        The node's path (``""`` for the root), needed for its chunk keys.
    layout : DraftLayout
    document : dict
        The parsed document as stored.
    """

    path: str
    layout: DraftLayout
    document: dict
    shape: tuple[int, ...] = ()
    data_type: DataType | None = None
    chunk_shape: tuple[int, ...] = ()
    separator: str = "/"
    chunk_memory_layout: str = "C"
    fill_value: np.ndarray | None = None
    codecs: list = field(default_factory=list)
    attributes: dict = field(default_factory=dict)

    zarr_format = 3
    node_type = "array"
    read_only = True

    @classmethod
    def from_json(cls, data: Any, path: str, layout: DraftLayout, doc: str) -> ArrayMetadataV3Draft:
        """Parse and validate a draft ``*.array.json`` document."""
        d = _load(data, doc)
        unknown = sorted(set(d) - _ARRAY_KEYS)
        if unknown:
            raise _err(doc, unknown[0], "unknown member (the draft forbids other names)")
        for key in ("shape", "data_type", "chunk_grid", "chunk_memory_layout"):
            if key not in d:
                raise _err(doc, key, "missing required member")
        shape = d["shape"]
        if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
            raise _err(doc, "shape", f"expected non-negative integers, got {_show(shape)}")
        grid = d["chunk_grid"]
        if not isinstance(grid, dict) or grid.get("type") != "regular":
            raise UnsupportedError(f"{doc}: chunk_grid: only the regular grid is supported, "
                                   f"got {_show(grid)}")
        chunks = grid.get("chunk_shape")
        if not isinstance(chunks, list) or len(chunks) != len(shape) or not all(
                isinstance(n, int) and n > 0 for n in chunks):
            raise _err(doc, "chunk_grid.chunk_shape",
                       f"expected {len(shape)} positive integers, got {_show(chunks)}")
        sep = grid.get("separator", d.get("dimension_separator", "/"))
        if sep not in ("/", "."):
            raise _err(doc, "chunk_grid.separator", f"expected '/' or '.', got {_show(sep)}")
        layout_c = d["chunk_memory_layout"]
        if layout_c not in ("C", "F"):
            raise UnsupportedError(f"{doc}: chunk_memory_layout: expected 'C' or 'F', "
                                   f"got {_show(layout_c)}")
        _check_extensions(d.get("extensions"), doc)
        per_shard = _chunks_per_shard(d.get("storage_transformers"), len(shape), doc)
        attrs = d.get("attributes", {})
        if not isinstance(attrs, dict):
            raise _err(doc, "attributes", f"expected an object, got {_show(attrs)}")
        filters = d.get("filters")
        if filters is None and _codec_list(attrs.get("filters")):
            filters = attrs["filters"]  # zarr-python 2 kept its filters in the attributes
        dt, endian, npdt = _data_type(d["data_type"], doc, filters)
        codecs = _codec_chain({**d, "filters": filters}, dt, endian, doc)
        if layout_c == "F" and len(shape) > 1:
            codecs = [{"name": "transpose",
                       "configuration": {"order": list(range(len(shape)))[::-1]}}] + codecs
        if per_shard is not None:
            codecs, chunks = _sharded(codecs, chunks, per_shard)
        fill = _fill(dt, d.get("fill_value"), doc) if npdt is None else _fill_v2(
            npdt, dt, d.get("fill_value"), doc)
        return cls(path=path, layout=layout, document=copy.deepcopy(d), shape=tuple(shape),
                   data_type=dt, chunk_shape=tuple(chunks), separator=sep,
                   chunk_memory_layout=layout_c, fill_value=fill,
                   codecs=codecs, attributes=attrs)

    @property
    def dimension_names(self) -> None:
        return None

    def to_spec(self) -> ArraySpec:
        """The internal ArraySpec: chunks under ``data/``, keys ``c0/1``."""
        return ArraySpec(
            shape=self.shape, data_type=self.data_type, chunk_shape=self.chunk_shape,
            chunk_key_encoding=DraftChunkKeyEncoding(
                self.separator, "c0" if self.layout.root == "root" else "c"),
            fill_value=self.fill_value, codecs=self.codecs,
            chunk_prefix=self.layout.data_prefix(self.path),
        )

    def to_dict(self) -> dict:
        return copy.deepcopy(self.document)


@dataclass(frozen=True, kw_only=True, eq=False)
class GroupMetadataV3Draft:
    """A draft group document, or an implicit group (``implicit=True``, no document)."""

    attributes: dict = field(default_factory=dict)
    implicit: bool = False

    zarr_format = 3
    node_type = "group"
    read_only = True
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any, doc: str) -> GroupMetadataV3Draft:
        """Parse a draft ``*.group.json`` document."""
        d = _load(data, doc)
        unknown = sorted(set(d) - {"attributes", "extensions"})
        if unknown:
            raise _err(doc, unknown[0], "unknown member (a draft group holds only attributes)")
        _check_extensions(d.get("extensions"), doc)
        attrs = d.get("attributes", {})
        if not isinstance(attrs, dict):
            raise _err(doc, "attributes", f"expected an object, got {_show(attrs)}")
        return cls(attributes=attrs)

    def to_dict(self) -> dict:
        return {"attributes": copy.deepcopy(self.attributes)}
