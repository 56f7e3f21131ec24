"""``node.attrs``: a mutable mapping that writes through to the node's ``zarr.json``."""

from __future__ import annotations

import json
from collections.abc import MutableMapping

from zarrhpc.errors import MetadataError

__all__ = ["Attributes"]


def _check_json(key: str, value) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MetadataError(
            f"attributes[{key!r}]: value {value!r} cannot be stored as JSON ({exc})"
        ) from None


class Attributes(MutableMapping):
    """The user attributes of one node. Every change rewrites the node's metadata once."""

    def __init__(self, node):
        self._node = node

    @property
    def _data(self) -> dict:
        md = self._node.metadata
        return {} if md is None else md.attributes  # an implicit group has none

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self.update({key: value})

    def __delitem__(self, key):
        data = dict(self._data)
        del data[key]
        self._node._set_attributes(data)

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def update(self, other=(), /, **kwargs):
        """Set several attributes with a single metadata write."""
        new = dict(other, **kwargs)
        for k, v in new.items():
            if not isinstance(k, str):
                raise MetadataError(f"attributes: keys must be strings, got {k!r}")
            _check_json(k, v)
        data = dict(self._data)
        data.update(new)
        self._node._set_attributes(data)

    def put(self, d: dict) -> None:
        """Replace all attributes with ``d``."""
        for k, v in d.items():
            _check_json(k, v)
        self._node._set_attributes(dict(d))

    def asdict(self) -> dict:
        return dict(self._data)

    def __repr__(self) -> str:
        return f"Attributes({self._data!r})"
