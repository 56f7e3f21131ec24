"""``to_zarr`` into an existing group: mode "a" (add or replace variables, or extend them
along ``append_dim``) and ``region`` writes (mode "r+" or "a"), as ``Dataset.to_zarr``.

Life cycle: the group is opened (mode "a" creates it when missing); the stored variables
are read back through the zarrhpc backend, only for their encoding (CF attributes and
dtype), which the new variables of the same name take over, so they are encoded as the
stored ones; a region's "auto" slices are found from the index coordinates' stored
values. Then each variable is encoded; a new one is created (``_writes.create_variable``);
an existing one is resized along ``append_dim`` and its new part written, or written in
its region, or (mode "a", neither) written whole. ``_writes.finish`` writes the data and
consolidates.
"""

from __future__ import annotations

import numpy as np
from xarray import conventions
from xarray.backends.common import _encode_variable_name
from xarray.backends.zarr import (
    _validate_and_transpose_existing_dims,
    _validate_datatypes_for_zarr_append,
    encode_zarr_variable,
)

import zarrhpc
from zarrhpc.xarray._writes import chunks_checked, create_variable, zarr_attrs

__all__ = ["write_incremental"]


def write_incremental(ds, store, *, mode, group, encoding, consolidated,
                      storage_options, append_dim, region, write_empty_chunks,
                      use_zarr_fill_value_as_mask, safe_chunks=True, align_chunks=False,
                      zarr_format=None):
    """``(group, [(data, array, region)...], consolidated)`` for ``finish``: the new
    arrays created, the appended ones grown, every check made first."""
    from zarrhpc.xarray.backend import _decode

    # "r+" (a region write) changes no metadata: the group's consolidated metadata, when
    # it has some, names its arrays (as xarray reads it), with no listing
    view = mode == "r+" and consolidated is not False
    root = zarrhpc.open_group(store, path=group, mode="r+" if mode == "r+" else "a",
                              storage_options=storage_options,
                              use_consolidated=None if view else False,
                              zarr_format=zarr_format)
    if mode == "r+":  # as xarray: the metadata is not changed, nor consolidated again
        consolidated = False
    root_attrs_too = mode in ("a", "a-")
    fmt = root.zarr_format
    if use_zarr_fill_value_as_mask is None:
        use_zarr_fill_value_as_mask = fmt == 2
    arrays = _stored_arrays(root)  # read once: each look-up is a request on object stores
    stored_names = set(arrays)
    stored = _decode(root, None, arrays) if stored_names else None
    if append_dim is not None and stored is not None and append_dim not in stored.dims:
        raise ValueError(f"append_dim={append_dim!r} does not match any existing dataset "
                         f"dimensions {dict(stored.sizes)}")
    slices = _region(ds, stored, region, append_dim) if region is not None else None
    if slices is not None:
        ds = _drop_for_region(ds, slices)
    if encoding:
        given = sorted(set(encoding) & stored_names)
        if given:
            raise ValueError(f"variable {given[0]!r} already exists, but encoding was "
                             f"provided")
    if mode == "r+":
        new_names = [k for k in ds.variables if _encode_variable_name(k) not in stored_names]
        if new_names:
            raise ValueError(f"dataset contains non-pre-existing variables {new_names!r}, "
                             f"which is not allowed in ``xarray.Dataset.to_zarr()`` with "
                             f"``mode='r+'``. To allow writing new variables, set "
                             f"``mode='a'``.")
    variables, attrs = conventions.encode_dataset_coordinates(ds)
    for name, enc in (encoding or {}).items():
        variables[name].encoding = enc  # the setter copies, or names the problem
    if root_attrs_too:
        root.attrs.update(zarr_attrs(attrs))
    pending = []
    for name, var in variables.items():
        name = _encode_variable_name(name)
        if name in stored_names:
            if mode == "a-" and append_dim not in var.dims:
                continue  # "a-": what lacks append_dim is left as stored
            _validate_datatypes_for_zarr_append(name, stored[name], var)
            var = var.copy(deep=False)
            var.encoding = dict(stored[name].encoding)
            var = encode_zarr_variable(var, name=name, zarr_format=fmt)
            var = _validate_and_transpose_existing_dims(name, var, stored[name], slices,
                                                        append_dim)
            stored_array = arrays[name]
            if write_empty_chunks is not None:  # as xarray: the writes' own setting
                stored_array = zarrhpc.open_array(
                    root.store, path=stored_array.path, mode="r+",
                    config={"write_empty_chunks": write_empty_chunks})
            pending.append(_existing(stored_array, var, append_dim, slices, mode=mode,
                                     safe_chunks=safe_chunks, align_chunks=align_chunks))
        else:
            if slices is not None:
                raise ValueError(f"to_zarr with region: variable {name!r} is not in the "
                                 f"store; a region write only writes existing variables")
            var = encode_zarr_variable(var, name=name, zarr_format=fmt)
            data, arr = create_variable(root, name, var, fmt, use_zarr_fill_value_as_mask,
                                        name in (encoding or {}), write_empty_chunks,
                                        safe_chunks, align_chunks)
            pending.append((data, arr, None))
    for item in pending:  # every check passed: now grow the appended arrays
        if len(item) == 4:
            item[1].resize(item.pop())
    return root, pending, consolidated


def _stored_arrays(root) -> dict:
    """``{name: Array}`` of ``root``'s arrays. Named by the consolidated metadata when
    the group was opened with it (no listing: on an object store a LIST and a request per
    name), but each opened from its own metadata document: a stale consolidated view must
    not decide the shape a region is checked against or how its chunks are encoded."""
    if root.metadata.consolidated_metadata is None:
        return dict(root.arrays())
    prefix = f"{root.path}/" if root.path else ""
    return {name: zarrhpc.open_array(root.store, path=prefix + name, mode="r+",
                                     zarr_format=root.zarr_format)
            for name in root.array_keys()}


def _existing(arr, var, append_dim, slices, *, mode, safe_chunks, align_chunks):
    """``(data, array, selection)`` writing ``var`` into the stored array ``arr`` (dask
    chunks checked against, or aligned to, its chunks first, as xarray does); appending,
    ``[data, array, selection, new shape]``: the caller resizes once all are checked."""
    write_chunks = tuple(arr.shards or arr.chunks)
    check = dict(name=arr.basename, safe_chunks=safe_chunks, align_chunks=align_chunks,
                 partial_ok=mode != "r+")
    if append_dim is not None and append_dim in var.dims:
        axis = var.dims.index(append_dim)
        old = arr.shape[axis]
        where = tuple(slice(old, None) if i == axis else slice(None)
                      for i in range(var.ndim))
        shape = list(arr.shape)
        shape[axis] = old + var.shape[axis]
        var = chunks_checked(var, write_chunks, where, tuple(shape), **check)
        where = tuple(slice(old, old + n) if i == axis else slice(None)
                      for i, n in enumerate(var.shape))
        return [var.data, arr, where, tuple(shape)]
    if slices is not None:
        where = tuple(slices.get(d, slice(None)) for d in var.dims)
        var = chunks_checked(var, write_chunks, where, arr.shape, **check)
        return var.data, arr, where
    if tuple(arr.shape) != tuple(var.shape):
        raise ValueError(f"variable {arr.path!r} already exists with shape {arr.shape}; "
                         f"the new one has shape {var.shape} (append_dim or region?)")
    var = chunks_checked(var, write_chunks, None, arr.shape, **check)
    return var.data, arr, None


def _region(ds, stored, region, append_dim) -> dict:
    """``{dim: slice}``: "auto" entries found from the stored index coordinates; checks
    and messages as ``Dataset.to_zarr``'s."""
    if stored is None:
        raise ValueError("to_zarr with region: the group holds no variables to write into")
    if region == "auto":
        region = dict.fromkeys(ds.dims, "auto")
    if not isinstance(region, dict):
        raise TypeError(f"``region`` must be a dict, got {type(region)}")
    out = {}
    for dim, sel in region.items():
        if dim not in ds.dims:
            raise ValueError(f"all keys in ``region`` are not in Dataset dimensions, got "
                             f"{list(region)} and {list(ds.dims)}")
        if dim not in stored.dims:
            raise ValueError(f"region: dimension {dim!r} is not in the stored dataset "
                             f"{dict(stored.sizes)}")
        if sel == "auto":
            out[dim] = _auto_slice(ds, stored, dim)
            continue
        if not isinstance(sel, slice):
            raise TypeError(f"all values in ``region`` must be slice objects, got "
                            f"region={region}")
        if sel.step not in (None, 1):
            raise ValueError(f"step on all slices in ``region`` must be 1 or None, got "
                             f"region={region}")
        # a length that differs from the data's: each variable's check names it, with
        # xarray's message (_validate_and_transpose_existing_dims)
        start, stop, _ = sel.indices(stored.sizes[dim])
        out[dim] = slice(start, stop)
    if append_dim is not None and append_dim in out:
        raise ValueError(f"cannot list the same dimension in both ``append_dim`` and "
                         f"``region`` with to_zarr(), got {append_dim} in both")
    return out


def _auto_slice(ds, stored, dim) -> slice:
    """As xarray: an unindexed dimension is written whole; an indexed one where the
    dataset's values sit (one contiguous run) in the stored coordinate."""
    import pandas as pd

    if dim not in ds.variables:
        return slice(0, ds.sizes[dim])
    positions = pd.Index(stored[dim].values).get_indexer(ds[dim].values)
    if (positions < 0).any():
        raise KeyError(f"Not all values of coordinate {dim!r} in the new array were found "
                       f"in the original store. Writing to a zarr region slice requires "
                       f"that no dimensions or metadata are changed by the write.")
    if len(positions) and (np.diff(positions) != 1).any():
        raise ValueError(f"The auto-detected region of coordinate {dim!r} for writing new "
                         f"data to the original store had non-contiguous indices.")
    start = int(positions[0]) if len(positions) else 0
    return slice(start, start + len(positions))


def _drop_for_region(ds, slices):
    """As xarray: every variable must share a dimension with a (non-empty) region; the
    index coordinates are left as stored."""
    outside = [n for n, v in ds.variables.items() if not set(v.dims) & set(slices)]
    if slices and outside:
        raise ValueError(
            f"when setting `region` explicitly in to_zarr(), all variables in the dataset "
            f"to write must have at least one dimension in common with the region's "
            f"dimensions {list(slices)}, but that is not the case for some variables "
            f"here. To drop these variables from this dataset before exporting to zarr, "
            f"write: .drop_vars({outside!r})")
    return ds.drop_vars(list(ds.indexes))
