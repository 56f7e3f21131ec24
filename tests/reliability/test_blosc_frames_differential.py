"""blosc frames of other writers in zarrhpc's chunk files, read through every path
(zarrhpc.testing.differential_blosc): c-blosc1 frames from numcodecs (every cname,
shuffle, typesize, block size, memcpyed) and c-blosc2 frames from python-blosc2 (split
modes, filters); v2 (both orders and byte orders) and v3; half the chunks with a lying
header, block offset or block size.  Every read gives the reference decoder's values or
raises a zarrhpc error; a whole read of a chunk the reference refuses raises.

Short in ``make test``; long: ``ZARRHPC_LONG=1`` (the numbers are in the hunt's notes)."""

import os

import pytest

from zarrhpc.testing.differential_blosc import run_program

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
N = 400 if LONG else 6


@pytest.mark.parametrize("seed", range(N))
def test_frames_of_other_writers_read_as_the_reference(tmp_path, seed):
    out = run_program(seed, str(tmp_path), damage=0.0)
    assert out.reads > 10 and out.raised == 0
    assert not out.problems, out.problems[:5]


@pytest.mark.parametrize("seed", range(1000, 1000 + N))
def test_lying_frames_raise_or_read_as_the_reference(tmp_path, seed):
    out = run_program(seed, str(tmp_path), damage=0.6, peers=False)
    assert out.reads > 10
    assert not out.problems, (out.damage_log, out.problems[:5])


def test_the_harness_sees_wrong_values(tmp_path, monkeypatch):
    """A reader that returns other bytes for one element is reported."""
    import zarrhpc.testing.differential_blosc as d

    real = d._check_read

    def corrupting(out, label, read, sel, want, loose, exact):
        def bad(s):
            v = read(s).copy()
            v.reshape(-1).view("u1")[:1] ^= 0xFF
            return v
        return real(out, label, bad, sel, want, loose, exact)

    monkeypatch.setattr(d, "_check_read", corrupting)
    out = d.run_program(5, str(tmp_path), damage=0.0, peers=False)
    assert out.problems and "differ" in out.problems[0]
