"""Two processes writing one array at once: the outcome the README promises.

- different chunks: both writes survive;
- the same chunk: the chunk is whole, one writer's value (last writer wins);
- different inner chunks of one shard: the shard is whole and holds one writer's
  version of the whole shard: the other writer's inner chunks may be lost.
"""

import subprocess
import sys

import numpy as np
import pytest

import zarrhpc

WRITER = r"""
import sys, numpy as np, zarrhpc
path, rows, value, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
a = zarrhpc.open_array(path, mode="r+")
lo, hi = (int(x) for x in rows.split(":"))
for i in range(n):
    a[lo:hi, :] = value * 1000 + i
"""


def _race(path, jobs, n=40):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, path, rows, str(v), str(n)])
             for rows, v in jobs]
    assert all(p.wait() == 0 for p in procs)


@pytest.mark.parametrize("shards", [None])
def test_different_chunks_both_survive(tmp_path, shards):
    path = str(tmp_path / "a")
    zarrhpc.create_array(path, shape=(16, 8), chunks=(8, 8), dtype="i4", fill_value=-1)
    _race(path, [("0:8", 1), ("8:16", 2)])
    a = zarrhpc.open_array(path)[...]
    assert (a[:8] == 1039).all() and (a[8:] == 2039).all()


def test_same_chunk_is_whole_last_writer_wins(tmp_path):
    path = str(tmp_path / "a")
    zarrhpc.create_array(path, shape=(8, 8), chunks=(8, 8), dtype="i4", fill_value=-1)
    _race(path, [("0:8", 1), ("0:8", 2)])
    a = zarrhpc.open_array(path)[...]
    assert len(np.unique(a)) == 1 and a[0, 0] in (1039, 2039)


def test_inner_chunks_of_one_shard_shard_stays_whole(tmp_path):
    path = str(tmp_path / "a")
    zarrhpc.create_array(path, shape=(16, 8), chunks=(8, 8), shards=(16, 8), dtype="i4",
                         fill_value=-1)
    _race(path, [("0:8", 1), ("8:16", 2)])
    a = zarrhpc.open_array(path)[...]
    top, bottom = np.unique(a[:8]), np.unique(a[8:])
    # each inner chunk is whole: one value (a writer's last, or an older one when the
    # other writer's shard replaced it: the documented lost update), never garbage
    assert len(top) == 1 and len(bottom) == 1
    assert top[0] == -1 or 1000 <= top[0] <= 1039
    assert bottom[0] == -1 or 2000 <= bottom[0] <= 2039
    assert top[0] == 1039 or bottom[0] == 2039  # the last shard written holds its own
