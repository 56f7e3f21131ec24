"""Benchmarks of zarrhpc._kernels (strided copy with fused byte swap, fill).

One class per operation family; every class times the kernel beside the numpy call
that does the same work (``np.copyto`` / ``ndarray.fill``), so a regression against
numpy shows in one run.  Sizes are a few MiB: large enough to leave the caches, small
enough that ``asv run --quick --python=same --bench kernels`` takes about a minute.
``peakmem_`` methods check that the kernels copy without temporaries (setup's arrays
are included in the figure, so compare it with the numpy twin).
"""

from typing import ClassVar

import numpy as np

from zarrhpc._kernels import copy_into, fill

MIB = 1 << 20
SEED = 20240601


def _random(shape, dtype, seed=SEED):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    return np.frombuffer(bytearray(rng.bytes(nbytes)), dtype=dtype).reshape(shape)


def _touched(shape, dtype):
    """An output array whose pages are already mapped (np.empty/np.zeros map them on
    first write, which would otherwise be timed by a --quick single sample)."""
    out = np.empty(shape, dtype)
    out.reshape(-1).view(np.uint8).fill(0)
    return out


class CopyContiguous:
    """Packed copy: one memcpy after dimension merging."""

    params: ClassVar[list] = [[64 * 1024, 4 * MIB, 32 * MIB]]
    param_names: ClassVar[list] = ["nbytes"]

    def setup(self, nbytes):
        self.src = _random((nbytes // 4096, 4096), np.uint8)
        self.dst = _touched(self.src.shape, self.src.dtype)

    def time_copy_into(self, nbytes):
        copy_into(self.dst, self.src)

    def time_numpy(self, nbytes):
        np.copyto(self.dst, self.src)

    def peakmem_copy_into(self, nbytes):
        copy_into(self.dst, self.src)


class CopySwap:
    """Byte-swapped packed copy (the bytes codec decoding big-endian data)."""

    params: ClassVar[list] = [["<i2", "<f4", "<f8", "<c8", "<c16"]]
    param_names: ClassVar[list] = ["dtype"]

    def setup(self, dtype):
        dt = np.dtype(dtype)
        self.swap = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
        self.src = _random((8 * MIB // dt.itemsize,), dt)
        self.src_other_order = self.src.view(dt.newbyteorder())  # same bytes
        self.dst = _touched(self.src.shape, self.src.dtype)

    def time_copy_into(self, dtype):
        copy_into(self.dst, self.src, swap=self.swap)

    def time_numpy(self, dtype):
        np.copyto(self.dst, self.src_other_order)


class CopyTranspose:
    """Transposed source (transpose codec, order F): the tiled walk."""

    params: ClassVar[list] = [[(2, 0, 1), (2, 1, 0), (1, 2, 0)], ["<f4", "<f8"], [0, 1]]
    param_names: ClassVar[list] = ["perm", "dtype", "swap"]

    def setup(self, perm, dtype, swap):
        dt = np.dtype(dtype)
        self.swap = dt.itemsize if swap else 0
        base = _random((128, 128, 128), dt)
        self.src = base.transpose(perm)
        self.src_np = self.src.view(dt.newbyteorder()) if swap else self.src
        self.dst = _touched(self.src.shape, dt)

    def time_copy_into(self, perm, dtype, swap):
        copy_into(self.dst, self.src, swap=self.swap)

    def time_numpy(self, perm, dtype, swap):
        np.copyto(self.dst, self.src_np)

    def peakmem_copy_into(self, perm, dtype, swap):
        copy_into(self.dst, self.src, swap=self.swap)


class CopySubblock:
    """A decoded chunk into a strided window of the output (partial-chunk read)."""

    params: ClassVar[list] = [["contiguous", "stepped", "reversed"]]
    param_names: ClassVar[list] = ["source"]

    def setup(self, source):
        self.out = _touched((256, 256, 256), np.float32)
        self.window = self.out[50:200, 19:150, 3:250]
        shape = self.window.shape
        if source == "contiguous":
            self.src = _random(shape, np.float32)
        elif source == "stepped":
            self.src = _random((shape[0] * 2, shape[1], shape[2] * 2), np.float32)[::2, :, ::2]
        else:
            self.src = _random(shape, np.float32)[::-1, :, ::-1]

    def time_copy_into(self, source):
        copy_into(self.window, self.src)

    def time_numpy(self, source):
        np.copyto(self.window, self.src)


class CopySmall:
    """Per-call overhead: a tiny chunk, below the GIL-release threshold."""

    params: ClassVar[list] = [[(4, 4), (16, 16), (64, 64)]]
    param_names: ClassVar[list] = ["shape"]

    def setup(self, shape):
        self.src = _random(shape, np.float64)
        self.dst = _touched(shape, np.float64)

    def time_copy_into(self, shape):
        copy_into(self.dst, self.src)

    def time_numpy(self, shape):
        np.copyto(self.dst, self.src)


class Fill:
    """Fill value into a missing chunk's window: packed and strided, odd item sizes."""

    params: ClassVar[list] = [["<f4", "<f8", "V12"], ["zeros", "pattern"], ["packed", "window"]]
    param_names: ClassVar[list] = ["dtype", "value", "layout"]

    def setup(self, dtype, value, layout):
        dt = np.dtype(dtype)
        rng = np.random.default_rng(SEED)
        self.value = bytes(dt.itemsize) if value == "zeros" else rng.bytes(dt.itemsize)
        n = 4 * MIB // dt.itemsize
        side = round(n ** (1 / 3))
        base = _touched((side, side, side), dt)
        self.dst = base if layout == "packed" else base[5:-7, 3:-2, 1:-4]
        self.scalar = np.frombuffer(self.value, dt)[0]  # numpy's twin of the pattern

    def time_fill(self, dtype, value, layout):
        fill(self.dst, self.value)

    def time_numpy(self, dtype, value, layout):
        self.dst.fill(self.scalar)

    def peakmem_fill(self, dtype, value, layout):
        fill(self.dst, self.value)
