"""What every ``zarrhpc.xarray`` write shares: creating a variable's array, writing
the data (numpy at once, dask through one ``da.store``) and consolidating, now or as the
last step of the delayed object ``compute=False`` returns.
"""

from __future__ import annotations

import numpy as np
from xarray.backends.chunks import grid_rechunk, validate_grid_chunks_alignment
from xarray.backends.zarr import (
    DIMENSION_KEY,
    FillValueCoder,
    encode_zarr_attr_value,
    extract_zarr_variable_encoding,
)
from xarray.coding.strings import check_vlen_dtype

import zarrhpc

__all__ = ["chunks_checked", "consolidate_after", "create_variable", "finish", "write_data",
           "zarr_attrs"]


def finish(root, pending, compute, consolidated, store_kwargs=None):
    """Write ``pending`` ``(data, array, region)``, then consolidate (now, or as the
    returned delayed's last step with ``compute=False``); ``store_kwargs`` go to
    ``dask.array.store``."""
    return consolidate_after(root, write_data(pending, compute, store_kwargs), compute,
                             consolidated)


def consolidate_after(root, delayed_writes, compute, consolidated):
    """Consolidate ``root``'s metadata (``consolidated`` None or True) now: every array
    is created or resized by then, so it is final, and, as with xarray, a reader finds it
    before a ``compute=False`` write is computed; then the group, or (``compute=False``)
    a delayed object that writes the data and returns it."""
    group = _finalize(root, consolidated)
    if not compute:
        import dask

        return dask.delayed(_after)(delayed_writes, group)
    return group


def _after(_writes, group):
    return group


def _finalize(root, consolidated):
    """As xarray: the whole store's metadata is consolidated at its root (a group written
    below the root would otherwise be missing from the root's consolidated view)."""
    if consolidated is None or consolidated:
        top = zarrhpc.consolidate_metadata(root.store, "")
        return top if not root.path else root
    return root


def chunks_checked(var, write_chunks, region, shape, *, name, safe_chunks, align_chunks,
                   partial_ok):
    """``var`` rechunked onto the Zarr grid (``align_chunks``) or checked against it
    (``safe_chunks``), as ``Dataset.to_zarr``: no two dask chunks write into one Zarr
    chunk (one shard when sharded), which would lose one of the writes. ``write_chunks``:
    the shards or else the chunks; ``region``: slices of the stored array (None: whole);
    ``partial_ok``: a partly written edge chunk is allowed (every mode but "r+")."""
    if var.chunks is None or not isinstance(write_chunks, tuple):
        return var
    region = region or tuple(slice(None) for _ in var.dims)
    if align_chunks:
        return grid_rechunk(v=var, enc_chunks=write_chunks, region=region)
    if safe_chunks:
        validate_grid_chunks_alignment(nd_v_chunks=var.chunks, enc_chunks=write_chunks,
                                       backend_shape=shape, region=region,
                                       allow_partial_chunks=partial_ok, name=name)
    return var


def zarr_attrs(attrs) -> dict:
    """``attrs`` as xarray writes them to Zarr; a value JSON cannot hold raises xarray's
    ``TypeError("Invalid attribute in Dataset.attrs.")``."""
    import json

    out = {k: encode_zarr_attr_value(v) for k, v in attrs.items()}
    try:
        json.dumps(out)
    except TypeError as exc:
        raise TypeError("Invalid attribute in Dataset.attrs.") from exc
    return out


def create_variable(root, name, var, fmt, mask_with_fill, check_encoding,
                    write_empty_chunks, safe_chunks=True, align_chunks=False,
                    overwrite=True):
    """Create the array of the encoded variable ``var`` in ``root`` (fill value, attributes,
    dimension names and encoding as xarray's zarr backend sets them); return ``(data,
    array)``, the data rechunked onto the Zarr grid with ``align_chunks``. ``overwrite``:
    as ``create_array`` (``ABSENT`` when the caller found the group's prefix empty)."""
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
    attrs = zarr_attrs(attrs)
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
    if isinstance(chunks, tuple) and 0 in chunks:  # an empty axis (dask chunk 0): Zarr
        chunks = tuple(max(c, 1) for c in chunks)   # chunks are at least 1 long
    var = chunks_checked(var, enc.get("shards") or chunks, None, var.shape, name=name,
                         safe_chunks=safe_chunks, align_chunks=align_chunks,
                         partial_ok=True)
    if chunks is None or chunks is True:
        chunks = "auto"
    dtype = var.dtype
    if check_vlen_dtype(dtype) is str:  # xarray's object arrays of str: Zarr strings
        dtype = str
    arr = root.create_array(name, shape=var.shape, dtype=dtype, chunks=chunks,
                            fill_value=fill_value, attributes=attrs, config=config or None,
                            overwrite=overwrite, **enc)
    return var.data, arr


def write_data(pending, compute=True, store_kwargs=None):
    """Write every ``(data, array, region)``: numpy at once, dask arrays in one
    ``da.store`` (``compute=False``: its delayed, or None when nothing is lazy)."""
    lazy_sources, lazy_targets, lazy_regions = [], [], []
    for data, arr, region in pending:
        where = region if region is not None else (...,) if arr.shape else ()
        if hasattr(data, "dask"):
            lazy_sources.append(data)
            lazy_targets.append(arr)
            lazy_regions.append(region)
        else:
            arr[where] = np.asarray(data)
    if not lazy_sources:
        return None
    import dask.array as da

    regions = None if all(r is None for r in lazy_regions) else [
        r if r is not None else tuple(slice(None) for _ in t.shape)
        for r, t in zip(lazy_regions, lazy_targets)]
    stored = da.store(lazy_sources, lazy_targets, lock=False, regions=regions,
                      compute=compute, **(store_kwargs or {}))
    return None if compute else stored
