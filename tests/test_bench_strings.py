"""The string-read benchmark runs end to end and checks both libraries read the same."""

from __future__ import annotations

import re

from zarrhpc.bench import strings


def test_strings_bench_small(tmp_path, capsys):
    assert strings.main(["2000", "--dir", str(tmp_path), "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["v3", "v2"]
    for line in lines:
        assert re.search(r"zarrhpc [\d.]+ s, zarr-python [\d.]+ s, [\d.]+x$", line), line
