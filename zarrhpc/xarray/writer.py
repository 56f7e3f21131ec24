"""``zarrhpc.xarray.to_zarr(ds, store)``: write a Dataset through zarrhpc, as
``Dataset.to_zarr`` writes it with zarr-python, so ``xr.open_zarr`` reads it back the same.

Life cycle: coordinates are encoded (``encode_dataset_coordinates``), each variable CF
encoded by xarray's own zarr encoder (times to numbers with ``units``, ``scale_factor``,
``_FillValue``, strings to fixed-width bytes), its Zarr encoding taken from
``variable.encoding`` and ``encoding=`` (``chunks``, ``shards``, ``compressors``,
``filters``, ``serializer``, ...) by xarray's ``extract_zarr_variable_encoding``; then
every array is created with ``Group.create_array`` and its data written: numpy data in
one call, dask data with ``dask.array.store`` (chunks written in parallel, no lock, each
dask chunk being whole Zarr chunks when the encoding came from the dask chunks). Last, the
metadata is consolidated (``consolidated=None`` or True), as xarray does.

Fill values follow xarray's rules: Zarr v2 stores ``_FillValue`` as the array's fill
value; v3 keeps the array fill value apart (NaN for floats) and ``_FillValue`` as an
encoded attribute. Modes: "w-" (default: fail if the group exists), "w" (replace), "a"
(add or replace variables; with ``append_dim``, extend the variables that have that
dimension) and "r+" (``region`` writes into existing arrays only).

Incremental writes (``append_dim``, ``region``) follow ``Dataset.to_zarr``: the existing
variables' encoding (units, dtype, scale_factor, _FillValue, ...) is read back through
the zarrhpc backend and reused, so the new values are encoded as the stored ones;
appended arrays are resized first, then written at their end; a region (slices per
dimension, or "auto": found from the index coordinates' values in the store) is written
in place, its index coordinates left as stored. ``compute=False`` creates and resizes
every array and writes numpy data at once, and returns a ``dask.delayed`` object that
writes the dask data and consolidates the metadata when computed.
"""

from __future__ import annotations

from xarray import DataArray, conventions
from xarray.backends.common import _encode_variable_name
from xarray.backends.writers import _validate_dataset_names
from xarray.backends.zarr import _choose_default_mode, encode_zarr_variable

import zarrhpc
from zarrhpc.core._create_args import ABSENT
from zarrhpc.errors import ContainsArrayError, ContainsGroupError
from zarrhpc.storage.zarr_python import as_zarrhpc_store
from zarrhpc.xarray._incremental import write_incremental
from zarrhpc.xarray._writes import create_variable, finish, zarr_attrs

__all__ = ["datatree_to_zarr", "to_zarr"]


def to_zarr(ds, store=None, *, mode=None, group=None, encoding=None, compute=True,
            consolidated=None, zarr_format=None, storage_options=None,
            write_empty_chunks=None, use_zarr_fill_value_as_mask=None, append_dim=None,
            region=None, safe_chunks=True, align_chunks=False,
            chunkmanager_store_kwargs=None):
    """Write ``ds`` to a Zarr group through zarrhpc (arguments as ``Dataset.to_zarr``).

    Parameters
    ----------
    ds : xarray.Dataset or xarray.DataArray
        A DataArray is written as ``DataArray.to_zarr`` writes it: one variable named
        after it, or ``__xarray_dataarray_variable__`` when it has no name (or its name is
        a coordinate's, then kept in the ``__xarray_dataarray_name__`` attribute).
    store : path, URL, Store, StorePath, dict or None
        Where to write (as ``zarrhpc.open_group`` takes it).
    mode : {"w-", "w", "a", "a-", "r+"}, optional
        Create (failing if a group exists), replace, add or append variables ("a-":
        append without rewriting the variables that lack ``append_dim``), or write a
        region of existing ones. Default: "a" with ``append_dim``, "r+" with ``region``,
        else "w-".
    group : str, optional
        Path of the group inside the store.
    encoding : dict, optional
        ``{variable: {"chunks": ..., "compressors": ..., "dtype": ..., ...}}``.
    compute : bool
        False: write the metadata (and numpy data) now, return a ``dask.delayed`` object
        that writes the dask data and consolidates when computed.
    consolidated : bool, optional
        Consolidate the metadata afterwards (default: yes, as xarray).
    zarr_format : {2, 3}, optional
        Default: zarrhpc.config ``default_zarr_format`` (3).
    append_dim : str, optional
        Extend the stored variables along this dimension with ``ds``'s values.
    region : dict or "auto", optional
        ``{dim: slice or "auto"}`` (or "auto" for every dimension): where in the stored
        arrays ``ds`` goes.
    safe_chunks : bool
        Refuse dask chunks that would write into one Zarr chunk (shard) from two tasks.
    align_chunks : bool
        Rechunk the dask data onto the Zarr chunks (shards) instead.
    chunkmanager_store_kwargs : dict, optional
        Extra arguments of ``dask.array.store``.

    Returns
    -------
    zarrhpc.Group or dask.delayed.Delayed
        The written group (``compute=False``: the delayed write).
    """
    if isinstance(ds, DataArray):
        ds = _dataarray_as_dataset(ds)
    root, pending, consolidated = _prepare(
        ds, store, mode=mode, group=group, encoding=encoding, consolidated=consolidated,
        zarr_format=zarr_format, storage_options=storage_options,
        write_empty_chunks=write_empty_chunks,
        use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask, append_dim=append_dim,
        region=region, safe_chunks=safe_chunks, align_chunks=align_chunks)
    return finish(root, pending, compute, consolidated, chunkmanager_store_kwargs)


def _dataarray_as_dataset(da):
    """The Dataset ``DataArray.to_zarr`` writes for ``da`` (xarray's names for it)."""
    from xarray.backends.api import DATAARRAY_NAME, DATAARRAY_VARIABLE

    if da.name is None:
        return da.to_dataset(name=DATAARRAY_VARIABLE)
    if da.name in da.coords or da.name in da.dims:  # a Dataset cannot hold both
        ds = da.to_dataset(name=DATAARRAY_VARIABLE)
        ds.attrs[DATAARRAY_NAME] = da.name
        return ds
    return da.to_dataset()


def _prepare(ds, store, *, mode, group, encoding, consolidated, zarr_format,
             storage_options, write_empty_chunks, use_zarr_fill_value_as_mask, append_dim,
             region, safe_chunks, align_chunks):
    """Everything of ``to_zarr`` but the data: ``(group, [(data, array, region)...],
    consolidated)``, the arrays created or resized."""
    _validate_dataset_names(ds)  # xarray's checks and messages, as Dataset.to_zarr
    mode = _choose_default_mode(mode=mode, append_dim=append_dim, region=region)
    store = as_zarrhpc_store(store)
    if append_dim is not None or region is not None or mode in ("a", "a-", "r+"):
        return write_incremental(ds, store, mode=mode, group=group, encoding=encoding,
                                 consolidated=consolidated,
                                 storage_options=storage_options, append_dim=append_dim,
                                 region=region, write_empty_chunks=write_empty_chunks,
                                 use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
                                 safe_chunks=safe_chunks, align_chunks=align_chunks,
                                 zarr_format=zarr_format)
    if mode == "w-":
        # one batched look-up of what is at the path (create_group's own check): on an
        # object store each read is a request
        from zarrhpc.core._nodes import resolve_store_path

        target, path = resolve_store_path(store, group, "w", storage_options)
        # zarr-python's check for mode "w-" (nothing below the path): one listing; then
        # no new variable needs a look-up or an erase of its own (``ABSENT``)
        fresh = next(iter(target.list_prefix(f"{path}/" if path else "")), None) is None
        try:
            root = zarrhpc.create_group(target, path=path, zarr_format=zarr_format)
        except (ContainsArrayError, ContainsGroupError) as exc:
            raise type(exc)(f"to_zarr: a node already exists at {path or '/'!r} in "
                            f"{target!r} (mode='w-'; use mode='w' to replace it)") from exc
    else:
        fresh = False
        root = zarrhpc.open_group(store, path=group, mode="w", zarr_format=zarr_format,
                                  storage_options=storage_options, use_consolidated=False)
    fmt = root.zarr_format
    if use_zarr_fill_value_as_mask is None:
        use_zarr_fill_value_as_mask = fmt == 2
    variables, attrs = conventions.encode_dataset_coordinates(ds)
    check = set()
    for name, enc in (encoding or {}).items():
        variables[name].encoding = enc  # the setter copies, or names the problem
        check.add(name)
    root.attrs.update(zarr_attrs(attrs))
    pending = []
    for name, var in variables.items():
        var = encode_zarr_variable(var, name=name, zarr_format=fmt)
        data, arr = create_variable(root, _encode_variable_name(name), var, fmt, use_zarr_fill_value_as_mask,
                                    name in check, write_empty_chunks, safe_chunks,
                                    align_chunks, overwrite=ABSENT if fresh else True)
        pending.append((data, arr, None))
    return root, pending, consolidated


def datatree_to_zarr(dt, store=None, mode="w-", encoding=None, group=None,
                     write_inherited_coords=False, *, compute=True, consolidated=None,
                     append_dim=None, region=None, safe_chunks=True, align_chunks=False,
                     storage_options=None, zarr_format=None, write_empty_chunks=None,
                     chunkmanager_store_kwargs=None):
    """Write an ``xarray.DataTree`` through zarrhpc, one group per node (arguments as
    ``DataTree.to_zarr``); the metadata is consolidated once, at the end.

    Returns
    -------
    zarrhpc.Group or dask.delayed.Delayed
        The root group (``compute=False``: the delayed writes of every node).
    """
    from zarrhpc.core._nodes import resolve_store_path
    from zarrhpc.xarray._writes import consolidate_after, write_data

    if group is not None:
        raise NotImplementedError("specifying a root group for the tree has not been "
                                  "implemented")
    if append_dim is not None:
        raise NotImplementedError("specifying ``append_dim`` with ``DataTree.to_zarr`` "
                                  "has not been implemented")
    encoding = encoding or {}
    if set(encoding) - set(dt.groups):
        raise ValueError(f"unexpected encoding group name(s) provided: "
                         f"{set(encoding) - set(dt.groups)}")
    target, _ = resolve_store_path(as_zarrhpc_store(store), None,
                                   "r" if mode == "r" else "w", storage_options)
    pending = []  # every node's data written in one da.store: shared inputs run once
    root = None
    for rel_path, node in dt.subtree_with_keys:
        at_root = node is dt
        ds = node.to_dataset(inherit=write_inherited_coords or at_root)
        grp, items, consolidate = _prepare(
            ds, target, mode=mode if at_root or mode == "r+" else "a",
            group=None if at_root else rel_path,
            encoding=encoding.get(node.path), consolidated=consolidated,
            zarr_format=zarr_format if at_root else root.zarr_format,
            storage_options=None, write_empty_chunks=write_empty_chunks,
            use_zarr_fill_value_as_mask=None, append_dim=None, region=region,
            safe_chunks=safe_chunks, align_chunks=align_chunks)
        if at_root:  # the children take its format; "r+": not consolidated again
            root, consolidated = grp, consolidate
        pending.extend(items)
    writes = write_data(pending, compute, chunkmanager_store_kwargs)
    return consolidate_after(root, writes, compute, consolidated)
