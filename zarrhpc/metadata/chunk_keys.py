"""Chunk key encodings of Zarr v3 (``chunk_key_encoding``: ``default``, ``v2``, and zarrs'
``zarrs.default_suffix``).

``zarrs.default_suffix`` (zarrs' ``chunk_key_encoding/default_suffix.rs``): the
``default`` key followed by ``suffix`` (``c/1/23/45.tiff``; ``c.tiff`` for a 0-d array);
configuration ``{"separator": "/" (default) or ".", "suffix": str}``. Its keys always come
from Python (the native engine knows only ``default`` and ``v2``).

Spec: zarr-specs docs/v3/core/index.rst ("chunk_key_encoding"); the ``v2`` encoding is
also how zarrhpc names the chunks of Zarr v2 arrays (their ``dimension_separator``).

Life cycle: made once per array, from a ``zarr.json`` member (:meth:`ChunkKeyEncoding.from_json`,
called by :mod:`zarrhpc.metadata.v3`) or from a v2 document or creation arguments (the
constructor); immutable; :meth:`ChunkKeyEncoding.encode` turns grid coordinates into the
chunk's key, :meth:`ChunkKeyEncoding.to_json` writes the member back in full form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtypes import _show
from zarrhpc.metadata.names import member_error as _err
from zarrhpc.metadata.names import required_extension_entry as _required_extension

__all__ = ["ChunkKeyEncoding"]

_DEFAULT_SEPARATOR = {"default": "/", "v2": ".", "zarrs.default_suffix": "/"}
_SUFFIX = "zarrs.default_suffix"


@dataclass(frozen=True)
class ChunkKeyEncoding:
    """How chunk grid coordinates become store keys.

    Parameters
    ----------
    name : {"default", "v2"}
        ``default`` gives ``c/1/2`` (``c`` for a 0-d array); ``v2`` gives ``1.2``
        (``0`` for a 0-d array).
    separator : {"/", "."}, optional
        Defaults to ``"/"`` for ``default`` and ``"."`` for ``v2``.
    """

    name: str = "default"
    separator: str | None = None
    suffix: str = ""

    def __post_init__(self) -> None:
        if self.name not in _DEFAULT_SEPARATOR:
            raise MetadataError(
                f"chunk_key_encoding: unknown chunk key encoding {self.name!r}; expected "
                f"'default', 'v2' or '{_SUFFIX}'"
            )
        if self.suffix and self.name != _SUFFIX:
            raise MetadataError(f"chunk_key_encoding: a suffix is only for {_SUFFIX}")
        if self.separator is None:
            object.__setattr__(self, "separator", _DEFAULT_SEPARATOR[self.name])
        elif self.separator not in ("/", "."):
            raise MetadataError(
                f"chunk_key_encoding: separator: expected '/' or '.', got {self.separator!r}"
            )

    @classmethod
    def from_json(cls, obj: Any, doc: str) -> ChunkKeyEncoding:
        """Read the ``chunk_key_encoding`` member.

        Parameters
        ----------
        obj : str or dict
            ``"default"``, ``{"name": "v2", "configuration": {"separator": "/"}}``, ...
        doc : str
            Store key of the document; prefixes every message.

        Returns
        -------
        ChunkKeyEncoding
        """
        fname = "chunk_key_encoding"
        entry = _required_extension(obj, doc, fname)
        if entry.name not in _DEFAULT_SEPARATOR:
            raise _err(
                doc, fname, f"unknown chunk key encoding {entry.name!r}; expected 'default', "
                f"'v2' or '{_SUFFIX}'"
            )
        conf = entry.configuration or {}
        allowed = ("separator", "suffix") if entry.name == _SUFFIX else ("separator",)
        unknown = [k for k in conf if k not in allowed]
        if unknown:
            raise _err(doc, f"{fname}.configuration", f"unexpected member {unknown[0]!r}")
        sep = conf.get("separator", _DEFAULT_SEPARATOR[entry.name])
        if sep not in ("/", "."):
            raise _err(
                doc, f"{fname}.configuration.separator", f"expected '/' or '.', got {_show(sep)}"
            )
        suffix = conf.get("suffix", "")
        if entry.name == _SUFFIX and (not isinstance(suffix, str) or "suffix" not in conf
                                      or "/" in suffix):
            raise _err(doc, f"{fname}.configuration.suffix",
                       f"expected a string without '/', got {_show(conf.get('suffix'))}")
        return cls(entry.name, sep, suffix)

    def encode(self, coords: tuple[int, ...]) -> str:
        """The key of the chunk at grid coordinates ``coords`` (relative to the array).

        Parameters
        ----------
        coords : tuple of int

        Returns
        -------
        str
            e.g. ``"c/1/2"`` (default), ``"1.2"`` (v2).
        """
        if self.name != "v2":
            return "c" + "".join(f"{self.separator}{int(c)}" for c in coords) + self.suffix
        if not coords:
            return "0"
        return self.separator.join(str(int(c)) for c in coords)

    def to_json(self) -> dict:
        """The ``chunk_key_encoding`` member, in full form."""
        if self.name == _SUFFIX:
            return {"name": self.name, "configuration": {"separator": self.separator,
                                                         "suffix": self.suffix}}
        return {"name": self.name, "configuration": {"separator": self.separator}}
