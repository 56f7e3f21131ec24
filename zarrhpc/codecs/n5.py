"""N5 blocks: zarr-extensions' ``n5_default`` codec and N5's lz4 framing (``n5.lz4``).

Spec card
---------
- ``n5_default``: ``array -> bytes``; zarr-extensions ``codecs/n5_default/README.md``
  and the N5 format (saalfeldlab/n5 README, "block"). A block is a big-endian header,
  then the block's bytes through the configured ``codecs`` chain (``bytes`` big-endian and
  at most one bytes->bytes codec). Header: ``uint16 mode``; for mode 0 ("default") and 1
  ("varlength"): ``uint16 ndim`` and ``ndim`` ``uint32`` block sizes, fastest axis first;
  mode 1 then an ``int32`` element count, which must be the product of the sizes here
  (numeric datasets); mode 2 ("object"): no more header, the data is taken as a whole
  chunk. Blocks at the array's edge may be stored short (Java's N5, z5py) or whole
  (zarr-python 2, tensorstore): a short block is decoded at its own size and padded with
  the fill value; a block larger than the chunk or with another dimension count is
  refused.
  Configuration ``{"codecs": [...]}``: the README's form starts with a transpose reversing
  every axis (the Zarr array then has N5's axis order); the form without it, which
  :mod:`zarrhpc.metadata.n5` produces, has the axes reversed already (zarr-python 2's
  ``N5Store`` view): the block's sizes are then read in reverse. Writes produce mode-0
  blocks of the whole chunk.
- ``n5.lz4`` (bytes->bytes, read only; internal name for N5's ``lz4`` compression): lz4-
  java's ``LZ4BlockOutputStream`` frames, each ``"LZ4Block"``, a token (method ``0x10``
  raw or ``0x20`` LZ4 in its high nibble), little-endian ``int32`` compressed length,
  decoded length and xxHash32 checksum, then the data; a frame with decoded length 0
  ends the stream. Lengths are checked against the input and the chunk size before
  anything is decoded; the checksum is not verified (no xxHash in the dependencies).
  Data not starting with ``"LZ4Block"`` is either the LZ4 frame format (magic
  ``04 22 4D 18``: the Rust n5 crate and pyn5 write it; decoded with the ``lz4`` package,
  ``zarrhpc[n5]``, never past the chunk's size) or numcodecs' LZ4 (a little-endian
  ``int32`` decoded size, then one LZ4 block), which zarr-python 2's ``N5Store`` wrote
  under the same N5 type, or (when that size is not the chunk's) a bare LZ4 block, as z5
  and z5py write it, decoded to exactly the chunk's size.
"""

from __future__ import annotations

import math
import struct
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    BytesToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    config_dict,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["N5DefaultCodec", "N5Lz4Codec"]

_LZ4_MAGIC = b"LZ4Block"
_LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
_LZ4_HEAD = struct.Struct("<8sBiii")


class N5DefaultCodec(ArrayToBytesCodec):
    """One N5 block per chunk (see the module docstring).

    Parameters
    ----------
    codecs : list
        v3 codec entries: optionally a transpose reversing every axis, then ``bytes``
        (big-endian for multi-byte types), then at most one bytes->bytes codec.
    """

    name: ClassVar[str] = "n5_default"

    def __init__(self, codecs: Any, doc: str = "", field: str = "N5DefaultCodec") -> None:
        if not isinstance(codecs, list) or not codecs:
            raise CodecError(f"{field_name(doc, field, 'codecs')}: expected a list of codecs, "
                             f"got {codecs!r}")
        self.codecs = codecs
        first = codecs[0]
        name = first if isinstance(first, str) else first.get("name") if isinstance(
            first, dict) else None
        self._transposed = name == "transpose"
        self._doc, self._field = doc, field
        self._pipes: dict = {}

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"codecs": [...]}``."""
        config = config_dict(configuration, doc, field, {"codecs"})
        if "codecs" not in config:
            raise CodecError(f"{field_name(doc, field, 'codecs')}: missing required key")
        return cls(config["codecs"], doc, field)

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"codecs": self.codecs}}

    def _pipe(self, shape: tuple[int, ...], spec: ChunkSpec):
        """The inner chain for a block of ``shape`` (Zarr axis order), made once per shape."""
        from zarrhpc.codecs.pipeline import CodecPipeline

        key = (shape, spec.dtype.str)
        pipe = self._pipes.get(key)
        if pipe is None:
            pipe = CodecPipeline.from_json(self.codecs, ChunkSpec(shape, spec.dtype,
                                                                  spec.fill_value),
                                           field_name(self._doc, self._field, "codecs"))
            if self._transposed:
                order = list(pipe.array_array[0].order) if pipe.array_array else None
                if order != list(range(len(shape)))[::-1] or len(pipe.array_array) != 1:
                    raise CodecError(f"{field_name(self._doc, self._field, 'codecs')}: the "
                                     "transpose must reverse every axis, and be the only "
                                     "array->array codec")
            elif pipe.array_array:
                raise CodecError(f"{field_name(self._doc, self._field, 'codecs')}: only a "
                                 "transpose reversing every axis may come before bytes")
            if len(self._pipes) < 256:
                self._pipes[key] = pipe
        return pipe

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        if spec.dtype.kind not in "biuf" or spec.ndim == 0:
            raise CodecError(f"{field_name(doc, field)}: n5_default stores numeric chunks "
                             f"of one or more dimensions, not {spec.dtype} {spec.shape}")
        self._set("_doc", doc or self._doc)  # names the document in later errors
        self._set("_field", field)
        self._pipe(spec.shape, spec)

    def _n5_order(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Block sizes as the header lists them (fastest axis first) for a Zarr-order shape."""
        return tuple(shape) if self._transposed else tuple(reversed(shape))

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        body = self._pipe(spec.shape, spec).encode(arr)
        sizes = self._n5_order(spec.shape)
        head = struct.pack(f">HH{len(sizes)}I", 0, len(sizes), *sizes)
        return head + bytes(as_bytes_view(body))

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        view = as_bytes_view(buf)
        if len(view) < 2:
            raise CorruptChunkError(f"n5_default: {len(view)} bytes, no block header")
        (mode,) = struct.unpack(">H", view[:2])
        if mode == 2:
            shape, start = spec.shape, 2
        elif mode in (0, 1):
            if len(view) < 4:
                raise CorruptChunkError("n5_default: truncated block header")
            (ndim,) = struct.unpack(">H", view[2:4])
            start = 4 + 4 * ndim + (4 if mode == 1 else 0)
            if ndim != spec.ndim or len(view) < start:
                raise CorruptChunkError(f"n5_default: block header of {ndim} dimensions "
                                        f"({len(view)} bytes), expected {spec.ndim}")
            sizes = struct.unpack(f">{ndim}I", view[4:4 + 4 * ndim])
            shape = self._n5_order(sizes)  # back to Zarr order (an involution)
            if any(s > c for s, c in zip(shape, spec.shape)):
                raise CorruptChunkError(f"n5_default: block of shape {shape} is larger than "
                                        f"the chunk {spec.shape}")
            if mode == 1:
                (count,) = struct.unpack(">i", view[4 + 4 * ndim:start])
                if count != math.prod(shape):
                    raise CorruptChunkError(f"n5_default: varlength block of {count} "
                                            f"elements, its sizes {sizes} hold {math.prod(shape)}")
        else:
            raise CorruptChunkError(f"n5_default: unknown block mode {mode}")
        if 0 in shape:
            block = np.empty(shape, dtype=spec.dtype)
        else:
            block = self._pipe(tuple(shape), spec).decode(view[start:])
        if tuple(shape) == spec.shape:
            return np.asarray(block, dtype=spec.dtype)
        out = np.empty(spec.shape, dtype=spec.dtype)
        out[...] = spec.fill_value if spec.fill_value is not None else 0
        out[tuple(slice(0, n) for n in shape)] = block
        return out


class N5Lz4Codec(BytesToBytesCodec):
    """N5's ``lz4`` compression: lz4-java block frames (read only)."""

    name: ClassVar[str] = "n5.lz4"

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        config_dict(configuration, doc, field, {"blockSize"}, required=False)
        return cls()

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {}}

    def encode(self, buf: Any) -> Any:
        raise CodecError("n5.lz4: writing N5's lz4 frames is not supported (N5 is read only)")

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        from numcodecs.lz4 import decompress

        view = as_bytes_view(buf)
        if bytes(view[:4]) == _LZ4_FRAME_MAGIC:  # LZ4 frames (rust-n5, pyn5)
            return self._frames(view, decoded_size)
        if bytes(view[:8]) != _LZ4_MAGIC:  # numcodecs' framing (zarr-python 2's N5Store)
            return self._numcodecs(view, decoded_size, decompress)
        out = bytearray()
        pos = 0
        limit = decoded_size if decoded_size is not None else 1 << 62
        while True:
            if len(view) - pos < _LZ4_HEAD.size:
                raise CorruptChunkError(f"n5.lz4: truncated frame header at byte {pos}")
            magic, token, clen, dlen, _checksum = _LZ4_HEAD.unpack_from(view, pos)
            pos += _LZ4_HEAD.size
            method = token & 0xF0
            if magic != _LZ4_MAGIC or method not in (0x10, 0x20) or clen < 0 or dlen < 0:
                raise CorruptChunkError(f"n5.lz4: bad frame header at byte {pos - _LZ4_HEAD.size}")
            if dlen == 0:
                break
            if clen > len(view) - pos or len(out) + dlen > limit or (
                    method == 0x10 and clen != dlen):
                raise CorruptChunkError(f"n5.lz4: frame of {clen} -> {dlen} bytes does not fit "
                                        f"the {len(view) - pos} bytes left or the chunk")
            data = view[pos:pos + clen]
            pos += clen
            if method == 0x10:
                out += data
                continue
            try:
                block = decompress(struct.pack("<I", dlen) + bytes(data))
            except (RuntimeError, ValueError) as exc:
                raise CorruptChunkError(f"n5.lz4: {exc}") from None
            if len(block) != dlen:
                raise CorruptChunkError(f"n5.lz4: frame decoded to {len(block)} bytes, "
                                        f"expected {dlen}")
            out += block
        if decoded_size is not None and len(out) != decoded_size:
            raise CorruptChunkError(f"n5.lz4: expected {decoded_size} decoded bytes, got {len(out)}")
        return bytes(out)

    @staticmethod
    def _frames(view: memoryview, decoded_size: int | None) -> bytes:
        try:
            import lz4.frame
        except ImportError:
            raise CodecError("n5.lz4: the block is in the LZ4 frame format (as the Rust n5 "
                             "crate and pyn5 write it): pip install lz4 (zarrhpc[n5])") from None
        dec = lz4.frame.LZ4FrameDecompressor()
        try:
            limit = -1 if decoded_size is None else decoded_size + 1
            out = dec.decompress(bytes(view), max_length=limit)
        except RuntimeError as exc:
            raise CorruptChunkError(f"n5.lz4: {exc}") from None
        if (decoded_size is not None and len(out) != decoded_size) or not dec.eof:
            raise CorruptChunkError(f"n5.lz4: LZ4 frames of {len(out)} bytes (complete: "
                                    f"{dec.eof}), expected {decoded_size}")
        return out

    @staticmethod
    def _numcodecs(view: memoryview, decoded_size: int | None, decompress) -> bytes:
        if len(view) < 4 and decoded_size is None:
            raise CorruptChunkError(f"n5.lz4: {len(view)} bytes, neither lz4-java frames nor "
                                    "numcodecs' LZ4")
        (size,) = struct.unpack("<i", bytes(view[:4]).ljust(4, b"\xff"))
        if decoded_size is not None and size != decoded_size:
            # no size prefix: a bare LZ4 block of the chunk's size (z5, z5py)
            data = struct.pack("<i", decoded_size) + bytes(view)
        elif size < 0 or decoded_size is None and size > 64 * len(view) + 64:
            raise CorruptChunkError(f"n5.lz4: numcodecs' LZ4 block of {size} bytes, expected "
                                    f"{decoded_size}")
        else:
            data = bytes(view)
        try:
            out = bytes(decompress(data))
        except (RuntimeError, ValueError) as exc:
            raise CorruptChunkError(f"n5.lz4: {exc}") from None
        if decoded_size is not None and len(out) != decoded_size:
            raise CorruptChunkError(f"n5.lz4: expected {decoded_size} decoded bytes, got "
                                    f"{len(out)}")
        return out
