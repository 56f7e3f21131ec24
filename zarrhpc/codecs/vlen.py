"""vlen-utf8, vlen-bytes and vlen-array: variable-length elements (strings, bytes, arrays).

Spec card
---------
- What: ``array -> bytes`` serialisers of object-like chunks. Layout (numcodecs' VLenUTF8
  and VLenBytes, which zarr-python 3 uses for the v3 codecs too): a little-endian
  ``uint32`` item count, then per element in C order a little-endian ``uint32`` byte
  length and the bytes (UTF-8 for strings). vlen-array: numcodecs' VLenArray layout
  (same framing, each element the raw bytes of a 1-d array of ``dtype``).
- Spec: zarr-extensions codecs/vlen-utf8 and codecs/vlen-bytes (v3); numcodecs docs (v2).
- v3 names: ``vlen-utf8`` (data type ``string``), ``vlen-bytes`` (data type
  ``variable_length_bytes`` / ``bytes``); also ``numcodecs.vlen-utf8`` and
  ``numcodecs.vlen-bytes``. v2 ids: ``vlen-utf8``, ``vlen-bytes``, ``vlen-array``, given
  as the first filter of an ``|O`` array (the chain then has no ``bytes`` codec).
- Example: ``{"name": "vlen-utf8", "configuration": {}}``.
- Decoded type: numpy ``StringDType`` for strings where numpy has it (numpy >= 2), as
  zarr-python 3 returns; object arrays of ``bytes`` / of 1-d arrays otherwise.
- Speed: framing, length checks and object creation run in native code
  (``zarrhpc._kernels.vlen``). Strings decode straight into numpy's ``StringDType``
  storage (UTF-8 validated in C, no Python object at all, GIL released) and encode from
  it; object arrays take one C call per element to build its ``str``/``bytes``.
- Corrupt input: every length is checked before it is read; a short, inconsistent or
  non-UTF-8 buffer raises :class:`~zarrhpc.errors.CorruptChunkError`. Bytes after the
  last element are ignored, as numcodecs (hence zarr-python) does.
- GIL: held (objects are built); the framing pass is a tight C loop.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import ArrayToBytesCodec, ChunkSpec, config_dict
from zarrhpc.errors import CodecError, CorruptChunkError

try:  # built against numpy 2's StringDType C API: does not import under numpy 1.x
    from zarrhpc._kernels import vlen as _vlen
except ImportError:  # pragma: no cover - numpy 1.x
    _vlen = None

__all__ = ["VLenArrayCodec", "VLenBytesCodec", "VLenUTF8Codec"]


def _flat_objects(arr: np.ndarray) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype.kind != "O":
        arr = arr.astype(object)  # StringDType -> str objects (one C loop)
    arr = np.ascontiguousarray(arr).reshape(-1)
    # the kernel takes a writable object buffer: a read-only chunk (a caller's read-only
    # array, a broadcast value) is copied (the references only)
    return arr if arr.flags.writeable else arr.copy()


def _numcodecs_fn(name: str, method: str):
    def run(arg, n=None):  # numpy 1.x: numcodecs' own implementation
        import numcodecs

        codec = numcodecs.VLenUTF8() if name == "utf8" else numcodecs.VLenBytes()
        if method == "encode":
            return codec.encode(arg)
        out = codec.decode(bytes(memoryview(arg).cast("B")))
        if n is not None and out.shape[0] != n:
            raise ValueError(f"vlen header declares {out.shape[0]} items, expected {n}")
        return out
    return run


def _kernel(name: str, fallback: str, method: str):
    if _vlen is not None:
        return getattr(_vlen, name)
    return _numcodecs_fn(fallback, method)


class _VLenBase(ArrayToBytesCodec):
    """Shared parts: no configuration, element framing in native code."""

    object_type: ClassVar[str]
    _decode_fn: ClassVar[Any]
    _encode_fn: ClassVar[Any]
    _string_kernels: ClassVar[bool] = False

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build; the configuration must be absent or empty."""
        config_dict(configuration, doc, field, {"id"}, required=False)
        return cls()

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype) -> dict:
        return {"name": cls.name, "configuration": {}}

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {}}

    def to_v2(self) -> dict:
        return {"id": self.v2_id}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        if spec.dtype.kind not in "OT":
            raise CodecError(f"{doc + ': ' if doc else ''}{field}: {self.name} serialises "
                             f"variable-length elements, not {spec.dtype}")

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        arr = np.asarray(arr)
        try:
            if self._string_kernels and arr.dtype.kind == "T" and _vlen is not None:
                return _vlen.encode_utf8_strings(arr)  # numpy's packed strings, no objects
            return type(self)._encode_fn(_flat_objects(arr))
        except TypeError as exc:
            raise CodecError(f"{self.name}: {exc}") from None

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        n = int(np.prod(spec.shape, dtype=np.int64))
        try:
            if self._string_kernels and spec.dtype.kind == "T" and _vlen is not None:
                return _vlen.decode_utf8_strings(buf, n, spec.dtype).reshape(spec.shape)
            out = type(self)._decode_fn(buf, n)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        if spec.dtype.kind == "T":
            out = out.astype(spec.dtype)
        return out.reshape(spec.shape)


class VLenUTF8Codec(_VLenBase):
    """Variable-length UTF-8 strings (v3 ``vlen-utf8``, v2 ``vlen-utf8``)."""

    name: ClassVar[str] = "vlen-utf8"
    zarr_python_v3: ClassVar[bool] = True
    aliases: ClassVar[tuple[str, ...]] = ("numcodecs.vlen-utf8",)
    v2_id: ClassVar[str | None] = "vlen-utf8"
    object_type: ClassVar[str] = "string"
    _decode_fn = staticmethod(_kernel("decode_utf8", "utf8", "decode"))
    _encode_fn = staticmethod(_kernel("encode_utf8", "utf8", "encode"))
    _string_kernels: ClassVar[bool] = True


class VLenBytesCodec(_VLenBase):
    """Variable-length byte strings (v3 ``vlen-bytes``, v2 ``vlen-bytes``)."""

    name: ClassVar[str] = "vlen-bytes"
    zarr_python_v3: ClassVar[bool] = True
    aliases: ClassVar[tuple[str, ...]] = ("numcodecs.vlen-bytes",)
    v2_id: ClassVar[str | None] = "vlen-bytes"
    object_type: ClassVar[str] = "variable_length_bytes"
    _decode_fn = staticmethod(_kernel("decode_bytes", "bytes", "decode"))
    _encode_fn = staticmethod(_kernel("encode_bytes", "bytes", "encode"))


class VLenArrayCodec(ArrayToBytesCodec):
    """Variable-length 1-d arrays of one numeric type (v2 ``vlen-array``, via numcodecs).

    Parameters
    ----------
    dtype : str
        numpy type of the elements of each item (``"<i4"``).
    """

    name: ClassVar[str] = "numcodecs.vlen-array"
    v2_id: ClassVar[str | None] = "vlen-array"
    object_type: ClassVar[str] = "object"

    def __init__(self, dtype: Any) -> None:
        import numcodecs

        try:
            self.dtype = np.dtype(dtype)
        except TypeError as exc:
            raise CodecError(f"vlen-array: dtype: {exc}") from None
        self._codec = numcodecs.VLenArray(self.dtype)

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"dtype": "<i4"}``."""
        config = config_dict(configuration, doc, field, {"dtype", "id"}, required=False)
        if "dtype" not in config:
            if "id" not in config:  # zarrs' v3 numcodecs.vlen-array: no dtype, any vlen type
                from zarrhpc.codecs.vlen_zarrs import ZarrsVlenArrayCodec
                return ZarrsVlenArrayCodec()
            raise CodecError(f"{doc + ': ' if doc else ''}{field}: vlen-array needs a dtype")
        return cls(config["dtype"])

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"dtype": self.dtype.str}}

    def to_v2(self) -> dict:
        return {"id": "vlen-array", "dtype": self.dtype.str}

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        flat = np.ascontiguousarray(arr, dtype=object).reshape(-1)
        if not flat.flags.writeable:  # numcodecs takes a writable memoryview (a broadcast
            flat = flat.copy()        # value written whole is a read-only view)
        return self._codec.encode(flat)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        n = int(np.prod(spec.shape, dtype=np.int64))
        try:
            out = self._codec.decode(bytes(memoryview(buf).cast("B")))
        except (ValueError, RuntimeError) as exc:
            raise CorruptChunkError(f"vlen-array: {exc}") from None
        if out.shape != (n,):
            raise CorruptChunkError(f"vlen-array: {out.shape[0]} items, expected {n}")
        return out.reshape(spec.shape)
