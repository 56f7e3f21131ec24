"""Opening hierarchies stored by the 2022 draft of Zarr v3 (read-only).

The entry point ``zarr.json`` at the store root names the draft; node documents live
under ``meta/`` and chunks under ``data/`` (see :mod:`zarrhpc.metadata.v3draft`). A
:class:`DraftHierarchy` maps hierarchy paths to their metadata, reading each document
when first asked for and listing ``meta/`` once to find members and implicit groups; a
group of a draft hierarchy uses it in place of the store, as a consolidated group does.
"""

from __future__ import annotations

import threading

from zarrhpc.metadata.v3draft import (
    ArrayMetadataV3Draft,
    DraftLayout,
    GroupMetadataV3Draft,
    parse_entry_point,
)

__all__ = ["DraftHierarchy", "read_draft_node"]


class DraftHierarchy:
    """``{path: metadata}`` of a draft hierarchy, read lazily from its store."""

    def __init__(self, store, entry: bytes):
        suffix = parse_entry_point(entry, "zarr.json")
        self._store = store
        root = "root" if any(store.exists(f"meta/root.{t}{suffix}") for t in ("group", "array")) \
            or store.list_dir("meta/root") else ""
        self.layout = DraftLayout(root, suffix)
        self._cache: dict = {}
        self._paths: list[str] | None = None
        self._lock = threading.Lock()

    def _read(self, path: str):
        for node_type, key in ((t, k) for t in ("array", "group")
                               for k in self.layout.meta_keys(path, node_type=t)):
            raw = self._store.get(key)
            if raw is None:
                continue
            if node_type == "array":
                return ArrayMetadataV3Draft.from_json(bytes(raw), path, self.layout, key)
            return GroupMetadataV3Draft.from_json(bytes(raw), key)
        if path == "" or path in self._all_paths():
            return GroupMetadataV3Draft(implicit=True)
        return None

    def get(self, path: str, default=None):
        """The metadata of the node at ``path`` (implicit groups included), or ``default``."""
        with self._lock:
            if path not in self._cache:
                self._cache[path] = self._read(path)
        md = self._cache[path]
        return default if md is None else md

    def _all_paths(self) -> list[str]:
        if self._paths is None:
            found = set()
            for key in self._store.list_prefix("meta/"):
                hit = self.layout.path_of(key)
                if hit is None:
                    continue
                path = hit[0]
                found.add(path)
                parts = path.split("/") if path else []
                found.update("/".join(parts[:i]) for i in range(len(parts)))  # implicit
            found.add("")
            self._paths = sorted(found)
        return self._paths

    def __iter__(self):
        return iter(self._all_paths())


def read_draft_node(store, path: str, entry: bytes):
    """The metadata of the node at ``path`` of the draft hierarchy in ``store``."""
    return DraftHierarchy(store, entry).get(path)
