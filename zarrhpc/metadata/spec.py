"""The one internal description of an array that every format is translated into.

Life cycle: a format's metadata object (``ArrayMetadataV3``, ``ArrayMetadataV2``,
``ArrayMetadataV3Draft``) builds an :class:`ArraySpec` once with ``to_spec()``; the core
``Array`` prepares its codec pipeline, chunk keys and fill bytes from it and never looks
at the format again. So v2 and draft arrays run through the same codec pipeline and the
same kernels as v3 (STYLE.md: "every format becomes one internal ArraySpec + a v3-shaped
codec chain").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from zarrhpc.metadata.dtypes import DataType

__all__ = ["ArraySpec"]


@dataclass(frozen=True, eq=False)
class ArraySpec:
    """Shape, type, chunking, chunk keys, fill value and v3-shaped codec chain of an array.

    Parameters
    ----------
    shape, chunk_shape : tuple of int
    data_type : DataType
        ``data_type.dtype`` is the element type of arrays returned by reads (native byte
        order, except structured v2 types, which keep their fields' byte orders).
    chunk_key_encoding : object with ``encode(coords) -> str``
        The key of a chunk relative to ``chunk_prefix``.
    fill_value : numpy.ndarray
        0-d of ``data_type.dtype`` (zero for a v2 ``null`` fill value).
    codecs : list
        v3 JSON codec entries (``{"name", "configuration"}``), for ``CodecPipeline``.
    dimension_names : tuple or None
    chunk_prefix : str or None
        Key prefix of the chunks; None: the node's path plus ``/`` (v2 and v3); the 2022
        draft keeps chunks under ``data/root/``.
    chunk_grid : RectilinearGrid or None
        An irregular rectilinear grid (v3 only); then ``chunk_shape`` is only the longest
        edge per dimension, which the codec chain is checked against.
    """

    shape: tuple[int, ...]
    data_type: DataType
    chunk_shape: tuple[int, ...]
    chunk_key_encoding: Any
    fill_value: np.ndarray
    codecs: list
    dimension_names: tuple | None = None
    chunk_prefix: str | None = None
    chunk_grid: Any = None
