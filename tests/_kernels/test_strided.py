"""zarrhpc._kernels.strided (copy_into, fill) against the numpy oracles.

Geometries are random views of random bytes: 0-6 dimensions (0-d and zero-size
included), slices with any step (negative too) on both sides, transposes on both
sides, broadcast (zero-stride) source axes, and item sizes 1 to 16 including odd ones
(V3, V6, V12, packed structured dtypes).  Every test checks the whole destination
*base*, so bytes outside the view must be left alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zarrhpc._kernels import copy_into, fill
from zarrhpc.testing.oracles import copy_into_oracle, fill_oracle, raw_bytes

# dtypes by item size; V<n> and packed structured dtypes give arbitrary sizes
DTYPES = [
    np.dtype("u1"),
    np.dtype("<u2"),
    np.dtype("V3"),
    np.dtype("<f4"),
    np.dtype([("a", "u1"), ("b", "<f4"), ("c", "u1")]),  # 6, packed, unaligned field
    np.dtype("V6"),
    np.dtype("<f8"),
    np.dtype("<c8"),
    np.dtype("V12"),
    np.dtype([("x", "<f8"), ("y", "<f4")]),  # 12
    np.dtype("<c16"),
    np.dtype("V16"),
]


def swaps_for(itemsize: int) -> list[int]:
    return [0, 1] + [s for s in (2, 4, 8) if itemsize % s == 0]


# ----------------------------------------------------------------- geometry ----


@st.composite
def views(draw, shape: tuple[int, ...], dtype: np.dtype, transpose: bool = True):
    """(base, view): ``view`` has ``shape``, is a strided, possibly transposed view
    into ``base`` (random bytes).  Each axis: a slice with step in +-1..3."""
    ndim = len(shape)
    perm = draw(st.permutations(range(ndim))) if transpose else list(range(ndim))
    # build the view in permuted axis order, then transpose back
    pshape = [shape[p] for p in perm]
    base_shape, index = [], []
    for n in pshape:
        step = draw(st.sampled_from([1, 1, 2, 3, -1, -2, -3]))
        pad = draw(st.integers(0, 2))
        length = max(n, 1) * abs(step) + pad
        start = draw(st.integers(0, length - (max(n, 1) - 1) * abs(step) - 1))
        if step > 0:
            sl = slice(start, start + n * step, step)
        else:
            first = length - 1 - start
            stop = first + n * step
            sl = slice(first, stop if stop >= 0 else None, step)
        base_shape.append(length)
        index.append(sl)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    nbytes = int(np.prod(base_shape, dtype=np.int64)) * dtype.itemsize
    base = np.frombuffer(bytearray(rng.bytes(nbytes)), dtype=dtype).reshape(base_shape)
    view = base[tuple(index)] if ndim else base[...]  # base[()] would be a scalar
    inv = np.argsort(perm) if ndim else []
    view = view.transpose(inv)
    assert view.shape == tuple(shape), (view.shape, shape)
    return base, view


shapes = st.lists(st.integers(0, 5), min_size=0, max_size=6).map(tuple)


def _same_raw(a: np.ndarray, b: np.ndarray) -> bool:
    return np.array_equal(raw_bytes(a), raw_bytes(b))


def _check_copy(dbase, dst, src, swap):
    # the expected result: the same view of a copy of the base, written by the oracle
    expect_base = dbase.copy()
    expect = _same_view(expect_base, dbase, dst)
    copy_into_oracle(expect, src, swap)
    copy_into(dst, src, swap)
    assert _same_raw(dbase, expect_base)


def _same_view(new_base: np.ndarray, base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The view of ``new_base`` that ``view`` is of ``base`` (same offset, strides)."""
    assert new_base.flags.c_contiguous and new_base.shape == base.shape
    offset = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return np.ndarray(
        shape=view.shape,
        dtype=view.dtype,
        buffer=new_base,
        offset=offset,
        strides=view.strides,
    )


# ----------------------------------------------------------------- copy_into ----


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_copy_into_matches_oracle(data, shape, dtype):
    dbase, dst = data.draw(views(shape, dtype), label="dst")
    _, src = data.draw(views(shape, dtype), label="src")
    if shape and data.draw(st.booleans(), label="broadcast"):
        axes = data.draw(st.lists(st.integers(0, len(shape) - 1), max_size=3), label="axes")
        sub = tuple(slice(0, 1) if i in axes else slice(None) for i in range(len(shape)))
        src = np.broadcast_to(src[sub], shape)  # zero strides, read-only
    swap = data.draw(st.sampled_from(swaps_for(dtype.itemsize)), label="swap")
    _check_copy(dbase, dst, src, swap)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    shape=st.lists(st.integers(1, 80), min_size=2, max_size=3).map(tuple),
    dtype=st.sampled_from(DTYPES),
)
def test_copy_into_large_transposes_match_oracle(data, shape, dtype):
    """Extents past the 16- and 64-element tiles of the transposing walk, tile edges."""
    dbase, dst = data.draw(views(shape, dtype, transpose=False), label="dst")
    _, src = data.draw(views(shape, dtype), label="src")
    swap = data.draw(st.sampled_from(swaps_for(dtype.itemsize)), label="swap")
    _check_copy(dbase, dst, src, swap)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(
    "shape, perm",
    [
        ((70, 130), (1, 0)),
        ((9, 1024), (1, 0)),  # source rows 4 KiB apart: the small-tile case
        ((33, 65, 17), (2, 0, 1)),
        ((33, 65, 17), (2, 1, 0)),
        ((17, 65, 33), (1, 2, 0)),
        ((5, 64, 64), (0, 2, 1)),
    ],
)
def test_copy_into_transposes(dtype, shape, perm):
    rng = np.random.default_rng(1)
    for swap in swaps_for(dtype.itemsize):
        base = np.frombuffer(bytearray(rng.bytes(int(np.prod(shape)) * dtype.itemsize)), dtype)
        src = base.reshape(shape).transpose(perm)
        dst = np.empty(src.shape, dtype)
        expect = np.empty(src.shape, dtype)
        copy_into_oracle(expect, src, swap)
        copy_into(dst, src, swap)
        assert _same_raw(dst, expect)
        # and into a transposed destination (write-side transpose)
        dst2 = np.empty(shape, dtype).transpose(perm)
        copy_into(dst2, src, swap)
        assert _same_raw(dst2, expect)


@pytest.mark.parametrize(
    "dtype, swap",
    [("<u2", 2), ("<i4", 4), ("<f4", 4), ("<f8", 8), ("<i8", 8), ("<c8", 4), ("<c16", 8)],
)
def test_swap_matches_numpy_byteswap(dtype, swap):
    rng = np.random.default_rng(2)
    src = (rng.standard_normal((40, 50)) * 1000).astype(dtype)
    if np.dtype(dtype).kind == "c":
        src = src + 1j * (rng.standard_normal((40, 50)) * 1000).astype(dtype)
    for view in (src, src.T, src[::-3, 1::2]):
        dst = np.empty(view.shape, dtype)
        copy_into(dst, view, swap=swap)
        assert _same_raw(dst, view.byteswap())
        # decoding big-endian bytes into native values, as the bytes codec does
        big = view.astype(view.dtype.newbyteorder(">"))
        out = np.empty(view.shape, dtype)
        copy_into(out, big, swap=swap)
        np.testing.assert_array_equal(out, view)


def test_copy_into_0d_and_size1_dims():
    a = np.array(3.5)
    out = np.empty(())
    copy_into(out, a)
    assert out == 3.5
    copy_into(out, np.array(3.5).byteswap(), swap=8)
    assert out == 3.5
    src = np.arange(6.0).reshape(1, 6, 1, 1)
    dst = np.zeros((1, 6, 1, 1))
    copy_into(dst, src)
    np.testing.assert_array_equal(dst, src)
    # 64 dimensions, the most numpy allows
    one = np.ones((1,) * 64, dtype="u4")
    zero = np.zeros((1,) * 64, dtype="u4")
    copy_into(zero, one)
    assert zero.all()


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5, 7), (2, 0, 0, 3)])
def test_copy_into_zero_size_is_noop(shape):
    dst = np.zeros(shape, "f4")
    copy_into(dst, np.ones(shape, "f4"), swap=4)
    assert dst.size == 0


def test_copy_into_overlap_behaves_like_a_snapshot():
    a = np.arange(20, dtype="<u4")
    expect = a.copy()
    expect[1:] = expect[:-1].copy()
    copy_into(a[1:], a[:-1])
    np.testing.assert_array_equal(a, expect)
    # swap in place
    b = np.arange(12, dtype="<f8").reshape(3, 4)
    ref = b.byteswap()
    copy_into(b, b, swap=8)
    assert _same_raw(b, ref)
    # transpose in place (square)
    c = np.arange(64 * 64, dtype="<f4").reshape(64, 64)
    ref = c.T.copy()
    copy_into(c, c.T)
    np.testing.assert_array_equal(c, ref)


def test_copy_into_interleaved_fields_do_not_count_as_overlap():
    s = np.zeros(50, [("x", "<f4"), ("y", "<f4")])
    s["y"] = np.arange(50)
    copy_into(s["x"], s["y"])
    np.testing.assert_array_equal(s["x"], np.arange(50))


def test_copy_into_reversed_and_negative_strides_large():
    rng = np.random.default_rng(3)
    src = rng.random((300, 400)).astype("<f4")
    dst = np.zeros((300, 400), "<f4")
    copy_into(dst[::-1, ::-1], src)
    np.testing.assert_array_equal(dst, src[::-1, ::-1])
    dst2 = np.zeros((400, 300), "<f4")
    copy_into(dst2[::-1], src[:, ::-1].T, swap=4)
    np.testing.assert_array_equal(dst2[::-1].byteswap(), src[:, ::-1].T)


def test_copy_into_accepts_numpy_integer_swap():
    src = np.arange(5, dtype="<u4")
    dst = np.empty(5, "<u4")
    copy_into(dst, src, swap=np.int64(4))
    np.testing.assert_array_equal(dst, src.byteswap())


# ---------------------------------------------------------------------- fill ----


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(DTYPES))
def test_fill_matches_oracle(data, shape, dtype):
    dbase, dst = data.draw(views(shape, dtype), label="dst")
    kind = data.draw(st.sampled_from(["random", "uniform"]), label="kind")
    if kind == "uniform":
        value = bytes([data.draw(st.integers(0, 255))]) * dtype.itemsize
    else:
        value = data.draw(st.binary(min_size=dtype.itemsize, max_size=dtype.itemsize))
    expect_base = dbase.copy()
    fill_oracle(_same_view(expect_base, dbase, dst), value)
    fill(dst, value)
    assert _same_raw(dbase, expect_base)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("value_kind", ["random", "zeros"])
def test_fill_large_runs(dtype, value_kind):
    """Runs longer than the 512-byte pattern block, with a ragged end."""
    rng = np.random.default_rng(4)
    value = rng.bytes(dtype.itemsize) if value_kind == "random" else bytes(dtype.itemsize)
    base = np.zeros((7, 1001), dtype)
    for view in (base, base[1:6, 3:998], base[:, ::-2], base.T):
        expect = base.copy()
        fill_oracle(_same_view(expect, base, view), value)
        fill(view, value)
        assert _same_raw(base, expect)


def test_fill_accepts_buffers_and_numpy_scalars():
    a = np.zeros((3, 4), "<f8")
    fill(a, np.array(2.5))
    assert (a == 2.5).all()
    fill(a, memoryview(np.float64(-1.0).tobytes()))
    assert (a == -1.0).all()
    fill(a, bytearray(np.float64(7.0).tobytes()))
    assert (a == 7.0).all()
    z = np.zeros((), "<u2")
    fill(z, b"\x01\x02")
    assert z == 0x0201
