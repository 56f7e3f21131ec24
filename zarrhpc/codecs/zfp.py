"""zfp codecs: zarr-extensions' ``zfp`` (headerless) and numcodecs' ``zfpy`` (with header).

Spec card
---------
- What: ``array -> bytes`` lossy or lossless compression of 1-4 dimensional numeric
  chunks with LLNL's zfp, through the ``zfpy`` package (its C library; GIL held).
- ``zfp``: zarr-extensions ``codecs/zfp/README.md``. Configuration ``mode`` (string)
  ``"reversible"``, ``"fixed_accuracy"`` + ``tolerance``, ``"fixed_rate"`` + ``rate``,
  ``"fixed_precision"`` + ``precision``, ``"expert"`` (refused: zfpy cannot set its four
  parameters). No zfp header: the stream starts with the first block. The chunk's shape
  ``[.., ny, nx]`` is the zfp field (last axis fastest); a 0-d chunk is ``nx = 1``.
  Types: ``int32``, ``int64``, ``float32``, ``float64`` natively; ``int8``/``int16``/
  ``uint8``/``uint16`` promoted to ``int32`` by the README's shifts (``int8``: ``v << 23``,
  ``uint8``: ``(v - 0x80) << 23``, 16-bit with 15) and demoted with clamping; ``uint32``/
  ``uint64`` as zarrs does (``min(v, INT_MAX)`` as signed, ``max(v, 0)`` back).
  **Fixed rate as zarrs writes it**: zarrs (the one writer of this codec) calls
  ``zfp_stream_set_rate(rate, type, 3, 0)`` whatever the chunk's dimensions, i.e.
  ``floor(64 * rate + 0.5)`` bits per block; zfpy passes the real dimension count, so the
  rate handed to zfpy is rescaled by ``64 / 4**ndim`` (same bits per block, same bytes).
  Names: ``zfp`` (written), ``zarrs.zfp`` and ``https://codec.zarrs.dev/array_to_bytes/zfp``
  (zarrs' earlier names, read). zarrs' earlier versions also took ``"write_header":
  true`` (the README's note): the stream then starts with zfp's full header, which is
  checked and decoded as for ``numcodecs.zfpy``; the member is written back only when
  true.
- ``numcodecs.zfpy`` (v2 id ``zfpy``, as numcodecs' ``ZFPY`` writes it): a full zfp
  header (``zfp_write_header(ZFP_HEADER_FULL)``: shape, type and mode) then the stream;
  configuration ``{"mode": int, "tolerance", "rate", "precision"}`` with zfpy's mode
  numbers (2 rate, 3 precision, 4 accuracy, 5 reversible; numcodecs writes -1 for the
  unused ones). numcodecs' ``ZFPY`` cannot encode mode 5 (no keyword set), which zarrs
  writes; this class can. v2: given as the ``compressor`` (it sees the chunk as an array).
- Corrupt input: zfp reads its bit stream without bounds checks, so every stream shorter
  than zfp's maximum size for the chunk and mode (``zfp_stream_maximum_size``, doubled)
  is first copied into a zero-padded buffer of that size; a zfpy header must describe
  exactly the chunk's shape and type before anything is decompressed.
- Not installed: ``pip install zfpy`` (``zarrhpc[zfp]``); the error names the codec.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    config_dict,
    config_error,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["ZfpCodec", "ZfpyCodec"]

_MODES = ("reversible", "fixed_accuracy", "fixed_rate", "fixed_precision", "expert")
_PARAM = {"fixed_accuracy": "tolerance", "fixed_rate": "rate", "fixed_precision": "precision"}
# zfpy's numbers for the modes (zfpy.mode_fixed_rate, ...)
_ZFPY_MODE = {2: "fixed_rate", 3: "fixed_precision", 4: "fixed_accuracy", 5: "reversible"}
#: the zfp type each chunk type is compressed as (numpy type); promoted ones shift
_NATIVE = {"i4": "i4", "i8": "i8", "f4": "f4", "f8": "f8", "i1": "i4", "i2": "i4", "u1": "i4",
           "u2": "i4", "u4": "i4", "u8": "i8"}
_SHIFT = {"i1": 23, "u1": 23, "i2": 15, "u2": 15}
_ZFP_HEADER_MAX_BITS = 148


def _zfpy(doc: str = "", field: str = "codec"):
    try:
        import zfpy
    except ImportError:
        raise CodecError(f"{field_name(doc, field)}: the zfp codecs need the zfpy package: "
                         "pip install zfpy (zarrhpc[zfp])") from None
    return zfpy


def _key(dtype: np.dtype) -> str:
    return f"{dtype.kind}{dtype.itemsize}"


def _check_type(name: str, spec: ChunkSpec, types: tuple[str, ...], doc: str, field: str):
    if _key(spec.dtype) not in types or spec.dtype.kind not in "iuf":
        raise CodecError(f"{field_name(doc, field)}: {name} compresses "
                         f"{', '.join(types)} chunks, not {spec.dtype}")
    if spec.ndim > 4:
        raise CodecError(f"{field_name(doc, field)}: {name} compresses chunks of 1-4 "
                         f"dimensions, not {spec.ndim} (zarrs.squeeze can drop length-1 ones)")


def _promote(arr: np.ndarray) -> np.ndarray:
    key = _key(arr.dtype)
    native = np.dtype(_NATIVE[key])
    if key in _SHIFT:
        mid = 0 if arr.dtype.kind == "i" else 1 << (arr.dtype.itemsize * 8 - 1)
        return (arr.astype(np.int32) - mid) << _SHIFT[key]
    if key in ("u4", "u8"):
        return np.minimum(arr, np.iinfo(native).max).astype(native)
    return np.ascontiguousarray(arr, dtype=native)


def _demote(arr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    key = _key(dtype)
    if key in _SHIFT:
        mid = 0 if dtype.kind == "i" else 1 << (dtype.itemsize * 8 - 1)
        info = np.iinfo(dtype)
        return np.clip((arr >> _SHIFT[key]) + mid, info.min, info.max).astype(dtype)
    if key in ("u4", "u8"):
        return np.maximum(arr, 0).astype(dtype)
    return arr.astype(dtype, copy=False)


def _field_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape or (1,)


def _max_size(shape: tuple[int, ...], native: np.dtype, rate_bits: int = 0) -> int:
    """An upper bound (twice zfp's ``zfp_stream_maximum_size``) of a stream's bytes."""
    values = 4 ** len(shape)
    blocks = math.prod((n + 3) // 4 for n in shape)
    prec = native.itemsize * 8
    per_block = max(1 + 1 + 11 + values - 1 + values * prec, rate_bits)
    return 2 * (((_ZFP_HEADER_MAX_BITS + blocks * per_block + 63) // 64) * 8) + 64


def _padded(buf: Any, size: int) -> bytes:
    """``buf`` as bytes, zero-padded to at least ``size`` (zfp reads without bounds)."""
    data = bytes(as_bytes_view(buf))
    return data + bytes(size - len(data)) if len(data) < size else data


class ZfpCodec(ArrayToBytesCodec):
    """zarr-extensions' ``zfp``: a headerless zfp stream per chunk.

    Parameters
    ----------
    mode : {"reversible", "fixed_accuracy", "fixed_rate", "fixed_precision"}
    tolerance, rate, precision : number
        The parameter of the mode (only that one).
    """

    name: ClassVar[str] = "zfp"
    aliases: ClassVar[tuple[str, ...]] = ("zarrs.zfp", "https://codec.zarrs.dev/array_to_bytes/zfp")
    _TYPES: ClassVar[tuple[str, ...]] = ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8")

    def __init__(self, mode: str = "reversible", doc: str = "", field: str = "ZfpCodec",
                 write_header: bool = False, **params: Any) -> None:
        if not isinstance(write_header, bool):
            raise config_error(doc, field, "write_header", "true or false", write_header)
        self.write_header = write_header
        if mode not in _MODES:
            raise config_error(doc, field, "mode", "one of " + ", ".join(map(repr, _MODES)), mode)
        if mode == "expert":
            raise CodecError(f"{field_name(doc, field, 'mode')}: zfp's expert mode is not "
                             "supported (zfpy cannot set minbits/maxbits/maxprec/minexp)")
        want = {_PARAM[mode]} if mode in _PARAM else set()
        if set(params) != want:
            raise CodecError(f"{field_name(doc, field)}: mode {mode!r} takes "
                             f"{sorted(want) or 'no other key'}, got {sorted(params)}")
        for key, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or (
                    key == "precision" and not float(value).is_integer()):
                raise config_error(doc, field, key, "a non-negative number", value)
        self.mode = mode
        self.params = dict(params)

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"mode": ..., <its parameter>: ...}``."""
        config = dict(config_dict(configuration, doc, field,
                                  {"mode", "tolerance", "rate", "precision", "minbits",
                                   "maxbits", "maxprec", "minexp", "write_header"}))
        if "mode" not in config:
            raise CodecError(f"{field_name(doc, field, 'mode')}: missing required key")
        return cls(config.pop("mode"), doc, field, config.pop("write_header", False), **config)

    def to_json(self) -> dict:
        extra = {"write_header": True} if self.write_header else {}
        return {"name": self.name, "configuration": {"mode": self.mode, **self.params, **extra}}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        _check_type(self.name, spec, self._TYPES, doc, field)
        if self.mode == "fixed_accuracy" and spec.dtype.kind != "f":
            raise CodecError(f"{field_name(doc, field)}: zfp's fixed_accuracy mode needs a "
                             f"floating-point type, not {spec.dtype}")

    def _kwargs(self, ndim: int) -> dict:
        if self.mode == "fixed_rate":  # zarrs' bits per block (module docstring)
            return {"rate": float(self.params["rate"]) * 64 / 4 ** ndim}
        if self.mode == "fixed_precision":
            return {"precision": int(self.params["precision"])}
        if self.mode == "fixed_accuracy":
            return {"tolerance": float(self.params["tolerance"])}
        return {}

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        zfpy = _zfpy()
        data = _promote(np.ascontiguousarray(arr)).reshape(_field_shape(spec.shape))
        return zfpy.compress_numpy(data, write_header=self.write_header,
                                   **self._kwargs(data.ndim))

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        zfpy = _zfpy()
        shape = _field_shape(spec.shape)
        native = np.dtype(_NATIVE[_key(spec.dtype)])
        if self.write_header:
            out = _decode_with_header(buf, shape, native, self.name)
            return _demote(out, spec.dtype).reshape(spec.shape)
        rate_bits = int(64 * float(self.params.get("rate", 0)) + 0.5)
        data = _padded(buf, _max_size(shape, native, rate_bits))
        ztype = zfpy.dtype_to_ztype(native)
        try:
            out = zfpy._decompress(data, ztype, list(shape), **self._kwargs(len(shape)))
        except (RuntimeError, ValueError, TypeError) as exc:
            raise CorruptChunkError(f"{self.name}: {exc}") from None
        return _demote(np.asarray(out), spec.dtype).reshape(spec.shape)


class ZfpyCodec(ArrayToBytesCodec):
    """numcodecs' ``zfpy``: a zfp stream with its full header.

    Parameters
    ----------
    mode : int
        zfpy's mode number: 2 fixed rate, 3 fixed precision, 4 fixed accuracy (numcodecs'
        default), 5 reversible.
    tolerance, rate, precision : number
        The mode's parameter; -1 (numcodecs' default) for the others.
    """

    name: ClassVar[str] = "numcodecs.zfpy"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/array_to_bytes/zfpy",)
    v2_id: ClassVar[str | None] = "zfpy"
    zarr_python_v3: ClassVar[bool] = True
    _TYPES: ClassVar[tuple[str, ...]] = ("i4", "i8", "f4", "f8")

    def __init__(self, mode: int = 4, tolerance: float = -1, rate: float = -1,
                 precision: int = -1, doc: str = "", field: str = "ZfpyCodec") -> None:
        if isinstance(mode, bool) or mode not in _ZFPY_MODE:
            raise config_error(doc, field, "mode", "2 (rate), 3 (precision), 4 (accuracy) "
                               "or 5 (reversible)", mode)
        for key, value in (("tolerance", tolerance), ("rate", rate), ("precision", precision)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise config_error(doc, field, key, "a number", value)
        self.mode, self.tolerance, self.rate, self.precision = mode, tolerance, rate, precision

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from numcodecs' ``{"mode", "tolerance", "rate", "precision"}``."""
        config = dict(config_dict(configuration, doc, field,
                                  {"id", "mode", "tolerance", "rate", "precision",
                                   "compression_kwargs"}, required=False))
        config.pop("id", None)
        config.pop("compression_kwargs", None)  # numcodecs' get_config: mode + parameter
        return cls(doc=doc, field=field, **config)

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype: Any) -> dict:
        return {"name": cls.name, "configuration": {
            k: v for k, v in conf.items() if k not in ("id", "compression_kwargs")}}

    def _config(self) -> dict:
        return {"mode": self.mode, "tolerance": self.tolerance, "rate": self.rate,
                "precision": self.precision}

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": self._config()}

    def to_v2(self) -> dict:
        """numcodecs' ``get_config`` form (with its derived ``compression_kwargs``)."""
        mode = _ZFPY_MODE[self.mode]
        extra = {"compression_kwargs": {_PARAM[mode]: getattr(self, _PARAM[mode])}} \
            if mode in _PARAM else {}
        return {"id": "zfpy", "mode": self.mode, **extra, "tolerance": self.tolerance,
                "rate": self.rate, "precision": self.precision}

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        _check_type(self.name, spec, self._TYPES, doc, field)

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        zfpy = _zfpy()
        mode = _ZFPY_MODE[self.mode]
        kwargs = {} if mode == "reversible" else {
            _PARAM[mode]: getattr(self, _PARAM[mode])}
        data = np.ascontiguousarray(arr).reshape(_field_shape(spec.shape))
        return zfpy.compress_numpy(data, write_header=True, **kwargs)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        out = _decode_with_header(buf, _field_shape(spec.shape), spec.dtype.newbyteorder("="),
                                  self.name)
        return out.reshape(spec.shape)


def _decode_with_header(buf: Any, shape: tuple[int, ...], native: np.dtype,
                        name: str) -> np.ndarray:
    """A zfp stream with its full header, checked to describe ``shape`` and ``native``."""
    zfpy = _zfpy()
    data = _padded(buf, 64)
    try:
        head = zfpy.header(data)
    except (RuntimeError, ValueError, TypeError) as exc:
        raise CorruptChunkError(f"{name}: bad zfp header: {exc}") from None
    dims = tuple(head[k] for k in ("nw", "nz", "ny", "nx") if head[k])
    if math.prod(dims) != math.prod(shape) or np.dtype(head["type"]) != native:
        raise CorruptChunkError(
            f"{name}: the zfp header describes {dims} {np.dtype(head['type'])} values, "
            f"expected {shape} {native}")
    rate_bits = int(4 ** len(dims) * max(float(head["config"].get("rate", 0)), 0) + 0.5)
    data = _padded(data, _max_size(dims, native, rate_bits))
    try:
        return np.asarray(zfpy.decompress_numpy(data))
    except (RuntimeError, ValueError, TypeError) as exc:
        raise CorruptChunkError(f"{name}: {exc}") from None
