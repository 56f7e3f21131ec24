"""bitround codec (zarr-extensions): keep ``keepbits`` mantissa bits of each float.

Spec card
---------
- What: ``array -> array``, lossy on encode, nothing to undo on decode (the rounded
  values are the values). Floats (float16/32/64, bfloat16, complex pairs of them): the
  mantissa is rounded to ``keepbits`` bits, to nearest with ties to even, as numcodecs'
  BitRound does (which zarrs' implementation follows). Integers (the spec rounds them from
  their most significant set bit) are read; writing them is refused with a clear error.
- Spec: zarr-extensions codecs/bitround/README.md.
- v3 name: ``bitround`` (what zarrs writes); zarr-python's ``numcodecs.bitround`` is the
  numcodecs codec (codecs/numcodecs_adapter.py), which the spec lists as a deprecated alias.
- Example: ``{"name": "bitround", "configuration": {"keepbits": 10}}``.
- GIL: held for the integer bit operations of encode (numpy); decode is a no-op view.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from zarrhpc.codecs.abc import ArrayToArrayCodec, ChunkSpec, config_dict, config_error, field_name
from zarrhpc.errors import CodecError

__all__ = ["BitroundCodec"]

#: mantissa bits of the float types (bfloat16: 7)
_MANTISSA = {2: 10, 4: 23, 8: 52}


def _mantissa_bits(dtype: np.dtype) -> int | None:
    if dtype.name == "bfloat16":
        return 7
    if dtype.kind == "f":
        return _MANTISSA.get(dtype.itemsize)
    return None


class BitroundCodec(ArrayToArrayCodec):
    """Round floats to ``keepbits`` mantissa bits.

    Parameters
    ----------
    keepbits : int
        Mantissa bits kept (at least 1).
    """

    name: ClassVar[str] = "bitround"
    #: zarrs' name while the codec was experimental
    aliases: ClassVar[tuple[str, ...]] = ("zarrs.bitround",)

    def __init__(self, keepbits: int) -> None:
        if isinstance(keepbits, bool) or not isinstance(keepbits, int) or keepbits < 1:
            raise config_error("", "codec", "keepbits", "an integer >= 1", keepbits)
        self.keepbits = keepbits

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"keepbits": n}``."""
        conf = config_dict(configuration, doc, field, {"keepbits"})
        if "keepbits" not in conf:
            raise CodecError(f"{field_name(doc, field)}: bitround needs keepbits")
        try:
            return cls(conf["keepbits"])
        except CodecError as exc:
            raise CodecError(f"{field_name(doc, field)}: {exc}") from None

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"keepbits": self.keepbits}}

    def _component(self, dtype: np.dtype) -> np.dtype:
        if dtype.fields is not None:  # complex pairs [("real", T), ("imag", T)]
            return dtype.fields[dtype.names[0]][0]
        if dtype.kind == "c":
            return np.dtype(f"f{dtype.itemsize // 2}")
        return dtype

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        comp = self._component(np.dtype(spec.dtype))
        if _mantissa_bits(comp) is None and comp.kind not in "iumM":
            raise CodecError(f"{field_name(doc, field)}: bitround: data type {spec.dtype} "
                             "is neither a float nor an integer type")

    def encode_view(self, arr: np.ndarray) -> np.ndarray:
        comp = self._component(arr.dtype)
        mbits = _mantissa_bits(comp)
        if mbits is None:
            raise CodecError(f"bitround: writing {arr.dtype} is not supported (floats only); "
                             "integer arrays with bitround are read")
        if self.keepbits >= mbits:
            return arr
        utype = np.dtype(f"u{comp.itemsize}")
        b = np.ascontiguousarray(arr).view(utype).copy()
        maskbits = mbits - self.keepbits
        one = utype.type(1)
        mask = ~((one << utype.type(maskbits)) - one)
        half = (one << utype.type(maskbits - 1)) - one
        b += ((b >> utype.type(maskbits)) & one) + half
        b &= mask
        return b.view(arr.dtype)

    def decode_view(self, arr: np.ndarray) -> np.ndarray:
        return arr
