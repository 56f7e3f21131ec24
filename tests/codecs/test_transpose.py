"""Tests of zarrhpc/codecs/transpose.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.codecs import BytesCodec, ChunkSpec, CodecPipeline, TransposeCodec, parse_codec
from zarrhpc.errors import CodecError
from zarrhpc.testing.codec_helpers import field_re, random_array, same_bytes, seeds, to_native


@settings(max_examples=50, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=5).map(tuple), seed=seeds, data=st.data()
)
def test_views_and_round_trip(shape, seed, data):
    order = tuple(data.draw(st.permutations(range(len(shape)))))
    a = random_array(shape, "int32", seed)
    codec = TransposeCodec(order)
    spec = ChunkSpec(shape, a.dtype)
    enc = codec.encode_view(a)
    assert np.shares_memory(enc, a) or a.size == 0
    assert enc.shape == tuple(shape[i] for i in order) == codec.resolve(spec).shape
    # B[B_pos] = A[A_pos] with B_pos[i] = A_pos[order[i]]
    for a_pos in np.ndindex(*shape):
        assert enc[tuple(a_pos[i] for i in order)] == a[a_pos]
    dec = codec.decode_view(enc)
    assert np.shares_memory(dec, a) or a.size == 0
    assert np.array_equal(dec, a)
    p = CodecPipeline.from_codecs([codec, BytesCodec("big")], spec)
    assert same_bytes(to_native(p.decode(p.encode(a, "k"), "k")), a)


@pytest.mark.parametrize(
    "legacy, ndim, want", [("C", 3, [0, 1, 2]), ("F", 3, [2, 1, 0]), ("F", 1, [0]), ("C", 0, [])]
)
def test_legacy_orders_become_explicit(legacy, ndim, want):
    spec = ChunkSpec((2,) * ndim, np.dtype("u2"))
    p = CodecPipeline.from_json(
        [{"name": "transpose", "configuration": {"order": legacy}}, "bytes"],
        ChunkSpec(spec.shape, np.dtype("u1")),
        "zarr.json",
    )
    assert p.to_json()[0] == {"name": "transpose", "configuration": {"order": want}}
    assert TransposeCodec(legacy).evolve(spec).order == tuple(want)


def test_json_round_trip():
    entry = {"name": "transpose", "configuration": {"order": [2, 0, 1]}}
    assert parse_codec(entry).to_json() == entry


@pytest.mark.parametrize(
    "config",
    [
        {"order": [0, 0, 1]},
        {"order": [1, 2, 3]},
        {"order": [0, 1]},  # wrong length for 3 dimensions
        {"order": [0, 1, 2, 3]},
        {"order": [0, 1, True]},
        {"order": [0, 1, 2.0]},
        {"order": "X"},
        {"order": None},
        {"order": [0, 1, -2]},
    ],
)
def test_bad_order(config):
    spec = ChunkSpec((2, 3, 4), np.dtype("u1"))
    with pytest.raises(CodecError, match=field_re("z/zarr.json", "codecs[0].configuration.order")):
        CodecPipeline.from_json(
            [{"name": "transpose", "configuration": config}, "bytes"], spec, "z/zarr.json"
        )


@pytest.mark.parametrize("config", [None, {}, {"order": [0], "extra": 1}])
def test_missing_or_extra_keys(config):
    entry = (
        {"name": "transpose"} if config is None else {"name": "transpose", "configuration": config}
    )
    with pytest.raises(CodecError, match=field_re("zarr.json", "codecs[0]")):
        CodecPipeline.from_json([entry, "bytes"], ChunkSpec((2,), np.dtype("u1")), "zarr.json")
