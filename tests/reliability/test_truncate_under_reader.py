"""The SIGBUS test: a reader in a loop while another process truncates its files."""

import pytest
from truncate_reader import run


@pytest.mark.parametrize("size", [4 << 20, 64 << 10])
def test_no_crash_no_wrong_data_when_files_are_cut(tmp_path, size):
    counts = run(str(tmp_path), seconds=2.0, size=size)
    assert counts["returncode"] == 0, counts  # a SIGBUS would be -7
    assert counts["wrong"] == 0, counts
    assert counts["reads"] > 0 and counts["cuts"] > 10, counts
