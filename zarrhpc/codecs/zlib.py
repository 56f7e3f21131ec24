"""zlib codec: DEFLATE in a zlib (RFC 1950) container, as numcodecs' ``Zlib`` writes it.

Spec card
---------
- What: ``bytes -> bytes`` compression; one zlib stream (2-byte header, deflate data,
  Adler-32 trailer).
- Spec: numcodecs ``Zlib`` (v2 id ``zlib``); RFC 1950, RFC 1951.
- v3 name: ``numcodecs.zlib`` (zarr-python 3's name for numcodecs codecs in v3);
  v2 numcodecs id: ``zlib``.
- Example: ``{"name": "numcodecs.zlib", "configuration": {"level": 1}}``; in v2
  ``{"id": "zlib", "level": 1}``.
- Deviations: none.
- GIL: CPython's zlib module releases the GIL around every deflate/inflate call, so this
  runs on zarrhpc's thread pool as gzip does.
"""

from __future__ import annotations

import zlib
from typing import Any, ClassVar

from zarrhpc._kernels.engine import BB_ZLIB
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

__all__ = ["ZlibCodec"]


class ZlibCodec(BytesToBytesCodec):
    """Compress with DEFLATE in a zlib container.

    Parameters
    ----------
    level : int
        0 (store only) to 9 (smallest output); numcodecs' default is 1.
    """

    name: ClassVar[str] = "numcodecs.zlib"
    #: zarrita.js reads v3 ``zlib`` (numcodecs' configuration)
    aliases: ClassVar[tuple[str, ...]] = ("zlib",)
    zarr_python_v3: ClassVar[bool] = True
    v2_id: ClassVar[str | None] = "zlib"
    draft_names: ClassVar[tuple[str, ...]] = ("zlib",)

    def __init__(self, level: int = 1) -> None:
        self.level = check_int(level, 0, 9, "", "ZlibCodec", "level")

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> ZlibCodec:
        """Build from ``{"level": 0..9}`` (level defaults to 1 as in numcodecs)."""
        config = config_dict(configuration, doc, field, {"level", "id"}, required=False)
        return cls(level=get_int(config, "level", doc, field, 0, 9, default=1))

    def to_json(self) -> dict:
        """Return ``{"name": "numcodecs.zlib", "configuration": {"level": ...}}``."""
        return {"name": self.name, "configuration": {"level": self.level}}

    def native_step(self) -> NativeStep:
        return NativeStep(BB_ZLIB, level=self.level)

    def encode(self, buf: Any) -> bytes:
        return zlib.compress(as_bytes_view(buf), self.level)

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        """Decompress; refuses output longer or shorter than ``decoded_size``."""
        dec = zlib.decompressobj()
        try:
            limit = 0 if decoded_size is None else decoded_size + 1
            out = dec.decompress(as_bytes_view(buf), limit)
            if not dec.eof:
                raise CorruptChunkError("zlib: truncated stream or more data than expected")
        except zlib.error as exc:
            raise CorruptChunkError(f"zlib: {exc}") from None
        if decoded_size is not None and len(out) != decoded_size:
            raise CorruptChunkError(f"zlib: expected {decoded_size} decoded bytes, got {len(out)}")
        return out
