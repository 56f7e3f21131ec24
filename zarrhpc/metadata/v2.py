"""Zarr v2 documents: ``.zarray``, ``.zgroup``, ``.zattrs`` <-> validated objects.

Spec: the Zarr storage specification version 2 (OGC community standard), plus the
``dimension_separator`` member of v2.1 that zarr-python and tensorstore write.

Life cycle: :func:`parse_array_v2` / :func:`parse_group_v2` read the documents of one node
(``.zattrs`` may be absent), validate every member and give immutable objects; errors are
:class:`~zarrhpc.errors.MetadataError` naming the document and member.
``ArrayMetadataV2.to_spec()`` translates the array into the internal
:class:`~zarrhpc.metadata.spec.ArraySpec` with a v3-shaped codec chain, so v2 chunks run
through the same pipeline as v3 ones:

- ``order: "F"`` becomes a ``transpose`` codec reversing the dimensions;
- each filter and the compressor become the v3 entry their codec class declares for its v2
  id (:mod:`zarrhpc.codec_forms`: gzip, zstd, blosc... become the v3 codecs of
  the same bytes); ids no class claims become zarr-python 3's ``numcodecs.<id>``;
- the byte order of the dtype (or of the last filter's output) becomes the ``bytes``
  codec's ``endian``;
- chunk keys are the v3 ``v2`` chunk key encoding with the ``dimension_separator``.

Data types (``dtype``): numpy type strings with the byte order given (``"<f8"``,
``">i2"``, ``"|b1"``, ``"|S12"``, ``"<U4"``, ``"|V8"``, ``"<M8[ns]"``, ``">m8[10s]"``)
and structured types as lists ``[[name, type(, shape)], ...]``, nested. Simple types read
into native byte order (the ``bytes`` codec swaps); a structured type keeps its fields'
byte orders (no single swap applies), which is also what reads return.

Fill values: ``null``; JSON numbers; ``"NaN"``, ``"Infinity"``, ``"-Infinity"``;
``[re, im]`` for complex; base64 for ``S``, ``V`` and structured types; a plain string for
``U``; an integer for datetimes (``NaT`` is -2**63, as zarr-python writes). ``null`` reads
as zero (NaT for datetimes, as zarr-python 3 reads it) and is written back as ``null``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from zarrhpc.codec_forms import (
    is_bytes_level,
    is_serializer,
    object_codec_id,
    object_type,
    v2_entry,
    v2_out_dtype,
)
from zarrhpc.errors import MetadataError, UnsupportedError
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.dtypes import DataType, _show, data_type_from_numpy
from zarrhpc.metadata.dtypes_ext import little, vlen_data_type, vlen_fill
from zarrhpc.metadata.dtypes_ml import (
    ML_NAMES,
    ml_data_type,
    ml_data_type_of,
    ml_fill_to_json,
    parse_ml_fill,
)
from zarrhpc.metadata.loose import loose_float, loose_hex_float, loose_int
from zarrhpc.metadata.names import member_error as _err
from zarrhpc.metadata.spec import ArraySpec

__all__ = [
    "TYPE_DEFAULT_FILL",
    "ArrayMetadataV2",
    "GroupMetadataV2",
    "dtype_from_json_v2",
    "dtype_to_json_v2",
    "normalize_path_v2",
    "parse_array_v2",
    "parse_group_v2",
]

ZARRAY, ZGROUP, ZATTRS = ".zarray", ".zgroup", ".zattrs"
_ARRAY_KEYS = ("shape", "chunks", "dtype", "fill_value", "order", "filters",
               "dimension_separator", "compressor", "zarr_format")
# zarr-python 3 reads documents without compressor/filters (None) and ignores other keys
_REQUIRED = ("shape", "chunks", "dtype", "fill_value", "order", "zarr_format")
_SIMPLE_RE = re.compile(r"^([<>|])([biufcSUVmM])(\d+)(\[(\d*)([A-Za-z]+)\])?$")
_TIME_UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as")
_NUMERIC_SIZES = {"b": (1,), "i": (1, 2, 4, 8), "u": (1, 2, 4, 8), "f": (2, 4, 8),
                  "c": (8, 16)}


#: keys of the v2 metadata documents: a node of that name would collide with its parent's
_V2_KEYS = frozenset({".zarray", ".zgroup", ".zattrs", ".zmetadata"})


def normalize_path_v2(path: str | None) -> str:
    """A logical path normalised as the v2 spec says.

    Backslashes become ``/``, leading and trailing ``/`` are stripped, runs of ``/``
    collapse; a ``.`` or ``..`` segment is an error, and so is a segment named as a v2
    metadata document (``.zarray``, ``.zgroup``, ``.zattrs``, ``.zmetadata``), which would
    collide with its parent's document.

    Parameters
    ----------
    path : str or None

    Returns
    -------
    str
        ``""`` for the root, else ``"a/b"``.
    """
    if path is None:
        return ""
    if not isinstance(path, str):
        raise MetadataError(f"path {path!r}: expected a string")
    text = re.sub("/+", "/", path.replace("\\", "/")).strip("/")
    for segment in text.split("/") if text else []:
        if segment in (".", ".."):
            raise MetadataError(f"path {path!r}: a '.' or '..' segment is not allowed")
        if segment in _V2_KEYS:
            raise MetadataError(f"path {path!r}: a node must not be named {segment!r}, the "
                                f"key of a v2 metadata document")
    return text


# ---------------------------------------------------------------------------------------
# dtype
# ---------------------------------------------------------------------------------------


def _simple_dtype(text: Any, doc: str, member: str) -> np.dtype:
    if not isinstance(text, str):
        raise _err(doc, member, f"expected a numpy type string such as '<f8', got {_show(text)}")
    if text in ("|O", "O", "<O", ">O"):  # object arrays: the object codec says of what
        return np.dtype(object)
    if text in ML_NAMES and ml_data_type(text) is not None:
        return ml_data_type(text).dtype  # tensorstore's v2 "bfloat16", "float8_e4m3fn", ...
    m = _SIMPLE_RE.match(text)
    if m is None:
        raise _err(
            doc, member, f"expected a numpy type string with its byte order ('<f8', '>i2', "
            f"'|b1', '|S12', '<U4', '<M8[ns]', '|O'), got {_show(text)}"
        )
    order, kind, size, unit_part = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    if kind in _NUMERIC_SIZES and size not in _NUMERIC_SIZES[kind]:
        raise UnsupportedError(f"{doc}: {member}: {text!r}: no {kind}{size} type is supported")
    if kind in "Mm":
        if size != 8 or unit_part is None or m.group(6) not in _TIME_UNITS:
            raise _err(doc, member, f"expected {kind}8[unit] with a unit of "
                       f"{', '.join(_TIME_UNITS)}, got {_show(text)}")
        if m.group(5) == "0":
            raise _err(doc, member, f"the unit multiplier must be positive, got {_show(text)}")
    elif unit_part is not None:
        raise _err(doc, member, f"only M8/m8 take a [unit], got {_show(text)}")
    if kind in "SUV" and size == 0:
        raise _err(doc, member, f"a zero-length {kind} type is not supported, got {_show(text)}")
    multi = kind in "Mm" or kind == "U" or (kind in "iufc" and size > 1)
    if order == "|" and multi:
        raise _err(doc, member, f"{text!r} has a byte order: expected '<' or '>', not '|'")
    return np.dtype(text)


def dtype_from_json_v2(obj: Any, doc: str, member: str = "dtype") -> np.dtype:
    """The numpy dtype of a v2 ``dtype`` member (simple string or structured list).

    Raises
    ------
    MetadataError
        Not a valid v2 type (missing byte order, unknown code, bad field list).
    UnsupportedError
        A valid numpy type zarrhpc does not handle (object, float128).
    """
    if isinstance(obj, str):
        return _simple_dtype(obj, doc, member)
    if not isinstance(obj, list) or not obj:
        raise _err(doc, member, f"expected a type string or a non-empty list of fields, "
                   f"got {_show(obj)}")
    fields = []
    names = set()
    for i, item in enumerate(obj):
        where = f"{member}[{i}]"
        if not (isinstance(item, list) and len(item) in (2, 3) and isinstance(item[0], str)):
            raise _err(doc, where, f"expected [name, type] or [name, type, shape], "
                       f"got {_show(item)}")
        if item[0] in names:
            raise _err(doc, where, f"field name {item[0]!r} appears twice")
        names.add(item[0])
        fdt = dtype_from_json_v2(item[1], doc, f"{where}[1]")
        if len(item) == 3:
            shape = item[2]
            if not (isinstance(shape, list) and all(
                    isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape)):
                raise _err(doc, f"{where}[2]", f"expected a list of positive integers "
                           f"(sub-array shape), got {_show(shape)}")
            fields.append((item[0], fdt, tuple(shape)))
        else:
            fields.append((item[0], fdt))
    return np.dtype(fields)


def _same_dtype(text: str, dtype: np.dtype) -> bool:
    try:
        return dtype_from_json_v2(text, ZARRAY) == dtype
    except Exception:  # noqa: BLE001 -- any text that no longer parses is not kept
        return False


def dtype_to_json_v2(dtype: np.dtype) -> str | list:
    """The v2 ``dtype`` member of a numpy dtype (``descr`` lists for structured types)."""
    dtype = np.dtype(dtype)
    ml = ml_data_type_of(dtype)
    if ml is not None:
        return ml.name  # as tensorstore's zarr driver writes ml_dtypes types
    if dtype.fields is None:
        return dtype.str

    def entry(name: str, fdt: np.dtype) -> list:
        if fdt.subdtype is not None:
            base, shape = fdt.subdtype
            return [name, dtype_to_json_v2(base), list(shape)]
        return [name, dtype_to_json_v2(fdt)]

    return [entry(n, dtype.fields[n][0]) for n in dtype.names]


def _object_chain(npdt: np.dtype, filters: list | None, compressor: Any):
    """``(filters, compressor)`` as read: an ``|O`` array with no filters whose
    ``compressor`` is an object codec (vlen-utf8, ...) has it as its one filter, which is
    how zarr-python 3 reads such stores (numcodecs decodes the objects either way)."""
    if (npdt.kind == "O" and not filters and isinstance(compressor, dict)
            and is_serializer(compressor)):
        return [compressor], None
    return filters, compressor


def _data_type(npdt: np.dtype, filters: list | None = None, doc: str = ZARRAY) -> DataType:
    """The internal DataType of a stored v2 dtype (``filters`` name an ``|O`` array's type)."""
    if npdt.kind == "O":
        name = object_type(filters)
        if name is None:
            raise UnsupportedError(
                f"{doc}: dtype: an object array ('|O') needs an object codec as its first "
                f"filter (vlen-utf8, vlen-bytes, vlen-array, ...), got filters {_show(filters)}"
                f" (creating one: pass object_codec=numcodecs.VLenUTF8(), or dtype=str)")
        return vlen_data_type(name)
    if npdt.fields is not None:
        return DataType("structured", npdt)  # fields keep their byte orders
    if ml_data_type_of(npdt) is not None:
        return ml_data_type_of(npdt)
    if npdt.kind == "V":
        return DataType("raw_bytes", npdt)  # zarr-python 3's name for v2 '|V<n>'
    return data_type_from_numpy(npdt.newbyteorder("=") if npdt.kind not in "SV" else npdt)


# ---------------------------------------------------------------------------------------
# fill_value
# ---------------------------------------------------------------------------------------


def _parse_float(value: Any, fdt: np.dtype, doc: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if not isinstance(value, int) or abs(value) < 2**1023 else (
            math.inf if value > 0 else -math.inf)
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    if isinstance(value, str) and value in special:
        return special[value]
    # true, "1.5", "nan", "inf" (zarr-python reads them), a v3-style hex string
    loose = loose_float(value)
    if loose is None and isinstance(value, str):
        bits = loose_hex_float(value, np.dtype("f8"))
        loose = None if bits is None else float(bits)
    if loose is not None:
        return loose
    raise _err(doc, "fill_value", f"expected a number, 'NaN', 'Infinity' or '-Infinity' "
               f"for {fdt}, got {_show(value)}")


def _base64(value: Any, npdt: np.dtype, doc: str, pad: bool) -> bytes:
    try:
        raw = base64.b64decode(str(value).encode("ascii"), validate=True)
        if not isinstance(value, str):
            raise ValueError
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise _err(doc, "fill_value", f"expected a base64 string for {npdt}, "
                   f"got {_show(value)}") from None
    if len(raw) > npdt.itemsize or (not pad and len(raw) != npdt.itemsize):
        raise _err(doc, "fill_value", f"the base64 value holds {len(raw)} bytes, expected "
                   f"{'at most ' if pad else ''}{npdt.itemsize} for {npdt}")
    return raw.ljust(npdt.itemsize, b"\0")


def parse_fill_value_v2(npdt: np.dtype, dt: DataType, value: Any, doc: str) -> np.ndarray | None:
    """The fill value as a 0-d array of ``dt.dtype`` (None for ``null``)."""
    if value is None:
        return None
    kind = npdt.kind
    out_dt = dt.dtype
    if kind == "O":
        return vlen_fill(dt, value, doc, json_form=True)
    if ml_data_type_of(npdt) is not None:
        return parse_ml_fill(dt, value, doc)
    if kind in "SU" and value == 0 and not isinstance(value, bool):
        return np.zeros((), dtype=out_dt)  # zarr-python 2 wrote 0 for string types
    if npdt.fields is not None or kind in "SV":
        raw = _base64(value, npdt, doc, pad=kind == "S")
        return np.frombuffer(raw, dtype=out_dt).reshape(()).copy()
    if kind == "U":
        if not isinstance(value, str) or len(value) > npdt.itemsize // 4:
            raise _err(doc, "fill_value", f"expected a string of at most "
                       f"{npdt.itemsize // 4} characters for {npdt}, got {_show(value)}")
        return np.array(value, dtype=out_dt)
    if kind in "Mm":
        if value == "NaT":
            value = -(2**63)
        elif not isinstance(value, int) or isinstance(value, bool):
            value = loose_int(value) if loose_int(value) is not None else value
        if not isinstance(value, int) or isinstance(value, bool) or not -(2**63) <= value < 2**63:
            raise _err(doc, "fill_value", f"expected a 64-bit integer for {npdt}, "
                       f"got {_show(value)}")
        return np.array(value, dtype="i8").view(out_dt).reshape(())
    if kind == "b":
        if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
            return np.array(bool(value), dtype=out_dt)
        raise _err(doc, "fill_value", f"expected true or false for {npdt}, got {_show(value)}")
    if kind in "iu":
        info = np.iinfo(out_dt)
        if not isinstance(value, int) or isinstance(value, bool):
            # some writers put 0.0, true or "0" here; zarr-python reads them
            value = loose_int(value) if loose_int(value) is not None else value
        if not isinstance(value, int) or isinstance(value, bool) or not (
                info.min <= value <= info.max):
            raise _err(doc, "fill_value", f"expected an integer in [{info.min}, {info.max}] "
                       f"for {npdt}, got {_show(value)}")
        return np.array(value, dtype=out_dt)
    if kind == "f":
        with np.errstate(over="ignore"):
            return np.array(_parse_float(value, npdt, doc), dtype=out_dt)
    # complex: [re, im] as zarr-python writes; a plain number means no imaginary part
    if isinstance(value, list) and len(value) == 2:
        re_part, im_part = (_parse_float(v, npdt, doc) for v in value)
    else:
        re_part, im_part = _parse_float(value, npdt, doc), 0.0
    with np.errstate(over="ignore"):
        return np.array(complex(re_part, im_part), dtype=out_dt)


def _float_json(x: float) -> Any:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


def fill_value_to_json_v2(npdt: np.dtype, value: np.ndarray | None) -> Any:
    """The JSON form of a fill value (see the module docstring)."""
    if value is None:
        return None
    kind = npdt.kind
    if kind == "O":
        v = np.asarray(value)[()]
        if isinstance(v, bytes):
            return base64.standard_b64encode(v).decode("ascii")
        return None if v is None else str(v)
    ml = ml_data_type_of(npdt)
    if ml is not None:
        return ml_fill_to_json(ml, value)
    if npdt.fields is not None or kind in "SV":
        raw = np.asarray(value).reshape(1).view(np.uint8).tobytes()
        if kind == "S":
            raw = raw.rstrip(b"\0")  # as zarr-python writes it; read back zero-padded
        return base64.standard_b64encode(raw).decode("ascii")
    v = value[()]
    if kind == "U":
        return str(v)
    if kind in "Mm":
        return int(np.asarray(value).reshape(1).view("i8")[0])
    if kind == "b":
        return bool(v)
    if kind in "iu":
        return int(v)
    if kind == "f":
        return _float_json(float(v))
    return [_float_json(float(v.real)), _float_json(float(v.imag))]


# ---------------------------------------------------------------------------------------
# codecs: v2 filters/compressor -> v3-shaped chain
# ---------------------------------------------------------------------------------------

def _check_codec(obj: Any, doc: str, member: str) -> dict:
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
        raise _err(doc, member, f"expected an object with a string 'id', got {_show(obj)}")
    return obj


def _byte_order(npdt: np.dtype) -> str | None:
    if npdt.fields is not None or npdt.kind in "SVb" or npdt.itemsize == 1:
        return None
    if npdt.kind == "U" or npdt.kind in "iufcMm":
        return "big" if npdt.byteorder == ">" else "little"  # '=' is little on x86/arm
    return None


def codecs_v2_to_v3(dtype: np.dtype, order: str, ndim: int, filters: list | None,
                    compressor: dict | None, doc: str) -> list[dict]:
    """The v3-shaped codec chain that reads and writes the same chunk bytes as v2."""
    filters, compressor = _object_chain(dtype, filters, compressor)
    chain: list[dict] = []
    if order == "F" and ndim > 1:
        chain.append({"name": "transpose", "configuration": {"order": list(range(ndim))[::-1]}})
    current = dtype
    serialized = False
    filters = list(filters or [])
    # a trailing run of filters that are v3 compressors or checksums (blosc, crc32c, ...)
    # works on the serialised chunk: their entries follow the bytes codec (same bytes)
    n_array = len(filters)
    while n_array and is_bytes_level(filters[n_array - 1]):
        n_array -= 1
    for conf in filters[:n_array]:
        chain.append(v2_entry(conf, current))
        serialized = serialized or is_serializer(conf)  # an object codec: no bytes codec
        current = v2_out_dtype(conf, current)
    # a compressor that serialises the array itself (zfpy, pcodec: numcodecs hands it the
    # chunk as an array) stands in for the bytes codec, as zarr-python 3 reads it
    serialized = serialized or (compressor is not None and not filters[n_array:]
                                and is_serializer(compressor))
    if not serialized:
        endian = _byte_order(current)
        chain.append({"name": "bytes", "configuration": {"endian": endian}} if endian
                     else {"name": "bytes"})
    chain.extend(v2_entry(conf, current) for conf in filters[n_array:])
    if compressor is not None:
        chain.append(v2_entry(compressor, current))
    return chain


# ---------------------------------------------------------------------------------------
# documents
# ---------------------------------------------------------------------------------------


def _load(data: Any, doc: str) -> dict:
    if isinstance(data, dict):
        return copy.deepcopy(data)
    try:
        obj = json.loads(bytes(data).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise MetadataError(f"{doc}: not valid UTF-8 ({exc})") from None
    except json.JSONDecodeError as exc:
        raise MetadataError(f"{doc}: not valid JSON: {exc.msg} at line {exc.lineno} "
                            f"column {exc.colno}") from None
    if not isinstance(obj, dict):
        raise MetadataError(f"{doc}: expected a JSON object at the top level, got {_show(obj)}")
    return obj


def _dumps(obj: Any, doc: str) -> bytes:
    try:
        return json.dumps(obj, indent=2, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise MetadataError(f"{doc}: cannot be written as strict JSON ({exc})") from None


def _check_format(d: dict, doc: str) -> None:
    fmt = d.get("zarr_format")
    if not (isinstance(fmt, int) and not isinstance(fmt, bool) and fmt == 2):
        raise _err(doc, "zarr_format", f"expected 2, got {_show(fmt)}")


def _ints(value: Any, doc: str, member: str, positive: bool) -> tuple[int, ...]:
    lo = 1 if positive else 0
    if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= lo for v in value):
        what = "positive" if positive else "non-negative"
        raise _err(doc, member, f"expected a list of {what} integers, got {_show(value)}")
    return tuple(value)


def _attributes(data: Any, doc: str) -> dict:
    if data is None:
        return {}
    return _load(data, doc)


def _dimension_names(attributes: dict, ndim: int) -> tuple | None:
    names = attributes.get("_ARRAY_DIMENSIONS")
    if isinstance(names, list) and len(names) == ndim and all(isinstance(n, str) for n in names):
        return tuple(names)
    return None


def _check_members(shape, chunks, order, separator, filters, compressor, doc: str) -> None:
    if len(chunks) != len(shape):
        raise _err(doc, "chunks", f"expected {len(shape)} chunk lengths (one per "
                   f"dimension of shape {list(shape)}), got {list(chunks)}")
    if order not in ("C", "F"):
        raise _err(doc, "order", f"expected 'C' or 'F', got {_show(order)}")
    if separator not in (".", "/"):
        raise _err(doc, "dimension_separator", f"expected '.' or '/', got {_show(separator)}")
    if filters is not None:
        for i, f in enumerate(filters):
            _check_codec(f, doc, f"filters[{i}]")
    if compressor is not None:
        _check_codec(compressor, doc, "compressor")


class _DocumentV2:
    zarr_format = 2

    def with_attributes(self, attributes: dict):
        """A copy with new ``attributes``."""
        return replace(self, attributes=attributes)

    def attributes_documents(self) -> dict[str, bytes]:
        """The documents to rewrite when only the attributes changed: ``.zattrs``."""
        return {ZATTRS: _dumps(self.attributes, ZATTRS)}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.documents() == other.documents()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, kw_only=True, eq=False)
class ArrayMetadataV2(_DocumentV2):
    """A v2 array: the validated ``.zarray`` plus the ``.zattrs`` attributes.

    Parameters
    ----------
    shape, chunks : tuple of int
    dtype : numpy.dtype
        As stored (byte order included).
    fill_value : numpy.ndarray or None
        0-d of ``data_type.dtype``; None is the JSON ``null``.
    order : {"C", "F"}
    filters : list of dict or None
    compressor : dict or None
    dimension_separator : {".", "/"}
    attributes : dict
    """

    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    dtype: np.dtype
    fill_value: np.ndarray | None = None
    order: str = "C"
    filters: list | None = None
    compressor: dict | None = None
    dimension_separator: str = "."
    attributes: dict = field(default_factory=dict)
    #: whether ``.zarray`` names the separator (old nested stores do not: see
    #: :meth:`guess_separator`)
    separator_given: bool = True
    #: the ``dtype`` string as read, written back while it still means ``dtype``: other
    #: readers tell apart what numpy does not (libnetcdf: ``">S1"`` is a char variable,
    #: ``"|S1"`` a string one)
    dtype_text: str | None = None

    node_type = "array"

    def guess_separator(self, exists, list_dir) -> ArrayMetadataV2:
        """The document with the separator its chunks use, when ``.zarray`` does not say.

        zarr-python 2 before 2.8 wrote nested chunk keys (``0/0``) without recording
        ``dimension_separator``; reading them as ``0.0`` would give fill values silently.
        ``exists(key)`` and ``list_dir()`` look at the chunk keys relative to the array;
        the first chunk decides, else any child named by digits alone (a nested key's
        first level: a flat key of two or more dimensions always holds a dot).
        """
        if self.separator_given or self.ndim < 2:
            return self
        zeros = ["0"] * self.ndim
        if exists(".".join(zeros)):
            return self
        if exists("/".join(zeros)) or any(n.isdigit() for n in list_dir()):
            return replace(self, dimension_separator="/")
        return self

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", np.dtype(self.dtype))
        _check_members(self.shape, self.chunks, self.order, self.dimension_separator,
                       self.filters, self.compressor, ZARRAY)

    @property
    def data_type(self) -> DataType:
        """The internal data type (native byte order for simple types)."""
        return _data_type(self.dtype, _object_chain(self.dtype, self.filters,
                                                    self.compressor)[0])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def chunk_shape(self) -> tuple[int, ...]:
        return self.chunks

    @property
    def dimension_names(self) -> tuple | None:
        """xarray's ``_ARRAY_DIMENSIONS`` attribute, when it names every dimension."""
        return _dimension_names(self.attributes, self.ndim)

    def codecs_v3(self, doc: str = ZARRAY) -> list[dict]:
        """The equivalent v3-shaped codec chain (see the module docstring)."""
        return codecs_v2_to_v3(self.dtype, self.order, self.ndim, self.filters,
                               self.compressor, doc)

    def to_spec(self) -> ArraySpec:
        """The internal ArraySpec: v2 chunk keys, v3-shaped codecs, null fill as zero."""
        dt = self.data_type
        fill = self.fill_value
        if fill is None:
            fill = vlen_fill(dt, None, ZARRAY, False) if dt.kind == "object" else np.zeros(
                (), dt.dtype)
            if dt.dtype.kind in "mM":
                # zarr-python 3 reads a null datetime fill as NaT (not the epoch)
                fill = np.full((), np.datetime64("NaT") if dt.dtype.kind == "M"
                               else np.timedelta64("NaT"), dt.dtype)
        return ArraySpec(
            shape=self.shape,
            data_type=dt,
            chunk_shape=self.chunks,
            chunk_key_encoding=ChunkKeyEncoding("v2", self.dimension_separator),
            fill_value=fill,
            codecs=self.codecs_v3(),
            dimension_names=self.dimension_names,
        )

    def with_shape(self, shape: tuple[int, ...]) -> ArrayMetadataV2:
        """A copy with a new ``shape`` (same number of dimensions)."""
        return replace(self, shape=tuple(shape))

    def to_dict(self) -> dict:
        """The ``.zarray`` document, members in zarr-python's order."""
        return {
            "shape": list(self.shape),
            "chunks": list(self.chunks),
            "dtype": self.dtype_text if self.dtype_text is not None and _same_dtype(
                self.dtype_text, self.dtype) else dtype_to_json_v2(self.dtype),
            "fill_value": fill_value_to_json_v2(self.dtype, self.fill_value),
            "order": self.order,
            "filters": copy.deepcopy(self.filters),
            "dimension_separator": self.dimension_separator,
            "compressor": copy.deepcopy(self.compressor),
            "zarr_format": 2,
        }

    def to_bytes(self) -> bytes:
        """The ``.zarray`` document as JSON bytes (``indent=2`` like zarr-python)."""
        return _dumps(self.to_dict(), ZARRAY)

    def documents(self) -> dict[str, bytes]:
        """``.zarray`` and ``.zattrs`` (zarr-python writes both, ``{}`` when empty)."""
        return {ZARRAY: self.to_bytes(), **self.attributes_documents()}

    @classmethod
    def from_json(cls, zarray: Any, zattrs: Any = None, doc: str = ZARRAY) -> ArrayMetadataV2:
        """Parse ``.zarray`` (bytes, str or dict) and the optional ``.zattrs``.

        ``doc`` is the store key of ``.zarray``; ``.zattrs`` errors name its sibling key.
        """
        d = _load(zarray, doc)
        _check_format(d, doc)
        missing = [k for k in _REQUIRED if k not in d]
        if missing:
            raise _err(doc, missing[0], "missing required member")
        # members the v2 spec does not name are ignored (zarr-python 2 and 3 do the same)
        shape = _ints(d["shape"], doc, "shape", positive=False)
        chunks = _ints(d["chunks"], doc, "chunks", positive=True)
        npdt = dtype_from_json_v2(d["dtype"], doc)
        if npdt.kind == "V" and npdt.fields is None and npdt.subdtype is not None:
            raise UnsupportedError(f"{doc}: dtype: a sub-array type at the top level")
        filters = d.get("filters")
        if filters is not None and not isinstance(filters, list):
            raise _err(doc, "filters", f"expected a list or null, got {_show(filters)}")
        if npdt.kind in "US" and filters and object_type(filters[:1]) in (
                "string", "variable_length_bytes"):
            # zarr-python 3.0 wrote dtype=str/bytes arrays as '<U4' / '|S3' whose chunks are
            # vlen-utf8 / vlen-bytes: variable-length elements, as '|O' says (written back so)
            npdt = np.dtype(object)
        separator = d.get("dimension_separator") or "."  # absent or null: "."
        _check_members(shape, chunks, d["order"], separator, filters, d.get("compressor"), doc)
        fill = parse_fill_value_v2(npdt, _data_type(
            npdt, _object_chain(npdt, filters, d.get("compressor"))[0], doc), d["fill_value"], doc)
        attrs_doc = doc[: -len(ZARRAY)] + ZATTRS
        return cls(
            shape=shape, chunks=chunks, dtype=npdt, fill_value=fill, order=d["order"],
            filters=filters or None,
            compressor=d.get("compressor"),
            dimension_separator=separator,
            separator_given=d.get("dimension_separator") is not None,
            attributes=_attributes(zattrs, attrs_doc),
            dtype_text=d["dtype"] if isinstance(d["dtype"], str) else None,
        )


@dataclass(frozen=True, kw_only=True, eq=False)
class GroupMetadataV2(_DocumentV2):
    """A v2 group: ``.zgroup`` plus the ``.zattrs`` attributes."""

    attributes: dict = field(default_factory=dict)

    node_type = "group"

    def to_bytes(self) -> bytes:
        """The ``.zgroup`` document."""
        return _dumps({"zarr_format": 2}, ZGROUP)

    def to_dict(self) -> dict:
        return {"zarr_format": 2}

    def documents(self) -> dict[str, bytes]:
        """``.zgroup`` and ``.zattrs``."""
        return {ZGROUP: self.to_bytes(), **self.attributes_documents()}

    @classmethod
    def from_json(cls, zgroup: Any, zattrs: Any = None, doc: str = ZGROUP) -> GroupMetadataV2:
        """Parse ``.zgroup`` and the optional ``.zattrs``."""
        d = _load(zgroup, doc)
        _check_format(d, doc)
        return cls(attributes=_attributes(zattrs, doc[: -len(ZGROUP)] + ZATTRS))


def parse_array_v2(zarray: Any, zattrs: Any = None, doc: str = ZARRAY) -> ArrayMetadataV2:
    """Parse the documents of a v2 array (see :meth:`ArrayMetadataV2.from_json`)."""
    return ArrayMetadataV2.from_json(zarray, zattrs, doc)


def parse_group_v2(zgroup: Any, zattrs: Any = None, doc: str = ZGROUP) -> GroupMetadataV2:
    """Parse the documents of a v2 group."""
    return GroupMetadataV2.from_json(zgroup, zattrs, doc)


#: ``fill_value`` of :func:`array_v2_from_user` when the user gave none: an object array
#: then takes its type's empty value (``""`` / ``b""``), while an explicit None stays null
TYPE_DEFAULT_FILL = type("TypeDefaultFill", (), {"__repr__": lambda self: "<type default>"})()


def array_v2_from_user(shape, chunks, dtype, fill_value, order, filters, compressor,
                       dimension_separator, attributes, doc: str) -> ArrayMetadataV2:
    """Build the metadata of a new v2 array from ``create_array`` arguments.

    ``dtype`` is any numpy dtype-like; its byte order is kept (default: native, written
    explicitly). ``filters``/``compressor`` are numcodecs-style dicts (``{"id": ...}``).
    """
    filters = list(filters or [])
    try:
        npdt = np.dtype(dtype)
    except TypeError as exc:
        raise MetadataError(f"dtype: expected a numpy dtype, got {dtype!r} ({exc})") from None
    vlen = {"T": "string", "U": "string", "S": "variable_length_bytes"}.get(npdt.kind)
    if npdt.kind == "O" or (vlen and npdt.itemsize == 0) or npdt.kind == "T":
        # dtype=str / bytes / StringDType / object: an object array with its object codec
        if object_type(filters) is None and vlen:
            filters.insert(0, {"id": object_codec_id(vlen)})
        npdt = np.dtype(object)
    npdt = dtype_from_json_v2(dtype_to_json_v2(npdt), doc)  # refuses what v2 cannot store
    dt = _data_type(npdt, filters, doc)
    fill = None
    if npdt.kind == "O":
        # an explicit None stays null, as zarr-python 3 writes it (elements then read as
        # the type's empty value); create()'s default (not given) arrives as "" / b""
        fill = None if fill_value is None else vlen_fill(
            dt, None if fill_value is TYPE_DEFAULT_FILL else fill_value, doc, json_form=False)
    elif fill_value is TYPE_DEFAULT_FILL:
        fill = None
    elif fill_value is not None:
        try:
            if npdt.fields is not None and isinstance(fill_value, (bytes, bytearray)):
                fill = np.frombuffer(bytes(fill_value), dtype=dt.dtype).reshape(()).copy()
            elif npdt.kind == "S" and isinstance(fill_value, (float, complex, np.inexact)):
                raise TypeError("a float is not a bytes value")  # numpy would store b"nan"
            else:
                fill = np.array(fill_value, dtype=dt.dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise MetadataError(f"{doc}: fill_value: cannot convert {fill_value!r} to "
                                f"{npdt}: {exc}") from None
        if fill.shape != ():
            raise MetadataError(f"{doc}: fill_value: expected a scalar, got shape {fill.shape}")
    md = ArrayMetadataV2(
        shape=tuple(shape), chunks=tuple(chunks), dtype=npdt, fill_value=fill, order=order,
        filters=filters or None, compressor=compressor,
        dimension_separator=dimension_separator, attributes=dict(attributes or {}),
    )
    # round-trip through JSON: what we write must parse back
    return ArrayMetadataV2.from_json(md.to_dict(), md.attributes, doc)


def little_endian_dtype(dtype: np.dtype) -> np.dtype:
    """``dtype`` with little-endian components (v3's byte order for structured types)."""
    return little(dtype)
