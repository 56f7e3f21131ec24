"""``xr.open_dataset(store, engine="zarrhpc")``: xarray reads Zarr groups through zarrhpc.

Life cycle: xarray finds :class:`ZarrhpcBackendEntrypoint` through the ``xarray.backends``
entry point; ``open_dataset`` opens the group (consolidated metadata when present, v2 or
v3), wraps it in :class:`ZarrhpcDataStore` and hands that to xarray's own
``StoreBackendEntrypoint``, so CF decoding (times, ``scale_factor``, ``_FillValue``...) is
xarray's, exactly as for its ``engine="zarr"``. Variables stay lazy: each is a
:class:`ZarrhpcBackendArray` read on demand, a whole-array load being one zarrhpc read
(chunks decoded in parallel without the GIL). With ``chunks={}``, dask chunks are the Zarr
chunks (``preferred_chunks`` in the encoding).

What each variable carries mirrors xarray's zarr engine (``xarray.backends.zarr``):
dimensions from ``dimension_names`` (v3) or the ``_ARRAY_DIMENSIONS`` attribute (v2);
encoding ``chunks``, ``preferred_chunks``, ``shards``, ``compressors``, ``filters`` (and
``serializer`` for v3; v3 codecs as zarr-python objects when it is installed, so xarray's
own writer takes the encoding back); the Zarr fill value used as the missing-value mask for
v2 (and for v3 kept as ``encoding["fill_value"]``), whatever ``use_zarr_fill_value_as_mask``
says, as engine="zarr" reads; a store without consolidated metadata opened with xarray's
RuntimeWarning when ``consolidated`` is None; zarr-python store objects taken
(:mod:`zarrhpc.storage.zarr_python`); groups below the one opened read by ``open_datatree`` /
``open_groups_as_dict``. Helpers that do not touch zarr-python are taken from xarray's zarr
module so the two engines cannot drift.
"""

from __future__ import annotations

import asyncio
import os

import numpy as np
from xarray.backends.common import AbstractDataStore, BackendArray, BackendEntrypoint
from xarray.backends.store import StoreBackendEntrypoint
from xarray.backends.zarr import FillValueCoder, ZarrArrayWrapper
from xarray.coding.strings import create_vlen_dtype
from xarray.core import indexing
from xarray.core.utils import FrozenDict, emit_user_level_warning

import zarrhpc
from zarrhpc.core.array import Array
from zarrhpc.errors import GroupNotFoundError
from zarrhpc.storage.zarr_python import as_zarrhpc_store

__all__ = ["ZarrhpcBackendArray", "ZarrhpcBackendEntrypoint", "ZarrhpcDataStore", "open_zarr"]

DIMENSION_KEY = "_ARRAY_DIMENSIONS"
# xarray versions whose zarr engine keeps numpy's StringDType (else: object arrays of str)
_KEEPS_STRING_DTYPE = hasattr(ZarrArrayWrapper, "_preserve_string_dtype")


def _dims_and_attrs(array: Array) -> tuple[tuple, dict]:
    """Dimension names (v3 ``dimension_names``, else ``_ARRAY_DIMENSIONS``) and the
    attributes without ``_ARRAY_DIMENSIONS``, as xarray's zarr engine finds them."""
    attrs = dict(array.attrs)
    if array.zarr_format == 3:
        dims = tuple(array.metadata.dimension_names or ())
        if len(dims) != array.ndim:
            raise KeyError(f"{array.path}: the Zarr array is missing the `dimension_names` "
                           f"metadata which is required for xarray to determine variable "
                           f"dimensions")
        return dims, attrs
    try:
        dims = tuple(attrs.pop(DIMENSION_KEY))
    except KeyError:
        raise KeyError(f"{array.path}: the Zarr array is missing the attribute "
                       f"`{DIMENSION_KEY}`, which is required for xarray to determine "
                       f"variable dimensions") from None
    return dims, attrs


def _zarr_python_codecs(codecs, v3: bool) -> tuple:
    """The v3 codecs as zarr-python's objects when zarr-python is installed, as
    engine="zarr" reports them: a Dataset opened here can then be written by xarray's own
    ``to_zarr`` (zarr-python refuses other codec objects). v2 codecs are numcodecs'."""
    if not v3 or not codecs:
        return tuple(codecs or ())
    try:
        from zarr.registry import get_codec_class
    except ImportError:
        return tuple(codecs)
    out = []
    for codec in codecs:
        try:
            doc = codec.to_dict()
            out.append(get_codec_class(doc["name"]).from_dict(doc))
        except Exception:  # a codec zarr-python does not know: ours
            out.append(codec)
    return tuple(out)


class ZarrhpcBackendArray(BackendArray):
    """One Zarr array as xarray's lazy backend array.

    Reads are synchronous (``__getitem__``) or, for ``load_async``, awaitable
    (:meth:`async_getitem`): a zarrhpc read runs in a worker thread of the event loop's
    executor, where its chunk decoding releases the GIL, so the loop stays free and the
    reads of several variables awaited together run at the same time. Each indexing kind
    (basic, outer, vectorized) has its own method, as engine="zarr"'s wrapper has.
    """

    __slots__ = ("_array", "dtype", "shape")

    def __init__(self, array: Array):
        self._array = array
        self.shape = array.shape
        self.dtype = _xarray_dtype(array)

    def get_array(self):
        return self._array

    def _getitem(self, key):
        return self._array[key]

    def _oindex(self, key):
        return self._array.oindex[key]

    def _vindex(self, key):
        return self._array.vindex[key]

    async def _async_getitem(self, key):
        return await asyncio.to_thread(self._array.__getitem__, key)

    async def _async_oindex(self, key):
        return await asyncio.to_thread(self._array.oindex.__getitem__, key)

    async def _async_vindex(self, key):
        return await asyncio.to_thread(self._array.vindex.__getitem__, key)

    def _method(self, key, kinds):
        """(read method, xarray's IndexingSupport) for ``key``; ``kinds``: the basic,
        outer and vectorized methods."""
        basic, outer, vectorized = kinds
        if isinstance(key, indexing.BasicIndexer):
            return basic, indexing.IndexingSupport.BASIC
        if isinstance(key, indexing.VectorizedIndexer):
            return vectorized, indexing.IndexingSupport.VECTORIZED
        return outer, indexing.IndexingSupport.OUTER

    def _string_scalar(self, value):
        """A 0-d StringDType read as a numpy array, not a Python str (as engine="zarr")."""
        if self.dtype.kind == "T" and isinstance(value, str) and _KEEPS_STRING_DTYPE:
            return np.asarray(value, dtype=self.dtype)
        return value

    def __getitem__(self, key):
        method, support = self._method(key, (self._getitem, self._oindex, self._vindex))
        return self._string_scalar(
            indexing.explicit_indexing_adapter(key, self.shape, support, method))

    async def async_getitem(self, key):
        """``self[key]`` without blocking the event loop (xarray's ``load_async``)."""
        method, support = self._method(
            key, (self._async_getitem, self._async_oindex, self._async_vindex))
        return self._string_scalar(await indexing.async_explicit_indexing_adapter(
            key, self.shape, support, method))


def _xarray_dtype(array: Array):
    """The dtype xarray's zarr engine gives the variable: a ``vlen-utf8`` array not read
    as numpy's StringDType is xarray's object dtype of str (GH 7328)."""
    dtype = array.dtype
    serializer = getattr(array, "serializer", None) if array.zarr_format == 3 else None
    if dtype.kind != "T" and serializer is not None \
            and serializer.to_dict().get("name") == "vlen-utf8":
        return create_vlen_dtype(str)
    return dtype


class ZarrhpcDataStore(AbstractDataStore):
    """A zarrhpc Group as xarray's read-only data store."""

    def __init__(self, group, use_zarr_fill_value_as_mask=None, arrays=None):
        self.zarr_group = group
        if use_zarr_fill_value_as_mask is None:
            use_zarr_fill_value_as_mask = group.zarr_format != 3
        self._mask_with_fill = bool(use_zarr_fill_value_as_mask)
        # arrays: the group's arrays when the caller has them already (each look-up is a
        # request on an object store)
        self._arrays = dict(group.arrays()) if arrays is None else arrays

    def open_store_variable(self, name: str, array: Array):
        from xarray import Variable

        dims, attrs = _dims_and_attrs(array)
        data = indexing.LazilyIndexedArray(ZarrhpcBackendArray(array))
        chunks = tuple(array.chunks)
        v3 = self.zarr_group.zarr_format == 3
        encoding = {"chunks": chunks, "preferred_chunks": dict(zip(dims, chunks))}
        if data.dtype.kind == "T" and _KEEPS_STRING_DTYPE:  # kept by xarray's decoding
            encoding["dtype"] = data.dtype
        encoding |= {"compressors": _zarr_python_codecs(array.compressors, v3),
                     "filters": _zarr_python_codecs(array.filters, v3),
                     "shards": array.shards}
        if v3:
            encoding["serializer"] = _zarr_python_codecs((array.serializer,), v3)[0]
        if self._mask_with_fill:
            if array.fill_value is not None:
                attrs["_FillValue"] = array.fill_value
        else:
            if self.zarr_group.zarr_format == 3:
                encoding["fill_value"] = array.fill_value
            if "_FillValue" in attrs:
                attrs["_FillValue"] = FillValueCoder.decode(attrs["_FillValue"], array.dtype)
        return Variable(dims, data, attrs, encoding)

    def get_variables(self):
        return FrozenDict((k, self.open_store_variable(k, a)) for k, a in self._arrays.items())

    def get_attrs(self):
        return {k: v for k, v in self.zarr_group.attrs.asdict().items()
                if not k.lower().startswith("_nc")}

    def get_dimensions(self):
        dims: dict = {}
        for array in self._arrays.values():
            names, _ = _dims_and_attrs(array)
            for d, n in zip(names, array.shape):
                if dims.get(d, n) != n:
                    raise ValueError(f"found conflicting lengths for dimension {d} "
                                     f"({n} != {dims[d]})")
                dims[d] = n
        return dims

    def close(self):
        pass


def open_group_for_xarray(store, *, group=None, mode="r", consolidated=None,
                          storage_options=None, zarr_format=None):
    """The zarrhpc Group xarray reads: consolidated metadata used when present (None),
    required (True) or ignored (False), as xarray's ``consolidated=``."""
    if isinstance(store, os.PathLike):
        store = os.fspath(store)
    store = as_zarrhpc_store(store)
    if not getattr(store, "supports_consolidated_metadata", True):
        consolidated = False
    try:
        grp = zarrhpc.open_group(store, path=group, mode=mode, use_consolidated=consolidated,
                                 storage_options=storage_options, zarr_format=zarr_format)
    except GroupNotFoundError as exc:  # xarray's message, zarrhpc's reason
        raise GroupNotFoundError(f"No such file or directory: {store!r} ({exc})") from exc
    if consolidated is None and grp.metadata.consolidated_metadata is None:
        # as engine="zarr": a store without consolidated metadata opens, with xarray's
        # warning (each array's metadata is then one more read)
        emit_user_level_warning(
            "Failed to open Zarr store with consolidated metadata, but successfully read "
            "with non-consolidated metadata. This is typically much slower for opening a "
            "dataset. To silence this warning, consider:\n1. Consolidating metadata in "
            "this existing store with zarr.consolidate_metadata().\n2. Explicitly setting "
            "consolidated=False, to avoid trying to read consolidate metadata, or\n3. "
            "Explicitly setting consolidated=True, to raise an error in this case instead "
            "of falling back to try reading non-consolidated metadata.", RuntimeWarning)
    return grp


class ZarrhpcBackendEntrypoint(BackendEntrypoint):
    """xarray's ``engine="zarrhpc"``: Zarr v2/v3 groups read by zarrhpc."""

    description = "Open Zarr groups (v2, v3) with zarrhpc"
    url = "https://github.com/zarrhpc/zarrhpc"
    open_dataset_parameters = (
        "filename_or_obj", "mask_and_scale", "decode_times", "concat_characters",
        "decode_coords", "drop_variables", "use_cftime", "decode_timedelta", "group",
        "mode", "consolidated", "storage_options", "zarr_format",
        "use_zarr_fill_value_as_mask", "cache_members",
    )

    def guess_can_open(self, filename_or_obj) -> bool:
        if isinstance(filename_or_obj, (str, os.PathLike)):
            _, ext = os.path.splitext(os.fspath(filename_or_obj).rstrip("/"))
            return ext == ".zarr"
        return False

    def open_dataset(self, filename_or_obj, *, mask_and_scale=True, decode_times=True,
                     concat_characters=True, decode_coords=True, drop_variables=None,
                     use_cftime=None, decode_timedelta=None, group=None, mode="r",
                     consolidated=None, storage_options=None, zarr_format=None,
                     use_zarr_fill_value_as_mask=None, store=None, engine=None,
                     cache_members=True):
        # engine, cache_members: as engine="zarr" takes them (an unused engine name, its
        # member cache); zarrhpc's group reads its members once
        if store is not None:
            raise TypeError("engine='zarrhpc' opens filename_or_obj; store= (an "
                            "xarray.backends.ZarrStore) is engine='zarr''s")
        grp = _group_of(filename_or_obj, group=group, mode=mode, consolidated=consolidated,
                        storage_options=storage_options, zarr_format=zarr_format)
        # use_zarr_fill_value_as_mask: taken, and left to the format's default (v2: the
        # fill value masks), as engine="zarr" does on reading (xarray 2026.9 passes None
        # to its store; its own test_zarr_fill_value_setting expects that)
        return _decode(grp, None, mask_and_scale=mask_and_scale,
                       decode_times=decode_times, concat_characters=concat_characters,
                       decode_coords=decode_coords, drop_variables=drop_variables,
                       use_cftime=use_cftime, decode_timedelta=decode_timedelta)

    def open_groups_as_dict(self, filename_or_obj, *, mask_and_scale=True,
                            decode_times=True, concat_characters=True, decode_coords=True,
                            drop_variables=None, use_cftime=None, decode_timedelta=None,
                            group=None, mode="r", consolidated=None, storage_options=None,
                            zarr_format=None, use_zarr_fill_value_as_mask=None):
        """``{"/": Dataset, "/a": Dataset, "/a/b": ...}``: the group ``group`` (default
        the root) and every group below it, each decoded as ``open_dataset`` does; paths
        relative to ``group``, as engine="zarr" gives them."""
        top = _group_of(filename_or_obj, group=group, mode=mode, consolidated=consolidated,
                        storage_options=storage_options, zarr_format=zarr_format)
        decode = dict(mask_and_scale=mask_and_scale, decode_times=decode_times,
                      concat_characters=concat_characters, decode_coords=decode_coords,
                      drop_variables=drop_variables, use_cftime=use_cftime,
                      decode_timedelta=decode_timedelta)
        out = {}

        def visit(path, grp):  # depth first, as engine="zarr" lists them
            out[path] = _decode(grp, None, **decode)  # as open_dataset
            for name, child in sorted(grp.groups()):
                visit(f"{path.rstrip('/')}/{name}", child)

        visit("/", top)
        return out

    def open_datatree(self, filename_or_obj, **kwargs):
        """The group (default: the root) and its subgroups as an ``xarray.DataTree``."""
        from xarray.backends.common import datatree_from_dict_with_io_cleanup

        return datatree_from_dict_with_io_cleanup(
            self.open_groups_as_dict(filename_or_obj, **kwargs))


def _decode(grp, use_zarr_fill_value_as_mask, arrays=None, **decode):
    """The Dataset of one group's arrays (``arrays``: ``{name: Array}`` when known),
    CF-decoded by xarray."""
    store = ZarrhpcDataStore(grp, use_zarr_fill_value_as_mask, arrays)
    return StoreBackendEntrypoint().open_dataset(store, **decode)


def _group_of(filename_or_obj, **options):
    """The zarrhpc Group given, or the group ``open_group_for_xarray`` opens."""
    if isinstance(filename_or_obj, zarrhpc.Group):
        return filename_or_obj
    return open_group_for_xarray(filename_or_obj, **options)


def open_zarr(store, group=None, chunks="default", decode_cf=True, mask_and_scale=True,
              decode_times=True, concat_characters=True, decode_coords=True,
              drop_variables=None, consolidated=None, overwrite_encoded_chunks=False,
              storage_options=None, decode_timedelta=None, use_cftime=None,
              zarr_format=None, use_zarr_fill_value_as_mask=None, chunked_array_type=None,
              from_array_kwargs=None, create_default_indexes=True):
    """``xr.open_zarr`` through zarrhpc: the same arguments and defaults, read with
    ``engine="zarrhpc"`` (``xr.open_zarr`` always uses ``engine="zarr"``), so a user's
    ``xr.open_zarr(url, storage_options=...)`` becomes
    ``zarrhpc.xarray.open_zarr(url, storage_options=...)``.

    Parameters
    ----------
    store : path, URL, Store, StorePath or zarr-python store
        ``s3://``, ``gs://``... URLs take ``storage_options`` as zarr-python's do.
    chunks : int, dict, "auto" or None, optional
        Default: the Zarr chunks as dask chunks (``{}``) when dask is installed, else
        numpy-backed lazy variables (``None``), as ``xr.open_zarr``.

    Other parameters are ``xr.open_zarr``'s.

    Returns
    -------
    xarray.Dataset
    """
    import xarray as xr
    from xarray.namedarray.parallelcompat import guess_chunkmanager

    if isinstance(chunks, str) and chunks == "default":
        try:
            guess_chunkmanager(chunked_array_type)
            chunks = {}
        except (ValueError, ImportError):
            chunks = None
    return xr.open_dataset(
        store, group=group, decode_cf=decode_cf, mask_and_scale=mask_and_scale,
        decode_times=decode_times, concat_characters=concat_characters,
        decode_coords=decode_coords, engine="zarrhpc", chunks=chunks,
        drop_variables=drop_variables, create_default_indexes=create_default_indexes,
        chunked_array_type=chunked_array_type, from_array_kwargs=from_array_kwargs or {},
        backend_kwargs={"consolidated": consolidated,
                        "overwrite_encoded_chunks": overwrite_encoded_chunks,
                        "storage_options": storage_options, "zarr_format": zarr_format},
        decode_timedelta=decode_timedelta, use_cftime=use_cftime,
        use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask)
