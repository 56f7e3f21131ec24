"""Differential tests: random operation sequences on one store, applied alternately by
zarr-python and zarrhpc, every read compared with numpy and with the other library,
failures compared by builtin class (zarrhpc.testing.differential has the harness).

Fast profile in `make test`; the long one: `make differential` (or
ZARRHPC_DIFF_EXAMPLES=2000 pytest tests/interop/test_differential_ops.py).
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.testing.differential import Layout, Session, layouts, operations

zarr = pytest.importorskip("zarr")

pytestmark = [pytest.mark.interop,
              pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.filterwarnings("ignore::RuntimeWarning:numpy.*")]

EXAMPLES = int(os.environ.get("ZARRHPC_DIFF_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_random_operation_sequences_agree(tmp_path_factory, data):
    lay = data.draw(layouts(), label="layout")
    ops = data.draw(operations(lay), label="operations")
    session = Session(lay, tmp_path_factory.mktemp("diff") / "a.zarr")
    session.read_all("created")
    for op in ops:
        session.apply(op)


@SETTINGS
@given(data=st.data())
def test_numeric_layouts_long_sequences_agree(tmp_path_factory, data):
    """Numeric types only, longer sequences: more resize/append/write interleavings."""
    lay = data.draw(layouts(extra_dtypes=False), label="layout")
    ops = data.draw(operations(lay, max_ops=12), label="operations")
    session = Session(lay, tmp_path_factory.mktemp("diff") / "a.zarr")
    for op in ops:
        session.apply(op)


@settings(SETTINGS, max_examples=max(EXAMPLES // 2, 10))
@given(data=st.data())
def test_many_chunk_layouts_agree(tmp_path_factory, data):
    """1-3-D arrays of up to 40 per axis, many chunks, blosc with 64-byte internal blocks:
    the engine's multi-chunk, partial-chunk and partial-block paths."""
    lay = data.draw(layouts(big=True), label="layout")
    ops = data.draw(operations(lay), label="operations")
    session = Session(lay, tmp_path_factory.mktemp("diff") / "a.zarr")
    session.read_all("created")
    for op in ops:
        session.apply(op)


def _layout(**kw):
    base = dict(shape=(5, 4), chunks=(2, 3), shards=None, kind="plain", inner=(2, 3), fmt=3,
                dtype="<i4", fill=0, codec="zstd", sep="/", order="C", endian="little",
                creator="zarr")
    base.update(kw)
    return Layout(base)


@pytest.mark.parametrize("lib", ["zarr", "zarrhpc"])
def test_shrink_then_grow_then_rewrite(tmp_path, lib):
    """Regression shape of the harness's 'loose' cells: after shrink + grow, a write over
    the old edge chunk region gives numpy's values in both libraries."""
    s = Session(_layout(creator=lib), tmp_path / "a.zarr")
    s.apply({"kind": "write_basic", "lib": lib, "sel": Ellipsis,
             "value": np.arange(20, dtype="<i4").reshape(5, 4)})
    s.apply({"kind": "resize", "lib": lib, "shape": (3, 2)})
    s.apply({"kind": "resize", "lib": "zarrhpc", "shape": (6, 5)})
    s.apply({"kind": "write_basic", "lib": "zarrhpc", "sel": (slice(2, 6), slice(1, 5)),
             "value": np.int32(-1)})
    assert not s.loose[2:, 1:].any()
    got = zarrhpc.open_array(str(tmp_path / "a.zarr"))[...]
    assert (got[2:, 1:] == -1).all()


def test_append_negative_axis(tmp_path):
    """zarrhpc appends along a negative axis as numpy concatenates (zarr-python 3.1 does
    not: it keeps the shape and overwrites the end, so the harness gives it only
    non-negative axes)."""
    a = zarrhpc.create_array(str(tmp_path / "a.zarr"), shape=(2, 3), chunks=(2, 2),
                             dtype="i2", fill_value=0)
    a[...] = np.arange(6).reshape(2, 3)
    a.append(np.full((2, 2), 9, dtype="i2"), axis=-1)
    expect = np.concatenate([np.arange(6).reshape(2, 3), np.full((2, 2), 9)], axis=-1)
    assert np.array_equal(zarr.open_array(str(tmp_path / "a.zarr"))[...], expect)


@pytest.mark.parametrize("accessor", ["basic", "oindex"])
def test_zero_step_is_a_value_error_as_in_zarr_python(tmp_path, accessor):
    """Regression: a zero slice step raised zarrhpc's SelectionError (an IndexError);
    numpy and zarr-python raise ValueError."""
    a = zarrhpc.create_array(str(tmp_path / "a.zarr"), shape=(4,), chunks=(2,), dtype="i4")
    z = zarr.open_array(str(tmp_path / "a.zarr"))
    for arr, cls in ((z, ValueError), (a, zarrhpc.errors.ZeroStepError)):
        target = arr if accessor == "basic" else arr.oindex
        with pytest.raises(ValueError) as info:
            target[::0]
        assert isinstance(info.value, cls)
