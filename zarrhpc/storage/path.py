"""StorePath: a store and a path inside it, as zarr-python 3's ``zarr.storage.StorePath``.

Users pass one wherever a store is taken (``zarrhpc.open_array(StorePath(store, "a/b"))``);
the API splits it back into the store and the node path. ``sp / "child"`` joins paths.
A StorePath pickles as its store (by reference) and path.
"""

from __future__ import annotations

from zarrhpc.storage.abc import Store
from zarrhpc.storage.keys import normalize_prefix

__all__ = ["StorePath"]


class StorePath:
    """A path inside a store.

    Parameters
    ----------
    store : Store
    path : str, default ""
        "/"-separated path of a node inside the store ("" is the root).
    """

    def __init__(self, store: Store, path: str = "") -> None:
        if not isinstance(store, Store):
            raise TypeError(f"StorePath: expected a Store, got {type(store).__name__}")
        if not isinstance(path, str):
            raise TypeError(f"StorePath: path must be a str, got {type(path).__name__}")
        self.store = store
        self.path = normalize_prefix(path.strip("/")).rstrip("/")

    @property
    def read_only(self) -> bool:
        return self.store.read_only

    def __truediv__(self, other: str) -> StorePath:
        other = str(other).strip("/")
        return StorePath(self.store, f"{self.path}/{other}" if self.path and other
                         else self.path or other)

    def __reduce__(self):
        return (StorePath, (self.store, self.path))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorePath):
            return NotImplemented
        return self.store == other.store and self.path == other.path

    def __hash__(self) -> int:
        return hash((self.store, self.path))

    def __str__(self) -> str:  # zarr-python's: the store's URL joined with the path
        root = str(self.store)
        return f"{root.rstrip('/')}/{self.path}" if self.path else root

    def __repr__(self) -> str:
        return f"StorePath({type(self.store).__name__}, {str(self)!r})"
