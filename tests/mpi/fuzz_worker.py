"""Random collective writes and reads through the public surface, checked against numpy.

``mpiexec -n N python -m mpi4py fuzz_worker.py DIR SEED NCASES``

Every rank draws the same cases from ``SEED``: a random array (1-D to 4-D, ragged chunk
grid, sharded or not, v2 or v3, a random dtype, codec and fill value), random disjoint
regions that cut chunks anywhere (some ranks get nothing, the regions may leave parts
of the array out), a random ownership policy, an optional serial prefill, and one or two
collective writes. Then rank 0 reads the array back with zarr-python and with zarrhpc,
and every rank reads a random region collectively (both methods); each must equal a
serial numpy write of the same data. Rank 0 writes ``DIR/fuzz.json``: one entry per
case with its parameters (enough to replay it) and what failed, if anything.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import numpy as np

DTYPES = ("f8", "i4", "u1", "f4", ">i2", "<u8")
CODECS = ("none", "blosc", "zstd", "gzip")
POLICIES = ("block", "cyclic", "decomposition")


def compressors(codec: str, zarr_format: int):
    if codec == "none":
        return None
    if zarr_format == 2:
        return {"blosc": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
                "zstd": {"id": "zstd", "level": 1}, "gzip": {"id": "zlib", "level": 1}}[codec]
    return {"blosc": {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                         "shuffle": "shuffle"}},
            "zstd": {"name": "zstd", "configuration": {"level": 1}},
            "gzip": {"name": "gzip", "configuration": {"level": 1}}}[codec]


def _split(rng, box, parts: int) -> list:
    """``parts`` disjoint boxes tiling ``box`` by recursive bisection at random points (so
    cuts fall anywhere, chunk boundaries or not); some may be empty."""
    if parts == 1:
        return [box]
    axis = int(rng.integers(len(box)))
    lo, hi = box[axis]
    cut = int(rng.integers(lo, hi + 1))
    left = int(rng.integers(1, parts))
    a = [*box[:axis], (lo, cut), *box[axis + 1:]]
    b = [*box[:axis], (cut, hi), *box[axis + 1:]]
    return _split(rng, tuple(a), left) + _split(rng, tuple(b), parts - left)


def random_regions(rng, shape, nranks: int) -> list:
    """One region per rank (a tuple of slices, or None): disjoint, any alignment."""
    if rng.random() < 0.3:  # a sub-box: the rest of the array stays as stored
        bounds = []
        for n in shape:
            a, b = sorted(rng.integers(0, n + 1, 2).tolist())
            bounds.append((a, b) if b > a else (0, n))
    else:
        bounds = [(0, n) for n in shape]
    boxes = _split(rng, tuple(bounds), nranks)
    rng.shuffle(boxes)
    out = []
    for box in boxes:
        empty = any(b <= a for a, b in box)
        if empty and rng.random() < 0.5:
            out.append(None)  # a rank with nothing says so with None
        else:
            out.append(tuple(slice(a, b) for a, b in box))
    return out


def make_case(seed: int, index: int, nranks: int) -> dict:
    rng = np.random.default_rng([seed, index, nranks])
    ndim = int(rng.integers(1, 5))
    budget = int(rng.integers(200, 30000))
    edge = max(1, round(budget ** (1 / ndim)))
    shape = [int(rng.integers(1, 2 * edge + 1)) for _ in range(ndim)]
    chunks = [int(rng.integers(1, n + 2)) for n in shape]  # may exceed the edge
    zarr_format = 2 if rng.random() < 0.2 else 3
    shards = None
    if zarr_format == 3 and rng.random() < 0.35:
        shards = [c * int(rng.integers(1, 4)) for c in chunks]
    dtype = str(rng.choice(DTYPES))
    codec = str(rng.choice(CODECS))
    fill = 0 if rng.random() < 0.5 else int(rng.integers(1, 100))
    return {"seed": seed, "index": index, "nranks": nranks, "shape": shape, "chunks": chunks,
            "shards": shards, "zarr_format": zarr_format, "dtype": dtype, "codec": codec,
            "fill_value": fill, "write_empty_chunks": bool(rng.random() < 0.3),
            "policy": str(rng.choice(POLICIES)), "prefill": bool(rng.random() < 0.5),
            "writes": int(rng.integers(1, 3)), "rng": [seed, index, nranks, 1]}


def _data(rng, shape, dtype, fill) -> np.ndarray:
    data = rng.integers(0, 120, shape).astype(dtype)
    # runs of the fill value, so that some assembled chunks are all fill (erased)
    mask = rng.random(shape) < rng.random()
    data[mask] = fill
    return data


def run_case(comm, root: str, case: dict) -> list[str]:
    """Run one case on every rank; returns this rank's failures (texts)."""
    import zarrhpc
    from zarrhpc import mpi as zmpi

    rank, size = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng(case["rng"])
    shape, dtype, fill = tuple(case["shape"]), case["dtype"], case["fill_value"]
    name = f"case{case['index']}"
    kwargs = {"name": name, "shape": shape, "chunks": tuple(case["chunks"]), "dtype": dtype,
              "compressors": compressors(case["codec"], case["zarr_format"]),
              "fill_value": fill, "zarr_format": case["zarr_format"],
              "write_empty_chunks": case["write_empty_chunks"]}
    if case["shards"]:
        kwargs["shards"] = tuple(case["shards"])
    if case["zarr_format"] == 2:
        kwargs["filters"] = None
    arr = zmpi.create_array(comm, root, **kwargs)
    want = np.full(shape, fill, dtype=dtype)
    if case["prefill"]:
        pre = _data(rng, shape, dtype, fill)
        if rank == 0:
            arr[...] = pre
        comm.Barrier()
        want[...] = pre
    failures = []
    for w in range(case["writes"]):
        regs = random_regions(rng, shape, size)
        g = _data(rng, shape, dtype, fill)
        mine = regs[rank]
        own = None
        if case["policy"] != "decomposition" or rng.random() < 0.5:
            regions = regs if case["policy"] == "decomposition" else None
            own = zmpi.Ownership(arr, comm, case["policy"], regions=regions)
        zmpi.write(arr, mine, None if mine is None else g[mine], comm, ownership=own)
        for reg in regs:
            if reg is not None:
                want[reg] = g[reg]
        if own is not None and rank == 0:
            # every stored chunk (shard) of the array must be in some owner's list once
            owned = [tuple(c) for r in range(size) for c in own.owned_chunks(r)]
            if len(owned) != len(set(owned)) or len(owned) != int(np.prod(own.grid_shape)):
                failures.append(f"write {w}: owned_chunks do not partition the grid")
    if rank == 0:
        import zarr

        got = zarr.open_array(f"{root}/{name}", mode="r")[...]
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)
            failures.append(f"zarr-python read differs at {len(bad)} elements, first {bad[0].tolist()}")
        mine_read = zarrhpc.open_array(root, path=name, mode="r")[...]
        if not np.array_equal(mine_read, want):
            failures.append("zarrhpc read differs")
    regs = random_regions(rng, shape, size)
    for method in ("direct", "owners"):
        block = zmpi.read(arr, regs[rank], comm, method=method)
        expect = want[regs[rank]] if regs[rank] is not None else None
        if expect is not None and not np.array_equal(block, expect):
            failures.append(f"rank {rank}: zmpi.read(method={method!r}) differs")
    return failures


def main(root: str, seed: int, ncases: int) -> int:
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    report = []
    for i in range(ncases):
        case = make_case(seed, i, size)
        try:
            failures = run_case(comm, root, case)
        except Exception:  # noqa: BLE001 - recorded, with the case to replay it
            failures = [f"rank {rank}: {traceback.format_exc()}"]
        everyone = comm.gather(failures, root=0)
        if rank == 0:
            report.append({"case": case, "failures": [f for fs in everyone for f in fs]})
    if rank == 0:
        Path(root, "fuzz.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
