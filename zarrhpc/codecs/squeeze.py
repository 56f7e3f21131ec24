"""zarrs' ``squeeze`` codec: drop the dimensions of length 1 from a chunk.

Spec card
---------
- What: ``array -> array``. The encoded chunk has the decoded chunk's dimensions of
  length > 1, in order; when none is longer than 1 it is the 1-d shape ``(1,)``. The
  elements and their C order do not change (a reshape, no data moves).
- Spec: zarrs' ``zarrs.squeeze`` (``https://codec.zarrs.dev/array_to_array/squeeze``),
  read from zarrs' source (``array_to_array/squeeze``: ``encoded_shape`` keeps the
  dimensions ``> 1``, else ``[1]``); zarr-extensions' zfp README names it as the way to
  give zfp chunks of more than four dimensions.
- v3 names: ``zarrs.squeeze`` (written), ``https://codec.zarrs.dev/array_to_array/squeeze``
  (zarrs' URI form, read). No v2 form.
- Example: ``{"name": "zarrs.squeeze", "configuration": {}}``.
- Deviations: none. zarrs warns that the codec is experimental; zarr-python does not
  read it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from zarrhpc.codecs.abc import ArrayToArrayCodec, ChunkSpec, NoConfiguration

__all__ = ["SqueezeCodec"]


def squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``shape`` has after the codec: its lengths > 1, or ``(1,)``."""
    return tuple(n for n in shape if n != 1) or (1,)


class SqueezeCodec(NoConfiguration, ArrayToArrayCodec):
    """Remove the length-1 dimensions of each chunk (a reshape)."""

    name: ClassVar[str] = "zarrs.squeeze"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/array_to_array/squeeze",)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return spec.with_shape(squeezed(spec.shape))

    def evolve(self, spec: ChunkSpec) -> SqueezeCodec:
        out = SqueezeCodec()
        out._set("_shape", spec.shape)
        return out

    _shape: tuple[int, ...] | None = None

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        return arr.reshape(squeezed(arr.shape))

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        if self._shape is None:  # pragma: no cover - the pipeline always evolves codecs
            raise ValueError("zarrs.squeeze: decoding needs the chunk shape (evolve first)")
        return arr.reshape(self._shape)
