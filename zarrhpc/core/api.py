"""open/create functions with zarr-python 3's names, arguments and modes.

Modes: ``r`` read-only, must exist; ``r+`` read/write, must exist; ``a`` read/write,
create if missing; ``w`` create, replacing what is there; ``w-`` create, fail if exists.
"""

from __future__ import annotations

import math

import numpy as np

from zarrhpc.codecs import (
    ChunkSpec,
    Codec,
    CodecPipeline,
    ShardingCodec,
    default_compressors,
    default_serializer,
    parse_codec,
)
from zarrhpc.core._nodes import meta_key, read_node, resolve_store
from zarrhpc.core.array import Array
from zarrhpc.core.formats import doc_key, empty_group, write_node
from zarrhpc.core.group import Group, open_node
from zarrhpc.errors import (
    ArrayNotFoundError,
    ContainsArrayError,
    ContainsGroupError,
    GroupNotFoundError,
    NodeNotFoundError,
    UnsupportedError,
)
from zarrhpc.metadata import (
    ArrayMetadataV3,
    ChunkKeyEncoding,
    GroupMetadataV3,
    data_type_from_numpy,
    fill_value_from_user,
    normalize_path,
)
from zarrhpc.metadata.v2 import normalize_path_v2

__all__ = ["create_array", "create_group", "open", "open_array", "open_group"]

_MODES = ("r", "r+", "a", "w", "w-")
_AUTO_CHUNK_BYTES = 1 << 20  # zarr-python aims at about 1 MiB too


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode: expected one of {_MODES}, got {mode!r}")


def _normalize_chunks(chunks, shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    if chunks is None or chunks == "auto":
        # halve the largest dimension until a chunk is about 1 MiB
        c = [max(1, n) for n in shape]
        while math.prod(c) * itemsize > _AUTO_CHUNK_BYTES and max(c) > 1:
            i = c.index(max(c))
            c[i] = math.ceil(c[i] / 2)
        return tuple(c)
    if isinstance(chunks, (int, np.integer)) and not isinstance(chunks, bool):
        chunks = (int(chunks),) * len(shape)
    try:
        chunks = tuple(int(c) for c in chunks)
    except TypeError:
        raise ValueError(f"chunks: expected 'auto', an int or a tuple of ints, got {chunks!r}") from None
    if len(chunks) != len(shape):
        raise ValueError(f"chunks: {chunks} has {len(chunks)} dimensions, shape {shape} has {len(shape)}")
    out = []
    for axis, (c, n) in enumerate(zip(chunks, shape)):
        if c == -1:  # the whole dimension
            c = max(1, n)
        if c < 1:
            raise ValueError(f"chunks: axis {axis}: chunk length must be positive, got {c}")
        out.append(c)
    return tuple(out)


def _codec_list(value, auto, field: str) -> list:
    if value is None:
        return []
    if isinstance(value, str) and value == "auto":
        return list(auto)
    if isinstance(value, (dict, Codec, str)):
        value = [value]
    return list(value)


def _build_codecs(filters, serializer, compressors, spec: ChunkSpec, doc: str):
    entries = (
        _codec_list(filters, [], "filters")
        + _codec_list(serializer, [default_serializer(spec.dtype)], "serializer")
        + _codec_list(compressors, default_compressors(spec.dtype), "compressors")
    )
    codecs = []
    for i, entry in enumerate(entries):
        codec = entry if isinstance(entry, Codec) else parse_codec(entry, doc, f"codecs[{i}]")
        codecs.append(codec)
    return CodecPipeline.from_codecs(codecs, spec, doc)


def _normalize_shards(shards, chunks, shape, itemsize):
    """(shard shape, inner chunk shape, index_location) from ``create_array``'s arguments.

    ``shards`` is a shape or ``{"shape": ..., "index_location": "end" | "start"}`` (as
    zarr-python 3); the shard shape must be a multiple of the inner chunk shape.
    """
    index_location = "end"
    if isinstance(shards, dict):
        unknown = sorted(set(shards) - {"shape", "index_location"})
        if unknown or "shape" not in shards:
            raise ValueError(f"shards: expected a shape or {{'shape': ..., 'index_location': "
                             f"...}}, got {shards!r}")
        index_location = shards.get("index_location", "end")
        if index_location not in ("end", "start"):
            raise ValueError(f"shards: index_location: expected 'end' or 'start', got "
                             f"{index_location!r}")
        shards = shards["shape"]
    shard_shape = _normalize_chunks(shards, shape, itemsize)
    inner = _normalize_chunks(chunks, shard_shape if chunks in (None, "auto") else shape,
                              itemsize)
    for axis, (s, c) in enumerate(zip(shard_shape, inner)):
        if s % c:
            raise ValueError(
                f"shards: the shard shape {shard_shape} must be a multiple of the chunk shape "
                f"{inner} (axis {axis}: {s} is not a multiple of {c})")
    return shard_shape, inner, index_location


def _prepare_path(store, path: str, overwrite: bool, zarr_format: int = 3) -> None:
    """Make room for a new node at ``path`` and explicit groups at its ancestors (v2
    requires a ``.zgroup`` at every ancestor; v3 writes them too)."""
    existing = read_node(store, path)
    if existing is not None and not overwrite:
        cls = ContainsArrayError if existing.node_type == "array" else ContainsGroupError
        kind = "an array" if cls is ContainsArrayError else "a group"
        raise cls(f"{doc_key(path, existing)}: {kind} already exists at {path or '/'!r} "
                  f"(use overwrite=True)")
    if overwrite:
        store.erase_prefix(f"{path}/" if path else "")
    parts = path.split("/") if path else []
    for i in range(len(parts)):
        parent = "/".join(parts[:i])
        md = read_node(store, parent)
        if md is not None and md.node_type == "array":
            raise ContainsArrayError(
                f"{doc_key(parent, md)}: cannot create {path!r} inside the array at "
                f"{parent or '/'!r}"
            )
        if md is None:
            write_node(store, parent, empty_group(zarr_format))


def create_array(store, *, name=None, shape, dtype, chunks="auto", shards=None,
                 filters="auto", compressors="auto", serializer="auto", fill_value=None,
                 order="C", zarr_format=3, attributes=None, dimension_names=None,
                 chunk_key_encoding=None, write_empty_chunks=False, overwrite=False) -> Array:
    """Create a Zarr array; arguments as zarr-python 3's ``create_array``.

    Parameters
    ----------
    store : Store, str, pathlib.Path
        A Store, a directory path (LocalStore) or ``"memory://"``.
    name : str, optional
        Path of the array inside the store (default: the root).
    shape, dtype : array shape and data type (numpy dtype or v3 name such as "float32").
    chunks : tuple of int, int or "auto"
        The chunk shape; with ``shards``, the inner chunk shape.
    shards : tuple of int or dict, optional
        The shard shape (a multiple of ``chunks``), or ``{"shape": ..., "index_location":
        "end" | "start"}``: store the array in shards of ``sharding_indexed`` (index codecs
        bytes and crc32c, index at the end, as zarr-python).
    filters, serializer, compressors : codec dicts or objects
        The array->array, array->bytes and bytes->bytes codecs; ``"auto"`` gives no
        filters, ``bytes`` little-endian and zstd; None gives none.
    fill_value : scalar, optional (default: zero of the type)
    order : "C" or "F"
        Memory layout of arrays returned by reads (not stored in v3 metadata).
    write_empty_chunks : bool
        Store chunks equal to the fill value too (default: erase them).
    overwrite : bool
        Replace an existing node (and everything below it).
    """
    if zarr_format == 2:
        from zarrhpc.core.api_v2 import create_array_v2

        if shards is not None:
            raise UnsupportedError("shards: Zarr v2 has no sharding")
        return create_array_v2(
            store, name=name, shape=shape, dtype=dtype, chunks=chunks, filters=filters,
            compressors=compressors, serializer=serializer, fill_value=fill_value,
            order=order, attributes=attributes, dimension_names=dimension_names,
            chunk_key_encoding=chunk_key_encoding, write_empty_chunks=write_empty_chunks,
            overwrite=overwrite)
    if zarr_format != 3:
        raise UnsupportedError(f"zarr_format={zarr_format!r}: expected 2 or 3")
    store = resolve_store(store, mode="w")
    path = normalize_path(name or "")
    doc = meta_key(path)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"shape: dimensions must be non-negative, got {shape}")
    data_type = data_type_from_numpy(dtype)
    fill = fill_value_from_user(data_type, fill_value)
    if shards is None:
        chunk_shape = _normalize_chunks(chunks, shape, data_type.itemsize)
        spec = ChunkSpec(chunk_shape, data_type.dtype, fill)
        pipeline = _build_codecs(filters, serializer, compressors, spec, doc)
    else:
        # as zarr-python: filters, serializer and compressors make the inner chain
        chunk_shape, inner, index_location = _normalize_shards(
            shards, chunks, shape, data_type.itemsize)
        inner_chain = _build_codecs(filters, serializer, compressors,
                                    ChunkSpec(inner, data_type.dtype, fill), doc)
        sharding = ShardingCodec(inner, inner_chain.to_json(), index_location=index_location)
        spec = ChunkSpec(chunk_shape, data_type.dtype, fill)
        pipeline = CodecPipeline.from_codecs([sharding], spec, doc)
    if chunk_key_encoding is None:
        cke = ChunkKeyEncoding("default", "/")
    elif isinstance(chunk_key_encoding, ChunkKeyEncoding):
        cke = chunk_key_encoding
    else:
        cke = ChunkKeyEncoding.from_json(chunk_key_encoding, doc)
    if dimension_names is not None:
        dimension_names = tuple(dimension_names)
        if len(dimension_names) != len(shape):
            raise ValueError(
                f"dimension_names: {len(dimension_names)} names for {len(shape)} dimensions"
            )
    md = ArrayMetadataV3(
        shape=shape,
        data_type=data_type,
        chunk_shape=chunk_shape,
        chunk_key_encoding=cke,
        fill_value=fill,
        codecs=pipeline.to_json(),
        attributes=dict(attributes or {}),
        dimension_names=dimension_names,
    )
    md = ArrayMetadataV3.from_json(md.to_dict(), doc)  # validate what we are about to write
    _prepare_path(store, path, overwrite)
    store.set(doc, md.to_bytes())
    return Array(store, path, md, write_empty_chunks=write_empty_chunks, order=order)


def create_group(store, *, path=None, attributes=None, zarr_format=3, overwrite=False) -> Group:
    """Create a Zarr group (and explicit groups at every missing ancestor)."""
    if zarr_format not in (2, 3):
        raise UnsupportedError(f"zarr_format={zarr_format!r}: expected 2 or 3")
    store = resolve_store(store, mode="w")
    if zarr_format == 2:
        path = normalize_path_v2(path)
        md = empty_group(2).with_attributes(dict(attributes or {}))
        md.documents()  # refuses attributes that are not JSON before anything is written
    else:
        path = normalize_path(path or "")
        md = GroupMetadataV3(attributes=dict(attributes or {}))
        md = GroupMetadataV3.from_json(md.to_dict(), meta_key(path))
    _prepare_path(store, path, overwrite, zarr_format)
    write_node(store, path, md)
    return Group(store, path, md)


def _open_existing(store, path, mode, use_consolidated=None, **array_kwargs):
    node = open_node(store, path, read_only=(mode == "r"), **array_kwargs)
    if isinstance(node, Group) and use_consolidated is not False:
        from zarrhpc.core.consolidated import load_consolidated, open_consolidated

        if use_consolidated:
            return open_consolidated(store, path, mode)
        cons = load_consolidated(store, path, node.metadata)
        if cons is not None:
            node._consolidated = cons
    return node


def open(store, *, path=None, mode="r", **kwargs):  # noqa: A001 - zarr-python's name
    """Open the array or group at ``path``; with mode a/w/w- create it if needed.

    Creating needs ``shape`` (and ``dtype``) for an array; otherwise a group is created.
    """
    _check_mode(mode)
    store = resolve_store(store, mode)
    path = normalize_path(path or "")
    if mode in ("w", "w-") or (mode == "a" and read_node(store, path) is None and
                               not _node_exists(store, path)):
        if "shape" in kwargs:
            return create_array(store, name=path, overwrite=(mode == "w"), **kwargs)
        return create_group(store, path=path, overwrite=(mode == "w"),
                            attributes=kwargs.get("attributes"),
                            zarr_format=kwargs.get("zarr_format") or 3)
    return _open_existing(store, path, mode, kwargs.get("use_consolidated"))


def _node_exists(store, path) -> bool:
    try:
        open_node(store, path, read_only=True)
        return True
    except NodeNotFoundError:
        return False


def open_array(store, *, path=None, mode="r", write_empty_chunks=False, order="C", **kwargs) -> Array:
    """Open an existing array (modes r, r+, a) or create one (w, w-, a with ``shape``)."""
    _check_mode(mode)
    store = resolve_store(store, mode)
    path = normalize_path(path or "")
    if mode in ("w", "w-") or (mode == "a" and read_node(store, path) is None and "shape" in kwargs):
        return create_array(store, name=path, overwrite=(mode == "w"), order=order,
                            write_empty_chunks=write_empty_chunks, **kwargs)
    md = read_node(store, path)
    if md is None or md.node_type != "array":
        what = "a group" if md is not None else "no array"
        raise ArrayNotFoundError(
            f"{doc_key(path, md)}: {what} at path {path or '/'!r}, expected an array")
    return Array(store, path, md, read_only=(mode == "r"),
                 write_empty_chunks=write_empty_chunks, order=order)


def open_group(store, *, path=None, mode="r", attributes=None, zarr_format=None,
               use_consolidated=None) -> Group:
    """Open an existing group (explicit or implicit), creating it with modes a/w/w-.

    ``use_consolidated``: None uses consolidated metadata when the group has some, True
    requires it, False ignores it (as zarr-python 3). ``zarr_format`` applies to creation.
    """
    _check_mode(mode)
    store = resolve_store(store, mode)
    path = normalize_path(path or "")
    if mode in ("w", "w-") or (mode == "a" and not _node_exists(store, path)):
        return create_group(store, path=path, overwrite=(mode == "w"), attributes=attributes,
                            zarr_format=zarr_format or 3)
    node = _open_existing(store, path, mode, use_consolidated)
    if not isinstance(node, Group):
        raise GroupNotFoundError(f"{meta_key(path)}: an array at path {path or '/'!r}, expected a group")
    return node
