"""sharding_indexed codec: many inner chunks packed into one stored shard, with an index.

Spec card
---------
- What: ``array -> bytes``. The shard (one outer chunk) is cut into inner chunks of
  ``chunk_shape``; each inner chunk is encoded with the inner chain ``codecs`` and the
  encoded inner chunks are concatenated. An index of ``(offset, length)`` uint64 pairs,
  one per inner chunk in C order of the inner grid, encoded with ``index_codecs``, sits at
  the ``start`` or ``end`` of the shard. An inner chunk equal to the fill value is left
  out and marked ``(2**64-1, 2**64-1)`` in the index.
- Spec: zarr-specs docs/v3/codecs/sharding-indexed/index.rst (sharding codec 1.0, ZEP 2).
- v3 name: ``sharding_indexed``; no v2 equivalent.
- Example: ``{"name": "sharding_indexed", "configuration": {"chunk_shape": [32, 32],
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
  "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
  {"name": "crc32c"}], "index_location": "end"}}``.
- Defaults (as zarr-python 3): ``codecs`` ``[bytes]``, ``index_codecs`` ``[bytes,
  crc32c]``, ``index_location`` ``end``. ``index_codecs`` may be omitted when reading.
- Deviations: none. The inner chain may itself hold a sharding codec (nested sharding).

Life cycle: the codec object holds the configuration only. :meth:`ShardingCodec.layout`
prepares, once per chunk spec, a :class:`ShardLayout` (inner grid, inner and index
pipelines, index size) that the full :meth:`~ShardingCodec.decode`/``encode`` use and that
``zarrhpc.core._shard`` uses for partial reads and writes (fetch the index, then only the
inner chunks wanted). Codecs never open a store: the layout works on bytes it is given.

Hostile input: :meth:`ShardLayout.decode_index` checks the index size, its checksum (when
``index_codecs`` has one), that every entry is either empty or lies inside the shard's
data region, and that no two inner chunks overlap, before any inner byte is used. Errors
are :class:`~zarrhpc.errors.CorruptChunkError` naming the shard key and the inner chunk.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any, ClassVar

import numpy as np

from zarrhpc._kernels import copy_into, fill
from zarrhpc.codecs.abc import (
    ArrayToArrayCodec,
    ArrayToBytesCodec,
    ChunkSpec,
    Codec,
    as_bytes_view,
    check_choice,
    check_int,
    chunk_spec_of,
    component_size,
    config_dict,
    config_error,
    field_name,
    swap_size,
)
from zarrhpc.codecs.bytes import BytesCodec
from zarrhpc.codecs.crc32c import Crc32cCodec
from zarrhpc.codecs.registry import parse_codec
from zarrhpc.errors import CodecError, CorruptChunkError

__all__ = ["ShardingCodec", "ShardLayout", "EMPTY", "is_fill_chunk"]

EMPTY = 2**64 - 1  # offset and length of an inner chunk that is not stored
_LOCATIONS = ("start", "end")
_UNSET = object()
_CHECKED_MAX = 256  # checked indexes remembered per layout
_KEYS = {"chunk_shape", "codecs", "index_codecs", "index_location"}


class ShardingCodecIndexLocation(Enum):
    """zarr-python's shard-index position enum (``index_location=``; strings work too)."""

    start = "start"
    end = "end"


def is_fill_chunk(chunk: np.ndarray, fill_bytes: bytes) -> bool:
    """True when every element of ``chunk`` has exactly the fill value's bit pattern."""
    itemsize = chunk.dtype.itemsize
    if chunk.size == 0:
        return True
    # most chunks holding data differ already in their first element: skip the full scan
    if chunk[(0,) * chunk.ndim].tobytes() != fill_bytes:
        return False
    if itemsize in (1, 2, 4, 8):
        bits = np.frombuffer(fill_bytes, dtype=f"u{itemsize}")[0]
        return bool((chunk.view(f"u{itemsize}") == bits).all())
    flat = np.ascontiguousarray(chunk).reshape(-1).view(np.uint8).reshape(-1, itemsize)
    return bool((flat == np.frombuffer(fill_bytes, dtype=np.uint8)).all())


def _parse_chain(entries: Any, doc: str, field: str, key: str) -> tuple[list, list]:
    """Parse a list of codec entries: (codecs or None for ignorable unknowns, raw entries)."""
    if not isinstance(entries, (list, tuple)):
        raise config_error(doc, field, key, "a list of codecs", entries)
    codecs, raw = [], []
    for i, entry in enumerate(entries):
        if isinstance(entry, Codec):
            codecs.append(entry)
            raw.append(None)
        else:
            codecs.append(parse_codec(entry, doc, f"{field}.configuration.{key}[{i}]"))
            raw.append(entry)
    return codecs, raw


def _at(key: str, what: str) -> str:
    """``"key: what"``, or ``what`` alone when there is no key (the pipeline adds it)."""
    return f"{key}: {what}" if key else what


def _as_list(value: Any) -> Any:
    """A list from any iterable of codecs; other values are left for the check to refuse."""
    if isinstance(value, (list, tuple)) or isinstance(value, (dict, str, bytes, Codec)):
        return value
    try:
        return list(value)
    except TypeError:
        return value


def _chain_json(codecs: Sequence, raw: Sequence) -> list:
    return [c.to_json() if c is not None else r for c, r in zip(codecs, raw)]


#: zarr-python's defaults (frozen objects: one instance serves every codec)
_CODECS = (BytesCodec(),)
_INDEX_CODECS = (BytesCodec(), Crc32cCodec())
_END = ShardingCodecIndexLocation.end


class ShardingCodec(ArrayToBytesCodec):
    """Pack inner chunks of ``chunk_shape`` into one shard with an index.

    Parameters
    ----------
    chunk_shape : sequence of int
        Shape of the inner chunks; the shard shape must be a multiple of it.
    codecs : sequence of Codec or dict, optional
        Inner chain (default ``[bytes little-endian]``); any valid chain, sharding included.
    index_codecs : sequence of Codec or dict, optional
        Chain for the index (default ``[bytes little-endian, crc32c]``); must give a
        fixed encoded size.
    index_location : {"end", "start"}
    """

    name: ClassVar[str] = "sharding_indexed"
    core: ClassVar[bool] = True

    def __init__(self, chunk_shape: Sequence[int], codecs: Iterable | None = _CODECS,
                 index_codecs: Iterable | None = _INDEX_CODECS,
                 index_location: ShardingCodecIndexLocation | str = _END,
                 *, doc: str = "", field: str = "ShardingCodec") -> None:
        if not isinstance(chunk_shape, (list, tuple)) or not chunk_shape:
            raise config_error(doc, field, "chunk_shape", "a non-empty list of integers",
                               chunk_shape)
        self.chunk_shape = tuple(
            check_int(n, 1, None, doc, field, "chunk_shape") for n in chunk_shape
        )
        if codecs is None:
            codecs = [BytesCodec()]
        if index_codecs is None:
            index_codecs = [BytesCodec(), Crc32cCodec()]
        self._codecs, self._raw = _parse_chain(_as_list(codecs), doc, field, "codecs")
        self._index_codecs, self._index_raw = _parse_chain(
            _as_list(index_codecs), doc, field, "index_codecs")
        self._index_location = check_choice(index_location, _LOCATIONS, doc, field,
                                            "index_location")
        self._layouts: dict = {}

    @property
    def index_location(self) -> ShardingCodecIndexLocation:
        """Where the index is (zarr-python's enum; ``_index_location`` is its string)."""
        return ShardingCodecIndexLocation(self._index_location)

    def _hash_fields(self) -> tuple:
        return (self.chunk_shape, self.codecs, self.index_codecs, self.index_location)

    def to_dict(self) -> dict:
        """zarr-python's ``to_dict()`` (tuples, each codec's own ``to_dict()``)."""
        return {"name": self.name, "configuration": {
            "chunk_shape": self.chunk_shape,
            "codecs": tuple(c.to_dict() for c in self.codecs),
            "index_codecs": tuple(c.to_dict() for c in self.index_codecs),
            "index_location": self._index_location}}

    @classmethod
    def from_config(cls, configuration: dict | None, doc: str = "",
                    field: str = "codec") -> ShardingCodec:
        """Build from ``{"chunk_shape", "codecs", "index_codecs"?, "index_location"?}``."""
        config = config_dict(configuration, doc, field, _KEYS)
        for key in ("chunk_shape", "codecs"):
            if key not in config:
                raise CodecError(f"{field_name(doc, field, key)}: missing required key")
        return cls(config["chunk_shape"], config["codecs"], config.get("index_codecs"),
                   config.get("index_location", "end"), doc=doc, field=field)

    def to_json(self) -> dict:
        """Return the v3 JSON entry with every configuration member written out."""
        return {"name": self.name, "configuration": {
            "chunk_shape": list(self.chunk_shape),
            "codecs": _chain_json(self._codecs, self._raw),
            "index_codecs": _chain_json(self._index_codecs, self._index_raw),
            "index_location": self._index_location,
        }}

    def _repr_fields(self) -> dict:
        from zarrhpc.codecs.abc import _Shown

        loc = self._index_location
        return {"chunk_shape": self.chunk_shape, "codecs": self.codecs,
                "index_codecs": self.index_codecs,
                "index_location": _Shown(f"<ShardingCodecIndexLocation.{loc}: '{loc}'>")}

    @property
    def codecs(self) -> tuple[Codec, ...]:
        """The inner chain (ignorable unknown codecs left out)."""
        return tuple(c for c in self._codecs if c is not None)

    @property
    def index_codecs(self) -> tuple[Codec, ...]:
        """The index chain."""
        return tuple(c for c in self._index_codecs if c is not None)

    def inner_spec(self, spec: ChunkSpec) -> ChunkSpec:
        """The chunk spec of one inner chunk of a shard of ``spec``."""
        return ChunkSpec(self.chunk_shape, spec.dtype, spec.fill_value)

    def evolve(self, spec: ChunkSpec) -> ShardingCodec:
        """Fill array-dependent defaults of the inner chain (blosc typesize, ...)."""
        from zarrhpc.codecs.pipeline import CodecPipeline

        if len(spec.shape) != len(self.chunk_shape):
            return self  # validate() reports it
        inner = CodecPipeline.from_codecs(
            [c if c is not None else r for c, r in zip(self._codecs, self._raw)],
            self.inner_spec(spec))
        return ShardingCodec(self.chunk_shape, inner.to_json(), self._index_chain_json(),
                             self._index_location)

    def _index_chain_json(self) -> list:
        return _chain_json(self._index_codecs, self._index_raw)

    def validate(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> None:
        """Check the shard shape against ``chunk_shape`` and both chains against the spec."""
        self.layout(spec, doc, field)

    def layout(self, spec: ChunkSpec, doc: str = "", field: str = "codec") -> ShardLayout:
        """The prepared :class:`ShardLayout` for shards of ``spec`` (cached per spec)."""
        cache_key = (spec.shape, spec.dtype.str,
                     None if spec.fill_value is None else spec.fill_value.tobytes())
        layout = self._layouts.get(cache_key)
        if layout is None:
            layout = ShardLayout(self, spec, doc, field)
            self._layouts[cache_key] = layout
        return layout

    def compute_encoded_size(self, input_byte_length: int, shard_spec: Any) -> int:
        """The input's size plus the shard index's (zarr-python's method)."""
        return input_byte_length + self.layout(chunk_spec_of(shard_spec)).index_nbytes

    def encoded_size(self, spec: ChunkSpec) -> None:
        """Shards have no fixed size."""
        return None

    def encode(self, arr: np.ndarray, spec: ChunkSpec) -> bytearray:
        """Assemble a shard from ``arr`` (inner chunks equal to the fill value left out)."""
        return self.layout(spec).encode_shard(arr)

    def decode(self, buf: Any, spec: ChunkSpec) -> np.ndarray:
        """Decode a whole shard into a new native-order array of ``spec.shape``."""
        return self.layout(spec).decode_shard(buf)



def _pipeline(codecs: list, raw: list, spec: ChunkSpec, doc: str):
    """A CodecPipeline over already parsed codecs, legacy transpose forms resolved."""
    from zarrhpc.codecs.pipeline import CodecPipeline

    current = spec
    prepared = []
    for i, codec in enumerate(codecs):
        if getattr(codec, "evolve_on_read", False):  # blosc stored without typesize
            codec = codec.evolve(current)
        if isinstance(codec, BytesCodec) and codec.endian is None and \
                component_size(current.dtype) != 0:
            codec = BytesCodec(endian="little")  # no endian stored: as zarr-python reads it
        if isinstance(codec, ArrayToArrayCodec):
            codec.validate(current, doc, f"codecs[{i}]")
            codec = codec.evolve(current)
            current = codec.resolve(current)
        prepared.append(codec)
    return CodecPipeline(prepared, spec, doc, raw_entries=raw)


class ShardLayout:
    """A sharding codec prepared for shards of one chunk spec.

    Attributes
    ----------
    shard_shape, chunk_shape, grid_shape : tuple of int
        Shard shape, inner chunk shape, inner chunks per shard along each dimension.
    nchunks : int
        Inner chunks per shard.
    index_nbytes : int
        Size of the encoded index.
    index_location : str
    inner : CodecPipeline
        The inner chain prepared for one inner chunk.
    """

    def __init__(self, codec: ShardingCodec, spec: ChunkSpec, doc: str = "",
                 field: str = "codec") -> None:
        where = field_name(doc, field, "chunk_shape")
        if len(spec.shape) != len(codec.chunk_shape):
            raise CodecError(
                f"{where}: expected {len(spec.shape)} dimensions (the shard shape "
                f"{spec.shape}), got {list(codec.chunk_shape)}")
        for axis, (s, c) in enumerate(zip(spec.shape, codec.chunk_shape)):
            if s % c:
                raise CodecError(
                    f"{where}: the shard shape {spec.shape} must be a multiple of the inner "
                    f"chunk shape {codec.chunk_shape} (axis {axis}: {s} is not a multiple "
                    f"of {c})")
        self.spec = spec
        self.shard_shape = spec.shape
        self.chunk_shape = codec.chunk_shape
        self.grid_shape = tuple(s // c for s, c in zip(spec.shape, codec.chunk_shape))
        self.nchunks = math.prod(self.grid_shape)
        self.index_location = codec._index_location
        self.dtype = spec.dtype
        fv = spec.fill_value
        self.fill_bytes = (np.zeros((), spec.dtype) if fv is None else fv).tobytes()
        inner_doc = field_name(doc, field) + ".configuration"
        inner_spec = codec.inner_spec(spec)
        self.inner = _pipeline(codec._codecs, codec._raw, inner_spec, inner_doc + " (inner codecs)")
        index_spec = ChunkSpec(self.grid_shape + (2,), np.dtype(np.uint64),
                               np.array(EMPTY, dtype=np.uint64))
        self.index_pipeline = _pipeline(codec._index_codecs, codec._index_raw, index_spec,
                                        inner_doc + " (index_codecs)")
        size = self.index_pipeline.array_bytes.encoded_size(self.index_pipeline.encoded_spec)
        for bb in self.index_pipeline.bytes_bytes:
            size = None if size is None else bb.encoded_size(size)
        if size is None:
            names = [c.name for c in codec.index_codecs]
            raise CodecError(
                f"{field_name(doc, field, 'index_codecs')}: expected codecs whose encoded "
                f"size is fixed (such as bytes and crc32c), got {names}")
        self.index_nbytes = size
        self._checked: dict = {}  # (index bytes, shard length) -> checked index

    @property
    def inner_engine(self):
        """The native engine for the inner chain (codecs.native), or None; built once."""
        engine = self.__dict__.get("_inner_engine", _UNSET)
        if engine is _UNSET:
            from zarrhpc.codecs.native import engine_for

            engine = self._inner_engine = engine_for(self.inner)
        return engine

    # ---------------------------------------------------------------- geometry

    def inner_coords(self, flat: int) -> tuple[int, ...]:
        """Coordinates in the inner grid of the ``flat`` (C order) inner chunk."""
        return tuple(int(i) for i in np.unravel_index(flat, self.grid_shape))

    def inner_region(self, coords: Sequence[int]) -> tuple[slice, ...]:
        """The slices of the shard array that inner chunk ``coords`` covers."""
        return tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, self.chunk_shape))

    def index_range(self, shard_nbytes: int | None = None) -> tuple[int, int | None]:
        """``(offset, length)`` of the index for ``get_partial_values``.

        Without ``shard_nbytes`` an index at the end is a suffix request (negative offset).
        """
        n = self.index_nbytes
        if self.index_location == "start":
            return 0, n
        if shard_nbytes is None:
            return -n, None
        return max(shard_nbytes - n, 0), n

    def data_region(self, shard_nbytes: int) -> tuple[int, int]:
        """``[lo, hi)`` byte range where inner chunks may lie."""
        if self.index_location == "start":
            return self.index_nbytes, shard_nbytes
        return 0, shard_nbytes - self.index_nbytes

    # ---------------------------------------------------------------- index

    def decode_index(self, buf: Any, shard_nbytes: int, key: str = "") -> np.ndarray:
        """Decode and check a shard index.

        Parameters
        ----------
        buf : bytes-like
            The encoded index (``index_nbytes`` bytes).
        shard_nbytes : int
            The shard's real length in bytes.
        key : str
            The shard's store key, named by error messages.

        Returns
        -------
        numpy.ndarray
            uint64 array of shape ``(*grid_shape, 2)``: offset and length per inner chunk,
            ``EMPTY`` for both where the inner chunk is not stored.

        Raises
        ------
        CorruptChunkError
            Wrong size, bad checksum, an entry outside the data region, half-empty, or
            overlapping another; the message names ``key`` and the inner chunk.
        """
        # A checked index is a pure function of its bytes and the shard's length: reuse it
        # when both are seen again (random reads hit the same few shards).
        raw = buf if type(buf) is bytes else bytes(as_bytes_view(buf))
        cached = self._checked.get((raw, shard_nbytes))
        if cached is not None:
            return cached
        view = as_bytes_view(raw)
        if shard_nbytes < self.index_nbytes or view.nbytes != self.index_nbytes:
            raise CorruptChunkError(
                f"{_at(key, 'shard index')}: expected {self.index_nbytes} bytes of index in a "
                f"shard "
                f"of at least that size, got {view.nbytes} bytes of index in a shard of "
                f"{shard_nbytes} bytes (truncated shard?)")
        decoded = self.index_pipeline.decode(view, _at(key, "shard index"))
        index = np.empty(decoded.shape, dtype=np.uint64)
        copy_into(index, decoded, swap_size(decoded.dtype))
        # zarrita 0.2 with the index at the start shifted every offset by the index size,
        # the empty marker's too (2**64-1 + n wraps to n-1): a length of 2**64-1 marks the
        # entry empty alone, as zarrita reads it (no inner chunk has that length)
        lone = (index[..., 1] == EMPTY) & (index[..., 0] != EMPTY)
        if lone.any():
            index[..., 0][lone] = EMPTY
        self.check_index(index, shard_nbytes, key)
        index.flags.writeable = False
        if len(self._checked) >= _CHECKED_MAX:
            self._checked.clear()
        self._checked[(raw, shard_nbytes)] = index
        return index

    def check_index(self, index: np.ndarray, shard_nbytes: int, key: str = "") -> None:
        """Raise CorruptChunkError unless every entry of ``index`` is sound (see decode_index)."""
        off = index[..., 0].reshape(-1)
        length = index[..., 1].reshape(-1)
        empty = off == EMPTY
        half = empty != (length == EMPTY)
        if half.any():
            i = int(np.flatnonzero(half)[0])
            raise self._entry_error(key, i, off[i], length[i],
                                    "offset and length must both be 2**64-1 (empty) or neither")
        present = np.flatnonzero(~empty)
        if present.size == 0:
            return
        lo, hi = self.data_region(shard_nbytes)
        o = off[present]
        n = length[present]
        # no uint64 overflow: n <= hi is checked before hi - n is used
        bad = (o < lo) | (n > np.uint64(max(hi, 0))) | (o > np.uint64(max(hi, 0)) - n)
        if bad.any():
            i = int(present[np.flatnonzero(bad)[0]])
            raise self._entry_error(key, i, off[i], length[i],
                                    f"outside the shard's data bytes [{lo}, {hi}) "
                                    f"(shard of {shard_nbytes} bytes)")
        order = np.argsort(o, kind="stable")
        so, se = o[order], o[order] + n[order]
        clash = np.flatnonzero(so[1:] < se[:-1])
        if clash.size:
            j = int(clash[0])
            a, b = int(present[order[j]]), int(present[order[j + 1]])
            raise self._entry_error(key, b, off[b], length[b],
                                    f"overlaps inner chunk {self.inner_coords(a)} "
                                    f"(offset {int(off[a])}, length {int(length[a])})")

    def _entry_error(self, key: str, flat: int, off, length, what: str) -> CorruptChunkError:
        return CorruptChunkError(
            f"{_at(key, 'shard index')}: inner chunk {self.inner_coords(flat)}: offset {int(off)}, "
            f"length {int(length)}: {what}")

    def encode_index(self, index: np.ndarray) -> Any:
        """Encode a ``(*grid_shape, 2)`` uint64 index with the index chain."""
        return self.index_pipeline.encode(index)

    # ---------------------------------------------------------------- whole shards

    def encode_inner(self, chunk: np.ndarray, key: str = "",
                     write_empty: bool = False) -> Any | None:
        """Encode one inner chunk; None when it equals the fill value and is left out."""
        if not write_empty and is_fill_chunk(chunk, self.fill_bytes):
            return None
        return self.inner.encode(chunk, key)

    def assemble(self, pieces: dict[int, Any], out: bytearray | None = None) -> Any:
        """Build a shard from encoded inner chunks keyed by flat (C order) inner index.

        Returns None when ``pieces`` holds nothing (the shard should not be stored).
        With ``out`` (a scratch buffer at least as long as the shard, reused by the caller
        so that its pages are not faulted in again for every shard) the result is a
        memoryview of its first bytes; otherwise a new bytearray.
        """
        if not pieces:
            return None
        index = np.full((self.nchunks, 2), EMPTY, dtype=np.uint64)
        views = [(i, as_bytes_view(pieces[i])) for i in sorted(pieces)]
        pos = self.index_nbytes if self.index_location == "start" else 0
        for i, v in views:
            index[i] = (pos, v.nbytes)
            pos += v.nbytes
        encoded = as_bytes_view(self.encode_index(index.reshape(self.grid_shape + (2,))))
        total = pos + (self.index_nbytes if self.index_location == "end" else 0)
        if out is not None and len(out) >= total:
            out = memoryview(out)[:total]
        else:
            out = bytearray(total)
        dst = np.frombuffer(out, dtype=np.uint8)
        for i, v in views:
            o = int(index[i, 0])
            # copy_into releases the GIL for large pieces (a memoryview copy would not)
            copy_into(dst[o:o + v.nbytes], np.frombuffer(v, dtype=np.uint8))
        at = 0 if self.index_location == "start" else total - self.index_nbytes
        dst[at:at + self.index_nbytes] = np.frombuffer(encoded, dtype=np.uint8)
        return out

    def encode_shard(self, arr: np.ndarray, key: str = "",
                     write_empty: bool = False) -> bytearray:
        """Encode a whole shard from ``arr`` (shape ``shard_shape``)."""
        pieces = {}
        for flat in range(self.nchunks):
            coords = self.inner_coords(flat)
            enc = self.encode_inner(arr[self.inner_region(coords)], key, write_empty)
            if enc is not None:
                pieces[flat] = enc
        out = self.assemble(pieces)
        if out is None:  # every inner chunk empty: a shard holding only its index
            index = np.full(self.grid_shape + (2,), EMPTY, dtype=np.uint64)
            out = bytearray(as_bytes_view(self.encode_index(index)))
        return out

    def read_index(self, buf: Any, key: str = "") -> np.ndarray:
        """Decode and check the index of the whole shard ``buf``."""
        view = as_bytes_view(buf)
        n = view.nbytes
        start, _ = self.index_range(n)
        return self.decode_index(view[start:start + self.index_nbytes], n, key)

    def decode_shard(self, buf: Any, key: str = "") -> np.ndarray:
        """Decode a whole shard into a new native-order array of ``shard_shape``."""
        view = as_bytes_view(buf)
        index = self.read_index(view, key).reshape(-1, 2)
        out = np.empty(self.shard_shape, dtype=self.dtype)
        for flat in range(self.nchunks):
            o, n = int(index[flat, 0]), int(index[flat, 1])
            coords = self.inner_coords(flat)
            dst = out[self.inner_region(coords)]
            if o == EMPTY:
                fill(dst, self.fill_bytes)
                continue
            decoded = self.inner.decode(view[o:o + n], _at(key, f"inner chunk {coords}"))
            copy_into(dst, decoded, swap_size(decoded.dtype))
        return out

