"""``node.attrs``: a mutable mapping that writes through to the node's ``zarr.json``.

Values are what JSON holds, plus what zarr-python users pass: NaN and ±infinity (stored
as the JSON strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` the Zarr spec uses for
such floats, so every document stays strict JSON), numpy scalars and arrays (stored as
numbers and lists), tuples (lists).
"""

from __future__ import annotations

import json
import math
from collections.abc import MutableMapping

import numpy as np

from zarrhpc.errors import MetadataError

__all__ = ["Attributes", "json_attributes"]

_NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _to_json_value(value):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return _NONFINITE[repr(value)]
    if isinstance(value, dict):
        return {k: _to_json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json_value(v) for v in value]
    return value


def _check_json(key: str, value):
    """``value`` as it will be stored (see the module docstring), or MetadataError."""
    try:
        value = _to_json_value(value)
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, KeyError) as exc:
        raise MetadataError(
            f"attributes[{key!r}]: value {value!r} cannot be stored as JSON ({exc})"
        ) from None
    return value


def json_attributes(attributes) -> dict:
    """User attributes as stored: keys checked, values converted (module docstring)."""
    out = {}
    for k, v in dict(attributes or {}).items():
        if not isinstance(k, str):
            raise MetadataError(f"attributes: keys must be strings, got {k!r}")
        out[k] = _check_json(k, v)
    return out


class Attributes(MutableMapping):
    """The user attributes of one node. Every change rewrites the node's metadata once."""

    def __init__(self, node):
        self._node = node

    @property
    def _data(self) -> dict:
        return self._node._attributes_dict()  # the same dict as ``metadata.attributes``

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self.update({key: value})

    def __delitem__(self, key):
        def without(current):
            data = dict(current)
            del data[key]
            return data

        self._node._set_attributes(without)

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def update(self, other=(), /, **kwargs):
        """Set several attributes with a single metadata write."""
        new = json_attributes(dict(other, **kwargs))
        # merged with the attributes current under the node's metadata lock
        self._node._set_attributes(lambda current: {**current, **new})

    def put(self, d: dict) -> None:
        """Replace all attributes with ``d``."""
        self._node._set_attributes(json_attributes(d))

    def asdict(self) -> dict:
        return dict(self._data)

    def __repr__(self) -> str:
        return f"Attributes({self._data!r})"
