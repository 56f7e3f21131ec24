"""Tests of zarrhpc/codecs/pipeline.py: order rules, decode/encode, corruption, defaults."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.codecs import (
    BloscCodec,
    BytesCodec,
    ChunkSpec,
    CodecPipeline,
    Crc32cCodec,
    GzipCodec,
    TransposeCodec,
    ZstdCodec,
    default_codecs,
    swap_size,
)
from zarrhpc.errors import CodecError, CorruptChunkError
from zarrhpc.testing.codec_helpers import random_array, same_bytes, seeds, to_native

# (chain, whether any corruption must be detected or decode to the original exactly)
CHAINS = {
    "bytes": ([BytesCodec("little")], False),
    "bytes-crc32c": ([BytesCodec("big"), Crc32cCodec()], True),
    "gzip": ([BytesCodec("little"), GzipCodec(5)], True),
    "zstd": ([BytesCodec("little"), ZstdCodec(3)], False),
    "zstd-checksum": ([BytesCodec("little"), ZstdCodec(3, True)], True),
    "blosc": ([BytesCodec("little"), BloscCodec("lz4", 5, "shuffle")], False),
    "blosc-zstd-bitshuffle": ([BytesCodec("big"), BloscCodec("zstd", 5, "bitshuffle")], False),
    "blosc-zlib-noshuffle": ([BytesCodec("little"), BloscCodec("zlib", 5, "noshuffle")], False),
    "transpose-blosc-crc32c": (
        [
            TransposeCodec((1, 0)),
            BytesCodec("big"),
            BloscCodec("lz4hc", 5, "shuffle"),
            Crc32cCodec(),
        ],
        True,
    ),
    "zstd-crc32c": ([BytesCodec("little"), ZstdCodec(1), Crc32cCodec()], True),
    "gzip-zstd": ([BytesCodec("little"), GzipCodec(1), ZstdCodec(1)], True),
    "blosc-gzip": ([BytesCodec("little"), BloscCodec("lz4", 5, "shuffle"), GzipCodec(1)], True),
}
SHAPE = (8, 12)
SPEC = ChunkSpec(SHAPE, np.dtype("float32"))
DATA = random_array(SHAPE, "float32", 42)
ENCODED = {
    name: bytes(memoryview(CodecPipeline.from_codecs(chain, SPEC).encode(DATA, "k")).cast("B"))
    for name, (chain, _) in CHAINS.items()
}

mutations = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 10_000)),
    st.tuples(
        st.just("flip"),
        st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 7)), min_size=1, max_size=4),
    ),
    st.tuples(
        st.just("overwrite"), st.tuples(st.integers(0, 10_000), st.binary(min_size=1, max_size=16))
    ),
    st.tuples(st.just("append"), st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("garbage"), st.binary(max_size=64)),
)


def mutate(enc: bytes, mutation) -> bytes:
    kind, arg = mutation
    b = bytearray(enc)
    if kind == "truncate":
        return bytes(b[: arg % max(1, len(b))])
    if kind == "flip":
        for pos, bit in arg:
            b[pos % len(b)] ^= 1 << bit
        return bytes(b)
    if kind == "overwrite":
        pos, data = arg
        pos %= len(b)
        b[pos : pos + len(data)] = data[: len(b) - pos]
        return bytes(b)
    if kind == "append":
        return bytes(b) + arg
    return arg


@pytest.mark.parametrize("name", list(CHAINS))
@settings(max_examples=150, deadline=None)
@given(mutation=mutations)
def test_corruption_never_crashes(name, mutation):
    chain, detects = CHAINS[name]
    p = CodecPipeline.from_codecs(chain, SPEC)
    bad = mutate(ENCODED[name], mutation)
    try:
        out = p.decode(bad, "data/c/3/4")
    except CorruptChunkError as exc:
        assert str(exc).startswith("data/c/3/4: codecs[")
        return
    assert out.shape == SHAPE and out.dtype.itemsize == 4
    if detects or bad == ENCODED[name]:
        assert same_bytes(to_native(out), DATA)


@pytest.mark.parametrize("name", list(CHAINS))
def test_chains_round_trip_and_json(name):
    chain, _ = CHAINS[name]
    p = CodecPipeline.from_codecs(chain, SPEC)
    assert same_bytes(to_native(p.decode(ENCODED[name], "k")), DATA)
    q = CodecPipeline.from_json(p.to_json(), SPEC, "zarr.json")
    assert q.to_json() == p.to_json()
    assert same_bytes(to_native(q.decode(ENCODED[name], "k")), DATA)


def test_truncation_names_key_for_every_codec():
    for name, enc in ENCODED.items():
        p = CodecPipeline.from_codecs(CHAINS[name][0], SPEC)
        with pytest.raises(CorruptChunkError, match=r"^a/c/0/1: codecs\[\d\]: "):
            p.decode(enc[: len(enc) // 2], "a/c/0/1")


@pytest.mark.parametrize(
    "entries, match",
    [
        ([], r"codecs: expected exactly one array->bytes"),
        (["crc32c"], r"codecs: expected exactly one array->bytes codec .*got 'crc32c'"),
        (["bytes", "bytes"], r"codecs\[1\]: a second array->bytes"),
        (["crc32c", "bytes"], r"codecs\[1\]: expected the order .* after bytes->bytes"),
        (
            ["bytes", {"name": "transpose", "configuration": {"order": [1, 0]}}],
            r"codecs\[1\]: expected the order",
        ),
        ("bytes", r"codecs: expected a list"),
    ],
)
def test_order_rules(entries, match):
    with pytest.raises(CodecError, match="x/zarr.json: " + match):
        CodecPipeline.from_json(entries, ChunkSpec((2, 3), np.dtype("u1")), "x/zarr.json")


def test_unknown_ignorable_codec_is_skipped_and_kept():
    entries = [
        "bytes",
        {"name": "example.hint", "must_understand": False, "configuration": {"a": 1}},
        "crc32c",
    ]
    p = CodecPipeline.from_json(entries, ChunkSpec((4,), np.dtype("u1")), "zarr.json")
    assert p.to_json() == [{"name": "bytes"}, entries[1], {"name": "crc32c"}]
    a = np.arange(4, dtype="u1")
    assert np.array_equal(p.decode(p.encode(a, "k"), "k"), a)


def test_decode_result_is_strided_view_in_stored_order():
    spec = ChunkSpec((3, 4), np.dtype("int16"))
    p = CodecPipeline.from_codecs([TransposeCodec((1, 0)), BytesCodec("big")], spec)
    a = random_array((3, 4), "int16", 1)
    enc = bytearray(p.encode(a, "k"))
    out = p.decode(enc, "k")
    assert out.shape == (3, 4) and not out.flags.c_contiguous
    assert out.dtype == np.dtype(">i2")
    assert np.shares_memory(out, np.frombuffer(enc, np.uint8))
    assert swap_size(out.dtype) == p.swap
    assert np.array_equal(to_native(out), a)


def test_encode_checks_the_chunk():
    p = CodecPipeline.from_codecs([BytesCodec()], SPEC)
    with pytest.raises(CodecError, match="k: expected a chunk of shape"):
        p.encode(np.zeros((2, 2), "f4"), "k")


@settings(max_examples=30, deadline=None)
@given(seed=seeds, start=st.integers(0, 3), step=st.integers(1, 3))
def test_encode_from_strided_views(seed, start, step):
    base = random_array((40, 40), "complex64", seed)
    view = base[start::step, ::-step][:8, :12]
    spec = ChunkSpec(view.shape, view.dtype)
    p = CodecPipeline.from_codecs([BytesCodec("big"), ZstdCodec(1)], spec)
    assert np.array_equal(to_native(p.decode(p.encode(view, "k"), "k")), view)


def test_default_codecs_match_zarr_python():
    zarr = pytest.importorskip("zarr")
    for dt in ["float64", "uint8", "bool", "int16", "complex64"]:
        arr = zarr.create_array(store={}, shape=(4,), dtype=dt, chunks=(2,))
        theirs = [c for c in arr.metadata.to_dict()["codecs"]]
        spec = ChunkSpec((2,), np.dtype(dt))
        ours = CodecPipeline.from_codecs(default_codecs(dt), spec).to_json()
        assert ours == theirs, dt


def test_threads_share_one_pipeline():
    spec = ChunkSpec((64, 64), np.dtype("float64"))
    p = CodecPipeline.from_codecs(
        [
            TransposeCodec((1, 0)),
            BytesCodec("big"),
            BloscCodec("zstd", 3, "shuffle"),
            Crc32cCodec(),
        ],
        spec,
    )
    arrays = [random_array((64, 64), "float64", i) for i in range(6)]
    failures = []

    def work(a):
        for _ in range(30):
            if not same_bytes(to_native(p.decode(p.encode(a, "k"), "k")), a):
                failures.append(1)

    threads = [threading.Thread(target=work, args=(a,)) for a in arrays]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not failures


def test_zero_dim_chunk_accepts_numpy_scalar():
    spec = ChunkSpec((), np.dtype("uint8"))
    p = CodecPipeline.from_codecs(default_codecs("uint8"), spec)
    out = p.decode(p.encode(np.uint8(7), "c"), "c")
    assert out.shape == () and out[()] == 7


def test_codec_groups():
    chain, _ = CHAINS["transpose-blosc-crc32c"]
    p = CodecPipeline.from_codecs(chain, SPEC)
    assert p.array_array == (TransposeCodec((1, 0)),)
    assert p.array_bytes == BytesCodec("big")
    assert [c.name for c in p.bytes_bytes] == ["blosc", "crc32c"]
    assert [c.name for c in p.codecs] == ["transpose", "bytes", "blosc", "crc32c"]
