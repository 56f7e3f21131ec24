"""Regression: string arrays written and read by several threads must not deadlock.

The vlen kernels held numpy's StringDType allocator while waiting for the GIL; a thread
comparing a chunk view of the same source array held the GIL while waiting for that
allocator: the write hung forever. The run is in a subprocess so that a hang fails the
test instead of stalling the suite.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import zarrhpc
    d = sys.argv[1]
    v = np.array([str(i) * (i % 7) for i in range(400)], dtype=np.dtypes.StringDType())
    with zarrhpc.config.set(threads=4):
        for fmt in (2, 3):
            for trial in range(10):
                path = f"{d}/s{fmt}_{trial}.zarr"
                a = zarrhpc.create_array(path, shape=(400,), chunks=(10,), dtype=str,
                                         zarr_format=fmt)
                a[:] = v
                assert (a[:] == v).all()
                a.vindex[np.arange(0, 400, 3)] = "x"
                w = v.copy()
                w[::3] = "x"
                assert (a[:] == w).all()
    print("done")
""")


def test_threaded_string_writes_and_reads_finish(tmp_path):
    try:
        proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("threaded string writes hung (StringDType allocator vs GIL deadlock)")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "done"
