"""The :class:`ZDType` base class: zarr-python 3's data-type wrapper, over zarrhpc's tables.

zarr-python 3 describes every data type by an instance of a ``ZDType`` subclass
(``Int16(endianness='little')``, ``FixedLengthUTF32(length=3, endianness='little')``...)
that converts between the numpy dtype, the JSON forms of Zarr v2 and v3 and the scalars
(fill values). zarrhpc keeps one table of those facts: :mod:`zarrhpc.metadata.dtypes` (v3
names, JSON forms of fill values, exact bits) and :mod:`zarrhpc.metadata.v2` (v2 type
strings and fill values). The classes here hold only what zarr-python's constructors take
(endianness, length, unit...), build the numpy dtype from it, and ask those modules for
every JSON form, so a data type written through a ZDType is the one zarrhpc writes.

Life cycle: a ZDType is made by ``from_native_dtype`` (a numpy dtype), ``from_json`` (a
``zarr.json`` / ``.zarray`` member) or its constructor, and is immutable and hashable. The
one thing ruled here and not in ``metadata/`` is ``cast_scalar``: it follows zarr-python's
lenient casting of Python objects (``Int8().cast_scalar(1.5)`` is ``np.int8(1)``), which is
an API rule, not a storage fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from zarrhpc.errors import DataTypeValidationError, MetadataError, UnsupportedError
from zarrhpc.metadata import dtypes as _dtypes
from zarrhpc.metadata import v2 as _v2
from zarrhpc.metadata.dtype_base import DataType

__all__ = ["HasEndianness", "HasItemSize", "ZDType", "endianness_of"]

_FORMATS = (2, 3)


def endianness_of(dtype: np.dtype) -> str | None:
    """zarr-python's endianness word of a numpy dtype: ``"little"``, ``"big"`` or None
    (one byte or no byte order)."""
    order = dtype.byteorder
    if order == "|":
        return None
    if order == "=":
        return "little" if np.little_endian else "big"
    return "little" if order == "<" else "big"


def _check_format(zarr_format: Any) -> None:
    if zarr_format not in _FORMATS:
        raise ValueError(f"zarr_format must be 2 or 3, got {zarr_format}")


@dataclass(frozen=True, kw_only=True)
class ZDType:
    """A Zarr data type, as zarr-python 3's ``zarr.core.dtype.ZDType``.

    Subclasses set ``dtype_cls`` (the numpy dtype class), ``_zarr_v3_name`` and
    ``_zarr_v2_names``, and implement :meth:`to_native_dtype`, :meth:`_params` and
    :meth:`cast_scalar`; every JSON form comes from zarrhpc's data-type tables.
    """

    dtype_cls: ClassVar[type]
    _zarr_v3_name: ClassVar[str]
    _zarr_v2_names: ClassVar[tuple[str, ...]] = ()
    _object_codec_id: ClassVar[str | None] = None

    def __class_getitem__(cls, item):  # ``ZDType[TDType, TScalar]`` in annotations
        return cls

    # -- numpy ---------------------------------------------------------------------------
    @classmethod
    def _check_native_dtype(cls, dtype: Any) -> bool:
        return type(dtype) is cls.dtype_cls

    @classmethod
    def _params(cls, dtype: np.dtype) -> dict:
        """Constructor arguments for ``dtype`` (already checked to be of this class)."""
        return {}

    @classmethod
    def from_native_dtype(cls, dtype: Any):
        """The instance of this class wrapping ``dtype``.

        Raises
        ------
        DataTypeValidationError
            ``dtype`` is not of this class's numpy dtype class.
        """
        if cls._check_native_dtype(dtype):
            return cls(**cls._params(dtype))
        raise DataTypeValidationError(
            f"Invalid data type: {dtype}. Expected an instance of {cls.dtype_cls}")

    def to_native_dtype(self) -> np.dtype:  # pragma: no cover - every subclass has one
        """The numpy dtype this instance wraps."""
        raise NotImplementedError

    def _data_type(self) -> DataType:
        """zarrhpc's :class:`~zarrhpc.metadata.dtypes.DataType` (the v3 facts)."""
        return _dtypes.data_type_from_numpy(self._dtype_like())

    def _dtype_like(self) -> Any:
        """What ``create_array(dtype=...)`` takes for this type."""
        return self.to_native_dtype()

    @property
    def item_size(self) -> int:
        """Bytes per element (fixed-size types only)."""
        return self.to_native_dtype().itemsize

    # -- JSON of the type ----------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any, *, zarr_format: int):
        """The instance described by the ``data_type`` (v3) or ``{"name", "object_codec_id"}``
        (v2) JSON form ``data``.

        Raises
        ------
        DataTypeValidationError
            ``data`` does not describe this class.
        """
        _check_format(zarr_format)
        try:
            if zarr_format == 3:
                dt = _dtypes.parse_data_type(data, "data_type")
                native = dt.dtype
            else:
                native = cls._native_from_v2(data)
        except (MetadataError, UnsupportedError, TypeError) as exc:
            raise DataTypeValidationError(
                f"Invalid JSON representation of {cls.__name__}. Got {data!r}: {exc}") from None
        if zarr_format == 3 and cls._v3_names() and dt.name not in cls._v3_names():
            raise DataTypeValidationError(
                f"Invalid JSON representation of {cls.__name__}. Got {data!r}, expected "
                f"{cls._zarr_v3_name!r}")
        return cls._from_json_native(native, data)

    @classmethod
    def _v3_names(cls) -> tuple[str, ...]:
        """zarrhpc's v3 names that read as this class (empty: decided by the dtype)."""
        return ()

    @classmethod
    def _from_json_native(cls, native: np.dtype, data: Any):
        try:
            return cls.from_native_dtype(native)
        except DataTypeValidationError:
            raise DataTypeValidationError(
                f"Invalid JSON representation of {cls.__name__}. Got {data!r}") from None

    @classmethod
    def _native_from_v2(cls, data: Any) -> np.dtype:
        if not (isinstance(data, dict) and set(data) == {"name", "object_codec_id"}):
            raise TypeError("expected {'name': ..., 'object_codec_id': ...}")
        if data["object_codec_id"] != cls._object_codec_id:
            raise TypeError(f"object_codec_id {data['object_codec_id']!r}")
        return _v2.dtype_from_json_v2(data["name"], "dtype")

    def to_json(self, zarr_format: int) -> Any:
        """The JSON form: ``{"name": <v2 type>, "object_codec_id": ...}`` for v2, the
        ``data_type`` member zarrhpc writes for v3."""
        _check_format(zarr_format)
        if zarr_format == 3:
            return self._data_type().to_json()
        return {"name": _v2.dtype_to_json_v2(self._v2_native()),
                "object_codec_id": self._object_codec_id}

    def _v2_native(self) -> np.dtype:
        return self.to_native_dtype()

    # -- scalars -------------------------------------------------------------------------
    def _check_scalar(self, data: Any) -> bool:  # pragma: no cover - subclasses decide
        raise NotImplementedError

    def _cast_unchecked(self, data: Any) -> Any:
        return self.to_native_dtype().type(data)

    def cast_scalar(self, data: Any) -> Any:
        """``data`` as a scalar of this type (zarr-python's lenient casting rules).

        Raises
        ------
        TypeError
            ``data`` cannot stand for a value of this type.
        """
        if self._check_scalar(data):
            return self._cast_unchecked(data)
        raise TypeError(f"Cannot convert object {data!r} with type {type(data)} to a scalar "
                        f"compatible with the data type {self}.")

    def default_scalar(self) -> Any:
        """The default fill value of this type (zarrhpc's, as it writes it)."""
        return self._scalar(_dtypes.fill_value_from_user(self._data_type(), None))

    def _scalar(self, value: np.ndarray) -> Any:
        """A 0-d array of zarrhpc's form -> the scalar zarr-python returns."""
        return np.asarray(value).astype(self.to_native_dtype())[()]

    def _as_fill(self, data: Any) -> np.ndarray:
        value = self.cast_scalar(data)
        return np.asarray(value, dtype=self.to_native_dtype())

    def to_json_scalar(self, data: Any, *, zarr_format: int) -> Any:
        """The JSON form of ``data`` (cast first) as a fill value of this type."""
        _check_format(zarr_format)
        value = self._as_fill(data)
        if zarr_format == 3:
            dt = self._data_type()
            return _dtypes.fill_value_to_json(dt, value.astype(dt.dtype))
        if value.dtype.fields is None and value.dtype.kind != "O":
            value = value.astype(value.dtype.newbyteorder("="))  # as v2 documents hold it
        return _v2.fill_value_to_json_v2(self._v2_native(), value)

    def from_json_scalar(self, data: Any, *, zarr_format: int) -> Any:
        """The scalar a JSON fill value ``data`` stands for.

        Raises
        ------
        TypeError
            ``data`` is not a valid fill value of this type.
        """
        _check_format(zarr_format)
        dt = self._data_type()
        try:
            if zarr_format == 3:
                value = _dtypes.parse_fill_value(dt, data, "fill_value")
            else:
                if data is None:
                    raise TypeError(f"Invalid type: {data}. Expected a fill value of {self}")
                value = _v2.parse_fill_value_v2(self._v2_native(), dt, data, "fill_value")
        except MetadataError as exc:
            raise TypeError(f"Invalid type: {data!r}. {exc}") from None
        return self._scalar(value)


class HasEndianness:
    """Marker of the types with an ``endianness`` field (zarr-python's name)."""


class HasItemSize:
    """Marker of the fixed-size types (zarr-python's name)."""


def is_floatish_str(data: Any) -> bool:
    """zarr-python reads these strings as floats too."""
    if not isinstance(data, str):
        return False
    try:
        float(data)
    except ValueError:
        return False
    return True


def float_text_ok(data: Any) -> bool:
    return isinstance(data, str) and (is_floatish_str(data) or data in ("NaN", "Infinity",
                                                                       "-Infinity"))

