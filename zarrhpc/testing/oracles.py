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

__all__ = ["copy_into_oracle", "fill_oracle", "raw_bytes", "read_orthogonal_oracle",
           "point_groups_oracle", "read_points_oracle"]


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


def read_points_oracle(data: np.ndarray, chunk_shape, chunk_coords, offsets, in_chunk,
                       out_index, out: np.ndarray) -> None:
    """Reference for :meth:`Engine.read_points`: ``data`` is the whole array as the
    engine should see it (fill value where a chunk is missing); point ``i`` of chunk
    ``k`` is ``data[chunk_coords[k] * chunk_shape + in_chunk[i]]`` and goes to
    ``out.flat[out_index[i]]``."""
    flat = out.reshape(-1)
    cs = np.asarray(chunk_shape, dtype=np.int64)
    for k in range(len(chunk_coords)):
        for i in range(offsets[k], offsets[k + 1]):
            flat[out_index[i]] = data[tuple(np.asarray(chunk_coords[k]) * cs + in_chunk[i])]


def read_orthogonal_oracle(data: np.ndarray, chunk_shape, dims, full: np.ndarray) -> None:
    """Reference for :meth:`Engine.read_orthogonal`: per dimension ``(chunks, offsets,
    in_chunk, out)``; every combination of one index per dimension is copied from
    ``data`` (global index ``chunk * chunk_len + in_chunk``) to ``full`` at its ``out``
    positions."""
    glob, outs = [], []
    for (chunks, offsets, in_chunk, out), c in zip(dims, chunk_shape):
        g = np.asarray(in_chunk, dtype=np.int64).copy()
        for k, ch in enumerate(chunks):
            g[offsets[k]:offsets[k + 1]] += ch * c
        glob.append(g)
        outs.append(np.asarray(out, dtype=np.int64))
    full[np.ix_(*outs)] = data[np.ix_(*glob)]


def point_groups_oracle(coords, shape, chunk_shape):
    """Reference for :func:`zarrhpc._kernels.points.group_points`: points grouped by
    chunk (chunks in C order, points of a chunk in selection order) with numpy's stable
    argsort: ``(chunk_coords, offsets, in_chunk, out_index)``."""
    pts = np.stack([np.asarray(c, dtype=np.int64).reshape(-1) for c in coords], axis=1)
    cs = np.asarray(chunk_shape, dtype=np.int64)
    grid = [max(-(-n // c), 1) for n, c in zip(shape, chunk_shape)]
    chunk = pts // cs
    lin = np.ravel_multi_index(tuple(chunk.T), grid) if len(pts) else np.zeros(0, np.int64)
    order = np.argsort(lin, kind="stable")
    uniq, starts = np.unique(lin[order], return_index=True)
    chunk_coords = np.stack(np.unravel_index(uniq, grid), axis=1).astype(np.int64) \
        if len(uniq) else np.zeros((0, len(shape)), np.int64)
    offsets = np.append(starts, len(order)).astype(np.int64)
    return chunk_coords, offsets, (pts - chunk * cs)[order], order.astype(np.int64)
