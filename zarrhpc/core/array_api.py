"""What zarr-python 3's ``Array`` has beyond reading and writing: codec views
(``filters``, ``serializer``, ``compressors``), storage figures (``nbytes_stored``,
``info_complete``), iteration, and pickling by reference.

A mixin of :class:`zarrhpc.core.array.Array` (``class Array(ArrayApiMixin, Node)``), kept
apart so the data path in array.py stays small. It uses only the Array's prepared state
(``_pipeline``, ``_sharding``, ``_store``, ``_path``, ``_key_prefix``, ``_metadata``).

Pickling: an Array pickles as (store, path, open options); the store pickles by reference
(a directory, a zip file, a URL; a MemoryStore carries its contents), so an unpickled Array
in a dask worker or a ``multiprocessing`` child reads and writes the same data.
"""

from __future__ import annotations

__all__ = ["ArrayApiMixin"]


def _open_array_ref(store, path: str, read_only: bool, write_empty_chunks: bool,
                    order: str, cls):
    """Reopen an Array (of class ``cls``, passed in by ``__reduce__`` so this module never
    imports array.py) from its pickled reference (metadata read again from the store)."""
    from zarrhpc.core.formats import doc_key, read_node
    from zarrhpc.errors import ArrayNotFoundError

    md = read_node(store, path)
    if md is None or md.node_type != "array":
        raise ArrayNotFoundError(f"{doc_key(path, md)}: no array at path {path or '/'!r} in "
                                 f"{store!r} (unpickling)")
    return cls(store, path, md, read_only=read_only,
               write_empty_chunks=write_empty_chunks, order=order)


def _v2_codecs(md) -> tuple[tuple, tuple]:
    """(filters, compressors) of a v2 array as numcodecs objects, as zarr-python gives."""
    import numcodecs

    filters = tuple(numcodecs.get_codec(dict(f)) for f in (md.filters or ()))
    comp = md.compressor
    return filters, (() if comp is None else (numcodecs.get_codec(dict(comp)),))


_ZARRAY_MEMBERS = ("zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value",
                   "order", "filters", "dimension_separator")


class ArrayApiMixin:
    """zarr-python's Array attributes that are not data access (see the module docstring)."""

    @classmethod
    def open(cls, store):
        """The existing array at the root of ``store`` (or a StorePath's path), as
        zarr-python's ``Array.open``; ArrayNotFoundError if there is none."""
        from zarrhpc import config as settings
        from zarrhpc.core._nodes import resolve_store_path
        from zarrhpc.core.formats import read_node
        from zarrhpc.errors import ArrayNotFoundError

        store, path = resolve_store_path(store, None, "r+")
        md = read_node(store, path)
        if md is None or md.node_type != "array":  # zarr-python's words
            raise ArrayNotFoundError(f"A Zarr V3 array metadata document was not found in "
                                     f"store {store!r} at path {path!r}.")
        return cls(store, path, md, read_only=store.read_only,
                   write_empty_chunks=settings.get("array.write_empty_chunks"),
                   order=settings.get("array.order"))

    @classmethod
    def from_dict(cls, store, data: dict):
        """An Array of the metadata ``data`` (a v3 ``zarr.json`` or a v2 ``.zarray`` as a
        dict, with ``zarr_format``) on ``store`` (or a StorePath's path), as zarr-python's
        ``Array.from_dict``: nothing is written."""
        import json

        from zarrhpc import config as settings
        from zarrhpc.core._nodes import resolve_store_path
        from zarrhpc.metadata.v2 import parse_array_v2
        from zarrhpc.metadata.v3 import parse_metadata_v3

        fmt = data.get("zarr_format")
        if fmt == 3:
            if data.get("storage_transformers"):
                raise ValueError("Arrays with storage transformers are not supported in "
                                 "zarr-python at this time (nor in zarrhpc).")
            md = parse_metadata_v3(json.loads(json.dumps(data)), "zarr.json")
        elif fmt == 2:
            # the .zarray members (a v2 document may carry others: ignored, as zarr-python)
            zarray = {"compressor": None, "filters": None}
            zarray.update((k, v) for k, v in data.items() if k in _ZARRAY_MEMBERS)
            md = parse_array_v2(json.loads(json.dumps(zarray)))  # tuples as JSON lists
        else:
            raise ValueError(f"Invalid zarr_format: {fmt}. Expected 2 or 3")
        if md.node_type != "array":
            raise ValueError(f"Array.from_dict: not an array: {data!r}")
        store, path = resolve_store_path(store, None, "r+")
        return cls(store, path, md, read_only=store.read_only,
                   write_empty_chunks=settings.get("array.write_empty_chunks"),
                   order=settings.get("array.order"))

    def __reduce__(self):
        return (_open_array_ref, (self._store, self._path, self._read_only,
                                  self._write_empty_chunks, self._order, type(self)))

    def __dask_tokenize__(self):
        """dask's token of this Array (``da.from_array``, ``da.store``): what its pickle
        refers to, plus the metadata. Without it dask pickles and unpickles the Array
        to tokenize it, two or three times per call, and every unpickle reads the
        metadata again (a request per array on an object store). A MemoryStore is named
        by its identity (its pickle would carry every chunk), as is a store that does not
        pickle (it cannot reach another process either)."""
        import pickle

        from zarrhpc.storage.memory import MemoryStore

        store = self._store
        ref = ("store", id(store))
        if not isinstance(store, MemoryStore):
            try:
                ref = pickle.dumps(store, protocol=5)
            except Exception:
                pass
        return (type(self).__qualname__, ref, self._path, repr(self._metadata),
                self._read_only, self._write_empty_chunks, self._order)

    # -- codecs, as zarr-python 3 splits the chain ----------------------------------
    def _inner_pipeline(self):
        """The chain of one (inner) chunk: inside the shard when sharded."""
        if self._sharding is not None:
            return self._sharding.inner
        return self._pipeline

    @property
    def filters(self) -> tuple:
        """The array->array codecs (v2: numcodecs filter objects)."""
        if self.zarr_format == 2 and hasattr(self._metadata, "filters"):
            return _v2_codecs(self._metadata)[0]
        return self._inner_pipeline().shown_filters

    @property
    def serializer(self):
        """The array->bytes codec (None for v2)."""
        if self.zarr_format == 2 and hasattr(self._metadata, "filters"):
            return None
        return self._inner_pipeline().shown_serializer

    @property
    def compressors(self) -> tuple:
        """The bytes->bytes codecs (v2: the numcodecs compressor, if any)."""
        if self.zarr_format == 2 and hasattr(self._metadata, "filters"):
            return _v2_codecs(self._metadata)[1]
        return self._inner_pipeline().shown_compressors

    @property
    def compressor(self):
        """zarr-python 2's single compressor (v2 arrays); deprecated as in zarr-python 3
        (ZarrDeprecationWarning): use ``compressors``."""
        import warnings

        from zarrhpc.errors import ZarrDeprecationWarning

        warnings.warn("Use Array.compressors instead.", ZarrDeprecationWarning, stacklevel=2)
        comps = self.compressors
        if len(comps) > 1:
            raise TypeError("compressor: the array has several compressors; use compressors")
        return comps[0] if comps else None

    # -- storage figures ------------------------------------------------------------
    def nbytes_stored(self) -> int:
        """Bytes the array takes in the store: its metadata documents and stored chunks
        (or shards)."""
        store = self._store
        prefix = f"{self._path}/" if self._path else ""
        total = sum(store.getsize(prefix + name) or 0
                    for name in ("zarr.json", ".zarray", ".zattrs")
                    if store.exists(prefix + name))
        stored = set(store.list_prefix(self._key_prefix))
        for coords in self._grid.all_chunk_coords():
            key = self._chunk_key(coords)
            if key in stored:
                total += store.getsize(key) or 0
        return total

    @property
    def config(self):
        """The runtime configuration (``ArrayConfig(order=..., write_empty_chunks=...)``);
        read-only: :meth:`with_config` makes an array with another one."""
        from zarrhpc.core.array_spec import ArrayConfig

        return ArrayConfig(self._config_order, self._write_empty_chunks)

    @property
    def async_array(self):
        """This array as zarr-python's ``AsyncArray`` (awaitable reads and writes, run off
        the event loop; the same state: ``zarrhpc.Array(a.async_array)`` is ``a`` again)."""
        return self._as_async()

    _async_array = async_array  # zarr-python's former name, still what libraries call

    def with_config(self, config):
        """A new Array on the same store, path and metadata with another runtime config.

        Parameters
        ----------
        config : ArrayConfig or dict
            An ``ArrayConfig`` replaces the config; a dict's missing keys are kept from
            this array's config (as zarr-python 3 does).
        """
        from zarrhpc.core.array_spec import ArrayConfig

        if not isinstance(config, ArrayConfig):
            config = ArrayConfig(**{**self.config.to_dict(), **dict(config)})
        return type(self)(self._store, self._path, self._metadata, read_only=self._read_only,
                          write_empty_chunks=config.write_empty_chunks, order=config.order)

    def info_complete(self):
        """``info`` plus what needs the store listed: bytes stored, chunks (sharded: shards)
        initialized, as zarr-python 3 prints it."""
        prep = self._prep
        if prep.sharding is not None:
            initialized = self.nchunks_initialized // prep.sharding.nchunks
        else:
            initialized = self.nchunks_initialized
        return self._info_table(stored=self.nbytes_stored(), initialized=initialized)

    # -- python protocols -----------------------------------------------------------
    def __len__(self) -> int:
        """The length of the first axis, as numpy and zarr-python 2 (issue 16 asks for it;
        zarr-python 3 has no ``__len__``, so there ``len(a)`` is a TypeError)."""
        if not self.shape:
            raise TypeError("len() of unsized object")  # numpy's words for a 0-d array
        return self.shape[0]

    def __bool__(self) -> bool:
        """Always true, as zarr-python 3's Array (no ``__len__`` there): code testing
        ``if array:`` for "not None" keeps working on a length-0 array."""
        return True

    def __iter__(self):
        if not self.shape:
            # zarr-python iterates by a[0], a[1]... (it has no __iter__); a 0-d array's
            # a[0] is an IndexError, which ends that iteration at once
            return
        step = self.chunks[0] if self.chunks else 1
        for start in range(0, self.shape[0], max(1, step)):
            block = self[start:min(self.shape[0], start + step)]
            if block.ndim > 1:
                yield from block
            else:  # as zarr-python's a[i]: 0-d arrays, not numpy scalars
                for i in range(block.shape[0]):
                    yield block[i:i + 1].reshape(())
