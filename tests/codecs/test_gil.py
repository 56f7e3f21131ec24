"""The codecs' library calls release the GIL (STYLE.md lesson 13).

A worker thread runs one long codec call; the main thread counts Python loop iterations
meanwhile. With the GIL held, the main thread is starved for the whole call.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from zarrhpc.testing.codec_helpers import random_array

from zarrhpc.codecs import BloscCodec, ChunkSpec, Crc32cCodec, GzipCodec, ZstdCodec

pytestmark = pytest.mark.slow

N = 48_000_000
DATA = random_array((N // 8,), "int64", 0).tobytes()
SPEC = ChunkSpec((N,), np.dtype("u1"))


def _main_thread_progress(fn) -> float:
    """Iterations per millisecond the main thread makes while ``fn`` runs in a worker."""
    done = threading.Event()
    started = threading.Event()

    def worker():
        started.set()
        fn()
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    count = 0
    t0 = time.perf_counter()
    while not done.is_set():
        count += 1
    elapsed = time.perf_counter() - t0
    t.join()
    return count / max(elapsed * 1000, 1e-9)


def _baseline() -> float:
    return _main_thread_progress(lambda: time.sleep(0.2))


CASES = {
    "gzip.encode": lambda: GzipCodec(1).encode(DATA),
    "zstd.encode": lambda: ZstdCodec(3).encode(DATA),
    "blosc.encode": lambda: BloscCodec("zstd", 5, "shuffle", 8).encode(DATA),
    "crc32c.encode": lambda: Crc32cCodec().encode(DATA),
}
ENCODED = {
    "gzip.decode": (GzipCodec(1), GzipCodec(1).encode(DATA)),
    "zstd.decode": (ZstdCodec(3), ZstdCodec(3).encode(DATA)),
    "blosc.decode": (
        BloscCodec("zstd", 5, "shuffle", 8),
        BloscCodec("zstd", 5, "shuffle", 8).encode(DATA),
    ),
}


@pytest.mark.parametrize("name", list(CASES) + list(ENCODED))
def test_gil_released(name):
    if name in CASES:
        fn = CASES[name]
    else:
        codec, enc = ENCODED[name]

        def fn():
            for _ in range(3):
                codec.decode(enc, SPEC, N)

    base = _baseline()
    progress = _main_thread_progress(fn)
    # with the GIL held the main thread gets a few switch intervals at most
    assert progress > 0.4 * base, (name, progress, base)
