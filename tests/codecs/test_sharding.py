"""sharding_indexed: configuration checks, whole-shard round trips (nested too), the index
layout, and hostile indexes (every kind gives CorruptChunkError naming shard and inner chunk,
and no byte outside the shard is ever used)."""

import crc32c
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
    ShardingCodec,
    ShardingCodecIndexLocation,
    TransposeCodec,
    ZstdCodec,
    parse_codec,
)
from zarrhpc.codecs.sharding import EMPTY
from zarrhpc.errors import CodecError, CorruptChunkError

LITTLE = {"name": "bytes", "configuration": {"endian": "little"}}
SPEC = ChunkSpec((8, 6), np.dtype("<f4"), np.array(-1, dtype="f4"))


def entry(**config):
    base = {"chunk_shape": [4, 3], "codecs": [LITTLE], "index_codecs": [LITTLE, {"name": "crc32c"}],
            "index_location": "end"}
    base.update(config)
    return {"name": "sharding_indexed", "configuration": {k: v for k, v in base.items()
                                                          if v is not None}}


def data(seed=0, spec=SPEC):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(spec.shape).astype(spec.dtype)


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("config, field, words", [
    (dict(chunk_shape=None), "codecs[0].configuration.chunk_shape", "missing"),
    (dict(codecs=None), "codecs[0].configuration.codecs", "missing"),
    (dict(chunk_shape=[4, 0]), "codecs[0].configuration.chunk_shape", "integer"),
    (dict(chunk_shape="4,3"), "codecs[0].configuration.chunk_shape", "list"),
    (dict(chunk_shape=[4, True]), "codecs[0].configuration.chunk_shape", "integer"),
    (dict(codecs={"name": "bytes"}), "codecs[0].configuration.codecs", "list"),
    (dict(codecs=[{"name": "nope"}]), "codecs[0].configuration.codecs[0].name", "unknown"),
    (dict(index_codecs=[{"name": "gzip", "configuration": {"level": 99}}]),
     "codecs[0].configuration.index_codecs[0].configuration.level", "0 to 9"),
    (dict(index_location="middle"), "codecs[0].configuration.index_location", "'start'"),
])
def test_bad_configuration_names_document_and_field(config, field, words):
    with pytest.raises(CodecError) as info:
        parse_codec(entry(**config), "a/zarr.json", "codecs[0]")
    message = str(info.value)
    assert message.startswith(f"a/zarr.json: {field}")
    assert words in message


def test_unknown_configuration_key():
    bad = entry()
    bad["configuration"]["extra"] = 1
    with pytest.raises(CodecError, match="a/zarr.json: codecs.0..configuration.extra"):
        parse_codec(bad, "a/zarr.json", "codecs[0]")


@pytest.mark.parametrize("config, words", [
    (dict(chunk_shape=[3, 3]), r"multiple of the inner chunk shape \(3, 3\) \(axis 0: 8"),
    (dict(chunk_shape=[4]), "expected 2 dimensions"),
    (dict(index_codecs=[LITTLE, {"name": "zstd", "configuration": {"level": 1,
                                                                   "checksum": False}}]),
     "index_codecs: expected codecs whose encoded size is fixed"),
    (dict(codecs=[{"name": "crc32c"}]), "array->bytes"),
])
def test_chain_checked_against_the_array(config, words):
    with pytest.raises(CodecError, match=words) as info:
        CodecPipeline.from_json([entry(**config)], SPEC, "a/zarr.json")
    assert str(info.value).startswith("a/zarr.json: ")


def test_defaults_and_json_round_trip():
    codec = ShardingCodec((4, 3))
    assert codec.to_json() == entry()
    assert codec.index_location is ShardingCodecIndexLocation.end
    assert codec.codecs == (BytesCodec(),)
    assert codec.index_codecs == (BytesCodec(), Crc32cCodec())
    parsed = parse_codec(entry(index_location="start"), "zarr.json", "codecs[0]")
    assert parsed == ShardingCodec((4, 3), index_location="start")
    # index_codecs and index_location may be left out when reading (defaults)
    assert parse_codec(entry(index_codecs=None, index_location=None)) == codec


def test_evolve_fills_inner_defaults():
    codec = ShardingCodec((4, 3), [BytesCodec(), BloscCodec(cname="lz4", shuffle="shuffle")])
    pipeline = CodecPipeline.from_codecs([codec], SPEC)
    inner = pipeline.to_json()[0]["configuration"]["codecs"]
    assert inner[1]["configuration"]["typesize"] == 4


# ------------------------------------------------------------------ round trips

CHAINS = {
    "bytes": [LITTLE],
    "zstd": [LITTLE, {"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    "transpose-big-crc": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                          {"name": "bytes", "configuration": {"endian": "big"}},
                          {"name": "crc32c"}],
    "nested": [entry(chunk_shape=[2, 3], index_location="start")],
}
INDEX_CHAINS = {"crc": [LITTLE, {"name": "crc32c"}], "plain": [LITTLE],
                "big": [{"name": "bytes", "configuration": {"endian": "big"}}]}


@pytest.mark.parametrize("location", ["start", "end"])
@pytest.mark.parametrize("index", sorted(INDEX_CHAINS))
@pytest.mark.parametrize("inner", sorted(CHAINS))
def test_round_trip(inner, index, location):
    e = entry(codecs=CHAINS[inner], index_codecs=INDEX_CHAINS[index], index_location=location)
    pipeline = CodecPipeline.from_json([e], SPEC, "zarr.json")
    x = data()
    x[4:8, 0:3] = -1  # one inner chunk equal to the fill value
    buf = pipeline.encode(x, "c/0/0")
    out = pipeline.decode(buf, "c/0/0")
    assert out.dtype.isnative and np.array_equal(out, x)
    layout = pipeline.array_bytes.layout(SPEC)
    index = layout.read_index(buf, "c/0/0")
    assert index.shape == (2, 2, 2)
    assert (index[1, 0] == EMPTY).all()  # left out and marked all-ones
    assert (index[0, 0] != EMPTY).all()
    start, length = layout.index_range(len(buf))
    assert length == layout.index_nbytes
    assert start == (0 if location == "start" else len(buf) - layout.index_nbytes)


def test_index_layout_is_what_the_spec_says():
    codec = ShardingCodec((4, 3), [LITTLE], index_location="end")
    layout = codec.layout(SPEC)
    assert layout.index_nbytes == 4 * 2 * 8 + 4
    x = data()
    buf = bytes(layout.encode_shard(x))
    raw = np.frombuffer(buf[-layout.index_nbytes:-4], dtype="<u8").reshape(2, 2, 2)
    assert int.from_bytes(buf[-4:], "little") == crc32c.crc32c(buf[-layout.index_nbytes:-4])
    for i in range(2):
        for j in range(2):
            off, n = (int(v) for v in raw[i, j])
            chunk = np.frombuffer(buf[off:off + n], "<f4").reshape(4, 3)
            assert np.array_equal(chunk, x[4 * i:4 * i + 4, 3 * j:3 * j + 3])


def test_all_fill_shard_holds_only_an_index():
    layout = ShardingCodec((4, 3)).layout(SPEC)
    buf = layout.encode_shard(np.full(SPEC.shape, -1, "f4"))
    assert len(buf) == layout.index_nbytes
    assert layout.assemble({}) is None
    assert np.array_equal(layout.decode_shard(buf), np.full(SPEC.shape, -1, "f4"))
    kept = layout.encode_shard(np.full(SPEC.shape, -1, "f4"), write_empty=True)
    assert len(kept) == layout.index_nbytes + 8 * 6 * 4


def test_fill_value_compared_bit_for_bit():
    spec = ChunkSpec((4,), np.dtype("f4"), np.array(np.nan, "f4"))
    layout = ShardingCodec((2,)).layout(spec)
    x = np.array([np.nan, np.nan, -0.0, 0.0], "f4")
    index = layout.read_index(layout.encode_shard(x))
    assert (index[0] == EMPTY).all() and (index[1] != EMPTY).all()
    zero = ChunkSpec((2,), np.dtype("f4"), np.array(0, "f4"))
    neg = ShardingCodec((2,)).layout(zero).encode_shard(np.array([-0.0, 0.0], "f4"))
    assert len(neg) == 16 + 4 + 8  # stored: -0.0 is not the fill value 0.0


def test_nested_sharding_three_levels():
    spec = ChunkSpec((8, 8), np.dtype("u2"), np.array(0, "u2"))
    inner = ShardingCodec((2, 2), [BytesCodec(), ZstdCodec(level=1)])
    middle = ShardingCodec((4, 4), [TransposeCodec(order=(1, 0)), inner], index_location="start")
    pipeline = CodecPipeline.from_codecs([middle], spec)
    x = np.arange(64, dtype="u2").reshape(8, 8)
    assert np.array_equal(pipeline.decode(pipeline.encode(x)), x)


# ------------------------------------------------------------------ hostile indexes


def shard_with_index(index: np.ndarray, payload: bytes, location="end", crc=True):
    """A shard of SPEC with a hand-made index (crc recomputed so that it passes)."""
    raw = index.astype("<u8").tobytes()
    if crc:
        raw += crc32c.crc32c(raw).to_bytes(4, "little")
    return raw + payload if location == "start" else payload + raw


def good_index(location="end"):
    n = 4 * 3 * 4
    base = 2 * 2 * 2 * 8 + 4 if location == "start" else 0
    return np.array([[[base + k * n, n] for k in (0, 1)], [[base + k * n, n] for k in (2, 3)]],
                    dtype=np.uint64)


PAYLOAD = data(3).tobytes()[: 4 * 48]  # 4 inner chunks of 48 bytes


@pytest.mark.parametrize("location", ["start", "end"])
@pytest.mark.parametrize("edit, words", [
    (lambda ix: ix.__setitem__((1, 1, 0), 10**6), r"inner chunk \(1, 1\).*outside"),
    (lambda ix: ix.__setitem__((0, 1, 1), 10**6), r"inner chunk \(0, 1\).*outside"),
    (lambda ix: ix.__setitem__((1, 0, 0), 2**64 - 2), r"inner chunk \(1, 0\).*outside"),
    (lambda ix: ix.__setitem__((1, 0, 1), 2**64 - 2), r"inner chunk \(1, 0\).*outside"),
    (lambda ix: ix.__setitem__((0, 0, 0), EMPTY), r"inner chunk \(0, 0\).*both be 2\*\*64-1"),
    (lambda ix: ix.__setitem__((0, 1), ix[0, 0] + [8, 0]), r"inner chunk \(0, 1\).*overlaps"),
])
def test_hostile_entries(location, edit, words):
    index = good_index(location)
    pipeline = CodecPipeline.from_json([entry(index_location=location)], SPEC, "zarr.json")
    whole = pipeline.decode(shard_with_index(index, PAYLOAD, location), "a/c/1/2")
    assert np.array_equal(whole[:4, :3].reshape(-1), np.frombuffer(PAYLOAD[:48], "<f4"))
    edit(index)
    buf = shard_with_index(index, PAYLOAD, location)
    with pytest.raises(CorruptChunkError, match=words) as info:
        pipeline.decode(buf, "a/c/1/2")
    assert str(info.value).startswith("a/c/1/2")


def test_overlap_in_any_order_is_found():
    index = good_index()
    index[1, 1] = index[0, 0]  # a duplicate of the first entry, listed last
    layout = ShardingCodec((4, 3)).layout(SPEC)
    with pytest.raises(CorruptChunkError, match=r"k: shard index: inner chunk \((0, 0|1, 1)\)"):
        layout.decode_index(shard_with_index(index, b"")[-layout.index_nbytes:], 10**6, "k")


@pytest.mark.parametrize("location", ["start", "end"])
def test_bad_checksum_and_truncation(location):
    pipeline = CodecPipeline.from_json([entry(index_location=location)], SPEC)
    good = bytearray(pipeline.encode(data()))
    n = pipeline.array_bytes.layout(SPEC).index_nbytes
    bad = bytearray(good)
    bad[0 if location == "start" else -n] ^= 1
    crc = r"^k: codecs\[0\]: shard index: .*crc32c: checksum mismatch"
    with pytest.raises(CorruptChunkError, match=crc):
        pipeline.decode(bytes(bad), "k")
    for cut in (n - 1, 3, 0):
        with pytest.raises(CorruptChunkError,
                           match=r"^k: codecs\[0\]: shard index: expected 68 bytes"):
            pipeline.decode(bytes(good[:cut]), "k")
    # a shard cut inside the data: the index entries now point past the end
    short = good[:n] + good[n:-100] if location == "start" else good[100:]
    with pytest.raises(CorruptChunkError, match=r"^k: codecs\[0\]: shard index: inner chunk"):
        pipeline.decode(bytes(short), "k")


def test_inner_chunk_that_does_not_decode_names_the_inner_chunk():
    codecs = [LITTLE, {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]
    pipeline = CodecPipeline.from_json([entry(codecs=codecs)], SPEC, "zarr.json")
    buf = bytearray(pipeline.encode(data()))
    buf[:8] = b"garbage!"
    with pytest.raises(CorruptChunkError, match=r"^c/0: codecs\[0\]: inner chunk \(0, 0\)"):
        pipeline.decode(bytes(buf), "c/0")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)) |
                st.tuples(st.integers(0, 300), st.integers(0, 300)), min_size=4, max_size=4),
       st.sampled_from(["start", "end"]), st.integers(0, 3))
def test_random_indexes_decode_or_fail_cleanly(entries, location, empties):
    """Any index either decodes (every entry inside the shard's data, none overlapping) or
    fails with CorruptChunkError naming the shard; never an IndexError, never garbage bytes
    from outside the shard."""
    index = np.array(entries, dtype=np.uint64).reshape(2, 2, 2)
    index.reshape(4, 2)[:empties] = EMPTY
    buf = shard_with_index(index, PAYLOAD, location)
    layout = ShardingCodec((4, 3), index_location=location).layout(SPEC)
    try:
        checked = layout.read_index(buf, "s")
    except CorruptChunkError as exc:
        assert str(exc).startswith("s: shard index: inner chunk (")
        return
    lo, hi = layout.data_region(len(buf))
    spans = sorted((int(o), int(o + n)) for o, n in checked.reshape(4, 2) if o != EMPTY)
    assert all(lo <= a <= b <= hi for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))


def test_inner_bytes_without_endian_reads_little_as_zarr_python():
    """Stored metadata whose inner ``bytes`` codec has no endian (a multi-byte type) is read
    little-endian, as zarr-python reads it (was a CodecError)."""
    pipeline = CodecPipeline.from_json([entry(codecs=[{"name": "bytes"}])], SPEC, "a/zarr.json")
    # the stored entry is kept as written; values: tests/conformance/
    # test_corpus_metadata_variants.py (v3-sharding-inner-bytes-no-configuration)
    assert pipeline.to_json()[0]["configuration"]["codecs"] == [{"name": "bytes"}]
