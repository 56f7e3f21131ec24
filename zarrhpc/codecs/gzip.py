"""gzip codec: DEFLATE in a gzip (RFC 1952) container.

Spec card
---------
- What: ``bytes -> bytes`` compression with zlib's DEFLATE, written as one gzip member
  (10-byte header with mtime 0, deflate stream, CRC-32 and size trailer).
- Spec: zarr-specs docs/v3/codecs/gzip/index.rst (gzip codec 1.0), RFC 1951, RFC 1952.
- v3 name: ``gzip``; v2 numcodecs id: ``gzip`` (same container and configuration).
- Example: ``{"name": "gzip", "configuration": {"level": 5}}``.
- Deviations: decode also accepts a zlib (RFC 1950) stream and concatenated gzip members
  (RFC 1952 allows a series of members), as zlib's automatic header detection does.
- GIL: CPython's zlib module releases the GIL around every deflate/inflate call.
- Integrity: the gzip trailer's CRC-32 and length are checked by zlib, so corruption of
  the payload is detected (corruption of header fields such as mtime is harmless).
"""

from __future__ import annotations

import zlib
from typing import Any, ClassVar

from zarrhpc._kernels.engine import BB_GZIP
from zarrhpc.codecs.abc import (
    BytesToBytesCodec,
    ChunkSpec,
    NativeStep,
    as_bytes_view,
    check_int,
    config_dict,
    get_int,
)
from zarrhpc.errors import CorruptChunkError

__all__ = ["GzipCodec"]

_GZIP_WBITS = 16 + zlib.MAX_WBITS  # write a gzip header and trailer
_AUTO_WBITS = 32 + zlib.MAX_WBITS  # read gzip or zlib, detected from the header


class GzipCodec(BytesToBytesCodec):
    """Compress with DEFLATE in a gzip container.

    Parameters
    ----------
    level : int
        0 (store only) to 9 (smallest output).
    """

    name: ClassVar[str] = "gzip"
    core: ClassVar[bool] = True
    v2_id: ClassVar[str | None] = "gzip"
    draft_names: ClassVar[tuple[str, ...]] = ("gzip",)
    is_fixed_size: ClassVar[bool] = False

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype) -> dict:
        """numcodecs' ``{"id": "gzip", "level": 1}`` (level defaults to 1 there)."""
        return {"name": cls.name, "configuration": {"level": conf.get("level", 1)}}

    def __init__(self, level: int = 5) -> None:
        self.level = check_int(level, 0, 9, "", "GzipCodec", "level")

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> GzipCodec:
        """Build from ``{"level": 0..9}`` (level left out: 5, zarr-python's default)."""
        config = config_dict(configuration, doc, field, {"level"})
        return cls(level=get_int(config, "level", doc, field, 0, 9, default=5))

    def _hash_fields(self) -> tuple:
        return (self.level,)

    def to_json(self) -> dict:
        """Return ``{"name": "gzip", "configuration": {"level": ...}}``."""
        return {"name": self.name, "configuration": {"level": self.level}}

    def native_step(self) -> NativeStep:
        return NativeStep(BB_GZIP, level=self.level)

    def encode(self, buf: Any) -> bytes:
        """Compress ``buf`` into one gzip member (mtime 0, so output is reproducible)."""
        comp = zlib.compressobj(self.level, zlib.DEFLATED, _GZIP_WBITS)
        return comp.compress(as_bytes_view(buf)) + comp.flush()

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        """Decompress gzip (or zlib) data; see :meth:`BytesToBytesCodec.decode`."""
        data = as_bytes_view(buf)
        # max_length bounds memory on corrupt input: one byte more than expected is
        # enough to tell that the output is too long.
        limit = 0 if decoded_size is None else decoded_size + 1
        parts = []
        produced = 0
        try:
            while True:
                if limit and produced >= limit:
                    raise CorruptChunkError(
                        f"gzip: decoded data is longer than the expected {decoded_size} bytes"
                    )
                dec = zlib.decompressobj(_AUTO_WBITS)
                out = dec.decompress(data, limit - produced if limit else 0)
                if limit and dec.unconsumed_tail:
                    raise CorruptChunkError(
                        f"gzip: decoded data is longer than the expected {decoded_size} bytes"
                    )
                out += dec.flush()
                if not dec.eof:
                    raise CorruptChunkError("gzip: truncated stream")
                parts.append(out)
                produced += len(out)
                rest = dec.unused_data
                if not rest:
                    break
                data = memoryview(rest)
        except zlib.error as exc:
            raise CorruptChunkError(f"gzip: {exc}") from None
        result = parts[0] if len(parts) == 1 else b"".join(parts)
        if decoded_size is not None and len(result) != decoded_size:
            raise CorruptChunkError(
                f"gzip: expected {decoded_size} decoded bytes, got {len(result)}"
            )
        return result
