"""Stores in the forms jzarr, z5py, xtensor-zarr, zarr.js, zarrita, n5-zarr and NCZarr
write (zarrhpc/testing/corpus_impls.py) open in zarrhpc with the values they hold.

Each store is also read by zarr-python where it reads that form (v2 and final v3, not the
2022 draft): the hand-built store must then read the same there, which checks the fixture.
"""

import warnings

import numpy as np
import pytest

from zarrhpc.testing.corpus import compare_with_zarrhpc, values_equal
from zarrhpc.testing.corpus_impls import implementation_variants

VARIANTS = implementation_variants()


def test_every_writer_is_covered():
    writers = {v.name.split("-")[0] for v in VARIANTS}
    assert writers >= {"jzarr", "z5py", "xtensor", "zarrita", "zarr.js", "n5", "nczarr"}
    assert len(VARIANTS) > 500


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_implementation_store(tmp_path, variant):
    w = variant.write(tmp_path)
    problems = compare_with_zarrhpc(w)
    assert not problems, "\n".join(problems)
    if ".zr3" in w.path:
        return
    zarr = pytest.importorskip("zarr")
    base, _, arr_path = w.path.partition("::")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = zarr.open_array(base, path=arr_path, mode="r")[...]
        except (ValueError, TypeError, KeyError, NotImplementedError):
            return  # a form zarr-python 3 does not read
    assert values_equal(ref, np.asarray(w.values)), (ref, w.values)


def test_xtensor_draft_group_documents(tmp_path):
    """xtensor-zarr keeps a draft group's document at meta/root/<g>/.group.json (the
    root's at meta/root/.group.json): the groups are found with their attributes."""
    import json
    from pathlib import Path

    import zarrhpc

    v = next(v for v in VARIANTS if v.name == "xtensor-zarr-v3-u1-nested-blosc-lz4")
    base = Path(v.write(tmp_path).path.partition("::")[0])
    (base / "meta/root/blosc/.group.json").write_text(
        json.dumps({"attributes": {"g": 1}, "extensions": []}))
    (base / "meta/root/.group.json").write_text(
        json.dumps({"attributes": {"r": 2}, "extensions": []}))
    g = zarrhpc.open_group(base)
    assert [n for n, _ in g.members(max_depth=None)] == ["blosc", "blosc/lz4"]
    assert g.attrs.asdict() == {"r": 2}
    assert g["blosc"].attrs.asdict() == {"g": 1}
    assert not g["blosc"].is_implicit


def test_nczarr_group_members(tmp_path):
    """NCZarr's .zgroup carries _nczarr_* members: the group opens, its array is listed."""
    import zarrhpc

    v = next(v for v in VARIANTS if v.name.startswith("nczarr-"))
    base = v.write(tmp_path).path.partition("::")[0]
    g = zarrhpc.open_group(base)
    assert [n for n, _ in g.members()] == ["var"]
    assert g["var"].attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
