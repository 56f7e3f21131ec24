"""transpose codec: permute the dimensions of a chunk.

Spec card
---------
- What: ``array -> array``. Encoded shape ``B[i] = A[order[i]]`` and
  ``B[B_pos] = A[A_pos]`` with ``B_pos[i] = A_pos[order[i]]``: numpy's
  ``A.transpose(order)``.
- Spec: zarr-specs docs/v3/codecs/transpose/index.rst (transpose codec 1.0).
- v3 name: ``transpose``. v2 equivalent: ``"order": "F"`` of ``.zarray`` (a reversed
  permutation).
- Example: ``{"name": "transpose", "configuration": {"order": [2, 0, 1]}}``.
- Deviations: when reading, the pre-acceptance constants ``"C"`` (identity) and ``"F"``
  (reversed dimensions) are accepted and turned into explicit permutations by
  ``evolve``; they are never written.

Encode and decode return views only (``ndarray.transpose``): the one copy of the chain
happens in the bytes codec, which walks the permuted strides with the byte swap fused in.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ChunkSpec,
    chunk_spec_of,
    config_dict,
    config_error,
    field_name,
)
from zarrhpc.errors import CodecError

__all__ = ["TransposeCodec"]

_LEGACY = ("C", "F")


def _check_order(value: Any, doc: str, field: str) -> tuple[int, ...] | str:
    """Validate ``order``: a list of distinct non-negative ints, or legacy "C"/"F"."""
    if isinstance(value, str) and value in _LEGACY:
        return value
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in value
    )
    if ok and sorted(int(i) for i in value) == list(range(len(value))):
        return tuple(int(i) for i in value)
    raise config_error(doc, field, "order", "a permutation of 0..n-1 as a list of integers", value)


class TransposeCodec(ArrayToArrayCodec):
    """Permute the dimensions of a chunk (a view; no data moves).

    Parameters
    ----------
    order : sequence of int, or "C" / "F"
        The permutation: dimension ``i`` of the encoded chunk is dimension ``order[i]`` of
        the decoded one. ``"C"``/``"F"`` are the legacy forms (identity / reversed),
        resolved once the number of dimensions is known (:meth:`evolve`).
    """

    name: ClassVar[str] = "transpose"
    core: ClassVar[bool] = True
    is_fixed_size: ClassVar[bool] = True

    def __init__(self, order: Any) -> None:
        self.order = _check_order(order, "", "TransposeCodec")
        if isinstance(self.order, tuple):
            self._inverse = tuple(int(i) for i in np.argsort(self.order))

    @classmethod
    def from_config(
        cls, configuration: dict | None, doc: str = "", field: str = "codec"
    ) -> TransposeCodec:
        """Build from ``{"order": [...]}``."""
        config = config_dict(configuration, doc, field, {"order"})
        if "order" not in config:
            raise CodecError(f"{field_name(doc, field, 'order')}: missing required key")
        return cls(order=_check_order(config["order"], doc, field))

    def to_json(self) -> dict:
        """Return ``{"name": "transpose", "configuration": {"order": [...]}}``."""
        order = list(self.order) if isinstance(self.order, tuple) else self.order
        return {"name": self.name, "configuration": {"order": order}}

    def to_dict(self) -> dict:
        """zarr-python's ``to_dict()`` (the order as a tuple)."""
        order = self.order if isinstance(self.order, str) else tuple(self.order)
        return {"name": self.name, "configuration": {"order": order}}

    def _hash_fields(self) -> tuple:
        return (self.order,)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        """The input's size (zarr-python's method)."""
        return input_byte_length

    def evolve_from_array_spec(self, array_spec: Any) -> TransposeCodec:
        """As zarr-python: a ValueError when the order does not fit the array."""
        spec = chunk_spec_of(array_spec)
        if len(self._explicit(spec.ndim)) != spec.ndim:
            raise ValueError(
                "The `order` tuple must have as many entries as there are dimensions in "
                f"the array. Got {self.order}.")
        return self.evolve(spec)

    def _explicit(self, ndim: int) -> tuple[int, ...]:
        if self.order == "C":
            return tuple(range(ndim))
        if self.order == "F":
            return tuple(reversed(range(ndim)))
        return self.order  # type: ignore[return-value]

    def evolve(self, spec: ChunkSpec) -> TransposeCodec:
        """Turn a legacy ``"C"``/``"F"`` order into an explicit permutation."""
        if isinstance(self.order, str):
            return TransposeCodec(self._explicit(spec.ndim))
        return self

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        """Refuse an order whose length is not the number of dimensions."""
        order = self._explicit(spec.ndim)
        if len(order) != spec.ndim:
            raise config_error(
                doc,
                field,
                "order",
                f"a permutation of {spec.ndim} dimensions (chunk shape {spec.shape})",
                list(order),
            )

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """Spec of the encoded chunk: shape ``B[i] = A[order[i]]``."""
        order = self._explicit(spec.ndim)
        self.validate(spec)
        return spec.with_shape(tuple(spec.shape[i] for i in order))

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        """Return ``arr.transpose(order)`` (a view)."""
        return arr.transpose(self._explicit(arr.ndim))

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        """Return the inverse permutation of ``arr`` (a view)."""
        if isinstance(self.order, str):
            return arr.transpose(np.argsort(self._explicit(arr.ndim)))
        return arr.transpose(self._inverse)
