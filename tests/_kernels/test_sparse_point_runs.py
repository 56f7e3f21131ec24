"""Sparse point reads of uncompressed chunk files: only the runs holding wanted elements.

The engine sorts the points' byte ranges (a radix sort over their offsets, csrc/
zh_select.c sort_rng), merges those closer than ZH_RUN_GAP and reads each run with its
own pread when that costs less than the whole chunk. A wrong sort or merge leaves
wanted bytes unread: the values would then be whatever the worker's scratch buffer held
(here: another chunk's bytes, read just before on the same thread).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc


def _array(path, n, chunk, dtype):
    data = (np.arange(n, dtype=np.int64) * 2654435761 % 1000003).astype(dtype)
    a = zarrhpc.create_array(path, shape=(n,), chunks=(chunk,), dtype=dtype,
                             compressors=None, fill_value=0)
    a[...] = data
    return a, data


@pytest.mark.parametrize("dtype", ["u1", "i2", "f4", "f8"])
@pytest.mark.parametrize("npts", [3, 17, 200, 1500])
def test_unsorted_sparse_points_read_as_numpy(tmp_path, dtype, npts):
    chunk = 1 << 21  # offsets past 2**16: three radix passes for bytes, more for f8
    a, data = _array(str(tmp_path / "a"), 2 * chunk, chunk, dtype)
    rng = np.random.default_rng(npts)
    with zarrhpc.config.set({"threads": 1}):
        a[chunk:]  # the worker's scratch now holds chunk 1's bytes
        idx = rng.integers(0, chunk, npts)  # unsorted, repeats possible
        np.testing.assert_array_equal(a.vindex[(idx,)], data[idx])
        # clustered points: runs merged across small gaps, and far apart
        starts = rng.integers(0, chunk - 64, npts // 5 + 1)
        near = rng.permutation(np.concatenate([rng.integers(c, c + 64, 5) for c in starts]))
        np.testing.assert_array_equal(a.vindex[(near,)], data[near])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), npts=st.integers(1, 600),
       spread=st.sampled_from([1 << 8, 1 << 12, 1 << 16, 1 << 20]))
def test_sparse_points_any_spread(tmp_path_factory, seed, npts, spread):
    chunk = 1 << 20
    a, data = _array(str(tmp_path_factory.mktemp("s") / "a"), 2 * chunk, chunk, "i4")
    rng = np.random.default_rng(seed)
    base = int(rng.integers(0, chunk - spread + 1))
    idx = base + rng.integers(0, spread, npts)
    with zarrhpc.config.set({"threads": 1}):
        a[chunk:]
        np.testing.assert_array_equal(a.vindex[(idx,)], data[idx])
