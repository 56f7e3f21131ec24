"""What arrays and groups share: a path in a store, metadata, attributes, read-only state."""

from __future__ import annotations

import copy
import threading
import weakref

from zarrhpc.core.attributes import Attributes
from zarrhpc.core.formats import write_node
from zarrhpc.errors import ReadOnlyError

__all__ = ["ASYNC_CLASSES", "Node", "NodeInfo", "metadata_lock"]

# zarr-python's asynchronous classes by node kind ("array": AsyncArray, "group":
# AsyncGroup), registered by core/api_async.py when zarrhpc is imported: they wrap Array
# and Group, so the node modules reach them through here, not by importing them
ASYNC_CLASSES: dict[str, type] = {}

_guard = threading.Lock()
_metadata_locks: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def metadata_lock(node) -> threading.RLock:
    """The lock a node holds while it reads, changes and stores its metadata document
    (attribute updates, resize): one thread's change built from the document another is
    replacing would store the older shape or attributes back (threads and the async API's
    gathered calls lost attributes, and a resize's shape, in the store and the handle)."""
    with _guard:
        lock = _metadata_locks.get(node)
        if lock is None:
            lock = _metadata_locks[node] = threading.RLock()
        return lock


class NodeInfo:
    """What ``node.info`` shows: a table of the node's properties. ``fields`` are the same
    values under the names of zarr-python's ``ArrayInfo``/``GroupInfo`` dataclass fields
    (``_zarr_format``, ``_type``...), which libraries built on zarr-python read
    (ome-zarr: ``group.info._zarr_format``)."""

    def __init__(self, rows: list[tuple[str, str]], width: int = 0, fields=None):
        self.rows = rows
        self.width = width  # zarr-python pads every row to its template's widest label
        self.__dict__.update(fields or {})

    def __repr__(self) -> str:
        width = max([self.width] + [len(k) for k, _ in self.rows])
        return "\n".join(f"{k:<{width}} : {v}" for k, v in self.rows)

    __str__ = __repr__


class Node:
    """Base of :class:`Array` and :class:`Group` (not created directly)."""

    _kind = "node"

    def __init__(self, store, path: str, metadata, read_only: bool):
        self._store = store
        self._path = path
        self._metadata = metadata
        # the 2022-draft metadata is read-only (zarrhpc reads that format, never writes it)
        self._read_only = read_only or store.read_only or getattr(metadata, "read_only", False)

    @property
    def metadata(self):
        """The node's metadata as zarr-python 3 shows it (``ArrayV3Metadata``,
        ``GroupMetadata``...; None for an implicit group); see :mod:`zarrhpc.core.metadata`.
        zarrhpc's own document is ``_metadata``."""
        from zarrhpc.core.metadata import node_metadata

        md, cons = self._metadata, getattr(self, "_consolidated", None)
        cached = self.__dict__.get("_metadata_view")
        if cached is not None and cached[0] is md and cached[1] is cons:
            return cached[2]  # built once per document (a change makes a new one)
        view = node_metadata(md, self._path, cons,
                             self.__dict__.get("_without_consolidated", False))
        if hasattr(view, "attributes") and view is not md:
            # one dict: ``metadata.attributes`` is ``attrs``' (zarr-python's are the same
            # object: a change through either shows in the other)
            object.__setattr__(view, "attributes", self._attributes_dict())
        self.__dict__["_metadata_view"] = (md, cons, view)
        return view

    def _attributes_dict(self) -> dict:
        """The node's own attributes dict (``attrs`` and ``metadata.attributes`` read and
        change it). A copy per node: parsed documents are shared by every open of the same
        bytes (core/formats.py), so a caller's change to a value (``attrs["x"].append(...)``,
        as ome-zarr does) must stay with this node, as zarr-python's parse per open does."""
        md = self._metadata
        if md is None:
            return {}  # an implicit group has none
        own = self.__dict__.get("_own_attributes")
        if own is None or own[0] is not md:
            data = copy.deepcopy(md.attributes)
            if own is not None:  # the same dict object follows the node's new document
                own[1].clear()
                own[1].update(data)
                data = own[1]
            own = (md, data)
            self.__dict__["_own_attributes"] = own
        return own[1]

    @property
    def store(self):
        return self._store

    @property
    def path(self) -> str:
        return self._path

    @property
    def name(self) -> str:
        return "/" + self._path

    @property
    def store_path(self):
        """``StorePath(store, path)`` of this node (zarr-python's attribute)."""
        from zarrhpc.storage import StorePath

        return StorePath(self._store, self._path)

    @property
    def basename(self) -> str:
        return self._path.rsplit("/", 1)[-1]

    @property
    def zarr_format(self) -> int:
        """2 or 3 (3 also for an implicit group and for the 2022 draft of v3)."""
        return getattr(self._metadata, "zarr_format", 3)

    @property
    def _format_text(self) -> str:
        """What ``info`` shows as the format: "2", "3" or "3 (2022 draft)"."""
        draft = getattr(self._metadata, "read_only", False)
        return f"{self.zarr_format}{' (2022 draft)' if draft else ''}"

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def attrs(self) -> Attributes:
        return Attributes(self)

    def update_attributes(self, new_attributes: dict):
        """Merge ``new_attributes`` into the attributes (one metadata write); returns self."""
        self.attrs.update(new_attributes)
        return self

    def _as_async(self):
        """This node as zarr-python's AsyncArray/AsyncGroup (the same state)."""
        return ASYNC_CLASSES[self._kind](self)

    def _from_async(self, node) -> None:
        """``Array(async_array)`` / ``Group(async_group)``: take ``node``'s state (the same
        node, synchronous again), as zarr-python's wrappers share theirs."""
        inner = getattr(node, "_node", None)
        if type(node) is not ASYNC_CLASSES.get(self._kind) or not isinstance(inner, type(self)):
            raise TypeError(f"{type(self).__name__}: expected an Async{type(self).__name__} "
                            f"or (store, path, metadata), got {type(node).__name__}")
        # one state, not a copy: a resize or attribute change through either shows in the
        # other (a copy kept the old shape: a write past a shrink was stored, not refused)
        lock = metadata_lock(inner)
        self.__dict__ = inner.__dict__
        with _guard:
            _metadata_locks[self] = lock

    def _check_writable(self) -> None:
        if self._read_only:
            # zarr-python's words (its store refuses the write)
            raise ReadOnlyError(
                "store was opened in read-only mode and does not support writing")

    def _empty_metadata(self):
        raise NotImplementedError

    def _set_attributes(self, attributes) -> None:
        """Store ``attributes`` (a dict, or a function of the current ones giving it)."""
        self._check_writable()
        with metadata_lock(self):
            if callable(attributes):
                attributes = attributes(self._attributes_dict())
            md = self._metadata if self._metadata is not None else self._empty_metadata()
            md = md.with_attributes(attributes)
            write_node(self._store, self._path, md, attributes_only=True)
            self._metadata = md
            self._attributes_dict()  # the dict views already handed out hold follows now

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._store == self._store and other._path == self._path

    __hash__ = object.__hash__
