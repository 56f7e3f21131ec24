"""Random write/read programs on zarrs' codecs (squeeze, reshape, cast_value, scale_offset,
zfp, zfpy, zarrs.vlen, vlen_v2), sharded or not, against numpy
(zarrhpc.testing.differential_codecs). Short in ``make test``; long: ``ZARRHPC_LONG=1``."""

import os

import pytest

from zarrhpc.testing.differential_codecs import run_program

pytest.importorskip("zfpy")
N = 600 if os.environ.get("ZARRHPC_LONG", "") not in ("", "0") else 24


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("seed", range(N))
def test_random_codec_programs(tmp_path, seed):
    assert run_program(seed, str(tmp_path)) in ("squeeze", "reshape", "cast", "scale", "zfp",
                                                 "zfpy", "vlen", "vlen2")
