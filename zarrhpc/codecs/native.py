"""A codec chain in the native engine's terms (zarrhpc._kernels.engine).

:func:`engine_for` turns a :class:`CodecPipeline` into an :class:`Engine` when every
codec has a native form: ``bytes`` (any endianness: the swap is fused into the copy),
``transpose`` (a stride permutation of the decoded chunk), and bytes->bytes codecs with
a :meth:`~zarrhpc.codecs.abc.BytesToBytesCodec.native_step` (crc32c, gzip, zstd, blosc).
Other chains return None and run in Python.

blosc encodes with c-blosc1 (see codecs/blosc.py: c-blosc2's format is unreadable by
c-blosc1 readers); the engine calls numcodecs' c-blosc1 through its exported
``blosc_compress_ctx``. When that symbol cannot be found, blosc chunks are encoded in
Python (the engine reports them as fallbacks).
"""

from __future__ import annotations

import ctypes
import dataclasses

import numpy as np

from zarrhpc._kernels import copy_into
from zarrhpc._kernels import engine as _engine
from zarrhpc.codecs.abc import swap_size
from zarrhpc.codecs.bytes import BytesCodec
from zarrhpc.codecs.pipeline import CodecPipeline
from zarrhpc.codecs.transpose import TransposeCodec

__all__ = ["DONE", "FAILED", "FALLBACK", "SKIPPED", "Engine", "engine_for"]

Engine = _engine.Engine
DONE, FALLBACK, FAILED, SKIPPED = _engine.DONE, _engine.FALLBACK, _engine.FAILED, _engine.SKIPPED


def _find_blosc1_compress() -> None:
    try:
        import numcodecs.blosc as nc_blosc

        fn = ctypes.CDLL(nc_blosc.__file__).blosc_compress_ctx
        _engine.set_blosc1_compress(ctypes.cast(fn, ctypes.c_void_p).value)
    except (ImportError, OSError, AttributeError):  # pragma: no cover - other builds
        pass


_find_blosc1_compress()


def _c_strides(shape, itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def engine_for(pipeline: CodecPipeline) -> Engine | None:
    """The native engine for ``pipeline``'s chain, or None when a codec has no native form."""
    if not isinstance(pipeline.array_bytes, BytesCodec):
        return None
    if not all(isinstance(c, TransposeCodec) for c in pipeline.array_array):
        return None
    steps = []
    for codec, size in zip(pipeline.bytes_bytes, pipeline._decoded_sizes):
        step = codec.native_step()
        if step is None:
            return None
        steps.append(dataclasses.replace(step, decoded_size=-1 if size is None else size))
    spec = pipeline.spec
    stored = pipeline.encoded_spec
    # the decoded chunk's logical byte strides: the array->array codecs' views of a
    # C-contiguous stored chunk (a strided stand-in; no element is touched)
    stored_dtype = pipeline.array_bytes.stored_dtype(stored.dtype)
    if pipeline.array_bytes.swaps_user_type(stored_dtype):
        return None  # a user-defined type (bfloat16) stored in the other byte order
    cstrides = _c_strides(stored.shape, stored_dtype.itemsize)
    # a raw stand-in of the element size: as_strided cannot carry user-defined types (nor
    # structured types with such fields: complex_float8_*)
    stand_in = np.dtype(f"V{stored_dtype.itemsize}") if (
        stored_dtype.isbuiltin == 2 or stored_dtype.fields is not None) else stored_dtype
    view = np.lib.stride_tricks.as_strided(np.zeros(1, stand_in), stored.shape, cstrides)
    for aa in reversed(pipeline.array_array):
        view = aa.decode_view(view)
    swap = swap_size(stored_dtype)
    fill_native = np.asarray(spec.fill_value, dtype=spec.dtype).reshape(1)
    fill_stored = np.empty(1, dtype=view.dtype)
    copy_into(fill_stored, fill_native, swap)
    return Engine(
        spec.shape,
        view.strides,
        spec.dtype.itemsize,
        swap,
        steps,
        fill_native.tobytes(),
        fill_stored.tobytes(),
    )
