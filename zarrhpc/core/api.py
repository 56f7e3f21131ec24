"""open/create functions with zarr-python 3's names, arguments and modes.

Modes: ``r`` read-only, must exist; ``r+`` read/write, must exist; ``a`` read/write,
create if missing; ``w`` create, replacing what is there; ``w-`` create, fail if exists.
Defaults as zarr-python 3: ``open`` "a" ("r" for a read-only Store), ``open_group`` "a",
``open_array`` opens an existing array read/write (creates only with a/w/w-).

Life cycle of a call: the store argument (path, URL, dict, StorePath...) becomes a Store
and a node path (``_nodes.resolve_store_path``); creation arguments in zarr-python's forms
become canonical ones (``_create_args``); the metadata is built and validated before
anything is written; then the node's ancestors are made explicit groups and its document
written. The convenience functions (``zeros``, ``save``...) live in ``convenience``.
"""

from __future__ import annotations

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
from zarrhpc.core._create_args import guess_chunks
from zarrhpc.core._nodes import meta_key, read_node, resolve_store_path
from zarrhpc.core.array import Array
from zarrhpc.core.attributes import json_attributes
from zarrhpc.core.formats import doc_key, empty_group, write_node
from zarrhpc.core.group import Group, open_node
from zarrhpc.errors import (
    ArrayNotFoundError,
    ContainsArrayError,
    ContainsGroupError,
    GroupNotFoundError,
    NodeNotFoundError,
    NotAGroupError,
    NotAnArrayError,
    UnsupportedError,
)
from zarrhpc.metadata import (
    ArrayMetadataV3,
    GroupMetadataV3,
    data_type_from_numpy,
    fill_value_from_user,
    normalize_path,
)
from zarrhpc.metadata.v2 import normalize_path_v2
from zarrhpc.storage import Store, StorePath

# zarr-python's DEFAULT_FILL_VALUE: "not given" (v2 then stores the type's zero, while an
# explicit None stores null)
DEFAULT_FILL_VALUE = type("DefaultFillValue", (), {"__repr__": lambda self: "<default>"})()

__all__ = ["DEFAULT_FILL_VALUE", "create_array", "create_group", "open", "open_array",
           "open_group"]

_MODES = ("r", "r+", "a", "w", "w-")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode: expected one of {_MODES}, got {mode!r}")


def _normalize_chunks(chunks, shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    if chunks is None or chunks is True or (isinstance(chunks, str) and chunks == "auto"):
        return guess_chunks(shape, itemsize)
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


def create_array(store, *, name=None, shape=None, dtype=None, data=None, chunks="auto",
                 shards=None, filters="auto", compressors="auto", serializer="auto",
                 fill_value=DEFAULT_FILL_VALUE, order=None, zarr_format=3, attributes=None,
                 chunk_key_encoding=None, dimension_names=None, storage_options=None,
                 overwrite=False, config=None, write_data=True, write_empty_chunks=None,
                 compressor="auto") -> Array:
    """Create a Zarr array; arguments as zarr-python 3's ``create_array``.

    Parameters
    ----------
    store : Store, StorePath, str, pathlib.Path, dict or None
        A Store, a directory path or URL (``file://``, ``memory://name``, ``s3://``...),
        a dict (an in-memory store backed by it) or None (a new in-memory store).
    name : str, optional
        Path of the array inside the store (default: the root).
    shape, dtype : array shape and data type (numpy dtype or v3 name such as "float32").
    data : array-like, optional
        Initial contents: shape and dtype are taken from it (then give neither).
    chunks : tuple of int, int or "auto"
        The chunk shape; with ``shards``, the inner chunk shape. "auto" chooses as
        zarr-python does.
    shards : tuple of int, dict or "auto", optional
        The shard shape (a multiple of ``chunks``), or ``{"shape": ..., "index_location":
        "end" | "start"}``: store the array in shards of ``sharding_indexed`` (index codecs
        bytes and crc32c, index at the end, as zarr-python).
    filters, serializer, compressors : codecs
        The array->array, array->bytes and bytes->bytes codecs, as zarrhpc, zarr-python or
        numcodecs codec objects or dicts; ``"auto"`` gives no filters, ``bytes``
        little-endian and zstd; None gives none.
    fill_value : scalar or None, optional
        Default: zero of the type (False, "" ...). For v2, None stores a null fill value
        (as zarr-python: readers then choose); for v3 None means the default.
    order : "C" or "F", optional
        Memory layout of arrays returned by reads (default: config ``array.order``).
    chunk_key_encoding : dict, tuple, str or ChunkKeyEncoding, optional
    config : dict, optional
        ``{"order": ..., "write_empty_chunks": ...}`` as zarr-python's ``ArrayConfig``.
    write_data : bool
        Write ``data`` (False creates the array only).
    write_empty_chunks : bool, optional
        Store chunks equal to the fill value too (default: config
        ``array.write_empty_chunks``, i.e. erase them).
    overwrite : bool
        Replace an existing node (and everything below it).
    """
    from zarrhpc import config as settings
    from zarrhpc.core._create_args import codec_entries

    store, name = resolve_store_path(store, name, "w", storage_options)
    cfg = dict(config or {}) if not hasattr(config, "order") else {
        "order": config.order, "write_empty_chunks": config.write_empty_chunks}
    unknown = sorted(set(cfg) - {"order", "write_empty_chunks", "read_missing_chunks"})
    if unknown:
        raise ValueError(f"config: unknown array config key(s) {unknown}; expected 'order' "
                         f"or 'write_empty_chunks'")
    if order is None:
        order = cfg.get("order") or settings.get("array.order")
    if write_empty_chunks is None:
        write_empty_chunks = cfg.get("write_empty_chunks",
                                     settings.get("array.write_empty_chunks"))
    if data is not None:
        if shape is not None or dtype is not None:
            which = "shape" if shape is not None else "dtype"
            raise ValueError(f"The data parameter was used, but the {which} parameter was "
                             f"also used. This is an error: give data, or shape and dtype")
        if not hasattr(data, "shape") or not hasattr(data, "dtype"):
            data = np.asarray(data)
        shape, dtype = data.shape, data.dtype
    if shape is None or dtype is None:
        raise TypeError("create_array: give shape and dtype, or data")
    if compressor != "auto":  # zarr-python's deprecated singular form
        compressors = compressor
    if zarr_format is None:
        zarr_format = settings.get("default_zarr_format")
    if zarr_format == 2:
        from zarrhpc.core.api_v2 import create_array_v2

        if shards is not None:
            raise UnsupportedError("shards: Zarr v2 has no sharding")
        if isinstance(chunks, str) and chunks == "auto":
            chunks = guess_chunks(_shape_tuple(shape), np.dtype(dtype).itemsize)
        if fill_value is DEFAULT_FILL_VALUE:
            dt = np.dtype(dtype)
            fill_value = np.zeros((), dt)[()].item() if dt.kind in "biufcSUmM" else None
        arr = create_array_v2(
            store, name=name, shape=shape, dtype=dtype, chunks=chunks, filters=filters,
            compressors=compressors, serializer=serializer, fill_value=fill_value,
            order=order, attributes=attributes, dimension_names=dimension_names,
            chunk_key_encoding=chunk_key_encoding, write_empty_chunks=write_empty_chunks,
            overwrite=overwrite)
    elif zarr_format == 3:
        # v2 keeps numcodecs dicts and objects as they are (codec_to_v2 reads them)
        size = data_type_from_numpy(dtype).itemsize
        filters, compressors, serializer = (codec_entries(filters, size),
                                            codec_entries(compressors, size),
                                            codec_entries(serializer, size))
        if isinstance(serializer, list):
            if len(serializer) != 1:
                raise ValueError(f"serializer: expected one array->bytes codec, got "
                                 f"{serializer!r}")
            serializer = serializer[0]
        arr = _create_array_v3(store, name, shape, dtype, chunks, shards, filters,
                               compressors, serializer, fill_value, order, attributes,
                               chunk_key_encoding, dimension_names, overwrite,
                               write_empty_chunks)
    else:
        raise UnsupportedError(f"zarr_format={zarr_format!r}: expected 2 or 3")
    if data is not None and write_data:
        arr[...] = data
    return arr


def _shape_tuple(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"shape: dimensions must be non-negative, got {shape}")
    return shape


def _create_array_v3(store, name, shape, dtype, chunks, shards, filters, compressors,
                     serializer, fill_value, order, attributes, chunk_key_encoding,
                     dimension_names, overwrite, write_empty_chunks) -> Array:
    from zarrhpc.core._create_args import auto_shards, parse_chunk_key_encoding

    path = normalize_path(name or "")
    doc = meta_key(path)
    shape = _shape_tuple(shape)
    data_type = data_type_from_numpy(dtype)
    fill = fill_value_from_user(data_type, None if fill_value is DEFAULT_FILL_VALUE
                                else fill_value)
    if isinstance(shards, str) and shards == "auto":
        if isinstance(chunks, str) and chunks == "auto":
            chunks = guess_chunks(shape, data_type.itemsize, max_bytes=1 << 20)
        chunks = _normalize_chunks(chunks, shape, data_type.itemsize)
        shards = auto_shards(shape, chunks)
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
    cke = parse_chunk_key_encoding(chunk_key_encoding, doc)
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
        attributes=json_attributes(attributes),
        dimension_names=dimension_names,
    )
    md = ArrayMetadataV3.from_json(md.to_dict(), doc)  # validate what we are about to write
    _prepare_path(store, path, overwrite)
    store.set(doc, md.to_bytes())
    return Array(store, path, md, write_empty_chunks=write_empty_chunks, order=order)


def _default_mode(store, mode):
    """zarr-python's default open mode: "r" for a read-only Store, else "a"."""
    if mode is not None:
        return mode
    return "r" if isinstance(store, (Store, StorePath)) and store.read_only else "a"


def create_group(store, *, path=None, zarr_format=None, overwrite=False, attributes=None,
                 storage_options=None) -> Group:
    """Create a Zarr group (and explicit groups at every missing ancestor).

    ``zarr_format`` defaults to config ``default_zarr_format`` (3); ``overwrite``
    replaces what is at ``path`` (else an existing node is an error, as zarr-python).
    """
    from zarrhpc import config as settings

    if zarr_format is None:
        zarr_format = settings.get("default_zarr_format")
    if zarr_format not in (2, 3):
        raise UnsupportedError(f"zarr_format={zarr_format!r}: expected 2 or 3")
    store, path = resolve_store_path(store, path, "w", storage_options)
    if zarr_format == 2:
        path = normalize_path_v2(path)
        md = empty_group(2).with_attributes(json_attributes(attributes))
        md.documents()  # refuses attributes that are not JSON before anything is written
    else:
        path = normalize_path(path or "")
        md = GroupMetadataV3(attributes=json_attributes(attributes))
        md = GroupMetadataV3.from_json(md.to_dict(), meta_key(path))
    _prepare_path(store, path, overwrite, zarr_format)
    write_node(store, path, md)
    return Group(store, path, md)


def _open_existing(store, path, mode, use_consolidated=None, node=None, **array_kwargs):
    """The node at ``path`` for ``mode`` (``node``: already opened by :func:`_try_open`),
    with the group's consolidated metadata attached as ``use_consolidated`` asks."""
    if node is None:
        node = open_node(store, path, read_only=(mode == "r"), **array_kwargs)
    if isinstance(node, Group) and use_consolidated is not False:
        from zarrhpc.core.consolidated import load_consolidated, open_consolidated

        if use_consolidated:
            return open_consolidated(store, path, mode)
        cons = load_consolidated(store, path, node.metadata)
        if cons is not None:
            node._consolidated = cons
    return node


_ARRAY_OPEN_KEYS = ("write_empty_chunks", "order", "config")


def _array_open_options(kwargs: dict) -> dict:
    """``order``/``write_empty_chunks`` of an opened array, from its keywords and config."""
    from zarrhpc import config as settings

    cfg = dict(kwargs.pop("config", None) or {})
    order = kwargs.pop("order", None) or cfg.get("order") or settings.get("array.order")
    wec = kwargs.pop("write_empty_chunks", None)
    if wec is None:
        wec = cfg.get("write_empty_chunks", settings.get("array.write_empty_chunks"))
    return {"order": order, "write_empty_chunks": wec}


def open(store=None, *, mode=None, zarr_format=None, path=None, storage_options=None,
         **kwargs):
    """Open the array or group at ``path``, creating it when the mode allows.

    As zarr-python 3: ``mode`` defaults to "a" ("r" for a read-only Store); with ``shape``
    in the keywords an array is opened or created, else whatever node is there is opened,
    or a group created (modes a, w, w-).
    """
    mode = _default_mode(store, mode)
    _check_mode(mode)
    store, path = resolve_store_path(store, path, mode, storage_options)
    path = normalize_path(path)
    if "shape" in kwargs:
        return open_array(store, path=path, mode=mode, zarr_format=zarr_format, **kwargs)
    options = _array_open_options(kwargs)
    node = None if mode == "w" else _try_open(store, path, mode, **options)
    if node is not None:
        node = _open_existing(store, path, mode, kwargs.get("use_consolidated"), node=node)
        if mode == "w-":
            cls = ContainsArrayError if isinstance(node, Array) else ContainsGroupError
            raise cls(f"{meta_key(path)}: a node already exists at {path or '/'!r} in "
                      f"{store!r} (mode='w-')")
        return node
    if mode in ("r", "r+"):
        raise GroupNotFoundError(f"{meta_key(path)}: no array or group at path {path or '/'!r} "
                                f"in {store!r}")
    return open_group(store, path=path, mode=mode, zarr_format=zarr_format,
                      attributes=kwargs.get("attributes"),
                      use_consolidated=kwargs.get("use_consolidated"))


def _try_open(store, path, mode, **array_kwargs):
    """The node at ``path`` opened for ``mode``, or None when there is none.

    One probe of the node's documents: existence is learnt by opening it (on a remote
    store every probe is a request).
    """
    try:
        return open_node(store, path, read_only=(mode == "r"), **array_kwargs)
    except NodeNotFoundError:
        return None


def open_array(store=None, *, zarr_format=None, path="", storage_options=None, mode=None,
               **kwargs) -> Array:
    """Open an existing array; create one with modes a/w/w- (keywords as ``create``).

    As zarr-python 3, the array is writable unless ``mode="r"`` or the store is read-only.
    """
    store_mode = mode or ("r" if getattr(store, "read_only", False) else "r+")
    _check_mode(store_mode)
    store, path = resolve_store_path(store, path, store_mode, storage_options)
    path = normalize_path(path)
    md = read_node(store, path) if mode != "w" else None
    if md is None and mode in ("a", "w", "w-") and not store.read_only:
        from zarrhpc.core.convenience import create

        return create(store=store, path=path, zarr_format=zarr_format,
                      overwrite=(mode == "w"), **kwargs)
    if mode == "w-" and md is not None:
        cls = ContainsArrayError if md.node_type == "array" else ContainsGroupError
        raise cls(f"{doc_key(path, md)}: a node already exists at {path or '/'!r} in "
                  f"{store!r}")
    if md is None or md.node_type != "array":
        what = "a group" if md is not None else "no array"
        cls = NotAnArrayError if md is not None else ArrayNotFoundError
        raise cls(f"{doc_key(path, md)}: {what} at path {path or '/'!r} in {store!r}, "
                  f"expected an array")
    if zarr_format is not None and md.zarr_format != zarr_format:
        raise ArrayNotFoundError(f"{doc_key(path, md)}: the array is Zarr v{md.zarr_format}, "
                                 f"zarr_format={zarr_format} was asked for")
    options = _array_open_options(kwargs)
    return Array(store, path, md, read_only=(mode == "r"), **options)


def open_group(store=None, *, mode="a", cache_attrs=None, synchronizer=None, path=None,
               chunk_store=None, storage_options=None, zarr_format=None, meta_array=None,
               attributes=None, use_consolidated=None) -> Group:
    """Open a group (explicit or implicit), creating it with modes a/w/w- (default "a").

    ``use_consolidated``: None uses consolidated metadata when the group has some, True
    requires it, False ignores it (as zarr-python 3). ``zarr_format`` and ``attributes``
    apply to creation. ``cache_attrs``, ``synchronizer``, ``chunk_store`` and
    ``meta_array`` are accepted for zarr-python 2 code and not used.
    """
    _check_mode(mode)
    store, path = resolve_store_path(store, path, mode, storage_options)
    path = normalize_path(path)
    node = None if mode == "w" else _try_open(store, path, mode)
    exists = node is not None
    if mode == "w" or (mode in ("a", "w-") and not exists):
        return create_group(store, path=path, overwrite=(mode == "w"), attributes=attributes,
                            zarr_format=zarr_format)
    if mode == "w-":
        raise ContainsGroupError(f"{meta_key(path)}: a node already exists at "
                                 f"{path or '/'!r} in {store!r}")
    if not exists:
        raise GroupNotFoundError(f"{meta_key(path)}: no group at path {path or '/'!r} in "
                                 f"{store!r}")
    node = _open_existing(store, path, mode, use_consolidated, node=node)
    if not isinstance(node, Group):
        raise NotAGroupError(
            f"{meta_key(path)}: an array at path {path or '/'!r} in {store!r}, expected a group")
    if zarr_format is not None and node.zarr_format != zarr_format:
        raise GroupNotFoundError(f"{meta_key(path)}: the group is Zarr v{node.zarr_format}, "
                                 f"zarr_format={zarr_format} was asked for")
    return node
