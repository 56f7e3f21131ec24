"""Type stub of zarrhpc._kernels.strided (compiled); see strided.pyx for the docs."""

from typing import SupportsIndex

import numpy as np
from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

def copy_into(dst: np.ndarray, src: np.ndarray, swap: SupportsIndex = 0) -> None:
    """``dst[...] = src`` on raw bytes, swapping every ``swap``-byte component (0/1: none;
    2, 4, 8). Same shape and itemsize, any strides; overlap handled via a snapshot.
    Raises KernelError on bad arguments. GIL released above 16 KiB."""

def fill(dst: np.ndarray, value: Buffer) -> None:
    """Write the ``dst.itemsize``-byte pattern ``value`` into every element of ``dst``.
    Raises KernelError on bad arguments. GIL released above 16 KiB."""
