"""N5Store: an N5 container read as a Zarr v3 hierarchy (read only).

N5 (saalfeldlab/n5) keeps a node's metadata in ``<node>/attributes.json`` and a
dataset's blocks at ``<dataset>/<i0>/<i1>/...``, block indices fastest axis first. This
store wraps any other store holding such a container and answers as the "N5 Default
Store" of zarr-extensions' ``n5_default`` README describes:

- ``<node>/zarr.json``: made from ``<node>/attributes.json`` by
  :func:`zarrhpc.metadata.n5.node_json` (a dataset becomes an array with its axes
  reversed, as zarr-python 2's ``N5Store`` presents it; anything else a group). A
  directory without ``attributes.json`` is an (implicit) N5 group;
- chunk keys of an array, ``<dataset>/c_{n-1}/.../c_0`` in the v2 key encoding with
  ``/`` the synthesized metadata names, are the N5 block ``<dataset>/c_0/.../c_{n-1}``
  (the reversed indices);
- ``attributes.json`` and everything else is hidden; v2 documents (``.zarray``...)
  do not exist; every write is refused (:class:`~zarrhpc.errors.ReadOnlyError`).

``axis_order="n5"`` gives tensorstore's view instead: N5's axis order, the
``n5_default`` chain with its leading transpose (zarr-extensions' form), chunk keys
equal to the block paths. ``zarrhpc.open(path)`` uses the default (zarr-python 2's).

Life cycle: made by ``zarrhpc.open(path)`` when the directory's root ``attributes.json``
has an ``"n5"`` version or is a dataset's, and there is no Zarr document at the root
(:func:`is_n5_container`), or directly: ``N5Store("data.n5")`` /
``N5Store(some_store)``. Parsed attributes are cached per node (the container is not
expected to change while it is read); :meth:`N5Store.refresh` forgets them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from zarrhpc.errors import MetadataError, ReadOnlyError, UnsupportedError
from zarrhpc.storage.abc import Buffer, Store

__all__ = ["N5Store", "is_n5_container", "register_translation"]

#: ``(attributes or None, doc key) -> zarr.json dict``: zarrhpc.metadata.n5.node_json.
#: Storage does not import metadata (tests/test_layers.py), so zarrhpc.core hands the
#: translation over when it is imported (``import zarrhpc`` does that).
_TRANSLATE: list = []


def register_translation(translate) -> None:
    """Set the attributes.json -> zarr.json translation (see :data:`_TRANSLATE`)."""
    _TRANSLATE[:] = [translate]


def _translate(attrs: dict | None, doc: str, axis_order: str) -> dict:
    if not _TRANSLATE:
        raise UnsupportedError(f"{doc}: reading N5 needs zarrhpc.core imported (import zarrhpc)")
    return _TRANSLATE[0](attrs, doc, axis_order)


def _dataset_ndim(attrs: dict | None) -> int | None:
    """The number of dimensions of a dataset's attributes (None: not a dataset)."""
    if not attrs or not all(k in attrs for k in ("dimensions", "blockSize", "dataType")):
        return None
    dims = attrs["dimensions"]
    return len(dims) if isinstance(dims, list) else None

ATTRS = "attributes.json"
_ZARR = "zarr.json"
_V2_DOCS = (".zarray", ".zgroup", ".zattrs", ".zmetadata")


def _parse_attrs(value: Buffer | None, key: str) -> dict | None:
    if value is None:
        return None
    try:
        obj = json.loads(bytes(value).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MetadataError(f"{key}: not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise MetadataError(f"{key}: expected a JSON object, got {type(obj).__name__}")
    return obj


def is_n5_container(store: Store) -> bool:
    """Whether ``store``'s root is an N5 container and not a Zarr node (no ``zarr.json``,
    ``.zgroup`` or ``.zarray`` at the root; ``attributes.json`` with an ``"n5"`` member, or
    describing a dataset: tensorstore writes a dataset at the root without the version)."""
    if not store.exists(ATTRS) or any(store.exists(k) for k in (_ZARR, ".zgroup", ".zarray")):
        return False
    try:
        attrs = _parse_attrs(store.get(ATTRS), ATTRS)
    except MetadataError:
        return False
    return bool(attrs) and ("n5" in attrs or _dataset_ndim(attrs) is not None)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


class N5Store(Store):
    """An N5 container as a read-only Zarr v3 store (see the module docstring).

    Parameters
    ----------
    store : Store or str or os.PathLike
        The store holding the container, or a local directory.
    axis_order : {"zarr2", "n5"}, default "zarr2"
        ``"zarr2"``: each dataset's axes reversed (C order), as zarr-python 2's
        ``N5Store``, z5py and pyn5 present N5; ``"n5"``: N5's own axis order, as
        tensorstore's n5 driver presents it (the transpose of the other view).
    """

    supports_writes = False
    supports_deletes = False
    supports_consolidated_metadata = False

    def __init__(self, store: Any, *, read_only: bool = True, axis_order: str = "zarr2") -> None:
        super().__init__(read_only=True)
        if axis_order not in ("zarr2", "n5"):
            raise ValueError(f"N5Store: axis_order: expected 'zarr2' or 'n5', got {axis_order!r}")
        self.axis_order = axis_order
        if not isinstance(store, Store):
            from zarrhpc.storage.local import LocalStore

            store = LocalStore(os.fspath(store), read_only=True)
        self.store = store
        self._attrs: dict[str, dict | None] = {}

    def __repr__(self) -> str:
        order = "" if self.axis_order == "zarr2" else f", axis_order={self.axis_order!r}"
        return f"N5Store({self.store!r}{order})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, N5Store) and other.store == self.store
                and other.axis_order == self.axis_order)

    def __hash__(self) -> int:
        return hash(("N5Store", self.store, self.axis_order))

    def __reduce__(self):
        return (_rebuild, (self.store, self.axis_order))

    def with_read_only(self, read_only: bool = True) -> Store:
        if not read_only:
            raise ReadOnlyError(f"{self!r}: N5 containers are read only")
        return self

    def refresh(self) -> None:
        """Forget the cached attributes (after the container changed)."""
        self._attrs.clear()

    def close(self) -> None:
        super().close()
        self.store.close()

    # -- translation ---------------------------------------------------------------------

    def _node_attrs(self, prefix: str) -> dict | None:
        if prefix not in self._attrs:
            key = _join(prefix, ATTRS)
            self._attrs[prefix] = _parse_attrs(self.store.get(key), key)
        return self._attrs[prefix]

    def _array_of(self, key: str) -> tuple[str, list[str]] | None:
        """``(dataset prefix, chunk index segments)`` when ``key`` is a chunk key of a
        dataset (segments all digits, as many as the dataset's dimensions)."""
        parts = key.split("/")
        for cut in range(len(parts) - 1, -1, -1):
            prefix = "/".join(parts[:cut])
            rest = parts[cut:]
            if not all(p.isdigit() for p in rest):
                return None
            ndim = _dataset_ndim(self._node_attrs(prefix))
            if ndim is not None:
                return (prefix, rest) if len(rest) == ndim else None
        return None

    def _inner_key(self, key: str) -> str | None:
        """The key in the wrapped store holding ``key``'s bytes (None: no such value)."""
        found = self._array_of(key)
        if found is None:
            return None
        prefix, idx = found
        return _join(prefix, "/".join(self._block_order(idx)))

    def _block_order(self, idx: list[str]) -> list[str]:
        """Chunk indices <-> N5 block indices (an involution)."""
        return idx[::-1] if self.axis_order == "zarr2" else idx

    def _get(self, key: str) -> Buffer | None:
        name = key.rsplit("/", 1)[-1]
        if name == _ZARR:
            prefix = key[:-len(_ZARR)].rstrip("/")
            attrs = self._node_attrs(prefix)
            if attrs is None and not (self._is_node_dir(prefix) and self._is_dir(prefix)):
                return None
            return json.dumps(_translate(attrs, _join(prefix, ATTRS), self.axis_order)).encode()
        if name in _V2_DOCS or name == ATTRS:
            return None
        inner = self._inner_key(key)
        return None if inner is None else self.store.get(inner)

    def _is_dir(self, prefix: str) -> bool:
        if not prefix:
            return True
        return next(iter(self.store.list_prefix(prefix + "/")), None) is not None

    def _getsize(self, key: str) -> int | None:
        if key.rsplit("/", 1)[-1] in (_ZARR, ATTRS, *_V2_DOCS):
            return super()._getsize(key)
        inner = self._inner_key(key)
        return None if inner is None else self.store.getsize(inner)

    def _exists(self, key: str) -> bool:
        return self._getsize(key) is not None

    def _get_partial_values(self, key_ranges):
        out = []
        for key, offset, length in key_ranges:
            if key.rsplit("/", 1)[-1] in (_ZARR, ATTRS, *_V2_DOCS):
                out.extend(super()._get_partial_values([(key, offset, length)]))
                continue
            inner = self._inner_key(key)
            out.append(None if inner is None else
                       self.store.get_partial_values([(inner, offset, length)])[0])
        return out

    def _list(self) -> Iterator[str]:
        dirs = {""}
        for key in self.store.list():
            parts = key.split("/")
            for i in range(1, len(parts)):
                dirs.add("/".join(parts[:i]))
            if parts[-1] == ATTRS:
                continue
            prefix_idx = self._array_of(key)
            if prefix_idx is None:
                continue  # not a block of a dataset: not part of the Zarr view
            # an N5 block key: its Zarr chunk key (indices reversed in the zarr2 view)
            prefix, idx = prefix_idx
            yield _join(prefix, "/".join(self._block_order(idx)))
        for d in dirs:
            if self._is_node_dir(d):
                yield _join(d, _ZARR)

    def _is_node_dir(self, prefix: str) -> bool:
        """A directory that is an N5 node: not inside a dataset (block directories)."""
        parts = prefix.split("/") if prefix else []
        for cut in range(len(parts) - 1, -1, -1):
            if _dataset_ndim(self._node_attrs("/".join(parts[:cut]))) is not None:
                return False
        return True

    # -- writes: refused by the base class (read_only); these hooks are never reached --

    def _set(self, key: str, data: memoryview) -> None:  # pragma: no cover
        raise ReadOnlyError(f"{key!r}: N5 containers are read only")

    def _erase(self, key: str) -> None:  # pragma: no cover
        raise ReadOnlyError(f"{key!r}: N5 containers are read only")


def _rebuild(store: Store, axis_order: str) -> N5Store:
    return N5Store(store, axis_order=axis_order)
