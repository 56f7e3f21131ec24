"""Differential programs of xarray writes: zarrhpc.xarray.to_zarr against xarray's own
``Dataset.to_zarr`` (zarr-python) doing the same steps.

Life cycle of one program (``run_program(seed, root)``):

- Draw a dataset layout: v2 or v3, a 2-d variable (time, x) of a float or integer type and
  a 1-d one (time), chunk sizes that leave edge chunks, v3 shards (whole chunks per
  shard), an explicit ``_FillValue`` or none.
- Draw 1-3 steps after the first write (``mode="w"``, consolidated): appends along time
  of 1-5 steps, and region writes of a random time range (``region="auto"``, or
  explicit slices), both with numpy data and ``safe_chunks=False`` (partial chunks).
- Run the steps once with xarray's writer and once with zarrhpc's into two stores. A
  step that fails must fail for both.
- Read both stores with xarray's zarr engine and with zarrhpc's backend: all four must be
  identical (``xr.testing.assert_identical``); the raw arrays (zarrhpc reads) equal.

The tests are tests/xarray/test_xarray_writes_differential.py (a short run in ``make
test``; ``ZARRHPC_LONG=1`` runs many programs).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

import numpy as np

import zarrhpc

__all__ = ["Outcome", "run_program"]


@dataclass
class Outcome:
    """What one program saw."""

    steps: int = 0
    failed_both: int = 0
    problems: list[str] = field(default_factory=list)


def _dataset(xr, t0: int, nt: int, nx: int, rng: np.random.Generator, dtype: np.dtype):
    t = np.arange(t0, t0 + nt)
    if dtype.kind == "f":
        data = rng.normal(size=(nt, nx)).astype(dtype)
    else:
        data = rng.integers(0, 50, (nt, nx)).astype(dtype)
    v2 = rng.integers(0, 9, (nt,)).astype("i2")
    return xr.Dataset({"a": (("time", "x"), data), "b": (("time",), v2)},
                      coords={"time": t, "x": np.arange(nx)})


def _plan(xr, rng: np.random.Generator) -> tuple[int, dict, list]:
    fmt = int(rng.choice([2, 3]))
    nx, nt = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    dtype = np.dtype(str(rng.choice(["f4", "f8", "i4", "u2"])))
    ct, cx = int(rng.integers(1, 5)), int(rng.integers(1, nx + 1))
    enc: dict = {"a": {"chunks": (ct, cx)}, "b": {"chunks": (ct,)}}
    if fmt == 3 and rng.random() < 0.5:
        enc["a"]["shards"] = (ct * int(rng.integers(1, 3)), cx * int(rng.integers(1, 3)))
    if rng.random() < 0.5:
        enc["a"]["_FillValue"] = dtype.type(7)
    plan: list = [("init", _dataset(xr, 0, nt, nx, rng, dtype))]
    t = nt
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.5:
            k = int(rng.integers(1, 6))
            plan.append(("append", _dataset(xr, t, k, nx, rng, dtype)))
            t += k
        else:
            lo = int(rng.integers(0, t))
            hi = int(rng.integers(lo + 1, t + 1))
            part = _dataset(xr, lo, hi - lo, nx, rng, dtype)
            if rng.random() < 0.5:
                plan.append(("region-auto", part.drop_vars("x")))
            else:
                plan.append(("region-slice", part.drop_vars(["time", "x"]), slice(lo, hi)))
    return fmt, enc, plan


def _run(write, plan: list, fmt: int, enc: dict) -> str | None:
    try:
        for step in plan:
            if step[0] == "init":
                write(step[1], mode="w", zarr_format=fmt, encoding=enc, consolidated=True)
            elif step[0] == "append":
                write(step[1], append_dim="time")
            elif step[0] == "region-auto":
                write(step[1], region="auto", safe_chunks=False)
            else:
                write(step[1], region={"time": step[2]}, safe_chunks=False)
    except Exception as e:  # noqa: BLE001 -- compared between the two writers
        return f"{type(e).__name__}: {e}"[:200]
    return None


def run_program(seed: int, root: str) -> Outcome:
    """One program (see the module docstring); root: an empty directory."""
    import xarray as xr

    import zarrhpc.xarray as zx

    rng = np.random.default_rng(seed)
    fmt, enc, plan = _plan(xr, rng)
    out = Outcome(steps=len(plan))
    ref, ours = os.path.join(root, f"p{seed}-ref.zarr"), os.path.join(root, f"p{seed}-ours.zarr")
    err_ref = _run(lambda ds, **kw: ds.to_zarr(ref, **kw), plan, fmt, enc)
    err_ours = _run(lambda ds, **kw: zx.to_zarr(ds, ours, **kw), plan, fmt, enc)
    label = f"seed {seed} (v{fmt}, {enc}, {[s[0] for s in plan]})"
    if err_ref or err_ours:
        if (err_ref is None) != (err_ours is None):
            out.problems.append(f"{label}: xarray: {err_ref}; zarrhpc: {err_ours}")
        else:
            out.failed_both += 1
        return out
    base = xr.open_zarr(ref).load()
    for name, path in (("ref", ref), ("ours", ours)):
        for engine, opener in (("zarr", xr.open_zarr), ("zarrhpc", zx.open_zarr)):
            ds = opener(path).load()
            try:
                xr.testing.assert_identical(base, ds)
            except AssertionError as e:
                out.problems.append(f"{label}: {name} read by {engine}: "
                                    f"{str(e).splitlines()[:6]}")
    for var in ("a", "b", "time"):
        r = zarrhpc.open_array(ref, path=var, mode="r")[...]
        o = zarrhpc.open_array(ours, path=var, mode="r")[...]
        if r.shape != o.shape or not np.array_equal(r, o, equal_nan=True):
            out.problems.append(f"{label}: stored {var} differs: {r.shape} vs {o.shape}")
    shutil.rmtree(ref, ignore_errors=True)
    shutil.rmtree(ours, ignore_errors=True)
    return out
