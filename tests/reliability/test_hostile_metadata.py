"""Hostile metadata and chunk bytes raise zarrhpc errors, never foreign exceptions
(RecursionError, numpy's OverflowError/ValueError, the engine's OverflowError,
lzma.LZMAError), and a decompressor's output is bounded by the chunk's size."""

import bz2
import json
import lzma

import pytest

import zarrhpc
from zarrhpc.errors import CodecError, CorruptChunkError, MetadataError, ZarrhpcError
from zarrhpc.storage import MemoryStore

BYTES = [{"name": "bytes", "configuration": {"endian": "little"}}]


def v3(shape, chunks, codecs=BYTES, dtype="float64"):
    return json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": codecs,
    }).encode()


def v2(**kw):
    doc = {"zarr_format": 2, "shape": [10], "chunks": [10], "dtype": "<f8",
           "compressor": None, "fill_value": 0, "order": "C", "filters": None}
    doc.update(kw)
    return json.dumps(doc).encode()


def blosc(blocksize):
    return BYTES + [{"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 1, "shuffle": "noshuffle", "typesize": 8,
        "blocksize": blocksize}}]


def zmetadata(members):
    return json.dumps({"metadata": {".zgroup": {"zarr_format": 2}, **members},
                       "zarr_consolidated_format": 1}).encode()


def consolidated_v3(members):
    return json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {},
                       "consolidated_metadata": {"kind": "inline", "must_understand": False,
                                                 "metadata": members}}).encode()


DEEP = b"[" * 100_000 + b"]" * 100_000
ZGROUP = b'{"zarr_format": 2}'

CASES = {
    "deep v3": ({"zarr.json": b'{"zarr_format": 3, "node_type": "group", "attributes": '
                              b'{"a": ' + DEEP + b"}}"}, MetadataError),
    "deep v2": ({".zarray": b'{"a": ' + DEEP + b"}"}, MetadataError),
    "huge dims": ({"zarr.json": v3([2**63 - 1, 2**63 - 1], [1, 1])}, MetadataError),
    "dim past int64": ({"zarr.json": v3([2**64], [1])}, MetadataError),
    "huge chunk": ({"zarr.json": v3([10], [2**62])}, MetadataError),
    "huge chunk 2d": ({"zarr.json": v3([10, 10], [2**40, 2**40])}, MetadataError),
    "v2 huge chunk": ({".zarray": v2(shape=[2**62], chunks=[2**62])}, MetadataError),
    "v2 huge shape": ({".zarray": v2(shape=[2**70], chunks=[1])}, MetadataError),
    # found by the fast fuzz driver (fuzz_fast.py): a draft-looking entry point, the
    # consolidated documents (v2 .zmetadata, v3 consolidated_metadata)
    "deep draft entry": ({"zarr.json": b'{"zarr_format": "https://purl.org/zarr/spec/'
                                       b'protocol/core/3.0", "a": ' + DEEP + b"}"},
                         MetadataError),
    "deep .zmetadata": ({".zmetadata": b'{"metadata": ' + DEEP + b"}", ".zgroup": ZGROUP},
                        MetadataError),
    ".zmetadata member 2^40": ({".zmetadata": zmetadata({"a/.zarray": 2**40}),
                                ".zgroup": ZGROUP}, MetadataError),
    ".zmetadata member 10^30": ({".zmetadata": zmetadata({"a/.zattrs": 10**30}),
                                 ".zgroup": ZGROUP}, MetadataError),
    ".zmetadata shape past int64": ({".zmetadata": zmetadata(
        {"a/.zarray": json.loads(v2(shape=[2**70], chunks=[1]))}), ".zgroup": ZGROUP},
        MetadataError),
    "consolidated shape past int64": ({"zarr.json": consolidated_v3(
        {"a": json.loads(v3([2**64], [1]))})}, MetadataError),
    "blosc blocksize 2^63": ({"zarr.json": v3([10], [10], blosc(2**63))}, CodecError),
    "blosc blocksize 2^40": ({"zarr.json": v3([10], [10], blosc(2**40))}, CodecError),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_metadata_gives_zarrhpc_errors(name):
    docs, expected = CASES[name]
    store = MemoryStore()
    for k, v in docs.items():
        store.set(k, v)
    with pytest.raises(expected) as info:
        node = zarrhpc.open(store, mode="r")
        node[(0,) * node.ndim]
    key = next(iter(docs))
    assert key in str(info.value)


@pytest.mark.parametrize("compressor", ["lzma", "bz2"])
def test_garbage_and_bombs_in_unbounded_decompressors(compressor):
    store = MemoryStore()
    store.set(".zarray", v2(compressor={"id": compressor}))
    store.set("0", b"garbage, not a compressed stream")
    a = zarrhpc.open_array(store, mode="r")
    with pytest.raises(CorruptChunkError, match="numcodecs"):
        a[:]
    # a valid stream of 10 MB for a chunk of 80 bytes: refused after 81 bytes of output
    bomb = (lzma.compress if compressor == "lzma" else bz2.compress)(b"\0" * 10_000_000)
    store.set("0", bomb)
    with pytest.raises(CorruptChunkError, match="more than the 80 bytes"):
        a[:]
    assert not isinstance(CorruptChunkError("x"), lzma.LZMAError)
    assert issubclass(CorruptChunkError, ZarrhpcError)


@pytest.mark.parametrize("codec", ["zstd", "gzip"])
@pytest.mark.parametrize("store_kind", ["memory", "local"])
def test_chunk_shape_grown_in_metadata_allocates_nothing(tmp_path, codec, store_kind):
    """A small chunk under metadata whose chunk shape was damaged to 2^34 elements: the
    engine refuses it from the compressed size before allocating the 64 GiB the metadata
    names (found by the fast fuzzer under ASan: its allocator aborted on them)."""
    store = MemoryStore() if store_kind == "memory" else str(tmp_path / "s")
    a = zarrhpc.create_array(store, shape=(64,), chunks=(64,), dtype="f4",
                             compressors={"name": codec, "configuration": {"level": 1}})
    a[...] = 1.5
    raw = a.store.get("zarr.json")
    doc = json.loads(bytes(raw))
    doc["shape"], doc["chunk_grid"]["configuration"]["chunk_shape"] = [2**34], [2**34]
    a.store.set("zarr.json", json.dumps(doc).encode())
    b = zarrhpc.open_array(store, mode="r")
    with pytest.raises(CorruptChunkError):
        b[:10]


@pytest.mark.parametrize("codec", [{"name": "zstd", "configuration": {"level": 22}},
                                   {"name": "gzip", "configuration": {"level": 9}}])
def test_most_compressible_chunks_still_decode(codec):
    """The bound on what a compressed chunk can decode to lets the real extreme through:
    16 MiB of zeros (zstd ~4 bytes a 128 KiB block, deflate ~1030:1)."""
    a = zarrhpc.create_array(MemoryStore(), shape=(1 << 24,), chunks=(1 << 24,), dtype="u1",
                             compressors=codec, fill_value=1, write_empty_chunks=True)
    a[...] = 0
    assert len(a.store.get("c/0")) < (1 << 24) // 1000
    assert not a[...].any() and a[...].shape == (1 << 24,)
