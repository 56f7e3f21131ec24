"""Corpus: stores written by zarr-python (v2 and v3 layouts, every data type, fill value,
codec incl. the numcodecs.* ones, sharding, chunk key encodings, consolidated metadata), the
same v3 layouts through zarrs' Rust codec pipeline, and tensorstore (zarr and zarr3 drivers, its codecs and data types incl. ml_dtypes), each opened
with zarrhpc and compared with the writer's own read: values (bitwise where fixed-size),
shape, dtype, fill value, attributes, and a strided sub-read.

`make test` checks every third variant (plus the regression ones); ZARRHPC_CORPUS_FULL=1
(`make differential`) checks all of them.
"""

import warnings

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.corpus import (
    compare_with_zarrhpc,
    corpus_full,
    tensorstore_variants,
    writable,
    zarr_python_variants,
    zarrs_variants,
)
from zarrhpc.testing.corpus_more import (
    more_tensorstore_variants,
    more_zarr_python_variants,
    xarray_variants,
)

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]

FULL = corpus_full()
# always checked: variants that found bugs
PINNED = ("zarr2-dt-lM8[ns]-C-f2", "zarr2-dt-bm8[s]-F-f2")
KNOWN: dict[str, str] = {}  # variant name -> reason, for strict xfails


def _select(variants, every=3):
    out = []
    for i, v in enumerate(variants):
        if not writable(v):
            continue
        if not (FULL or i % every == 0 or v.name in PINNED or v.name in KNOWN):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN[v.name])] \
            if v.name in KNOWN else []
        out.append(pytest.param(v, id=v.name, marks=marks))
    return out


def _check(variant, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = variant.write(tmp_path)
    problems = compare_with_zarrhpc(written)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("variant", _select(zarr_python_variants()))
def test_zarr_python_stores(variant, tmp_path):
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(tensorstore_variants()))
def test_tensorstore_stores(variant, tmp_path):
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(zarrs_variants()))
def test_zarrs_stores(variant, tmp_path):
    """zarr-python driving the zarrs (Rust) codec pipeline (skipped without zarrs)."""
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(more_tensorstore_variants(), every=1))
def test_more_tensorstore_stores(variant, tmp_path):
    """Every further ml_dtypes type, blosc cname x shuffle, gzip/zstd form, fill value and
    sharding layout of tensorstore's zarr3 and zarr drivers (corpus_more.py)."""
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(more_zarr_python_variants()))
def test_more_zarr_python_stores(variant, tmp_path):
    """zarr-python's numcodecs.* codecs and v2 numcodecs codecs in every configuration
    form (corpus_more.py)."""
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(xarray_variants(), every=1))
def test_xarray_stores(variant, tmp_path):
    """xarray's to_zarr, v2 and v3, each variable (CF-encoded, consolidated)."""
    _check(variant, tmp_path)


def test_corpus_size():
    """The corpus stays large: hundreds of variants across the writers."""
    assert len(zarr_python_variants()) > 400
    assert len(tensorstore_variants()) > 250
    assert len(more_tensorstore_variants()) > 100
    assert len(more_zarr_python_variants()) > 100
    assert len(xarray_variants()) >= 12


@pytest.mark.parametrize("dtype", ["<M8[ns]", ">m8[s]", "<M8[D]"])
def test_v2_null_fill_datetime_reads_nat_both_ways(tmp_path, dtype):
    """Regression: a v2 datetime array with ``fill_value: null`` reads missing chunks as
    NaT, as zarr-python 3 does (zarrhpc read the epoch); and zarrhpc writing epoch values
    there keeps them (they are not the fill value, so the chunk is stored)."""
    path = str(tmp_path / "a.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(path, shape=(4,), chunks=(2,), dtype=dtype, fill_value=None,
                              zarr_format=2)
        z[:2] = np.array([1, 2]).astype(dtype)
    a = zarrhpc.open_array(path, mode="r+")
    got = a[...]
    assert np.isnat(got[2:]).all() and got[0] == np.array(1).astype(dtype)
    a[2:] = np.zeros(2, dtype="i8").view(np.dtype(dtype).newbyteorder("="))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = zarr.open_array(path)[...]
    assert back[2:].astype("i8").tolist() == [0, 0]
