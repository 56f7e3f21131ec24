"""zarr-python 3's convenience functions: ``create``, ``zeros``/``ones``/``full``/``empty``
and their ``_like`` forms, ``array``, ``from_array``, ``group``, ``save``/``load``,
``copy``/``copy_all``, ``tree`` and ``create_hierarchy``.

Each is a thin layer over ``create_array``/``open_*`` with zarr-python's names, arguments and
defaults: ``create`` (zarr-python 2's signature, kept by 3) defaults to mode "a", dtype
float64 and automatic chunks; the ``_like`` functions take shape, chunks, dtype, fill value
and codecs from an Array (any array-like gives its shape, dtype and chunks if it has them).
"""

from __future__ import annotations

import numpy as np

from zarrhpc.core._create import (  # create, from_array and _like_args: re-exported
    _like_args,
    create,
    create_array,
    from_array,
)
from zarrhpc.core._create_args import format_of
from zarrhpc.core._hierarchy import write_hierarchy
from zarrhpc.core._nodes import resolve_store_path
from zarrhpc.core.api import create_group, open, open_array, open_group
from zarrhpc.core.array import Array
from zarrhpc.core.group import Group, ndarray_like
from zarrhpc.errors import UnsupportedError

__all__ = ["array", "copy", "copy_all", "copy_store", "create", "create_hierarchy", "empty", "empty_like",
           "from_array", "full", "full_like", "group", "load", "ones", "ones_like",
           "open_like", "save", "save_array", "save_group", "tree", "zeros", "zeros_like"]

def empty(shape, **kwargs) -> Array:
    """An array with no chunks written (reads give the fill value)."""
    return create(shape=shape, **kwargs)


def zeros(shape, **kwargs) -> Array:
    """An array of zeros (fill value 0)."""
    return create(shape=shape, fill_value=0, **kwargs)


def ones(shape, **kwargs) -> Array:
    """An array of ones (fill value 1)."""
    return create(shape=shape, fill_value=1, **kwargs)


def full(shape, fill_value, **kwargs) -> Array:
    """An array filled with ``fill_value``."""
    return create(shape=shape, fill_value=fill_value, **kwargs)


def empty_like(a, **kwargs) -> Array:
    return empty(**{**_like_args(a), **kwargs})


def zeros_like(a, **kwargs) -> Array:
    like = _like_args(a)
    like.pop("fill_value", None)
    return zeros(**{**like, **kwargs})


def ones_like(a, **kwargs) -> Array:
    like = _like_args(a)
    like.pop("fill_value", None)
    return ones(**{**like, **kwargs})


def full_like(a, **kwargs) -> Array:
    return full(**{**_like_args(a), **kwargs})


def open_like(a, path, **kwargs) -> Array:
    """Open an array shaped like ``a`` at ``path`` of an in-memory store (or ``store=``);
    as zarr-python's, it is created only when a creating ``mode`` is given."""
    return open_array(path=path, **{**_like_args(a), **kwargs})


def array(data, **kwargs) -> Array:
    """An array holding a copy of ``data`` (keywords as ``create``)."""
    if isinstance(data, Array):
        return from_array(kwargs.pop("store", None), data=data, **kwargs)
    if not hasattr(data, "shape") or not hasattr(data, "dtype"):
        data = np.asanyarray(data)
    if kwargs.get("dtype") is None:
        kwargs["dtype"] = data.dtype
    kwargs["shape"] = data.shape
    if kwargs.get("chunks") is None:
        chunks = getattr(data, "chunks", None)
        if isinstance(chunks, tuple) and len(chunks) == len(data.shape) and \
                all(isinstance(c, (int, np.integer)) for c in chunks):
            kwargs["chunks"] = chunks
    if kwargs.pop("read_only", False):
        raise ValueError("read_only=True is no longer supported when creating new arrays")
    z = create(**kwargs)
    z[...] = data
    return z


def group(store=None, *, overwrite=False, chunk_store=None, cache_attrs=None,
          synchronizer=None, path=None, zarr_format=None, meta_array=None, attributes=None,
          storage_options=None, zarr_version=None) -> Group:
    """Open or create a group (mode "a"; "w" with ``overwrite=True``)."""
    return open_group(store, mode="w" if overwrite else "a", path=path,
                      zarr_format=format_of(zarr_version, zarr_format), attributes=attributes,
                      storage_options=storage_options)


def save_array(store, arr, *, zarr_format=None, path=None, storage_options=None,
               zarr_version=None, **kwargs) -> None:
    """Save one numpy array at ``path``, as zarr-python: ``mode`` (default "a") "w"
    replaces a node there, other modes refuse one (``ContainsArrayError``); the other
    keywords go to :func:`create_array` (``chunks``, ``compressors``...)."""
    if not ndarray_like(arr):
        raise TypeError("arr argument must be numpy or other NDArrayLike array")
    zarr_format = format_of(zarr_version, zarr_format)
    mode = kwargs.pop("mode", "a")
    overwrite = kwargs.pop("overwrite", None) or mode == "w"
    create_array(store, name=path, data=np.asanyarray(arr), zarr_format=zarr_format,
                 overwrite=overwrite, storage_options=storage_options, **kwargs)


def save_group(store, *args, zarr_format=None, path=None, storage_options=None,
               zarr_version=None, **kwargs) -> None:
    """Save several arrays in a group: positional ones as ``arr_0``..., keywords by name
    (each a numpy or NDArrayLike array: a keyword such as ``mode=`` is refused, as in
    zarr-python, rather than saved as an array)."""
    for arg in args:
        if not ndarray_like(arg):
            raise TypeError("All arguments must be numpy or other NDArrayLike arrays "
                            "(except store, path, storage_options, and zarr_format)")
    for name, value in kwargs.items():
        if not ndarray_like(value):
            raise TypeError(f"Keyword argument '{name}' must be a numpy or other NDArrayLike "
                            f"array")
    if not args and not kwargs:
        raise ValueError("at least one array must be provided")
    zarr_format = format_of(zarr_version, zarr_format)
    store, path = resolve_store_path(store, path, "w", storage_options)
    g = create_group(store, path=path, zarr_format=zarr_format, overwrite=True)
    for i, arr in enumerate(args):
        g.create_array(f"arr_{i}", data=np.asanyarray(arr))
    for name, arr in kwargs.items():
        g.create_array(name, data=np.asanyarray(arr))


def save(store, *args, zarr_format=None, path=None, zarr_version=None, **kwargs) -> None:
    """``save_array`` for one positional array, else ``save_group``."""
    if len(args) == 0 and len(kwargs) == 0:
        raise ValueError("at least one array must be provided")
    zarr_format = format_of(zarr_version, zarr_format)
    if len(args) == 1 and not kwargs:
        save_array(store, args[0], zarr_format=zarr_format, path=path)
    else:
        save_group(store, *args, zarr_format=zarr_format, path=path, **kwargs)


def load(store, path=None, zarr_format=None, zarr_version=None):
    """The array at ``path`` as numpy, or for a group a lazy ``{name: Array}`` mapping."""
    node = open(store, path=path, mode="r", zarr_format=format_of(zarr_version, zarr_format))
    if isinstance(node, Array):
        return node[...]
    return _LazyLoader(node)


class _LazyLoader(dict):
    """``load`` of a group: arrays read on access (as zarr-python's LazyLoader)."""

    def __init__(self, grp: Group):
        super().__init__((name, a) for name, a in grp.arrays())

    def __getitem__(self, key):
        return super().__getitem__(key)[...]

    def values(self):
        return [self[k] for k in self]

    def items(self):
        return [(k, self[k]) for k in self]


def copy(*args, **kwargs):
    """Not in zarr-python 3 either: it raises NotImplementedError there too."""
    raise UnsupportedError("copy: not implemented (as in zarr-python 3); use zarrhpc.convert "
                           "or from_array")


def copy_all(*args, **kwargs):
    """Not in zarr-python 3 either: it raises NotImplementedError there too."""
    raise UnsupportedError("copy_all: not implemented (as in zarr-python 3); use "
                           "zarrhpc.convert")


def copy_store(*args, **kwargs):
    """Not in zarr-python 3 either: it raises NotImplementedError there too."""
    raise UnsupportedError("copy_store: not implemented (as in zarr-python 3); use "
                           "zarrhpc.convert")


def tree(grp: Group, expand=None, level=None):
    """The hierarchy below ``grp`` as text; deprecated as in zarr-python 3 (with its
    ZarrDeprecationWarning): use ``grp.tree()``."""
    import warnings

    from zarrhpc.errors import ZarrDeprecationWarning

    warnings.warn("Use Group.tree instead.", ZarrDeprecationWarning, stacklevel=2)
    return grp.tree(expand=expand, level=level)


def create_hierarchy(*, store, nodes: dict, overwrite=False):
    """Create the arrays and groups ``{path: metadata}`` and yield ``(path, node)``.

    ``nodes`` values are metadata (ours, or zarr-python's with ``to_dict()``) or plain
    metadata dicts; missing ancestors become groups, yielded too (as zarr-python does).
    """
    from zarrhpc.core._nodes import resolve_store
    from zarrhpc.core.group import open_node

    store = resolve_store(store, "w")
    for path in write_hierarchy(store, nodes, overwrite):
        yield path, open_node(store, path, read_only=False)
