"""zarrs' ``optional`` data type: an element of another type, or no element (null).

Spec card
---------
- v3 form (zarrs, zarr-extensions PR 33 "optional codec and data type"): ``{"name":
  "optional", "configuration": {"name": <inner name>, "configuration": <inner
  configuration>}}``; the inner type may itself be ``optional`` (nested).
- Fill value: ``null`` for "no element"; ``[v]`` (a one-element list holding the inner
  type's fill value form) for "element v"; nested recursively (``[null]`` is "an element
  that is itself null").
- numpy form: ``[("value", <inner numpy type>), ("valid", bool)]`` per element: the bytes
  zarrs keeps in memory (the value, then one validity byte per level), so nested types
  nest the record. Arrays hand their reads out as ``numpy.ma.MaskedArray`` (as zarrista,
  the Python binding of zarrs, does): data the ``value`` field, mask ``~valid``; see
  :func:`to_masked` / :func:`from_masked`.
- Stored only through the ``optional`` codec (codecs/optional.py).

Life cycle: :func:`parse_optional` is called by :func:`zarrhpc.metadata.dtypes.
parse_data_type` for the name ``optional``; the fill functions by the fill value functions
there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtype_base import DataType, _show

__all__ = ["OptionalDataType", "from_masked", "is_optional", "optional_fill_from_user",
           "optional_fill_to_json", "parse_optional", "parse_optional_fill", "to_masked"]


@dataclass(frozen=True)
class OptionalDataType(DataType):
    """``optional`` of ``inner``; ``dtype`` is the ``(value, valid)`` record."""

    inner: DataType = None  # type: ignore[assignment]

    @property
    def kind(self) -> str:
        return "optional"

    @property
    def swap_size(self) -> int:
        return 0

    @property
    def is_extension(self) -> bool:
        return True

    def to_json(self) -> dict:
        inner = self.inner.to_json()
        if isinstance(inner, str):
            inner = {"name": inner, "configuration": {}}
        return {"name": "optional", "configuration": {
            "name": inner["name"], "configuration": inner.get("configuration", {})}}

    def __repr__(self) -> str:
        return f"DataType('optional', {self.inner!r})"


def is_optional(dt: Any) -> bool:
    return isinstance(dt, OptionalDataType)


def record_dtype(inner: np.dtype) -> np.dtype:
    """The numpy record of an optional element whose value has type ``inner``."""
    return np.dtype([("value", inner), ("valid", "?")])


def parse_optional(obj: Any, doc: str, parse_data_type) -> OptionalDataType:
    """Read ``{"name": "optional", "configuration": {"name", "configuration"}}``."""
    conf = obj.get("configuration") if isinstance(obj, dict) else None
    field = "data_type.configuration"
    if not isinstance(conf, dict) or "name" not in conf:
        raise MetadataError(f"{doc}: {field}: 'optional' needs the inner data type as "
                            f"{{'name': ..., 'configuration': ...}}, got {_show(conf)}")
    unknown = sorted(set(conf) - {"name", "configuration"})
    if unknown:
        raise MetadataError(f"{doc}: {field}: unexpected member {unknown[0]!r} for 'optional'")
    inner_conf = conf.get("configuration")
    inner_obj = {"name": conf["name"]}
    if inner_conf not in (None, {}) or conf["name"] == "optional":
        inner_obj["configuration"] = inner_conf
    inner = parse_data_type(inner_obj, doc)
    if inner.dtype.kind in "OT":
        raise MetadataError(f"{doc}: {field}: optional {inner.name} (a variable-length inner "
                            f"type) is not supported")
    return OptionalDataType("optional", record_dtype(inner.dtype), inner)


def parse_optional_fill(dt: OptionalDataType, obj: Any, doc: str, parse_fill_value):
    """``null`` or ``[inner fill]`` -> the 0-d record."""
    out = np.zeros((), dtype=dt.dtype)
    if obj is None:
        return out
    if not (isinstance(obj, list) and len(obj) == 1):
        raise MetadataError(f"{doc}: fill_value: expected null or a one-element list [v] "
                            f"for an optional type, got {_show(obj)}")
    out["value"] = parse_fill_value(dt.inner, obj[0], doc)
    out["valid"] = True
    return out


def optional_fill_to_json(dt: OptionalDataType, value: Any, fill_value_to_json) -> Any:
    rec = np.asarray(value, dtype=dt.dtype).reshape(())
    if not bool(rec["valid"]):
        return None
    return [fill_value_to_json(dt.inner, rec["value"])]


def optional_fill_from_user(dt: OptionalDataType, value: Any, doc: str,
                            fill_value_from_user) -> np.ndarray:
    """``None`` or ``np.ma.masked`` (no element), a record of ``dt.dtype``, or a value of
    the inner type."""
    out = np.zeros((), dtype=dt.dtype)
    if value is None or value is np.ma.masked:
        return out
    if isinstance(value, np.ndarray) and value.dtype == dt.dtype:
        return value.reshape(()).copy()
    out["value"] = fill_value_from_user(dt.inner, value, doc)
    out["valid"] = True
    return out


def to_masked(records: np.ndarray) -> np.ma.MaskedArray:
    """Records of an optional type as a masked array (data: the values, masked where no
    element); a nested type's data keeps its inner records."""
    records = np.asarray(records)
    return np.ma.MaskedArray(records["value"], mask=~records["valid"])


def _element_mask(mask: np.ndarray) -> np.ndarray:
    """A masked array's mask per element (records: masked when every field is)."""
    if mask.dtype.names is None:
        return mask
    return np.logical_and.reduce([_element_mask(mask[n]) for n in mask.dtype.names])


def from_masked(value: Any, dtype: np.dtype) -> np.ndarray:
    """The records of ``dtype`` (an optional type's) for what a user writes: records as
    they are, a masked array (masked = no element), ``np.ma.masked`` / ``None`` (no
    element), or plain values (all present)."""
    if isinstance(value, np.ndarray) and not isinstance(value, np.ma.MaskedArray) and \
            value.dtype == dtype:
        return value
    if value is None or value is np.ma.masked:
        return np.zeros((), dtype=dtype)
    data = np.ma.getdata(value)
    mask = _element_mask(np.ma.getmaskarray(value)) if isinstance(
        value, np.ma.MaskedArray) else np.zeros(np.shape(data), dtype=bool)
    out = np.zeros(np.shape(data), dtype=dtype)
    inner = dtype["value"]
    if inner.names == ("value", "valid") and np.asarray(data).dtype != inner:
        # plain values of a nested optional type are present at every level (numpy's
        # cast of a number to the inner record would set its "valid" to bool(number):
        # a written 0 stored as an inner null)
        out["value"] = from_masked(np.asarray(data), inner)
    else:
        out["value"] = data
    out["valid"] = ~mask
    return out
