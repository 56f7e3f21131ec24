"""A short run of the fast fuzz driver (fuzz_fast.py) over every parser, and proof that
the driver sees what it must: a crash, a hang, a foreign exception, wrong data.

The long run: ``make fuzz-asan FUZZ_INPUTS=100000`` (ASan + UBSan build), or
``python tests/reliability/fuzz_fast.py --inputs 100000`` on the normal build.
"""

import json
import os
import subprocess
import sys

import fuzz_fast as ff
import numpy as np
import pytest

INPUTS = int(os.environ.get("ZARRHPC_FUZZ_FAST_INPUTS", "80"))


@pytest.mark.parametrize("parser", ff.PARSERS)
def test_short_run_every_parser(parser, tmp_path):
    counts = ff.run_worker(parser, seed=1, start=0, count=INPUTS, corpus=str(tmp_path / "c"),
                           tmp=str(tmp_path))
    assert counts["inputs"] == INPUTS
    assert (counts["foreign"], counts["wrong"], counts["hangs"]) == (0, 0, 0), counts
    # the damage reaches the parser (most inputs are refused), and the undamaged store
    # was read back right at least once after them
    assert counts["zarrhpc_errors"] > INPUTS // 4, counts
    assert counts["clean_checks"] >= 1
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("parser", ["shard-index", "metadata"])
def test_inputs_are_made_again_from_their_index(tmp_path, parser):
    """Replays rest on this: input i of a parser is the same every time it is made."""
    a = ff.make_target(parser, str(tmp_path))
    b = ff.make_target(parser, str(tmp_path / "x"))
    made = [a.make(ff.rng_for(3, parser, i)) for i in range(100)]
    assert made == [b.make(ff.rng_for(3, parser, i)) for i in range(100)]
    assert len({m[1] for m in made}) > 80  # and different inputs differ
    if parser == "shard-index":
        assert {m[2] for m in made} >= {"whole", "local", "local-part", "decode"}


def test_undamaged_chunks_are_checked(tmp_path):
    """A read that gets an undamaged chunk wrong is reported (as wrong data)."""
    t = ff.make_target("zstd", str(tmp_path))
    key = t.keys[0]
    assert t.run(key, t.docs[key], "whole") is None
    assert t.run(key, t.docs[key], "local") is None
    t.want = t.want.copy()
    t.want[-1, -1] += 1  # the last chunk, not the one replaced
    assert "undamaged chunks read wrong" in t.run(key, t.docs[key], "whole")
    assert "reads wrong" in t.clean()
    t.want[-1, -1] -= 1
    assert np.array_equal(t.arr[...], t.want) and t.clean() is None


def test_driver_reports_crash_hang_foreign_wrong(tmp_path):
    """Faults injected at known inputs are each counted and saved with a replay command;
    after the crash a new worker goes on, so every input still runs."""
    corpus, stats = tmp_path / "corpus", tmp_path / "stats.json"
    cmd = [sys.executable, ff.__file__, "--inputs", "60", "--parsers", "crc32c", "--quiet",
           "--corpus", str(corpus), "--stats", str(stats), "--tmp", str(tmp_path),
           "--hang-seconds", "0.3", "--inject", "foreign:5", "--inject", "crash:10",
           "--inject", "hang:20", "--inject", "foreign:30", "--inject", "wrong:40"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    (total,) = json.loads(stats.read_text())["totals"]
    assert total["inputs"] == 60
    # (the foreign input before the crash is counted from the corpus: the crashed
    # worker's own counts died with it)
    assert {k: total[k] for k in ("crashes", "hangs", "foreign", "wrong")} == \
        {"crashes": 1, "hangs": 1, "foreign": 2, "wrong": 1}
    # (under ASan the segfault comes with its report: saved as "sanitizer")
    names = [p.name.replace("sanitizer", "crash") for p in corpus.glob("*.json")]
    assert sorted(names) == [
        "crc32c-0-10-crash.json", "crc32c-0-20-hang.json", "crc32c-0-30-foreign.json",
        "crc32c-0-40-wrong.json", "crc32c-0-5-foreign.json"]
    rec = json.loads((corpus / "crc32c-0-30-foreign.json").read_text())
    assert "injected foreign exception" in rec["detail"]
    # the saved input is the one made from its index, and the replay command runs it
    key, bad, read = ff.make_target("crc32c", str(tmp_path)).make(ff.rng_for(0, "crc32c", 30))
    assert (rec["key"], rec["read"]) == (key, read)
    assert (corpus / "crc32c-0-30-foreign.bin").read_bytes() == bad
    replay = subprocess.run(rec["replay"].split() + ["--tmp", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0 and "replaying crc32c input 30" in replay.stdout
