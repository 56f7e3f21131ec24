"""zarr-extensions' complex types made of small floats: ``complex_bfloat16``,
``complex_float16`` and ``complex_float8_*`` / ``complex_float6_*`` / ``complex_float4_*``.

Spec: zarr-developers/zarr-extensions ``data-types/complex_<float>/README.md``: a pair of
``<float>`` values, real part first; no configuration; the fill value is written as the core
complex types write theirs, ``[re, im]``, each part in its float type's JSON forms (a number,
``"NaN"``, ``"Infinity"``, ``"-Infinity"`` or ``"0x"`` and the part's bits in hex). The
``bytes`` codec stores the two parts one after the other, each in the codec's ``endian``
(no effect for 1-byte parts). zarrs reads and writes all of them (zarrs'
``data_type/complex*.rs``); zarr-python and tensorstore read none.

Representation: numpy has no complex type of small floats, and ml_dtypes none either, so
an element is the structured numpy type ``[("real", T), ("imag", T)]`` with ``T`` numpy's
``float16`` or the ml_dtypes type: exactly the stored bytes, no bit lost, each part
readable as ``a["real"]``/``a["imag"]``. ``create_array(dtype=...)`` takes that structured
type and writes the complex name (a structured type of exactly these two fields is this
type, never ``structured``).

Byte order: the two-byte parts (bfloat16, float16) are stored in the bytes codec's
``endian``, each part swapped on its own as the READMEs say ("2 consecutive 2-byte
little-endian or big-endian values"); in memory they are always native (the bytes codec
swaps them in place: numpy has no byte-swapped form of such a pair).

Functions here are called by :mod:`zarrhpc.metadata.dtypes` (which passes in the
component's fill-value functions); use that module's public functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtype_base import DataType, _show

__all__ = ["COMPLEX_PAIR_NAMES", "complex_pair_of", "complex_pair_type",
           "component", "is_complex_pair", "pair_fill_from_user", "pair_fill_to_json",
           "parse_pair_fill"]

#: the part types of the complex_* types zarr-extensions lists (data-types/, July 2026; it
#: has no complex_float8_e4m3fn)
_PARTS = ("bfloat16", "float16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
          "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2",
          "float8_e5m2fnuz", "float8_e8m0fnu")
COMPLEX_PAIR_NAMES = tuple(f"complex_{p}" for p in _PARTS)
_FIELDS = ("real", "imag")


def _part_dtype(part: str) -> np.dtype | None:
    if part == "float16":
        return np.dtype("<f2")
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is a core dependency
        return None
    t = getattr(ml_dtypes, part, None)
    return None if t is None else np.dtype(t)


def complex_pair_type(name: str) -> DataType | None:
    """The DataType of a name of this module (None: not one, or no ml_dtypes type)."""
    if name not in COMPLEX_PAIR_NAMES:
        return None
    part = _part_dtype(name[len("complex_"):])
    if part is None:
        return None
    return DataType(name, np.dtype([(_FIELDS[0], part), (_FIELDS[1], part)]))


def complex_pair_of(npdt: np.dtype) -> DataType | None:
    """The DataType of a numpy ``[("real", T), ("imag", T)]`` type, or None."""
    if npdt.names != _FIELDS:
        return None
    (t_re, o_re), (t_im, o_im) = (npdt.fields[n][:2] for n in _FIELDS)
    if t_re != t_im or o_re != 0 or o_im != t_re.itemsize or npdt.itemsize != 2 * t_re.itemsize:
        return None
    part = "float16" if t_re.kind == "f" and t_re.itemsize == 2 else getattr(
        t_re.type, "__name__", "")
    found = complex_pair_type(f"complex_{part}")
    if found is None or found.dtype.fields["real"][0] != t_re.newbyteorder("<"):
        return None
    if t_re.itemsize > 1 and t_re.byteorder == ">":
        return None  # stored little-endian only (see the module docstring)
    return found


def is_complex_pair(dt: DataType) -> bool:
    """Whether ``dt`` is a type of this module."""
    return dt.name in COMPLEX_PAIR_NAMES


def component(dt: DataType, data_type_of: Callable[[Any], DataType]) -> DataType:
    """The DataType of one part (``float16`` or the ml_dtypes type)."""
    return data_type_of(dt.dtype.fields["real"][0])


def _pair(dt: DataType, re_part: np.ndarray, im_part: np.ndarray) -> np.ndarray:
    out = np.zeros((), dtype=dt.dtype)
    out["real"] = re_part
    out["imag"] = im_part
    return out


def parse_pair_fill(dt: DataType, obj: Any, doc: str, part: DataType,
                    parse_part: Callable[[DataType, Any, str], np.ndarray]) -> np.ndarray:
    """The JSON fill value ``[re, im]`` as an exact 0-d array of ``dt.dtype``."""
    if not isinstance(obj, (list, tuple)) or len(obj) != 2:
        raise MetadataError(f"{doc}: fill_value: expected a two-element array [re, im] for "
                            f"{dt.name}, got {_show(obj)}")
    return _pair(dt, parse_part(part, obj[0], doc), parse_part(part, obj[1], doc))


def pair_fill_to_json(dt: DataType, value: np.ndarray, part: DataType,
                      part_to_json: Callable[[DataType, Any], Any]) -> list:
    """``[re, im]`` of a 0-d array of ``dt.dtype``, each part in its type's JSON form."""
    value = np.asarray(value)
    return [part_to_json(part, np.array(value["real"], dtype=part.dtype)),
            part_to_json(part, np.array(value["imag"], dtype=part.dtype))]


def pair_fill_from_user(dt: DataType, value: Any, doc: str, part: DataType,
                        part_from_user: Callable[[DataType, Any, str], np.ndarray]) -> np.ndarray:
    """A user's fill value: None (zero), a complex or real number, ``[re, im]`` (numbers or
    the JSON forms), or a scalar / 0-d array of ``dt.dtype``."""
    if value is None:
        return np.zeros((), dtype=dt.dtype)
    if isinstance(value, (np.ndarray, np.void)) and value.dtype == dt.dtype:
        return np.array(value, dtype=dt.dtype).reshape(()).copy()
    if isinstance(value, (list, tuple)) and len(value) == 2:
        re_v, im_v = value
    elif isinstance(value, (complex, np.complexfloating)):
        re_v, im_v = value.real, value.imag
    elif isinstance(value, (int, float, np.integer, np.floating, str)) and not isinstance(
            value, (bool, np.bool_)):
        re_v, im_v = value, 0.0
    else:
        raise MetadataError(f"{doc}: fill_value: expected a complex number or [re, im] for "
                            f"{dt.name}, got {value!r}")
    return _pair(dt, part_from_user(part, re_v, doc), part_from_user(part, im_v, doc))
