"""zarr-python 3's ``zarr.core.dtype`` for zarrhpc: one ZDType class per data type zarrhpc
supports, the registry, and ``parse_dtype``.

``import zarrhpc as zarr`` then ``zarr.core.dtype.Int8.from_native_dtype(np.dtype("i1"))``,
``.to_json(zarr_format=3)``, ``.to_json_scalar(42, zarr_format=3)``... answer as
zarr-python does; ``create_array(dtype=Int16(endianness="big"))`` takes these objects, and
``array.metadata.data_type`` (v3) / ``array.metadata.dtype`` (v2) return them. The classes
are thin: every JSON form (type and fill values) comes from zarrhpc's tables in
:mod:`zarrhpc.metadata` (see :mod:`zarrhpc.core.dtype._base`); the numeric classes are
generated from zarrhpc's list of names (:mod:`zarrhpc.core.dtype._types`).

Life cycle: the registry is filled once at import with every class, in zarr-python's order
(then zarrhpc's extra types); :func:`parse_dtype` tries the JSON forms first, then numpy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zarrhpc.core.dtype._base import HasEndianness, HasItemSize, ZDType
from zarrhpc.core.dtype._types import (
    COMPLEX_PAIRS,
    NUMERIC,
    Bool,
    DateTime64,
    FixedLengthUTF32,
    NullTerminatedBytes,
    RawBytes,
    Struct,
    Structured,
    TimeDelta64,
    VariableLengthBytes,
    VariableLengthUTF8,
)
from zarrhpc.errors import DataTypeValidationError

__all__ = [
    "Bool", "DataTypeRegistry", "DataTypeValidationError", "DateTime64", "FixedLengthUTF32",
    "HasEndianness", "HasItemSize", "NullTerminatedBytes", "RawBytes", "Struct", "Structured",
    "TimeDelta64", "VariableLengthBytes", "VariableLengthUTF8", "ZDType", "as_dtype_like",
    "data_type_registry", "get_data_type_from_json", "get_data_type_from_native_dtype",
    "parse_data_type", "parse_dtype",
    *(cls.__name__ for cls in (*NUMERIC.values(), *COMPLEX_PAIRS.values())),
]

# the generated numeric classes under their names: Int8, UInt16, Float32, BFloat16, ...
globals().update({cls.__name__: cls for cls in (*NUMERIC.values(), *COMPLEX_PAIRS.values())})

#: what zarr-python takes as a variable-length UTF-8 request
VLEN_UTF8_ALIAS = ("str", str, "string")


@dataclass
class DataTypeRegistry:
    """``{v3 name: ZDType class}``; answers numpy dtypes and JSON forms by trying each."""

    contents: dict[str, type] = field(default_factory=dict)

    def register(self, key: str, cls: type) -> None:
        """Add ``cls`` under ``key`` (its v3 name)."""
        if key not in self.contents or self.contents[key] != cls:
            self.contents[key] = cls

    def unregister(self, key: str) -> None:
        """Remove the class under ``key``.

        Raises
        ------
        KeyError
            Nothing is registered under ``key``.
        """
        if key not in self.contents:
            raise KeyError(f"Data type {key!r} not found in registry")
        del self.contents[key]

    def get(self, key: str) -> type:
        """The class registered under ``key``."""
        return self.contents[key]

    def match_dtype(self, dtype: np.dtype) -> ZDType:
        """The ZDType wrapping the numpy ``dtype``.

        Raises
        ------
        ValueError
            No class wraps it (or, for ``object``, more than one could).
        """
        if dtype == np.dtype("O"):
            raise ValueError(
                "Zarr data type resolution from object failed. Attempted to resolve a zarr "
                "data type from a numpy \"Object\" data type, which is ambiguous, as multiple "
                "zarr data types can be represented by the numpy \"Object\" data type. In "
                "this case you should construct your array by providing a specific Zarr data "
                "type (VariableLengthUTF8 or VariableLengthBytes).")
        for cls in self.contents.values():
            try:
                return cls.from_native_dtype(dtype)
            except DataTypeValidationError:
                continue
        raise ValueError(f"No Zarr data type found that matches dtype '{dtype!r}'")

    def match_json(self, data: Any, *, zarr_format: int) -> ZDType:
        """The ZDType a v2 or v3 JSON form describes.

        Raises
        ------
        ValueError
            No class reads ``data``.
        """
        for cls in self.contents.values():
            try:
                return cls.from_json(data, zarr_format=zarr_format)
            except DataTypeValidationError:
                continue
        raise ValueError(f"No Zarr data type found that matches {data!r}")


data_type_registry = DataTypeRegistry()
for _cls in (Bool, *(NUMERIC[n] for n in NUMERIC if n in ("int8", "int16", "int32", "int64",
                                                         "uint8", "uint16", "uint32",
                                                         "uint64", "float16", "float32",
                                                         "float64", "complex64",
                                                         "complex128")),
             FixedLengthUTF32, VariableLengthUTF8, RawBytes, NullTerminatedBytes,
             VariableLengthBytes, Structured, DateTime64, TimeDelta64, *NUMERIC.values(),
             *COMPLEX_PAIRS.values()):
    data_type_registry.register(_cls._zarr_v3_name, _cls)
del _cls


def get_data_type_from_native_dtype(dtype: Any) -> ZDType:
    """The ZDType of a numpy dtype (or anything ``np.dtype`` takes, lists of fields too)."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype([tuple(d) for d in dtype] if isinstance(dtype, list) else dtype)
    return data_type_registry.match_dtype(dtype)


def get_data_type_from_json(dtype_spec: Any, *, zarr_format: int) -> ZDType:
    """The ZDType of a v2 (``{"name", "object_codec_id"}``) or v3 (``data_type``) JSON form."""
    return data_type_registry.match_json(dtype_spec, zarr_format=zarr_format)


def parse_dtype(dtype_spec: Any, *, zarr_format: int) -> ZDType:
    """A ZDType from a ZDType, a JSON form, a numpy dtype or anything ``np.dtype`` takes.

    Parameters
    ----------
    dtype_spec : ZDType, str, dict, numpy.dtype or type
        ``"int32"``, ``np.dtype("S10")``, ``{"name": "numpy.datetime64", ...}``, ``str``...
    zarr_format : {2, 3}
        Which JSON forms to try first.

    Returns
    -------
    ZDType
    """
    if isinstance(dtype_spec, ZDType):
        return dtype_spec
    if isinstance(dtype_spec, Mapping | str | Sequence):
        try:
            return get_data_type_from_json(dtype_spec, zarr_format=zarr_format)
        except ValueError:
            pass
    if any(dtype_spec is a or (isinstance(a, str) and dtype_spec == a) for a in VLEN_UTF8_ALIAS):
        return VariableLengthUTF8()
    return get_data_type_from_native_dtype(dtype_spec)


def parse_data_type(dtype_spec: Any, *, zarr_format: int) -> ZDType:
    """Another name of :func:`parse_dtype` (zarr-python keeps both)."""
    return parse_dtype(dtype_spec, zarr_format=zarr_format)


def as_dtype_like(dtype: Any) -> Any:
    """What zarrhpc's creation functions take for ``dtype``: a ZDType becomes its numpy
    dtype (``str``/``bytes`` for the variable-length types), and so does a JSON form as
    zarr-python takes it (a v3 ``data_type`` document such as ``{"name":
    "numpy.datetime64", "configuration": {...}}``, structured fields as JSON lists
    ``[["a", "<i4"], ...]``); anything else is kept."""
    if isinstance(dtype, Mapping) or (isinstance(dtype, list) and dtype
                                      and all(isinstance(f, list) for f in dtype)):
        dtype = parse_dtype(dtype, zarr_format=3)
    return dtype._dtype_like() if isinstance(dtype, ZDType) else dtype


def from_data_type(dt, byte_order: np.dtype | None = None) -> ZDType:
    """The ZDType of zarrhpc's :class:`~zarrhpc.metadata.dtypes.DataType` ``dt`` (in
    the byte order of ``byte_order`` when given: a v2 array's stored dtype)."""
    if dt.name == "string":
        return VariableLengthUTF8()
    if dt.name == "variable_length_bytes":
        return VariableLengthBytes()
    if dt.name == "struct":
        return Struct.from_native_dtype(dt.dtype)
    return get_data_type_from_native_dtype(byte_order if byte_order is not None else dt.dtype)
