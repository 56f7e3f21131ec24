"""The looser JSON forms of fill values that other writers put into metadata and
zarr-python 3 reads (its data types' ``from_json_scalar``), where the meaning is clear.

Used by the v3 (:mod:`.dtypes`, :mod:`.dtypes_ext`) and v2 (:mod:`.v2`) fill value
parsers after their spec forms: what is written is always the spec's form.

- integers (and datetime/timedelta counts): ``true``/``false``, integral floats (``3.0``)
  and strings Python's ``int`` reads (``"42"``, ``" -5 "``, ``"+3"``, ``"1_000"``);
- floats: ``true``/``false``, the bare literals ``NaN``/``Infinity`` of non-strict JSON
  writers, strings Python's ``float`` reads (``"1.5"``, ``"nan"``, ``"inf"``,
  ``"-Infinity"``), and ``"0x"`` hex strings of another width than the type's (4, 8 or
  16 digits: the bits of a float16/32/64, converted by value as zarr-python does);
- raw ``r<N>``: zarr-python's base64 text (of its ``raw_bytes`` type) of exactly N/8 bytes
  instead of the spec's array of integers.

Not read (zarr-python reads them, but they could be misread): strings longer than a
fixed-length type (zarr-python truncates them), base64 of the wrong length, and anything
but ``true``/``false``/``0``/``1`` for bool. Pure functions, no I/O.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from typing import Any

import numpy as np

__all__ = ["loose_base64", "loose_float", "loose_hex_float", "loose_int"]

_HEX_RE = re.compile(r"0x([0-9a-fA-F]{4}|[0-9a-fA-F]{8}|[0-9a-fA-F]{16})")
_FLOAT_OF_DIGITS = {4: ">f2", 8: ">f4", 16: ">f8"}


def loose_int(obj: Any) -> int | None:
    """``obj`` as an integer when it is one of the looser integer forms, else None.

    Parameters
    ----------
    obj : JSON value

    Returns
    -------
    int or None
        ``true`` -> 1, ``3.0`` -> 3, ``"42"`` -> 42; None for anything else (including
        plain JSON integers, which the callers handle first, and ``"3.5"``).
    """
    if isinstance(obj, bool):
        return int(obj)
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, str):
        try:
            return int(obj)
        except ValueError:
            return None
    return None


def loose_float(obj: Any) -> float | None:
    """``obj`` as a float when it is one of the looser float forms, else None.

    Parameters
    ----------
    obj : JSON value

    Returns
    -------
    float or None
        ``true`` -> 1.0, a bare ``NaN``/``Infinity`` literal as it is, ``"1.5"`` -> 1.5,
        ``"nan"``/``"inf"``/``"-Infinity"`` -> the special value; None otherwise.
    """
    if isinstance(obj, bool):
        return float(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return obj
    if isinstance(obj, str):
        try:
            return float(obj)
        except ValueError:
            return None
    return None


def loose_hex_float(text: str, fdt: np.dtype) -> np.ndarray | None:
    """A ``"0x..."`` string of 4, 8 or 16 hex digits read as the bits of a float16, 32
    or 64 and converted by value to ``fdt`` (a NaN stays a NaN; its payload may not);
    None when ``text`` is no such string."""
    m = _HEX_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        return None
    src = np.dtype(_FLOAT_OF_DIGITS[len(m.group(1))])
    value = np.frombuffer(bytes.fromhex(m.group(1)), dtype=src).reshape(())
    with np.errstate(over="ignore", invalid="ignore"):
        return value.astype(fdt)


def loose_base64(text: Any) -> bytes | None:
    """The bytes of standard base64 ``text``; None when it is not such a string."""
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return None
