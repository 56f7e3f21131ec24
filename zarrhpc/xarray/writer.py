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
encoded attribute. Modes: "w-" (default: fail if the group exists), "w" (replace) and
"a" (add new variables to an existing group); appending along a dimension and region
writes are not supported here.
"""

from __future__ import annotations

import numpy as np
from xarray import conventions
from xarray.backends.zarr import (
    DIMENSION_KEY,
    FillValueCoder,
    encode_zarr_attr_value,
    encode_zarr_variable,
    extract_zarr_variable_encoding,
)

import zarrhpc
from zarrhpc.errors import ContainsArrayError, ContainsGroupError, UnsupportedError

__all__ = ["to_zarr"]


def to_zarr(ds, store=None, *, mode="w-", group=None, encoding=None, compute=True,
            consolidated=None, zarr_format=None, storage_options=None,
            write_empty_chunks=None, use_zarr_fill_value_as_mask=None, append_dim=None,
            region=None):
    """Write ``ds`` to a Zarr group through zarrhpc (arguments as ``Dataset.to_zarr``).

    Parameters
    ----------
    ds : xarray.Dataset
    store : path, URL, Store, StorePath, dict or None
        Where to write (as ``zarrhpc.open_group`` takes it).
    mode : {"w-", "w", "a"}
        Create (failing if a group exists), replace, or add variables.
    group : str, optional
        Path of the group inside the store.
    encoding : dict, optional
        ``{variable: {"chunks": ..., "compressors": ..., "dtype": ..., ...}}``.
    compute : bool
        Must be True (delayed writes are not supported).
    consolidated : bool, optional
        Consolidate the metadata afterwards (default: yes, as xarray).
    zarr_format : {2, 3}, optional
        Default: zarrhpc.config ``default_zarr_format`` (3).

    Returns
    -------
    zarrhpc.Group
        The written group.
    """
    if append_dim is not None or region is not None:
        raise UnsupportedError("to_zarr: append_dim and region writes are not supported by "
                               "zarrhpc.xarray.to_zarr; use Dataset.to_zarr")
    if not compute:
        raise UnsupportedError("to_zarr: compute=False is not supported")
    if mode not in ("w-", "w", "a"):
        raise ValueError(f"to_zarr: mode must be 'w-', 'w' or 'a', got {mode!r}")
    if mode == "w-":
        from zarrhpc.core._nodes import read_node, resolve_store_path

        target, path = resolve_store_path(store, group, "w", storage_options)
        existing = read_node(target, path)
        if existing is not None:
            cls = ContainsArrayError if existing.node_type == "array" else ContainsGroupError
            raise cls(f"to_zarr: a node already exists at {path or '/'!r} in {target!r} "
                      f"(mode='w-'; use mode='w' to replace it)")
        store, group = target, path
    root = zarrhpc.open_group(store, path=group, mode="w" if mode == "w" else "a",
                              zarr_format=zarr_format, storage_options=storage_options,
                              use_consolidated=False)
    fmt = root.zarr_format
    if use_zarr_fill_value_as_mask is None:
        use_zarr_fill_value_as_mask = fmt == 2
    variables, attrs = conventions.encode_dataset_coordinates(ds)
    check = set()
    for name, enc in (encoding or {}).items():
        variables[name].encoding = dict(enc)
        check.add(name)
    existing = set(root.array_keys()) if mode == "a" else set()
    clash = sorted(existing & {str(k) for k in variables})
    if clash:
        raise UnsupportedError(f"to_zarr: variables {clash} already exist in the group; "
                               f"zarrhpc.xarray.to_zarr only adds new ones in mode 'a'")
    root.attrs.update({k: encode_zarr_attr_value(v) for k, v in attrs.items()})
    pending = []
    for name, var in variables.items():
        var = encode_zarr_variable(var, name=name, zarr_format=fmt)
        arr = _create(root, str(name), var, fmt, use_zarr_fill_value_as_mask,
                      name in check, write_empty_chunks)
        pending.append((var.data, arr))
    _write(pending)
    if consolidated is None or consolidated:
        return zarrhpc.consolidate_metadata(root.store, root.path)
    return root


def _create(root, name, var, fmt, mask_with_fill, check_encoding, write_empty_chunks):
    attrs = dict(var.attrs)
    if mask_with_fill:
        fill_value = attrs.pop("_FillValue", None)
    else:
        fill_value = var.encoding.pop("fill_value", None)
        if fill_value is None and var.dtype.kind == "f":
            fill_value = np.nan  # xarray's default for float arrays in v3
        if "_FillValue" in attrs:
            fv = attrs.pop("_FillValue")
            if fv is not None:
                attrs["_FillValue"] = FillValueCoder.encode(fv, var.dtype)
    if var.encoding.get("_FillValue", None) is not None:
        raise ValueError("Zarr does not support _FillValue in encoding.")
    var.encoding.pop("_FillValue", None)
    enc = extract_zarr_variable_encoding(var, raise_on_invalid=check_encoding, name=name,
                                         zarr_format=fmt)
    attrs = {k: encode_zarr_attr_value(v) for k, v in attrs.items()}
    if fmt == 3:
        enc["dimension_names"] = var.dims
    else:
        attrs[DIMENSION_KEY] = list(var.dims)
    config = {k: enc.pop(k) for k in ("write_empty_chunks", "order") if k in enc}
    if write_empty_chunks is not None:
        config["write_empty_chunks"] = write_empty_chunks
    enc.pop("fill_value", None)
    if "compressor" in enc:
        enc["compressors"] = enc.pop("compressor")
    chunks = enc.pop("chunks", None)
    if chunks is None or chunks is True:
        chunks = "auto"
    return root.create_array(name, shape=var.shape, dtype=var.dtype, chunks=chunks,
                             fill_value=fill_value, attributes=attrs, config=config or None,
                             overwrite=True, **enc)


def _write(pending) -> None:
    """Write every variable's data: numpy at once, dask arrays in one ``da.store``."""
    lazy_sources, lazy_targets = [], []
    for data, arr in pending:
        if hasattr(data, "dask"):
            lazy_sources.append(data)
            lazy_targets.append(arr)
        elif arr.shape:
            arr[...] = np.asarray(data)
        else:
            arr[()] = np.asarray(data)
    if lazy_sources:
        import dask.array as da

        da.store(lazy_sources, lazy_targets, lock=False)
