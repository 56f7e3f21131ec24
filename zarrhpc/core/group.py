"""Groups: explicit (with a ``zarr.json``) and implicit (a prefix holding nodes).

A Group is a path in a store plus its metadata (None for an implicit group, which
zarrhpc reads but never writes: new groups are always explicit). Children are found by
listing the store, one directory level at a time; a group opened with consolidated
metadata (v2 ``.zmetadata``, v3 ``consolidated_metadata``) finds them in that instead and
never lists the store. A v2 group's members are the children with a ``.zarray`` or
``.zgroup`` (v2 has no implicit groups).
"""

from __future__ import annotations

from zarrhpc.core._nodes import META, child_path, read_node
from zarrhpc.core.array import Array
from zarrhpc.core.formats import META_NAMES, doc_key, draft_hierarchy, empty_group
from zarrhpc.core.node import Node, NodeInfo
from zarrhpc.errors import NodeNotFoundError
from zarrhpc.metadata import normalize_path

__all__ = ["Group", "open_node"]


def _has_nodes_below(store, path: str) -> bool:
    prefix = f"{path}/" if path else ""
    return any(k.endswith(META) for k in store.list_prefix(prefix))


def _node(store, path: str, md, read_only: bool, consolidated=None, **array_kwargs):
    if md.node_type == "array":
        return Array(store, path, md, read_only=read_only, **array_kwargs)
    return Group(store, path, md, read_only=read_only, consolidated=consolidated)


def open_node(store, path: str, *, read_only: bool, consolidated=None, **array_kwargs):
    """The Array or Group at ``path`` (implicit groups included), or NodeNotFoundError.

    ``consolidated`` (``{path: metadata}``, paths from the store's root) answers instead of
    the store when given.
    """
    if consolidated is not None:
        md = consolidated.get(path)
        if md is None:
            raise NodeNotFoundError(
                f"{doc_key(path)}: no array or group at path {path or '/'!r} in the "
                f"consolidated metadata"
            )
        return _node(store, path, md, read_only, consolidated, **array_kwargs)
    md = read_node(store, path)
    if md is not None:
        return _node(store, path, md, read_only, draft_hierarchy(store, md), **array_kwargs)
    if _has_nodes_below(store, path):
        return Group(store, path, None, read_only=read_only)
    raise NodeNotFoundError(f"{doc_key(path)}: no array or group at path {path or '/'!r}")


class Group(Node):
    """A Zarr v3 group. Create with ``zarrhpc.create_group``/``open_group``."""

    _kind = "group"

    def __init__(self, store, path: str, metadata, *, read_only: bool = False,
                 consolidated: dict | None = None):
        super().__init__(store, path, metadata, read_only)
        self._consolidated = consolidated

    # -- properties -----------------------------------------------------------------
    @property
    def is_implicit(self) -> bool:
        return self._metadata is None or getattr(self._metadata, "implicit", False)

    @property
    def info(self) -> NodeInfo:
        return NodeInfo([
            ("Name", self.name),
            ("Type", "implicit Group" if self.is_implicit else "Group"),
            ("Zarr format", self._format_text),
            ("Read-only", str(self._read_only)),
            ("Store type", type(self._store).__name__),
            ("No. members", str(len(self))),
        ])

    def _empty_metadata(self):
        return empty_group(3)  # writing attrs makes an implicit group explicit

    # -- children -------------------------------------------------------------------
    def _child(self, name: str) -> str:
        rel = normalize_path(name)
        if not rel:
            raise NodeNotFoundError(f"group {self.name!r}: empty member name {name!r}")
        return child_path(self._path, rel)

    def __getitem__(self, name: str):
        return open_node(self._store, self._child(name), read_only=self._read_only,
                         consolidated=self._consolidated)

    def get(self, name: str, default=None):
        try:
            return self[name]
        except NodeNotFoundError:
            return default

    def __contains__(self, name) -> bool:
        return self.get(name) is not None

    def _child_names(self) -> list[str]:
        if self._consolidated is not None:
            prefix = f"{self._path}/" if self._path else ""
            return sorted({p[len(prefix):] for p in self._consolidated
                           if p.startswith(prefix) and p != self._path
                           and "/" not in p[len(prefix):]})
        prefix = f"{self._path}/" if self._path else ""
        v2 = self.zarr_format == 2
        names = []
        for name in self._store.list_dir(prefix):
            if name in META_NAMES:
                continue
            cpath = child_path(self._path, name)
            if v2:
                if any(self._store.exists(f"{cpath}/{m}") for m in META_NAMES[1:]):
                    names.append(name)
            elif self._store.exists(f"{cpath}/{META}") or _has_nodes_below(self._store, cpath):
                names.append(name)
        return sorted(names)

    def members(self, max_depth: int | None = 0) -> tuple:
        """``(name, node)`` pairs of the children, sorted by name.

        ``max_depth=0`` gives the direct children; ``None`` every descendant, named by
        their path relative to this group.
        """
        out = []
        for name in self._child_names():
            node = self[name]
            out.append((name, node))
            if isinstance(node, Group) and (max_depth is None or max_depth > 0):
                sub = node.members(None if max_depth is None else max_depth - 1)
                out.extend((f"{name}/{n}", m) for n, m in sub)
        return tuple(out)

    def keys(self):
        return iter(self._child_names())

    def __iter__(self):
        return self.keys()

    def __len__(self) -> int:
        return len(self._child_names())

    def arrays(self):
        return tuple((n, m) for n, m in self.members() if isinstance(m, Array))

    def groups(self):
        return tuple((n, m) for n, m in self.members() if isinstance(m, Group))

    def array_keys(self):
        return tuple(n for n, _ in self.arrays())

    def group_keys(self):
        return tuple(n for n, _ in self.groups())

    # -- creation ---------------------------------------------------------------------
    def create_array(self, name: str, **kwargs) -> Array:
        """Create an array under this group; keywords as ``zarrhpc.create_array``."""
        from zarrhpc.core.api import create_array

        self._check_writable()
        self._consolidated = None  # now stale: list the store again
        kwargs.setdefault("zarr_format", self.zarr_format)
        return create_array(self._store, name=self._child(name), **kwargs)

    def create_group(self, name: str, **kwargs) -> Group:
        """Create a sub-group; keywords as ``zarrhpc.create_group``."""
        from zarrhpc.core.api import create_group

        self._check_writable()
        self._consolidated = None
        kwargs.setdefault("zarr_format", self.zarr_format)
        return create_group(self._store, path=self._child(name), **kwargs)

    def require_group(self, name: str, **kwargs) -> Group:
        node = self.get(name)
        if isinstance(node, Group):
            return node
        return self.create_group(name, **kwargs)

    def __delitem__(self, name: str) -> None:
        self._check_writable()
        path = self._child(name)
        if name not in self:
            raise NodeNotFoundError(f"group {self.name!r}: no member {name!r}")
        self._consolidated = None
        self._store.erase_prefix(path + "/")

    # -- display --------------------------------------------------------------------
    def tree(self) -> str:
        """The hierarchy below this group as text, one node per line."""
        lines = [self.name if self._path else "/"]

        def walk(group: Group, indent: str) -> None:
            members = group.members()
            for i, (name, node) in enumerate(members):
                last = i == len(members) - 1
                branch = "└── " if last else "├── "
                if isinstance(node, Array):
                    lines.append(f"{indent}{branch}{name} {node.shape} {node.dtype}")
                else:
                    lines.append(f"{indent}{branch}{name}")
                    walk(node, indent + ("    " if last else "│   "))

        walk(self, "")
        return "\n".join(lines)

    def __repr__(self) -> str:
        kind = "implicit Group" if self.is_implicit else "Group"
        return f"<{kind} {type(self._store).__name__} {self.name!r}>"
