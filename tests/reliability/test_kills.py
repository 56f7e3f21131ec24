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
    assert counts["chunks"] == 2 * 12
    assert counts["repaired"] == counts["leftover_temp_files"]  # verify --repair removed all
