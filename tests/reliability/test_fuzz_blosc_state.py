"""A short run of fuzz_blosc_state.py (damaged blosc chunks, then good ones, one worker
thread), and proof that the driver sees wrong data and unstable damaged reads.

The long run: ``python tests/reliability/fuzz_blosc_state.py --inputs 20000``.
"""

import os

import fuzz_blosc_state as fbs
import numpy as np

INPUTS = int(os.environ.get("ZARRHPC_FUZZ_BLOSC_STATE_INPUTS", "300"))


def test_short_run(tmp_path):
    counts = fbs.run(INPUTS, seed=3, tmp=str(tmp_path))
    assert counts["inputs"] == INPUTS
    assert (counts["foreign"], counts["wrong"], counts["unstable"]) == (0, 0, 0), counts
    assert counts["zarrhpc_errors"] > INPUTS // 10, counts  # the damage reaches the decoder
    assert counts["good_reads"] == 2 * INPUTS


def test_the_driver_sees_wrong_good_reads(tmp_path, monkeypatch):
    real = fbs._data
    monkeypatch.setattr(fbs, "_data", lambda name: real(name) + (name == "lz4-own"))

    class Liar(fbs.Fixture):
        def __init__(self, tmp):
            super().__init__(tmp)
            self.good = [(n, a, real(n) if n == "lz4-own" else d) for n, a, d in self.good]

    monkeypatch.setattr(fbs, "Fixture", Liar)
    counts = fbs.run(40, seed=3, tmp=str(tmp_path))
    assert counts["wrong"] > 0


def test_the_driver_sees_unstable_damaged_reads(tmp_path, monkeypatch):
    real = fbs._read
    calls = []

    def leaky(a, kind, sel, fill):  # a reader that returns what the output held
        calls.append(1)
        out = real(a, kind, sel, fill)
        if kind != "points" and a.path == "bad":
            out = np.asarray(out).copy()
            np.asarray(out).reshape(-1)[:1] = fill
        return out

    monkeypatch.setattr(fbs, "_read", leaky)
    counts = fbs.run(60, seed=3, tmp=str(tmp_path))
    assert counts["unstable"] > 0
