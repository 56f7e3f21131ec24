"""numcodecs.<id> codecs: the filter's output equals numcodecs' on the flattened chunk,
shapes and types resolve, bad configurations name the field."""

import numcodecs
import numpy as np
import pytest

from zarrhpc.codecs import ChunkSpec, CodecPipeline, parse_codec
from zarrhpc.errors import CodecError

SHAPE = (4, 6)


@pytest.mark.parametrize(
    ("config", "dtype", "out_dtype"),
    [
        ({"id": "delta", "dtype": "<i4", "astype": "<i2"}, "<i4", "<i2"),
        ({"id": "fixedscaleoffset", "offset": 1, "scale": 10, "dtype": "<f8", "astype": "|u1"},
         "<f8", "|u1"),
        ({"id": "quantize", "digits": 1, "dtype": "<f4", "astype": "<f4"}, "<f4", "<f4"),
        ({"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}, "<f8", "<f4"),
        ({"id": "packbits"}, "|b1", "|u1"),
        ({"id": "categorize", "labels": ["a", "bb"], "dtype": "<U2", "astype": "|u1"},
         "<U2", "|u1"),
    ],
)
def test_filters_match_numcodecs(config, dtype, out_dtype):
    rng = np.random.default_rng(1)
    if dtype == "|b1":
        arr = rng.integers(0, 2, SHAPE).astype(bool)
    elif dtype == "<U2":
        arr = rng.choice(np.array(["a", "bb", ""], dtype="<U2"), SHAPE)
    else:
        arr = (rng.integers(0, 200, SHAPE) / 10).astype(dtype)
    conf = {k: v for k, v in config.items() if k != "id"}
    codec = parse_codec({"name": f"numcodecs.{config['id']}", "configuration": conf})
    spec = ChunkSpec(SHAPE, np.dtype(dtype).newbyteorder("="))
    codec = codec.evolve(spec)
    codec.validate(spec)
    out = codec.encode_view(arr.T.copy().T)  # any strides: the filter sees C order
    expected = numcodecs.get_codec(dict(config)).encode(np.ascontiguousarray(arr))
    assert np.asarray(out).tobytes() == np.asarray(expected).tobytes()
    resolved = codec.resolve(spec)
    assert resolved.dtype == np.dtype(out_dtype).newbyteorder("=")
    if config["id"] == "packbits":
        assert resolved.shape == (1 + 3,)
    back = codec.decode_view(np.asarray(out))
    assert back.shape == SHAPE
    ref = numcodecs.get_codec(dict(config)).decode(expected)
    np.testing.assert_array_equal(back, np.asarray(ref).reshape(SHAPE))


def test_pipeline_with_filter_and_bytes_compressor():
    spec = ChunkSpec(SHAPE, np.dtype("<i8"))
    chain = [{"name": "numcodecs.delta", "configuration": {"dtype": ">i8"}},
             {"name": "bytes", "configuration": {"endian": "big"}},
             {"name": "numcodecs.bz2", "configuration": {"level": 1}}]
    p = CodecPipeline.from_json(chain, spec, "x/zarr.json")
    arr = np.arange(24, dtype="<i8").reshape(SHAPE) ** 2
    enc = p.encode(arr, "x/c/0/0")
    # v2 semantics: delta on the big-endian data, then bz2 of its bytes
    ref = numcodecs.BZ2(1).encode(numcodecs.Delta(">i8").encode(arr.astype(">i8")))
    assert bytes(enc) == bytes(ref)
    np.testing.assert_array_equal(p.decode(enc, "x/c/0/0"), arr)


def test_bad_configuration_and_type_mismatch():
    with pytest.raises(CodecError, match=r"^a/zarr.json: codecs\[0\]: numcodecs.delta"):
        parse_codec({"name": "numcodecs.delta", "configuration": {"nope": 1}},
                    "a/zarr.json", "codecs[0]")
    codec = parse_codec({"name": "numcodecs.delta", "configuration": {"dtype": "<i8"}})
    with pytest.raises(CodecError, match="no whole number"):
        codec.validate(ChunkSpec((3,), np.dtype("i4")), "a/zarr.json", "codecs[0]")


def test_filter_after_a_type_change_reinterprets_bytes_as_numcodecs_does():
    """delta(f8 -> f4) then quantize(f8): the second filter views the f4 bytes as f8."""
    spec = ChunkSpec((8,), np.dtype("<f8"))
    chain = [{"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f4"}},
             {"name": "numcodecs.quantize", "configuration": {"digits": 2, "dtype": "<f8"}},
             {"name": "bytes", "configuration": {"endian": "little"}}]
    p = CodecPipeline.from_json(chain, spec)
    arr = np.linspace(0, 1, 8)
    enc = p.encode(arr)
    step = numcodecs.Delta("<f8", "<f4").encode(arr)
    assert bytes(enc) == numcodecs.Quantize(2, "<f8").encode(step).tobytes()
    back = p.decode(enc)
    ref = numcodecs.Delta("<f8", "<f4").decode(
        np.frombuffer(numcodecs.Quantize(2, "<f8").decode(bytes(enc)).tobytes(), "<f4"))
    np.testing.assert_array_equal(back, ref)
