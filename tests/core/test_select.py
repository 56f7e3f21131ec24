"""Every selection kind, read and write, against numpy on random arrays and layouts.

Random shapes (1-D to 4-D, edge chunks, size-0 axes), dtypes, orders, v2/v3, plain /
sharded / nested sharding, compressed or not, memory and local stores.
"""

import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.storage import LocalStore, MemoryStore
from zarrhpc.testing.strategies_select import (
    block_selections,
    coordinate_selections,
    layouts,
    make_array,
    mask_selections,
    numpy_oindex,
    numpy_outer_index,
    orthogonal_selections,
)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def values(shape, dtype, seed=1):
    return np.random.default_rng(seed).integers(0, 9, size=shape).astype(dtype)


@SETTINGS
@given(layout=layouts(), data=st.data())
def test_orthogonal_read_write(layout, data):
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        sel = data.draw(orthogonal_selections(ref.shape))
        got = a.oindex[sel]
        np.testing.assert_array_equal(got, numpy_oindex(ref, sel))
        assert got.dtype == a.dtype
        index, dropped = numpy_outer_index(sel, ref.shape)
        full = tuple(len(np.ravel(i)) for i in index)
        out_shape = tuple(n for n, d in zip(full, dropped) if not d)
        v = values(out_shape, ref.dtype)
        a.set_orthogonal_selection(sel, v)
        ref[index] = v.reshape(full)
        np.testing.assert_array_equal(a[...], ref)
        a.oindex[sel] = 3  # a scalar broadcasts
        ref[index] = 3
        np.testing.assert_array_equal(a[...], ref)


@SETTINGS
@given(layout=layouts(min_len=1), data=st.data())
def test_coordinate_read_write(layout, data):
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        sel = data.draw(coordinate_selections(ref.shape))
        key = sel if isinstance(sel, tuple) else (sel,)
        expected = ref[key]
        got = a.vindex[sel]
        np.testing.assert_array_equal(got, expected.reshape(got.shape))
        assert got.shape == (expected.shape or (1,))
        np.testing.assert_array_equal(a.get_coordinate_selection(key), got)
        v = values(expected.shape, ref.dtype)
        a.vindex[sel] = v
        ref[key] = v  # repeated points: the last value wins in both
        np.testing.assert_array_equal(a[...], ref)


@SETTINGS
@given(layout=layouts(), data=st.data())
def test_mask_read_write(layout, data):
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        mask = data.draw(mask_selections(ref.shape))
        np.testing.assert_array_equal(a.vindex[mask], ref[mask])
        np.testing.assert_array_equal(a.get_mask_selection(mask), ref[mask])
        np.testing.assert_array_equal(a[mask], ref[mask])
        v = values(ref[mask].shape, ref.dtype)
        a.set_mask_selection(mask, v)
        ref[mask] = v
        np.testing.assert_array_equal(a[...], ref)
        a[mask] = 0  # back to the fill value: chunks equal to it are erased
        ref[mask] = 0
        np.testing.assert_array_equal(a[...], ref)


@SETTINGS
@given(layout=layouts(min_len=1), data=st.data())
def test_block_read_write(layout, data):
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        blocks = layout["shards"] or layout["chunks"]  # zarr-python: blocks are shards
        sel = data.draw(block_selections(ref.shape, blocks))
        region = []
        for s, n, c in zip(sel, ref.shape, blocks):
            nb = -(-n // c)
            if isinstance(s, slice):
                region.append(slice(s.start * c, s.stop * c))
            else:
                region.append(slice((s % nb) * c, (s % nb + 1) * c))
        region = tuple(region)
        np.testing.assert_array_equal(a.blocks[sel], ref[region])
        v = values(ref[region].shape, ref.dtype)
        a.blocks[sel] = v
        ref[region] = v
        np.testing.assert_array_equal(a.get_block_selection(sel), ref[region])
        np.testing.assert_array_equal(a[...], ref)


@SETTINGS
@given(layout=layouts(min_len=1), data=st.data())
def test_getitem_dispatch_matches_numpy(layout, data):
    """``a[...]`` with pure integer arrays or a mask: numpy's vectorised semantics."""
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        if data.draw(st.booleans()):
            sel = data.draw(coordinate_selections(ref.shape))
            sel = sel if isinstance(sel, tuple) else (sel,)
            if len(sel) == 1:
                sel = sel[0]
        else:
            sel = data.draw(mask_selections(ref.shape))
        expected = ref[sel]
        got = a[sel]
        np.testing.assert_array_equal(got, expected.reshape(got.shape))
        v = values(np.shape(expected), ref.dtype)
        a[sel] = v
        ref[sel] = v
        np.testing.assert_array_equal(a[...], ref)


@pytest.mark.parametrize("shards", [None, (4, 4)])
def test_out_argument(shards):
    a = zarrhpc.create_array(MemoryStore(), shape=(8, 8), chunks=(2, 2), shards=shards,
                             dtype="f4")
    ref = np.arange(64, dtype="f4").reshape(8, 8)
    a[...] = ref
    out = np.zeros((2, 3), "f4")
    assert a.get_orthogonal_selection(([1, 7], [0, 3, 5]), out=out) is out
    np.testing.assert_array_equal(out, ref[np.ix_([1, 7], [0, 3, 5])])
    out = np.zeros(3, "f4")
    a.get_coordinate_selection(([1, 2, 3], [4, 5, 6]), out=out)
    np.testing.assert_array_equal(out, ref[[1, 2, 3], [4, 5, 6]])
    out = np.zeros((4, 2), "f4", order="F")[:, :]  # a non-C-contiguous destination
    out_f = np.asfortranarray(np.zeros((2, 2), "f4"))
    mask = np.zeros((8, 8), bool)
    mask[0, :4] = True
    a.get_mask_selection(mask, out=out_f.reshape(-1, order="F")[:4])
    a.get_block_selection((1, 0), out=out[:2, :2]) if shards is None else None
    np.testing.assert_array_equal(out_f.reshape(-1, order="F"), ref[0, :4])
    with pytest.raises(IndexError):
        a.get_orthogonal_selection(([1], [2]), out=np.zeros((2, 2), "f4"))


def test_structured_fields():
    dt = np.dtype([("a", "i4"), ("b", "f8")])
    a = zarrhpc.create_array(MemoryStore(), shape=(6,), chunks=(4,), dtype=dt)
    ref = np.zeros(6, dt)
    ref["a"] = np.arange(6)
    ref["b"] = np.arange(6) / 2
    a[...] = ref
    np.testing.assert_array_equal(a["a"], ref["a"])
    np.testing.assert_array_equal(a.get_basic_selection(slice(1, 4), fields="b"), ref["b"][1:4])
    np.testing.assert_array_equal(a.oindex[[5, 0], "b"], ref["b"][[5, 0]])
    np.testing.assert_array_equal(a.get_coordinate_selection([4, 1], fields=["a"]),
                                  ref[["a"]][[4, 1]])
    a.set_coordinate_selection([2, 3], [20, 30], fields="a")
    ref["a"][[2, 3]] = [20, 30]
    np.testing.assert_array_equal(a[...], ref)
    with pytest.raises(IndexError, match="multiple fields"):
        a.set_basic_selection(slice(None), 0, fields=["a", "b"])
    with pytest.raises(IndexError, match="field not found"):
        a.get_basic_selection(fields="c")


@SETTINGS
@given(layout=layouts(min_len=1), data=st.data())
def test_python_path_without_the_engine(layout, data):
    """The same reads and writes with the native engine switched off (Python codecs)."""
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        a._engine = None
        if a._sharding is not None:
            a._sharding._inner_engine = None
        sel = data.draw(orthogonal_selections(ref.shape))
        np.testing.assert_array_equal(a.oindex[sel], numpy_oindex(ref, sel))
        pts = data.draw(coordinate_selections(ref.shape))
        key = pts if isinstance(pts, tuple) else (pts,)
        np.testing.assert_array_equal(a.vindex[pts].reshape(ref[key].shape), ref[key])
        v = values(ref[key].shape, ref.dtype)
        a.vindex[pts] = v
        ref[key] = v
        np.testing.assert_array_equal(a[...], ref)


@pytest.mark.parametrize("local", [False, True])
@pytest.mark.parametrize("compressed", [False, True])
def test_few_points_in_large_chunks(tmp_path, local, compressed):
    """Sparse points in big uncompressed chunks read views of the stored bytes; the
    result is the same as through the engine's whole-chunk decode."""
    store = LocalStore(tmp_path) if local else MemoryStore()
    comp = {"name": "zstd", "configuration": {"level": 1}} if compressed else None
    a = zarrhpc.create_array(store, shape=(300, 700), chunks=(200, 600), dtype=">i8",
                             compressors=comp, fill_value=-1)
    ref = np.arange(210000, dtype="i8").reshape(300, 700)
    a[:250] = ref[:250]
    ref[250:] = -1
    rng = np.random.default_rng(0)
    pts = (rng.integers(0, 300, 50), rng.integers(0, 700, 50))
    np.testing.assert_array_equal(a.vindex[pts], ref[pts])
    np.testing.assert_array_equal(a.oindex[[299, 3], [699, 0, 650]],
                                  ref[np.ix_([299, 3], [699, 0, 650])])
    mask = np.zeros(ref.shape, bool)
    mask[pts] = True
    np.testing.assert_array_equal(a[mask], ref[mask])
