"""crc32c codec: append a CRC-32C checksum.

Spec card
---------
- What: ``bytes -> bytes``; encode appends the CRC-32C (Castagnoli, RFC 3720) of its input
  as 4 little-endian bytes, decode verifies and strips it.
- Spec: zarr-specs docs/v3/codecs/crc32c/index.rst (crc32c codec 1.0, from ZEP 2).
- v3 name: ``crc32c``; v2 numcodecs id: ``crc32c`` (numcodecs' ``CRC32C`` with its default
  ``location="end"`` writes the same bytes).
- Example: ``{"name": "crc32c"}`` (no configuration; an empty one is accepted).
- Deviations: none.
- GIL: the ``crc32c`` package (ICRAR) releases the GIL for inputs of 32 KiB and more
  (``gil_release_mode=-1``, its default); smaller inputs take microseconds.
- Decode is zero-copy: it returns a memoryview of the input without the last 4 bytes.
"""

from __future__ import annotations

from typing import Any, ClassVar

import crc32c as _crc32c

from zarrhpc._kernels.engine import BB_CRC32C
from zarrhpc.codecs.abc import (
    BytesToBytesCodec,
    ChunkSpec,
    NativeStep,
    as_bytes_view,
    config_dict,
)
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["Crc32cCodec"]


def _checksum(data: memoryview) -> int:
    return _crc32c.crc32c(data)


class Crc32cCodec(BytesToBytesCodec):
    """Append (encode) or check and strip (decode) a CRC-32C checksum."""

    name: ClassVar[str] = "crc32c"
    core: ClassVar[bool] = True
    v2_id: ClassVar[str | None] = "crc32c"
    is_fixed_size: ClassVar[bool] = True

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype) -> dict:
        """numcodecs' CRC32C (checksum at the end, its default) is this codec's bytes."""
        if conf.get("location", "end") != "end":
            raise CodecError("crc32c: numcodecs' location 'start' has no v3 'crc32c' form")
        return {"name": cls.name}

    def to_v2(self) -> dict:
        return {"id": "crc32c"}

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> Crc32cCodec:
        """Build; the configuration must be absent or empty."""
        config_dict(configuration, doc, field, set(), required=False)
        return cls()

    def to_json(self) -> dict:
        """Return ``{"name": "crc32c"}``."""
        return {"name": self.name}

    def _hash_fields(self) -> tuple:
        return ()

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """Four bytes more than the input (zarr-python's method)."""
        return input_byte_length + 4

    def encoded_size(self, decoded_size: int) -> int:
        """Four bytes more than the input."""
        return decoded_size + 4

    def native_step(self) -> NativeStep:
        return NativeStep(BB_CRC32C)

    def encode(self, buf: Any) -> bytearray:
        """Return ``buf`` followed by its CRC-32C as 4 little-endian bytes."""
        data = as_bytes_view(buf)
        n = data.nbytes
        out = bytearray(n + 4)
        out[:n] = data
        out[n:] = _checksum(data).to_bytes(4, "little")
        return out

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> memoryview:
        """Verify the trailing checksum and return a view of the data before it."""
        data = as_bytes_view(buf)
        n = data.nbytes - 4
        if n < 0:
            raise CorruptChunkError(
                f"crc32c: expected at least 4 bytes (the checksum), got {data.nbytes}"
            )
        if decoded_size is not None and n != decoded_size:
            raise CorruptChunkError(f"crc32c: expected {decoded_size + 4} bytes, got {data.nbytes}")
        payload = data[:n]
        stored = int.from_bytes(data[n:], "little")
        actual = _checksum(payload)
        if stored != actual:
            raise CorruptChunkError(
                f"crc32c: checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
            )
        return payload
