"""numcodecs codecs by their v3 names ``numcodecs.<id>``: the rarely used v2 filters and
compressors, run through numcodecs itself.

Spec card
---------
- What: array->array filters ``numcodecs.delta``, ``numcodecs.fixedscaleoffset``,
  ``numcodecs.quantize``, ``numcodecs.astype``, ``numcodecs.packbits``,
  ``numcodecs.categorize``; bytes->bytes ``numcodecs.lz4``, ``numcodecs.bz2``,
  ``numcodecs.lzma``, ``numcodecs.crc32``, ``numcodecs.adler32``, ``numcodecs.fletcher32``.
- Spec: numcodecs' codec documentation; v3 names as zarr-python 3 / ``numcodecs.zarr3``
  write them (``{"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}}``).
- v2 ids: the part after ``numcodecs.`` (``{"id": "delta", "dtype": "<f8"}``).
- Semantics: a v2 filter sees the chunk flattened in its stored order (C, or F for
  ``order: "F"``, which the chain expresses as a transpose before the filter), converted
  to the filter's ``dtype`` with its byte order; the filter's output goes to the ``bytes``
  codec (whose ``endian`` is that output's byte order) and then the compressor, so the
  bytes are those zarr-python 2 writes.
- Deviations: none intended; ``numcodecs.categorize`` and ``numcodecs.packbits`` change
  the chunk's type (and packbits its shape), which ``resolve`` reports.
- GIL: whatever numcodecs does (lz4 and bz2 release it); these codecs are rare, so the
  common ones (gzip, zlib, zstd, blosc) have their own GIL-free classes.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    BytesToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError, ZarrhpcError

__all__ = ["FILTER_IDS", "COMPRESSOR_IDS", "NumcodecsBytesCodec", "NumcodecsFilterCodec",
           "numcodecs_codec_classes"]

FILTER_IDS = ("delta", "fixedscaleoffset", "quantize", "astype", "packbits", "categorize")
COMPRESSOR_IDS = ("lz4", "bz2", "lzma", "crc32", "adler32", "fletcher32")
_IN_DTYPE = {"delta": "dtype", "fixedscaleoffset": "dtype", "quantize": "dtype",
             "astype": "decode_dtype", "categorize": "dtype"}
_OUT_DTYPE = {"delta": ("astype", "dtype"), "fixedscaleoffset": ("astype", "dtype"),
              "quantize": ("astype", "dtype"), "astype": ("encode_dtype",),
              "categorize": ("astype",)}


def _build(codec_id: str, config: dict | None, doc: str, field: str):
    import numcodecs

    conf = dict(config or {})
    conf.pop("id", None)
    try:
        return numcodecs.get_codec({"id": codec_id, **conf}), conf
    except (TypeError, ValueError, KeyError) as exc:
        raise CodecError(
            f"{field_name(doc, field)}: numcodecs.{codec_id}: bad configuration {conf!r}: {exc}"
        ) from None


class _NumcodecsBase:
    codec_id: ClassVar[str]

    def __init__(self, configuration: dict | None = None, doc: str = "", field: str = "codec"):
        self._codec, self.configuration = _build(self.codec_id, configuration, doc, field)

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from the numcodecs configuration (the v2 dict without ``id``)."""
        return cls(configuration, doc, field)

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": dict(self.configuration)}

    def to_v2(self) -> dict:
        """The v2 ``{"id": ..., ...}`` form."""
        return {"id": self.codec_id, **self.configuration}


class NumcodecsFilterCodec(_NumcodecsBase, ArrayToArrayCodec):
    """A numcodecs filter as an array->array codec (one subclass per id).

    numcodecs filters see a flat buffer ``view``-ed as their ``dtype``. When the chunk
    reaching the filter has that type (in any byte order) its values are converted, which
    is what v2 did with the chunk in its stored type; when it has another type (a filter
    after one that changed the type), its bytes are reinterpreted, as numcodecs does.
    """

    _in_spec: ChunkSpec | None = None

    def _dtype(self, key: str | None, default: np.dtype) -> np.dtype:
        value = self.configuration.get(key) if key else None
        return np.dtype(value) if value is not None else default

    def _in_dtype(self, spec_dtype: np.dtype) -> np.dtype:
        if self.codec_id == "packbits":
            return np.dtype(bool)
        return self._dtype(_IN_DTYPE.get(self.codec_id), spec_dtype)

    def _out_dtype(self, spec_dtype: np.dtype) -> np.dtype:
        if self.codec_id == "packbits":
            return np.dtype("u1")
        for key in _OUT_DTYPE.get(self.codec_id, ()):
            if self.configuration.get(key) is not None:
                return np.dtype(self.configuration[key])
        return self._in_dtype(spec_dtype)

    @staticmethod
    def _same_type(a: np.dtype, b: np.dtype) -> bool:
        return a.kind == b.kind and a.itemsize == b.itemsize or (
            a.kind in "OU" and b.kind == "U")

    def _in_shape(self, spec: ChunkSpec) -> tuple[int, ...]:
        want = self._in_dtype(spec.dtype)
        if self._same_type(want, spec.dtype):
            return spec.shape
        return (spec.nbytes // want.itemsize,)  # reinterpreted: flat

    def evolve(self, spec: ChunkSpec) -> NumcodecsFilterCodec:
        """Bind the chunk spec this filter sees (needed to undo flattening filters)."""
        out = type(self)(self.configuration)
        out._in_spec = spec
        return out

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        want = self._in_dtype(spec.dtype)
        if not self._same_type(want, spec.dtype) and spec.nbytes % max(want.itemsize, 1):
            raise CodecError(
                f"{field_name(doc, field)}: {self.name} reads the chunk as {want}, but the "
                f"{spec.nbytes} bytes reaching it ({spec.dtype}) are no whole number of those"
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        out = self._out_dtype(spec.dtype)
        shape = self._in_shape(spec)
        if self.codec_id == "packbits":
            shape = (1 + math.ceil(math.prod(shape) / 8),)
        return ChunkSpec(shape, out.newbyteorder("=") if out.kind not in "SV" else out)

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        """Run the filter on the chunk flattened in C order of ``arr`` (a new array)."""
        want = self._in_dtype(arr.dtype)
        if self._same_type(want, arr.dtype):
            data = np.ascontiguousarray(arr, dtype=want)
            shape = arr.shape
        else:
            data = np.ascontiguousarray(arr).reshape(-1).view(want)
            shape = data.shape
        out = np.asarray(self._codec.encode(data))
        return out if self.codec_id == "packbits" else out.reshape(shape)

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        """Undo the filter; the result has the shape and type of the chunk it was given."""
        spec = self._in_spec
        try:
            data = np.ascontiguousarray(arr, dtype=self._out_dtype(arr.dtype))
            out = np.asarray(self._codec.decode(data))
            if spec is None:
                return out.reshape(arr.shape)
            if self._same_type(self._in_dtype(spec.dtype), spec.dtype):
                return out.reshape(spec.shape)
            return np.ascontiguousarray(out).reshape(-1).view(spec.dtype).reshape(spec.shape)
        except (ValueError, TypeError) as exc:
            raise CorruptChunkError(f"{self.name}: cannot decode: {exc}") from None


class NumcodecsBytesCodec(_NumcodecsBase, BytesToBytesCodec):
    """A numcodecs compressor or checksum as a bytes->bytes codec (one subclass per id)."""

    def encode(self, buf: Any) -> Any:
        return self._codec.encode(np.frombuffer(as_bytes_view(buf), dtype=np.uint8))

    def decode(self, buf: Any, spec: ChunkSpec, decoded_size: int | None = None) -> Any:
        try:
            out = _bounded_decode(self._codec, bytes(as_bytes_view(buf)), decoded_size)
        except ZarrhpcError:
            raise
        except Exception as exc:  # lzma.LZMAError, zlib.error, ...: whatever the library raises
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        if decoded_size is not None and memoryview(out).nbytes != decoded_size:
            raise CorruptChunkError(
                f"{self.name}: expected {decoded_size} decoded bytes, got {memoryview(out).nbytes}"
            )
        return out


def numcodecs_codec_classes() -> list[type]:
    """One registered class per supported numcodecs id, named ``numcodecs.<id>``."""
    classes = []
    for ids, base in ((FILTER_IDS, NumcodecsFilterCodec), (COMPRESSOR_IDS, NumcodecsBytesCodec)):
        for cid in ids:
            name = "".join(p.capitalize() for p in cid.split("_"))
            classes.append(type(f"Numcodecs{name}Codec", (base,), {
                "name": f"numcodecs.{cid}", "codec_id": cid, "v2_id": cid,
                "__doc__": f"numcodecs ``{cid}`` as the v3 codec ``numcodecs.{cid}``.",
                "__module__": __name__,
            }))
    return classes


def _bounded_decode(codec: Any, data: bytes, decoded_size: int | None) -> Any:
    """``codec.decode(data)``, never producing more than ``decoded_size`` bytes for the
    decompressors whose numcodecs decode is otherwise unbounded (lzma, bz2): a stream
    that decodes to more than its chunk (a decompression bomb) is refused early."""
    cid = getattr(codec, "codec_id", None)
    if decoded_size is None or cid not in ("lzma", "bz2"):
        return codec.decode(data)
    if cid == "bz2":
        import bz2

        d: Any = bz2.BZ2Decompressor()
    else:
        import lzma

        fmt = getattr(codec, "format", lzma.FORMAT_AUTO)
        if fmt == lzma.FORMAT_RAW:
            d = lzma.LZMADecompressor(format=fmt, filters=getattr(codec, "filters", None))
        else:
            d = lzma.LZMADecompressor(format=lzma.FORMAT_AUTO)
    out = d.decompress(data, max_length=decoded_size + 1)
    if len(out) > decoded_size:
        raise CorruptChunkError(f"{cid}: the stream decodes to more than the {decoded_size} "
                                f"bytes of a chunk (a decompression bomb?)")
    return out
