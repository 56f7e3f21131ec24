"""``create_hierarchy``'s writing half: the metadata documents of ``{path: metadata}``
written to a store, missing ancestors created as groups. Shared by
``zarrhpc.create_hierarchy`` (paths from the store's root) and ``Group.create_hierarchy``
(paths below the group), which open the nodes it names."""

from __future__ import annotations

import json

import numpy as np

from zarrhpc.core._create_args import _prepare_path
from zarrhpc.core.formats import read_node as read_any
from zarrhpc.errors import ContainsArrayError, ContainsGroupError


def write_hierarchy(store, nodes: dict, overwrite: bool):
    """Write each node of ``nodes`` (metadata objects, ours or zarr-python's, or metadata
    dicts), shallowest first; yield the path of every node created, each missing ancestor
    just before the node below it (as zarr-python yields them)."""
    wanted = {p.strip("/") for p in nodes}
    seen: set[str] = set()
    for path in sorted(nodes, key=lambda p: p.count("/")):
        md = nodes[path]
        doc = md if isinstance(md, dict) else (md.to_dict() if hasattr(md, "to_dict") else None)
        if doc is None:
            raise TypeError(f"create_hierarchy: {path!r}: expected metadata, got {md!r}")
        doc = json.loads(json.dumps(doc, default=_json_default))
        path = path.strip("/")
        existing = read_any(store, path)
        if existing is not None and not overwrite:
            cls = ContainsArrayError if existing.node_type == "array" else ContainsGroupError
            raise cls(f"{path or '/'}: a node already exists in {store!r}")
        parts = path.split("/") if path else []
        ancestors = ["/".join(parts[:i]) for i in range(len(parts))]
        missing = [a for a in ancestors if a not in wanted and a not in seen
                   and read_any(store, a) is None]
        seen.update(ancestors)
        _write_doc(store, path, doc, overwrite)  # creates the missing ancestors
        yield from missing
        yield path


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, set)):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value"):
        return value.value
    raise TypeError(f"{value!r} is not JSON")


def _write_doc(store, path: str, doc: dict, overwrite: bool) -> None:
    fmt = doc.get("zarr_format", 3)
    _prepare_path(store, path, overwrite, fmt)
    if fmt == 3:
        key = f"{path}/zarr.json" if path else "zarr.json"
        store.set(key, json.dumps(doc, indent=2).encode())
        return
    attrs = doc.pop("attributes", None)
    kind = ".zgroup" if doc.get("node_type") == "group" or "shape" not in doc else ".zarray"
    doc.pop("node_type", None)
    prefix = f"{path}/" if path else ""
    store.set(prefix + kind, json.dumps(doc, indent=2).encode())
    if attrs:
        store.set(prefix + ".zattrs", json.dumps(attrs, indent=2).encode())
