"""What arrays and groups share: a path in a store, metadata, attributes, read-only state."""

from __future__ import annotations

from zarrhpc.core.attributes import Attributes
from zarrhpc.core.formats import write_node
from zarrhpc.errors import ReadOnlyError

__all__ = ["Node", "NodeInfo"]


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
        self.__dict__["_metadata_view"] = (md, cons, view)
        return view

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

    def _check_writable(self) -> None:
        if self._read_only:
            # zarr-python's words (its store refuses the write)
            raise ReadOnlyError(
                "store was opened in read-only mode and does not support writing")

    def _empty_metadata(self):
        raise NotImplementedError

    def _set_attributes(self, attributes: dict) -> None:
        self._check_writable()
        md = self._metadata if self._metadata is not None else self._empty_metadata()
        md = md.with_attributes(attributes)
        write_node(self._store, self._path, md, attributes_only=True)
        self._metadata = md

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._store == self._store and other._path == self._path

    __hash__ = object.__hash__
