"""Result blocks: page-aligned, reused after release, never shared, never stale."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc import config
from zarrhpc._kernels import alloc

MiB = 1 << 20


def addr(a):
    return a.__array_interface__["data"][0]


def test_small_results_come_from_numpy():
    a = alloc.empty((10, 10), "f8")
    assert a.flags.owndata and a.shape == (10, 10)


def test_large_results_are_aligned_writable_and_reused():
    with config.set(buffer_cache=64 * MiB):
        a = alloc.empty((1024, 1024), "f8")  # 8 MiB
        assert a.flags.writeable and a.flags.c_contiguous
        assert addr(a) % (2 * MiB) == 0
        a[...] = 1.0
        first = addr(a)
        b = alloc.empty((1024, 1024), "f8")
        assert addr(b) != first  # a is alive: never shared
        del a
        assert alloc.cached_bytes() >= 8 * MiB
        c = alloc.empty((1024, 1000), "f8")  # about the same size: reuses a's block
        assert addr(c) == first
        del b, c


def test_fortran_order_and_views_keep_the_block_alive():
    with config.set(buffer_cache=64 * MiB):
        a = alloc.empty((512, 2048), "f4", "F")
        assert a.flags.f_contiguous
        v = a[3]
        del a
        v[...] = 2.0  # the block lives while a view does
        assert (v == 2.0).all()


def test_cache_limit_zero_frees_at_once():
    with config.set(buffer_cache=0):
        a = alloc.empty((8 * MiB,), "u1")
        del a
        assert alloc.cached_bytes() == 0
    with pytest.raises(ValueError):
        config.set(buffer_cache=-1)


def test_reused_block_never_shows_old_data(tmp_path):
    with config.set(buffer_cache=256 * MiB):
        full = zarrhpc.create_array(tmp_path / "full", shape=(1024, 1024), chunks=(256, 256),
                                    dtype="f8", fill_value=0)
        full[...] = 7.0
        empty = zarrhpc.create_array(tmp_path / "empty", shape=(1024, 1024), chunks=(256, 256),
                                     dtype="f8", fill_value=-3.0)
        empty[:256, :256] = 1.0
        r = full[...]
        assert (r == 7.0).all()
        del r
        got = empty[...]
        expected = np.full((1024, 1024), -3.0)
        expected[:256, :256] = 1.0
        np.testing.assert_array_equal(got, expected)
