"""The long randomised MPI run (``make test-mpi-long``), beyond what ``make test`` runs.

- node-aggregated shards: random arrays and decompositions on 2-6 ranks, simulated node
  sizes 1-3, each case against a serial write and zarr-python (node_worker.py);
- N-to-M restarts: written on 4 ranks as 2 nodes, read on 1, 2, 3, 5 and 6 ranks;
- kills: SIGKILL of every rank during asynchronous saves and during drains, repeated, then
  the newest committed step is checked (the kill tests of test_checkpoint_mpi.py);
- kills during collective writes, node-aggregated writes and resizes (kill_mpi.py,
  ``max(10, CASES)`` per kind): torn chunks, lost data, temporary files repaired.

Usage: ``python tests/mpi/long_run.py [CASES]``; exits non-zero on the first failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from zarrhpc.testing.scripts import load_script

HERE = Path(__file__).parent


def mpi(n: int, *args: str, env: dict | None = None) -> None:
    import os
    import shutil

    mpiexec = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or "mpiexec"
    full = {**os.environ, "ZARRHPC_NUM_THREADS": "1", **(env or {})}
    subprocess.run([mpiexec, "-n", str(n), sys.executable, "-m", "mpi4py", *args],
                   env=full, check=True, timeout=1800)


def main(cases: int) -> int:
    seed = 100
    for n in (2, 3, 4, 5, 6):
        for k in (1, 2, 3):
            seed += 1
            with tempfile.TemporaryDirectory() as d:
                mpi(n, str(HERE / "node_worker.py"), d, str(seed), str(cases),
                    env={"ZARRHPC_RANKS_PER_NODE": str(k)})
                report = json.loads(Path(d, "report.json").read_text())
                bad = [r for r in report if r["failures"]]
                print(f"node policy: {n} ranks, {k} per node, seed {seed}: "
                      f"{len(report)} cases, {len(bad)} failed", flush=True)
                if bad:
                    print(json.dumps(bad[:3], indent=1))
                    return 1
    with tempfile.TemporaryDirectory() as d:
        mpi(4, str(HERE / "ckpt2_worker.py"), "write", d, env={"ZARRHPC_RANKS_PER_NODE": "2"})
        for m in (1, 2, 3, 5, 6):
            mpi(m, str(HERE / "ckpt2_worker.py"), "read", d)
        print("N-to-M: written on 4, read on 1, 2, 3, 5, 6: ok", flush=True)
    rounds = max(1, cases // 10)
    for _ in range(rounds):
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(HERE / "test_checkpoint_mpi.py"), "-k", "sigkill"], check=True)
    print(f"kill tests: {rounds} rounds ok")
    kill_mpi = load_script(HERE / "kill_mpi.py")
    counts = kill_mpi.run(kills=max(10, cases), seed=seed)
    for kind, t in counts.items():
        errors = t.pop("errors")
        print(f"kills during collective writes, {kind}: "
              + " ".join(f"{k}={v}" for k, v in t.items()), flush=True)
        if t["torn"] or t["lost"] or t["open_failed"] or t["repaired"] != t[
                "leftover_temp_files"]:
            print(errors[:3])
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 40))
