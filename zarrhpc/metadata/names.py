"""Names in Zarr v3: node names, hierarchy paths, and extension names (ZEP 9).

A node name must not be empty, must not contain ``/`` and must not consist only of periods
(``.``, ``..``, ...). The spec also reserves the prefix ``__``; zarr-python 3 reads and
creates such nodes without complaint and xarray writes them (``__xarray_dataarray_variable__``
for an unnamed DataArray, ``DataArray.to_zarr``'s basic call), so zarrhpc reads and creates
them as zarr-python does (:func:`is_reserved_node_name` tells them apart). zarrhpc refuses
``zarr.json``, which would collide with the node's own metadata document. The spec
recommends, but does not require, the characters ``a-z A-Z 0-9 - _ .``; other Unicode
names are accepted (:func:`is_recommended_node_name` tells them apart). Names are case
sensitive and not normalised.

Paths are held without a leading or trailing ``/``: ``""`` is the root, ``"a/b"`` the node
``/a/b`` of the spec. :func:`normalize_path` turns what a user writes (``"/a/b/"``,
``"a//b"``, ``"a\\b"``, ``None``) into that form as the v2 spec's path normalisation and
zarr-python do (backslashes become ``/``, runs of ``/`` collapse), refusing ``.`` and
``..`` segments rather than guessing.

Extension names (core 3.1 / ZEP 9) are registered raw names (``^[a-z][a-z0-9-_.]+$``,
e.g. ``zstd``) or URIs. :func:`parse_extension_entry` validates one extension definition,
a short-hand name string or ``{"name", "configuration", "must_understand"}``, wherever it
appears (codecs, storage transformers, ``extensions``, data type, grid, key encoding).
Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtypes import _show

__all__ = [
    "ExtensionEntry",
    "is_recommended_node_name",
    "is_reserved_node_name",
    "is_valid_extension_name",
    "join_path",
    "member_error",
    "metadata_key",
    "normalize_path",
    "parse_extension_entry",
    "required_extension_entry",
    "validate_node_name",
]

_SLASHES_RE = re.compile("/+")
_RECOMMENDED_RE = re.compile(r"^[A-Za-z0-9._-]+$")
_RAW_NAME_RE = re.compile(r"^[a-z][a-z0-9_.\-]+$")
# ZEP 9 gives ^https?://... for URI names; the core spec's own example uses a URN, so any
# absolute URI (scheme ":" non-blank rest) is accepted.
_URI_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S+$")


def validate_node_name(name: str, doc: str) -> str:
    """Check that ``name`` is a valid node name and return it.

    Parameters
    ----------
    name : str
        One path segment, e.g. ``"temperature"``.
    doc : str
        What the name belongs to (a path or document key); prefixes every message.

    Returns
    -------
    str
        ``name`` unchanged.

    Raises
    ------
    MetadataError
        ``name`` is not a string, is empty, contains ``/``, is only periods or is
        ``zarr.json``.
    """
    if not isinstance(name, str):
        raise MetadataError(f"{doc}: node name: expected a string, got {name!r}")
    if name == "":
        raise MetadataError(f"{doc}: node name: must not be empty")
    if "/" in name:
        raise MetadataError(f"{doc}: node name: must not contain '/', got {name!r}")
    if name.strip(".") == "":
        raise MetadataError(f"{doc}: node name: must not consist only of periods, got {name!r}")
    if name == "zarr.json":
        raise MetadataError(
            f"{doc}: node name: must not be 'zarr.json' (the metadata document's key)"
        )
    return name


def is_reserved_node_name(name: str) -> bool:
    """Whether ``name`` starts with ``__``, the prefix the v3 spec reserves (read and
    created, as zarr-python does: see the module docstring)."""
    return isinstance(name, str) and name.startswith("__")


def is_recommended_node_name(name: str) -> bool:
    """Whether ``name`` uses only the characters the spec recommends (``a-z A-Z 0-9 - _ .``).

    Parameters
    ----------
    name : str
        A node name (valid or not).

    Returns
    -------
    bool
    """
    return isinstance(name, str) and bool(_RECOMMENDED_RE.match(name))


def normalize_path(path: str | None) -> str:
    """Bring a hierarchy path to the internal form.

    Parameters
    ----------
    path : str or None
        ``None``, ``""`` or ``"/"`` for the root; otherwise ``"a/b"``, with or without
        leading and trailing ``/``.

    Returns
    -------
    str
        ``""`` for the root, else ``"a/b"``: no leading or trailing ``/``, each segment a
        valid node name.

    Raises
    ------
    MetadataError
        ``path`` is not a string, or a segment is ``.``/``..`` or otherwise not a valid
        node name (``"a//b"`` and ``"a\\b"`` are ``"a/b"``: the v2 spec's normalisation, as
        zarr-python).
    """
    if path is None:
        return ""
    if not isinstance(path, str):
        raise MetadataError(f"path {path!r}: expected a string")
    stripped = _SLASHES_RE.sub("/", path.replace("\\", "/")).strip("/")
    if stripped == "":
        return ""
    for segment in stripped.split("/"):
        validate_node_name(segment, f"path {path!r}")
    return stripped


def metadata_key(path: str) -> str:
    """The store key of the ``zarr.json`` of the node at a normalised ``path``.

    Parameters
    ----------
    path : str
        A path as returned by :func:`normalize_path`.

    Returns
    -------
    str
        ``"zarr.json"`` for the root, else ``path + "/zarr.json"``.
    """
    return f"{path}/zarr.json" if path else "zarr.json"


def join_path(parent: str, name: str) -> str:
    """The path of child ``name`` of the node at normalised path ``parent``.

    Parameters
    ----------
    parent : str
        A normalised path (``""`` for the root).
    name : str
        A node name; checked with :func:`validate_node_name`.

    Returns
    -------
    str
    """
    validate_node_name(name, f"path {parent!r}")
    return f"{parent}/{name}" if parent else name


# ---------------------------------------------------------------------------------------
# extension entries (ZEP 9)
# ---------------------------------------------------------------------------------------


def is_valid_extension_name(name: Any) -> bool:
    """Whether ``name`` is a conformant extension name.

    Parameters
    ----------
    name : Any
        Candidate name.

    Returns
    -------
    bool
        True for a registered raw name (``^[a-z][a-z0-9-_.]+$``, e.g. ``zstd``,
        ``numcodecs.adler32``) or a URI (``https://example.com/zarr/offset``).
    """
    return isinstance(name, str) and bool(_RAW_NAME_RE.match(name) or _URI_NAME_RE.match(name))


@dataclass(frozen=True)
class ExtensionEntry:
    """One extension definition: a short-hand name or ``{"name", "configuration",
    "must_understand"}``.

    Attributes
    ----------
    name : str
    configuration : dict or None
        None when absent (short-hand or object without ``configuration``).
    must_understand : bool
        True unless the object says ``"must_understand": false``.
    """

    name: str
    configuration: dict | None = None
    must_understand: bool = True


def parse_extension_entry(obj: Any, doc: str, field_name: str) -> ExtensionEntry:
    """Validate one extension definition (codec, storage transformer, ...).

    Parameters
    ----------
    obj : str or dict
        A short-hand name, or an object with ``name`` and optional ``configuration`` and
        ``must_understand``; other members are refused.
    doc : str
        Store key of the document; prefixes every message.
    field_name : str
        Where the entry sits, e.g. ``"codecs[1]"``.

    Returns
    -------
    ExtensionEntry

    Raises
    ------
    MetadataError
        Wrong JSON types, a missing or non-conformant name, or an unknown member.
    """
    if isinstance(obj, str):
        name, conf, must = obj, None, True
    elif isinstance(obj, dict):
        unknown = [k for k in obj if k not in ("name", "configuration", "must_understand")]
        if unknown:
            raise member_error(
                doc,
                field_name,
                f"unexpected member {unknown[0]!r} in an extension object (allowed: name, "
                f"configuration, must_understand), got {_show(obj)}",
            )
        if "name" not in obj:
            raise member_error(doc, field_name, f"missing member 'name', got {_show(obj)}")
        name = obj["name"]
        if not isinstance(name, str):
            raise member_error(doc, f"{field_name}.name", f"expected a string, got {_show(name)}")
        conf = obj.get("configuration")
        if "configuration" in obj and not isinstance(conf, dict):
            raise member_error(
                doc, f"{field_name}.configuration", f"expected an object, got {_show(conf)}"
            )
        must = obj.get("must_understand", True)
        if not isinstance(must, bool):
            raise member_error(
                doc, f"{field_name}.must_understand", f"expected true or false, got {_show(must)}"
            )
    else:
        raise member_error(
            doc,
            field_name,
            f"expected an extension name (string) or an object with 'name', got {_show(obj)}",
        )
    if not is_valid_extension_name(name):
        raise member_error(
            doc,
            field_name,
            f"extension name {name!r} is neither a registered name (^[a-z][a-z0-9-_.]+$) nor a URI",
        )
    return ExtensionEntry(name, conf, must)


def member_error(doc: str, field_name: str, message: str) -> MetadataError:
    """The error for member ``field_name`` of document ``doc`` (every metadata parser's
    message form: ``"<doc>: <member>: <what is wrong>"``)."""
    return MetadataError(f"{doc}: {field_name}: {message}")


def required_extension_entry(obj: Any, doc: str, field_name: str) -> ExtensionEntry:
    """An extension entry at a point where must_understand: false is not allowed."""
    entry = parse_extension_entry(obj, doc, field_name)
    if not entry.must_understand:
        raise member_error(
            doc,
            field_name,
            f'"must_understand": false is not allowed for {field_name} (the spec requires '
            f"every implementation to understand it), got {_show(obj)}",
        )
    return entry
