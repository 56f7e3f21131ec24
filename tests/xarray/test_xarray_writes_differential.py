"""Random xarray write programs (appends, region writes with "auto" and slices, partial
chunks, v2/v3, shards, _FillValue): zarrhpc.xarray.to_zarr and xarray's own to_zarr on
the same steps give stores that xarray's zarr engine and zarrhpc's backend read
identically (zarrhpc.testing.differential_xarray).

Short in ``make test``; long: ``ZARRHPC_LONG=1``."""

import os

import pytest

pytest.importorskip("xarray")
pytest.importorskip("zarr")

from zarrhpc.testing.differential_xarray import run_program  # noqa: E402

pytestmark = pytest.mark.interop

N = 300 if os.environ.get("ZARRHPC_LONG", "") not in ("", "0") else 5


@pytest.mark.parametrize("seed", range(N))
def test_xarray_write_programs_same_as_xarray(tmp_path, seed):
    out = run_program(seed, str(tmp_path))
    assert out.steps >= 2
    assert not out.problems, out.problems


def test_the_harness_sees_a_wrong_write(tmp_path, monkeypatch):
    """A writer that stores one value wrong is reported."""
    import zarrhpc.xarray as zx

    real = zx.to_zarr

    def wrong(ds, store, **kw):
        ds = ds.copy(deep=True)
        ds["b"].values[-1:] += 1  # the last time step of every write
        return real(ds, store, **kw)

    monkeypatch.setattr(zx, "to_zarr", wrong)
    out = run_program(0, str(tmp_path))
    assert out.problems
