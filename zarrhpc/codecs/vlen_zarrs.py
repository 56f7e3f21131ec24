"""zarrs' variable-length serialiser ``zarrs.vlen`` (offsets and data, separate chains).

Spec card
---------
- What: ``array -> bytes`` for variable-length data types (``string``, ``bytes``).
- ``zarrs.vlen`` (``https://codec.zarrs.dev/array_to_bytes/vlen``; spec text in zarrs'
  ``array_to_bytes/vlen.rs``): the elements' bytes (UTF-8 for strings) are concatenated
  into *data*; the *index* is the ``n + 1`` offsets into data (Apache Arrow's layout
  without a validity bitmap), as ``uint32`` or ``uint64`` (``index_data_type``). The
  index goes through its own codec chain ``index_codecs`` (a 1-d array of ``n + 1``
  offsets) and data through ``data_codecs`` (a 1-d ``uint8`` array of its length; empty
  data is stored as no bytes at all). ``index_location`` ``"start"``: a little-endian
  ``uint64`` byte length of the encoded index, the encoded index, the encoded data;
  ``"end"``: the encoded data, the encoded index, then that length. Configurations
  without ``index_location`` (zarrs' first version) mean ``"start"``.
- ``zarrs.vlen_v2`` (the vlen-utf8 / vlen-bytes layout for any variable-length type)
  lives with that layout in :mod:`zarrhpc.codecs.vlen`.
- Example: ``{"name": "zarrs.vlen", "configuration": {"index_codecs": [{"name":
  "bytes", "configuration": {"endian": "little"}}], "data_codecs": [{"name": "bytes"}],
  "index_data_type": "uint64", "index_location": "start"}}`` (zarrs' defaults).
- Corrupt input: the index length, every offset (non-decreasing, within data) and the
  decoded data length are checked before any element is cut out.
- Elements are built in Python (one object per element): these codecs are rare; the
  common ``vlen-utf8`` has its native path (:mod:`zarrhpc.codecs.vlen`).
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    check_choice,
    config_dict,
    field_name,
)
from zarrhpc.codecs.vlen import check_vlen_type, is_text
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["ZarrsVlenCodec"]

_INDEX_TYPES = {"uint32": np.dtype("<u4"), "uint64": np.dtype("<u8")}


class ZarrsVlenCodec(ArrayToBytesCodec):
    """zarrs' ``vlen``: offsets and data of the elements, each through its own chain.

    Parameters
    ----------
    index_codecs, data_codecs : list
        v3 codec entries for the offsets (1-d ``uint32``/``uint64``) and for the data
        (1-d ``uint8``); each chain has exactly one array->bytes codec.
    index_data_type : {"uint64", "uint32"}
    index_location : {"start", "end"}
    """

    name: ClassVar[str] = "zarrs.vlen"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/array_to_bytes/vlen",)

    def __init__(self, index_codecs: Any = None, data_codecs: Any = None,
                 index_data_type: str = "uint64", index_location: str = "start",
                 doc: str = "", field: str = "ZarrsVlenCodec") -> None:
        from zarrhpc.codecs.pipeline import CodecPipeline

        self.index_data_type = check_choice(index_data_type, tuple(_INDEX_TYPES), doc, field,
                                            "index_data_type")
        self.index_location = check_choice(index_location, ("start", "end"), doc, field,
                                           "index_location")
        if index_codecs is None:
            index_codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
        if data_codecs is None:
            data_codecs = [{"name": "bytes"}]
        index_t = _INDEX_TYPES[self.index_data_type]
        # parsed once against a 1-element spec: refuses bad chains when the array opens
        self._chains = {}
        for key, entries, dtype in (("index_codecs", index_codecs, index_t),
                                    ("data_codecs", data_codecs, np.dtype("u1"))):
            spec = ChunkSpec((1,), dtype.newbyteorder("="), np.zeros((), dtype))
            pipe = CodecPipeline.from_json(entries, spec, field_name(doc, field, key))
            self._chains[key] = pipe.to_json()
        self._pipes: dict = {}

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from zarrs' configuration (``index_location`` optional: ``"start"``)."""
        keys = {"index_codecs", "data_codecs", "index_data_type", "index_location"}
        config = config_dict(configuration, doc, field, keys)
        for key in ("index_codecs", "data_codecs", "index_data_type"):
            if key not in config:
                raise CodecError(f"{field_name(doc, field, key)}: missing required key")
        return cls(config["index_codecs"], config["data_codecs"], config["index_data_type"],
                   config.get("index_location", "start"), doc, field)

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {
            "index_codecs": self._chains["index_codecs"],
            "data_codecs": self._chains["data_codecs"],
            "index_data_type": self.index_data_type,
            "index_location": self.index_location}}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        check_vlen_type(self.name, spec, doc, field)

    def _pipe(self, key: str, length: int):
        """The chain ``key`` for a 1-d array of ``length`` elements (cached per length)."""
        from zarrhpc.codecs.pipeline import CodecPipeline

        pipe = self._pipes.get((key, length))
        if pipe is None:
            dtype = _INDEX_TYPES[self.index_data_type] if key == "index_codecs" \
                else np.dtype("u1")
            spec = ChunkSpec((length,), dtype.newbyteorder("="), np.zeros((), dtype))
            pipe = CodecPipeline.from_json(self._chains[key], spec, self.name)
            if len(self._pipes) < 64:
                self._pipes[(key, length)] = pipe
        return pipe

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        flat = np.asarray(arr, dtype=object).reshape(-1)
        try:
            parts = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in flat]
        except (TypeError, UnicodeEncodeError) as exc:
            raise CodecError(f"{self.name}: {exc}") from None
        lengths = np.fromiter((len(p) for p in parts), dtype=np.uint64, count=len(parts))
        offsets = np.zeros(len(parts) + 1, dtype=np.uint64)
        np.cumsum(lengths, out=offsets[1:])
        if self.index_data_type == "uint32":
            if offsets[-1] > np.iinfo(np.uint32).max:
                raise CodecError(f"{self.name}: {int(offsets[-1])} bytes of elements do not "
                                 "fit a uint32 index; use index_data_type uint64")
            offsets = offsets.astype(np.uint32)
        index = bytes(as_bytes_view(self._pipe("index_codecs", len(offsets)).encode(offsets)))
        data = b"".join(parts)
        if data:
            data = bytes(as_bytes_view(self._pipe("data_codecs", len(data)).encode(
                np.frombuffer(data, dtype=np.uint8))))
        size = struct.pack("<Q", len(index))
        if self.index_location == "start":
            return b"".join((size, index, data))
        return b"".join((data, index, size))

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        view = as_bytes_view(buf)
        n = int(np.prod(spec.shape, dtype=np.int64))
        if len(view) < 8:
            raise CorruptChunkError(f"{self.name}: {len(view)} bytes, shorter than the "
                                    "8-byte index length")
        start = self.index_location == "start"
        (index_len,) = struct.unpack("<Q", view[:8] if start else view[-8:])
        body = view[8:] if start else view[:-8]
        if index_len > len(body):
            raise CorruptChunkError(f"{self.name}: the index is said to be {index_len} bytes, "
                                    f"but only {len(body)} bytes follow")
        if start:
            index_enc, data_enc = body[:index_len], body[index_len:]
        else:
            index_enc, data_enc = body[len(body) - index_len:], body[:len(body) - index_len]
        offsets = np.asarray(self._pipe("index_codecs", n + 1).decode(index_enc)).reshape(-1)
        offsets = offsets.astype(np.int64)
        if offsets.size != n + 1 or offsets[0] < 0 or np.any(np.diff(offsets) < 0):
            raise CorruptChunkError(f"{self.name}: the index is not {n + 1} non-decreasing "
                                    "offsets")
        total = int(offsets[-1])
        if total:
            data = np.asarray(self._pipe("data_codecs", total).decode(data_enc)).reshape(-1)
            data = data.tobytes()
        else:
            data = b""
        if len(data) != total:
            raise CorruptChunkError(f"{self.name}: {len(data)} bytes of data, the index "
                                    f"says {total}")
        items = [data[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]
        out = np.empty(n, dtype=object)
        try:
            out[:] = [b.decode("utf-8") for b in items] if is_text(spec) else items
        except UnicodeDecodeError as exc:
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        if spec.dtype.kind == "T":
            out = out.astype(spec.dtype)
        return out.reshape(spec.shape)
