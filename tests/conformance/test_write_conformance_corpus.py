"""Write conformance over the writer corpus: each zarr-python / tensorstore layout's
metadata is copied alone, zarrhpc writes the values into it (whole array, then a strided
region), and the writer's own reader must read back exactly what zarrhpc wrote.

`make test` checks every sixth variant; ZARRHPC_CORPUS_FULL=1 (`make differential`) all.
"""

import warnings

import pytest

from zarrhpc.testing.corpus import (
    corpus_full,
    rewrite_with_zarrhpc,
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


def _select(variants, offset):
    return [pytest.param(v, id=v.name) for i, v in enumerate(variants)
            if writable(v) and (FULL or i % 6 == offset)]


def _check(variant, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = variant.write(tmp_path)
        problems = rewrite_with_zarrhpc(written, str(tmp_path))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("variant", _select(zarr_python_variants(), 1))
def test_zarrhpc_writes_zarr_python_layouts(variant, tmp_path):
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(tensorstore_variants(), 1))
def test_zarrhpc_writes_tensorstore_layouts(variant, tmp_path):
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(zarrs_variants(), 2))
def test_zarrhpc_writes_zarrs_layouts(variant, tmp_path):
    _check(variant, tmp_path)


@pytest.mark.parametrize("variant", _select(
    more_tensorstore_variants() + more_zarr_python_variants() + xarray_variants(), 3))
def test_zarrhpc_writes_more_layouts(variant, tmp_path):
    """corpus_more.py: tensorstore's further types and codecs, zarr-python's numcodecs
    forms, xarray's to_zarr."""
    _check(variant, tmp_path)
