"""reshape codec: give a chunk another shape, keeping its elements' C order.

Spec card
---------
- What: ``array -> array``; ``ravel(B) == ravel(A)`` (a view, no data moves).
- Spec: zarr-extensions ``codecs/reshape/README.md``.
- v3 name: ``reshape``; zarrs writes it on request. No v2 form.
- Configuration ``{"shape": [...]}``; each output dimension is a positive integer, an
  array of input dimensions (the product of their lengths) or ``-1`` (at most once: what
  is left). Refused: a total that does not match, input dimensions not strictly
  increasing across the whole list, and input dimensions whose position does not match
  the output dimension's (the README's two prefix/suffix products).
- Example: ``{"name": "reshape", "configuration": {"shape": [[0, 1], [2], 3]}}``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import ArrayToArrayCodec, ChunkSpec, config_dict, config_error, field_name
from zarrhpc.errors import CodecError

__all__ = ["ReshapeCodec"]


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


class ReshapeCodec(ArrayToArrayCodec):
    """Reshape each chunk (see the module docstring).

    Parameters
    ----------
    shape : list
        Per output dimension: a positive int, a list of input dimensions, or -1.
    """

    name: ClassVar[str] = "reshape"

    def __init__(self, shape: Any, doc: str = "", field: str = "ReshapeCodec") -> None:
        ok = isinstance(shape, (list, tuple)) and len(shape) > 0
        dims: list[int] = []
        for item in shape if ok else ():
            if _is_int(item) and (item > 0 or item == -1):
                continue
            if isinstance(item, (list, tuple)) and all(_is_int(d) and d >= 0 for d in item):
                dims.extend(int(d) for d in item)
                continue
            ok = False
        if not ok or sum(1 for s in shape if _is_int(s) and s == -1) > 1:
            raise config_error(doc, field, "shape", "a list of positive integers, lists of "
                               "input dimensions and at most one -1", shape)
        if any(b <= a for a, b in zip(dims, dims[1:])):
            raise config_error(doc, field, "shape", "input dimensions in strictly increasing "
                               "order", shape)
        self.shape = [list(map(int, s)) if isinstance(s, (list, tuple)) else int(s)
                      for s in shape]
        self._in_shape: tuple[int, ...] | None = None

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"shape": [...]}``."""
        config = config_dict(configuration, doc, field, {"shape"})
        if "shape" not in config:
            raise CodecError(f"{field_name(doc, field, 'shape')}: missing required key")
        return cls(config["shape"], doc, field)

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"shape": self.shape}}

    def _out_shape(self, shape: tuple[int, ...], doc: str = "", field: str = "codec"):
        out: list[int | None] = []
        for item in self.shape:
            if isinstance(item, list):
                if any(d >= len(shape) for d in item):
                    raise config_error(doc, field, "shape", f"input dimensions below "
                                       f"{len(shape)} (chunk shape {shape})", self.shape)
                out.append(math.prod(shape[d] for d in item))
            else:
                out.append(None if item == -1 else item)
        total = math.prod(shape)
        known = math.prod(n for n in out if n is not None)
        if None in out:
            if known == 0 or total % known:
                raise config_error(doc, field, "shape", f"a shape of {total} elements (chunk "
                                   f"shape {shape})", self.shape)
            out[out.index(None)] = total // known
        if math.prod(out) != total:
            raise config_error(doc, field, "shape", f"a shape of {total} elements (chunk shape "
                               f"{shape})", self.shape)
        for i, item in enumerate(self.shape):  # the README's position constraints
            if isinstance(item, list) and item:
                if (math.prod(out[:i]) != math.prod(shape[:item[0]])
                        or math.prod(out[i + 1:]) != math.prod(shape[item[-1] + 1:])):
                    raise config_error(doc, field, "shape", f"input dimensions {item} at "
                                       f"output position {i} of chunk shape {shape}", self.shape)
        return tuple(int(n) for n in out)

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        self._out_shape(spec.shape, doc, field)

    def evolve(self, spec: ChunkSpec) -> ReshapeCodec:
        out = ReshapeCodec(self.shape)
        out._set("_in_shape", spec.shape)
        return out

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        return spec.with_shape(self._out_shape(spec.shape))

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        return arr.reshape(self._out_shape(arr.shape))

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        if self._in_shape is None:  # pragma: no cover - the pipeline evolves codecs
            raise ValueError("reshape: decoding needs the chunk shape (evolve first)")
        return arr.reshape(self._in_shape)
