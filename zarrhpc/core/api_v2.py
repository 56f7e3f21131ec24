"""``create_array(..., zarr_format=2)``: the v2 side of array creation.

Codecs may be given as numcodecs-style dicts (``{"id": "zlib", "level": 1}``), numcodecs
codec objects, zarrhpc codec objects (``Gzip``, ``Zstd``, ``Blosc``, ``ZlibCodec``,
``numcodecs.*`` codecs) or v3 JSON dicts of those; they are stored as v2 ``{"id": ...}``
objects. ``compressors="auto"`` is zstd level 0 and ``filters="auto"`` none, as
zarr-python 3 writes for v2. ``dimension_names`` are stored as xarray's
``_ARRAY_DIMENSIONS`` attribute.
"""

from __future__ import annotations

import numpy as np

from zarrhpc.codecs.abc import Codec
from zarrhpc.codecs.registry import codec_to_v2
from zarrhpc.core._nodes import resolve_store
from zarrhpc.core.array import Array
from zarrhpc.core.attributes import json_attributes
from zarrhpc.core.formats import write_node
from zarrhpc.errors import AmbiguousDataTypeError, UnsupportedArgumentError, UnsupportedError
from zarrhpc.metadata.v2 import array_v2_from_user, normalize_path_v2

__all__ = ["codec_to_v2", "create_array_v2"]

def _as_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _separator(chunk_key_encoding) -> str:
    if chunk_key_encoding is None:
        return "."
    if isinstance(chunk_key_encoding, dict) and "separator" in chunk_key_encoding:
        chunk_key_encoding = {"name": chunk_key_encoding.get("name", "v2"),
                              "configuration": {"separator": chunk_key_encoding["separator"]}}
    # every other form as create_array takes it for v3 (zarr-python's V2ChunkKeyEncoding
    # objects, ours, tuples, JSON)
    from zarrhpc.core._create_args import parse_chunk_key_encoding

    chunk_key_encoding = parse_chunk_key_encoding(chunk_key_encoding, "create_array")
    if chunk_key_encoding.name != "v2":  # zarr-python's words (a ValueError there)
        raise UnsupportedArgumentError(
            f"chunk_key_encoding: Zarr v2 arrays use the 'v2' encoding, got "
            f"{chunk_key_encoding.name!r}. Invalid chunk key encoding. For Zarr format 2 "
            f"arrays, the `name` field of the chunk key encoding must be 'v2'. Got `name` = "
            f"{chunk_key_encoding.name} instead."
        )
    return chunk_key_encoding.separator


def _is_v3_codec(codec) -> bool:
    """A Zarr v3 codec object (zarrhpc's or zarr-python's ``zarr.codecs...``): not a
    numcodecs codec nor a dict, which is what v2 metadata holds."""
    if isinstance(codec, (dict, str)) or codec is None:
        return False
    return not (hasattr(codec, "get_config") and not isinstance(codec, Codec))


def _check_v2_codecs(filters, compressors) -> None:
    """v3 codec objects refused for a v2 array, with zarr-python's errors and words."""
    for i, f in enumerate(filters):
        if _is_v3_codec(f):
            raise TypeError(f"For Zarr format 2 arrays, all elements of `filters` must be "
                            f"numcodecs codecs. Element at index {i} has type {type(f)}, "
                            f"which is not a numcodecs codec.")
    for c in compressors:
        if _is_v3_codec(c):
            raise ValueError(f"Invalid compressor. Expected None, a numcodecs.abc.Codec, or a "
                             f"dict representation of a numcodecs.abc.Codec. Got {type(c)} "
                             f"instead.")


def create_array_v2(store, *, name, shape, dtype, chunks, filters, compressors, serializer,
                    fill_value, order, attributes, dimension_names, chunk_key_encoding,
                    write_empty_chunks, overwrite, config_order=None) -> Array:
    """Create a Zarr v2 array (called by ``zarrhpc.create_array``).

    ``order`` is stored (and is the order reads return); ``config_order`` is what the
    array's ``config`` shows (zarr-python keeps the two apart for v2; default: ``order``).
    """
    from zarrhpc.core._create_args import _normalize_chunks as normalize_chunks
    from zarrhpc.core._create_args import _prepare_path as prepare_path
    from zarrhpc.core._create_args import int_tuple

    if serializer not in ("auto", None):
        raise ValueError("Zarr format 2 arrays do not support `serializer`.")  # zarr-python's
    store = resolve_store(store, mode="w")
    path = normalize_path_v2(name)
    doc = f"{path}/.zarray" if path else ".zarray"
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = int_tuple(shape, "shape")
    if any(n < 0 for n in shape):
        raise ValueError(f"shape: dimensions must be non-negative, got {shape}")
    chunk_shape = normalize_chunks(chunks, shape, np.dtype(dtype).itemsize)
    filters = [] if isinstance(filters, str) and filters == "auto" else _as_list(filters)
    if isinstance(compressors, str) and compressors == "auto":
        compressors = [{"id": "zstd", "level": 0}]
    compressors = _as_list(compressors)
    if len(compressors) > 1:
        raise UnsupportedError(
            f"compressors: Zarr v2 takes at most one compressor, got {len(compressors)}")
    _check_v2_codecs(filters, compressors)
    attributes = json_attributes(attributes)
    if dimension_names is not None:
        if len(dimension_names) != len(shape):
            raise ValueError(
                f"dimension_names: {len(dimension_names)} names for {len(shape)} dimensions")
        attributes["_ARRAY_DIMENSIONS"] = list(dimension_names)
    try:
        md = array_v2_from_user(
            shape, chunk_shape, dtype, fill_value, order,
            [codec_to_v2(f, f"filters[{i}]") for i, f in enumerate(filters)],
            codec_to_v2(compressors[0], "compressors[0]") if compressors else None,
            _separator(chunk_key_encoding), attributes, doc)
    except UnsupportedError as exc:
        if np.dtype(dtype).kind != "O" or "object codec" not in str(exc):
            raise
        # creating an object array with nothing saying what it holds: zarr-python's
        # ValueError (a stored '|O' .zarray without its codec stays UnsupportedError)
        raise AmbiguousDataTypeError(str(exc)) from None
    arr = Array(store, path, md, write_empty_chunks=write_empty_chunks,
                order=config_order or order)
    prepare_path(store, path, overwrite, 2)  # after the codec chain is known to work
    write_node(store, path, md)
    return arr
