"""Fuzzing every parser that reads store bytes, seeded from real stores.

A byte-level mutator (hypothesis: flipped bytes, overwritten runs, truncation, bytes
appended) damages one value of a real store (metadata JSON v3/v2, consolidated
metadata, chunk bytes of every codec, shard indexes, a zip file's directory and local
headers), then the whole store is opened and read. Every failure must be a zarrhpc
error; a crash, a hang or a foreign exception fails the test. More examples:
``ZARRHPC_FUZZ_EXAMPLES=100000 make fuzz`` (under ASan: see the Makefile's asan notes).
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import ZarrhpcError
from zarrhpc.storage import MemoryStore
from zarrhpc.storage.zip import ZipStore

EXAMPLES = int(os.environ.get("ZARRHPC_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                suppress_health_check=list(HealthCheck))

BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
SEEDS = {
    "zstd": dict(compressors={"name": "zstd", "configuration": {"level": 1}}),
    "gzip": dict(compressors={"name": "gzip", "configuration": {"level": 1}}),
    "blosc": dict(compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
    "crc32c": dict(compressors=[{"name": "crc32c"}]),
    "sharded": dict(shards=(16, 16), compressors={"name": "zstd", "configuration": {"level": 1}}),
    "v2-zlib": dict(zarr_format=2, compressors={"id": "zlib", "level": 1}),
    "v2-blosc": dict(zarr_format=2, compressors={"id": "blosc", "cname": "zstd", "clevel": 1,
                                                 "shuffle": 1}),
}
DATA = (np.arange(16 * 24, dtype="i4").reshape(16, 24) * 7919) % 1000


def _seed_store(kind: str) -> dict:
    store = MemoryStore()
    g = zarrhpc.create_group(store)
    g.create_array("a", shape=DATA.shape, chunks=(8, 8), dtype="i4", fill_value=0,
                   **SEEDS[kind])[...] = DATA
    zarrhpc.consolidate_metadata(store)
    return {k: bytes(store.get(k)) for k in store.list()}


_SEEDS = {k: _seed_store(k) for k in SEEDS}


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


def _read_all(store) -> None:
    try:
        node = zarrhpc.open_group(store, mode="r")
        a = node["a"]
        np.asarray(a[...])
        np.asarray(a[3:11, 5:20])
    except ZarrhpcError:
        pass
    try:
        zarrhpc.open_consolidated(store, mode="r")["a"][...]
    except ZarrhpcError:
        pass


@pytest.mark.parametrize("kind", sorted(SEEDS))
@FUZZ
@given(data=st.data())
def test_fuzz_store_values(kind, data):
    docs = _SEEDS[kind]
    key = data.draw(st.sampled_from(sorted(docs)))
    bad = data.draw(mutations(docs[key]))
    store = MemoryStore()
    for k, v in docs.items():
        store.set(k, bad if k == key else v)
    _read_all(store)


_ZIP = None


def _zip_bytes(tmp_dir) -> bytes:
    global _ZIP
    if _ZIP is None:
        path = os.path.join(tmp_dir, "seed.zip")
        with ZipStore(path, mode="w") as z:
            for k, v in _SEEDS["zstd"].items():
                z.set(k, v)
        with open(path, "rb") as f:
            _ZIP = f.read()
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
    try:
        store = ZipStore(path)
    except ZarrhpcError:
        return
    try:
        _read_all(store)
    finally:
        store.close()
