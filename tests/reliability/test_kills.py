"""A short run of the kill harness (tests/reliability/kill_writers.py): a few random
SIGKILLs per write kind; `make reliability` runs 200 per kind."""

import pytest
from kill_writers import KINDS, run


@pytest.mark.parametrize("kind", KINDS)
def test_random_kills_leave_whole_chunks_and_lose_nothing(tmp_path, kind):
    counts = run([kind], kills=2, seed=1, tmp=str(tmp_path), max_delay=0.5)[kind]
    assert counts["stores"] == 2
    assert counts["open_failed"] == 0, counts["errors"]
    assert counts["torn"] == 0 and counts["lost"] == 0, counts
    if kind == "convert":
        assert counts["chunks"] == 2 * 256
    elif kind != "append":  # append: as many chunks as appended rows
        assert counts["chunks"] >= 2 * 12
    assert counts["repaired"] == counts["leftover_temp_files"]  # verify --repair removed all


def test_the_checker_counts_torn_and_lost_chunks(tmp_path):
    """The harness's checks can fail: a mixed chunk is torn, an old one lost, a stale
    chunk shown again after a shrink lost, an appended row gone lost."""
    import numpy as np
    from kill_writers import _check, _create

    import zarrhpc

    path = str(tmp_path / "plain")
    _create("plain", path)
    a = zarrhpc.open_array(path, mode="r+")
    a[...] = 5
    a[0, 0] = 4  # chunk (0, 0) mixed
    a[16:32, 0:16] = 3  # chunk (1, 0) older than the last generation done
    c = _check("plain", path, done=5)
    assert (c["torn"], c["lost"]) == (1, 1)

    path = str(tmp_path / "resize")
    _create("resize", path)
    a = zarrhpc.open_array(path, mode="r+")
    a.resize((80, 48))
    a[...] = 7
    a[64:80, 0:16] = 2  # an extra-row chunk older than done: stale data shown again
    assert _check("resize", path, done=7)["lost"] == 1

    path = str(tmp_path / "append")
    _create("append", path)
    a = zarrhpc.open_array(path, mode="r+")
    for g in (1, 2, 3):
        a.append(np.full((16, 48), g, "i4"), axis=0)
    a[16:32, 16:32] = -1  # row 1, reported done, erased
    c = _check("append", path, done=3, known={"start": 0})
    assert c["lost"] == 1 and c["torn"] == 0
    c = _check("append", path, done=4, known={"start": 0})  # a fourth row missing
    assert c["lost"] == 1 + 3
