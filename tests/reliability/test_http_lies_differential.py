"""Random read programs over an HTTP server that fails and lies (zarrhpc.testing.differential_http):
503 bursts, dropped connections, refusals for good, a server ignoring Range, 206 answers
cut short with an honest or a lying Content-Range; obstore and fsspec; sharded arrays with
and without an index checksum. Every read gives numpy's values or a zarrhpc error (and
must succeed where the server is honest in the end).

On the code before this session's fixes the short run reports fill values read for a
shard whose server answered 500 (fsspec) and the obstore backend refusing a server that
ignores Range. Short in ``make test``; long: ``ZARRHPC_LONG=1``."""

import os

import numpy as np
import pytest

from zarrhpc.testing import differential_http
from zarrhpc.testing.differential_http import run_program

LONG = os.environ.get("ZARRHPC_LONG", "") not in ("", "0")
N = 300 if LONG else 4


@pytest.mark.parametrize("seed", range(N))
def test_reads_over_a_lying_server_are_right_or_raise(tmp_path, seed):
    out = run_program(seed, str(tmp_path))
    assert out.reads == 12
    assert not out.problems, out.problems[:5]


def test_the_harness_sees_wrong_values(tmp_path, monkeypatch):
    real = differential_http._read

    def corrupting(a, kind, sel):
        got = np.array(real(a, kind, sel), copy=True)
        got.reshape(-1)[:1] += 1
        return got

    monkeypatch.setattr(differential_http, "_read", corrupting)
    out = run_program(3, str(tmp_path), reads=4)
    assert out.problems and "wrong values" in " ".join(out.problems)
