"""The ``rectilinear`` chunk grid of zarr-extensions: parse, validate, write, locate.

Spec: zarr-developers/zarr-extensions ``chunk-grids/rectilinear/README.md``::

    {"name": "rectilinear", "configuration": {"kind": "inline",
     "chunk_shapes": [4, [1, 2, 3], [[4, 2]], [[1, 3], 3]]}}

Per dimension: an integer ``m`` (edges ``m, m, ...`` until the axis is covered), or an
array of edge lengths where an element ``[V, N]`` is ``N`` repetitions of ``V``. Edges
are positive; their sum must reach the axis length (overflow chunks are allowed).

Life cycle: :meth:`RectilinearGrid.from_json` validates and expands a document's grid
(the message names the key and the member); :meth:`RectilinearGrid.to_json` writes the
compact run-length form; :meth:`regular_chunk_shape` tells when the grid is a regular grid
in disguise (every edge covering the array the same length), which
:mod:`zarrhpc.metadata.v3` then reads as ``regular``; an irregular grid stays on the
metadata (``ArrayMetadataV3.chunk_grid``) and the indexing layer's
``RectilinearChunkGrid`` locates chunks on it. :meth:`covering` is what a resize asks:
shrinking keeps the edges (chunks past the end are allowed), growing past the last edge
adds edges of the last edge's length (the spec only requires the edges to reach the axis
length; zarrhpc's documented choice). Pure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from zarrhpc.errors import MetadataError, UnsupportedError

__all__ = ["RectilinearGrid", "RegularBoundedGrid"]

_FIELD = "chunk_grid.configuration"
#: edges expanded per dimension at most: a hostile ``[1, 2**31]`` must not allocate GiBs
_MAX_EDGES = 1 << 24


def _positive(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _expand(spec: Any, length: int, doc: str, where: str) -> tuple[int, ...]:
    if _positive(spec):
        n = max(1, math.ceil(length / spec))
        if n > _MAX_EDGES:
            raise MetadataError(f"{doc}: {where}: {n} chunks along one axis is too many "
                                f"(at most {_MAX_EDGES})")
        return (spec,) * n
    if not isinstance(spec, list) or not spec:
        raise MetadataError(f"{doc}: {where}: expected a positive integer or a non-empty "
                            f"array of edge lengths, got {spec!r}")
    edges: list[int] = []
    for i, item in enumerate(spec):
        if _positive(item):
            if len(edges) >= _MAX_EDGES:
                raise MetadataError(f"{doc}: {where}: more than {_MAX_EDGES} edges")
            edges.append(item)
        elif isinstance(item, list) and len(item) == 2 and all(_positive(v) for v in item):
            if len(edges) + item[1] > _MAX_EDGES:  # refuse before expanding it
                raise MetadataError(f"{doc}: {where}[{i}]: {item[1]} repetitions is too many "
                                    f"(at most {_MAX_EDGES} edges along one axis)")
            edges.extend([item[0]] * item[1])
        else:
            raise MetadataError(f"{doc}: {where}[{i}]: expected a positive edge length or "
                                f"[length, count], got {item!r}")
    if sum(edges) < length:
        raise MetadataError(f"{doc}: {where}: the edges add up to {sum(edges)}, less than "
                            f"the axis length {length}")
    return tuple(edges)


def _compact(edges: tuple[int, ...]) -> list:
    out: list = []
    i = 0
    while i < len(edges):
        j = i
        while j < len(edges) and edges[j] == edges[i]:
            j += 1
        out.append(edges[i] if j - i == 1 else [edges[i], j - i])
        i = j
    return out


@dataclass(frozen=True)
class RectilinearGrid:
    """Chunk edge lengths per dimension.

    Attributes
    ----------
    edges : tuple of tuple of int
        ``edges[d][k]``: the length of chunk ``k`` along dimension ``d``.
    """

    edges: tuple[tuple[int, ...], ...]

    @classmethod
    def from_json(cls, conf: Any, shape: tuple[int, ...], doc: str) -> RectilinearGrid:
        """Validate the ``configuration`` of a rectilinear grid for an array of ``shape``."""
        if not isinstance(conf, dict):
            raise MetadataError(f"{doc}: {_FIELD}: expected an object, got {conf!r}")
        unknown = sorted(set(conf) - {"kind", "chunk_shapes"})
        if unknown:
            raise MetadataError(f"{doc}: {_FIELD}: unexpected member {unknown[0]!r}")
        if conf.get("kind") != "inline":
            raise MetadataError(f"{doc}: {_FIELD}.kind: expected 'inline', got "
                                f"{conf.get('kind')!r}")
        shapes = conf.get("chunk_shapes")
        if not isinstance(shapes, list) or len(shapes) != len(shape):
            raise MetadataError(f"{doc}: {_FIELD}.chunk_shapes: expected one entry per "
                                f"dimension ({len(shape)}), got {shapes!r}")
        return cls(tuple(_expand(s, n, doc, f"{_FIELD}.chunk_shapes[{d}]")
                         for d, (s, n) in enumerate(zip(shapes, shape))))

    @classmethod
    def read(cls, conf: Any, shape: tuple[int, ...], doc: str):
        """``(chunk_shape, grid or None)`` of a document's grid: a grid of equal chunks is
        the regular grid it is (None); an irregular one keeps its edges (``chunk_shape``
        is then :meth:`max_edges`)."""
        grid = cls.from_json(conf, shape, doc)
        regular = grid.regular_chunk_shape(shape)
        return (regular, None) if regular is not None else (grid.max_edges(shape), grid)

    def to_json(self) -> dict:
        """The grid entry, edges run-length encoded."""
        return {"name": "rectilinear", "configuration": {
            "kind": "inline", "chunk_shapes": [_compact(e) for e in self.edges]}}

    def regular_chunk_shape(self, shape: tuple[int, ...]) -> tuple[int, ...] | None:
        """The regular chunk shape this grid equals on ``shape``, or None.

        Equal when, per dimension, every edge (past the array's end too: a resize may
        bring those chunks in) has the same length; the integer form always does.
        """
        out = []
        for edges in self.edges:
            if any(e != edges[0] for e in edges):
                return None
            out.append(edges[0])
        return tuple(out)

    def max_edges(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Per dimension the longest edge among chunks holding elements (the chunk shape
        a codec chain is validated against; never used to locate data)."""
        return tuple(max(e[:g] or e[:1]) for e, g in zip(self.edges, self.grid_shape(shape)))

    def covering(self, shape: tuple[int, ...]) -> RectilinearGrid:
        """This grid, with edges of the last edge's length added where ``shape`` runs past
        the sum of the edges (the grid after a resize to ``shape``)."""
        if len(shape) != len(self.edges):
            raise MetadataError(f"chunk_grid: {len(self.edges)} dimensions, shape {shape} has "
                                f"{len(shape)}")
        out = []
        for e, n in zip(self.edges, shape):
            short = n - sum(e)
            out.append(e + (e[-1],) * -(-short // e[-1]) if short > 0 else e)
        return RectilinearGrid(tuple(out))

    @classmethod
    def from_edges(cls, edges: Any, shape: tuple[int, ...], what: str) -> RectilinearGrid:
        """A grid from per-dimension edge lists as a user gives them (``chunks=[[10, 20],
        [5, 5]]``; an int per dimension means a regular axis), checked against ``shape``."""
        if len(edges) != len(shape):
            raise MetadataError(f"{what}: {len(edges)} dimensions of chunk edges, shape "
                                f"{shape} has {len(shape)}")
        spec = [int(e) if isinstance(e, (int, np.integer)) else [int(v) for v in e]
                for e in edges]
        return cls.from_json({"kind": "inline", "chunk_shapes": spec}, shape, what)

    def as_regular(self, shape: tuple[int, ...], doc: str) -> tuple[int, ...]:
        """:meth:`regular_chunk_shape`, or UnsupportedError naming ``doc`` when irregular."""
        regular = self.regular_chunk_shape(shape)
        if regular is None:
            raise UnsupportedError(
                f"{doc}: chunk_grid: a rectilinear grid with chunks of different sizes is "
                f"not supported yet (only grids whose chunks are all the same size are read)")
        return regular

    def grid_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Number of chunks per dimension holding elements of an array of ``shape``."""
        return tuple(int(np.searchsorted(np.cumsum(e), max(n - 1, 0), side="right")) + 1
                     if n else 0 for e, n in zip(self.edges, shape))

    def chunk_index(self, dim: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(chunk index, index inside the chunk) of array ``positions`` along ``dim``."""
        ends = np.cumsum(self.edges[dim])
        k = np.searchsorted(ends, positions, side="right")
        starts = np.concatenate(([0], ends))[k]
        return k, np.asarray(positions) - starts

    def chunk_slices(self, coords: tuple[int, ...]) -> tuple[slice, ...]:
        """The array region of chunk ``coords`` (it may run past the array's end)."""
        out = []
        for d, k in enumerate(coords):
            start = int(sum(self.edges[d][:k]))
            out.append(slice(start, start + self.edges[d][k]))
        return tuple(out)

    def chunk_shape(self, coords: tuple[int, ...]) -> tuple[int, ...]:
        """The shape chunk ``coords`` is stored with."""
        return tuple(self.edges[d][k] for d, k in enumerate(coords))


class RegularBoundedGrid(RectilinearGrid):
    """zarrs' ``zarrs.regular_bounded`` grid: regular, but the chunks at the array's end are
    cut to it (stored with the cut shape), i.e. the rectilinear grid whose last edge per
    dimension is ``length - (k - 1) * chunk``.

    Spec: zarrs' ``chunk_grid/regular_bounded.rs`` (``https://chunkgrid.zarrs.dev/
    regular_bounded``); configuration ``{"chunk_shape": [...]}`` as the regular grid. A
    resize that changes a cut edge is refused (the stored cut chunk would no longer have
    its grid's shape).
    """

    def __init__(self, chunk_shape: tuple[int, ...], shape: tuple[int, ...]) -> None:
        object.__setattr__(self, "bounded_chunks", tuple(chunk_shape))  # a frozen dataclass
        super().__init__(tuple(
            (c,) * (n // c) + ((n % c,) if n % c else ()) or (c,)
            for c, n in zip(chunk_shape, shape)))

    @classmethod
    def read(cls, conf: Any, shape: tuple[int, ...], doc: str):
        where = "chunk_grid.configuration"
        if not isinstance(conf, dict) or set(conf) != {"chunk_shape"}:
            raise MetadataError(f"{doc}: {where}: expected {{'chunk_shape': [...]}}, got {conf!r}")
        chunks = conf["chunk_shape"]
        if not (isinstance(chunks, list) and len(chunks) == len(shape)
                and all(_positive(c) for c in chunks)):
            raise MetadataError(f"{doc}: {where}.chunk_shape: expected {len(shape)} positive "
                                f"integers, got {chunks!r}")
        if any(max(1, math.ceil(n / c)) > _MAX_EDGES for c, n in zip(chunks, shape)):
            raise MetadataError(f"{doc}: {where}.chunk_shape: more than {_MAX_EDGES} chunks "
                                "along one axis")
        grid = cls(tuple(chunks), shape)
        regular = grid.regular_chunk_shape(shape)
        return (regular, None) if regular is not None else (grid.max_edges(shape), grid)

    def to_json(self) -> dict:
        return {"name": "zarrs.regular_bounded",
                "configuration": {"chunk_shape": list(self.bounded_chunks)}}

    def covering(self, shape: tuple[int, ...]) -> RectilinearGrid:
        new = RegularBoundedGrid(self.bounded_chunks, shape)
        for old, cut in zip(self.edges, new.edges):
            keep = min(len(old), len(cut))
            if old[:keep] != cut[:keep]:
                raise UnsupportedError(
                    "chunk_grid: resizing a zarrs.regular_bounded array across a cut edge "
                    "chunk is not supported (the stored chunk keeps its cut shape)")
        return new
