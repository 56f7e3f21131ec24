"""Codec registry: codec names to classes, and parsing of one ``codecs`` entry.

A codec plugs in by calling :func:`register_codec` on its class; the pipeline finds it
by name and never needs to change. Keys are the v3 ``name`` (a registered raw name such
as ``zstd`` or a URI for unregistered extensions, ZEP 9) plus each class's ``aliases``
(names accepted when reading, never written: ``endian`` for ``bytes``).

``must_understand`` (Zarr v3.1 core, "Extension definition"; ZEP 9)
------------------------------------------------------------------
Codecs are an extension point where ``"must_understand": false`` is allowed. Decision:

- a codec we know is used whatever its ``must_understand``;
- an unknown codec without ``"must_understand": false`` (the default is true) makes
  parsing fail with :class:`~zarrhpc.errors.CodecError` naming it;
- an unknown codec with ``"must_understand": false`` gives ``None``: the writer declared
  that implementations may ignore it, so the pipeline skips it in both directions (in any
  position; its kind is unknown) and writes its JSON entry back unchanged. A codec that
  changes the bytes must not be declared this way; data written by a writer that does so
  anyway cannot be decoded and will fail as a corrupt chunk.
"""

from __future__ import annotations

import re
from typing import Any

from zarrhpc.codecs.abc import Codec, field_name
from zarrhpc.errors import CodecError

__all__ = ["get_codec_class", "parse_codec", "register_codec", "registered_names"]

_REGISTRY: dict[str, type[Codec]] = {}
_ENTRY_KEYS = {"name", "configuration", "must_understand"}
# ZEP 9: registered raw names; anything else must be a URI-like name
_RAW_NAME = re.compile(r"^[a-z][a-z0-9-_.]+$")


def register_codec(cls: type[Codec]) -> type[Codec]:
    """Register ``cls`` under its ``name`` and ``aliases``; usable as a decorator.

    Parameters
    ----------
    cls : type
        A :class:`~zarrhpc.codecs.abc.Codec` subclass with ``name`` and ``kind`` set.

    Returns
    -------
    type
        ``cls`` itself.

    Raises
    ------
    ValueError
        ``cls`` is not a codec class, or one of its names is taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Codec)) or not getattr(cls, "name", None):
        raise ValueError(f"register_codec: expected a Codec subclass with a name, got {cls!r}")
    for key in (cls.name, *cls.aliases):
        other = _REGISTRY.get(key)
        if other is not None and other is not cls:
            raise ValueError(
                f"register_codec: codec name {key!r} is already registered by "
                f"{other.__module__}.{other.__qualname__}"
            )
    for key in (cls.name, *cls.aliases):
        _REGISTRY[key] = cls
    return cls


def get_codec_class(name: str) -> type[Codec] | None:
    """Return the class registered under ``name`` (a v3 name or alias), or None."""
    return _REGISTRY.get(name)


def registered_names() -> list[str]:
    """Sorted list of every registered name and alias."""
    return sorted(_REGISTRY)


def parse_codec(entry: Any, doc: str = "", field: str = "codecs[0]") -> Codec | None:
    """Parse one entry of a v3 ``codecs`` list.

    Parameters
    ----------
    entry : str or dict
        A short-hand name (``"crc32c"``) or an extension object ``{"name": ...,
        "configuration"?: {...}, "must_understand"?: bool}``.
    doc : str
        Store key of the metadata document (prefixes error messages).
    field : str
        Position of the entry, e.g. ``"codecs[2]"``.

    Returns
    -------
    Codec or None
        The codec; None for an unknown codec marked ``"must_understand": false``.

    Raises
    ------
    CodecError
        Malformed entry, unknown codec that must be understood, or bad configuration.
    """
    if isinstance(entry, str):
        name, configuration, must_understand = entry, None, True
    elif isinstance(entry, dict):
        unknown = sorted(set(entry) - _ENTRY_KEYS)
        if unknown:
            raise CodecError(
                f"{field_name(doc, field)}: unknown member {unknown[0]!r}; expected only "
                "'name', 'configuration' and 'must_understand'"
            )
        if "name" not in entry:
            raise CodecError(f"{field_name(doc, field)}: missing required member 'name'")
        name = entry["name"]
        configuration = entry.get("configuration")
        if "configuration" in entry and not isinstance(configuration, dict):
            raise CodecError(
                f"{field_name(doc, field)}.configuration: expected an object, got {configuration!r}"
            )
        must_understand = entry.get("must_understand", True)
        if not isinstance(must_understand, bool):
            raise CodecError(
                f"{field_name(doc, field)}.must_understand: expected true or false, "
                f"got {must_understand!r}"
            )
    else:
        raise CodecError(
            f"{field_name(doc, field)}: expected a codec name or an object with a 'name', "
            f"got {entry!r}"
        )
    if not isinstance(name, str) or not name:
        raise CodecError(f"{field_name(doc, field)}.name: expected a string, got {name!r}")
    cls = _REGISTRY.get(name)
    if cls is None:
        if not must_understand:
            return None
        kind = "registered name" if _RAW_NAME.match(name) else "name"
        raise CodecError(
            f"{field_name(doc, field)}.name: unknown codec {name!r} ({kind} not supported "
            f"by zarrhpc; known: {', '.join(registered_names())})"
        )
    return cls.from_config(configuration, doc, field)
