"""The kernels release the GIL, proved by progress (see zarrhpc.testing.gil), not timing."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from zarrhpc._kernels import copy_into, fill
from zarrhpc.testing.gil import progress_during

MIB = 1 << 20


@pytest.fixture(scope="module")
def big():
    src = np.random.default_rng(0).integers(0, 255, 64 * MIB, dtype=np.uint8)
    return src, np.empty_like(src)


def test_copy_into_releases_the_gil(big):
    src, dst = big
    assert progress_during(lambda: copy_into(dst, src)) > 0


def test_swapped_transposed_copy_releases_the_gil(big):
    src, dst = big
    s = src.view("<f4").reshape(2048, -1)
    d = dst.view("<f4").reshape(s.shape[::-1])
    assert progress_during(lambda: copy_into(d, s.T, swap=4)) > 0


def test_fill_releases_the_gil(big):
    _, dst = big
    v12 = dst[: len(dst) // 12 * 12].view("V12")
    assert progress_during(lambda: fill(v12, bytes(range(12)))) > 0


def test_two_threads_copy_at_once(big):
    """Two kernel calls in two threads both finish and both are right."""
    src, _ = big
    outs = [np.empty_like(src), np.empty_like(src)]
    threads = [threading.Thread(target=copy_into, args=(o, src)) for o in outs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for o in outs:
        assert np.array_equal(o, src)
