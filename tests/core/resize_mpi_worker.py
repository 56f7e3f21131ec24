"""``mpiexec -n N python -m mpi4py resize_mpi_worker.py DIR``: collective resizes."""

import sys

import numpy as np
from mpi4py import MPI

import zarrhpc
from zarrhpc import mpi as zmpi
from zarrhpc.errors import CollectiveError

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
root = sys.argv[1]
arr = zmpi.create_array(comm, root, shape=(4, 6), chunks=(2, 3), dtype="i4", fill_value=0)
if rank == 0:
    arr[...] = np.arange(24, dtype="i4").reshape(4, 6) + 1
comm.Barrier()
arr.refresh()
# grow: every rank writes its own new rows after the collective resize
assert zmpi.resize(comm, arr, (4 + 2 * size, 6)) == (4 + 2 * size, 6)
assert arr.shape == (4 + 2 * size, 6)
arr[4 + 2 * rank:6 + 2 * rank] = 100 + rank
comm.Barrier()
arr.refresh()
expected = np.zeros((4 + 2 * size, 6), "i4")
expected[:4] = np.arange(24).reshape(4, 6) + 1
for r in range(size):
    expected[4 + 2 * r:6 + 2 * r] = 100 + r
np.testing.assert_array_equal(arr[...], expected)
# shrink: the chunks outside are erased once (rank 0), every rank sees the new shape
zmpi.resize(comm, arr, (2, 3))
assert arr.shape == (2, 3)
np.testing.assert_array_equal(arr[...], expected[:2, :3])
# a bad shape fails on rank 0 and raises CollectiveError on the others
try:
    zmpi.resize(comm, arr, (1, 2, 3))
except CollectiveError as exc:
    assert rank != 0 and "rank 0" in str(exc)
except ValueError:
    assert rank == 0
else:
    raise AssertionError("no error")
assert zarrhpc.open_array(root).shape == (2, 3)
comm.Barrier()
if rank == 0:
    print("RESIZE-OK")
