"""Many ranks, one array: collective create/open, chunk ownership, collective writes/reads.

>>> from zarrhpc import mpi as zmpi                      # doctest: +SKIP
>>> arr = zmpi.create_array(comm, "run.zarr", shape=(64, 64), chunks=(16, 16), dtype="f8")
>>> own = zmpi.Ownership(arr, comm, policy="block")     # or "cyclic", "decomposition"
>>> zmpi.write(arr, (slice(lo, hi), slice(None)), block, comm)   # collective
>>> block = zmpi.read(arr, (slice(lo, hi), slice(None)), comm)   # collective

This is the only part of zarrhpc that uses mpi4py (the ``[mpi]`` extra), and it imports
it only when a collective operation needs MPI itself. ``zarrhpc`` does not import this
package. `zarrhpc.mpi.partition` holds the ownership arithmetic, testable without MPI.
"""

from zarrhpc.mpi.collective import Ownership, create_array, open_array, read, write, write_owned
from zarrhpc.mpi.partition import POLICIES
from zarrhpc.mpi.resize import resize

__all__ = ["POLICIES", "Ownership", "create_array", "open_array", "read", "resize", "write",
           "write_owned"]
