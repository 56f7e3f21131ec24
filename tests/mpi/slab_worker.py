"""Slab decompositions on a plain LocalStore: ``mpiexec -n N python -m mpi4py slab_worker.py DIR``.

Chunks span whole planes, so the pieces of a boundary chunk are contiguous runs: they are
sent from the block in place and written with one writev, with no assembly copy. Rank 0
records what it reads back in ``DIR/slabs.json``.
"""

import json
import sys
from pathlib import Path

import numpy as np


def main(root: str) -> int:
    from mpi4py import MPI

    from zarrhpc import mpi as zmpi
    from zarrhpc.bench.mpi import slabs

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    shape, chunks = (40, 6, 8), (8, 6, 8)
    g = np.arange(np.prod(shape), dtype="f8").reshape(shape) + 1
    g[16:24] = 0  # one chunk of fill only: erased, not stored
    regions = [(s, slice(None), slice(None)) for s in slabs(shape[0], size, chunks[0])]
    out = {}
    chains = {"raw": None, "zstd": [{"name": "zstd", "configuration": {"level": 1}}],
              "big-endian": "big"}
    for name, comp in chains.items():
        kwargs = {"compressors": None if comp == "big" else comp}
        if comp == "big":
            kwargs["serializer"] = {"name": "bytes", "configuration": {"endian": "big"}}
        arr = zmpi.create_array(comm, root, name=name, shape=shape, chunks=chunks, dtype="f8",
                                fill_value=0, **kwargs)
        reg = regions[rank]
        zmpi.write(arr, reg, g[reg], comm)
        comm.Barrier()
        if rank == 0:
            back = arr[...]
            files = sorted(p.name for p in Path(root, name, "c").iterdir())
            raw = None
            if name == "raw":  # the stored chunk is the C-order bytes of the region
                raw = Path(root, name, "c", "1", "0", "0").read_bytes() == g[8:16].tobytes()
            out[name] = {"equal": bool(np.array_equal(back, g)), "files": files, "raw": raw}
    if rank == 0:
        Path(root, "slabs.json").write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
