"""The seed stores both fuzzers damage, and the whole-store reads they run.

One place for what the hypothesis fuzzer (test_fuzz_parsers.py) and the fast driver
(fuzz_fast.py) start from: one small array per chunk parser (every codec, a sharded
array, v2 arrays, vlen strings) in a consolidated group, written by zarrhpc into a
MemoryStore and kept as ``{key: bytes}``; three hand-written 2022 draft stores; a zip
archive of the zstd seed. `read_all` / `read_draft` open and read a store the way a user
would and count the zarrhpc errors met; anything else escapes to the caller.
"""

import os
import tempfile
from pathlib import Path

import numpy as np

import zarrhpc
from zarrhpc.errors import ZarrhpcError
from zarrhpc.storage import MemoryStore
from zarrhpc.storage.zip import ZipStore
from zarrhpc.testing import draft_stores

SEEDS = {
    "zstd": dict(compressors={"name": "zstd", "configuration": {"level": 1}}),
    "gzip": dict(compressors={"name": "gzip", "configuration": {"level": 1}}),
    "blosc": dict(compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
    # blocks of 64 bytes: partial reads decompress only some blocks (blosc getitem, and
    # the engine's sparse file reads of a LocalStore chunk)
    "blosc-blocks": dict(compressors={"name": "blosc", "configuration": {
        "cname": "zstd", "clevel": 1, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 64}}),
    "crc32c": dict(compressors=[{"name": "crc32c"}]),
    "sharded": dict(shards=(16, 16), compressors={"name": "zstd", "configuration": {"level": 1}}),
    "v2-zlib": dict(zarr_format=2, compressors={"id": "zlib", "level": 1}),
    "v2-blosc": dict(zarr_format=2, compressors={"id": "blosc", "cname": "zstd", "clevel": 1,
                                                 "shuffle": 1}),
    # variable-length strings: v3 vlen-utf8 (StringDType) and v2 object + VLenUTF8
    "vlen-v3": dict(dtype="str", compressors=None),
    "vlen-v2": dict(dtype="str", zarr_format=2, compressors=None),
}
# hand-written stores of the 2022 v3 draft, each holding one array at this path
DRAFTS = {"draft-spec": (draft_stores.spec_store, "foo/bar"),
          "draft-zp2": (draft_stores.zarr_python2_store, "g/x"),
          "draft-root": (draft_stores.root_array_store, "")}
DATA = (np.arange(16 * 24, dtype="i4").reshape(16, 24) * 7919) % 1000
STRINGS = np.array([f"s{v}" * (v % 5) for v in DATA.ravel()]).reshape(DATA.shape)
CHUNKS = (8, 8)
METADATA_NAMES = ("zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata")


def seed_store(kind: str) -> dict:
    """``{key: bytes}`` of the ``kind`` seed: array ``a`` in a consolidated group."""
    store = MemoryStore()
    kw = dict(dtype="i4", fill_value=0) | SEEDS[kind]
    g = zarrhpc.create_group(store, zarr_format=kw.pop("zarr_format", 3))  # the array's too
    data = STRINGS if kind.startswith("vlen") else DATA
    if kind.startswith("vlen"):
        kw["fill_value"] = ""
    g.create_array("a", shape=DATA.shape, chunks=CHUNKS, **kw)[...] = data
    zarrhpc.consolidate_metadata(store)
    return {k: bytes(store.get(k)) for k in sorted(store.list())}  # a fixed order: inputs made again


def draft_seed(kind: str) -> dict:
    """``{key: bytes}`` of the ``kind`` draft store (its array at ``DRAFTS[kind][1]``)."""
    with tempfile.TemporaryDirectory() as tmp:
        DRAFTS[kind][0](Path(tmp))
        return {str(p.relative_to(tmp)): p.read_bytes()
                for p in sorted(Path(tmp).rglob("*")) if p.is_file()}


def all_seeds() -> dict:
    """Every seed store by kind (the chunk parsers' and the drafts')."""
    return {k: seed_store(k) for k in SEEDS} | {k: draft_seed(k) for k in DRAFTS}


def expected(kind: str) -> np.ndarray:
    """What array ``a`` of the ``kind`` seed holds."""
    return STRINGS if kind.startswith("vlen") else DATA


def is_metadata(key: str) -> bool:
    return key.rsplit("/", 1)[-1] in METADATA_NAMES


def memory_store(docs: dict, key: str | None = None, value: bytes | None = None):
    """A MemoryStore holding ``docs``, with ``key`` set to ``value`` instead."""
    store = MemoryStore()
    for k, v in docs.items():
        store.set(k, value if k == key else v)
    return store


def zip_bytes(docs: dict, tmp_dir: str) -> bytes:
    """The bytes of a zip archive holding ``docs`` (written by ZipStore)."""
    path = os.path.join(tmp_dir, "seed.zip")
    with ZipStore(path, mode="w") as z:
        for k, v in docs.items():
            z.set(k, v)
    with open(path, "rb") as f:
        raw = f.read()
    os.unlink(path)
    return raw


# damaged metadata may declare a valid but huge array: reading it whole would be a
# MemoryError for the output the reader asked for (numpy's answer, not a parser's fault)
WHOLE_MAX = 1 << 28


def _whole(a):
    return a[...] if a.nbytes <= WHOLE_MAX else a[(slice(0, 40),) * a.ndim]


def read_all(store) -> int:
    """Open and read everything; the number of zarrhpc errors met (0-2)."""
    errors = 0
    try:
        node = zarrhpc.open_group(store, mode="r")
        a = node["a"]
        np.asarray(_whole(a))
        np.asarray(a[3:11, 5:20])
        np.asarray(a.vindex[[0, 15, 7], [23, 0, 9]])
    except ZarrhpcError:
        errors += 1
    try:
        _whole(zarrhpc.open_consolidated(store, mode="r")["a"])
    except ZarrhpcError:
        errors += 1
    return errors


def read_draft(store, path: str) -> int:
    """Open and read the draft array at ``path``; 1 if a zarrhpc error was met."""
    try:
        a = zarrhpc.open_array(store, path=path, mode="r")
        np.asarray(_whole(a))
        np.asarray(a[1:, :2])
    except ZarrhpcError:
        return 1
    return 0
