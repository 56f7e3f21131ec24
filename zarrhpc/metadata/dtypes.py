"""Zarr v3 core data types and their fill values.

Spec: zarr-specs docs/v3/data-types/index.rst (core 3.0/3.1): ``bool``, ``int8`` ..
``uint64``, ``float16``/``32``/``64``, ``complex64``/``128`` and the raw bit types
``r8``, ``r16``, ``r24``, ... (any multiple of 8 bits).

Life cycle: a :class:`DataType` is made once, either from the ``data_type`` member of a
``zarr.json`` (:func:`parse_data_type`) or from what a user passes as ``dtype``
(:func:`data_type_from_numpy`), and is then immutable and shared. Fill values live as 0-d
numpy arrays of ``DataType.dtype`` (native byte order) holding the exact bit pattern:

- :func:`parse_fill_value` reads the JSON form of a document (strict, spec forms only);
- :func:`fill_value_from_user` converts what a user gives to ``create_array`` (lenient:
  Python and numpy scalars, ``None`` for zero, and the JSON forms as well);
- :func:`fill_value_to_json` writes the canonical JSON form: integers as JSON integers,
  floats as JSON numbers (``0.0``), the canonical quiet NaN as ``"NaN"``, any other NaN
  as a ``"0x..."`` bit pattern, infinities as ``"Infinity"``/``"-Infinity"``, complex
  numbers as ``[re, im]``, raw types as a list of byte values. This matches what
  zarr-python 3 writes, except that zarr-python writes every NaN as ``"NaN"`` (losing the
  payload) where the spec requires the hex form.

Errors are :class:`~zarrhpc.errors.MetadataError` (bad JSON values, bad user values) and
:class:`~zarrhpc.errors.UnsupportedError` (valid numpy types with no v3 core equivalent:
object, strings, datetimes, structured types, long double).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from zarrhpc.errors import (
    DataTypeNotUnderstoodError,
    FillValueRangeError,
    MetadataError,
    UnsupportedError,
)
from zarrhpc.metadata import dtype_base as _base
from zarrhpc.metadata import dtypes_cplx as _cx
from zarrhpc.metadata import dtypes_ext as _ext
from zarrhpc.metadata import dtypes_ml as _ml
from zarrhpc.metadata import dtypes_opt as _opt
from zarrhpc.metadata.dtype_base import DataType, _show
from zarrhpc.metadata.loose import loose_base64, loose_float, loose_hex_float, loose_int

__all__ = [
    "CORE_DATA_TYPE_NAMES",
    "DataType",
    "data_type_from_numpy",
    "fill_value_from_user",
    "fill_value_to_json",
    "parse_data_type",
    "parse_fill_value",
]

_RAW_RE = re.compile(r"^r([1-9][0-9]*)$")

# v3 name -> numpy type code (native byte order)
_CORE = {
    "bool": "?",
    "int8": "i1",
    "int16": "i2",
    "int32": "i4",
    "int64": "i8",
    "uint8": "u1",
    "uint16": "u2",
    "uint32": "u4",
    "uint64": "u8",
    "float16": "f2",
    "float32": "f4",
    "float64": "f8",
    "complex64": "c8",
    "complex128": "c16",
}
CORE_DATA_TYPE_NAMES: tuple[str, ...] = tuple(_CORE)

# bit pattern of the canonical quiet NaN ("NaN" in the spec): sign 0, mantissa MSB 1.
_CANONICAL_NAN = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
_UINT_OF_SIZE = {2: np.dtype("u2"), 4: np.dtype("u4"), 8: np.dtype("u8")}


_CORE_TYPES = {name: DataType(name, np.dtype(code)) for name, code in _CORE.items()}
_BY_KIND_SIZE = {(t.dtype.kind, t.itemsize): t for t in _CORE_TYPES.values()}


def _raw_type(bits: int) -> DataType:
    return DataType(f"r{bits}", np.dtype(f"V{bits // 8}"))


def _lookup_name(name: str) -> DataType | None:
    if name in _CORE_TYPES:
        return _CORE_TYPES[name]
    if name in _ml.ALIASES:
        return _CORE_TYPES[_ml.ALIASES[name]]
    if name in _ml.ML_NAMES:
        return _ml.ml_data_type(name)
    if name in _cx.COMPLEX_PAIR_NAMES:
        return _cx.complex_pair_type(name)
    m = _RAW_RE.match(name)
    if m is not None and int(m.group(1)) % 8 == 0:
        return _raw_type(int(m.group(1)))
    return None


def parse_data_type(obj: Any, doc: str) -> DataType:
    """Read the ``data_type`` member of a v3 array document.

    Parameters
    ----------
    obj : str or dict
        A short-hand name (``"float32"``) or an extension object ``{"name": "float32"}``;
        core types take no configuration, and ``must_understand: false`` is not allowed.
    doc : str
        The store key of the document, e.g. ``"a/b/zarr.json"``; prefixes every message.

    Returns
    -------
    DataType

    Raises
    ------
    MetadataError
        Wrong JSON type, unknown name, or a forbidden member.
    """
    field = "data_type"
    name = obj
    if isinstance(obj, dict):
        unknown = sorted(set(obj) - {"name", "configuration", "must_understand"})
        if unknown:
            raise MetadataError(
                f"{doc}: {field}: unexpected member {unknown[0]!r} in the extension object "
                f"(allowed: name, configuration, must_understand), got {_show(obj)}"
            )
        if "must_understand" in obj and obj["must_understand"] is not True:
            raise MetadataError(
                f"{doc}: {field}: must_understand must be true or absent for a data type "
                f"(the spec forbids must_understand: false here), got "
                f"{_show(obj['must_understand'])}"
            )
        if "name" not in obj:
            raise MetadataError(f"{doc}: {field}: missing member 'name', got {_show(obj)}")
        name = obj["name"]
    if not isinstance(name, str):
        raise MetadataError(
            f"{doc}: {field}: expected a data type name (string) or an object with 'name', "
            f"got {_show(obj)}"
        )
    if name == "optional":
        return _opt.parse_optional(obj, doc, parse_data_type)
    dt = _lookup_name(name)
    if dt is None and name in _ext.VLEN_NAMES:
        name = _ext.VLEN_NAMES[name]
    if dt is None and name in _ext.EXTENSION_NAMES:
        return _ext.parse_ext_data_type(
            name, obj.get("configuration") if isinstance(obj, dict) else None, doc,
            parse_data_type,
        )
    if dt is None and name in _cx.COMPLEX_PAIR_NAMES:
        raise UnsupportedError(
            f"{doc}: {field}: data type {name!r} is not supported: the installed ml_dtypes "
            f"has no {name[8:]} type for its parts")
    if dt is None:
        raise MetadataError(
            f"{doc}: {field}: unknown data type {name!r}; expected one of "
            f"{', '.join(CORE_DATA_TYPE_NAMES)} or r<N> with N a multiple of 8"
        )
    if isinstance(obj, dict) and obj.get("configuration", {}) != {}:
        raise MetadataError(
            f"{doc}: {field}: the core data type {name!r} takes no configuration, "
            f"got {_show(obj['configuration'])}"
        )
    return dt


def data_type_from_numpy(dtype_like: Any) -> DataType:
    """The v3 data type for what a user passes as ``dtype``.

    Parameters
    ----------
    dtype_like : numpy.dtype, type, str or DataType
        ``np.dtype("f4")``, ``np.float32``, ``float``, ``"f4"``, ``"<f8"``, ``">i2"``,
        ``"float32"``, ``"r16"``, ``"V2"``, ... Byte order is ignored: the stored type is
        the v3 type, the byte order of chunks is the ``bytes`` codec's business.

    Returns
    -------
    DataType

    Raises
    ------
    MetadataError
        ``dtype_like`` is not a data type at all.
    UnsupportedError
        A numpy type with no Zarr v3 core equivalent (object, str, bytes, datetime,
        timedelta, structured, sub-array, long double, ...).
    """
    if isinstance(dtype_like, DataType):
        return dtype_like
    if dtype_like is None:
        # np.dtype(None) is float64; a missing dtype is a caller's mistake, not a default.
        raise MetadataError("dtype: expected a numpy dtype or a Zarr v3 data type name, got None")
    if dtype_like is str or dtype_like is bytes:  # zarr-python: variable-length types
        return _ext.vlen_data_type("string" if dtype_like is str else "variable_length_bytes")
    if isinstance(dtype_like, str):
        dt = _lookup_name(dtype_like)
        if dt is not None:
            return dt
        if dtype_like in ("str", "string", "variable_length_utf8", "variable_length_bytes"):
            return _ext.vlen_data_type("string" if dtype_like == "str" else dtype_like)
    try:
        npdt = np.dtype(dtype_like)
    except TypeError as exc:  # numpy's words, as zarr-python passes them on
        raise DataTypeNotUnderstoodError(str(exc)) from None
    except ValueError as exc:
        raise MetadataError(
            f"dtype: expected a numpy dtype, a numpy type or a Zarr v3 data type name, "
            f"got {dtype_like!r} ({exc})"
        ) from None
    found = _ml.ml_data_type_of(npdt)  # ml_dtypes types (bfloat16, float8_*, int4, ...)
    if found is not None:
        return found
    if npdt.fields is not None:  # [("real", T), ("imag", T)]: complex_bfloat16, ...
        found = _cx.complex_pair_of(npdt)
        if found is not None:
            return found
    if npdt.kind in "biufc" and npdt.fields is None and npdt.subdtype is None:
        found = _BY_KIND_SIZE.get((npdt.kind, npdt.itemsize))
        if found is not None:
            return found
    elif (
        npdt.kind == "V"
        and npdt.type is np.void
        and npdt.fields is None
        and npdt.subdtype is None
        and npdt.itemsize > 0
    ):
        return _raw_type(npdt.itemsize * 8)
    else:
        found = _ext.ext_data_type_from_numpy(npdt)
        if found is not None:
            return found
    raise UnsupportedError(
        f"dtype: {dtype_like!r} (numpy {npdt.str}) has no Zarr v3 core data type; "
        f"supported: {', '.join(CORE_DATA_TYPE_NAMES)} and raw bytes r<N> (numpy V<n>)"
    )


# ---------------------------------------------------------------------------------------
# fill values: JSON -> exact bits
# ---------------------------------------------------------------------------------------


def _component_dtype(dt: DataType) -> np.dtype:
    """The float dtype of one component (the type itself for floats)."""
    if dt.kind == "complex":
        return np.dtype(f"f{dt.itemsize // 2}")
    return dt.dtype


def _float_from_bits(fdt: np.dtype, bits: int) -> np.ndarray:
    return np.array(bits, dtype=_UINT_OF_SIZE[fdt.itemsize]).view(fdt).reshape(())


def _float_from_number(fdt: np.dtype, value: float | int) -> np.ndarray:
    """Round a JSON number to the nearest value of ``fdt`` (overflow gives +-inf)."""
    if isinstance(value, int):
        try:
            value = float(value)
        except OverflowError:
            value = math.inf if value > 0 else -math.inf
    with np.errstate(over="ignore"):
        return np.array(value, dtype=fdt)


def _float_from_string(fdt: np.dtype, text: str) -> np.ndarray | None:
    """The spec's string forms of a float; None when ``text`` is none of them."""
    if text == "NaN":
        return _float_from_bits(fdt, _CANONICAL_NAN[fdt.itemsize])
    if text == "Infinity":
        return np.array(np.inf, dtype=fdt)
    if text == "-Infinity":
        return np.array(-np.inf, dtype=fdt)
    ndigits = 2 * fdt.itemsize
    if re.fullmatch(rf"0x[0-9a-fA-F]{{{ndigits}}}", text):
        return _float_from_bits(fdt, int(text[2:], 16))
    return None


def _float_forms(fdt: np.dtype) -> str:
    return (
        f"a JSON number, 'NaN', 'Infinity', '-Infinity' or '0x' followed by exactly "
        f"{2 * fdt.itemsize} hex digits"
    )


def _parse_float_json(fdt: np.dtype, obj: Any, doc: str, field: str, tname: str) -> np.ndarray:
    if isinstance(obj, (int, float)) and not isinstance(obj, bool) and (
            not isinstance(obj, float) or math.isfinite(obj)):
        return _float_from_number(fdt, obj)
    if isinstance(obj, str):
        out = _float_from_string(fdt, obj)
        if out is None:  # "0x7fc00000" for a float64: zarr-python reads it by value
            out = loose_hex_float(obj, fdt)
        if out is not None:
            return out
    value = loose_float(obj)  # true, a bare NaN literal, "1.5", "nan" (zarr-python reads them)
    if value is not None:
        return _float_from_number(fdt, value)
    raise MetadataError(
        f"{doc}: {field}: expected {_float_forms(fdt)} for {tname}, got {_show(obj)}"
    )


def _complex_from_parts(dt: DataType, re_part: np.ndarray, im_part: np.ndarray) -> np.ndarray:
    parts = np.concatenate([re_part.reshape(1), im_part.reshape(1)])
    return parts.view(dt.dtype).reshape(()).copy()


def _int_range(dt: DataType) -> tuple[int, int]:
    info = np.iinfo(dt.dtype)
    return int(info.min), int(info.max)


def parse_fill_value(dt: DataType, obj: Any, doc: str) -> np.ndarray:
    """Read the ``fill_value`` member of a v3 array document.

    Parameters
    ----------
    dt : DataType
        The array's data type.
    obj : JSON value
        bool: ``true``/``false``; integers: a JSON integer in range; floats: a number,
        ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` or ``"0x..."`` (exactly the type's
        size); complex: ``[re, im]`` with float forms; ``r<N>``: a list of N/8 byte
        values.
    doc : str
        The store key of the document; prefixes every message.

    Returns
    -------
    numpy.ndarray
        0-d, dtype ``dt.dtype``, with the exact bit pattern.

    Raises
    ------
    MetadataError
        The value has the wrong form or is out of range for ``dt``.
    """
    field = "fill_value"
    if _opt.is_optional(dt):
        return _opt.parse_optional_fill(dt, obj, doc, parse_fill_value)
    if _cx.is_complex_pair(dt):
        return _cx.parse_pair_fill(dt, obj, doc, _pair_part(dt), parse_fill_value)
    if dt.is_extension:
        return _ext.parse_ext_fill_value(dt, obj, doc, parse_fill_value, data_type_from_numpy)
    if _ml.is_ml(dt):
        return _ml.parse_ml_fill(dt, obj, doc)
    kind = dt.kind
    if kind == "bool":
        if type(obj) is int and obj in (0, 1):
            obj = bool(obj)  # as zarr-python reads it
        if not isinstance(obj, bool):
            raise MetadataError(
                f"{doc}: {field}: expected true or false for bool, got {_show(obj)}"
            )
        return np.array(obj, dtype=dt.dtype)
    if kind in ("int", "uint"):
        lo, hi = _int_range(dt)
        # read liberally where the meaning is clear, as zarr-python does: true/false,
        # integral floats (3.0) and digit strings ("42") that some writers put here
        if not isinstance(obj, int) or isinstance(obj, bool):
            obj = loose_int(obj) if loose_int(obj) is not None else obj
        if not isinstance(obj, int) or isinstance(obj, bool):
            raise MetadataError(
                f"{doc}: {field}: expected a JSON integer (no fraction or exponent) in "
                f"[{lo}, {hi}] for {dt.name}, got {_show(obj)}"
            )
        if not lo <= obj <= hi:
            raise MetadataError(
                f"{doc}: {field}: expected an integer in [{lo}, {hi}] for {dt.name}, got {obj}"
            )
        return np.array(obj, dtype=dt.dtype)
    if kind == "float":
        return _parse_float_json(dt.dtype, obj, doc, field, dt.name)
    if kind == "complex":
        fdt = _component_dtype(dt)
        if not isinstance(obj, (list, tuple)) or len(obj) != 2:
            raise MetadataError(
                f"{doc}: {field}: expected a two-element array [re, im] for {dt.name}, "
                f"got {_show(obj)}"
            )
        re_part = _parse_float_json(fdt, obj[0], doc, f"{field}[0]", dt.name)
        im_part = _parse_float_json(fdt, obj[1], doc, f"{field}[1]", dt.name)
        return _complex_from_parts(dt, re_part, im_part)
    # raw
    n = dt.itemsize
    raw = loose_base64(obj)
    if raw is not None and len(raw) == n:  # zarr-python's raw_bytes form, exact size
        obj = list(raw)
    if (
        not isinstance(obj, (list, tuple))
        or len(obj) != n
        or not all(isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 255 for b in obj)
    ):
        raise MetadataError(
            f"{doc}: {field}: expected an array of {n} integers in [0, 255] for {dt.name}, "
            f"got {_show(obj)}"
        )
    return np.frombuffer(bytes(obj), dtype=dt.dtype).reshape(()).copy()


# ---------------------------------------------------------------------------------------
# fill values: exact bits -> canonical JSON
# ---------------------------------------------------------------------------------------


def _float_to_json(value: np.ndarray) -> float | str:
    """Canonical JSON of a 0-d float array (float16/32/64)."""
    x = value[()]
    if np.isnan(x):
        bits = int(value.view(_UINT_OF_SIZE[value.dtype.itemsize])[()])
        if bits == _CANONICAL_NAN[value.dtype.itemsize]:
            return "NaN"
        return f"0x{bits:0{2 * value.dtype.itemsize}x}"
    if np.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


def fill_value_to_json(dt: DataType, value: Any) -> Any:
    """The canonical JSON form of a fill value.

    Parameters
    ----------
    dt : DataType
        The array's data type.
    value : numpy.ndarray or scalar
        Normally the 0-d array from :func:`parse_fill_value` or
        :func:`fill_value_from_user`; anything else goes through
        :func:`fill_value_from_user` first.

    Returns
    -------
    bool, int, float, str or list
        Integers stay JSON integers, floats are JSON numbers (``0.0``), the canonical
        quiet NaN is ``"NaN"``, other NaN payloads ``"0x..."``, infinities
        ``"Infinity"``/``"-Infinity"``, complex ``[re, im]``, raw a list of byte values.
        Never a non-finite float, so ``json.dumps(allow_nan=False)`` always works.
    """
    arr = value
    if not (isinstance(arr, np.ndarray) and arr.shape == () and arr.dtype == dt.dtype):
        arr = fill_value_from_user(dt, value)
    if _opt.is_optional(dt):
        return _opt.optional_fill_to_json(dt, arr, fill_value_to_json)
    if _cx.is_complex_pair(dt):
        return _cx.pair_fill_to_json(dt, arr, _pair_part(dt), fill_value_to_json)
    if dt.name == "struct":  # zarr-extensions struct: one value per field (MUST)
        out = {}
        for n in dt.dtype.names:
            fdt = data_type_from_numpy(dt.dtype.fields[n][0].newbyteorder("="))
            if fdt.name == "structured":  # a nested struct: values per field too
                fdt = DataType("struct", fdt.dtype)
            out[n] = fill_value_to_json(fdt, arr[n])
        return out
    if dt.is_extension:
        return _ext.ext_fill_to_json(dt, arr)
    if _ml.is_ml(dt):
        return _ml.ml_fill_to_json(dt, arr)
    kind = dt.kind
    if kind == "bool":
        return bool(arr[()])
    if kind in ("int", "uint"):
        return int(arr[()])
    if kind == "float":
        return _float_to_json(arr)
    if kind == "complex":
        parts = np.ascontiguousarray(arr).reshape(1).view(_component_dtype(dt))
        return [_float_to_json(parts[0:1].reshape(())), _float_to_json(parts[1:2].reshape(()))]
    return list(np.ascontiguousarray(arr).tobytes())


# ---------------------------------------------------------------------------------------
# fill values: user input -> exact bits
# ---------------------------------------------------------------------------------------


def _user_float(fdt: np.dtype, value: Any, doc: str, tname: str) -> np.ndarray:
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, np.floating) and value.dtype == fdt:
        return np.array(value, dtype=fdt)  # same type: keep the exact bits
    if isinstance(value, str):
        out = _float_from_string(fdt, value)
        if out is not None:
            return out
    elif isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
        if isinstance(value, (np.integer, np.bool_)):
            value = int(value)
        if isinstance(value, int):
            return _float_from_number(fdt, value)
        with np.errstate(over="ignore"):
            return np.array(value, dtype=fdt)
    raise MetadataError(
        f"{doc}: fill_value: expected a real number, 'NaN', 'Infinity', '-Infinity' or "
        f"'0x' followed by {2 * fdt.itemsize} hex digits for {tname}, got {value!r}"
    )


def fill_value_from_user(dt: DataType, value: Any, doc: str = "create_array") -> np.ndarray:
    """Convert a user's ``fill_value`` argument to the exact 0-d array.

    Parameters
    ----------
    dt : DataType
        The array's data type.
    value : Any
        ``None`` (zero, ``False`` or zero bytes); a Python or numpy scalar or 0-d array;
        a float JSON form (``"NaN"``, ``"Infinity"``, ``"0x7fc00000"``); ``[re, im]`` or a
        Python complex for complex types; ``bytes`` or a list of byte values for raw types.
        Finite floats are truncated towards zero for integer types (as zarr-python);
        values out of range are refused.
    doc : str, optional
        Prefix of error messages (the caller, or the document being built).

    Returns
    -------
    numpy.ndarray
        0-d, dtype ``dt.dtype``.

    Raises
    ------
    MetadataError
        The value cannot represent an element of ``dt`` exactly (integers) or at all.
    """
    if _opt.is_optional(dt):
        return _opt.optional_fill_from_user(dt, value, doc, fill_value_from_user)
    if _cx.is_complex_pair(dt):
        return _cx.pair_fill_from_user(dt, value, doc, _pair_part(dt), fill_value_from_user)
    if dt.is_extension:
        return _ext.ext_fill_from_user(dt, value, doc)
    if _ml.is_ml(dt):
        return _ml.ml_fill_from_user(dt, value, doc)
    if value is None:
        return np.zeros((), dtype=dt.dtype)
    if isinstance(value, np.ndarray):
        if value.shape != ():
            raise MetadataError(
                f"{doc}: fill_value: expected a scalar or 0-d array, got an array of "
                f"shape {value.shape}"
            )
        if value.dtype == dt.dtype:
            return value.copy()
        if dt.kind != "raw":
            value = value[()]
    kind = dt.kind
    if kind == "bool":
        if isinstance(value, (bool, np.bool_)) or (
            isinstance(value, (int, np.integer)) and int(value) in (0, 1)
        ):
            return np.array(bool(value), dtype=dt.dtype)
        raise MetadataError(f"{doc}: fill_value: expected True or False for bool, got {value!r}")
    if kind in ("int", "uint"):
        lo, hi = _int_range(dt)
        ivalue = None
        if isinstance(value, (bool, int, np.integer, np.bool_)):
            ivalue = int(value)
        elif isinstance(value, (float, np.floating)) and math.isfinite(value):
            # truncated towards zero, as zarr-python (and numpy's cast) take 22.5 -> 22
            ivalue = int(value)
        elif isinstance(value, (float, np.floating)) and math.isinf(value):
            ivalue = math.inf  # out of every range: OverflowError, as zarr-python's int()
        if ivalue is None or not lo <= ivalue <= hi:
            # an integer out of range: OverflowError too, as zarr-python (numpy) raises
            cls = MetadataError if ivalue is None else FillValueRangeError
            raise cls(
                f"{doc}: fill_value: expected an integer in [{lo}, {hi}] for {dt.name}, "
                f"got {value!r}"
            )
        return np.array(ivalue, dtype=dt.dtype)
    if kind == "float":
        return _user_float(dt.dtype, value, doc, dt.name)
    if kind == "complex":
        fdt = _component_dtype(dt)
        if isinstance(value, np.complexfloating) and value.dtype == dt.dtype:
            return np.array(value, dtype=dt.dtype)
        if isinstance(value, (list, tuple)) and len(value) == 2:
            re_v, im_v = value
        elif isinstance(value, (complex, np.complexfloating)):
            re_v, im_v = value.real, value.imag
        elif isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_, str)):
            re_v, im_v = value, 0.0
        else:
            raise MetadataError(
                f"{doc}: fill_value: expected a complex number or [re, im] for {dt.name}, "
                f"got {value!r}"
            )
        return _complex_from_parts(
            dt, _user_float(fdt, re_v, doc, dt.name), _user_float(fdt, im_v, doc, dt.name)
        )
    # raw
    n = dt.itemsize
    raw: bytes | None = None
    if isinstance(value, np.ndarray) and value.dtype.itemsize == n:
        raw = np.ascontiguousarray(value).tobytes()
    elif isinstance(value, np.void) and value.dtype.itemsize == n:
        raw = value.tobytes()
    elif isinstance(value, (bytes, bytearray, memoryview)) and len(bytes(value)) == n:
        raw = bytes(value)
    elif (
        isinstance(value, (list, tuple))
        and len(value) == n
        and all(
            isinstance(b, (int, np.integer)) and not isinstance(b, bool) and 0 <= b <= 255
            for b in value
        )
    ):
        raw = bytes(int(b) for b in value)
    if raw is None:
        raise MetadataError(
            f"{doc}: fill_value: expected {n} bytes (bytes, or a list of {n} integers in "
            f"[0, 255]) for {dt.name}, got {value!r}"
        )
    return np.frombuffer(raw, dtype=dt.dtype).reshape(()).copy()


# DataType.to_json of an extension type (structured fields recurse into the general converter)
_base._EXT_TO_JSON[0] = lambda dt: _ext.ext_to_json(dt, data_type_from_numpy)


def _pair_part(dt: DataType) -> DataType:
    """The DataType of one part of a complex pair type (float16, bfloat16, float8_*...)."""
    return _cx.component(dt, data_type_from_numpy)
