"""zarr-python 3's asynchronous node classes, ``AsyncArray`` and ``AsyncGroup``, on zarrhpc's
synchronous engine.

Life cycle: an ``AsyncArray`` wraps one :class:`~zarrhpc.core.array.Array` (an
``AsyncGroup`` one :class:`~zarrhpc.core.group.Group`); they are made by the functions of
``zarrhpc.api.asynchronous``, by ``Array.async_array`` and by the async nodes' own methods,
and ``zarrhpc.Array(async_array)`` / ``zarrhpc.Group(async_group)`` give the synchronous
node back (the same state, as zarr-python's wrappers share theirs). Properties answer at
once from the metadata held (no store access, as zarr-python's); every method that reads or
writes the store runs the synchronous call in a worker thread of the running event loop
(``asyncio.to_thread``), so the loop never blocks: the engine releases the GIL while it
reads, decodes and writes, and several awaited calls (``asyncio.gather``) run at the same
time, except writes to the same array, which wait for each other (`_write`: writes to one
chunk from side by side would lose values). Results and errors are those of the
synchronous call; nodes come back wrapped.

Names, arguments and results follow zarr-python 3.1's classes: ``getitem``/``setitem`` take
basic selections only (integers, slices, ellipsis; ``getitem`` of one element gives a numpy
scalar, as ``get_basic_selection``), ``oindex.getitem``/``vindex.getitem`` the others;
``attrs`` is the node's attribute dict (``node.metadata.attributes``); the member listings
are asynchronous generators (``async for k in group.keys()``).
"""

from __future__ import annotations

import asyncio
import threading
import weakref

from zarrhpc.core.array import Array
from zarrhpc.core.group import Group
from zarrhpc.core.node import ASYNC_CLASSES

__all__ = ["AsyncArray", "AsyncGroup", "run_sync", "unwrap", "wrap"]


def wrap(value):
    """An Array or Group as its asynchronous counterpart (tuples of nodes and
    ``(name, node)`` pairs too); anything else unchanged."""
    if isinstance(value, Array):
        return AsyncArray(value)
    if isinstance(value, Group):
        return AsyncGroup(value)
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    return value


def unwrap(value):
    """The synchronous node of an AsyncArray/AsyncGroup (what the synchronous API takes)."""
    if isinstance(value, (AsyncArray, AsyncGroup)):
        return value._node
    return value


_guard = threading.Lock()
_write_locks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_write_locks_by_id: dict = {}  # stores that cannot be weakly referenced or hashed


def _write_lock(node) -> threading.Lock:
    """The lock that orders the awaited writes to one array (its store and path)."""
    store = node.store
    with _guard:
        try:
            per_store = _write_locks.setdefault(store, {})
        except TypeError:
            per_store = _write_locks_by_id.setdefault(id(store), {})
        return per_store.setdefault(node.path, threading.Lock())


async def _write(node, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, a write to ``node``, in a worker thread, one at a time per
    array. Writes that cover part of a chunk read, merge and store it again: run side by
    side (``asyncio.gather`` of ``setitem`` calls, the async API's natural use) they lose
    each other's values, in zarr-python as well (a gather of 200 one-element writes to one
    chunk kept about 1 of them there); so the awaited writes of an array wait for each other.
    Each write still runs on the engine's threads; reads are not ordered."""
    lock = _write_lock(node)

    def locked():
        with lock:
            return fn(*args, **kwargs)

    return await asyncio.to_thread(locked)


async def run_sync(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a worker thread of the running loop; nodes in the
    arguments unwrapped, in the result wrapped."""
    args = tuple(unwrap(a) for a in args)
    kwargs = {k: unwrap(v) for k, v in kwargs.items()}
    return wrap(await asyncio.to_thread(fn, *args, **kwargs))


class _AsyncNode:
    """What AsyncArray and AsyncGroup share: the wrapped node's names and metadata."""

    _cls: type = object

    def __init__(self, node=None, *, metadata=None, store_path=None, config=None) -> None:
        if node is None and metadata is not None and store_path is not None:
            node = self._from_metadata(metadata, store_path, config)
        if not isinstance(node, self._cls):
            raise TypeError(f"{type(self).__name__}: expected a zarrhpc {self._cls.__name__}, "
                            f"got {type(node).__name__} (open one with "
                            f"zarrhpc.api.asynchronous)")
        self._node = node

    def _from_metadata(self, metadata, store_path, config):
        """zarr-python's ``AsyncGroup(metadata=..., store_path=...)`` form: a node over
        ``metadata`` (a :mod:`zarrhpc.core.metadata` view) at ``store_path``; nothing is
        written, as in zarr-python. ``metadata`` is the node's own from then on."""
        doc = getattr(metadata, "_document", None)
        if doc is None or getattr(doc, "node_type", None) != self._cls._kind:
            raise TypeError(f"{type(self).__name__}: metadata must be zarr-python's "
                            f"{self._cls._kind} metadata, got {type(metadata).__name__}")
        kwargs = {}
        if config is not None and self._cls is Array:
            from zarrhpc.core.array_spec import ArrayConfig

            config = config if isinstance(config, ArrayConfig) else ArrayConfig(**dict(config))
            kwargs = {"write_empty_chunks": config.write_empty_chunks, "order": config.order}
        node = self._cls(store_path.store, store_path.path, doc, **kwargs)
        node.__dict__["_metadata_view"] = (doc, getattr(node, "_consolidated", None), metadata)
        if isinstance(getattr(metadata, "attributes", None), dict):
            node.__dict__["_own_attributes"] = (doc, metadata.attributes)
        return node

    store = property(lambda self: self._node.store)
    store_path = property(lambda self: self._node.store_path)
    path = property(lambda self: self._node.path)
    name = property(lambda self: self._node.name)
    basename = property(lambda self: self._node.basename)
    read_only = property(lambda self: self._node.read_only)
    metadata = property(lambda self: self._node.metadata)
    info = property(lambda self: self._node.info)

    @property
    def attrs(self) -> dict:
        """The attributes as a dict (zarr-python's ``AsyncArray.attrs``): the same dict as
        ``metadata.attributes``; ``update_attributes`` stores changes."""
        return self._node.metadata.attributes

    async def update_attributes(self, new_attributes: dict):
        """Merge ``new_attributes`` into the stored attributes; returns this node."""
        await asyncio.to_thread(self._node.update_attributes, new_attributes)
        return self

    async def info_complete(self):
        """``info`` plus what needs the store listed (runs off the event loop)."""
        return await asyncio.to_thread(self._node.info_complete)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._node == self._node

    __hash__ = object.__hash__

    def __reduce__(self):
        return (type(self), (self._node,))


class _AsyncIndex:
    """``async_array.oindex`` / ``.vindex``: ``await ....getitem(selection)``."""

    def __init__(self, node, index) -> None:
        self._node, self._index = node, index

    async def getitem(self, selection):
        return await asyncio.to_thread(self._index.__getitem__, selection)

    async def setitem(self, selection, value) -> None:
        await _write(self._node, self._index.__setitem__, selection, value)


class AsyncArray(_AsyncNode):
    """zarr-python's ``AsyncArray``: a Zarr array whose reads and writes are awaited.

    Parameters
    ----------
    array : Array
        The synchronous array it wraps (``zarrhpc.Array.async_array`` makes one;
        ``zarrhpc.Array(async_array)`` gives it back).

    Examples
    --------
    >>> import asyncio, zarrhpc
    >>> async def main():
    ...     a = await zarrhpc.api.asynchronous.create_array({}, shape=(4,), dtype="i4")
    ...     await a.setitem(slice(None), 7)
    ...     return await a.getitem(slice(1, 3))
    >>> asyncio.run(main())
    array([7, 7], dtype=int32)
    """

    _cls = Array

    shape = property(lambda self: self._node.shape)
    dtype = property(lambda self: self._node.dtype)
    chunks = property(lambda self: self._node.chunks)
    shards = property(lambda self: self._node.shards)
    ndim = property(lambda self: self._node.ndim)
    size = property(lambda self: self._node.size)
    nbytes = property(lambda self: self._node.nbytes)
    nchunks = property(lambda self: self._node.nchunks)
    cdata_shape = property(lambda self: self._node.cdata_shape)
    order = property(lambda self: self._node.order)
    filters = property(lambda self: self._node.filters)
    serializer = property(lambda self: self._node.serializer)
    compressors = property(lambda self: self._node.compressors)
    compressor = property(lambda self: self._node.compressor)
    config = property(lambda self: self._node.config)

    @property
    def oindex(self) -> _AsyncIndex:
        """Orthogonal selections: ``await a.oindex.getitem(([0, 2], slice(None)))``."""
        return _AsyncIndex(self._node, self._node.oindex)

    @property
    def vindex(self) -> _AsyncIndex:
        """Point and mask selections: ``await a.vindex.getitem(([0, 2], [1, 3]))``."""
        return _AsyncIndex(self._node, self._node.vindex)

    @classmethod
    async def open(cls, store, zarr_format: int | None = None) -> AsyncArray:
        """The array at ``store`` (a store, a path or a StorePath), opened off the loop
        (``zarr_format``: only that format)."""
        from zarrhpc.core.api import open_array

        if zarr_format is None:
            return await run_sync(Array.open, store)
        return await run_sync(open_array, store, mode="r" if _read_only(store) else "r+",
                              zarr_format=zarr_format)

    @classmethod
    def from_dict(cls, store_path, data: dict) -> AsyncArray:
        """An AsyncArray over zarr-python's dict form of array metadata at ``store_path``
        (nothing is written), as ``Array.from_dict``."""
        return cls(Array.from_dict(store_path, data))

    @classmethod
    async def create(cls, store, **kwargs) -> AsyncArray:
        """Deprecated in zarr-python (with its warning): ``zarr.api.asynchronous.create``'s
        arguments (``shape``, ``dtype``, ``chunk_shape``, ``codecs``...) at ``store``."""
        import warnings

        from zarrhpc.core.convenience import create
        from zarrhpc.errors import ZarrDeprecationWarning

        warnings.warn("Use zarr.api.asynchronous.create_array instead.",
                      ZarrDeprecationWarning, stacklevel=2)
        return await run_sync(create, store=store, **kwargs)

    async def getitem(self, selection, *, prototype=None):
        """A basic selection (integers, slices, ellipsis), as ``get_basic_selection``."""
        return await asyncio.to_thread(self._node.get_basic_selection, selection)

    async def setitem(self, selection, value, prototype=None) -> None:
        """Store ``value`` at a basic selection, as ``set_basic_selection``."""
        await _write(self._node, self._node.set_basic_selection, selection, value)

    async def get_orthogonal_selection(self, selection, *, out=None, fields=None,
                                       prototype=None):
        return await asyncio.to_thread(self._node.get_orthogonal_selection, selection,
                                       out=out, fields=fields)

    async def get_coordinate_selection(self, selection, *, out=None, fields=None,
                                       prototype=None):
        return await asyncio.to_thread(self._node.get_coordinate_selection, selection,
                                       out=out, fields=fields)

    async def get_mask_selection(self, mask, *, out=None, fields=None, prototype=None):
        return await asyncio.to_thread(self._node.get_mask_selection, mask, out=out,
                                       fields=fields)

    async def resize(self, new_shape, delete_outside_chunks: bool = True) -> None:
        """Change the shape; chunks wholly outside the new shape are erased unless
        ``delete_outside_chunks`` is false (then they stay, as in zarr-python: growing
        again shows their old values)."""
        await _write(self._node, self._node._resize, new_shape, delete_outside_chunks)

    async def append(self, data, axis: int = 0) -> tuple[int, ...]:
        """Grow ``axis`` by ``data``'s extent and store it there; the new shape."""
        return await _write(self._node, self._node.append, data, axis)

    async def nchunks_initialized(self) -> int:
        """How many chunks are stored (listed off the loop)."""
        return await asyncio.to_thread(lambda: self._node.nchunks_initialized)

    async def nbytes_stored(self) -> int:
        return await asyncio.to_thread(self._node.nbytes_stored)

    def with_config(self, config) -> AsyncArray:
        return AsyncArray(self._node.with_config(config))

    def __repr__(self) -> str:
        return "<Async" + repr(self._node)[1:]


class AsyncGroup(_AsyncNode):
    """zarr-python's ``AsyncGroup``: a Zarr group whose store accesses are awaited; its
    member listings are asynchronous generators (``async for name in g.keys()``).

    Parameters
    ----------
    group : Group
        The synchronous group it wraps (``zarrhpc.Group(async_group)`` gives it back).
    """

    _cls = Group

    synchronizer = None

    @classmethod
    async def from_store(cls, store, *, attributes: dict | None = None,
                         overwrite: bool = False, zarr_format: int = 3) -> AsyncGroup:
        """A new group at ``store``'s root (``overwrite`` replaces a node there)."""
        return await run_sync(Group.from_store, store, attributes=attributes,
                              overwrite=overwrite, zarr_format=zarr_format)

    @classmethod
    def from_dict(cls, store_path, data: dict) -> AsyncGroup:
        """An AsyncGroup over zarr-python's dict form of group metadata at ``store_path``
        (nothing is written)."""
        from zarrhpc.core.metadata import GroupMetadata

        return cls(metadata=GroupMetadata.from_dict(data), store_path=store_path)

    @classmethod
    async def open(cls, store, zarr_format: int | None = 3,
                   use_consolidated: bool | str | None = None) -> AsyncGroup:
        """The existing group at ``store``'s root, opened off the loop (with
        ``use_consolidated``, as ``open_group``)."""
        if use_consolidated is None:
            return await run_sync(Group.open, store, zarr_format)
        from zarrhpc.core.api import open_group

        return await run_sync(open_group, store, mode="r", zarr_format=zarr_format,
                              use_consolidated=use_consolidated)

    # -- members ------------------------------------------------------------------------
    async def getitem(self, key: str):
        """The member ``key`` (KeyError when there is none)."""
        return await run_sync(self._node.__getitem__, key)

    async def get(self, key: str, default=None):
        return await run_sync(self._node.get, key, default)

    async def contains(self, member: str) -> bool:
        return await asyncio.to_thread(self._node.__contains__, member)

    async def setitem(self, key: str, value) -> None:
        """Store an array-like as a new array ``key``."""
        await asyncio.to_thread(self._node.__setitem__, key, value)

    async def delitem(self, key: str) -> None:
        await asyncio.to_thread(self._node.__delitem__, key)

    async def nmembers(self, max_depth: int | None = 0) -> int:
        return await asyncio.to_thread(self._node.nmembers, max_depth)

    async def _each(self, fn, *args):
        for item in await run_sync(fn, *args):
            yield item

    def members(self, max_depth: int | None = 0, *, use_consolidated_for_children=True):
        """``(name, node)`` of the members, as an asynchronous generator."""
        return self._each(self._node.members, max_depth)

    def keys(self):
        return self._each(lambda: tuple(self._node.keys()))

    def arrays(self):
        return self._each(self._node.arrays)

    def groups(self):
        return self._each(self._node.groups)

    def array_keys(self):
        return self._each(self._node.array_keys)

    def group_keys(self):
        return self._each(self._node.group_keys)

    def array_values(self):
        return self._each(self._node.array_values)

    def group_values(self):
        return self._each(self._node.group_values)

    def create_hierarchy(self, nodes: dict, *, overwrite: bool = False):
        """``(path, node)`` of every node of ``nodes`` created below this group."""
        return self._each(lambda: tuple(self._node.create_hierarchy(nodes, overwrite=overwrite)))

    # -- creating members ---------------------------------------------------------------
    async def create_array(self, name: str, **kwargs) -> AsyncArray:
        return await run_sync(self._node.create_array, name, **kwargs)

    async def create_group(self, name: str, **kwargs) -> AsyncGroup:
        return await run_sync(self._node.create_group, name, **kwargs)

    async def require_group(self, name: str, overwrite: bool = False) -> AsyncGroup:
        return await run_sync(self._node.require_group, name, overwrite=overwrite)

    async def require_groups(self, *names: str) -> tuple:
        return await run_sync(self._node.require_groups, *names)

    async def require_array(self, name: str, *, shape, dtype=None, exact: bool = False,
                            **kwargs) -> AsyncArray:
        return await run_sync(self._node.require_array, name, shape=shape, dtype=dtype,
                              exact=exact, **kwargs)

    async def create_dataset(self, name: str, *, shape, **kwargs) -> AsyncArray:
        return await run_sync(self._node.create_dataset, name, shape=shape, **kwargs)

    async def require_dataset(self, name: str, *, shape, dtype=None, exact: bool = False,
                              **kwargs) -> AsyncArray:
        return await run_sync(self._node.require_dataset, name, shape=shape, dtype=dtype,
                              exact=exact, **kwargs)

    async def empty(self, *, name: str, shape, **kwargs) -> AsyncArray:
        return await run_sync(self._node.empty, name=name, shape=shape, **kwargs)

    async def zeros(self, *, name: str, shape, **kwargs) -> AsyncArray:
        return await run_sync(self._node.zeros, name=name, shape=shape, **kwargs)

    async def ones(self, *, name: str, shape, **kwargs) -> AsyncArray:
        return await run_sync(self._node.ones, name=name, shape=shape, **kwargs)

    async def full(self, *, name: str, shape, fill_value, **kwargs) -> AsyncArray:
        return await run_sync(self._node.full, name=name, shape=shape,
                              fill_value=fill_value, **kwargs)

    async def empty_like(self, *, name: str, data, **kwargs) -> AsyncArray:
        return await run_sync(self._node.empty_like, name=name, data=data, **kwargs)

    async def zeros_like(self, *, name: str, data, **kwargs) -> AsyncArray:
        return await run_sync(self._node.zeros_like, name=name, data=data, **kwargs)

    async def ones_like(self, *, name: str, data, **kwargs) -> AsyncArray:
        return await run_sync(self._node.ones_like, name=name, data=data, **kwargs)

    async def full_like(self, *, name: str, data, **kwargs) -> AsyncArray:
        return await run_sync(self._node.full_like, name=name, data=data, **kwargs)

    async def move(self, source: str, dest: str) -> None:
        await asyncio.to_thread(self._node.move, source, dest)

    async def tree(self, expand=None, level: int | None = None, *, max_nodes: int = 500,
                   plain: bool = False):
        return await asyncio.to_thread(self._node.tree, expand, level, max_nodes=max_nodes,
                                       plain=plain)

    def __repr__(self) -> str:
        return "<Async" + repr(self._node)[1:]


ASYNC_CLASSES.update(array=AsyncArray, group=AsyncGroup)


def _read_only(store) -> bool:
    store = getattr(store, "store", store)  # a StorePath's store
    return bool(getattr(store, "read_only", False))
