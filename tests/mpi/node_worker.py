"""Node-aggregated shards on real ranks: ``mpiexec -n N python node_worker.py DIR SEED CASES``.

Every case: a random sharded array (shape, inner chunks, shards, codec, index location),
random unaligned slab or block decompositions, written under the "node" policy with the
nodes of ``ZARRHPC_RANKS_PER_NODE``; rank 0 compares with numpy, with zarr-python's read
of the same files, and with a serial zarrhpc write (the stored shard bytes must be equal),
and counts the files and the shards several ranks write into (`_shared_shards`). Writes
``DIR/report.json`` (rank 0).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np


def decomposition(rng, shape, size):
    """One box per rank: unaligned slabs along a random axis, or a 2-D block grid."""
    axis = int(rng.integers(len(shape)))
    if size > 1 and len(shape) > 1 and rng.random() < 0.4 and size % 2 == 0:
        a0 = np.sort(rng.integers(1, shape[0], 1)) if shape[0] > 1 else [0]
        cuts0 = [0, int(a0[0]), shape[0]]
        cuts1 = [0] + sorted(rng.choice(np.arange(1, shape[1]), size // 2 - 1, replace=False).tolist()) + [shape[1]] if shape[1] >= size // 2 else None
        if cuts1 is not None:
            boxes = []
            for i in range(2):
                for j in range(size // 2):
                    boxes.append(((cuts0[i], cuts0[i + 1]), (cuts1[j], cuts1[j + 1]))
                                 + tuple((0, n) for n in shape[2:]))
            return boxes
    n = shape[axis]
    cuts = [0] + sorted(rng.integers(0, n + 1, size - 1).tolist()) + [n]
    return [tuple((cuts[r], cuts[r + 1]) if d == axis else (0, shape[d]) for d in range(len(shape)))
            for r in range(size)]


def main(root: str, seed: int, cases: int) -> int:
    import zarr
    from mpi4py import MPI

    import zarrhpc
    from zarrhpc import mpi as zmpi
    from zarrhpc.mpi.aggregate import _shared_shards
    from zarrhpc.mpi.nodes import node_map

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    nodes = node_map(comm)
    report = []
    for case in range(cases):
        rng = np.random.default_rng([seed, case])
        ndim = int(rng.integers(1, 4))
        chunks = tuple(int(rng.integers(1, 6)) for _ in range(ndim))
        per = tuple(int(rng.integers(1, 4)) for _ in range(ndim))
        shards = tuple(c * k for c, k in zip(chunks, per))
        shape = tuple(int(rng.integers(1, 4 * s + 3)) for s in shards)
        dtype = str(rng.choice(["f8", "i4", "u2"]))
        full = (np.arange(np.prod(shape)) % 97).astype(dtype).reshape(shape)
        full[tuple(slice(0, max(1, n // 3)) for n in shape)] = 0  # some fill chunks
        comp = [None, "auto", [{"name": "zstd", "configuration": {"level": 1}}],
                [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                     "shuffle": "shuffle"}}]][int(rng.integers(4))]
        loc = str(rng.choice(["end", "start"]))
        boxes = decomposition(rng, shape, size)
        reg = tuple(slice(a, b) for a, b in boxes[rank])
        name = f"c{case}"
        kw = {"shape": shape, "chunks": chunks, "dtype": dtype, "compressors": comp,
              "shards": {"shape": shards, "index_location": loc}, "fill_value": 0}
        a = zmpi.create_array(comm, root, name=name, **kw)
        own = zmpi.Ownership(a, comm, "node", regions=reg)
        zmpi.write(a, reg, full[reg], comm, ownership=own)
        # owner(): the index writer is a rank of the shard's node
        for coords in np.ndindex(*own.plan.shard_node.shape):
            assert nodes.node_of[own.owner(coords)] == own.plan.shard_node[coords]
        mine = own.owned_chunks()
        assert all(nodes.node_of[own.partition.owner(c)] == nodes.node for c in mine)
        comm.Barrier()
        if rank == 0:
            failures = []
            got = zarr.open_array(os.path.join(root, name), mode="r")[...]
            if not np.array_equal(got, full):
                failures.append("zarr-python read differs")
            if not np.array_equal(zarrhpc.open_array(os.path.join(root, name))[...], full):
                failures.append("zarrhpc read differs")
            serial = zarrhpc.create_array(os.path.join(root, "serial_" + name), **kw)
            serial[...] = full
            layout = serial._sharding
            ours = _files(os.path.join(root, name), layout)
            theirs = _files(os.path.join(root, "serial_" + name), layout)
            if ours != theirs:
                diff = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
                failures.append(f"stored bytes differ from the serial write: {diff[:4]}")
            gaps = _gaps(os.path.join(root, name), layout)
            if gaps:
                failures.append(f"shards with gaps or overlaps: {gaps[:4]}")
            shared = len(_shared_shards(own.plan, per, range(own.plan.shard_node.size)))
            report.append({"case": case, "shape": shape, "chunks": chunks, "shards": shards,
                           "boxes": boxes, "files": len(ours), "failures": failures,
                           "shared": shared, "solo": own.plan.shard_node.size - shared})
        comm.Barrier()
    if rank == 0:
        with open(os.path.join(root, "report.json"), "w") as f:
            json.dump(report, f)
    return 0


def _files(root: str, layout) -> dict:
    """Every file; a shard as its inner chunks' stored bytes (the spec leaves their order
    in the file free: the node's ranks write theirs in rank order)."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                data = f.read()
            if n != "zarr.json":
                index = layout.read_index(data).reshape(-1, 2)
                data = tuple(None if o == 2**64 - 1 else data[int(o):int(o) + int(k)]
                             for o, k in index)
            out[os.path.relpath(p, root)] = data
    return out


def _gaps(root: str, layout) -> list:
    """Shard files whose inner chunks and index do not tile the file exactly (no holes,
    no overlaps, nothing after the end)."""
    bad = []
    for d, _, names in os.walk(root):
        for n in names:
            if n == "zarr.json":
                continue
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                data = f.read()
            runs = sorted((int(o), int(k)) for o, k in layout.read_index(data).reshape(-1, 2)
                          if o != 2**64 - 1)
            pos = layout.index_nbytes if layout.index_location == "start" else 0
            for o, k in runs:
                if o != pos:
                    bad.append((os.path.relpath(p, root), o, pos))
                    break
                pos += k
            else:
                end = pos + (layout.index_nbytes if layout.index_location == "end" else 0)
                if end != len(data):
                    bad.append((os.path.relpath(p, root), end, len(data)))
    return bad


def node_report(root: str) -> int:
    """``node_worker.py map DIR``: every rank writes what it learned about the nodes."""
    from mpi4py import MPI

    from zarrhpc.mpi.nodes import node_comm, node_map

    comm = MPI.COMM_WORLD
    try:
        nodes = node_map(comm)
    except ValueError as exc:  # reported, not raised: an abort would leak MPI's shared memory
        with open(os.path.join(root, f"error_{comm.Get_rank()}"), "w") as f:
            f.write(str(exc))
        return 0
    local = node_comm(comm)
    with open(os.path.join(root, f"map_{comm.Get_rank()}.json"), "w") as f:
        json.dump({"node_of": nodes.node_of, "node": nodes.node, "simulated": nodes.simulated,
                   "local": local.allgather(comm.Get_rank())}, f)
    return 0


def fail_midway(root: str) -> int:
    """``node_worker.py fail DIR``: rank 1's writes into the shard files fail; every rank
    must raise (rank 1 its OSError, the others CollectiveError naming it), no temporary
    file may be left, and the array must still hold what it held before."""
    from mpi4py import MPI

    from zarrhpc import mpi as zmpi
    from zarrhpc.errors import CollectiveError
    from zarrhpc.mpi import aggregate

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    shape = (40, 12)
    cuts = [0, 7, 19, 33, 40][: size + 1] if size == 4 else np.linspace(0, 40, size + 1).astype(int)
    reg = (slice(int(cuts[rank]), int(cuts[rank + 1])), slice(None))
    old = np.arange(480, dtype="f8").reshape(shape) + 1
    a = zmpi.create_array(comm, root, name="x", shape=shape, chunks=(4, 6), shards=(20, 12),
                          dtype="f8")
    own = zmpi.Ownership(a, comm, "node", regions=reg)
    zmpi.write(a, reg, old[reg], comm, ownership=own)
    if rank == 1:
        def broken(*args, **kwargs):
            raise OSError(28, "No space left on device (injected)")

        aggregate._pwrite = broken
    try:
        zmpi.write(a, reg, -old[reg], comm, ownership=own)
    except OSError as exc:
        assert rank == 1 and "injected" in str(exc), (rank, exc)
    except CollectiveError as exc:
        assert rank != 1 and "rank 1 failed" in str(exc) and "injected" in str(exc), (rank, exc)
    else:
        raise AssertionError(f"rank {rank}: the write did not fail")
    comm.Barrier()
    if rank == 0:
        leftovers = [n for _, _, names in os.walk(root) for n in names if n.startswith(".zhtmp-")]
        assert not leftovers, leftovers
        import zarr

        assert np.array_equal(zarr.open_array(os.path.join(root, "x"), mode="r")[...], old)
        with open(os.path.join(root, "fail_ok"), "w") as f:
            f.write("ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "map":
        sys.exit(node_report(sys.argv[2]))
    if sys.argv[1] == "fail":
        sys.exit(fail_midway(sys.argv[2]))
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
