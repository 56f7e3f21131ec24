"""The prepared form of an open array: everything a chunk read or write needs, frozen.

Life cycle: ``Array`` builds one :class:`Prepared` when it is opened (and a new one when
its shape changes: resize, append, refresh). Every read and write path (core/_read.py,
_write.py, _shard.py, _select.py) takes this object and never the Array, so the paths
share one view of the store, key encoder, codec chain, native engine, fill value, dtype,
grid and sharding layout, and no module but core/array.py touches Array's internals.

:func:`prepare` builds it from the metadata: the codec pipeline and native engine are
cached per metadata object (both stateless, shared by every Array opened from the same
cached, immutable metadata), the grid and sharding layout derived from the spec.

Also the dtype-generic element helpers of the Python path: chunks of object or numpy
StringDType arrays (strings) are filled and copied by numpy assignment, never by the
byte-level kernels, and never reach the native engine.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import numpy as np

from zarrhpc._kernels import alloc, copy_into, fill
from zarrhpc._kernels.engine import KEY_KINDS
from zarrhpc.codecs import ChunkSpec, CodecPipeline, ShardingCodec, swap_size
from zarrhpc.codecs.native import engine_for
from zarrhpc.codecs.sharding import is_fill_chunk as bits_equal_fill
from zarrhpc.core.formats import doc_key
from zarrhpc.errors import ZarrUserWarning
from zarrhpc.indexing import RectilinearChunkGrid, RegularChunkGrid

__all__ = ["Prepared", "is_fill_chunk", "new_empty", "prepare"]


def byte_kernels_ok(dtype: np.dtype) -> bool:
    """True when elements are plain bytes (the kernels may copy and fill them)."""
    return not dtype.hasobject and dtype.kind not in "OT"


@dataclass(frozen=True, eq=False)
class Prepared:
    """One open array's read/write context (see the module docstring)."""

    store: object
    path: str
    key_prefix: str
    key_encoding: object  # the spec's chunk key encoding (``encode(coords)``, ``separator``)
    pipeline: object  # CodecPipeline for the stored (outer) chunk
    engine: object  # native Engine for the outer chain, or None
    fill_value: np.ndarray  # 0-d, the array's dtype
    fill_bytes: bytes
    dtype: np.dtype
    shape: tuple[int, ...]
    grid: RegularChunkGrid  # the stored chunks (shards when sharded)
    sharding: object  # ShardLayout, or None
    write_empty_chunks: bool
    order: str

    def __post_init__(self) -> None:
        # derived once: the hot single-element and small-block reads ask for them
        chunks = (self.sharding.chunk_shape if self.sharding is not None
                  else self.grid.chunk_shape)
        object.__setattr__(self, "chunks", chunks)
        object.__setattr__(self, "byte_kernels", byte_kernels_ok(self.dtype))
        object.__setattr__(self, "_target", self._native_target())
        # a[i, j, ...] read by the engine from the directory in one call (core/_read.py)
        object.__setattr__(self, "element_target", self._target if (
            self.engine is not None and self.sharding is None) else None)
        # a[slices...] of a C-order array: the engine's lean small read (core/_read.py)
        object.__setattr__(self, "box_target",
                           self.element_target if self.order == "C" else None)
        object.__setattr__(self, "shard_keys", {})

    # set in __post_init__:
    #: chunks selections are projected on (inner chunks when sharded)
    chunks: tuple = field(init=False)
    #: elements are plain bytes: kernels may copy and fill them
    byte_kernels: bool = field(init=False)
    _target: object = field(init=False, repr=False)
    #: native_target() when single elements take the engine's shortest path, else None
    element_target: object = field(init=False, repr=False)
    #: element_target for a C-order array (small boxes take the lean read), else None
    box_target: object = field(init=False, repr=False)
    #: shard coords -> store key, for point reads of sharded arrays (core/_shard.py)
    shard_keys: dict = field(init=False, repr=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def chunk_key(self, coords) -> str:
        """The store key of the stored chunk (shard) at grid ``coords``."""
        return self.key_prefix + self.key_encoding.encode(coords)

    def native_target(self):
        """``(path_prefix, root_len, key_kind, separator)`` when the engine opens the
        store's files itself (LocalStore and the default or v2 key encodings), else None."""
        return self._target

    def _native_target(self):
        root = getattr(self.store, "native_root", None)
        if root is None:
            return None
        enc = self.key_encoding
        kind = KEY_KINDS.get(getattr(enc, "name", None))
        if kind is None:  # another key scheme (the 2022 draft's): keys come from Python
            return None
        return root + "/" + self.key_prefix, len(root), kind, enc.separator

    # -- dtype-generic element helpers (the Python path) ----------------------------
    def fill(self, dst: np.ndarray) -> None:
        """Set every element of ``dst`` to the fill value."""
        if self.byte_kernels:
            fill(dst, self.fill_bytes)
        else:
            dst[...] = self.fill_value

    def copy(self, dst: np.ndarray, src: np.ndarray) -> None:
        """``dst[...] = src`` (src in any byte order; same shape)."""
        if self.byte_kernels and not src.dtype.hasobject:
            copy_into(dst, src, swap_size(src.dtype))
        else:
            dst[...] = src

    def empty(self, shape, order: str | None = None) -> np.ndarray:
        if self.byte_kernels:
            return alloc.empty(tuple(shape), self.dtype, order or self.order)
        return np.empty(tuple(shape), dtype=self.dtype, order=order or self.order)

    def is_fill(self, chunk: np.ndarray) -> bool:
        return is_fill_chunk(chunk, self.fill_bytes, self.fill_value)


# (id(metadata), doc) -> (metadata, pipeline, engine): both are stateless and shared by
# every Array opened from the same (cached, immutable) metadata object
_PREPARED: OrderedDict = OrderedDict()
_PREPARED_MAX = 256


def _numcodecs_in(codecs) -> bool:
    """Whether a v3 codec chain (JSON, sharding codecs' inner chains included) names a
    ``numcodecs.*`` codec."""
    for entry in codecs or ():
        if not isinstance(entry, dict):
            continue
        if str(entry.get("name", "")).startswith("numcodecs."):
            return True
        conf = entry.get("configuration") or {}
        if isinstance(conf, dict) and (_numcodecs_in(conf.get("codecs"))
                                       or _numcodecs_in(conf.get("index_codecs"))):
            return True
    return False


def _prepared(metadata, md, doc: str):
    """Codec pipeline and native engine for ``md`` (the ArraySpec of ``metadata``)."""
    key = (id(metadata), doc)
    hit = _PREPARED.get(key)
    if hit is not None and hit[0] is metadata:
        return hit[1], hit[2]
    spec = ChunkSpec(md.chunk_shape, md.data_type.dtype, md.fill_value)
    pipeline = CodecPipeline.from_json(md.codecs, spec, doc)
    if getattr(metadata, "zarr_format", None) == 3 and _numcodecs_in(md.codecs):
        # what zarr-python's users see when a v3 array (created or opened) uses them
        warnings.warn("Numcodecs codecs are not in the Zarr version 3 specification and may "
                      "not be supported by other zarr implementations.", ZarrUserWarning,
                      stacklevel=4)
    engine = engine_for(pipeline)
    _PREPARED[key] = (metadata, pipeline, engine)
    if len(_PREPARED) > _PREPARED_MAX:
        _PREPARED.popitem(last=False)
    return pipeline, engine


def prepare(metadata, store, path: str, *, order: str, write_empty_chunks: bool):
    """``(spec, Prepared)`` for an array's ``metadata`` (any format) at ``path`` in
    ``store``: ``spec`` is ``metadata.to_spec()`` as the handle shows it."""
    md = spec = metadata.to_spec()
    if 0 in md.chunk_shape:
        # chunk length 0 (zarr-python's, on an axis of length 0, the only place the
        # metadata parsers accept it): the array holds no chunk; its grid and codecs
        # are prepared with length 1 there (still no chunk), ``chunks`` shows the 0
        md = replace(md, chunk_shape=tuple(c or 1 for c in md.chunk_shape))
    doc = doc_key(path, metadata)
    grid = RegularChunkGrid(md.shape, md.chunk_shape)
    pipeline, engine = _prepared(metadata, md, doc)
    # as zarr-python: an array is sharded when its chain is one sharding codec
    codecs = pipeline.codecs
    sharding = None
    if md.chunk_grid is not None:  # irregular rectilinear: the Python path (_irregular)
        grid = RectilinearChunkGrid(md.shape, md.chunk_grid.edges)
        engine = None  # shards too are read and written whole there
    elif len(codecs) == 1 and isinstance(codecs[0], ShardingCodec):
        chunk = ChunkSpec(md.chunk_shape, md.data_type.dtype, md.fill_value)
        sharding = codecs[0].layout(chunk, doc, "codecs[0]")
    if md.chunk_prefix is not None:
        prefix = md.chunk_prefix
    else:
        prefix = f"{path}/" if path else ""
    return spec, Prepared(
        store=store, path=path, key_prefix=prefix,
        key_encoding=md.chunk_key_encoding, pipeline=pipeline, engine=engine,
        fill_value=np.asarray(md.fill_value, dtype=md.data_type.dtype),
        fill_bytes=md.fill_value.tobytes(), dtype=md.data_type.dtype, shape=md.shape,
        grid=grid, sharding=sharding, write_empty_chunks=write_empty_chunks, order=order)


def new_empty(shape, dtype: np.dtype, order: str = "C") -> np.ndarray:
    """An uninitialised result (page-aligned through the kernels for plain dtypes)."""
    if byte_kernels_ok(dtype):
        return alloc.empty(tuple(shape), dtype, order)
    return np.empty(tuple(shape), dtype=dtype, order=order)


def is_fill_chunk(chunk: np.ndarray, fill_bytes: bytes, fill_value=None) -> bool:
    """True when every element equals the fill value: bit for bit for plain dtypes (the
    sharding codec's test), by ``==`` for object and string chunks."""
    if not byte_kernels_ok(chunk.dtype):
        if chunk.size == 0:
            return True
        fv = fill_value[()] if isinstance(fill_value, np.ndarray) else fill_value
        try:
            return bool(np.all(chunk == fv))
        except ValueError:  # elements that are arrays (VLenArray): one by one
            return all(_same_object(x, fv) for x in chunk.flat)
    return bits_equal_fill(chunk, fill_bytes)


def _same_object(x, fv) -> bool:
    if isinstance(x, np.ndarray) or isinstance(fv, np.ndarray):
        return (isinstance(x, np.ndarray) and isinstance(fv, np.ndarray)
                and x.dtype == fv.dtype and np.array_equal(x, fv))
    return x is fv or bool(x == fv)
