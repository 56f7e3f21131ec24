"""Codec registry: every form of a codec to its class, and parsing of one ``codecs`` entry.

A codec plugs in by calling :func:`register_codec` on its class (one file per codec); the
pipeline, metadata and core find it by any of its forms and never need to change:

- v3 names: the class's ``name`` (a registered raw name such as ``zstd`` or a URI, ZEP
  9) and ``aliases`` (accepted when reading, never written: ``endian`` for ``bytes``);
- zarr-python 3's ``numcodecs.<id>`` names: the class whose ``v2_id`` is ``<id>`` (its
  configuration then is numcodecs', translated by the class's ``v3_from_v2``), else any
  codec numcodecs registers, run through numcodecs
  (:mod:`~zarrhpc.codecs.numcodecs_adapter`);
- v2 ids (:func:`codec_from_v2`, :func:`codec_to_v2`) and 2022-draft names: handed to
  :mod:`zarrhpc.codec_forms` at registration, so metadata translates documents
  without naming codecs.

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

from zarrhpc.codec_forms import CodecForms, register_forms
from zarrhpc.codecs.abc import Codec, field_name
from zarrhpc.codecs.numcodecs_adapter import numcodecs_class
from zarrhpc.codecs.user_codecs import adapter_class, zarr_python_registered
from zarrhpc.errors import CodecError

__all__ = ["codec_from_v2", "codec_to_v2", "get_codec_class", "parse_codec", "register_codec",
           "register_codec_as", "registered_names"]

_REGISTRY: dict[str, type[Codec]] = {}
_BY_V2: dict[str, type[Codec]] = {}
_NUMCODECS = "numcodecs."
_ENTRY_KEYS = {"name", "configuration", "must_understand"}
# ZEP 9: registered raw names; anything else must be a URI-like name
_RAW_NAME = re.compile(r"^[a-z][a-z0-9-_.]+$")


def register_codec(cls: type[Codec] | str, codec_cls: type | None = None, *,
                   qualname: str | None = None) -> type[Codec]:
    """Register ``cls`` under its ``name`` and ``aliases``; usable as a decorator. Also
    zarr-python's form ``register_codec(key, codec_cls)`` (:func:`register_codec_as`).

    Parameters
    ----------
    cls : type or str
        A :class:`~zarrhpc.codecs.abc.Codec` subclass with ``name`` and ``kind`` set; or
        the v3 name ``key`` of zarr-python's form, ``codec_cls`` then being the class.
    codec_cls : type, optional
        zarr-python's form: the class registered as ``key``.
    qualname : str, optional
        Accepted for zarr-python's signature.

    Returns
    -------
    type
        ``cls`` itself.

    Raises
    ------
    ValueError
        ``cls`` is not a codec class, or one of its names is taken by another class.
    """
    if isinstance(cls, str):
        if codec_cls is None:
            raise TypeError("register_codec(key, codec_cls): the codec class is missing")
        return register_codec_as(cls, codec_cls)
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
    if cls.v2_id and cls.v2_id not in _BY_V2:  # the first class of an id owns it
        _BY_V2[cls.v2_id] = cls
        register_forms(_forms(cls, cls.v2_id))
    elif cls.draft_names:
        register_forms(_forms(cls, None))
    return cls


def register_codec_as(key: str, codec_cls: type) -> type[Codec]:
    """Register ``codec_cls`` under the v3 name ``key``, as zarr-python's
    ``register_codec(key, codec_cls)``: a zarrhpc codec class gets ``key`` as one more
    name; a zarr-python codec class (a user's ``zarr.abc.codec.BytesBytesCodec``
    subclass) runs through :mod:`~zarrhpc.codecs.user_codecs` (registering ``key`` again
    replaces the class, as zarr-python's registry keeps the last one).

    Returns
    -------
    type
        The zarrhpc codec class now registered for ``key``.
    """
    if isinstance(codec_cls, type) and issubclass(codec_cls, Codec):
        if key not in (codec_cls.name, *codec_cls.aliases):
            other = _REGISTRY.get(key)
            if other is not None and other is not codec_cls:
                raise ValueError(f"register_codec: codec name {key!r} is already registered "
                                 f"by {other.__module__}.{other.__qualname__}")
            _REGISTRY[key] = codec_cls
            return codec_cls
        return register_codec(codec_cls)
    adapter = adapter_class(key, codec_cls)
    _REGISTRY[key] = adapter
    return adapter


def _forms(cls: type[Codec], v2_id: str | None) -> CodecForms:
    return CodecForms(v2_id, cls.draft_names, cls.v3_from_v2, cls.v2_out_dtype,
                      serializer=cls.kind == "array_to_bytes",
                      object_type=getattr(cls, "object_type", None), core=cls.core,
                      zarr_python_v3=cls.zarr_python_v3,
                      bytes_level=cls.kind == "bytes_to_bytes")


#: codecs other writers use that zarrhpc knows and cannot run, with the reason (none now:
#: zarrs' gdeflate, the last, runs through NVIDIA's CPU library, codecs/gdeflate.py)
UNSUPPORTED: dict[str, str] = {}

#: zarrs (Rust) named its experimental codecs by URI before zarr-extensions registered
#: names: ``https://codec.zarrs.dev/<kind>/<id>`` (e.g. ``.../bytes_to_bytes/bz2``)
_ZARRS_URI = "https://codec.zarrs.dev/"


def _zarrs_uri_name(name: str) -> str:
    """The name zarrhpc knows a zarrs codec URI by: the registered name when there is one
    (``bitround``, ``packbits``, ...), else ``numcodecs.<id>`` (zarrs' codecs of those ids
    are numcodecs-compatible); other names unchanged."""
    if not name.startswith(_ZARRS_URI) or name in _REGISTRY or name in UNSUPPORTED:
        return name  # not a zarrs URI, a class's own URI alias, or a codec refused by name
    cid = name.rstrip("/").rsplit("/", 1)[-1]
    for form in (cid, _NUMCODECS + cid.replace("_", "-")):  # .../vlen_array: vlen-array
        if form in _REGISTRY:
            return form
    return _NUMCODECS + cid


def get_codec_class(name: str) -> type[Codec] | None:
    """Return the class for a v3 name or alias, including ``numcodecs.<id>`` and a user's
    codec registered with zarr-python (its adapter); else None."""
    name = _zarrs_uri_name(name)
    cls = _REGISTRY.get(name)
    if cls is None and name.startswith(_NUMCODECS) and len(name) > len(_NUMCODECS):
        cls = _BY_V2.get(name[len(_NUMCODECS):]) or numcodecs_class(name[len(_NUMCODECS):])
    return cls or zarr_python_registered(name)


def codec_from_v2(conf: dict, doc: str = "", field: str = "compressor") -> Codec:
    """The codec of a v2 (numcodecs) object ``{"id": ..., ...}``.

    Raises
    ------
    CodecError
        ``conf`` has no string ``id``, numcodecs does not know the id (the message names
        the package to install), or the configuration is invalid.
    """
    if not isinstance(conf, dict) or not isinstance(conf.get("id"), str):
        raise CodecError(f"{field_name(doc, field)}: expected an object with a string 'id', "
                         f"got {conf!r}")
    cls = _BY_V2.get(conf["id"]) or numcodecs_class(conf["id"])
    return cls.from_v2(conf, doc, field)


def codec_to_v2(codec: Any, field: str = "codec") -> dict:
    """The v2 ``{"id": ...}`` object of a codec given in any accepted way.

    Parameters
    ----------
    codec : dict, str, Codec or numcodecs codec
        A v2 object (kept as it is), a numcodecs codec object, a zarrhpc codec, or a v3
        entry (name or ``{"name", "configuration"}``).
    field : str
        Where the codec was given (for error messages), e.g. ``"filters[0]"``.

    Raises
    ------
    CodecError
        The codec has no Zarr v2 form.
    """
    if isinstance(codec, dict) and "id" in codec:
        return _v2_written(dict(codec))
    if hasattr(codec, "get_config") and not isinstance(codec, Codec):  # a numcodecs codec
        return _v2_written(dict(codec.get_config()))
    if isinstance(codec, (dict, str)):
        codec = parse_codec(codec, "create_array", field)
    if not isinstance(codec, Codec):
        raise CodecError(f"create_array: {field}: expected a codec, got {codec!r}")
    try:
        return codec.to_v2()
    except CodecError as exc:
        raise CodecError(f"create_array: {field}: {exc}") from None


def _v2_written(conf: dict) -> dict:
    """A numcodecs configuration as zarr-python 3 writes it into ``.zarray``: zstd's
    ``checksum: false`` is left out, since numcodecs before 0.13 refuses the member
    (zarr-python issue 2647) and false is its default."""
    if conf.get("id") == "zstd" and conf.get("checksum", True) is False:
        conf.pop("checksum")
    return conf


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
    name = _zarrs_uri_name(name)
    cls = _REGISTRY.get(name)
    if cls is None and name.startswith(_NUMCODECS) and len(name) > len(_NUMCODECS):
        cid = name[len(_NUMCODECS):]
        owner = _BY_V2.get(cid)
        if owner is not None:  # numcodecs' configuration of a codec zarrhpc runs itself
            return owner.from_v2(configuration or {}, doc, field)
        try:
            return numcodecs_class(cid).from_config(configuration, doc, field)
        except CodecError:
            if not must_understand:
                return None
            raise
    if cls is None:
        cls = zarr_python_registered(name)  # a user's codec registered with zarr-python
    if cls is None:
        if not must_understand:
            return None
        if name in UNSUPPORTED:
            raise CodecError(f"{field_name(doc, field)}.name: codec {name!r} is not supported: "
                             f"{UNSUPPORTED[name]}")
        kind = "registered name" if _RAW_NAME.match(name) else "name"
        # imagecodecs' ids stand as one entry in the list (there are some seventy)
        known = [n for n in registered_names() if not n.startswith("numcodecs.imagecodecs_")]
        known.append("numcodecs.imagecodecs_<id>")
        hint = ""
        if name.startswith("imagecodecs_"):
            hint = ("; imagecodecs' own Zarr 3 codecs (imagecodecs-zarr) are not read, its "
                    f"numcodecs form numcodecs.{name} is")
        raise CodecError(
            f"{field_name(doc, field)}.name: unknown codec {name!r} ({kind} not supported "
            f"by zarrhpc{hint}; known: {', '.join(sorted(known))})"
        )
    return cls.from_config(configuration, doc, field)
