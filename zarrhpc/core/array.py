"""The Array: metadata, codec pipeline and store bound together; reads and writes.

Life cycle: ``create_array``/``open_array`` parse or build the metadata of any format
(v3, v2, the 2022 draft), which ``to_spec()`` turns into one ``ArraySpec`` with a
v3-shaped codec chain; ``Array`` prepares once from it what every chunk needs (codec
pipeline for the chunk shape and dtype, chunk key encoder, fill value bytes), so every
format runs the same read and write path. Indexing builds a plan per request and
hands it to _read/_write.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from zarrhpc.codecs import ChunkSpec, CodecPipeline, ShardingCodec
from zarrhpc.codecs.native import engine_for
from zarrhpc.core.formats import doc_key
from zarrhpc.core.array_api import ArrayApiMixin
from zarrhpc.core.node import Node, NodeInfo
from zarrhpc.core._read import read_selection
from zarrhpc.core._shard import read_sharded, write_sharded
from zarrhpc.core._write import write_selection
from zarrhpc.indexing import RegularChunkGrid

__all__ = ["Array"]


def _human(nbytes: int) -> str:
    for unit in ("", "K", "M", "G", "T"):
        if nbytes < 1024 or unit == "T":
            return f"{nbytes:.1f}{unit}" if unit else f"{nbytes}"
        nbytes /= 1024
    return str(nbytes)  # pragma: no cover


# (id(metadata), doc) -> (metadata, pipeline, engine): both are stateless and shared by
# every Array opened from the same (cached, immutable) metadata object
_PREPARED: OrderedDict = OrderedDict()
_PREPARED_MAX = 256


def _prepared(metadata, md, doc: str):
    """Codec pipeline and native engine for ``md`` (the ArraySpec of ``metadata``)."""
    key = (id(metadata), doc)
    hit = _PREPARED.get(key)
    if hit is not None and hit[0] is metadata:
        return hit[1], hit[2]
    spec = ChunkSpec(md.chunk_shape, md.data_type.dtype, md.fill_value)
    pipeline = CodecPipeline.from_json(md.codecs, spec, doc)
    engine = engine_for(pipeline)
    _PREPARED[key] = (metadata, pipeline, engine)
    if len(_PREPARED) > _PREPARED_MAX:
        _PREPARED.popitem(last=False)
    return pipeline, engine


class Array(ArrayApiMixin, Node):
    """A Zarr array (v3, v2 or the 2022 draft) in a store. Create with
    ``zarrhpc.create_array``/``open_array``."""

    _kind = "array"

    def __init__(self, store, path: str, metadata, *, read_only: bool = False,
                 write_empty_chunks: bool = False, order: str = "C"):
        super().__init__(store, path, metadata, read_only)
        self._write_empty_chunks = bool(write_empty_chunks)
        if order not in ("C", "F"):
            raise ValueError(f"order: expected 'C' or 'F', got {order!r}")
        self._order = order
        self._prepare()

    def _prepare(self) -> None:
        md = self._spec = self._metadata.to_spec()
        self._grid = RegularChunkGrid(md.shape, md.chunk_shape)
        self._pipeline, self._engine = _prepared(
            self._metadata, md, doc_key(self._path, self._metadata)
        )
        self._fill_bytes = md.fill_value.tobytes()
        # as zarr-python: an array is sharded when its chain is one sharding codec
        codecs = self._pipeline.codecs
        self._sharding = None
        if len(codecs) == 1 and isinstance(codecs[0], ShardingCodec):
            spec = ChunkSpec(md.chunk_shape, md.data_type.dtype, md.fill_value)
            self._sharding = codecs[0].layout(spec, doc_key(self._path, self._metadata),
                                              "codecs[0]")
        if md.chunk_prefix is not None:
            self._key_prefix = md.chunk_prefix
        else:
            self._key_prefix = f"{self._path}/" if self._path else ""

    def _chunk_key(self, coords) -> str:
        return self._key_prefix + self._spec.chunk_key_encoding.encode(coords)

    # -- properties, named as zarr-python names them --------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._spec.shape

    @property
    def dtype(self) -> np.dtype:
        return self._spec.data_type.dtype

    @property
    def chunks(self) -> tuple[int, ...]:
        """The chunk shape; the inner chunk shape when the array is sharded."""
        if self._sharding is not None:
            return self._sharding.chunk_shape
        return self._spec.chunk_shape

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shard shape, or None when the array is not sharded."""
        if self._sharding is not None:
            return self._spec.chunk_shape
        return None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def nchunks(self) -> int:
        """Number of chunks (inner chunks when sharded, as zarr-python counts them)."""
        return math.prod(self.cdata_shape)

    @property
    def cdata_shape(self) -> tuple[int, ...]:
        """Chunks along each dimension (inner chunks when sharded, as zarr-python)."""
        if self._sharding is not None:
            return tuple(-(-n // c) for n, c in zip(self.shape, self.chunks))
        return self._grid.grid_shape

    @property
    def fill_value(self):
        fill = self._metadata.fill_value
        return None if fill is None else fill[()]  # None: a v2 null fill value

    @property
    def order(self) -> str:
        return self._order

    @property
    def dimension_names(self):
        return self._spec.dimension_names

    @property
    def nchunks_initialized(self) -> int:
        """How many chunks are stored (lists the array's chunk keys).

        Sharded: stored shards times inner chunks per shard, as zarr-python counts.
        """
        keys = set(self._store.list_prefix(self._key_prefix))
        n = sum(1 for c in self._grid.all_chunk_coords() if self._chunk_key(c) in keys)
        return n * (self._sharding.nchunks if self._sharding is not None else 1)

    @property
    def info(self) -> NodeInfo:
        p = self._pipeline
        rows = [
            ("Type", "Array"),
            ("Zarr format", self._format_text),
            ("Data type", self._spec.data_type.name),
            ("Fill value", repr(self.fill_value)),
            ("Shape", str(self.shape)),
            ("Chunk shape", str(self.chunks)),
            *([("Shard shape", str(self.shards))] if self._sharding is not None else []),
            ("Order", self._order),
            ("Read-only", str(self._read_only)),
            ("Store type", type(self._store).__name__),
            ("Filters", repr(tuple(p.array_array))),
            ("Serializer", repr(p.array_bytes)),
            ("Compressors", repr(tuple(p.bytes_bytes))),
            ("No. bytes", f"{self.nbytes} ({_human(self.nbytes)})"),
        ]
        if self._spec.dimension_names is not None:
            rows.insert(6, ("Dimension names", str(self._spec.dimension_names)))
        return NodeInfo(rows)

    # -- data -----------------------------------------------------------------------
    def _read(self, selection, out=None):
        if self._sharding is not None:
            return read_sharded(self, selection, out=out)
        return read_selection(self, selection, out=out)

    def _write(self, selection, value) -> None:
        if self._sharding is not None:
            write_sharded(self, selection, value)
        else:
            write_selection(self, selection, value)

    def __getitem__(self, selection):
        return self._read(selection)

    def __setitem__(self, selection, value) -> None:
        self._write(selection, value)

    def read(self, selection=Ellipsis, *, out=None):
        """Read ``selection`` into ``out`` (a numpy array of the result shape) or a new array."""
        return self._read(selection, out=out)

    def get_basic_selection(self, selection=Ellipsis, *, out=None):
        return self._read(selection, out=out)

    def set_basic_selection(self, selection, value) -> None:
        self._write(selection, value)

    def __array__(self, dtype=None, copy=None):
        data = self._read(Ellipsis)
        data = np.asarray(data)
        return data if dtype is None else data.astype(dtype, copy=False)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"<Array {type(self._store).__name__} {self.name!r} shape={self.shape} dtype={self.dtype}>"
