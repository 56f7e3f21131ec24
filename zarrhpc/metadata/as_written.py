"""Writing a document back in the form its writer gave it, changed only where it changed.

Other implementations spell the same metadata in many ways: a ``zarrs.regular_bounded``
grid that happens to be regular, ``fill_value: 0`` for ``0.0``, ``"filters": []`` for
``null``, a v2 ``.zarray`` without ``dimension_separator``, members in their own order,
``"attributes": null``, codec configurations with members zarrhpc does not name. zarrhpc
reads each into one validated object; writing that object back in zarrhpc's (zarr-python's)
canonical form after an attribute update, resize, append or consolidation would rename
grids and respell values that other readers (the writer's own, first) read as they were.

Life cycle: a metadata object read from a store keeps the parsed document (``source``); a
change (``dataclasses.replace``) carries it over. When the object is written,
:func:`as_written` compares, member by member, the canonical form of the object with the
canonical form of the source document (what zarrhpc would have written for it unchanged):

- a member whose canonical form is unchanged is written as the source spelled it, unless
  that spelling is not strict JSON (zarrita's ``"fill_value": NaN``: then ``"NaN"``);
- a member that changed is written in the canonical form;
- a member the source lacked is left out while it still has the value its absence meant
  (the canonical default), written when it changed;
- a source member zarrhpc does not write (ignored v2 members) is kept; one that zarrhpc
  writes but the change removed is dropped;
- members keep the source's order; a new one goes after the last member that precedes it in
  the canonical order.

Members are compared as strict JSON text (``1`` is not ``true``, ``1`` is not ``1.0`` and
key order counts), so a value that changed is never hidden behind one that compares equal
in Python. Objects created by zarrhpc have no source and are written canonically,
byte for byte as zarr-python writes them. Pure.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from zarrhpc.errors import MetadataError

__all__ = ["Document", "as_written", "written_form"]


class Document(dict):
    """A document as read: the plain dict, plus its canonical form once computed (the
    object read and every changed copy of it share one ``Document``, so a run of attribute
    updates parses the original once)."""

    __slots__ = ("_canonical",)

    def canonical(self, make) -> dict | None:
        """``make()`` (the canonical form of this document), computed on first use."""
        try:
            return self._canonical
        except AttributeError:
            self._canonical = make()
            return self._canonical


def _text(value: Any) -> str | object:
    """Strict JSON text of ``value``; a value that is not JSON (a numpy scalar in new
    attributes) equals nothing, so it is written and refused there with the member named."""
    try:
        return json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        return object()


def _strict(value: Any) -> bool:
    """Whether ``value`` is strict JSON (no ``NaN`` literal, as zarrita wrote fill values)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def written_form(canonical: dict, source: dict | None, reparse) -> dict:
    """:func:`as_written` of an object's ``canonical`` form and its ``source``;
    ``reparse(plain dict)`` gives the canonical form of a source document (cached on a
    :class:`Document`)."""
    if source is None:
        return canonical

    def make():
        try:
            return reparse(copy.deepcopy(dict(source)))
        except MetadataError:  # pragma: no cover - it parsed when it was read
            return None

    before = source.canonical(make) if isinstance(source, Document) else make()
    return as_written(canonical, source, before)


def as_written(canonical: dict, source: dict | None, source_canonical: dict | None) -> dict:
    """The document to write: ``canonical`` with every unchanged member as ``source`` has it.

    Parameters
    ----------
    canonical : dict
        The object's document in zarrhpc's canonical form (what changed is here).
    source : dict or None
        The document as read (None: the object was created here; ``canonical`` is
        returned).
    source_canonical : dict or None
        The canonical form of the object ``source`` was read into.

    Returns
    -------
    dict
        A fresh document (nothing shared with the arguments).
    """
    if source is None or source_canonical is None:
        return canonical
    out: dict[str, Any] = {}
    for key, value in source.items():
        if key in canonical:
            same = key in source_canonical and _text(canonical[key]) == _text(
                source_canonical[key]) and _strict(value)
            out[key] = copy.deepcopy(value) if same else canonical[key]
        elif key not in source_canonical:
            out[key] = copy.deepcopy(value)  # a member zarrhpc reads past and never writes
    items = list(out.items())
    order = list(canonical)
    for key, value in canonical.items():
        if key in source:
            continue
        if key in source_canonical and _text(value) == _text(source_canonical[key]):
            continue  # absent in the source, and still the value absence meant
        # after the last member that comes before it in the canonical order (zarr-python
        # writes consolidated_metadata between zarr_format and node_type)
        before = set(order[:order.index(key)])
        at = max((i + 1 for i, (k, _) in enumerate(items) if k in before), default=0)
        items.insert(at, (key, value))
    return dict(items)
