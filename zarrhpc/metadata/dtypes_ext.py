"""Data types beyond the v3 core: strings, bytes, datetimes, structured types.

Zarr v2 stores these with numpy type strings (``"|S5"``, ``"<U3"``, ``"<M8[ns]"``, lists
for structured types). Zarr v3 has no core names for them; zarrhpc uses the names
zarr-python 3.1 writes, so that data converted from v2 stays readable there:

============================  =======================================  =====================
numpy                         v3 ``data_type``                         v3 ``fill_value``
============================  =======================================  =====================
``S<n>``                      ``null_terminated_bytes``                base64 string
                              ``{"length_bytes": n}``
``U<n>``                      ``fixed_length_utf32``                   string
                              ``{"length_bytes": 4n}``
``V<n>`` (from v2)            ``raw_bytes`` ``{"length_bytes": n}``    base64 string
``M8[<k><unit>]``             ``numpy.datetime64``                     integer (NaT: -2**63)
                              ``{"unit": unit, "scale_factor": k}``
``m8[<k><unit>]``             ``numpy.timedelta64``                    integer
structured                    ``structured`` ``{"fields": [[name,       base64 string
                              data_type], ...]}``
structured, as ``struct``     ``struct`` ``{"fields": [{"name": n,      ``{field: value}``
                              "data_type": t}, ...]}``
============================  =======================================  =====================

``struct`` vs ``structured`` (decision): zarr-extensions registers ``struct`` (field
objects, a fill value per field) and calls ``structured`` its legacy alias. zarr-python
3.1 (3.1.6 is the newest release installable here) reads and writes only ``structured``
with a base64 fill; zarr-python 3.2+ reads both and writes ``struct``; zarrs reads both.
zarrhpc reads both (fill values in either form), keeps the name a store has when it writes
the array back, and creates ``structured`` (what every zarr-python 3 reads) unless asked
for ``struct``: ``create_array(dtype=zarrhpc.dtype.Struct.from_native_dtype(dt))`` (as
zarr-python 3.2's ``zarr.dtype.Struct``), or a ``DataType("struct", ...)``.

Byte order: v3 stores multi-byte elements in the ``bytes`` codec's ``endian``; a structured
type has no single byte order, and zarr-python reads its fields as little-endian, so the
``DataType.dtype`` of a v3 structured type has explicitly little-endian fields. A v2
structured type keeps the field byte orders its ``.zarray`` declares (see
:mod:`zarrhpc.metadata.v2`). Sub-array fields have no v3 form in zarr-python 3.1 and are
refused in v3 (they are fine in v2).

Functions here are called by :mod:`zarrhpc.metadata.dtypes` for these names; use that
module's public functions.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import numpy as np

from zarrhpc.errors import AmbiguousDataTypeError, MetadataError, UnsupportedError
from zarrhpc.metadata.dtype_base import EXTENSION_NAMES, DataType, _show
from zarrhpc.metadata.loose import loose_int

__all__ = [
    "EXTENSION_NAMES",
    "STRUCT_NAMES",
    "VLEN_NAMES",
    "ext_data_type_from_numpy",
    "ext_fill_from_user",
    "ext_fill_to_json",
    "ext_to_json",
    "parse_ext_data_type",
    "parse_ext_fill_value",
    "string_dtype",
    "vlen_data_type",
    "vlen_fill",
]

#: the names of structured types: zarr-python 3.1's, and zarr-extensions' (module docstring)
STRUCT_NAMES = ("structured", "struct")

#: variable-length types: the name zarrhpc writes, and every name it reads for it
VLEN_NAMES = {"string": "string", "variable_length_utf8": "string",
              "variable_length_bytes": "variable_length_bytes", "bytes": "variable_length_bytes",
              "binary": "variable_length_bytes",  # zarrs reads this alias of bytes
              "object": "object"}


def string_dtype() -> np.dtype:
    """numpy's variable-width string type (numpy >= 2), else ``object`` (as zarr-python)."""
    dtypes = getattr(np, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "StringDType"):
        return dtypes.StringDType()
    return np.dtype(object)


def vlen_data_type(name: str):
    """The DataType of a variable-length type name (``string``, ``bytes``, ...)."""
    name = VLEN_NAMES[name]
    return _make(name, string_dtype() if name == "string" else np.dtype(object))
_TIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as")
_NAT = -(2**63)


def _make(name: str, dtype: np.dtype) -> DataType:
    return DataType(name, dtype)


def little(dtype: np.dtype) -> np.dtype:
    """``dtype`` with every multi-byte component little-endian (fields recursively)."""
    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        return np.dtype(
            {
                "names": list(dtype.names),
                "formats": [little(dtype.fields[n][0]) for n in dtype.names],
                "offsets": [dtype.fields[n][1] for n in dtype.names],
                "itemsize": dtype.itemsize,
            }
        )
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return np.dtype((little(base), shape))
    if dtype.kind in "SVb" or dtype.itemsize == 1:
        return dtype
    return dtype.newbyteorder("<")


# ---------------------------------------------------------------------------------------
# numpy <-> DataType
# ---------------------------------------------------------------------------------------


def ext_data_type_from_numpy(npdt: np.dtype):
    """The extension DataType of a numpy dtype, or None when ``npdt`` is not one.

    Structured types become v3 structured types (little-endian fields); sub-array fields
    and padding are refused with :class:`UnsupportedError`.
    """
    kind = npdt.kind
    if npdt.subdtype is not None:
        return None
    if kind == "T" or (kind == "U" and npdt.itemsize == 0):  # StringDType, dtype=str
        return vlen_data_type("string")
    if kind == "S" and npdt.itemsize == 0:  # dtype=bytes
        return vlen_data_type("variable_length_bytes")
    if kind == "O":
        raise AmbiguousDataTypeError(
            "dtype: object arrays need to say what they hold: use dtype=str for strings "
            "(Zarr v3 'string') or dtype=bytes (v3 'variable_length_bytes'); in Zarr v2 "
            "pass an object_codec (numcodecs.VLenUTF8(), VLenBytes(), VLenArray(dtype))")
    if kind == "S" and npdt.itemsize > 0:
        return _make("null_terminated_bytes", np.dtype(f"S{npdt.itemsize}"))
    if kind == "U" and npdt.itemsize > 0:
        return _make("fixed_length_utf32", np.dtype(f"U{npdt.itemsize // 4}"))
    if kind in "Mm":
        unit, count = np.datetime_data(npdt)
        if unit == "generic":
            raise UnsupportedError(
                f"dtype: {npdt.str}: a datetime64/timedelta64 needs a unit (e.g. 'M8[ns]')"
            )
        name = "numpy.datetime64" if kind == "M" else "numpy.timedelta64"
        return _make(name, np.dtype(f"{kind}8[{count}{unit}]"))
    if npdt.fields is not None:
        _check_v3_structured(npdt, "dtype")
        return _make("structured", little(npdt))
    return None


def _check_v3_structured(npdt: np.dtype, where: str) -> None:
    offset = 0
    for name in npdt.names:
        fdt, foff = npdt.fields[name][:2]
        if fdt.subdtype is not None:
            raise UnsupportedError(
                f"{where}: structured field {name!r} has a sub-array shape {fdt.shape}, which "
                f"Zarr v3 (zarr-python 3.1's 'structured' type) cannot express; keep such "
                f"arrays in Zarr v2"
            )
        if foff != offset or not name:
            raise UnsupportedError(
                f"{where}: structured type {npdt} has padding or overlapping fields, which "
                f"Zarr v3 structured types cannot express"
            )
        if fdt.fields is not None:
            _check_v3_structured(fdt, where)
        offset += fdt.itemsize
    if offset != npdt.itemsize:
        raise UnsupportedError(f"{where}: structured type {npdt} has trailing padding")


def ext_to_json(dt, data_type_from_numpy) -> dict | str:
    """The v3 ``data_type`` member of an extension type; ``data_type_from_numpy`` is the
    general converter of :mod:`.dtypes`, for the fields of a structured type."""
    npdt = dt.dtype
    if dt.name == "variable_length_bytes":
        # the registered zarr-extensions name; zarr-python (3.1.4+) reads it as an alias of
        # its own "variable_length_bytes", which zarrs does not read
        return "bytes"
    if dt.name in VLEN_NAMES:
        return dt.name
    if dt.name in ("null_terminated_bytes", "raw_bytes"):
        return {"name": dt.name, "configuration": {"length_bytes": npdt.itemsize}}
    if dt.name == "fixed_length_utf32":
        return {"name": dt.name, "configuration": {"length_bytes": npdt.itemsize}}
    if dt.name in ("numpy.datetime64", "numpy.timedelta64"):
        unit, count = np.datetime_data(npdt)
        return {"name": dt.name, "configuration": {"unit": unit, "scale_factor": count}}
    _check_v3_structured(npdt, "data_type")
    return _struct_json(dt.name, npdt, data_type_from_numpy)


def _struct_json(name: str, npdt: np.dtype, data_type_from_numpy) -> dict:
    """``structured``: ``[name, data_type]`` pairs (zarr-python 3.1); ``struct``: field
    objects (zarr-extensions), nested structured fields in the same form."""
    fields = []
    for n in npdt.names:
        fdt = npdt.fields[n][0]
        ftype = (_struct_json(name, fdt, data_type_from_numpy) if fdt.fields is not None
                 else data_type_from_numpy(fdt).to_json())
        fields.append({"name": n, "data_type": ftype} if name == "struct" else [n, ftype])
    return {"name": name, "configuration": {"fields": fields}}


def parse_ext_data_type(name: str, conf: Any, doc: str, parse_data_type):
    """Read an extension ``data_type`` (name and configuration) of a v3 document;
    ``parse_data_type`` is the general parser of :mod:`.dtypes`, for structured fields."""
    field = "data_type.configuration"
    if name in VLEN_NAMES:
        if conf not in (None, {}):
            raise MetadataError(f"{doc}: {field}: {name!r} takes no configuration, "
                                f"got {_show(conf)}")
        return vlen_data_type(name)
    if not isinstance(conf, dict):
        raise MetadataError(f"{doc}: {field}: expected an object for {name!r}, got {_show(conf)}")

    def member(key: str):
        if key not in conf:
            raise MetadataError(f"{doc}: {field}.{key}: missing (required by {name!r})")
        return conf[key]

    allowed = {
        "null_terminated_bytes": {"length_bytes"},
        "raw_bytes": {"length_bytes"},
        "fixed_length_utf32": {"length_bytes"},
        "numpy.datetime64": {"unit", "scale_factor"},
        "numpy.timedelta64": {"unit", "scale_factor"},
        "structured": {"fields"},
        "struct": {"fields"},
    }[name]
    unknown = sorted(set(conf) - allowed)
    if unknown:
        raise MetadataError(f"{doc}: {field}: unexpected member {unknown[0]!r} for {name!r}")
    if name in ("null_terminated_bytes", "raw_bytes", "fixed_length_utf32"):
        n = member("length_bytes")
        step = 4 if name == "fixed_length_utf32" else 1
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0 or n % step:
            raise MetadataError(
                f"{doc}: {field}.length_bytes: expected a positive integer"
                f"{' multiple of 4' if step == 4 else ''}, got {_show(n)}"
            )
        code = {"null_terminated_bytes": "S", "raw_bytes": "V", "fixed_length_utf32": "U"}[name]
        return _make(name, np.dtype(f"{code}{n // step}"))
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        unit, scale = member("unit"), member("scale_factor")
        if unit not in _TIME_UNITS:
            raise MetadataError(
                f"{doc}: {field}.unit: expected one of {', '.join(_TIME_UNITS)}, got {_show(unit)}"
            )
        if not isinstance(scale, int) or isinstance(scale, bool) or not 0 < scale < 2**31:
            raise MetadataError(
                f"{doc}: {field}.scale_factor: expected a positive integer, got {_show(scale)}"
            )
        code = "M8" if name == "numpy.datetime64" else "m8"
        return _make(name, np.dtype(f"{code}[{scale}{unit}]"))
    fields = member("fields")
    if not isinstance(fields, list) or not fields:
        raise MetadataError(
            f"{doc}: {field}.fields: expected a non-empty array of [name, data_type], "
            f"got {_show(fields)}"
        )
    names, formats = [], []
    for i, item in enumerate(fields):
        if name == "struct" and isinstance(item, dict) and set(item) == {"name", "data_type"}:
            item = [item["name"], item["data_type"]]  # the struct form: field objects
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise MetadataError(
                f"{doc}: {field}.fields[{i}]: expected [name, data_type], got {_show(item)}"
            )
        if item[0] in names or not item[0]:
            raise MetadataError(
                f"{doc}: {field}.fields[{i}]: field name {item[0]!r} is empty or repeated"
            )
        names.append(item[0])
        fdt = parse_data_type(item[1], doc)
        if fdt.dtype.kind in "OT":
            raise MetadataError(f"{doc}: {field}.fields[{i}]: a variable-length type "
                                f"({fdt.name}) cannot be a field")
        formats.append(little(fdt.dtype))
    # "struct" and its legacy alias "structured" are one type; the name read is kept
    return _make(name, np.dtype({"names": names, "formats": formats}))


# ---------------------------------------------------------------------------------------
# fill values
# ---------------------------------------------------------------------------------------


def _from_base64(dt, text: str, doc: str, exact: bool) -> np.ndarray:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise MetadataError(
            f"{doc}: fill_value: expected a base64 string for {dt.name}, got {_show(text)}"
        ) from None
    n = dt.itemsize
    if len(raw) > n or (exact and len(raw) != n):
        raise MetadataError(
            f"{doc}: fill_value: the base64 value holds {len(raw)} bytes, expected "
            f"{'exactly' if exact else 'at most'} {n} for {dt.name}"
        )
    return np.frombuffer(raw.ljust(n, b"\0"), dtype=dt.dtype).reshape(()).copy()


def parse_ext_fill_value(dt, obj: Any, doc: str, parse_fill_value,
                         data_type_from_numpy) -> np.ndarray:
    """Read the v3 JSON ``fill_value`` of an extension type (zarr-python 3.1's forms);
    ``parse_fill_value`` and ``data_type_from_numpy`` are the general functions of
    :mod:`.dtypes`, for the fields of a structured type."""
    name = dt.name
    if name in VLEN_NAMES:
        return vlen_fill(dt, obj, doc, json_form=True)
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        if obj == "NaT":
            obj = _NAT
        elif not isinstance(obj, int) or isinstance(obj, bool):
            obj = loose_int(obj) if loose_int(obj) is not None else obj  # true, 3.0, "42"
        if not isinstance(obj, int) or isinstance(obj, bool) or not _NAT <= obj < 2**63:
            raise MetadataError(
                f"{doc}: fill_value: expected a 64-bit integer or 'NaT' for {name}, "
                f"got {_show(obj)}"
            )
        return np.array(obj, dtype="i8").view(dt.dtype).reshape(())
    if name in STRUCT_NAMES and isinstance(obj, dict):  # either form, for either name
        return _struct_fill(dt, obj, doc, parse_fill_value, data_type_from_numpy)
    if not isinstance(obj, str):
        raise MetadataError(f"{doc}: fill_value: expected a string for {name}, got {_show(obj)}")
    if name == "fixed_length_utf32":
        if len(obj) > dt.itemsize // 4:
            raise MetadataError(
                f"{doc}: fill_value: {_show(obj)} is longer than {dt.itemsize // 4} characters"
            )
        return np.array(obj, dtype=dt.dtype)
    return _from_base64(dt, obj, doc, exact=name != "null_terminated_bytes")


def ext_fill_to_json(dt, value: np.ndarray) -> Any:
    """The v3 JSON form of an extension type's fill value."""
    name = dt.name
    if name == "string":
        return str(np.asarray(value)[()])
    if name == "variable_length_bytes":
        return base64.standard_b64encode(bytes(np.asarray(value)[()] or b"")).decode("ascii")
    if name == "object":
        return None
    if name in ("numpy.datetime64", "numpy.timedelta64"):
        return int(np.asarray(value).reshape(1).view("i8")[0])
    if name == "fixed_length_utf32":
        return str(value[()])
    raw = np.ascontiguousarray(value).tobytes()
    if name == "null_terminated_bytes":
        raw = raw.rstrip(b"\0")
    return base64.standard_b64encode(raw).decode("ascii")


def ext_fill_from_user(dt, value: Any, doc: str) -> np.ndarray:
    """A user's ``fill_value`` for an extension type as a 0-d array of ``dt.dtype``."""
    if dt.name in VLEN_NAMES:
        return vlen_fill(dt, value, doc, json_form=False)
    if value is None:
        if dt.name in ("numpy.datetime64", "numpy.timedelta64"):
            return np.array("NaT", dtype=dt.dtype)  # zarr-python 3's default, not 1970
        return np.zeros((), dtype=dt.dtype)
    try:
        if isinstance(value, np.ndarray):
            if value.shape != ():
                raise ValueError(f"shape {value.shape}")
            value = value[()]
        if dt.dtype.kind == "S" and isinstance(value, (float, complex, np.inexact)):
            # numpy would store the text of the number (b"nan"); zarr-python refuses too
            raise TypeError("a float is not a bytes value")
        if dt.name in ("numpy.datetime64", "numpy.timedelta64") and isinstance(value, int):
            return np.array(value, dtype="i8").view(dt.dtype).reshape(())
        if dt.name in ("raw_bytes", *STRUCT_NAMES) and isinstance(value, (bytes, bytearray)):
            if len(value) != dt.itemsize:
                raise ValueError(f"{len(value)} bytes for an itemsize of {dt.itemsize}")
            return np.frombuffer(bytes(value), dtype=dt.dtype).reshape(()).copy()
        if dt.name in STRUCT_NAMES and isinstance(value, np.void):
            return np.array(value.tobytes() if value.dtype.itemsize == dt.itemsize
                            and value.dtype.names is None else value, dtype=dt.dtype)
        out = np.array(value, dtype=dt.dtype)
        if out.shape != ():
            raise ValueError(f"shape {out.shape}")
        return out
    except (TypeError, ValueError, OverflowError) as exc:
        raise MetadataError(
            f"{doc}: fill_value: cannot convert {value!r} to {dt.name} ({dt.dtype}): {exc}"
        ) from None


def _object_scalar(value: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def vlen_fill(dt, value: Any, doc: str, json_form: bool) -> np.ndarray:
    """The fill value of a variable-length type as a 0-d array of ``dt.dtype``.

    ``string``: a string (a JSON number reads as its text, as zarr-python does; None is
    ``""``). ``variable_length_bytes``: base64 text in JSON (a list of byte values, or
    0, are read too), ``bytes`` from users; None is ``b""``. ``object`` (v2 only): None.
    """
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if dt.name == "string":
        if value is None:
            value = ""
        if isinstance(value, bytes) and not json_form:
            value = value.decode("utf-8")
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise MetadataError(f"{doc}: fill_value: expected a string for {dt.name}, "
                                f"got {_show(value)}")
        return np.array(str(value), dtype=dt.dtype)
    if dt.name == "object":
        return _object_scalar(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value == 0):
        return _object_scalar(b"")
    if isinstance(value, (bytes, bytearray)) and not json_form:
        return _object_scalar(bytes(value))
    if isinstance(value, str):
        try:
            return _object_scalar(base64.b64decode(value.encode("ascii"), validate=True))
        except (binascii.Error, UnicodeEncodeError, ValueError):
            pass
    if isinstance(value, list) and all(isinstance(b, int) and 0 <= b < 256 for b in value):
        return _object_scalar(bytes(value))
    raise MetadataError(f"{doc}: fill_value: expected a base64 string for {dt.name}, "
                        f"got {_show(value)}")


def _struct_fill(dt, obj: dict, doc: str, parse_fill_value, data_type_from_numpy,
                 where: str = "fill_value") -> np.ndarray:
    """The ``struct`` form of a fill value: an object with every field's own fill value."""
    npdt = dt.dtype
    missing = [n for n in npdt.names if n not in obj]
    extra = sorted(set(obj) - set(npdt.names))
    if missing or extra:
        raise MetadataError(f"{doc}: {where}: expected one value per field "
                            f"{list(npdt.names)}, got {_show(obj)}")
    out = np.zeros((), dtype=npdt)
    for n in npdt.names:
        fdt = npdt.fields[n][0]
        if fdt.fields is not None:
            value = _struct_fill(_make("structured", fdt), obj[n], doc, parse_fill_value,
                                 data_type_from_numpy, f"{where}.{n}")
        else:
            value = parse_fill_value(data_type_from_numpy(fdt.newbyteorder("=")), obj[n], doc)
        out[n] = value
    return out
