"""Zarr metadata: JSON documents <-> validated, immutable objects. Pure: no I/O.

- :mod:`zarrhpc.metadata.dtypes`: v3 core data types and fill values (exact bits).
- :mod:`zarrhpc.metadata.v3`: ``zarr.json`` of arrays and groups (v3.0 core + 3.1/ZEP 9).
- :mod:`zarrhpc.metadata.chunk_keys`: chunk key encodings (``default``, ``v2``).
- :mod:`zarrhpc.metadata.names`: node names, hierarchy paths, extension names (ZEP 9).
- :mod:`zarrhpc.metadata.dtypes_ext`: types beyond the v3 core (zarr-python 3.1's names).
- :mod:`zarrhpc.metadata.dtypes_ml`, :mod:`zarrhpc.metadata.dtypes_cplx`: zarr-extensions'
  small floats and ints (ml_dtypes) and the complex types made of them.
- :mod:`zarrhpc.metadata.v2`: ``.zarray``/``.zgroup``/``.zattrs`` (Zarr v2).
- :mod:`zarrhpc.metadata.v3draft`: the 2022 draft of v3 (read-only).
- :mod:`zarrhpc.metadata.spec`: :class:`ArraySpec`, what every format's array becomes.
- :mod:`zarrhpc.metadata.consolidated`, :mod:`zarrhpc.metadata.convert`: consolidated
  metadata documents; plans for conversion to v3.

Objects are built once when a document is read (or when a user creates a node), then
shared read-only; a change makes a new object. Every error is a
:class:`~zarrhpc.errors.MetadataError` whose message starts with the document's store key.
"""

from zarrhpc.codec_forms import register_type_parser
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.dtypes import (
    CORE_DATA_TYPE_NAMES,
    DataType,
    data_type_from_numpy,
    fill_value_from_user,
    fill_value_to_json,
    parse_data_type,
    parse_fill_value,
)
from zarrhpc.metadata.names import (
    ExtensionEntry,
    is_recommended_node_name,
    is_valid_extension_name,
    join_path,
    metadata_key,
    normalize_path,
    parse_extension_entry,
    validate_node_name,
)
from zarrhpc.metadata.spec import ArraySpec
from zarrhpc.metadata.v2 import ArrayMetadataV2, GroupMetadataV2
from zarrhpc.metadata.v3 import (
    ArrayMetadataV3,
    GroupMetadataV3,
    parse_metadata_v3,
)
from zarrhpc.metadata.v3draft import ArrayMetadataV3Draft, GroupMetadataV3Draft

__all__ = [
    "CORE_DATA_TYPE_NAMES",
    "ArrayMetadataV2",
    "ArrayMetadataV3",
    "ArrayMetadataV3Draft",
    "ArraySpec",
    "ChunkKeyEncoding",
    "DataType",
    "ExtensionEntry",
    "GroupMetadataV2",
    "GroupMetadataV3",
    "GroupMetadataV3Draft",
    "data_type_from_numpy",
    "fill_value_from_user",
    "fill_value_to_json",
    "is_recommended_node_name",
    "is_valid_extension_name",
    "join_path",
    "metadata_key",
    "normalize_path",
    "parse_data_type",
    "parse_extension_entry",
    "parse_fill_value",
    "parse_metadata_v3",
    "validate_node_name",
]


def _numpy_type(obj, doc: str):
    return parse_data_type(obj, doc).dtype


register_type_parser(_numpy_type)  # codecs naming a data type (cast_value) read it so
