"""What ``node.metadata`` returns: zarr-python 3's metadata classes (``ArrayV3Metadata``,
``ArrayV2Metadata``, ``GroupMetadata``, ``ConsolidatedMetadata``, ``RegularChunkGrid``,
``DefaultChunkKeyEncoding``...) with zarr-python's fields, reprs and pretty-printed forms,
built from zarrhpc's own metadata documents.

zarrhpc reads and writes its documents (:mod:`zarrhpc.metadata`: ``ArrayMetadataV3``...);
those stay what the data path uses (``node._metadata``). A user asking for
``array.metadata`` gets a frozen dataclass shaped as zarr-python's, so ``print`` and
``pprint`` show what zarr-python shows: ``data_type`` is a :mod:`zarrhpc.core.dtype`
object, ``fill_value`` a numpy scalar, ``codecs`` a tuple of codec objects printed as
zarr-python prints its own. Each view keeps the document it was made from: any attribute
the view lacks (``to_bytes``, ``chunk_shape``, ``extra``...) is the document's, and
``to_dict()`` is the document's JSON in zarr-python's form (tuples, v2 attributes inline),
which ``create_hierarchy`` takes as it takes zarr-python's. ``GroupMetadata(attributes=..., zarr_format=...)`` made by a user builds its
document from its fields.

Life cycle: built on each ``node.metadata`` access from the node's document (and, for a
group opened through consolidated metadata, the consolidated snapshot it holds); never
stored, never written.
"""

from __future__ import annotations

import copy
import itertools
import math
from dataclasses import dataclass, field, make_dataclass, replace
from typing import Any

from zarrhpc.codecs.blosc import BloscCname, BloscShuffle
from zarrhpc.codecs.bytes import Endian
from zarrhpc.codecs.registry import parse_codec
from zarrhpc.codecs.sharding import ShardingCodecIndexLocation
from zarrhpc.core.dtype import from_data_type

__all__ = ["ArrayV2Metadata", "ArrayV3Metadata", "ConsolidatedMetadata",
           "DefaultChunkKeyEncoding", "Endian", "GroupMetadata", "RegularChunkGrid",
           "ShardingCodecIndexLocation", "V2ChunkKeyEncoding", "codec_view", "node_metadata"]


def _tuples(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_tuples(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """JSON-shaped: tuples as lists, objects with ``to_dict`` (codecs, grids, key
    encodings: zarr-python's or ours) as their dicts, numpy scalars as Python ones."""
    if hasattr(value, "to_dict") and not isinstance(value, dict):
        value = value.to_dict()
    elif hasattr(value, "get_config") and hasattr(value, "codec_id"):  # numcodecs
        value = value.get_config()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return value.item()
    return value


def _updated(view: Any, doc: Any) -> Any:
    return type(view).from_document(doc)


class _ArrayMethods:
    """zarr-python's array-metadata methods shared by both formats (on the document)."""

    def update_attributes(self, attributes: dict) -> Any:
        """A copy with ``attributes`` (replacing them, as zarr-python's)."""
        return _updated(self, self._document.with_attributes(dict(attributes)))

    def update_shape(self, shape: tuple[int, ...]) -> Any:
        """A copy with ``shape`` (the chunk grid as a resize leaves it)."""
        return _updated(self, self._document.with_shape(tuple(shape)))

    def to_buffer_dict(self, prototype: Any = None) -> dict:
        """``{store key: buffer}`` of the documents (``prototype.buffer`` when given, as
        zarr-python's ``default_buffer_prototype()``; bytes otherwise)."""
        docs = self._document.documents()
        if prototype is None:
            return dict(docs)
        return {k: prototype.buffer.from_bytes(v) for k, v in docs.items()}


class _Delegating:
    """Attributes a view lacks are its document's (``_document``)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_document":
            raise AttributeError(name)
        doc = object.__getattribute__(self, "_document")
        if doc is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(doc, name)

    def to_dict(self) -> dict:
        """The JSON form of the document (as zarr-python's ``Metadata.to_dict``)."""
        return self._document.to_dict()


# ---------------------------------------------------------------------------------------
# codecs: zarr-python's codec dataclasses, over zarrhpc's codec objects
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _CodecView(_Delegating):
    _document: Any = field(default=None, repr=False, compare=False)


def _codec_class(name: str, fields: list) -> type:
    return make_dataclass(name, fields, bases=(_CodecView,), frozen=True, kw_only=True,
                          namespace={"__module__": "zarrhpc.core.metadata",
                                     "__doc__": f"zarr-python's ``{name}`` (a view)."})


def _f(name: str, default: Any = None) -> tuple:
    return (name, Any, field(default=default))


_CODEC_VIEWS = {
    "bytes": _codec_class("BytesCodec", [_f("endian")]),
    "zstd": _codec_class("ZstdCodec", [_f("level", 0), _f("checksum", False)]),
    "gzip": _codec_class("GzipCodec", [_f("level", 5)]),
    "blosc": _codec_class("BloscCodec", [("_tunable_attrs", Any, field(default_factory=set)),
                                         _f("typesize"), _f("cname"), _f("clevel", 5),
                                         _f("shuffle"), _f("blocksize", 0)]),
    "crc32c": _codec_class("Crc32cCodec", []),
    "transpose": _codec_class("TransposeCodec", [_f("order", ())]),
    "sharding_indexed": _codec_class("ShardingCodec", [
        _f("chunk_shape", ()), _f("codecs", ()), _f("index_codecs", ()),
        _f("index_location")]),
    "vlen-utf8": _codec_class("VLenUTF8Codec", []),
    "vlen-bytes": _codec_class("VLenBytesCodec", []),
}
# module attributes under their names, so views pickle (by class reference)
globals().update({cls.__name__: cls for cls in _CODEC_VIEWS.values()})


def _codec_fields(name: str, conf: dict, itemsize: int) -> dict:
    if name == "bytes":
        endian = conf.get("endian")
        return {"endian": None if endian is None or itemsize == 1 else Endian(endian)}
    if name == "blosc":
        return {"typesize": conf.get("typesize"), "cname": BloscCname(conf.get("cname", "zstd")),
                "clevel": conf.get("clevel", 5),
                "shuffle": BloscShuffle(conf.get("shuffle", "noshuffle")),
                "blocksize": conf.get("blocksize", 0)}
    if name == "transpose":
        return {"order": tuple(conf.get("order", ()))}
    if name == "sharding_indexed":
        return {"chunk_shape": tuple(conf["chunk_shape"]),
                "codecs": tuple(codec_view(c, itemsize) for c in conf.get("codecs", ())),
                "index_codecs": tuple(codec_view(c, 8) for c in conf.get("index_codecs", ())),
                "index_location": ShardingCodecIndexLocation(conf.get("index_location", "end"))}
    return dict(conf)


def codec_view(entry: dict, itemsize: int) -> Any:
    """The codec of the v3 entry ``entry`` as zarr-python shows it (a dataclass that hands
    every other attribute to zarrhpc's codec object); zarrhpc's codec object itself for a
    codec zarr-python shows through another class (numcodecs codecs)."""
    codec = parse_codec(entry, "metadata", "codecs")
    name = entry.get("name") if isinstance(entry, dict) else entry
    cls = _CODEC_VIEWS.get(name)
    if cls is None or codec is None:
        return codec if codec is not None else entry
    conf = entry.get("configuration") or {} if isinstance(entry, dict) else {}
    return cls(_document=codec, **_codec_fields(name, conf, itemsize))


# ---------------------------------------------------------------------------------------
# grids and key encodings
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RegularChunkGrid:
    """zarr-python's regular chunk grid."""

    chunk_shape: tuple

    def to_dict(self) -> dict:
        return {"name": "regular", "configuration": {"chunk_shape": tuple(self.chunk_shape)}}

    def all_chunk_coords(self, array_shape: tuple[int, ...]):
        """The grid coordinates of every chunk of an array of ``array_shape``, C order."""
        return itertools.product(*(range(-(-n // c) if c else 0)
                                   for n, c in zip(array_shape, self.chunk_shape)))

    def get_nchunks(self, array_shape: tuple[int, ...]) -> int:
        """The number of chunks of an array of ``array_shape``."""
        return math.prod(-(-n // c) if c else 0 for n, c in zip(array_shape, self.chunk_shape))


class _KeyEncoding:
    name = ""
    separator = "/"

    def to_dict(self) -> dict:
        return {"name": self.name, "configuration": {"separator": self.separator}}

    def _ours(self):
        from zarrhpc.metadata import ChunkKeyEncoding

        return ChunkKeyEncoding(self.name, self.separator)

    def encode_chunk_key(self, chunk_coords: tuple[int, ...]) -> str:
        """The key of the chunk at grid coordinates ``chunk_coords``."""
        return self._ours().encode(tuple(chunk_coords))

    def decode_chunk_key(self, chunk_key: str) -> tuple[int, ...]:
        """The grid coordinates of the chunk key ``chunk_key``."""
        if self.name == "default":
            if chunk_key == "c":
                return ()
            chunk_key = chunk_key[2:]  # after "c" and the separator
        return tuple(int(p) for p in chunk_key.split(self.separator))


@dataclass(frozen=True)
class DefaultChunkKeyEncoding(_KeyEncoding):
    """zarr-python's ``default`` chunk key encoding."""

    separator: str = "/"
    name = "default"


@dataclass(frozen=True)
class V2ChunkKeyEncoding(_KeyEncoding):
    """zarr-python's ``v2`` chunk key encoding."""

    separator: str = "."
    name = "v2"


def _grid(md) -> Any:
    grid = getattr(md, "chunk_grid", None)
    return RegularChunkGrid(tuple(md.chunk_shape)) if grid is None else grid


def _key_encoding(cke) -> Any:
    if cke.name == "v2":
        return V2ChunkKeyEncoding(separator=cke.separator)
    return DefaultChunkKeyEncoding(separator=cke.separator)


# ---------------------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ArrayV3Metadata(_ArrayMethods, _Delegating):
    """zarr-python's v3 array metadata (a view of zarrhpc's ``ArrayMetadataV3``).

    Made by a node (``from_document``), from a ``zarr.json`` dict (``from_dict``, as
    pydantic-zarr and virtualizarr call zarr-python's) or from zarr-python's keyword
    fields (data type, codecs, grid and key encoding as objects or dicts): the last two
    build the document, so they are validated as a stored one is.
    """

    shape: tuple
    data_type: Any
    chunk_grid: Any
    chunk_key_encoding: Any
    fill_value: Any
    codecs: tuple
    attributes: dict | None
    dimension_names: tuple | None
    zarr_format: int = 3
    node_type: str = "array"
    storage_transformers: tuple | None = ()
    extra_fields: dict | None = field(default_factory=dict)
    _document: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._document is not None:
            return
        from zarrhpc.metadata import fill_value_from_user, fill_value_to_json, parse_data_type

        dt_json = self.data_type
        if not isinstance(dt_json, (str, dict)):
            dt_json = dt_json.to_json(zarr_format=3)
        dt = parse_data_type(_plain(dt_json), "ArrayV3Metadata: data_type")
        fill = fill_value_to_json(dt, fill_value_from_user(dt, self.fill_value))
        cke = self.chunk_key_encoding
        if isinstance(cke, str):  # zarr-python takes the name alone
            cke = {"name": cke}
        d = {"zarr_format": 3, "node_type": "array", "shape": _plain(self.shape),
             "data_type": _plain(dt_json), "chunk_grid": _plain(self.chunk_grid),
             "chunk_key_encoding": _plain(cke), "fill_value": fill,
             "codecs": [{"name": c} if isinstance(c, str) else _plain(c)
                        for c in self.codecs],
             "attributes": _plain(self.attributes or {}),
             "storage_transformers": _plain(self.storage_transformers or [])}
        if self.dimension_names is not None:
            d["dimension_names"] = _plain(self.dimension_names)
        d.update(_plain(self.extra_fields or {}))
        built = type(self).from_dict(d)
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, getattr(built, name))

    @classmethod
    def from_dict(cls, data: dict) -> ArrayV3Metadata:
        """zarr-python's ``from_dict``: a ``zarr.json`` document as a dict (tuples too)."""
        from zarrhpc.metadata.v3 import ArrayMetadataV3

        return cls.from_document(ArrayMetadataV3.from_json(_plain(dict(data)), "zarr.json"))

    def to_dict(self) -> dict:
        """The document's JSON as zarr-python's ``to_dict`` gives it: sequences as tuples
        (the attributes as they are)."""
        return {k: v if k == "attributes" else _tuples(v)
                for k, v in self._document.to_dict().items()}

    @classmethod
    def from_document(cls, md) -> ArrayV3Metadata:
        zd = from_data_type(md.data_type)
        itemsize = md.data_type.dtype.itemsize
        return cls(shape=tuple(md.shape), data_type=zd, chunk_grid=_grid(md),
                   chunk_key_encoding=_key_encoding(md.chunk_key_encoding),
                   fill_value=zd._scalar(md.fill_value),
                   codecs=tuple(codec_view(c, itemsize) for c in md.codecs),
                   attributes=copy.deepcopy(md.attributes),
                   dimension_names=None if md.dimension_names is None
                   else tuple(md.dimension_names),
                   storage_transformers=tuple(md.storage_transformers),
                   extra_fields=dict(md.extra), _document=md)

    @property
    def dtype(self) -> Any:
        """The data type (zarr-python names it ``dtype`` too)."""
        return self.data_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _sharding(self) -> Any:
        first = self.codecs[0] if len(self.codecs) == 1 else None
        return first if type(first).__name__ == "ShardingCodec" else None

    @property
    def chunks(self) -> tuple:
        """The (inner) chunk shape: inside a shard when sharded."""
        shard = self._sharding()
        return tuple(self._document.chunk_shape) if shard is None else shard.chunk_shape

    @property
    def shards(self) -> tuple | None:
        """The shard shape (None when not sharded)."""
        return None if self._sharding() is None else tuple(self._document.chunk_shape)

    @property
    def inner_codecs(self) -> tuple:
        """The codecs of one (inner) chunk."""
        shard = self._sharding()
        return self.codecs if shard is None else shard.codecs


@dataclass(frozen=True, kw_only=True)
class ArrayV2Metadata(_ArrayMethods, _Delegating):
    """zarr-python's v2 array metadata (a view of zarrhpc's ``ArrayMetadataV2``); made as
    :class:`ArrayV3Metadata` is (``from_dict`` takes ``.zarray`` with ``attributes``)."""

    shape: tuple
    chunks: tuple
    dtype: Any
    fill_value: Any
    order: str
    filters: tuple | None = None
    dimension_separator: str = "."
    compressor: Any = None
    attributes: dict | None = None
    zarr_format: int = 2
    _document: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._document is not None:
            return
        import numpy as np

        from zarrhpc.metadata.v2 import dtype_to_json_v2, fill_value_to_json_v2

        npdt = self.dtype
        npdt = npdt.to_native_dtype() if hasattr(npdt, "to_native_dtype") else np.dtype(npdt)
        fill = None if self.fill_value is None else fill_value_to_json_v2(
            npdt, np.asarray(self.fill_value, dtype=npdt))
        d = {"zarr_format": 2, "shape": _plain(self.shape), "chunks": _plain(self.chunks),
             "dtype": dtype_to_json_v2(npdt), "fill_value": fill, "order": self.order,
             "filters": None if not self.filters else _plain(list(self.filters)),
             "dimension_separator": self.dimension_separator,
             "compressor": None if self.compressor is None else _plain(self.compressor),
             "attributes": _plain(self.attributes or {})}
        built = type(self).from_dict(d)
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, getattr(built, name))

    @classmethod
    def from_dict(cls, data: dict) -> ArrayV2Metadata:
        """zarr-python's ``from_dict``: ``.zarray``'s members and ``attributes``."""
        from zarrhpc.metadata.v2 import ArrayMetadataV2

        data = _plain(dict(data))
        attrs = data.pop("attributes", None)
        return cls.from_document(ArrayMetadataV2.from_json(data, attrs or {}, ".zarray"))

    def to_dict(self) -> dict:
        """The ``.zarray`` JSON as zarr-python's ``to_dict`` gives it: shape and chunks as
        tuples, the attributes included (before ``zarr_format``)."""
        out = {}
        for k, v in self._document.to_dict().items():
            if k == "zarr_format":
                out["attributes"] = dict(self.attributes)
            out[k] = tuple(v) if k in ("shape", "chunks") else v
        return out

    @classmethod
    def from_document(cls, md) -> ArrayV2Metadata:
        import numcodecs

        zd = from_data_type(md.data_type, None if md.dtype.kind == "O" else md.dtype)
        fill = None if md.fill_value is None else zd._scalar(md.fill_value)
        filters = None if not md.filters else tuple(
            numcodecs.get_codec(dict(f)) for f in md.filters)
        comp = None if md.compressor is None else numcodecs.get_codec(dict(md.compressor))
        return cls(shape=tuple(md.shape), chunks=tuple(md.chunks), dtype=zd, fill_value=fill,
                   order=md.order, filters=filters, dimension_separator=md.dimension_separator,
                   compressor=comp, attributes=copy.deepcopy(md.attributes), _document=md)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def shards(self) -> None:
        """v2 arrays are never sharded."""
        return None

    @property
    def chunk_grid(self) -> RegularChunkGrid:
        """The regular grid of ``chunks``, as zarr-python's v2 metadata has it too."""
        return RegularChunkGrid(tuple(self.chunks))


# ---------------------------------------------------------------------------------------
# groups and consolidated metadata
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConsolidatedMetadata:
    """zarr-python's consolidated metadata: ``{child name: metadata}``, one level (a child
    group's own ``consolidated_metadata`` holds its children)."""

    metadata: dict
    kind: str = "inline"
    must_understand: bool = False

    def to_dict(self) -> dict:
        """zarr-python's form: the flattened members' ``to_dict``."""
        return {"kind": self.kind, "must_understand": self.must_understand,
                "metadata": {k: v.to_dict() for k, v in self.flattened_metadata.items()}}

    @property
    def flattened_metadata(self) -> dict:
        """``{relative path: metadata}`` at every depth (a group's own consolidated
        metadata emptied there, as zarr-python does: its members are listed beside it)."""
        out = {}
        for name, md in self.metadata.items():
            inner = getattr(md, "consolidated_metadata", None)
            if inner is None:
                out[name] = md
                continue
            out[name] = replace(md, consolidated_metadata=ConsolidatedMetadata(metadata={}))
            out.update({f"{name}/{k}": v for k, v in inner.flattened_metadata.items()})
        return out


@dataclass(frozen=True)
class GroupMetadata(_Delegating):
    """zarr-python's group metadata; made by a user (``GroupMetadata(attributes={...})``,
    for ``create_hierarchy``) or a view of a group's document."""

    attributes: dict = field(default_factory=dict)
    zarr_format: int = 3
    consolidated_metadata: ConsolidatedMetadata | None = None
    node_type: str = "group"
    _document: Any = field(default=None, repr=False, compare=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.node_type != "group":
            raise ValueError(f"GroupMetadata: node_type must be 'group', got "
                             f"{self.node_type!r}")
        if self.zarr_format not in (2, 3):
            raise ValueError(f"GroupMetadata: zarr_format must be 2 or 3, got "
                             f"{self.zarr_format!r}")
        if self._document is None:
            from zarrhpc.core.formats import empty_group

            doc = empty_group(self.zarr_format).with_attributes(dict(self.attributes))
            object.__setattr__(self, "_document", doc)

    def to_dict(self) -> dict:
        """zarr-python's form (both formats): attributes, zarr_format, the consolidated
        metadata when the group was opened with some, node_type."""
        out = {"attributes": dict(self.attributes), "zarr_format": self.zarr_format}
        if self.consolidated_metadata is not None:
            out["consolidated_metadata"] = self.consolidated_metadata.to_dict()
        out["node_type"] = "group"
        return out

    @classmethod
    def from_dict(cls, data: dict) -> GroupMetadata:
        """zarr-python's ``GroupMetadata.from_dict``: a v2 (or format-less) document's
        keys other than the fields are ignored, as zarr v2 allowed any there."""
        data = dict(data)
        if data.pop("node_type", "group") != "group":
            raise ValueError(f"GroupMetadata.from_dict: not a group: {data!r}")
        if data.get("consolidated_metadata") is not None:
            raise NotImplementedError("GroupMetadata.from_dict: consolidated_metadata is "
                                      "read from the store (open_consolidated), not given")
        data.pop("consolidated_metadata", None)
        if data.get("zarr_format", 2) == 2:
            data = {k: v for k, v in data.items() if k in ("attributes", "zarr_format")}
        return cls(**data)


def _view(md, below: dict | None) -> Any:
    """The view of document ``md``; ``below`` (``{relative path: document}``: the
    consolidated snapshot under a group) fills a group's ``consolidated_metadata``."""
    if md.node_type == "array":
        if md.zarr_format == 2:
            return ArrayV2Metadata.from_document(md)
        if md.zarr_format == 3:
            return ArrayV3Metadata.from_document(md)
        return md  # the 2022 draft: zarr-python has no class for it
    if md.zarr_format not in (2, 3):
        return md
    cons = None if below is None else _consolidated(below)
    return GroupMetadata(attributes=copy.deepcopy(md.attributes), zarr_format=md.zarr_format,
                         consolidated_metadata=cons, _document=md)


def _consolidated(below: dict) -> ConsolidatedMetadata:
    children: dict = {}
    for rel in sorted(below, key=lambda p: (p.count("/"), p)):
        if rel and "/" not in rel:
            md = below[rel]
            prefix = rel + "/"
            sub = {p[len(prefix):]: m for p, m in below.items() if p.startswith(prefix)}
            children[rel] = _view(md, sub if md.node_type == "group" else None)
    return ConsolidatedMetadata(metadata=children)


def node_metadata(md, path: str, consolidated: dict | None, without: bool = False) -> Any:
    """``node.metadata`` of the node at ``path`` whose document is ``md`` (None for an
    implicit group); ``consolidated`` is the ``{path from the root: document}`` snapshot
    the node was opened through, if any; ``without``: a group opened with
    ``use_consolidated=False`` shows none."""
    if md is None:
        return None
    below = None
    if md.node_type == "group" and not without:
        if consolidated is not None:
            prefix = f"{path}/" if path else ""
            below = {p[len(prefix):]: m for p, m in consolidated.items()
                     if p != path and p.startswith(prefix)}
        elif md.zarr_format == 3 and md.extra.get("consolidated_metadata") is not None:
            from zarrhpc.metadata.consolidated import parse_consolidated_v3

            below = parse_consolidated_v3(md.extra["consolidated_metadata"], "zarr.json")
    return _view(md, below)

