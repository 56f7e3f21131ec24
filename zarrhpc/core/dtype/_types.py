"""One :class:`~zarrhpc.core.dtype._base.ZDType` subclass per data type zarrhpc reads and
writes, under zarr-python 3's names (``Int8``, ``Float32``, ``FixedLengthUTF32``,
``DateTime64``, ``Structured``...) and, for the zarr-extensions types zarr-python lacks,
names made the same way from the v3 name (``bfloat16`` -> ``BFloat16``, ``float8_e4m3fn``
-> ``Float8E4M3FN``, ``int4`` -> ``Int4``).

The numeric classes are generated from zarrhpc's own lists (:data:`CORE_DATA_TYPE_NAMES`,
``ML_NAMES`` in :mod:`zarrhpc.metadata.dtype_base`, ``COMPLEX_PAIR_NAMES`` in
:mod:`zarrhpc.metadata.dtypes_cplx`: ``ComplexBFloat16``...): no second table of types. Deliberate
differences from zarr-python, all from zarrhpc's tables: a ``RawBytes`` (numpy ``V<n>``)
writes the v3 core ``r<bits>`` name (zarr-python: its own ``raw_bytes``), a NaN other than
the canonical one keeps its payload as ``"0x..."`` (zarr-python writes ``"NaN"``), and the
default scalar of ``DateTime64``/``TimeDelta64`` is NaT in the type's unit.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, ClassVar, SupportsComplex, SupportsFloat, SupportsIndex, SupportsInt

import numpy as np

from zarrhpc.core.dtype._base import (
    HasEndianness,
    HasItemSize,
    ZDType,
    endianness_of,
    float_text_ok,
)
from zarrhpc.metadata import dtypes as _dtypes
from zarrhpc.metadata.dtype_base import ML_FLOATS, ML_NAMES
from zarrhpc.metadata.dtypes_cplx import COMPLEX_PAIR_NAMES, complex_pair_of, complex_pair_type
from zarrhpc.metadata.dtypes_ext import little

__all__ = ["COMPLEX_PAIRS", "NUMERIC", "Bool", "DateTime64", "FixedLengthUTF32", "NullTerminatedBytes",
           "RawBytes", "Struct", "Structured", "TimeDelta64", "VariableLengthBytes",
           "VariableLengthUTF8", "class_name"]

_ORDER = {"little": "<", "big": ">"}


def _ordered(dtype: np.dtype, endianness: str) -> np.dtype:
    if endianness not in _ORDER:
        raise ValueError(f"endianness must be 'little' or 'big', got {endianness!r}")
    return dtype.newbyteorder(_ORDER[endianness])


def class_name(v3_name: str) -> str:
    """zarr-python's class name for a v3 numeric name (``uint16`` -> ``UInt16``,
    ``float8_e4m3fn`` -> ``Float8E4M3FN``, ``bfloat16`` -> ``BFloat16``)."""
    head, _, tail = v3_name.partition("_")
    if head.startswith("uint"):
        head = "UInt" + head[4:]
    elif head.startswith("bfloat"):
        head = "BFloat" + head[6:]
    else:
        head = head[0].upper() + head[1:]
    return head + tail.upper()


# ---------------------------------------------------------------------------------------
# numbers: bool, int, float, complex (core) and the ml_dtypes types
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Bool(ZDType, HasItemSize):
    """Booleans (``bool``)."""

    dtype_cls: ClassVar[type] = type(np.dtype(bool))
    _zarr_v3_name: ClassVar[str] = "bool"
    _zarr_v2_names: ClassVar[tuple[str, ...]] = ("|b1",)

    def to_native_dtype(self) -> np.dtype:
        return np.dtype(bool)

    def _check_scalar(self, data: Any) -> bool:
        return True  # zarr-python: anything has a truth value

    def _cast_unchecked(self, data: Any) -> Any:
        return np.bool_(data)


class _Number(ZDType, HasItemSize):
    """Shared by the generated numeric classes."""

    _native: ClassVar[np.dtype]
    _kind: ClassVar[str]

    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        return type(dtype) is cls.dtype_cls and dtype.newbyteorder("=") == cls._native

    def _check_scalar(self, data: Any) -> bool:
        if self._kind in ("int", "uint"):
            return isinstance(data, _INT_LIKE)
        if self._kind == "complex":
            return data is None or isinstance(data, _COMPLEX_LIKE)
        if isinstance(data, str):
            return float_text_ok(data)
        return isinstance(data, _FLOAT_LIKE)

    def _cast_unchecked(self, data: Any) -> Any:
        if self._kind not in ("int", "uint", "complex") and data in ("Infinity", "-Infinity"):
            data = float(data.replace("Infinity", "inf"))
        return self.to_native_dtype().type(data)


# zarr-python's IntLike, FloatLike and ComplexLike (what cast_scalar takes)
_INT_LIKE = (SupportsInt, SupportsIndex, bytes, str)
_FLOAT_LIKE = (SupportsIndex, SupportsFloat, bytes)
_COMPLEX_LIKE = (SupportsFloat, SupportsIndex, SupportsComplex, bytes, str)


@dataclass(frozen=True, kw_only=True)
class _Fixed(_Number):
    """A number type with one byte order (one byte, or an ml_dtypes type)."""

    def to_native_dtype(self) -> np.dtype:
        return self._native


@dataclass(frozen=True, kw_only=True)
class _Ordered(_Number, HasEndianness):
    """A multi-byte number type: its ``endianness`` is a field."""

    endianness: str = "little"

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        return {"endianness": endianness_of(dtype)}

    def to_native_dtype(self) -> np.dtype:
        return _ordered(self._native, self.endianness)


def _numeric_class(v3_name: str, native: np.dtype, kind: str) -> type:
    ordered = native.itemsize > 1 and native.name in _dtypes.CORE_DATA_TYPE_NAMES
    base = _Ordered if ordered else _Fixed
    name = class_name(v3_name)
    v2_names = (f">{native.str[1:]}", f"<{native.str[1:]}") if ordered else (native.str,)
    cls = type(name, (base,), {
        "__module__": "zarrhpc.core.dtype",
        "__qualname__": name,
        "__doc__": f"The Zarr data type ``{v3_name}`` (numpy ``{native}``).",
        "dtype_cls": type(native),
        "_zarr_v3_name": v3_name,
        "_zarr_v2_names": v2_names,
        "_native": native,
        "_kind": kind,
        "__annotations__": {},
    })
    return dataclass(frozen=True, kw_only=True)(cls)


def _numeric_classes() -> dict[str, type]:
    out = {}
    for name in _dtypes.CORE_DATA_TYPE_NAMES:
        if name == "bool":
            continue
        dt = _dtypes.parse_data_type(name, "zarrhpc.core.dtype")
        out[name] = _numeric_class(name, dt.dtype, dt.kind)
    for name in ML_NAMES:
        try:
            dt = _dtypes.parse_data_type(name, "zarrhpc.core.dtype")
        except Exception:  # noqa: BLE001 - an ml_dtypes without this type: no class
            continue
        out[name] = _numeric_class(name, dt.dtype, "float" if name in ML_FLOATS else dt.kind)
    return out


#: v3 name -> generated class, in zarrhpc's table order
NUMERIC: dict[str, type] = _numeric_classes()


@dataclass(frozen=True, kw_only=True)
class _ComplexPair(ZDType, HasItemSize):
    """A complex type of small floats (numpy ``[("real", T), ("imag", T)]``; see
    :mod:`zarrhpc.metadata.dtypes_cplx`)."""

    _native: ClassVar[np.dtype]

    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        if not isinstance(dtype, np.dtype) or dtype.fields is None:
            return False
        found = complex_pair_of(dtype)
        return found is not None and found.name == cls._zarr_v3_name

    def to_native_dtype(self) -> np.dtype:
        return self._native

    def _check_scalar(self, data: Any) -> bool:
        return data is None or isinstance(data, (*_COMPLEX_LIKE, list, tuple, np.void))

    def _cast_unchecked(self, data: Any) -> Any:
        return _dtypes.fill_value_from_user(self._data_type(), data, "cast_scalar")[()]


def _pair_classes() -> dict[str, type]:
    out = {}
    for name in COMPLEX_PAIR_NAMES:
        dt = complex_pair_type(name)
        if dt is None:  # pragma: no cover - an ml_dtypes without the part type
            continue
        cls_name = "Complex" + class_name(name[len("complex_"):])
        cls = type(cls_name, (_ComplexPair,), {
            "__module__": "zarrhpc.core.dtype", "__qualname__": cls_name,
            "__doc__": f"The zarr-extensions data type ``{name}``.",
            "dtype_cls": type(dt.dtype), "_zarr_v3_name": name, "_native": dt.dtype,
            "__annotations__": {}})
        out[name] = dataclass(frozen=True, kw_only=True)(cls)
    return out


#: v3 name -> generated class of the complex types of small floats
COMPLEX_PAIRS: dict[str, type] = _pair_classes()


# ---------------------------------------------------------------------------------------
# bytes and strings
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class NullTerminatedBytes(ZDType, HasItemSize):
    """Fixed-length byte strings (numpy ``S<length>``)."""

    dtype_cls: ClassVar[type] = type(np.dtype("S1"))
    _zarr_v3_name: ClassVar[str] = "null_terminated_bytes"
    length: int

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        return {"length": dtype.itemsize}

    def to_native_dtype(self) -> np.dtype:
        return np.dtype(f"S{self.length}")

    def _check_scalar(self, data: Any) -> bool:
        return isinstance(data, (bytes, str, int, np.bytes_))

    def _cast_unchecked(self, data: Any) -> Any:
        return np.asarray(data, dtype=self.to_native_dtype())[()]


@dataclass(frozen=True, kw_only=True)
class RawBytes(ZDType, HasItemSize):
    """Fixed-length raw bytes (numpy ``V<length>``); v3: zarrhpc writes ``r<8*length>``."""

    dtype_cls: ClassVar[type] = type(np.dtype("V1"))
    _zarr_v3_name: ClassVar[str] = "raw_bytes"
    length: int

    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        return type(dtype) is cls.dtype_cls and dtype.fields is None and dtype.type is np.void

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        return {"length": dtype.itemsize}

    def to_native_dtype(self) -> np.dtype:
        return np.dtype(f"V{self.length}")

    def _check_scalar(self, data: Any) -> bool:
        return isinstance(data, (bytes, bytearray, np.void))

    def _cast_unchecked(self, data: Any) -> Any:
        raw = bytes(data)[: self.length].ljust(self.length, b"\0")
        return np.frombuffer(raw, dtype=self.to_native_dtype())[0]


@dataclass(frozen=True, kw_only=True)
class FixedLengthUTF32(ZDType, HasEndianness, HasItemSize):
    """Fixed-length Unicode strings (numpy ``U<length>``)."""

    dtype_cls: ClassVar[type] = type(np.dtype("U1"))
    _zarr_v3_name: ClassVar[str] = "fixed_length_utf32"
    length: int
    endianness: str = "little"

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        return {"length": dtype.itemsize // 4, "endianness": endianness_of(dtype)}

    def to_native_dtype(self) -> np.dtype:
        return _ordered(np.dtype(f"U{self.length}"), self.endianness)

    def _check_scalar(self, data: Any) -> bool:
        return True  # zarr-python: str(data)

    def _cast_unchecked(self, data: Any) -> Any:
        return np.asarray(str(data), dtype=self.to_native_dtype())[()]


@dataclass(frozen=True, kw_only=True)
class VariableLengthUTF8(ZDType):
    """Variable-length UTF-8 strings (v3 ``string``, v2 ``|O`` + ``vlen-utf8``)."""

    dtype_cls: ClassVar[type] = type(_dtypes.data_type_from_numpy(str).dtype)
    _zarr_v3_name: ClassVar[str] = "string"
    _object_codec_id: ClassVar[str | None] = "vlen-utf8"

    @classmethod
    def _v3_names(cls) -> tuple[str, ...]:
        return ("string",)

    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        return type(dtype) is cls.dtype_cls and dtype.kind == "T"

    @classmethod
    def _from_json_native(cls, native: np.dtype, data: Any):
        if native.kind == "O":  # v2: '|O' with this class's object codec (checked)
            return cls()
        return super()._from_json_native(native, data)

    def to_native_dtype(self) -> np.dtype:
        return _dtypes.data_type_from_numpy(str).dtype

    def _dtype_like(self) -> Any:
        return str

    def _v2_native(self) -> np.dtype:
        return np.dtype(object)

    def _check_scalar(self, data: Any) -> bool:
        return True

    def _cast_unchecked(self, data: Any) -> Any:
        return str(data)

    def _scalar(self, value: np.ndarray) -> Any:
        return str(np.asarray(value)[()])

    def _as_fill(self, data: Any) -> np.ndarray:
        return np.asarray(self.cast_scalar(data), dtype=object)

    @property
    def item_size(self) -> int:
        raise AttributeError("VariableLengthUTF8 has no fixed item size")


@dataclass(frozen=True, kw_only=True)
class VariableLengthBytes(ZDType):
    """Variable-length byte strings (v3 ``variable_length_bytes``, v2 ``|O`` +
    ``vlen-bytes``)."""

    dtype_cls: ClassVar[type] = type(np.dtype(object))
    _zarr_v3_name: ClassVar[str] = "variable_length_bytes"
    _object_codec_id: ClassVar[str | None] = "vlen-bytes"

    @classmethod
    def _v3_names(cls) -> tuple[str, ...]:
        return ("variable_length_bytes",)

    def to_native_dtype(self) -> np.dtype:
        return np.dtype(object)

    def _dtype_like(self) -> Any:
        return bytes

    def _check_scalar(self, data: Any) -> bool:
        return isinstance(data, (bytes, bytearray, np.bytes_))

    def _cast_unchecked(self, data: Any) -> Any:
        return bytes(data)

    def _scalar(self, value: np.ndarray) -> Any:
        return bytes(np.asarray(value)[()])

    def _as_fill(self, data: Any) -> np.ndarray:
        out = np.empty((), dtype=object)
        out[()] = self.cast_scalar(data)
        return out

    @property
    def item_size(self) -> int:
        raise AttributeError("VariableLengthBytes has no fixed item size")


# ---------------------------------------------------------------------------------------
# datetimes
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Time(ZDType, HasEndianness, HasItemSize):
    endianness: str = "little"
    scale_factor: int = 1
    unit: str = "generic"
    _code: ClassVar[str]
    _scalar_types: ClassVar[tuple]

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        unit, count = np.datetime_data(dtype)
        return {"endianness": endianness_of(dtype), "scale_factor": count, "unit": unit}

    def to_native_dtype(self) -> np.dtype:
        unit = "" if self.unit == "generic" else f"[{self.scale_factor}{self.unit}]"
        return _ordered(np.dtype(f"{self._code}8{unit}"), self.endianness)

    def _check_scalar(self, data: Any) -> bool:
        return data is None or isinstance(data, (str, int, bytes, *self._scalar_types))

    def _cast_unchecked(self, data: Any) -> Any:
        native = self.to_native_dtype()
        if self.unit == "generic":
            return native.type(data)
        return native.type(data, f"{self.scale_factor}{self.unit}")


@dataclass(frozen=True, kw_only=True)
class DateTime64(_Time):
    """numpy ``datetime64`` (``numpy.datetime64`` in v3)."""

    dtype_cls: ClassVar[type] = type(np.dtype("M8[s]"))
    _zarr_v3_name: ClassVar[str] = "numpy.datetime64"
    _zarr_v2_names: ClassVar[tuple[str, ...]] = (">M8", "<M8")
    _code: ClassVar[str] = "M"
    _scalar_types: ClassVar[tuple] = (np.datetime64, datetime.datetime)


@dataclass(frozen=True, kw_only=True)
class TimeDelta64(_Time):
    """numpy ``timedelta64`` (``numpy.timedelta64`` in v3)."""

    dtype_cls: ClassVar[type] = type(np.dtype("m8[s]"))
    _zarr_v3_name: ClassVar[str] = "numpy.timedelta64"
    _zarr_v2_names: ClassVar[tuple[str, ...]] = (">m8", "<m8")
    _code: ClassVar[str] = "m"
    _scalar_types: ClassVar[tuple] = (np.timedelta64, datetime.timedelta)


# ---------------------------------------------------------------------------------------
# structured
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Structured(ZDType, HasItemSize):
    """numpy structured types: ``fields`` is ``((name, ZDType), ...)``."""

    dtype_cls: ClassVar[type] = type(np.dtype([("a", "i1")]))
    _zarr_v3_name: ClassVar[str] = "structured"
    fields: tuple

    @classmethod
    def _v3_names(cls) -> tuple[str, ...]:
        # Struct is not in the registry (zarr-python 3.1's has no such entry): this class
        # reads both names and hands out a Struct for "struct"
        return ("structured", "struct")

    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        return isinstance(dtype, np.dtype) and dtype.fields is not None and (
            complex_pair_of(dtype) is None)

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        from zarrhpc.core.dtype import get_data_type_from_native_dtype

        fields = []
        for name in dtype.names:
            fdt, offset = dtype.fields[name][:2]
            fields.append((name, get_data_type_from_native_dtype(fdt)))
        return {"fields": tuple(fields)}

    @classmethod
    def _from_json_native(cls, native: np.dtype, data: Any):
        if isinstance(data, dict) and data.get("name") == "struct":
            return Struct.from_native_dtype(native)
        return cls.from_native_dtype(native)

    def to_native_dtype(self) -> np.dtype:
        return np.dtype([(name, zd.to_native_dtype()) for name, zd in self.fields])

    def _data_type(self):
        return _dtypes.data_type_from_numpy(little(self.to_native_dtype()))

    def _check_scalar(self, data: Any) -> bool:
        return isinstance(data, (bytes, list, tuple, int, np.void))

    def _cast_unchecked(self, data: Any) -> Any:
        native = self.to_native_dtype()
        if isinstance(data, bytes):
            return np.frombuffer(data, dtype=native)[0]
        if isinstance(data, int):
            return np.array(data).astype(native)[()]
        return np.array(tuple(data), dtype=native)[()]


@dataclass(frozen=True, kw_only=True)
class Struct(Structured):
    """A structured type in zarr-extensions' ``struct`` form (zarr-python 3.2's
    ``zarr.dtype.Struct``): ``{"name": "struct", "configuration": {"fields": [{"name",
    "data_type"}, ...]}}`` and a fill value per field. :class:`Structured` (what numpy
    structured dtypes become) writes zarr-python 3.1's ``structured``, which every
    zarr-python 3 reads; ``struct`` needs zarr-python 3.2+ (see
    :mod:`zarrhpc.metadata.dtypes_ext`)."""

    _zarr_v3_name: ClassVar[str] = "struct"

    def _data_type(self):
        return _dtypes.DataType("struct", super()._data_type().dtype)

    def _dtype_like(self) -> Any:
        return self._data_type()  # create_array keeps the name (np.dtype() reads it too)

