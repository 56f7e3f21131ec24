"""zarr-extensions numeric data types numpy lacks: bfloat16, float8/6/4, int2/4, uint2/4.

Spec: zarr-developers/zarr-extensions ``data-types/<name>/README.md``. numpy
representations come from ``ml_dtypes`` (the library the specs point to; tensorstore and
JAX use it too). Every type is stored one element per byte (two for ``bfloat16``) by the
``bytes`` codec; sub-byte types keep their value in the low bits.

==========================  =====  ===================  ====================================
v3 name                     bytes  ml_dtypes type       fill value (JSON)
==========================  =====  ===================  ====================================
``bfloat16``                2      ``bfloat16``         number, "NaN" (0x7fc0), "Infinity",
                                                        "-Infinity", "0x" + 4 hex digits
``float8_e4m3`` etc.        1      same name            number, "NaN"/"Infinity" where the
                                                        type has them, "0x" + 2 hex digits
``float8_e8m0fnu``          1      same name            written "0x" + 2 hex digits or "NaN";
                                                        a stored 0 is 0x00 (see _float)
``int2``/``int4``           1      same name            integer in range
``uint2``/``uint4``         1      same name            integer in range
``complex_float32``/``64``  8/16   numpy complex64/128  [re, im] (aliases of the core types)
==========================  =====  ===================  ====================================

Life cycle: :func:`ml_data_type` answers a name (metadata) and :func:`ml_data_type_of`
a numpy dtype (users); :func:`parse_ml_fill`, :func:`ml_fill_to_json` and
:func:`ml_fill_from_user` convert fill values exactly (bit patterns kept for NaNs). Pure.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtype_base import ML_FLOATS, ML_INTS, ML_NAMES, DataType, ml_kind

__all__ = ["ML_FLOATS", "ML_INTS", "ML_NAMES", "is_ml", "ml_data_type", "ml_data_type_of",
           "ml_fill_from_user", "ml_fill_to_json", "ml_kind", "parse_ml_fill"]

#: other names for core types (zarr-extensions complex_float32/complex_float64)
ALIASES = {"complex_float32": "complex64", "complex_float64": "complex128"}
_UINT = {1: np.dtype("u1"), 2: np.dtype("<u2")}


def _ml():
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is a core dependency
        return None
    return ml_dtypes


def _numpy_type(name: str) -> np.dtype | None:
    ml = _ml()
    t = getattr(ml, name, None) if ml is not None else None
    return None if t is None else np.dtype(t)


def _make(name: str, dtype: np.dtype) -> DataType:
    return DataType(name, dtype)


def is_ml(dt) -> bool:
    """Whether the DataType ``dt`` is one of this module's types."""
    return dt.name in ML_NAMES


def ml_data_type(name: str):
    """The DataType of a v3 name of this module, or None (unknown name, or no ml_dtypes)."""
    if name not in ML_NAMES:
        return None
    npdt = _numpy_type(name)
    return None if npdt is None else _make(name, npdt)


def ml_data_type_of(npdt: np.dtype):
    """The DataType of an ml_dtypes numpy dtype, or None."""
    name = getattr(npdt.type, "__name__", "")
    if name in ML_NAMES and _numpy_type(name) == npdt:
        return _make(name, npdt)
    return None


def _bits(value: np.ndarray) -> int:
    return int(np.ascontiguousarray(value).reshape(1).view(_UINT[value.dtype.itemsize])[0])


def _from_bits(dt, bits: int) -> np.ndarray:
    return np.array(bits, dtype=_UINT[dt.itemsize]).view(dt.dtype).reshape(())


def _float(dt, value: Any, doc: str, json_form: bool) -> np.ndarray:
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    if isinstance(value, str) and value.startswith("0x"):
        digits = 2 * dt.itemsize
        if len(value) == 2 + digits:
            try:
                return _from_bits(dt, int(value, 16))  # int() takes the 0x prefix
            except ValueError:
                pass
        raise MetadataError(f"{doc}: fill_value: expected '0x' and {digits} hex digits for "
                            f"{dt.name}, got {value!r}")
    if isinstance(value, str) and value in special:
        x = special[value]
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)):
        x = float(value)
    elif not json_form and isinstance(value, np.generic) and value.dtype == dt.dtype:
        return np.array(value, dtype=dt.dtype)
    else:
        raise MetadataError(f"{doc}: fill_value: expected a number, 'NaN', 'Infinity', "
                            f"'-Infinity' or a '0x' bit pattern for {dt.name}, got {value!r}")
    if json_form and x == 0 and dt.name == "float8_e8m0fnu":
        # no zero: a stored 0 is the all-zero bit pattern (2**-127), as tensorstore (which
        # writes 0.0 for its default fill) and zarrs read it; the cast would give NaN
        return _from_bits(dt, 0)
    with np.errstate(all="ignore"):
        out = np.array(x, dtype=dt.dtype)
    got = float(out)
    if dt.name == "float8_e8m0fnu" and math.isfinite(x):
        # no sign or infinity: another finite number is read as the cast gives it (the
        # nearest power of 2); a user's 0 too (NaN, as tensorstore's fill_value=0)
        return out
    if (math.isnan(x) and not math.isnan(got)) or (math.isinf(x) and got != x) or (
            math.isfinite(x) and not math.isfinite(got)):
        raise MetadataError(f"{doc}: fill_value: {value!r} has no representation in "
                            f"{dt.name}")
    return out


def _int(dt, value: Any, doc: str) -> np.ndarray:
    info = _ml().iinfo(dt.dtype)
    lo, hi = int(info.min), int(info.max)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not (
            lo <= int(value) <= hi):
        raise MetadataError(f"{doc}: fill_value: expected an integer in [{lo}, {hi}] for "
                            f"{dt.name}, got {value!r}")
    return np.array(int(value), dtype=dt.dtype)


def parse_ml_fill(dt, value: Any, doc: str) -> np.ndarray:
    """The JSON ``fill_value`` of a type of this module as an exact 0-d array."""
    if ml_kind(dt.name) == "float":
        return _float(dt, value, doc, json_form=True)
    if isinstance(value, float):
        raise MetadataError(f"{doc}: fill_value: expected a JSON integer for {dt.name}, "
                            f"got {value!r}")
    return _int(dt, value, doc)


def ml_fill_from_user(dt, value: Any, doc: str) -> np.ndarray:
    """A user's ``fill_value`` (None: zero) as an exact 0-d array."""
    if value is None:
        return np.zeros((), dtype=dt.dtype)
    if isinstance(value, (np.ndarray, np.generic)) and np.asarray(value).dtype == dt.dtype:
        if np.asarray(value).shape != ():
            raise MetadataError(f"{doc}: fill_value: expected a scalar, got shape "
                                f"{np.asarray(value).shape}")
        return np.array(value, dtype=dt.dtype).reshape(())
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if ml_kind(dt.name) == "float":
        return _float(dt, value, doc, json_form=False)
    return _int(dt, value, doc)


def ml_fill_to_json(dt, value: np.ndarray) -> Any:
    """Canonical JSON: numbers, "NaN" for the type's canonical NaN, else a bit pattern."""
    value = np.asarray(value, dtype=dt.dtype).reshape(())
    if ml_kind(dt.name) != "float":
        return int(value)
    x = float(value)
    if math.isnan(x):
        canonical = np.array(np.nan, dtype=dt.dtype)
        if _bits(value) == _bits(canonical):
            return "NaN"
        return f"0x{_bits(value):0{2 * dt.itemsize}x}"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if dt.name == "float8_e8m0fnu":
        # the bit pattern (the spec's other float form): tensorstore 0.1 reads a number of
        # this type with a bias of 63, not 127 (1.0 as 0x3f), zarrs reads an integer as
        # the byte; both read "0x7f" as 1.0
        return f"0x{_bits(value):02x}"
    return x
