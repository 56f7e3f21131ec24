"""The :class:`DataType` value class and the few names shared by the data type modules.

This is the bottom of the ``zarrhpc.metadata`` data type modules: :mod:`.dtypes_ext` and
:mod:`.dtypes_ml` import it, and :mod:`.dtypes` (the dispatcher, which imports all three)
re-exports what is public here. It imports none of its siblings.

``DataType.to_json`` of an extension type needs the general numpy -> DataType converter
(for the fields of a structured type), which lives in :mod:`.dtypes`; that module installs
it in ``_EXT_TO_JSON`` when it is imported (the ``zarrhpc.metadata`` package imports it
first, so every DataType sees it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EXTENSION_NAMES", "ML_FLOATS", "ML_INTS", "ML_NAMES", "DataType", "ml_kind"]

#: names of the types beyond the v3 core handled by :mod:`.dtypes_ext`
EXTENSION_NAMES = (
    "null_terminated_bytes",
    "fixed_length_utf32",
    "raw_bytes",
    "numpy.datetime64",
    "numpy.timedelta64",
    "structured",
    "struct",
    "string",
    "variable_length_bytes",
    "object",
)

#: ml_dtypes types handled by :mod:`.dtypes_ml`
ML_FLOATS = ("bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
             "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
             "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")
ML_INTS = ("int2", "int4", "uint2", "uint4")
ML_NAMES = ML_FLOATS + ML_INTS


def ml_kind(name: str) -> str:
    """``"float"``, ``"int"`` or ``"uint"``."""
    return "float" if name in ML_FLOATS else ("uint" if name.startswith("u") else "int")


def _ext_to_json_unset(dt: DataType) -> dict | str:  # pragma: no cover - dtypes sets it
    raise RuntimeError("zarrhpc.metadata.dtypes was not imported")


#: the ``data_type`` JSON of an extension type; set by :mod:`zarrhpc.metadata.dtypes`
_EXT_TO_JSON: list[Callable[[DataType], dict | str]] = [_ext_to_json_unset]


def _show(value: Any, limit: int = 80) -> str:
    """Short printable form of a JSON-ish value for error messages."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


@dataclass(frozen=True)
class DataType:
    """A Zarr v3 core data type.

    Parameters
    ----------
    name : str
        The v3 identifier: ``"bool"``, ``"int8"`` .. ``"uint64"``, ``"float16"``,
        ``"float32"``, ``"float64"``, ``"complex64"``, ``"complex128"`` or ``"r<N>"``.
    dtype : numpy.dtype
        The numpy equivalent in native byte order (``np.dtype("V2")`` for ``r16``).

    Notes
    -----
    Build instances with :func:`parse_data_type` or :func:`data_type_from_numpy`, which
    validate; the constructor trusts its arguments.
    """

    name: str
    dtype: np.dtype

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def kind(self) -> str:
        """One of ``"bool"``, ``"int"``, ``"uint"``, ``"float"``, ``"complex"``, ``"raw"``,
        and for extension types ``"bytes"``, ``"string"``, ``"datetime"``,
        ``"timedelta"``, ``"structured"``."""
        if self.dtype.fields is not None:
            return "structured"
        if self.name in ML_NAMES:
            return ml_kind(self.name)
        return {
            "b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex",
            "S": "bytes", "U": "string", "M": "datetime", "m": "timedelta",
            "O": "object", "T": "object",
        }.get(self.dtype.kind, "raw")

    @property
    def swap_size(self) -> int:
        """Size of the byte-swapped component: 0 for 1-byte, raw, byte-string and
        structured types, 4 for UTF-32 strings, itemsize/2 for complex types, else
        itemsize."""
        if self.kind in ("raw", "bytes", "structured", "object") or self.itemsize == 1:
            return 0
        if self.kind == "string":
            return 4
        if self.kind == "complex":
            return self.itemsize // 2
        return self.itemsize

    @property
    def is_extension(self) -> bool:
        """True for the types beyond the v3 core (see :mod:`zarrhpc.metadata.dtypes_ext`)."""
        return self.name in EXTENSION_NAMES

    def to_json(self) -> str | dict:
        """The ``data_type`` member as written in ``zarr.json`` (a plain string for core
        types, ``{"name", "configuration"}`` for extension types)."""
        if self.is_extension:
            return _EXT_TO_JSON[0](self)
        return self.name

    def __repr__(self) -> str:
        return f"DataType({self.name!r})"
