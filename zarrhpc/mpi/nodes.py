"""Which ranks share a node: from MPI (``MPI_COMM_TYPE_SHARED``) or simulated.

A node is the unit that owns whole shards under the ``"node"`` ownership policy (see
`zarrhpc.mpi.aggregate`): its ranks write into the same shard files. On a cluster the
ranks of a node are the ones that share memory. ``ZARRHPC_RANKS_PER_NODE=k`` overrides
that so that one machine can act as several nodes in tests and benchmarks: a simulated
node is a consecutive block of ``k`` ranks (node ``rank // k``; the last may be smaller).

Life cycle: `node_map(comm)` is collective the first time it is called for a
communicator (one split and one allgather), then cached by the communicator's handle.
`node_comm(comm)` splits once more, into one communicator per node, also cached.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["ENV", "NodeMap", "node_comm", "node_map", "ranks_per_node"]

ENV = "ZARRHPC_RANKS_PER_NODE"

_MAPS: dict = {}
_COMMS: dict = {}


def ranks_per_node() -> int | None:
    """The simulated node size from ``ZARRHPC_RANKS_PER_NODE``, or None when unset."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    try:
        k = int(raw)
    except ValueError:
        k = 0
    if k < 1:
        raise ValueError(f"{ENV}: expected a positive integer (ranks per simulated node), "
                         f"got {raw!r}")
    return k


@dataclass(frozen=True)
class NodeMap:
    """The node of every rank of a communicator.

    Attributes
    ----------
    node_of : the node index of each rank; nodes are numbered in order of their lowest rank.
    rank : this rank.
    simulated : True when the nodes come from ``ZARRHPC_RANKS_PER_NODE``.
    """

    node_of: tuple[int, ...]
    rank: int = 0
    simulated: bool = False

    @classmethod
    def blocks(cls, nranks: int, k: int, rank: int = 0) -> NodeMap:
        """Simulated nodes of ``k`` consecutive ranks (the last may be smaller)."""
        return cls(tuple(r // k for r in range(nranks)), rank, True)

    @property
    def nnodes(self) -> int:
        return max(self.node_of) + 1 if self.node_of else 0

    @property
    def node(self) -> int:
        """This rank's node."""
        return self.node_of[self.rank]

    def members(self, node: int | None = None) -> list[int]:
        """The ranks of ``node`` (default: this rank's), ascending."""
        node = self.node if node is None else node
        return [r for r, n in enumerate(self.node_of) if n == node]

    @property
    def local_rank(self) -> int:
        return self.members().index(self.rank)


def _key(comm):
    return comm.py2f() if hasattr(comm, "py2f") else id(comm)


def node_map(comm) -> NodeMap:
    """Which ranks of ``comm`` share a node (collective on first use per communicator)."""
    key = _key(comm)
    found = _MAPS.get(key)
    if found is not None:
        return found
    rank, size = comm.Get_rank(), comm.Get_size()
    k = ranks_per_node()
    if k is not None:
        result = NodeMap.blocks(size, k, rank)
    elif size == 1:
        result = NodeMap((0,), 0)
    else:
        from zarrhpc.mpi._comm import _mpi

        local = comm.Split_type(_mpi().COMM_TYPE_SHARED, key=rank)
        lowest = min(local.allgather(rank))  # the node's name: its lowest rank
        local.Free()
        firsts = comm.allgather(lowest)
        order = {r: i for i, r in enumerate(sorted(set(firsts)))}
        result = NodeMap(tuple(order[f] for f in firsts), rank)
    _MAPS[key] = result
    return result


def node_comm(comm):
    """A communicator of the ranks of this rank's node (collective on first use)."""
    key = _key(comm)
    found = _COMMS.get(key)
    if found is None:
        nodes = node_map(comm)
        found = _COMMS[key] = comm.Split(nodes.node, nodes.rank)
    return found
