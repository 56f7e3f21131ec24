"""Creating arrays and groups: ``create_array``, the metadata of a new group, zarr-python's
``create`` and ``from_array``, and the helpers they share.

Kept below api.py, group.py and convenience.py, which all create nodes: api.py re-exports
``create_array`` and ``DEFAULT_FILL_VALUE`` and builds the Group of ``create_group`` from
:func:`create_group_node`; ``Group.create_array`` and friends call this module directly, so
no sibling import cycle runs through api.py.
"""

from __future__ import annotations

import warnings

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
from zarrhpc.core._create_args import (
    _exists_w_minus,
    _normalize_chunks,
    _prepare_path,
    check_format,
    format_of,
    guess_chunks,
    int_tuple,
)
from zarrhpc.core._nodes import meta_key, resolve_store_path
from zarrhpc.core.array import Array
from zarrhpc.core.attributes import json_attributes
from zarrhpc.core.dtype import as_dtype_like
from zarrhpc.core.formats import empty_group, write_node
from zarrhpc.errors import (
    BaseZarrError,
    ContainsArrayError,
    ReadOnlyError,
    UnsupportedError,
    ZarrRuntimeWarning,
    ZarrUserWarning,
)
from zarrhpc.metadata import (
    ArrayMetadataV3,
    GroupMetadataV3,
    data_type_from_numpy,
    fill_value_from_user,
    normalize_path,
)
from zarrhpc.metadata.dtypes_ml import ml_data_type_of
from zarrhpc.metadata.grids import RectilinearGrid
from zarrhpc.metadata.v2 import TYPE_DEFAULT_FILL, normalize_path_v2

# zarr-python's DEFAULT_FILL_VALUE: "not given" (v2 then stores the type's zero, while an
# explicit None stores null)
DEFAULT_FILL_VALUE = type("DefaultFillValue", (), {"__repr__": lambda self: "<default>"})()

__all__ = ["DEFAULT_FILL_VALUE", "create", "create_array", "create_group_node", "from_array"]


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
    if any(s % c for s, c in zip(shard_shape, inner)):  # zarr-python's words
        raise ValueError(
            f"The array's `chunk_shape` (got {shard_shape}) needs to be divisible by the "
            f"shard's inner `chunk_shape` (got {inner}).")
    return shard_shape, inner, index_location


def _check_store_writable(store, mode: str) -> None:
    """A read-only store given to a creating call: zarr-python's error and words, before
    anything is read or written."""
    if store.read_only:
        raise ReadOnlyError(f"Store is read-only but mode is {mode!r}. Create a writable "
                            f"store or use 'r' mode.")


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
    _check_store_writable(store, "a")  # zarr-python names mode "a" either way
    cfg = dict(config or {}) if not hasattr(config, "order") else {
        "order": config.order, "write_empty_chunks": config.write_empty_chunks}
    unknown = sorted(set(cfg) - {"order", "write_empty_chunks", "read_missing_chunks"})
    if unknown:
        raise ValueError(f"config: unknown array config key(s) {unknown}; expected 'order' "
                         f"or 'write_empty_chunks'")
    # a v2 array stores the order given, else the global one (not config's: as zarr-python)
    order_v2 = order or settings.get("array.order")
    if order is not None and (zarr_format or settings.get("default_zarr_format")) == 3:
        _warn_kwarg("order")  # no effect on a v3 array (zarr-python): config decides
        order = None
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
    if shape is None or dtype is None:  # zarr-python's ValueError and text
        which, what = ("shape", "a value") if shape is None else ("dtype", "an array-like value")
        raise ValueError(f"create_array: The data parameter was set to None, but {which} was "
                         f"not specified. Either provide {what} for data, or specify {which}.")
    dtype = as_dtype_like(dtype)  # a zarr.core.dtype object (ZDType)
    if compressor != "auto":  # zarr-python's deprecated singular form
        compressors = compressor
    if zarr_format is None:
        zarr_format = settings.get("default_zarr_format")
    if zarr_format == 2:
        from zarrhpc.core.api_v2 import create_array_v2

        if shards is not None:
            raise BaseZarrError("shards: Zarr v2 has no sharding: Zarr format 2 arrays can "
                                "only be created with `shard_shape` set to `None`.")
        if isinstance(chunks, str) and chunks == "auto":
            chunks = guess_chunks(_shape_tuple(shape), np.dtype(dtype).itemsize)
        if fill_value is DEFAULT_FILL_VALUE:
            dt = np.dtype(dtype)
            fill_value = (np.array("NaT", dt)[()] if dt.kind in "mM"  # as zarr-python 3
                          else np.zeros((), dt)[()].item() if dt.kind in "biufcSU"
                          else "" if dt.kind == "T"  # StringDType: "", as zarr-python
                          # ml_dtypes' floats are kind "V" too: a zero of their own
                          else np.zeros((), dt)[()] if ml_data_type_of(dt) is not None
                          else bytes(dt.itemsize) if dt.kind == "V" else TYPE_DEFAULT_FILL)
        if dimension_names is not None:
            raise ValueError("Zarr format 2 arrays do not support dimension names.")
        arr = create_array_v2(
            store, name=name, shape=shape, dtype=dtype, chunks=chunks, filters=filters,
            compressors=compressors, serializer=serializer, fill_value=fill_value,
            order=order_v2, config_order=cfg.get("order") or settings.get("array.order"),
            attributes=attributes, dimension_names=dimension_names,
            chunk_key_encoding=chunk_key_encoding, write_empty_chunks=write_empty_chunks,
            overwrite=overwrite)
    elif zarr_format == 3:
        # v2 keeps numcodecs dicts and objects as they are (codec_to_v2 reads them)
        dt_v3 = data_type_from_numpy(dtype)
        # variable-length elements: typesize 1 for blosc (as zarr-python resolves it)
        size = 1 if np.dtype(dt_v3.dtype).kind in "OT" else dt_v3.itemsize
        filters, compressors, serializer = (codec_entries(filters, size, "ArrayArrayCodec"),
                                            codec_entries(compressors, size, "BytesBytesCodec"),
                                            codec_entries(serializer, size, "ArrayBytesCodec"))
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
        check_format(zarr_format)
    if data is not None and write_data:
        arr[...] = data
    return arr


def _shape_tuple(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = int_tuple(shape, "shape")
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
        warnings.warn("Automatic shard shape inference is experimental and may change without "
                      "notice.", ZarrUserWarning, stacklevel=3)  # zarr-python's
        if isinstance(chunks, str) and chunks == "auto":
            chunks = guess_chunks(shape, data_type.itemsize, max_bytes=1 << 20)
        chunks = _normalize_chunks(chunks, shape, data_type.itemsize)
        shards = auto_shards(shape, chunks, data_type.itemsize)
    grid, chunks = _rectilinear(chunks, shape, shards)
    if grid is not None:
        chunk_shape = grid.max_edges(shape)
        spec = ChunkSpec(chunk_shape, data_type.dtype, fill)
        pipeline = _build_codecs(filters, serializer, compressors, spec, doc)
    elif shards is None:
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
        # no names given ([] or ()) is none at all, as zarr-python stores it (ome-zarr
        # passes [] for arrays without axes)
        dimension_names = tuple(dimension_names) or None
        if dimension_names is not None and len(dimension_names) != len(shape):
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
        chunk_grid=grid,
    )
    md = ArrayMetadataV3.from_json(md.to_dict(), doc)  # validate what we are about to write
    _prepare_path(store, path, overwrite)
    store.set(doc, md.to_bytes())
    return Array(store, path, md, write_empty_chunks=write_empty_chunks, order=order)


def _rectilinear(chunks, shape, shards):
    """``(irregular grid or None, chunks)`` for ``chunks`` given as edge lengths per
    dimension (``[[10, 20, 30], [25, 25, 25, 25]]``, as zarr-python's rectilinear
    ``create_array``); edges all equal per dimension are the regular grid they are."""
    if not isinstance(chunks, (list, tuple)) or not any(
            isinstance(c, (list, tuple)) for c in chunks):
        return None, chunks
    grid = RectilinearGrid.from_edges(chunks, shape, "chunks")
    regular = grid.regular_chunk_shape(shape)
    if regular is not None:
        return None, regular
    if shards is not None:
        raise UnsupportedError("shards: creating a sharded array on an irregular "
                               "(rectilinear) grid is not supported (such stores are read "
                               "and written)")
    return grid, chunks


def create_group_node(store, *, path=None, zarr_format=None, overwrite=False,
                      attributes=None, storage_options=None):
    """Write a new group's metadata (and explicit groups at every missing ancestor);
    returns (store, path, metadata), from which the caller builds its Group.

    ``zarr_format`` defaults to config ``default_zarr_format`` (3); ``overwrite``
    replaces what is at ``path`` (else an existing node is an error, as zarr-python).
    """
    from zarrhpc import config as settings

    if zarr_format is None:
        zarr_format = settings.get("default_zarr_format")
    check_format(zarr_format)
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
    return store, path, md


def _v3_codec(codec) -> bool:
    from zarrhpc.core.api_v2 import _is_v3_codec

    return _is_v3_codec(codec)


def _is_auto(value) -> bool:
    return isinstance(value, str) and value == "auto"


_NOT_USED = ("synchronizer", "chunk_store", "cache_metadata", "cache_attrs", "meta_array",
             "read_only")


def create(shape, *, chunks=None, dtype=None, compressor="auto", fill_value=DEFAULT_FILL_VALUE,
           order=None,
           store=None, overwrite=False, path=None, filters=None, dimension_separator=None,
           write_empty_chunks=None, zarr_format=None, attributes=None, chunk_shape=None,
           chunk_key_encoding=None, codecs=None, dimension_names=None, storage_options=None,
           config=None, mode="a", object_codec=None, zarr_version=None, **kwargs) -> Array:
    """Create an array (zarr-python's ``create``: mode "a", dtype float64 by default).

    ``codecs`` (v3) is the whole chain; ``compressor`` and ``filters`` are the v2-style
    arguments; ``dimension_separator`` picks the chunk key separator. ``object_codec``
    (``dtype=object``, as zarr-python 2 takes it): in v2 the object codec becomes the
    first filter; in v3 it picks the data type (``VLenUTF8`` -> ``string``, ``VLenBytes``
    -> ``variable_length_bytes``; ``VLenArray`` has no v3 type and is refused).
    """
    unknown = sorted(set(kwargs) - set(_NOT_USED))
    if unknown:
        raise TypeError(f"create() got an unexpected keyword argument {unknown[0]!r}")
    for name in _NOT_USED:  # accepted and ignored, with zarr-python's warning
        if kwargs.get(name) is not None:
            warnings.warn(f"{name} is not yet implemented", ZarrRuntimeWarning, stacklevel=2)
    if write_empty_chunks is not None:
        _warn_kwarg("write_empty_chunks")
    if kwargs.get("read_only"):
        raise ValueError("read_only=True is no longer supported when creating new arrays")
    if chunk_shape is not None:
        if chunks is not None:  # zarr-python's words
            raise ValueError("Only one of chunk_shape or chunks can be provided.")
        chunks = chunk_shape
    if chunks is None or chunks is True:
        chunks = "auto"
    elif chunks is False:
        chunks = shape
    mode_store, path = resolve_store_path(store, path, "w" if mode != "r" else "r",
                                          storage_options)
    if mode == "w":
        overwrite = True
    elif mode == "w-":
        from zarrhpc.core._nodes import read_node

        if read_node(mode_store, path) is not None:
            raise ContainsArrayError(_exists_w_minus(path or ""))
    from zarrhpc import config as settings

    fmt = format_of(zarr_version, zarr_format) or settings.get("default_zarr_format")
    if fmt == 3:  # zarr-python's create refuses the v2-only arguments for v3, its words
        for name, given, use in (
                ("dimension_separator", dimension_separator is not None, "chunk_key_encoding"),
                ("filters", filters is not None, "array-to-array codecs"),
                ("compressor", not _is_auto(compressor), "bytes-to-bytes codecs")):
            if given:
                raise ValueError(f"{name} cannot be used for arrays with zarr_format 3. "
                                 f"Use {use} instead.")
    elif fmt == 2 and dimension_names is not None:
        raise ValueError("dimension_names cannot be used for arrays with zarr_format 2.")
    elif fmt == 2 and chunk_key_encoding is not None:  # create() takes v2's own argument
        raise ValueError("chunk_key_encoding cannot be used for arrays with zarr_format 2. "
                         "Use dimension_separator instead.")
    elif fmt == 2 and _v3_codec(compressor):
        raise ValueError("Cannot use a BytesBytesCodec as a compressor for zarr v2 arrays. "
                         "Use a numcodecs codec directly instead.")
    if order is None and fmt == 2 and config is not None:  # create's v2 order: config's
        order = config.get("order") if isinstance(config, dict) else config.order
    if dimension_separator is not None and chunk_key_encoding is None:
        chunk_key_encoding = {"name": "v2", "separator": dimension_separator}
    if object_codec is not None:
        dtype, filters = _object_codec(object_codec, dtype, filters, fmt)
    kw = dict(name=path, shape=shape, dtype="float64" if dtype is None else dtype,
              chunks=chunks, fill_value=fill_value, order=order, zarr_format=fmt,
              attributes=attributes, chunk_key_encoding=chunk_key_encoding,
              dimension_names=dimension_names, overwrite=overwrite, config=config,
              write_empty_chunks=write_empty_chunks)
    if codecs is not None:
        if fmt == 2:
            raise ValueError("codecs cannot be used for arrays with zarr_format 2. Use "
                             "filters and compressor instead.")  # zarr-python's words
        kw.update(_split_codecs(codecs))
    else:
        if compressor != "auto":
            kw["compressors"] = compressor
        if filters is not None:
            kw["filters"] = filters
    return create_array(mode_store, **kw)


_KWARG_WARNINGS = {
    "order": "The `order` keyword argument has no effect for Zarr format 3 arrays. To control "
             "the memory layout of the array, either use the `config` keyword argument, as in "
             "`config={'order': 'C'}`,or change the global 'array.order' configuration "
             "variable.",
    "write_empty_chunks": "The `write_empty_chunks` keyword argument is deprecated and will be "
                          "removed in future versions. To control whether empty chunks are "
                          "written to storage, either use the `config` keyword argument, as in "
                          "`config={'write_empty_chunks': True}`,or change the global "
                          "'array.write_empty_chunks' configuration variable.",
}


def _warn_kwarg(name: str) -> None:
    """zarr-python's RuntimeWarning for a keyword argument that no longer does what it did
    (its texts, word for word)."""
    warnings.warn(_KWARG_WARNINGS[name], ZarrRuntimeWarning, stacklevel=4)


def _object_codec(codec, dtype, filters, fmt: int):
    """``(dtype, filters)`` for ``create(object_codec=codec)`` (see :func:`create`)."""
    from zarrhpc.codec_forms import object_type
    from zarrhpc.codecs.registry import codec_to_v2

    if dtype is None or np.dtype(dtype).kind != "O":
        warnings.warn("object_codec: only object arrays (dtype=object) need one; ignored",
                      UserWarning, stacklevel=3)
        return dtype, filters
    conf = codec_to_v2(codec, "object_codec")
    held = object_type([conf])
    if held is None:
        raise ValueError(f"object_codec: {conf.get('id')!r} is not an object codec "
                         f"(VLenUTF8, VLenBytes, VLenArray, ...)")
    if fmt == 2:
        given = [codec_to_v2(f, "filters") for f in (filters or [])]
        return dtype, filters if given and given[0] == conf else [conf, *(filters or [])]
    v3_dtype = {"string": str, "variable_length_bytes": bytes}.get(held)
    if v3_dtype is None:
        raise UnsupportedError(f"object_codec: {conf['id']!r}: Zarr v3 has no data type for "
                               f"its elements; create the array with zarr_format=2")
    return v3_dtype, filters


def _split_codecs(codecs) -> dict:
    """A whole v3 chain -> filters, serializer, compressors (as create_array takes them)."""
    from zarrhpc.codecs import ArrayToArrayCodec, ArrayToBytesCodec, Codec, get_codec_class
    from zarrhpc.core._create_args import codec_entry

    filters, serializer, compressors = [], None, []
    for entry in codecs:
        entry = codec_entry(entry)
        if isinstance(entry, Codec):
            cls = type(entry)
        else:
            cls = get_codec_class(entry if isinstance(entry, str) else entry["name"])
        if issubclass(cls, ArrayToArrayCodec):
            filters.append(entry)
        elif issubclass(cls, ArrayToBytesCodec):
            serializer = entry
        else:
            compressors.append(entry)
    return {"filters": filters, "serializer": serializer or "auto",
            "compressors": compressors}


def _like_args(a) -> dict:
    out: dict = {}
    shape = getattr(a, "shape", None)
    if isinstance(shape, tuple):
        out["shape"] = shape
        chunks = getattr(a, "chunks", None)
        if isinstance(chunks, tuple) and len(chunks) == len(shape) and \
                all(isinstance(c, (int, np.integer)) for c in chunks):
            out["chunks"] = chunks
    if hasattr(a, "dtype"):
        out["dtype"] = a.dtype
    if isinstance(a, Array):
        out["fill_value"] = a.fill_value
        if a.zarr_format == 2:
            out["order"] = a.order
            out["compressor"] = a.compressors[0] if a.compressors else None
            out["filters"] = list(a.filters) or None
        else:
            out["codecs"] = list(a._metadata.codecs)
        out["zarr_format"] = a.zarr_format
    return out


def from_array(store, *, data, write_data=True, name=None, chunks="keep", shards="keep",
               filters="keep", compressors="keep", serializer="keep",
               fill_value=DEFAULT_FILL_VALUE,
               order=None, zarr_format=None, attributes=None, chunk_key_encoding=None,
               dimension_names=None, storage_options=None, overwrite=False,
               config=None) -> Array:
    """A new array holding ``data`` (an Array: its settings are kept unless given)."""
    kw = dict(name=name, order=order, attributes=attributes,
              chunk_key_encoding=chunk_key_encoding, dimension_names=dimension_names,
              storage_options=storage_options, overwrite=overwrite, config=config)
    if isinstance(data, Array):
        src = data
        # as zarr-python: codecs are kept for a copy of the same format only (another
        # format gets its defaults: v3 codecs are no v2 compressors and vice versa)
        same = (zarr_format or src.zarr_format) == src.zarr_format
        keep = {"chunks": (chunks, src.chunks), "shards": (shards, src.shards),
                "filters": (filters, list(src.filters) if same else "auto"),
                "compressors": (compressors, list(src.compressors) if same else "auto"),
                "serializer": (serializer, src.serializer if same and src.zarr_format == 3
                               else "auto")}
        for key, (value, kept) in keep.items():
            kw[key] = kept if isinstance(value, str) and value == "keep" else value
        kw["fill_value"] = src.fill_value if fill_value is DEFAULT_FILL_VALUE else fill_value
        kw["zarr_format"] = zarr_format or src.zarr_format
        # as zarr-python: a v2 source's order is kept for a v2 copy (ignored, with a
        # warning, for v3), and the chunk key encoding for a copy of the same format
        if src.zarr_format == 2 and kw["zarr_format"] == 3 and src.order == "F":
            warnings.warn("The 'order' attribute of a Zarr format 2 array does not have a "
                          "direct analogue in Zarr format 3. The existing order='F' of the "
                          "source Zarr format 2 array will be ignored.", ZarrUserWarning,
                          stacklevel=2)
        elif order is None and kw["zarr_format"] == 2:
            kw["order"] = src.order
        if chunk_key_encoding is None and kw["zarr_format"] == src.zarr_format:
            kw["chunk_key_encoding"] = src._spec.chunk_key_encoding if (
                src.zarr_format == 3) else {"name": "v2",
                                            "separator": src.metadata.dimension_separator}
        if kw["zarr_format"] == 2:
            kw.pop("shards")
            if kw["compressors"] and kw["compressors"] != "auto":
                kw["compressors"] = kw["compressors"][0]
        if attributes is None:
            kw["attributes"] = dict(src.attrs)
        if dimension_names is None and src.zarr_format == 3:
            kw["dimension_names"] = src.dimension_names
        out = create_array(store, shape=src.shape, dtype=src.dtype, **kw)
        if write_data:
            for sl in _block_slices(src):
                out[sl] = src[sl]
        return out
    for key, value in (("chunks", chunks), ("shards", shards), ("filters", filters),
                       ("compressors", compressors), ("serializer", serializer)):
        kw[key] = ("auto" if key != "shards" else None) if (
            isinstance(value, str) and value == "keep") else value
    return create_array(store, data=np.asanyarray(data), fill_value=fill_value,
                        zarr_format=zarr_format or 3, write_data=write_data, **kw)


def _block_slices(a: Array):
    """Slices covering ``a`` one shard (or chunk) row at a time, to bound memory."""
    step = a.shards or a.chunks
    if not a.shape:
        yield ()
        return
    if isinstance(step[0], tuple):  # an irregular grid: its row of chunks at a time
        start = 0
        for n in step[0]:
            yield (slice(start, start + n),)
            start += n
        return
    n0 = max(1, step[0])
    for start in range(0, a.shape[0], n0):
        yield (slice(start, min(a.shape[0], start + n0)),)
