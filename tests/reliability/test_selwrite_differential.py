"""Selection writes vs numpy and zarr-python (zarrhpc.testing.differential_selwrite):
coordinate, orthogonal, mask, block and basic writes through the native selection writes
and the Python path on random layouts (1-4 dimensions, edge chunks, size-0 axes, v2 C/F
order, v3 transpose and big-endian bytes, shards, compressors), every dtype family
(ml_dtypes' bfloat16 and float8s, NaT, structured, fixed and variable strings), fill
values NaN / -0.0 / 7 / NaT, ``write_empty_chunks`` both ways; repeated and negative
indices, scalars, broadcast, F-order and reversed values.

Short in ``make test``; long: ``ZARRHPC_LONG=1`` (the numbers are in the hunt's notes)."""

import os

import pytest

import zarrhpc.core._select as select
from zarrhpc.testing.differential_selwrite import run_program

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
N = 1500 if LONG else 12


@pytest.mark.parametrize("seed", range(N))
def test_selection_writes_store_what_numpy_stores(tmp_path, seed):
    out = run_program(seed, str(tmp_path))
    assert not out.problems, out.problems[:3]


def test_the_short_run_reaches_the_native_writes(tmp_path, monkeypatch):
    calls = []
    real = select._native_write

    def counting(prep, method, *args, **kwargs):
        status = real(prep, method, *args, **kwargs)
        calls.append((method, status is not None))
        return status

    monkeypatch.setattr(select, "_native_write", counting)
    writes = sum(run_program(seed, str(tmp_path / str(seed)), peers=False).writes
                 for seed in range(N))
    assert writes >= 4 * N
    native = {m for m, ran in calls if ran}
    assert native == {"write_points", "write_mask", "write_orthogonal"}


def test_the_harness_sees_a_wrong_value(tmp_path, monkeypatch):
    """A native selection write whose first value has one byte changed is reported."""
    real = select._values

    def corrupting(flat):
        got = real(flat).copy()
        if got.size and got.dtype.kind not in "OT":
            got.reshape(-1).view("u1")[:1] ^= 0x5A
        return got

    monkeypatch.setattr(select, "_values", corrupting)
    problems = []
    for seed in range(60):
        problems += run_program(seed, str(tmp_path / str(seed)), peers=False).problems
        if problems:
            break
    assert problems and "differs from numpy" in problems[0]
