"""Boolean-mask reads and writes vs numpy and zarr-python (zarrhpc.testing.differential_mask):
the engine's mask pass and the point path on random layouts (1-4 dimensions, edge chunks,
size-0 axes, missing chunks, v2 F order and big-endian, shards and a shard in a shard,
every dtype family) with all-False / all-True / one-True / strided / F-order / reversed
masks, ``out=``, mask writes, and integer 0/1 masks (zarr-python's error).

Short in ``make test``; long: ``ZARRHPC_LONG=1`` (the numbers are in the hunt's notes)."""

import os

import pytest

from zarrhpc.testing.differential_mask import run_program

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
N = 600 if LONG else 8


@pytest.mark.parametrize("seed", range(N))
def test_masks_read_and_write_as_numpy(tmp_path, seed):
    out = run_program(seed, str(tmp_path))
    assert out.reads >= 5
    assert not out.problems, out.problems[:5]


def test_the_short_run_reaches_the_mask_pass(tmp_path):
    native = sum(run_program(seed, str(tmp_path / str(seed)), peers=False).native
                 for seed in range(N))
    assert native > 0


def test_the_harness_sees_a_wrong_value(tmp_path, monkeypatch):
    """A mask read that changes one selected element is reported."""
    import zarrhpc.core.array as array

    real = array.read_mask

    def corrupting(prep, mask, result_for):
        got = real(prep, mask, result_for)
        if got is not None and got.size:
            got.reshape(-1).view("u1")[:1] ^= 0xFF
        return got

    monkeypatch.setattr(array, "read_mask", corrupting)
    problems = []
    for seed in range(40):
        problems += run_program(seed, str(tmp_path / str(seed)), peers=False).problems
        if problems:
            break
    assert problems and "differs from numpy" in problems[0]
