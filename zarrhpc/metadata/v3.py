"""Zarr v3 ``zarr.json`` documents: JSON <-> validated objects (core 3.0 + 3.1 / ZEP 9).

Spec: zarr-specs docs/v3/core/index.rst ("Array metadata", "Group metadata", "Extensions")
and ZEP 9 (extension naming, short-hand names, ``must_understand``, the ``extensions``
member).

Life cycle: a document read from a store is parsed once with :func:`parse_metadata_v3`
(or ``ArrayMetadataV3.from_json`` / ``GroupMetadataV3.from_json``), which validates every
member and fails with a :class:`~zarrhpc.errors.MetadataError` naming the document, the
member, what was expected and what was found. The resulting objects are immutable; a
change (resize, new attributes) makes a new object (:meth:`ArrayMetadataV3.with_shape`,
``dataclasses.replace``). ``to_bytes()`` writes the document back.

What is checked here and what is not:

- every core member, its JSON type and its consistency with ``shape``;
- extension entries (``data_type``, ``chunk_grid``, ``chunk_key_encoding``, each codec,
  each storage transformer, each entry of ``extensions``): a short-hand name string, or an
  object with ``name`` (a registered raw name ``^[a-z][a-z0-9-_.]+$`` or a URI), optional
  ``configuration`` (object) and optional ``must_understand`` (bool);
- codecs are kept as given (short-hand strings or objects) and interpreted by the codec
  layer, not here;
- unknown top-level members fail unless they are objects with ``"must_understand":
  false``; those are kept in ``extra`` and written back. ``must_understand: false`` is
  refused on ``data_type``, ``chunk_grid`` and ``chunk_key_encoding``;
- ``extensions`` (ZEP 9) is a non-empty array of extension definitions, implicitly
  must-understand. zarrhpc implements no generic extension, so a document opens only when
  every entry says ``"must_understand": false``; the member is then kept in ``extra``.
- zarrhpc supports no storage transformer: ``storage_transformers`` may be absent, empty,
  or hold only ``must_understand: false`` entries (kept and written back).

Serialisation is deterministic and matches zarr-python 3 byte for byte: UTF-8 JSON with
``indent=2``, ASCII escapes, no NaN literals (``allow_nan=False``), members in the order
``shape, data_type, chunk_grid, chunk_key_encoding, fill_value, codecs, attributes,
[dimension_names], zarr_format, node_type, storage_transformers`` followed by ``extra`` in
document order (groups: ``attributes, zarr_format, [consolidated_metadata], node_type``,
then the other extra members). Defaults are written out (``attributes: {}``,
``storage_transformers: []``, the chunk key encoding's separator).

Reading is lenient in one respect: the ``NaN``/``Infinity`` literals that zarr-python
writes into ``attributes`` are read (as Python floats), but such attributes cannot be
written back and ``to_bytes`` says so.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.as_written import Document, written_form
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.dtypes import (
    DataType,
    _show,
    data_type_from_numpy,
    fill_value_from_user,
    fill_value_to_json,
    parse_data_type,
    parse_fill_value,
)
from zarrhpc.metadata.grids import RectilinearGrid, RegularBoundedGrid
from zarrhpc.metadata.names import member_error as _err
from zarrhpc.metadata.names import parse_extension_entry
from zarrhpc.metadata.names import required_extension_entry as _required_extension

__all__ = [
    "ArrayMetadataV3",
    "GroupMetadataV3",
    "parse_metadata_v3",
]


_ARRAY_KEYS = (
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "zarr_format",
    "node_type",
    "storage_transformers",
)
_ARRAY_REQUIRED = (
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
)
_GROUP_KEYS = ("attributes", "zarr_format", "node_type")


def _optional_extensions(
    value: Any, doc: str, field_name: str, what: str, *, empty_ok: bool
) -> list:
    """Validate a list of extension entries of which zarrhpc understands none: each must be
    ``must_understand: false``. Returns a deep copy of the list as given."""
    if not isinstance(value, (list, tuple)) or (not value and not empty_ok):
        expected = "an array" if empty_ok else "a non-empty array (omit the member when empty)"
        raise _err(
            doc, field_name, f"expected {expected} of extension definitions, got {_show(value)}"
        )
    for i, item in enumerate(value):
        entry = parse_extension_entry(item, doc, f"{field_name}[{i}]")
        if entry.must_understand:
            raise _err(
                doc,
                f"{field_name}[{i}]",
                f"{what} {entry.name!r} is not supported by zarrhpc and is not marked "
                f'"must_understand": false',
            )
    return copy.deepcopy(list(value))


def _check_extra(extra: Any, known: tuple[str, ...], doc: str) -> dict:
    """Validate unknown top-level members; every one must be ignorable."""
    if not isinstance(extra, dict):
        raise _err(doc, "extra", f"expected a dict of extra members, got {extra!r}")
    out = {}
    for key, value in extra.items():
        if key in known:
            raise _err(doc, key, "is a core member and cannot be an extra member")
        if key == "consolidated_metadata" and value is None:
            continue  # zarr-python writes null for "not consolidated": nothing to keep
        if key == "extensions":
            out[key] = _optional_extensions(value, doc, key, "extension", empty_ok=False)
        elif isinstance(value, dict) and value.get("must_understand") is False:
            out[key] = copy.deepcopy(value)
        else:
            raise _err(
                doc,
                key,
                f"unknown member, not understood by zarrhpc and not an object with "
                f'"must_understand": false, got {_show(value)}',
            )
    return out


# ---------------------------------------------------------------------------------------
# member checks shared by from_json and the constructors
# ---------------------------------------------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_shape(value: Any, doc: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(_is_int(v) and v >= 0 for v in value):
        raise _err(doc, "shape", f"expected an array of non-negative integers, got {_show(value)}")
    return tuple(int(v) for v in value)


def _check_chunk_shape(value: Any, ndim: int, doc: str, fname: str,
                       shape: tuple[int, ...] | None = None) -> tuple[int, ...]:
    # a chunk length 0 is accepted on an axis of length 0 (zarr-python writes chunks equal
    # to such a shape); the grid then has no chunk along it
    if (
        not isinstance(value, (list, tuple))
        or len(value) != ndim
        or not all(_is_int(v) and (v > 0 or (v == 0 and shape is not None and shape[i] == 0))
                   for i, v in enumerate(value))
    ):
        raise _err(
            doc,
            fname,
            f"expected an array of {ndim} positive integers (one per dimension of shape; 0 "
            f"only where the shape is 0), got {_show(value)}",
        )
    return tuple(int(v) for v in value)


def _parse_chunk_grid(obj: Any, shape: tuple[int, ...], doc: str):
    """``(chunk_shape, irregular RectilinearGrid or None)`` (RectilinearGrid.read)."""
    fname = "chunk_grid"
    entry = _required_extension(obj, doc, fname)
    if entry.name == "rectilinear":  # zarr-extensions
        return RectilinearGrid.read(entry.configuration, shape, doc)
    if entry.name == "zarrs.regular_bounded":
        return RegularBoundedGrid.read(entry.configuration, shape, doc)
    if entry.name != "regular":
        raise _err(doc, fname, f"unknown chunk grid {entry.name!r}; zarrhpc supports 'regular',"
                   f" 'rectilinear' and 'zarrs.regular_bounded'")
    conf = entry.configuration
    if conf is None or "chunk_shape" not in conf:
        raise _err(doc, f"{fname}.configuration.chunk_shape",
                   f"missing (the regular grid needs an array of chunk lengths), got {_show(obj)}")
    unknown = [k for k in conf if k != "chunk_shape"]
    if unknown:
        raise _err(doc, f"{fname}.configuration", f"unexpected member {unknown[0]!r}")
    return _check_chunk_shape(conf["chunk_shape"], len(shape), doc,
                              f"{fname}.configuration.chunk_shape", shape), None


def _check_codecs(value: Any, doc: str, own: bool = False) -> list:
    """The checked codec entries; a deep copy unless ``own`` (freshly parsed JSON)."""
    if not isinstance(value, (list, tuple)) or not value:
        raise _err(
            doc,
            "codecs",
            f"expected a non-empty array of codec definitions (it must hold an "
            f"array->bytes codec), got {_show(value)}",
        )
    for i, item in enumerate(value):
        parse_extension_entry(item, doc, f"codecs[{i}]")
    return list(value) if own else copy.deepcopy(list(value))


def _or(value: Any, default: Any) -> Any:
    """``value``, or ``default`` for a member written as ``null``."""
    return default if value is None else value


def _check_attributes(value: Any, doc: str) -> dict:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _err(doc, "attributes", f"expected an object, got {_show(value)}")
    return value


def _check_dimension_names(value: Any, ndim: int, doc: str) -> tuple | None:
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != ndim
        or not all(v is None or isinstance(v, str) for v in value)
    ):
        raise _err(
            doc,
            "dimension_names",
            f"expected an array of {ndim} strings or nulls (one per dimension of shape), "
            f"got {_show(value)}",
        )
    return tuple(value)


def _load_document(data: Any, doc: str) -> dict:
    """bytes/str/dict -> a fresh dict (never the caller's object)."""
    if isinstance(data, dict):
        return copy.deepcopy(data)
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MetadataError(f"{doc}: not valid UTF-8 ({exc})") from None
    if not isinstance(data, str):
        raise MetadataError(
            f"{doc}: expected the document as bytes, str or dict, got {type(data).__name__}"
        )

    def no_duplicates(pairs: list) -> dict:
        out = {}
        for key, value in pairs:
            if key in out:
                raise MetadataError(f"{doc}: member {key!r} appears twice in one object")
            out[key] = value
        return out

    try:
        obj = json.loads(data, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise MetadataError(
            f"{doc}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if not isinstance(obj, dict):
        raise MetadataError(f"{doc}: expected a JSON object at the top level, got {_show(obj)}")
    return obj


def _check_format(d: dict, doc: str) -> str:
    """Check zarr_format and node_type; return node_type."""
    if "zarr_format" not in d:
        raise _err(doc, "zarr_format", "missing required member (expected 3)")
    fmt = d["zarr_format"]
    if not (_is_int(fmt) and fmt == 3):
        hint = ""
        if _is_int(fmt) and fmt == 2:
            hint = " (a Zarr v2 format number; v2 metadata lives in .zarray/.zgroup)"
        elif isinstance(fmt, str) and "zarr" in fmt:
            hint = " (the 2022 draft of v3 wrote a URI here; that layout has its own reader)"
        raise _err(doc, "zarr_format", f"expected 3, got {_show(fmt)}{hint}")
    if "node_type" not in d:
        raise _err(doc, "node_type", "missing required member (expected 'array' or 'group')")
    node_type = d["node_type"]
    if node_type not in ("array", "group"):
        raise _err(doc, "node_type", f"expected 'array' or 'group', got {_show(node_type)}")
    return node_type


def _dumps(d: dict, doc: str) -> bytes:
    try:
        return json.dumps(d, indent=2, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):
        for key, value in d.items():
            try:
                json.dumps(value, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise _err(doc, key, f"cannot be written as strict JSON ({exc})") from None
        raise  # pragma: no cover - one of the members must have failed


# ---------------------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------------------


class _NodeDocument:
    """What array and group metadata share: serialisation, equality, attribute updates.

    Subclasses are frozen, ``eq=False`` dataclasses with ``attributes`` and ``to_dict()``.
    """

    def to_bytes(self, doc: str = "zarr.json") -> bytes:
        """The document as UTF-8 JSON bytes (``indent=2``, no NaN literals).

        Parameters
        ----------
        doc : str, optional
            Store key used in error messages.

        Returns
        -------
        bytes

        Raises
        ------
        MetadataError
            A member (normally ``attributes``) holds a value that is not strict JSON,
            e.g. a NaN float or a numpy object.
        """
        return _dumps(self.to_dict(), doc)

    def with_attributes(self, attributes: dict):
        """A copy with new ``attributes``."""
        return replace(self, attributes=attributes)

    def documents(self) -> dict[str, bytes]:
        """Every document of the node, keyed by name relative to the node's path."""
        return {"zarr.json": self.to_bytes()}

    def attributes_documents(self) -> dict[str, bytes]:
        """The documents to rewrite when only the attributes changed."""
        return self.documents()

    def to_dict(self) -> dict:
        """The document as a JSON-ready dict: zarrhpc's canonical form (zarr-python's
        member order) for a node created here; for a node read from a store, every member
        this object did not change as that document spelled it
        (:mod:`zarrhpc.metadata.as_written`).

        Returns
        -------
        dict
            A fresh object; changing it does not change ``self``.
        """
        return written_form(self._canonical_dict(), self.source, lambda d: type(
            self)._from_dict(d, "zarr.json")._canonical_dict())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._canonical_dict() == other._canonical_dict()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, kw_only=True, eq=False)
class ArrayMetadataV3(_NodeDocument):
    """The validated content of an array's ``zarr.json``.

    Parameters
    ----------
    shape : tuple of int
    data_type : DataType
        (anything :func:`~zarrhpc.metadata.dtypes.data_type_from_numpy` accepts is
        converted)
    chunk_shape : tuple of int
        The ``regular`` chunk grid's ``chunk_shape``; positive, one per dimension.
    chunk_key_encoding : ChunkKeyEncoding, optional
        Default ``ChunkKeyEncoding("default", "/")``.
    fill_value : numpy.ndarray, optional
        0-d of ``data_type.dtype``; other values go through ``fill_value_from_user``
        (None means zero). Stored as a read-only private copy.
    codecs : list
        Codec definitions as JSON (short-hand strings or objects), not interpreted here.
    attributes : dict, optional
    dimension_names : tuple of (str or None), optional
    storage_transformers : list, optional
        Only ``must_understand: false`` entries (zarrhpc implements none).
    extra : dict, optional
        Ignorable top-level members (``must_understand: false`` objects, an all-optional
        ``extensions`` array), written back after the core members.

    Examples
    --------
    >>> m = ArrayMetadataV3.from_json(data, "a/zarr.json")   # doctest: +SKIP
    >>> m.to_bytes() == data                                   # doctest: +SKIP
    """

    shape: tuple[int, ...]
    data_type: DataType
    chunk_shape: tuple[int, ...]
    chunk_key_encoding: ChunkKeyEncoding = field(default_factory=ChunkKeyEncoding)
    fill_value: np.ndarray | None = None
    codecs: list
    attributes: dict = field(default_factory=dict)
    dimension_names: tuple | None = None
    storage_transformers: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    chunk_grid: RectilinearGrid | None = None  # an irregular rectilinear grid, else None
    #: the document as read (None: created here); see :meth:`to_dict`
    source: dict | None = field(default=None, repr=False)

    zarr_format = 3
    node_type = "array"

    @classmethod
    def _checked(cls, **members) -> ArrayMetadataV3:
        """An instance from members that are already validated and owned by it."""
        obj = object.__new__(cls)
        for name, value in members.items():
            object.__setattr__(obj, name, value)
        return obj

    def __post_init__(self) -> None:
        doc = "ArrayMetadataV3"
        setf = object.__setattr__
        shape = _check_shape(self.shape, doc)
        setf(self, "shape", shape)
        dt = (
            self.data_type
            if isinstance(self.data_type, DataType)
            else data_type_from_numpy(self.data_type)
        )
        setf(self, "data_type", dt)
        grid = self.chunk_grid
        if grid is not None:  # irregular: edges reach the shape (a resize adds edges)
            setf(self, "chunk_grid", grid.covering(shape))
            setf(self, "chunk_shape", self.chunk_grid.max_edges(shape))
        setf(
            self,
            "chunk_shape",
            _check_chunk_shape(self.chunk_shape, len(shape), doc, "chunk_shape", shape),
        )
        if not isinstance(self.chunk_key_encoding, ChunkKeyEncoding):
            raise _err(
                doc,
                "chunk_key_encoding",
                f"expected a ChunkKeyEncoding, got {self.chunk_key_encoding!r}",
            )
        fv = self.fill_value
        if not (isinstance(fv, np.ndarray) and not fv.flags.writeable and fv.dtype == dt.dtype):
            # a private, read-only copy: the metadata object is immutable
            fv = fill_value_from_user(dt, fv, doc)
            fv.flags.writeable = False
        setf(self, "fill_value", fv)
        setf(self, "codecs", _check_codecs(self.codecs, doc))
        setf(self, "attributes", _check_attributes(self.attributes, doc))
        setf(self, "dimension_names", _check_dimension_names(self.dimension_names, len(shape), doc))
        setf(
            self,
            "storage_transformers",
            _optional_extensions(
                self.storage_transformers,
                doc,
                "storage_transformers",
                "storage transformer",
                empty_ok=True,
            ),
        )
        setf(self, "extra", _check_extra(self.extra, _ARRAY_KEYS, doc))

    # -- reading ------------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: bytes | str | dict, doc: str) -> ArrayMetadataV3:
        """Parse and validate an array document.

        Parameters
        ----------
        data : bytes, str or dict
            The content of ``zarr.json`` (bytes are UTF-8 JSON) or the decoded object.
        doc : str
            Store key of the document, e.g. ``"a/b/zarr.json"``; prefixes every message.

        Returns
        -------
        ArrayMetadataV3

        Raises
        ------
        MetadataError
            Invalid JSON, a missing or malformed member, ``node_type`` other than
            ``"array"``, or an unknown member that must be understood.
        """
        d = _load_document(data, doc)
        node_type = _check_format(d, doc)
        if node_type != "array":
            raise _err(doc, "node_type", f"expected 'array', got {_show(node_type)}")
        return cls._from_dict(d, doc)

    @classmethod
    def _from_dict(cls, d: dict, doc: str) -> ArrayMetadataV3:
        for key in _ARRAY_REQUIRED:
            if key not in d:
                raise _err(doc, key, "missing required member")
        shape = _check_shape(d["shape"], doc)
        dt = parse_data_type(d["data_type"], doc)
        chunk_shape, grid = _parse_chunk_grid(d["chunk_grid"], tuple(shape), doc)
        cke = ChunkKeyEncoding.from_json(d["chunk_key_encoding"], doc)
        fill_value = parse_fill_value(dt, d["fill_value"], doc)
        codecs = _check_codecs(d["codecs"], doc, own=True)
        # null means absent (read liberally, as zarr-python does; written as absent or
        # as the default)
        attributes = _check_attributes(_or(d.get("attributes"), {}), doc)
        dimension_names = _check_dimension_names(d.get("dimension_names"), len(shape), doc)
        storage_transformers = _optional_extensions(
            _or(d.get("storage_transformers"), []),
            doc,
            "storage_transformers",
            "storage transformer",
            empty_ok=True,
        )
        extra = _check_extra({k: v for k, v in d.items() if k not in _ARRAY_KEYS}, _ARRAY_KEYS, doc)
        fill_value.flags.writeable = False
        # every member is checked above and freshly parsed: skip __post_init__'s second
        # round of checks and defensive copies (they were most of the cost of opening)
        return cls._checked(
            shape=shape,
            data_type=dt,
            chunk_shape=chunk_shape,
            chunk_key_encoding=cke,
            fill_value=fill_value,
            codecs=codecs,
            attributes=attributes,
            dimension_names=dimension_names,
            storage_transformers=storage_transformers,
            extra=extra,
            chunk_grid=grid,
            source=Document(d),
        )

    # -- writing ------------------------------------------------------------------------

    def _canonical_dict(self) -> dict:
        """The document in zarrhpc's form, members in zarr-python's order (fresh)."""
        out: dict[str, Any] = {
            "shape": list(self.shape),
            "data_type": self.data_type.to_json(),
            "chunk_grid": {
                "name": "regular",
                "configuration": {"chunk_shape": list(self.chunk_shape)},
            } if self.chunk_grid is None else self.chunk_grid.to_json(),
            "chunk_key_encoding": self.chunk_key_encoding.to_json(),
            "fill_value": fill_value_to_json(self.data_type, self.fill_value),
            "codecs": copy.deepcopy(self.codecs),
            "attributes": copy.deepcopy(self.attributes),
        }
        if self.dimension_names is not None:
            out["dimension_names"] = list(self.dimension_names)
        out["zarr_format"] = 3
        out["node_type"] = "array"
        out["storage_transformers"] = copy.deepcopy(self.storage_transformers)
        out.update(copy.deepcopy(self.extra))
        return out

    # -- conveniences -------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of elements (native byte order)."""
        return self.data_type.dtype

    @property
    def chunk_grid_shape(self) -> tuple[int, ...]:
        """Number of chunks along each dimension holding elements."""
        if self.chunk_grid is not None:
            return self.chunk_grid.grid_shape(self.shape)
        return tuple(-(-s // c) for s, c in zip(self.shape, self.chunk_shape, strict=True))

    def encode_chunk_key(self, coords: tuple[int, ...]) -> str:
        """The key of chunk ``coords`` relative to the array's prefix."""
        return self.chunk_key_encoding.encode(coords)

    def with_shape(self, shape: tuple[int, ...]) -> ArrayMetadataV3:
        """A copy with a new ``shape`` (same number of dimensions).

        A ``zarrs.regular_bounded`` grid that was regular at the old shape (read as
        ``regular``) stays bounded: at a shape it does not divide, its last chunks are cut.
        A regular ``rectilinear`` grid whose listed edges no longer reach the shape gets
        edges that do.
        """
        shape = tuple(shape)
        entry = (self.source or {}).get("chunk_grid")
        name = entry.get("name") if isinstance(entry, dict) else None
        if self.chunk_grid is None and name == "zarrs.regular_bounded" and self.chunk_shape:
            grid = RegularBoundedGrid(self.chunk_shape, self.shape).covering(shape)
            if grid.regular_chunk_shape(shape) is None:
                return replace(self, shape=shape, chunk_grid=grid)
        if self.chunk_grid is None and name == "rectilinear":
            # a regular grid written as rectilinear edges: kept while its edges still reach
            # the shape, else the edges that do (written in place of the document's)
            conf = entry.get("configuration")
            try:
                RectilinearGrid.from_json(conf, shape, "chunk_grid")
            except MetadataError:
                grid = RectilinearGrid.from_json(conf, self.shape, "chunk_grid")
                return replace(self, shape=shape, chunk_grid=grid.covering(shape))
        return replace(self, shape=shape)

    def to_spec(self):
        """The internal :class:`~zarrhpc.metadata.spec.ArraySpec` (the codecs as given)."""
        from zarrhpc.metadata.spec import ArraySpec

        return ArraySpec(
            shape=self.shape,
            data_type=self.data_type,
            chunk_shape=self.chunk_shape,
            chunk_key_encoding=self.chunk_key_encoding,
            fill_value=self.fill_value,
            codecs=self.codecs,
            dimension_names=self.dimension_names,
            chunk_grid=self.chunk_grid,
        )



# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False)
class GroupMetadataV3(_NodeDocument):
    """The validated content of a group's ``zarr.json``.

    Parameters
    ----------
    attributes : dict, optional
    extra : dict, optional
        Ignorable members, e.g. zarr-python's ``consolidated_metadata``
        (``{"kind": "inline", "must_understand": false, "metadata": {...}}``), kept as
        given and written back.
    """

    attributes: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    #: the document as read (None: created here); see :meth:`to_dict`
    source: dict | None = field(default=None, repr=False)

    zarr_format = 3
    node_type = "group"

    def __post_init__(self) -> None:
        doc = "GroupMetadataV3"
        object.__setattr__(self, "attributes", _check_attributes(self.attributes, doc))
        object.__setattr__(self, "extra", _check_extra(self.extra, _GROUP_KEYS, doc))

    @classmethod
    def from_json(cls, data: bytes | str | dict, doc: str) -> GroupMetadataV3:
        """Parse and validate a group document.

        Parameters
        ----------
        data : bytes, str or dict
            The content of ``zarr.json`` or the decoded object.
        doc : str
            Store key of the document; prefixes every message.

        Returns
        -------
        GroupMetadataV3

        Raises
        ------
        MetadataError
            Invalid JSON, ``node_type`` other than ``"group"``, a malformed
            ``attributes``, or an unknown member that must be understood.
        """
        d = _load_document(data, doc)
        node_type = _check_format(d, doc)
        if node_type != "group":
            raise _err(doc, "node_type", f"expected 'group', got {_show(node_type)}")
        return cls._from_dict(d, doc)

    @classmethod
    def _from_dict(cls, d: dict, doc: str) -> GroupMetadataV3:
        attributes = _check_attributes(_or(d.get("attributes"), {}), doc)  # null: absent
        extra = _check_extra({k: v for k, v in d.items() if k not in _GROUP_KEYS}, _GROUP_KEYS, doc)
        return cls(attributes=attributes, extra=extra, source=Document(d))

    def _canonical_dict(self) -> dict:
        """The document in zarrhpc's form, members in zarr-python's order (fresh)."""
        out: dict[str, Any] = {"attributes": copy.deepcopy(self.attributes), "zarr_format": 3}
        # zarr-python writes consolidated_metadata between zarr_format and node_type.
        if "consolidated_metadata" in self.extra:
            out["consolidated_metadata"] = copy.deepcopy(self.extra["consolidated_metadata"])
        out["node_type"] = "group"
        for key, value in self.extra.items():
            if key != "consolidated_metadata":
                out[key] = copy.deepcopy(value)
        return out


def parse_metadata_v3(data: bytes | str | dict, doc: str) -> ArrayMetadataV3 | GroupMetadataV3:
    """Parse a ``zarr.json`` of either node type.

    Parameters
    ----------
    data : bytes, str or dict
        The document.
    doc : str
        Store key of the document; prefixes every message.

    Returns
    -------
    ArrayMetadataV3 or GroupMetadataV3
        According to ``node_type``.

    Raises
    ------
    MetadataError
    """
    d = _load_document(data, doc)
    if _check_format(d, doc) == "array":
        return ArrayMetadataV3._from_dict(d, doc)
    return GroupMetadataV3._from_dict(d, doc)
