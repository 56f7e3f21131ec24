"""Groups: explicit (with a ``zarr.json``) and implicit (a prefix holding nodes).

A Group is a path in a store plus its metadata (None for an implicit group, which
zarrhpc reads but never writes: new groups are always explicit). Children are found by
listing the store, one directory level at a time; a group opened with consolidated
metadata (v2 ``.zmetadata``, v3 ``consolidated_metadata``) finds them in that instead and
never lists the store. A v2 group's members are the children with a ``.zarray`` or
``.zgroup`` (v2 has no implicit groups).
"""

from __future__ import annotations

import warnings

import numpy as np

from zarrhpc.core._info import group_info, node_url
from zarrhpc.core._nodes import META, child_path, read_node, resolve_store_path
from zarrhpc.core.array import Array
from zarrhpc.core.formats import META_NAMES, doc_key, draft_hierarchy, empty_group
from zarrhpc.core.metadata import ConsolidatedMetadata, GroupMetadata
from zarrhpc.core.node import ASYNC_CLASSES, Node, NodeInfo, metadata_lock
from zarrhpc.errors import (
    ContainsArrayError,
    ContainsGroupError,
    GroupNotFoundError,
    NodeNotFoundError,
    NodeTypeValidationError,
    ZarrDeprecationWarning,
    ZarrUserWarning,
)
from zarrhpc.metadata import normalize_path

__all__ = ["ConsolidatedMetadata", "Group", "GroupMetadata", "open_node"]

_V2_GROUP_COMPRESSOR = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}


class TreeRepr(str):
    """``Group.tree()``'s result: the text itself, shown without quotes; Jupyter shows
    its HTML form (``_repr_mimebundle_``, as zarr-python's)."""

    def __new__(cls, text: str, html: str = ""):
        self = super().__new__(cls, text)
        self._html = html
        return self

    def __repr__(self) -> str:
        return str(self)

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs) -> dict:
        style = ("white-space:pre;overflow-x:auto;line-height:normal;font-family:Menlo,"
                 "'DejaVu Sans Mono',consolas,'Courier New',monospace")
        return {"text/plain": str(self),
                "text/html": f'<pre style="{style}">{self._html}</pre>\n'}


def _deprecated(message: str) -> None:
    import warnings

    warnings.warn(message, ZarrDeprecationWarning, stacklevel=3)


def _open_group_ref(store, path: str, read_only: bool) -> Group:
    node = open_node(store, path, read_only=read_only)
    if not isinstance(node, Group):
        raise NodeTypeValidationError(f"{doc_key(path)}: no longer a group in {store!r}")
    return node


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
    raise NodeNotFoundError(
        f"{doc_key(path)}: no array or group at path {path or '/'!r} in {store!r}")



# the members of zarr-python's NDArrayLike protocol: what g[name] = value, save, save_array
# and save_group take as an array (a numpy array or one like it; not a list, nor a zarr Array)
_NDARRAY_LIKE = ("dtype", "ndim", "size", "shape", "__len__", "__getitem__", "__setitem__",
                 "__array__", "reshape", "view", "astype", "fill", "copy", "transpose",
                 "ravel", "all")


def ndarray_like(obj) -> bool:
    """Whether ``obj`` is an array zarr-python's ``save_array`` takes (its NDArrayLike)."""
    return all(hasattr(obj, name) for name in _NDARRAY_LIKE)


class Group(Node):
    """A Zarr v3 group. Create with ``zarrhpc.create_group``/``open_group``."""

    _kind = "group"

    def __init__(self, store, path: str | None = None, metadata=None, *,
                 read_only: bool = False, consolidated: dict | None = None):
        if path is None and metadata is None:
            self._from_async(store)  # zarr-python's Group(async_group)
            return
        super().__init__(store, path, metadata, read_only)
        self._consolidated = consolidated

    # -- properties -----------------------------------------------------------------
    @property
    def is_implicit(self) -> bool:
        return self._metadata is None or getattr(self._metadata, "implicit", False)

    @property
    def info(self) -> NodeInfo:
        """A table of the group's properties, as zarr-python 3 prints it (no store reads):
        with consolidated metadata its members are known, and counted as zarr-python does."""
        counts = None
        if self._consolidated is not None:
            consolidated = self.metadata.consolidated_metadata
            if consolidated is not None:
                kinds = [md.node_type == "group"
                         for md in consolidated.flattened_metadata.values()]
                counts = (len(kinds), kinds.count(False), kinds.count(True))
        return group_info(self._path, self._format_text, self._read_only,
                          type(self._store).__name__, counts=counts)

    def info_complete(self) -> NodeInfo:
        """``info`` with the members, arrays and groups counted at every depth."""
        kinds = [isinstance(m, Group) for _, m in self.members(max_depth=None)]
        return group_info(self._path, self._format_text, self._read_only,
                          type(self._store).__name__,
                          counts=(len(kinds), kinds.count(False), kinds.count(True)))

    def _empty_metadata(self):
        return empty_group(3)  # writing attrs makes an implicit group explicit

    # -- children -------------------------------------------------------------------
    def _child(self, name: str) -> str:
        # "" names the group itself, as in zarr-python (anndata writes its root element
        # at key "" of a group: ``"" in g``, ``g[""]``, ``del g[""]``,
        # ``g.require_group("")``)
        rel = normalize_path(name)
        return child_path(self._path, rel) if rel else self._path

    def __getitem__(self, name: str):
        try:
            return open_node(self._store, self._child(name), read_only=self._read_only,
                             consolidated=self._consolidated)
        except NodeNotFoundError:
            # zarr-python raises KeyError(name): its message is the quoted name
            raise NodeNotFoundError(repr(name)) from None

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
        if max_depth is not None and max_depth < 0:
            raise ValueError(f"max_depth must be None or >= 0. Got '{max_depth}' instead")
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

    def nmembers(self, max_depth: int | None = 0) -> int:
        """How many members ``members(max_depth)`` has."""
        return len(self.members(max_depth))

    def arrays(self):
        return tuple((n, m) for n, m in self.members() if isinstance(m, Array))

    def groups(self):
        return tuple((n, m) for n, m in self.members() if isinstance(m, Group))

    def array_keys(self):
        return tuple(n for n, _ in self.arrays())

    def group_keys(self):
        return tuple(n for n, _ in self.groups())

    def array_values(self):
        return tuple(m for _, m in self.arrays())

    def group_values(self):
        return tuple(m for _, m in self.groups())

    def get_array(self, name: str) -> Array:
        node = self[name]
        if not isinstance(node, Array):
            raise ContainsGroupError(f"{self._child(name)}: a group in {self._store!r}, "
                                     f"expected an array")
        return node

    def get_group(self, name: str) -> Group:
        node = self[name]
        if not isinstance(node, Group):
            raise ContainsArrayError(f"{self._child(name)}: an array in {self._store!r}, "
                                     f"expected a group")
        return node

    @property
    def _async_group(self):
        """This group as zarr-python's ``AsyncGroup`` (zarr-python's attribute name)."""
        return self._as_async()

    async def update_attributes_async(self, new_attributes: dict) -> Group:
        """Store ``new_attributes`` as the group's attributes, off the event loop. As
        zarr-python's (3.1.6 and main): they *replace* the attributes (``update_attributes``
        merges), and the result is a new Group holding them; this handle keeps the ones it
        had."""
        import asyncio

        new = Group.__new__(Group)
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k not in ("_own_attributes", "_metadata_view")})
        await asyncio.to_thread(new.attrs.put, new_attributes)
        return new

    def __reduce__(self):
        # by reference: the store (a MemoryStore carries its contents) and the path
        return (_open_group_ref, (self._store, self._path, self._read_only))

    @classmethod
    def from_store(cls, store, *, attributes: dict | None = None, zarr_format: int = 3,
                   overwrite: bool = False) -> Group:
        """A new group at the root of ``store`` (or a StorePath's path), as zarr-python's
        ``Group.from_store``: ``overwrite`` replaces a node there, else one is an error."""
        from zarrhpc.core._create import create_group_node

        store, path, md = create_group_node(store, zarr_format=zarr_format,
                                            overwrite=overwrite, attributes=attributes)
        return cls(store, path, md)

    @classmethod
    def open(cls, store, zarr_format: int | None = 3) -> Group:
        """The existing group at the root of ``store`` (or a StorePath's path), of format
        ``zarr_format`` (None: either), as zarr-python's ``Group.open``."""
        store, path = resolve_store_path(store, None, "r+")
        md = read_node(store, path)
        if md is None or (zarr_format is not None and md.zarr_format != zarr_format):
            # zarr-python's FileNotFoundError names the store path only
            raise GroupNotFoundError(node_url(store, path))
        node = _node(store, path, md, store.read_only, draft_hierarchy(store, md))
        if not isinstance(node, Group):
            raise NodeTypeValidationError(
                f"{doc_key(path, md)}: an array at path {path or '/'!r} in "
                f"{store!r}, expected a group")
        return node

    # -- creation ---------------------------------------------------------------------
    def create_array(self, name: str, **kwargs) -> Array:
        """Create an array under this group; keywords as ``zarrhpc.create_array``."""
        from zarrhpc.core._create import create_array

        if "zarr_format" in kwargs:  # the group's format, always (zarr-python's TypeError)
            raise TypeError("Group.create_array() got an unexpected keyword argument "
                            "'zarr_format'")
        self._check_writable()
        self._consolidated = None  # now stale: list the store again
        kwargs["zarr_format"] = self.zarr_format
        if kwargs["zarr_format"] == 2 and kwargs.get("compressors", "auto") == "auto" and \
                kwargs.get("compressor", "auto") == "auto":
            # zarr-python 3's Group.create_array defaults v2 arrays to numcodecs' Blosc
            # (its top-level create_array to Zstd): the same bytes as zarr-python writes
            kwargs["compressors"] = dict(_V2_GROUP_COMPRESSOR)
        return create_array(self._store, name=self._child(name), **kwargs)

    def create_group(self, name: str, **kwargs) -> Group:
        """Create a sub-group; keywords as ``zarrhpc.create_group``."""
        from zarrhpc.core._create import create_group_node

        self._check_writable()
        self._consolidated = None
        kwargs.setdefault("zarr_format", self.zarr_format)
        store, path, md = create_group_node(self._store, path=self._child(name), **kwargs)
        return Group(store, path, md)

    def create_hierarchy(self, nodes: dict, *, overwrite: bool = False):
        """Create the arrays and groups ``{path: metadata}`` below this group (paths
        relative to it, leading "/" ignored) and yield ``(path, node)`` for each, missing
        ancestors included, as zarr-python's ``Group.create_hierarchy``."""
        from zarrhpc.core._hierarchy import write_hierarchy

        self._check_writable()
        if any(not key.strip("/") for key in nodes):
            raise ValueError("create_hierarchy: the root of the hierarchy is this group. It is "
                             "an error to use this method to create a root node. Remove the "
                             "root node from the input dict.")
        self._consolidated = None
        prefix = f"{self._path}/" if self._path else ""
        for path in write_hierarchy(self._store, {prefix + k.strip("/"): v
                                                  for k, v in nodes.items()}, overwrite):
            yield path[len(prefix):], open_node(self._store, path, read_only=False)

    def require_group(self, name: str, **kwargs) -> Group:
        """The sub-group ``name``, created if missing (an array there is an error);
        ``overwrite=True`` replaces an existing group by a new empty one, as zarr-python."""
        if kwargs.get("overwrite"):
            return self.create_group(name, **kwargs)
        node = self.get(name)
        if isinstance(node, Group):
            return node
        if node is not None:  # zarr-python's TypeError and words
            raise TypeError(f"Incompatible object (Async{type(node).__name__}) already exists")
        return self.create_group(name, **kwargs)

    def require_groups(self, *names: str) -> tuple:
        return tuple(self.require_group(name) for name in names)

    def require_array(self, name: str, *, shape, dtype=None, exact: bool = False, **kwargs):
        """The array ``name``, created if missing; an existing one must match ``shape``
        and (cast-compatibly, or exactly with ``exact``) ``dtype``, as zarr-python."""
        node = self.get(name)
        if node is None:
            return self.create_array(name, shape=shape, dtype=dtype or "float64", **kwargs)
        if not isinstance(node, Array):
            raise TypeError(f"Incompatible object (Async{type(node).__name__}) already exists")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if shape != node.shape:
            raise TypeError(f"Incompatible shape ({node.shape} vs {shape})")
        dtype = np.dtype("float64" if dtype is None else dtype)
        if (exact and node.dtype != dtype) or not np.can_cast(node.dtype, dtype):
            raise TypeError(f"Incompatible dtype ({node.dtype} vs {dtype})")
        return node

    def create_dataset(self, name: str, **kwargs) -> Array:
        """h5py-style ``create_array``, deprecated as in zarr-python 3 (ZarrDeprecationWarning:
        use ``create_array``). As zarr-python's: ``shape`` is required (TypeError without
        it, ``data`` or not); ``dtype`` defaults to ``data.dtype``; ``data`` is written into
        the new array."""
        _deprecated("Use Group.create_array instead.")
        if "shape" not in kwargs:  # zarr-python's words (its AsyncGroup.create_dataset's)
            raise TypeError("create_dataset() missing 1 required keyword-only argument: "
                            "'shape'")
        data = kwargs.pop("data", None)
        if "dtype" not in kwargs and data is not None:
            kwargs["dtype"] = data.dtype  # as zarr-python: a list needs dtype= too
        arr = self.create_array(name, **kwargs)
        if data is not None:
            arr[slice(None)] = data
        return arr

    def require_dataset(self, name: str, *, shape, **kwargs) -> Array:
        """h5py-style ``require_array``; deprecated as in zarr-python 3."""
        _deprecated("Use Group.require_array instead.")
        return self.require_array(name, shape=shape, **kwargs)

    def array(self, name: str, *, shape, dtype, data=None, compressor=None,
              compressors="auto", **kwargs) -> Array:
        """``create_array`` under zarr-python 2's name; deprecated as in zarr-python 3.
        ``shape`` and ``dtype`` are required; ``data`` is then written into the array.

        As zarr-python 3's: ``compressor`` (zarr-python 2's) defaults to None, which means
        no compression and warns that ``compressor`` is deprecated; ``compressor="auto"``
        gives ``create_array``'s default compressors."""
        _deprecated("Use Group.create_array instead.")
        if not (isinstance(compressor, str) and compressor == "auto"):
            if not (isinstance(compressors, str) and compressors == "auto"):
                raise ValueError("Cannot specify both `compressor` and `compressors`.")
            warnings.warn("The `compressor` argument is deprecated. Use `compressors` "
                          "instead.", ZarrUserWarning, stacklevel=2)
            compressors = () if compressor is None else (compressor,)
        arr = self.create_array(name, shape=shape, dtype=dtype, compressors=compressors,
                                **kwargs)
        if data is not None:
            arr[...] = data
        return arr

    def move(self, source: str, dest: str) -> None:
        """zarr-python's ``Group.move``, which it does not implement either."""
        raise NotImplementedError("Group.move is not implemented (nor in zarr-python 3.1)")

    def create(self, name: str, **kwargs) -> Array:
        """Same as ``create_array`` (zarr-python's alias)."""
        return self.create_array(name, **kwargs)

    def _filled(self, name, shape, fill_value, kwargs):
        kwargs.setdefault("dtype", "float64")
        return self.create_array(name, shape=shape, fill_value=fill_value, **kwargs)

    def empty(self, *, name: str, shape, **kwargs) -> Array:
        kwargs.setdefault("dtype", "float64")
        return self.create_array(name, shape=shape, **kwargs)

    def zeros(self, *, name: str, shape, **kwargs) -> Array:
        return self._filled(name, shape, 0, kwargs)

    def ones(self, *, name: str, shape, **kwargs) -> Array:
        return self._filled(name, shape, 1, kwargs)

    def full(self, *, name: str, shape, fill_value, **kwargs) -> Array:
        return self._filled(name, shape, fill_value, kwargs)

    def _like(self, name, data, fill, kwargs):
        from zarrhpc.core._create import _like_args

        like = _like_args(data)
        like.pop("zarr_format", None)
        for key in ("compressor", "codecs", "filters", "order"):
            like.pop(key, None)
        if fill is not None:
            like["fill_value"] = fill
        return self.create_array(name, **{**like, **kwargs})

    def empty_like(self, *, name: str, data, **kwargs) -> Array:
        return self._like(name, data, None, kwargs)

    def zeros_like(self, *, name: str, data, **kwargs) -> Array:
        return self._like(name, data, 0, kwargs)

    def ones_like(self, *, name: str, data, **kwargs) -> Array:
        return self._like(name, data, 1, kwargs)

    def full_like(self, *, name: str, data, **kwargs) -> Array:
        return self._like(name, data, None, kwargs)

    def __setitem__(self, name: str, value) -> None:
        """``g[name] = ndarray``: a new array holding a copy (replacing what is there).

        As zarr-python's (its ``save_array``), ``value`` is a numpy array or one like it:
        a list, a scalar or a zarr Array is a TypeError (zarr-python's docstring once showed
        an Array there; its main branch shows ``np.array(zarr.zeros(...))``)."""
        if not ndarray_like(value):
            raise TypeError("arr argument must be numpy or other NDArrayLike array")
        self._check_writable()
        self._consolidated = None
        self.create_array(name, data=np.asanyarray(value), overwrite=True)

    def __delitem__(self, name: str) -> None:
        self._check_writable()
        path = self._child(name)  # "": the group and what is below it, as zarr-python
        if name not in self:
            raise NodeNotFoundError(f"group {self.name!r}: no member {name!r}")
        self._store.erase_prefix(path + "/" if path else "")
        with metadata_lock(self):  # deletes side by side: each drops its member
            if path == self._path or self._consolidated is None:
                self._consolidated = None
            else:  # the snapshot this group lists its members from, without the deleted
                self._consolidated = {p: m for p, m in self._consolidated.items()
                                      if p != path and not p.startswith(path + "/")}
            if path != self._path:
                self._forget_consolidated(name)

    def _forget_consolidated(self, name: str) -> None:
        """As zarr-python's ``delitem``: a deleted member leaves the group's consolidated
        metadata too (v3: the group's document is rewritten without it; v2: ``.zmetadata``)."""
        import json
        from dataclasses import replace

        from zarrhpc.core.formats import write_node

        md = self._metadata
        if md is None or getattr(md, "read_only", False):
            return

        def kept(entries: dict, sep: str) -> dict:
            return {k: v for k, v in entries.items()
                    if k != name and not k.startswith(name + sep)}

        if md.zarr_format == 3:
            cons = md.extra.get("consolidated_metadata")
            if isinstance(cons, dict) and isinstance(cons.get("metadata"), dict):
                left = kept(cons["metadata"], "/")
                if len(left) != len(cons["metadata"]):
                    md = replace(md, extra={**md.extra,
                                            "consolidated_metadata": {**cons, "metadata": left}})
                    write_node(self._store, self._path, md)
                    self._metadata = md
        elif md.zarr_format == 2:
            key = f"{self._path}/.zmetadata" if self._path else ".zmetadata"
            raw = self._store.get(key)
            if raw is not None:
                doc = json.loads(raw)
                left = kept(doc.get("metadata", {}), "/")
                if len(left) != len(doc.get("metadata", {})):
                    self._store.set(key, json.dumps({**doc, "metadata": left}, indent=4,
                                                    sort_keys=True).encode("utf-8"))

    # -- display --------------------------------------------------------------------
    def tree(self, expand=None, level: int | None = None, *, max_nodes: int = 500,
             plain: bool = False) -> TreeRepr:
        """The hierarchy below this group, one node per line (``level``: members this many
        levels below the first, as ``members(max_depth=level)``; at most ``max_nodes``
        nodes). Names are bold (ANSI) on a terminal and in the HTML form Jupyter shows,
        unless ``plain``. ``expand`` is not supported (as in zarr-python)."""
        import html
        import sys

        if expand:
            raise NotImplementedError("Group.tree: expand is not supported")
        members = []
        for item in self.members(max_depth=level):
            if len(members) == max_nodes:
                break
            members.append(item)
        truncated = len(members) == max_nodes and self.nmembers(max_depth=level) > max_nodes
        bold = not plain and sys.stdout.isatty()
        b0, b1 = ("\x1b[1m", "\x1b[0m") if bold else ("", "")
        h0, h1 = ("", "") if plain else ("<b>", "</b>")
        children: dict[str, list] = {}
        for key, node in sorted(members, key=lambda kv: kv[0]):
            children.setdefault(key.rpartition("/")[0], []).append((key, node))
        text, markup = [f"{b0}{self.name}{b1}"], [f"{h0}{html.escape(self.name)}{h1}"]

        def walk(parent: str, prefix: str) -> None:
            below = children.get(parent, [])
            for i, (key, node) in enumerate(below):
                last = i == len(below) - 1
                lead = prefix + ("└── " if last else "├── ")
                name = key.rpartition("/")[2]
                info = "" if isinstance(node, Group) else f" {node.shape} {node.dtype}"
                text.append(f"{lead}{b0}{name}{b1}{info}")
                markup.append(f"{lead}{h0}{html.escape(name)}{h1}{html.escape(info)}")
                walk(key, prefix + ("    " if last else "│   "))

        walk("", "")
        note = (f"Truncated at max_nodes={max_nodes}, some nodes and their children may be "
                f"missing\n" if truncated else "")
        return TreeRepr(note + "\n".join(text) + "\n", note + "\n".join(markup) + "\n")

    def __repr__(self) -> str:
        kind = "implicit Group" if self.is_implicit else "Group"
        return f"<{kind} {node_url(self._store, self._path)}>"


def __getattr__(name: str):
    # zarr-python's ``from zarr.core.group import AsyncGroup`` (the class lives in
    # core/api_async.py, which wraps this module's)
    if name == "AsyncGroup":
        return ASYNC_CLASSES["group"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
