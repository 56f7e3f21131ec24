"""zarrs' ``optional`` codec: a validity mask and the present elements, each through its
own codec chain.

Spec card
---------
- What: ``array -> bytes`` for the ``optional`` data type (metadata/dtypes_opt.py; chunks
  arrive as ``(value, valid)`` records). The chunk's validity (bool, chunk shape) goes
  through ``mask_codecs``; the values of the valid elements only, in C order, as a 1-d
  array of the inner type (length: the number of valid elements), through
  ``data_codecs`` (which for a nested optional type is again an ``optional`` codec). The
  stored chunk is ``mask length (u64 LE) | data length (u64 LE) | mask | data``; with no
  valid element the data part is empty and the data chain is not run.
- Spec: zarrs ``array_to_bytes/optional`` (https://codec.zarrs.dev/array_to_bytes/optional)
  and zarr-extensions PR 33; checked byte for byte against zarrs' test data
  (zarrs/tests/data/v3/array_optional*.zarr, tests/codecs/test_optional.py).
- v3 names: ``optional``, ``https://codec.zarrs.dev/array_to_bytes/optional``; no v2 id.
- Example: ``{"name": "optional", "configuration": {"mask_codecs": [{"name":
  "packbits"}], "data_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}``.
- Values under a missing element decode as zero bytes (zarrs' dense form).
- Corrupt input: lengths that disagree with the buffer, a mask or data chain that fails,
  or a data part of the wrong length raise :class:`~zarrhpc.errors.CorruptChunkError`.
- GIL: held (numpy masking; the sub-chains release it where their codecs do).
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

import numpy as np

from zarrhpc.codecs.abc import (
    ArrayToBytesCodec,
    ChunkSpec,
    as_bytes_view,
    config_dict,
    field_name,
)
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["OptionalCodec"]

_BYTES = [{"name": "bytes", "configuration": {"endian": "little"}}]


class OptionalCodec(ArrayToBytesCodec):
    """zarrs' ``optional``: mask and present values through their own chains.

    Parameters
    ----------
    mask_codecs, data_codecs : list
        v3 codec entries for the mask (bool, chunk shape) and for the present values (1-d,
        the inner type); each chain has exactly one array->bytes codec.
    """

    name: ClassVar[str] = "optional"
    aliases: ClassVar[tuple[str, ...]] = ("https://codec.zarrs.dev/array_to_bytes/optional",)

    def __init__(self, mask_codecs: Any = None, data_codecs: Any = None, doc: str = "",
                 field: str = "OptionalCodec") -> None:
        for key, value in (("mask_codecs", mask_codecs), ("data_codecs", data_codecs)):
            if value is not None and not isinstance(value, list):
                raise CodecError(f"{field_name(doc, field, key)}: expected a list of codecs, "
                                 f"got {value!r}")
        self.mask_codecs = list(mask_codecs) if mask_codecs is not None else [{"name": "packbits"}]
        self.data_codecs = list(data_codecs) if data_codecs is not None else list(_BYTES)
        self._where = field_name(doc, field)
        self._pipes: dict = {}

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "", field: str = "codec"):
        """Build from ``{"mask_codecs": [...], "data_codecs": [...]}`` (both required)."""
        config = config_dict(configuration, doc, field, {"mask_codecs", "data_codecs"})
        for key in ("mask_codecs", "data_codecs"):
            if key not in config:
                raise CodecError(f"{field_name(doc, field, key)}: missing required key")
        return cls(config["mask_codecs"], config["data_codecs"], doc, field)

    def to_json(self) -> dict:
        return {"name": self.name, "configuration": {"mask_codecs": self.mask_codecs,
                                                     "data_codecs": self.data_codecs}}

    @staticmethod
    def _inner(spec: ChunkSpec) -> np.dtype:
        dt = spec.dtype
        if dt.names != ("value", "valid"):
            raise CodecError(f"optional: the data type must be optional, got {dt}")
        return dt["value"]

    def _pipe(self, key: str, shape: tuple, dtype: np.dtype):
        """The chain ``key`` prepared for arrays of ``shape`` and ``dtype`` (cached)."""
        from zarrhpc.codecs.pipeline import CodecPipeline

        pipe = self._pipes.get((key, shape, dtype))
        if pipe is None:
            entries = self.mask_codecs if key == "mask_codecs" else self.data_codecs
            spec = ChunkSpec(shape, dtype, np.zeros((), dtype))
            pipe = CodecPipeline.from_json(entries, spec, f"{self._where}.{key}")
            if len(self._pipes) < 64:
                self._pipes[(key, shape, dtype)] = pipe
        return pipe

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        """Both chains must build for this array (the data chain for one element)."""
        inner = self._inner(spec)
        self._pipe("mask_codecs", spec.shape, np.dtype(bool))
        self._pipe("data_codecs", (1,), inner)

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> Any:
        inner = self._inner(spec)
        arr = np.ascontiguousarray(arr, dtype=spec.dtype).reshape(spec.shape)
        mask = np.ascontiguousarray(arr["valid"])
        mask_enc = bytes(as_bytes_view(self._pipe("mask_codecs", spec.shape,
                                                  np.dtype(bool)).encode(mask)))
        values = np.ascontiguousarray(arr["value"][mask])  # C order, valid ones only
        data_enc = b""
        if values.size:
            data_enc = bytes(as_bytes_view(self._pipe("data_codecs", (values.size,),
                                                      inner).encode(values)))
        return b"".join((struct.pack("<QQ", len(mask_enc), len(data_enc)), mask_enc, data_enc))

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        inner = self._inner(spec)
        view = as_bytes_view(buf)
        if len(view) < 16:
            raise CorruptChunkError(f"{self.name}: {len(view)} bytes, shorter than the "
                                    "16-byte header")
        mask_len, data_len = struct.unpack("<QQ", view[:16])
        if 16 + mask_len + data_len != len(view):
            raise CorruptChunkError(f"{self.name}: the header says {mask_len} bytes of mask "
                                    f"and {data_len} of data, but {len(view) - 16} follow")
        mask_enc = view[16:16 + mask_len]
        data_enc = view[16 + mask_len:]
        mask = np.asarray(self._pipe("mask_codecs", spec.shape, np.dtype(bool))
                          .decode(mask_enc, f"{self.name} mask"))
        if mask.size != int(np.prod(spec.shape, dtype=np.int64)):
            raise CorruptChunkError(f"{self.name}: a mask of {mask.size} elements for a "
                                    f"chunk of shape {spec.shape}")
        mask = mask.astype(bool, copy=False).reshape(spec.shape)
        out = np.zeros(spec.shape, dtype=spec.dtype)
        out["valid"] = mask
        n = int(np.count_nonzero(mask))
        if n:
            values = np.asarray(self._pipe("data_codecs", (n,), inner)
                                .decode(data_enc, f"{self.name} data")).reshape(-1)
            if values.size != n:
                raise CorruptChunkError(f"{self.name}: {values.size} values for {n} valid "
                                        "elements")
            out["value"][mask] = values
        elif data_len:
            raise CorruptChunkError(f"{self.name}: {data_len} bytes of data for no valid "
                                    "element")
        return out
