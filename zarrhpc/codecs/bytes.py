"""bytes codec: an array as its elements' bytes in lexicographical (C) order.

Spec card
---------
- What: ``array -> bytes``. Each element in the given ``endian`` byte order, elements in C
  order (another order is expressed by a ``transpose`` codec before this one).
- Spec: zarr-specs docs/v3/codecs/bytes/index.rst (bytes codec 1.0).
- v3 name: ``bytes``; alias read: ``endian`` (the 2022 draft's name of this codec).
  v2 equivalent: none (v2 puts the byte order in the dtype string, ``"<f8"``).
- Example: ``{"name": "bytes", "configuration": {"endian": "little"}}``; for one-byte and
  raw (``r*``) types ``{"name": "bytes"}``.
- Deviations: none. ``endian`` may be omitted only where the byte order does not apply
  (1-byte types, raw types), which the spec allows. ``evolve`` drops a given ``endian``
  for such types, as zarr-python does, so that metadata we write matches theirs.

Encode is the one copy of the write path: ``copy_into`` moves the (possibly transposed,
strided) chunk into a fresh C-contiguous buffer and swaps bytes on the way, with the GIL
released for chunks above 16 KiB. Decode does no copy at all: it returns a numpy view of
the buffer in the *stored* byte order; the caller's final copy into the output does the
swap (see :func:`~zarrhpc.codecs.abc.swap_size`).
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from zarrhpc._kernels import copy_into
from zarrhpc.codecs._pool import lend
from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    check_choice,
    chunk_spec_of,
    component_size,
    config_dict,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["BytesCodec", "struct_has_byte_order"]

_ENDIANS = ("little", "big")


class Endian(Enum):
    """zarr-python's byte-order enum (``BytesCodec(endian=Endian.big)``; strings work too)."""

    big = "big"
    little = "little"
_NATIVE = sys.byteorder
_DEFAULT_ENDIAN = Endian(_NATIVE)  # zarr-python's default_system_endian


def _stored_order(dtype: np.dtype) -> str | None:
    """Byte order of ``dtype``'s elements in memory, None when it does not apply."""
    if component_size(dtype) == 0:
        return None
    if dtype.byteorder == ">":
        return "big"
    if dtype.byteorder == "<":
        return "little"
    return _NATIVE


def struct_has_byte_order(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a structured type with multi-byte fields (other than the
    complex pairs of :func:`component_size`): the zarr-extensions ``struct`` type stores
    every such field in the bytes codec's ``endian``."""
    dtype = np.dtype(dtype)
    return dtype.fields is not None and component_size(dtype) == 0 and _fields_ordered(dtype)


def _fields_ordered(dtype: np.dtype) -> bool:
    for name in dtype.names:
        base = dtype.fields[name][0].base
        if base.fields is not None:
            if _fields_ordered(base):
                return True
        elif base.itemsize > 1 and (base.kind in "iufcmMU" or base.isbuiltin == 2):
            return True  # user-defined types too (ml_dtypes' bfloat16: numpy swaps them)
    return False


def _swapped_in_place(dtype: np.dtype) -> bool:
    """A type whose byte-swapped form numpy cannot express: a user-defined type, or the
    ``[("real", T), ("imag", T)]`` pair of complex_bfloat16 / complex_float16 (numpy's
    byte-swapped float16 pair would not be the same type); or a structured type, whose
    fields are each converted by numpy (decode hands on native fields)."""
    return dtype.isbuiltin == 2 or (dtype.fields is not None and (
        component_size(dtype) != 0 or struct_has_byte_order(dtype)))


def _has_order(dtype: np.dtype) -> bool:
    return component_size(dtype) != 0 or struct_has_byte_order(dtype)


class BytesCodec(ArrayToBytesCodec):
    """Serialise a chunk as its raw element bytes.

    Parameters
    ----------
    endian : {"little", "big"} or None
        Byte order of multi-byte elements. None (omitted in JSON) is allowed only for
        types without a byte order: 1-byte types and raw types.
    """

    name: ClassVar[str] = "bytes"
    core: ClassVar[bool] = True
    aliases: ClassVar[tuple[str, ...]] = ("endian",)
    draft_names: ClassVar[tuple[str, ...]] = ("endian",)

    @classmethod
    def v3_from_v2(cls, conf: dict, dtype) -> dict:
        """The draft's ``endian`` codec ``{"endian": "little" | "big"}``."""
        return {"name": cls.name, "configuration": {"endian": conf.get("endian", "little")}}

    is_fixed_size: ClassVar[bool] = True

    def __init__(self, endian: Endian | str | None = _DEFAULT_ENDIAN) -> None:
        if endian is not None:
            endian = check_choice(endian, _ENDIANS, "", "BytesCodec", "endian")
        self._endian = endian

    @property
    def endian(self) -> Endian | None:
        """The byte order (zarr-python's enum, None for types without one; ``_endian``
        is its string)."""
        return None if self._endian is None else Endian(self._endian)

    def _hash_fields(self) -> tuple:
        return (self.endian,)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """The input's size (zarr-python's method)."""
        return input_byte_length

    def evolve_from_array_spec(self, array_spec: Any) -> BytesCodec:
        """As zarr-python: ``endian`` dropped for types without a byte order, and a
        ValueError for a multi-byte type without one."""
        spec = chunk_spec_of(array_spec)
        if self._endian is None and _has_order(spec.dtype):
            raise ValueError(
                "The `endian` configuration needs to be specified for multi-byte data types.")
        return self.evolve(spec)

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> BytesCodec:
        """Build from ``{"endian": "little" | "big"}`` (configuration may be absent)."""
        config = config_dict(configuration, doc, field, {"endian"}, required=False)
        endian = config.get("endian")  # null: left out, as zarr-python reads it
        if endian is not None:
            endian = check_choice(endian, _ENDIANS, doc, field, "endian")
        return cls(endian=endian)

    @classmethod
    def from_dict(cls, data: dict) -> BytesCodec:
        """As zarr-python's ``from_dict``: a configuration without ``endian`` means the
        constructor's default (metadata read through :meth:`from_config` keeps it absent)."""
        codec = super().from_dict(data)
        if codec._endian is None and "endian" not in (data.get("configuration") or {}):
            return cls()
        return codec

    def to_json(self) -> dict:
        """Return ``{"name": "bytes"[, "configuration": {"endian": ...}]}``."""
        if self._endian is None:
            return {"name": self.name}
        return {"name": self.name, "configuration": {"endian": self._endian}}

    def _repr_fields(self) -> dict:
        from zarrhpc.codecs.abc import _Shown

        shown = None if self._endian is None else _Shown(f"<Endian.{self._endian}: '{self._endian}'>")
        return {"endian": shown}

    def evolve(self, spec: ChunkSpec) -> BytesCodec:
        """Drop ``endian`` for types without a byte order (what zarr-python writes)."""
        if self._endian is not None and not _has_order(spec.dtype):
            return BytesCodec(endian=None)
        return self

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        """Refuse a multi-byte type without ``endian``."""
        if self._endian is None and component_size(spec.dtype) != 0:
            raise CodecError(
                f"{field_name(doc, field, 'endian')}: expected 'little' or 'big' for data "
                f"type {spec.dtype.name} ({spec.dtype.itemsize} bytes per element), got "
                "no endian"
            )

    def stored_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype of elements as stored: ``dtype`` in this codec's byte order."""
        dtype = np.dtype(dtype)
        if self._endian is None or not _has_order(dtype):
            return dtype
        if _swapped_in_place(dtype):
            # a user-defined numpy type (ml_dtypes' bfloat16) has no byte-swapped form, nor
            # has a [real, imag] pair of them (complex_bfloat16, complex_float16): decode
            # swaps each part in place and hands the chunk on in native order
            return dtype
        return dtype.newbyteorder("<" if self._endian == "little" else ">")

    def swaps_user_type(self, dtype: np.dtype) -> bool:
        """Whether decode must byte-swap a user-defined type or a complex pair of two-byte
        floats (stored in the other order)."""
        dtype = np.dtype(dtype)
        return (_swapped_in_place(dtype) and self._endian is not None
                and _has_order(dtype) and self._endian != _NATIVE)

    def encoded_size(self, spec: ChunkSpec) -> int:
        """The encoded size is always ``prod(shape) * itemsize``."""
        return spec.nbytes

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> np.ndarray:
        """Copy ``arr`` into a new C-contiguous buffer in the stored byte order.

        Parameters
        ----------
        arr : numpy.ndarray
            Chunk of shape ``spec.shape``, any strides, any byte order.
        spec : ChunkSpec
            The chunk spec at this step.

        Returns
        -------
        numpy.ndarray
            1-d ``uint8`` array of ``spec.nbytes`` bytes (supports the buffer protocol).
        """
        arr = np.asarray(arr)
        if tuple(arr.shape) != spec.shape or arr.dtype.itemsize != spec.dtype.itemsize:
            raise CodecError(
                f"bytes: expected an array of shape {spec.shape} and itemsize "
                f"{spec.dtype.itemsize}, got shape {arr.shape} and itemsize {arr.dtype.itemsize}"
            )
        if self._endian is not None and struct_has_byte_order(arr.dtype):
            # every field in the codec's byte order, converted by numpy
            stored = np.dtype(spec.dtype).newbyteorder("<" if self._endian == "little" else ">")
            return np.ascontiguousarray(arr.astype(stored)).reshape(-1).view(np.uint8)
        src_order = _stored_order(arr.dtype)
        swap = 0
        if self._endian is not None and src_order is not None and src_order != self._endian:
            swap = component_size(arr.dtype)
        n = arr.nbytes
        buf = lend(n) if n and not arr.dtype.hasobject else None
        if buf is None:
            out = np.empty(arr.shape, dtype=arr.dtype)
        else:  # a pooled write's buffer (`zarrhpc.codecs._pool`)
            out = buf[:n].view(arr.dtype).reshape(arr.shape)
        copy_into(out, arr, swap)
        return out.reshape(-1).view(np.uint8)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        """Return a zero-copy view of ``buf`` as an array of ``spec.shape``.

        The view's dtype is ``spec.dtype`` in the stored byte order (possibly not native);
        it is read-only when ``buf`` is.

        Raises
        ------
        CorruptChunkError
            ``buf`` does not hold exactly ``prod(shape) * itemsize`` bytes.
        """
        view = as_bytes_view(buf)
        if view.nbytes != spec.nbytes:
            raise CorruptChunkError(
                f"bytes: expected {spec.nbytes} bytes for a chunk of shape {spec.shape} "
                f"and data type {spec.dtype.name}, got {view.nbytes}"
            )
        dtype = self.stored_dtype(spec.dtype)
        if spec.nbytes == 0:
            return np.empty(spec.shape, dtype=dtype)
        arr = np.frombuffer(view, dtype=dtype).reshape(spec.shape)
        if self.swaps_user_type(dtype) and struct_has_byte_order(dtype):
            stored = dtype.newbyteorder("<" if self._endian == "little" else ">")
            return np.frombuffer(view, dtype=stored).reshape(spec.shape).astype(dtype)
        if self.swaps_user_type(dtype):
            out = np.empty(spec.shape, dtype=dtype)
            copy_into(out, arr, component_size(dtype))
            return out
        return arr
