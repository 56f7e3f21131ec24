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
- zarrs' ``zarrs.vlen_v2`` (``https://codec.zarrs.dev/array_to_bytes/vlen_v2``) is this
  layout decoupled from the data type (vlen-utf8's for strings, vlen-bytes' for bytes),
  configuration empty; zarrs writes ``numcodecs.vlen-array`` with an empty
  configuration the same way (:class:`ZarrsVlenV2Codec`, :class:`ZarrsVlenArrayCodec`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    ChunkSpec,
    NoConfiguration,
    config_dict,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError

try:  # built against numpy 2's StringDType C API: does not import under numpy 1.x
    from zarrhpc._kernels import vlen as _vlen
except ImportError:  # pragma: no cover - numpy 1.x
    _vlen = None

__all__ = ["VLenArrayCodec", "VLenBytesCodec", "VLenUTF8Codec", "ZarrsVlenArrayCodec",
           "ZarrsVlenV2Codec", "check_vlen_type", "is_text"]


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

    def _hash_fields(self) -> tuple:
        return ()

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """Not fixed (zarr-python's error and words)."""
        raise NotImplementedError("compute_encoded_size is not implemented for VLen codecs")

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
    #: zarrs' v3 name
    aliases: ClassVar[tuple[str, ...]] = ("vlen-array",)
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


def is_text(spec: ChunkSpec) -> bool:
    """Whether the chunk holds strings (numpy StringDType, or objects whose fill value
    is a str) rather than bytes."""
    if spec.dtype.kind == "T":
        return True
    fill = spec.fill_value
    return fill is not None and isinstance(np.asarray(fill, dtype=object).item(), str)


def check_vlen_type(name: str, spec: ChunkSpec, doc: str, field: str) -> None:
    if spec.dtype.kind not in "OT":
        raise CodecError(f"{field_name(doc, field)}: {name} serialises variable-length "
                         f"elements (string, bytes), not {spec.dtype}")


class ZarrsVlenV2Codec(NoConfiguration, ArrayToBytesCodec):
    """zarrs' ``vlen_v2``: the vlen-utf8 / vlen-bytes layout for any variable-length type."""

    name: ClassVar[str] = "zarrs.vlen_v2"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/array_to_bytes/vlen_v2",)

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        check_vlen_type(self.name, spec, doc, field)

    @staticmethod
    def _layout(spec: ChunkSpec) -> ArrayToBytesCodec:
        return VLenUTF8Codec() if is_text(spec) else VLenBytesCodec()

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        return self._layout(spec).encode(arr, spec)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        return self._layout(spec).decode(buf, spec)


class ZarrsVlenArrayCodec(ZarrsVlenV2Codec):
    """zarrs' ``numcodecs.vlen-array`` with an empty configuration: the vlen_v2 layout
    (zarrs writes it for variable-length types); numcodecs' form with a ``dtype`` is
    :class:`zarrhpc.codecs.vlen.VLenArrayCodec`, which hands this one out."""

    def to_json(self) -> dict:
        return {"name": "numcodecs.vlen-array", "configuration": {}}
