"""Who owns which chunk, and which pieces of which chunk each rank holds: pure arithmetic.

Nothing here imports mpi4py or touches a store, so every rule is testable in one process.

Vocabulary
- *unit*: what is written at once and owned by one rank: the chunk, or the shard when the
  array is sharded. Unit coordinates are positions in the unit grid.
- *box*: a region of the array as ``((start, stop), ...)``, one pair per dimension, step 1.
- *holder*: the rank whose local block covers a box; *owner*: the rank that writes a unit.

Life cycle: `Partition` is built once from the array shape, the unit shape, the number of
ranks, a policy and (for ``"decomposition"``) every rank's box; it keeps an owner table of
the unit grid. `plan_pieces` then cuts every rank's box along unit boundaries: every rank
computes the same plan from the same inputs, so a rank knows what it will receive (and how
much) without being told.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from zarrhpc.errors import SelectionError

__all__ = [
    "POLICIES",
    "Box",
    "Partition",
    "Piece",
    "box_size",
    "check_disjoint",
    "intersect",
    "normalize_region",
    "plan_pieces",
    "writer_groups",
]

POLICIES = ("block", "cyclic", "decomposition", "node")

Box = tuple[tuple[int, int], ...]


def normalize_region(region, shape: tuple[int, ...], what: str = "region") -> Box | None:
    """A region (tuple of slices in global coordinates, step 1) as a box; None stays None.

    Missing trailing dimensions mean the whole dimension, as in numpy. Negative or
    out-of-range bounds are refused rather than wrapped: a rank's region is an explicit
    statement of what it holds, and a silent wrap would write data to the wrong place.
    """
    if region is None:
        return None
    if isinstance(region, slice):
        region = (region,)
    if not isinstance(region, tuple) or not all(isinstance(s, slice) for s in region):
        raise SelectionError(f"{what}: expected a tuple of slices, got {region!r}")
    if len(region) > len(shape):
        raise SelectionError(f"{what}: {len(region)} slices for an array of {len(shape)} dimensions")
    region = region + (slice(None),) * (len(shape) - len(region))
    box = []
    for axis, (s, n) in enumerate(zip(region, shape)):
        if s.step not in (None, 1):
            raise SelectionError(f"{what}: axis {axis}: step must be 1, got {s.step}")
        start = 0 if s.start is None else int(s.start)
        stop = n if s.stop is None else int(s.stop)
        if not 0 <= start <= stop <= n:
            raise SelectionError(
                f"{what}: axis {axis}: expected 0 <= start <= stop <= {n}, got {s.start}:{s.stop}"
            )
        box.append((start, stop))
    return tuple(box)


def box_size(box: Box | None) -> int:
    return 0 if box is None else math.prod(b - a for a, b in box)


def box_shape(box: Box) -> tuple[int, ...]:
    return tuple(b - a for a, b in box)


def intersect(a: Box, b: Box) -> Box | None:
    """The common part of two boxes, or None when they do not meet."""
    out = tuple((max(a0, b0), min(a1, b1)) for (a0, a1), (b0, b1) in zip(a, b))
    return out if all(lo < hi for lo, hi in out) else None


def to_slices(box: Box, origin: Box | None = None) -> tuple[slice, ...]:
    """Slices selecting ``box``, relative to the corner of ``origin`` when given."""
    if origin is None:
        return tuple(slice(a, b) for a, b in box)
    return tuple(slice(a - o, b - o) for (a, b), (o, _) in zip(box, origin))


def check_disjoint(boxes: list[Box | None], what: str = "regions") -> None:
    """Refuse overlapping boxes: two ranks writing one element has no defined result."""
    live = [(r, b) for r, b in enumerate(boxes) if box_size(b)]
    if len(live) < 2:
        return
    lo = np.array([[a for a, _ in b] for _, b in live], dtype=np.int64)
    hi = np.array([[z for _, z in b] for _, b in live], dtype=np.int64)
    for i in range(len(live) - 1):
        meet = (np.maximum(lo[i], lo[i + 1:]) < np.minimum(hi[i], hi[i + 1:])).all(axis=1)
        if meet.any():
            j = i + 1 + int(np.argmax(meet))
            (ri, bi), (rj, bj) = live[i], live[j]
            raise SelectionError(
                f"{what}: rank {ri} {to_slices(bi)} and rank {rj} {to_slices(bj)} overlap; "
                "every element must be written by one rank"
            )


@dataclass(frozen=True)
class Piece:
    """The part ``box`` of unit ``unit`` that rank ``holder`` holds; ``owner`` writes the unit."""

    unit: tuple[int, ...]
    box: Box
    holder: int
    owner: int
    whole: bool  # the piece is the whole (in-array part of the) unit

    @property
    def nelems(self) -> int:
        return box_size(self.box)


class Partition:
    """Ownership of every unit of a regular grid by one of ``nranks`` ranks.

    Parameters
    ----------
    shape, unit_shape : the array shape and the chunk (or shard) shape.
    nranks : number of ranks.
    policy : "block", "cyclic" or "decomposition"
        ``block``: the units in C order are cut into ``nranks`` contiguous runs of equal
        length (within one). ``cyclic``: unit ``i`` (C order) goes to rank ``i % nranks``.
        ``decomposition``: a unit goes to the rank whose box covers most of it (a tie to
        the least loaded of the tied ranks, the lowest when equal: units cut in half by a
        rank boundary are shared out); units no box touches fall back to ``block``.
    boxes : every rank's box (None for a rank holding nothing); needed for "decomposition".
    owners : a ready owner table of the unit grid (policy ``"node"``: `node_plan` builds it).
    """

    def __init__(self, shape, unit_shape, nranks: int, policy: str = "block", boxes=None,
                 owners=None):
        self.shape = tuple(int(n) for n in shape)
        self.unit_shape = tuple(int(c) for c in unit_shape)
        if len(self.unit_shape) != len(self.shape) or any(c < 1 for c in self.unit_shape):
            raise ValueError(f"unit shape {self.unit_shape} does not fit array shape {self.shape}")
        if nranks < 1:
            raise ValueError(f"nranks: expected a positive number of ranks, got {nranks}")
        if policy not in POLICIES:
            raise ValueError(f"policy: expected one of {POLICIES}, got {policy!r}")
        self.nranks = int(nranks)
        self.policy = policy
        self.grid_shape = tuple(math.ceil(n / c) for n, c in zip(self.shape, self.unit_shape))
        self.nunits = math.prod(self.grid_shape)
        if policy == "decomposition" and (boxes is None or len(boxes) != nranks):
            got = None if boxes is None else len(boxes)
            raise ValueError(f"policy 'decomposition' needs one region per rank ({nranks}), got {got}")
        if (policy == "node") != (owners is not None):
            raise ValueError("policy 'node' comes with its owner table (see node_plan)")
        if owners is not None:
            owners = np.asarray(owners, dtype=np.int32)
            if owners.shape != self.grid_shape:
                raise ValueError(f"owners: table of shape {owners.shape}, grid {self.grid_shape}")
            self.owners = owners
        else:
            self.owners = self._owner_table(boxes)

    def _owner_table(self, boxes) -> np.ndarray:
        flat = np.arange(self.nunits, dtype=np.int64)
        if self.policy == "cyclic":
            table = flat % self.nranks
        else:
            table = flat * self.nranks // max(self.nunits, 1)
        table = table.astype(np.int32).reshape(self.grid_shape)
        if self.policy == "decomposition":
            covers = {rank: self._coverage(box) for rank, box in enumerate(boxes) if box_size(box)}
            if covers:
                self._assign_by_cover(table, covers)
        return table

    def _assign_by_cover(self, table: np.ndarray, covers: dict) -> None:
        """Each unit to the rank covering most of it. A tie (a rank boundary through the
        middle of units) goes to the least loaded of the tied ranks, units in C order, so
        that both sides of such a boundary get half its units instead of the lower rank
        all of them (the compression work would be uneven)."""
        ranks = sorted(covers)
        stack = np.stack([covers[r] for r in ranks])
        best = stack.max(axis=0)
        top = (stack == best) & (best > 0)
        single = top.sum(axis=0) == 1
        table[single] = np.asarray(ranks, dtype=np.int32)[stack.argmax(axis=0)[single]]
        tied = np.argwhere(~single & (best > 0))
        if not len(tied):
            return
        sizes = self._coverage(tuple((0, n) for n in self.shape))
        load = {r: int(sizes[(table == r) & single].sum()) for r in ranks}
        for coords in map(tuple, tied):
            candidates = [r for i, r in enumerate(ranks) if top[(i, *coords)]]
            owner = min(candidates, key=lambda r: (load[r], r))
            table[coords] = owner
            load[owner] += int(sizes[coords])

    def _coverage(self, box: Box) -> np.ndarray:
        """How many elements of each unit ``box`` covers (an array of the grid's shape)."""
        cover = np.ones(self.grid_shape, dtype=np.int64)
        for axis, ((a, b), c, n, g) in enumerate(zip(box, self.unit_shape, self.shape, self.grid_shape)):
            starts = np.arange(g, dtype=np.int64) * c
            stops = np.minimum(starts + c, n)
            length = np.clip(np.minimum(stops, b) - np.maximum(starts, a), 0, None)
            shape = [1] * len(self.grid_shape)
            shape[axis] = g
            cover = cover * length.reshape(shape)
        return cover

    # -- queries ------------------------------------------------------------------------
    def _check_coords(self, coords) -> tuple[int, ...]:
        coords = tuple(int(i) for i in coords)
        if len(coords) != len(self.grid_shape) or not all(
            0 <= i < g for i, g in zip(coords, self.grid_shape)
        ):
            raise SelectionError(f"chunk coordinates {coords} outside the grid {self.grid_shape}")
        return coords

    def owner(self, coords) -> int:
        """The rank that owns the unit at grid coordinates ``coords``."""
        return int(self.owners[self._check_coords(coords)])

    def owned(self, rank: int) -> list[tuple[int, ...]]:
        """Grid coordinates of every unit ``rank`` owns, in C order."""
        return [tuple(int(i) for i in c) for c in np.argwhere(self.owners == rank)]

    def unit_box(self, coords) -> Box:
        """The array region of a unit, clipped to the array edge."""
        return tuple(
            (i * c, min((i + 1) * c, n)) for i, c, n in zip(coords, self.unit_shape, self.shape)
        )

    def unit_range(self, box: Box) -> tuple[range, ...]:
        """Grid coordinates along each dimension of the units ``box`` touches."""
        return tuple(range(a // c, -(-b // c)) for (a, b), c in zip(box, self.unit_shape))

    def interior(self, box: Box) -> Box | None:
        """The part of ``box`` made of whole units (edge units count when box reaches the edge)."""
        out = []
        for (a, b), c, n in zip(box, self.unit_shape, self.shape):
            lo = -(-a // c) * c
            hi = n if b == n else (b // c) * c
            if lo >= hi:
                return None
            out.append((lo, hi))
        return tuple(out)


def plan_pieces(part: Partition, boxes: list[Box | None], ranks=None) -> list[Piece]:
    """Every piece of every unit the boxes touch, in (holder, unit C order) order.

    ``ranks``: keep only pieces whose holder or owner is in this set (a rank needs only its
    own sends and receives; the order of what is kept is unchanged, so senders and
    receivers agree on it).
    """
    keep = None if ranks is None else set(ranks)
    pieces = []
    for holder, box in enumerate(boxes):
        if not box_size(box):
            continue
        grid = part.unit_range(box)
        sub = part.owners[tuple(slice(r.start, r.stop) for r in grid)]
        if keep is not None and holder not in keep and not np.isin(sub, list(keep)).any():
            continue
        for coords in itertools.product(*grid):
            owner = int(part.owners[coords])
            if keep is not None and holder not in keep and owner not in keep:
                continue
            ubox = part.unit_box(coords)
            piece = intersect(box, ubox)
            pieces.append(Piece(coords, piece, holder, owner, piece == ubox))
    return pieces


@dataclass(frozen=True)
class NodePlan:
    """Ownership under the ``"node"`` policy (node-aggregated shards).

    ``shard_node``/``shard_writer`` (shard grid shape): the node that owns each shard and
    the rank that writes its index (and creates and renames its file); ``chunks``: a
    `Partition` of the inner chunk grid whose owner table names the rank (always of the
    shard's node) that encodes and writes each inner chunk.
    """

    shard_shape: tuple[int, ...]
    shard_node: np.ndarray
    shard_writer: np.ndarray
    chunks: Partition


def node_plan(shape, shard_shape, chunk_shape, node_of, boxes=None) -> NodePlan:
    """Each node owns whole shards; the ranks of a node share its shards' inner chunks.

    A shard goes to the node whose ranks' boxes cover most of it (shards no box touches:
    to nodes in contiguous runs, C order). An inner chunk goes to the rank of the shard's
    node that covers most of it, and to the node's ranks in turn when none of them covers
    it. A shard's index writer is the rank that writes most of its inner chunks
    (`_index_writers`).
    """
    nranks = len(node_of)
    node_of = np.asarray(node_of, dtype=np.int64)
    nnodes = int(node_of.max()) + 1
    if boxes is None:
        boxes = [None] * nranks
    if len(boxes) != nranks:
        raise ValueError(f"node_plan: {len(boxes)} boxes for {nranks} ranks")
    shards = Partition(shape, shard_shape, nnodes, "block")
    live = [(r, b) for r, b in enumerate(boxes) if box_size(b)]
    if live:  # coverage of every shard by every node
        cover = np.zeros((nnodes,) + shards.grid_shape, dtype=np.int64)
        for r, b in live:
            cover[node_of[r]] += shards._coverage(b)
        best = cover.max(axis=0)
        shard_node = np.where(best > 0, cover.argmax(axis=0), shards.owners).astype(np.int32)
    else:
        shard_node = shards.owners.copy()
    members = [np.flatnonzero(node_of == n) for n in range(nnodes)]
    grid = Partition(shape, chunk_shape, nranks, "block")  # the inner chunk grid
    per_shard = tuple(s // c for s, c in zip(shard_shape, chunk_shape))
    chunk_node = shard_node
    for axis, k in enumerate(per_shard):  # node of each inner chunk = its shard's node
        chunk_node = np.repeat(chunk_node, k, axis=axis)
    chunk_node = chunk_node[tuple(slice(0, g) for g in grid.grid_shape)]
    owners = np.full(grid.grid_shape, -1, dtype=np.int32)
    best = np.zeros(grid.grid_shape, dtype=np.int64)
    for r, b in live:
        cov = np.where(chunk_node == node_of[r], grid._coverage(b), 0)
        better = cov > best
        owners[better] = r
        best[better] = cov[better]
    for n in range(nnodes):  # chunks none of the node's ranks covers: its ranks in turn
        left = np.argwhere((owners < 0) & (chunk_node == n))
        for i, coords in enumerate(map(tuple, left)):
            owners[coords] = members[n][i % len(members[n])]
    shard_writer = _index_writers(shard_node, owners, per_shard, members, nranks)
    return NodePlan(tuple(int(s) for s in shard_shape), shard_node, shard_writer,
                    Partition(shape, chunk_shape, nranks, "node", owners=owners))


def _index_writers(shard_node, owners, per_shard, members, nranks) -> np.ndarray:
    """Each shard's index writer: the rank of its node that writes most of its inner
    chunks (when that is all of them, the rank knows where every chunk went and no other
    rank need tell it: `zarrhpc.mpi.aggregate`); a tie, or a shard with no inner chunk,
    goes to the node's ranks in turn over its shards."""
    shard_of = np.ravel_multi_index(
        tuple(i // k for i, k in zip(np.indices(owners.shape), per_shard)), shard_node.shape)
    counts = np.bincount((shard_of * nranks + owners).reshape(-1),
                         minlength=shard_node.size * nranks).reshape(shard_node.size, nranks)
    writer = np.empty(shard_node.size, dtype=shard_node.dtype)
    turn = np.zeros(len(members), dtype=np.int64)
    for i, n in enumerate(shard_node.reshape(-1)):
        ranks = members[n]
        first = turn[n] % len(ranks)
        turn[n] += 1
        order = [ranks[(first + j) % len(ranks)] for j in range(len(ranks))]
        writer[i] = max(order, key=lambda r: counts[i, r])  # the first of the best in turn
    return writer.reshape(shard_node.shape)


def node_boxes(boxes, node_of) -> list[Box | None]:
    """The bounding box of each node's ranks' boxes (None for a node holding nothing)."""
    out: list = [None] * (max(node_of) + 1)
    for b, n in zip(boxes, node_of):
        if not box_size(b):
            continue
        cur = out[n]
        out[n] = b if cur is None else tuple(
            (min(a0, b0), max(a1, b1)) for (a0, a1), (b0, b1) in zip(cur, b))
    return out


def writer_groups(node_of, per_node: int) -> list[int]:
    """Each rank's group when every node's ranks (consecutive in rank order) are cut into
    at most ``per_node`` groups of about equal size; groups are numbered node by node.
    `node_boxes` of the groups gives the regions `choose_shards` makes whole shards."""
    if per_node < 1:
        raise ValueError(f"per_node: expected a positive integer, got {per_node!r}")
    members: dict = {}
    for r, n in enumerate(node_of):
        members.setdefault(n, []).append(r)
    out = [0] * len(node_of)
    first = 0
    for n in sorted(members):
        ranks = members[n]
        g = min(len(ranks), per_node)
        for i, r in enumerate(ranks):
            out[r] = first + i * g // len(ranks)
        first += g
    return out


def choose_shards(shape, chunks, nboxes) -> tuple[int, ...]:
    """A shard shape (a multiple of ``chunks``) under which each node's box is whole shards.

    Along each axis the shard length is the greatest common divisor of the nodes' inner
    boundaries when that is a multiple of the chunk length (the whole axis when no node
    boundary crosses it). Otherwise no regular grid fits them: the shard length is the
    median node extent rounded to chunks, and the pieces that cross a node boundary go
    through the exchange.
    """
    out = []
    for axis, (n, c) in enumerate(zip(shape, chunks)):
        cuts = {v for b in nboxes if b is not None for v in b[axis]} - {0, n}
        whole = max(c, -(-n // c) * c)
        if not cuts:
            out.append(whole)
            continue
        g = math.gcd(*cuts)
        if g % c == 0:
            out.append(g)
            continue
        extents = sorted(b[axis][1] - b[axis][0] for b in nboxes if b is not None)
        out.append(max(c, round(extents[len(extents) // 2] / c) * c))
    return tuple(out)
