"""N5 reads against numpy on random containers (zarrhpc.testing.differential_n5): written
by tensorstore's n5 driver or block by block as Java's N5 and z5py write them (short edge
blocks, mode-1 headers), missing blocks, every compression, both axis orders, every
selection form; a block whose header lies about its size must raise CorruptChunkError.

Short in ``make test``; long: ``ZARRHPC_LONG=1`` (600 containers clean when written)."""

import os

import pytest

from zarrhpc.testing.differential_n5 import run_case

pytest.importorskip("tensorstore")

N = 600 if os.environ.get("ZARRHPC_LONG", "") not in ("", "0") else 16


@pytest.mark.parametrize("seed", range(N))
def test_random_n5_containers(tmp_path, seed):
    counts = run_case(seed, str(tmp_path), lie=True)
    assert counts["reads"] == 14 and counts["lies"] in (0, 1)
