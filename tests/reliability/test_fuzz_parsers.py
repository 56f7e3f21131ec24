"""Fuzzing every parser that reads store bytes, seeded from real stores.

A byte-level mutator (hypothesis: flipped bytes, overwritten runs, truncation, bytes
appended) damages one value of a real store (metadata JSON v3/v2/2022 draft,
consolidated metadata, chunk bytes of every codec, vlen string chunks, shard indexes, a
zip file's directory and local headers), then the whole store is opened and read. Every
failure must be a zarrhpc error; a crash, a foreign exception or a read taking more than
5 s twice in a row (a hang) fails the test. More examples: ``ZARRHPC_FUZZ_EXAMPLES=100000 make fuzz``
(under ASan: see the Makefile's asan notes). With ``ZARRHPC_FUZZ_STATS=file`` each
parser's counts (inputs, zarrhpc errors, slowest read) are written there at exit.
"""

import atexit
import json
import os
import time

import numpy as np
import pytest
from fuzz_seeds import DRAFTS, SEEDS, all_seeds, expected, read_all, read_draft, zip_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import ZarrhpcError
from zarrhpc.storage import MemoryStore
from zarrhpc.storage.zip import ZipStore

EXAMPLES = int(os.environ.get("ZARRHPC_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                suppress_health_check=list(HealthCheck))
HANG_SECONDS = 5.0
_SEEDS = all_seeds()

# per parser: inputs read, inputs refused with a zarrhpc error, the slowest read
STATS: dict = {}


def _write_stats() -> None:
    out = os.environ.get("ZARRHPC_FUZZ_STATS")
    if out and STATS:
        with open(out, "a") as f:
            f.write(json.dumps({"pid": os.getpid(), "stats": STATS}) + "\n")


atexit.register(_write_stats)


def _timed(kind: str, read, *args) -> None:
    """``read(*args)``; counts it under ``kind``; a read over HANG_SECONDS fails."""
    st_ = STATS.setdefault(kind, {"inputs": 0, "zarrhpc_errors": 0, "max_seconds": 0.0})
    t0 = time.perf_counter()
    st_["inputs"] += 1
    st_["zarrhpc_errors"] += read(*args)
    dt = time.perf_counter() - t0
    st_["max_seconds"] = max(st_["max_seconds"], round(dt, 3))
    if dt >= HANG_SECONDS:
        # a loaded machine (or ASan) can stall one read; a hang is one that stays slow
        st_["slow_once"] = st_.get("slow_once", 0) + 1
        t0 = time.perf_counter()
        read(*args)
        dt = time.perf_counter() - t0
        assert dt < HANG_SECONDS, f"{kind}: one read took {dt:.1f} s, twice"


@st.composite
def mutations(draw, value: bytes):
    data = bytearray(value)
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "byte", "run", "truncate", "append", "int"]))
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "byte":
            data[i] = draw(st.integers(0, 255))
        elif op == "run":
            run = draw(st.binary(min_size=1, max_size=16))
            data[i : i + len(run)] = run
        elif op == "truncate":
            del data[i:]
        elif op == "append":
            data += draw(st.binary(max_size=64))
        else:  # an extreme little-endian integer where offsets and sizes live
            v = draw(st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**63 - 1, 2**64 - 1]))
            data[i : i + 8] = v.to_bytes(8, "little")
    return bytes(data)


@pytest.mark.parametrize("kind", sorted(_SEEDS))
def test_seed_stores_read_whole(kind):
    """Undamaged, every seed opens and reads (else its fuzzing never reaches the chunk
    parsers: the v2 seeds once sat in a v3 group and never opened)."""
    store = MemoryStore()
    for k, v in _SEEDS[kind].items():
        store.set(k, v)
    if kind in DRAFTS:
        assert read_draft(store, DRAFTS[kind][1]) == 0
    else:
        assert read_all(store) == 0
        np.testing.assert_array_equal(zarrhpc.open_group(store, mode="r")["a"][...],
                                      expected(kind))


def _damaged(kind: str, data) -> MemoryStore:
    """The ``kind`` seed store with one of its values (drawn) damaged."""
    docs = _SEEDS[kind]
    key = data.draw(st.sampled_from(sorted(docs)))
    bad = data.draw(mutations(docs[key]))
    store = MemoryStore()
    for k, v in docs.items():
        store.set(k, bad if k == key else v)
    return store


@pytest.mark.parametrize("kind", sorted(SEEDS))
@FUZZ
@given(data=st.data())
def test_fuzz_store_values(kind, data):
    _timed(kind, read_all, _damaged(kind, data))


@pytest.mark.parametrize("kind", sorted(DRAFTS))
@FUZZ
@given(data=st.data())
def test_fuzz_draft_stores(kind, data):
    _timed(kind, read_draft, _damaged(kind, data), DRAFTS[kind][1])


_ZIP = None


def _zip_bytes(tmp_dir) -> bytes:
    global _ZIP
    if _ZIP is None:
        _ZIP = zip_bytes(_SEEDS["zstd"], tmp_dir)
    return _ZIP


@FUZZ
@given(data=st.data())
def test_fuzz_zip_archives(tmp_path_factory, data):
    tmp = str(tmp_path_factory.getbasetemp())
    raw = _zip_bytes(tmp)
    # damage the directory and end records more often than the entries
    tail = data.draw(st.booleans())
    if tail:
        cut = max(0, len(raw) - 400)
        bad = raw[:cut] + data.draw(mutations(raw[cut:]))
    else:
        bad = data.draw(mutations(raw))
    path = os.path.join(tmp, "fuzz.zip")
    with open(path, "wb") as f:
        f.write(bad)
    def read() -> int:
        try:
            store = ZipStore(path)
        except ZarrhpcError:
            return 1
        try:
            return read_all(store)
        finally:
            store.close()

    _timed("zip", read)
