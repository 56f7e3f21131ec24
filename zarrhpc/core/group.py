"""Groups: explicit (with a ``zarr.json``) and implicit (a prefix holding nodes).

A Group is a path in a store plus its metadata (None for an implicit group, which
zarrhpc reads but never writes: new groups are always explicit). Children are found by
listing the store, one directory level at a time.
"""

from __future__ import annotations

from zarrhpc.core._nodes import META, child_path, meta_key, read_node
from zarrhpc.core.array import Array
from zarrhpc.core.node import Node, NodeInfo
from zarrhpc.errors import NodeNotFoundError
from zarrhpc.metadata import ArrayMetadataV3, GroupMetadataV3, normalize_path

__all__ = ["Group", "open_node"]


def _has_nodes_below(store, path: str) -> bool:
    prefix = f"{path}/" if path else ""
    return any(k.endswith(META) for k in store.list_prefix(prefix))


def open_node(store, path: str, *, read_only: bool, **array_kwargs):
    """The Array or Group at ``path`` (implicit groups included), or NodeNotFoundError."""
    md = read_node(store, path)
    if isinstance(md, ArrayMetadataV3):
        return Array(store, path, md, read_only=read_only, **array_kwargs)
    if isinstance(md, GroupMetadataV3):
        return Group(store, path, md, read_only=read_only)
    if _has_nodes_below(store, path):
        return Group(store, path, None, read_only=read_only)
    raise NodeNotFoundError(f"{meta_key(path)}: no array or group at path {path or '/'!r}")


class Group(Node):
    """A Zarr v3 group. Create with ``zarrhpc.create_group``/``open_group``."""

    _kind = "group"

    def __init__(self, store, path: str, metadata, *, read_only: bool = False):
        super().__init__(store, path, metadata, read_only)

    # -- properties -----------------------------------------------------------------
    @property
    def is_implicit(self) -> bool:
        return self._metadata is None

    @property
    def info(self) -> NodeInfo:
        return NodeInfo([
            ("Name", self.name),
            ("Type", "implicit Group" if self.is_implicit else "Group"),
            ("Zarr format", "3"),
            ("Read-only", str(self._read_only)),
            ("Store type", type(self._store).__name__),
            ("No. members", str(len(self))),
        ])

    def _empty_metadata(self):
        return GroupMetadataV3()  # writing attrs makes an implicit group explicit

    # -- children -------------------------------------------------------------------
    def _child(self, name: str) -> str:
        rel = normalize_path(name)
        if not rel:
            raise NodeNotFoundError(f"group {self.name!r}: empty member name {name!r}")
        return child_path(self._path, rel)

    def __getitem__(self, name: str):
        return open_node(self._store, self._child(name), read_only=self._read_only)

    def get(self, name: str, default=None):
        try:
            return self[name]
        except NodeNotFoundError:
            return default

    def __contains__(self, name) -> bool:
        return self.get(name) is not None

    def _child_names(self) -> list[str]:
        prefix = f"{self._path}/" if self._path else ""
        names = []
        for name in self._store.list_dir(prefix):
            if name == META:
                continue
            cpath = child_path(self._path, name)
            if self._store.exists(meta_key(cpath)) or _has_nodes_below(self._store, cpath):
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
        return create_array(self._store, name=self._child(name), **kwargs)

    def create_group(self, name: str, **kwargs) -> Group:
        """Create a sub-group; keywords as ``zarrhpc.create_group``."""
        from zarrhpc.core.api import create_group

        self._check_writable()
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
