"""``dask.array.from_zarr`` / ``to_zarr`` for zarrhpc: dask's own two functions only know
zarr-python's ``zarr.Array``, so these take zarrhpc Arrays, paths and URLs with dask's
arguments and meaning.

Life cycle: :func:`from_zarr` opens the array (or takes an open one) and hands it to
``dask.array.from_array`` with the Zarr chunks as dask chunks; every task reads its block
through the pickled Array (by reference: store and path), so threads, processes and
``dask.distributed`` workers all read the store directly. :func:`to_zarr` creates the array
from the dask array's shape, dtype and chunks (or takes an existing Array, optionally with a
``region``), rechunks the dask array so that no two tasks write into one Zarr chunk (one
shard when sharded) and stores it with ``dask.array.store`` without a lock. An in-memory
store cannot be written from ``dask.distributed`` workers (each would write its own copy):
refused, as dask refuses it.
"""

from __future__ import annotations

import os
import warnings

import numpy as np

import zarrhpc
from zarrhpc.core.array import Array

__all__ = ["from_zarr", "to_zarr"]


def from_zarr(url, component=None, storage_options=None, chunks=None, name=None,
              inline_array=False, **kwargs):
    """A dask array over a Zarr array read by zarrhpc (arguments as
    ``dask.array.from_zarr``).

    Parameters
    ----------
    url : zarrhpc.Array, path, URL or store
        The array, or where it is (``component``: its path inside the store).
    component : str, optional
    storage_options : dict, optional
        For URLs (``s3://...``).
    chunks : optional
        dask chunks; default: the Zarr chunks.
    name : str, optional
        The dask name; default: from a token of the array and the arguments.
    inline_array : bool
        As ``dask.array.from_array``.
    **kwargs
        Passed to ``zarrhpc.open_array``.

    Returns
    -------
    dask.array.Array
    """
    import dask.array as da
    from dask.base import tokenize

    if isinstance(url, Array):
        z = url
    else:
        if isinstance(url, os.PathLike):
            url = os.fspath(url)
        kwargs.setdefault("mode", "r")
        z = zarrhpc.open_array(url, path=component, storage_options=storage_options,
                               **kwargs)
    chunks = chunks if chunks is not None else z.chunks
    if name is None:
        name = "from-zarrhpc-" + tokenize(z, component, storage_options, chunks, **kwargs)
    return da.from_array(z, chunks, name=name, inline_array=inline_array)


# dask's ``zarr_read_kwargs`` (how the store is opened); any other keyword given loose
# is an array argument, as dask < 2025.12 passed its ``**kwargs`` to ``zarr.create``
_READ_KWARGS = ("mode", "read_only")


def to_zarr(arr, url, component=None, storage_options=None, region=None, compute=True,
            return_stored=False, zarr_array_kwargs=None, zarr_read_kwargs=None, **kwargs):
    """Store a dask array as a Zarr array through zarrhpc (arguments as
    ``dask.array.to_zarr``, dask >= 2025.12 and earlier).

    Parameters
    ----------
    arr : dask.array.Array
    url : zarrhpc.Array, path, URL or store
        An existing Array (written in place, ``region`` allowed), or where to create one.
    component : str, optional
        The new array's path inside the store.
    storage_options : dict, optional
    region : tuple of slices, optional
        Where in an existing Array ``arr`` goes.
    compute, return_stored : bool
        As ``dask.array.store``.
    zarr_array_kwargs : dict, optional
        Passed to ``zarrhpc.create_array`` (``chunks``, ``shards``, ``compressors``,
        ``dimension_names``...; ``name`` when no ``component``).
    zarr_read_kwargs : dict, optional
        How the store is opened: ``mode`` ("a"; "w" replaces an existing array; "r" is
        refused) or ``read_only``.
    **kwargs
        ``mode``/``read_only`` as in ``zarr_read_kwargs``, anything else as in
        ``zarr_array_kwargs`` (the dicts win).

    Returns
    -------
    None, dask.delayed.Delayed or dask arrays
        As ``dask.array.store``.
    """
    if np.isnan(arr.shape).any():
        raise ValueError("Saving a dask array with unknown chunk sizes is not supported by "
                         "Zarr; compute the chunk sizes first (arr.compute_chunk_sizes())")
    create = dict(zarr_array_kwargs or {})
    if component is not None and "name" in create:  # dask's check and words
        raise ValueError("Cannot specify both 'component' and 'name' in zarr_array_kwargs. "
                         "Please use 'name' in zarr_array_kwargs")
    read = dict(zarr_read_kwargs or {})
    for key, value in kwargs.items():
        (read if key in _READ_KWARGS else create).setdefault(key, value)
    unknown = sorted(set(read) - set(_READ_KWARGS))
    if unknown:
        raise TypeError(f"to_zarr: zarr_read_kwargs {unknown} not understood "
                        f"(expected {list(_READ_KWARGS)})")
    mode = read.get("mode", "a")
    if isinstance(url, Array):
        return _write_existing(arr, url, region, compute, return_stored)
    if region is not None:
        raise ValueError("Cannot use `region` keyword when url is not a `zarr.Array`.")
    if read.get("read_only", mode == "r"):
        raise ValueError("Cannot use mode `r` (read-only) when writing to zarr.")
    if any(len(set(c[:-1])) > 1 or (len(c) > 1 and c[-1] > c[0]) for c in arr.chunks):
        warnings.warn("The array uses irregular chunk sizes. Rechunking to regular "
                      "(uniform) chunks to ensure the data can be written safely.",
                      UserWarning, stacklevel=2)
        arr = arr.rechunk(tuple(map(max, arr.chunks)))
    if isinstance(url, os.PathLike):
        url = os.fspath(url)
    create.setdefault("shape", arr.shape)
    create.setdefault("chunks", tuple(max(c[0], 1) for c in arr.chunks))
    create.setdefault("dtype", arr.dtype)
    name = component or create.pop("name", None)
    if mode == "w":
        create["overwrite"] = True
    z = zarrhpc.create_array(url, name=name, storage_options=storage_options, **create)
    return _write_existing(arr, z, None, compute, return_stored)


def _write_existing(arr, z, region, compute, return_stored):
    """Store ``arr`` into ``z``, first rechunked onto ``z``'s write chunks (shards, else
    chunks) unless its chunks already fall on them."""
    from dask.array.core import normalize_chunks
    from dask.array.slicing import new_blockdim, normalize_index

    from zarrhpc.storage.memory import MemoryStore

    if isinstance(z.store, MemoryStore):
        try:
            from distributed import default_client

            default_client()
        except (ImportError, ValueError):
            pass
        else:
            raise RuntimeError("Cannot store into in memory Zarr Array using the "
                               "distributed scheduler.")
    write_chunks = tuple(z.shards or z.chunks)
    index = normalize_index(region, z.shape) if region is not None else None
    if index is None:
        aligned = _aligned(arr.chunks, write_chunks, [0] * z.ndim)
    else:  # an integer in the region drops an axis: rechunked as before
        aligned = all(isinstance(r, slice) for r in index) and _aligned(
            arr.chunks, write_chunks, [r.start or 0 for r in index])
    if not aligned:
        auto = normalize_chunks("auto", shape=z.shape, dtype=z.dtype,
                                previous_chunks=write_chunks)
        # dask's size, rounded to whole write chunks: then no two tasks share one
        sizes = tuple(max(w, (a[0] // w) * w) if a else w
                      for a, w in zip(auto, write_chunks))
        chunks = normalize_chunks(sizes, shape=z.shape)
        if index is not None:
            chunks = tuple(tuple(new_blockdim(s, c, r))
                           for s, c, r in zip(z.shape, chunks, index))
        arr = arr.rechunk(chunks)
    return arr.store(
        z, lock=False, regions=[region] if region is not None else None,
        compute=compute, return_stored=return_stored)


def _aligned(chunks, write_chunks, starts) -> bool:
    """Whether every boundary between two dask chunks (the region starting at
    ``starts``) falls on a boundary of the Zarr write chunks: then each write chunk is
    written by one task, and the dask chunks are kept as they are (as dask keeps them)."""
    for blocks, w, edge in zip(chunks, write_chunks, starts):
        for n in blocks[:-1]:
            edge += n
            if edge % w:
                return False
    return True
