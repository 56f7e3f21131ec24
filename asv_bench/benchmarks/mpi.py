"""Collective writes and reads on 4 real ranks (zarrhpc.bench.mpi under mpiexec).

asv cannot time inside an MPI job, so one job (``setup_cache``) measures every method
and the ``track_`` benchmarks report its medians in GB/s (aggregate: global bytes / wall
time from a barrier to the slowest rank). Skipped when the [mpi] extra is missing.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RANKS, SIZE_MIB = 4, 256
METHODS = ["zarrhpc collective", "zarrhpc read direct", "zarrhpc read owners",
           "h5py per rank (a)", "h5py per rank, same chunks (a')", "h5py gathered (b)", "zarr-python gathered (c)"]


class CollectiveIO:
    params = [["cubes", "slabs"], ["none", "blosc"], METHODS]
    param_names = ["layout", "compressors", "method"]
    unit = "GB/s"
    timeout = 900

    def setup_cache(self):
        mpiexec = shutil.which("mpiexec", path=str(Path(sys.executable).parent))
        if mpiexec is None:
            return None
        tmp = tempfile.mkdtemp(prefix="zarrhpc-asv-mpi-")
        out = os.path.join(tmp, "bench.json")
        try:
            subprocess.run([mpiexec, "-n", str(RANKS), sys.executable, "-m", "mpi4py", "-m",
                            "zarrhpc.bench.mpi", "--size-mib", str(SIZE_MIB), "--repeat", "3",
                            "--dir", os.path.join(tmp, "data"), "--json", out],
                           check=True, capture_output=True, timeout=850)
            return json.loads(Path(out).read_text())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def setup(self, results, layout, compressors, method):
        if results is None or method not in results["rows"][layout].get(compressors, {}):
            raise NotImplementedError("needs the [mpi] extra (and h5py/zarr for the peers)")

    def track_bandwidth(self, results, layout, compressors, method):
        return results["rows"][layout][compressors][method]
