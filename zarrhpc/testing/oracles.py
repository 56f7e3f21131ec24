"""Plain-numpy oracles of the compiled kernels in :mod:`zarrhpc._kernels`.

Each oracle has the signature and the semantics of its kernel, written for clarity
rather than speed, with numpy doing every step: the kernels' property tests compare
the two on random geometries.  Like the kernels, the oracles see elements only as
``itemsize`` raw bytes; they never interpret a dtype.

The oracles do not validate arguments the way the kernels do (a kernel raises
:class:`zarrhpc.errors.KernelError`); they assume valid input.
"""

from __future__ import annotations

import numpy as np

__all__ = ["copy_into_oracle", "fill_oracle", "raw_bytes"]


def raw_bytes(arr: np.ndarray) -> np.ndarray:
    """A ``uint8`` view of ``arr`` with one more, last axis of length ``itemsize``.

    Works for any strides (the view only adds a byte axis of stride 1) and any dtype
    without Python objects; writable when ``arr`` is.
    """
    return arr[..., np.newaxis].view(np.uint8)


def copy_into_oracle(dst: np.ndarray, src: np.ndarray, swap: int = 0) -> None:
    """Reference for :func:`zarrhpc._kernels.copy_into`: ``dst[...] = src`` on raw bytes,
    reversing the bytes of every ``swap``-byte component when ``swap`` is 2, 4 or 8.

    Overlapping ``dst`` and ``src`` behave as if ``src`` were copied first.
    """
    data = raw_bytes(src).copy()  # snapshot: overlap-safe, like the kernel
    if swap > 1:
        itemsize = data.shape[-1]
        parts = data.reshape(data.shape[:-1] + (itemsize // swap, swap))
        data = parts[..., ::-1].reshape(data.shape)
    raw_bytes(dst)[...] = data


def fill_oracle(dst: np.ndarray, value: bytes) -> None:
    """Reference for :func:`zarrhpc._kernels.fill`: every element of ``dst`` gets the
    ``itemsize``-byte pattern ``value``."""
    raw_bytes(dst)[...] = np.frombuffer(bytes(value), dtype=np.uint8)
