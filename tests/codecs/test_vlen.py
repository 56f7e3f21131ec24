"""vlen-utf8 / vlen-bytes / vlen-array: bytes equal to numcodecs' own VLenUTF8/VLenBytes,
corrupt input never crashes, and string stores interoperate with zarr-python 3 both ways.

Until the dtype-generic read/write path lands in core (the "sel" work), whole arrays are
read and written here chunk by chunk through the array's own codec pipeline
(``read_chunks`` / ``write_chunks``): metadata, keys, fill values and codecs are
zarrhpc's, only the assembly of chunks into the result is done with numpy in the test.
"""

import itertools
import json
import math
import warnings

import numcodecs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc._kernels import vlen as kvlen
from zarrhpc.codecs import ChunkSpec, CodecPipeline, VLenBytesCodec, VLenUTF8Codec
from zarrhpc.errors import CorruptChunkError

zarr = pytest.importorskip("zarr")

STRING = np.dtypes.StringDType()
texts = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
                 max_size=40)
blobs = st.lists(st.binary(max_size=12), max_size=40)


def _chunk_keys(a):
    spec = a._metadata.to_spec()
    prefix = spec.chunk_prefix if spec.chunk_prefix is not None else (
        f"{a.path}/" if a.path else "")
    grid = [range(math.ceil(s / c)) for s, c in zip(a.shape, spec.chunk_shape)]
    for coords in itertools.product(*grid):
        sel = tuple(slice(i * c, min((i + 1) * c, s))
                    for i, c, s in zip(coords, spec.chunk_shape, a.shape))
        yield prefix + spec.chunk_key_encoding.encode(coords), sel, spec


def read_chunks(a) -> np.ndarray:
    """The whole array, every chunk decoded by ``a``'s pipeline (missing: fill value)."""
    out = np.empty(a.shape, dtype=a.dtype)
    for key, sel, spec in _chunk_keys(a):
        buf = a.store.get(key)
        if buf is None:
            out[sel] = spec.fill_value[()]
            continue
        chunk = a._pipeline.decode(buf, key)
        out[sel] = chunk[tuple(slice(0, s.stop - s.start) for s in sel)]
    return out


def write_chunks(a, data) -> None:
    """Write ``data`` (the whole array) chunk by chunk through ``a``'s pipeline."""
    for key, sel, spec in _chunk_keys(a):
        chunk = np.empty(spec.chunk_shape, dtype=a.dtype)
        chunk[...] = spec.fill_value[()]
        chunk[tuple(slice(0, s.stop - s.start) for s in sel)] = data[sel]
        a.store.set(key, a._pipeline.encode(chunk, key))


# ------------------------------------------------------------------ against numcodecs


@settings(max_examples=150, deadline=None)
@given(texts)
def test_utf8_matches_numcodecs(items):
    arr = np.array(items, dtype=object)
    ref = numcodecs.VLenUTF8().encode(arr)
    assert bytes(kvlen.encode_utf8(arr)) == bytes(ref)
    back = kvlen.decode_utf8(ref, len(items))
    assert back.dtype == object and list(back) == items
    codec = VLenUTF8Codec()
    spec = ChunkSpec((len(items),), STRING)
    assert bytes(codec.encode(arr.astype(STRING), spec)) == bytes(ref)
    dec = codec.decode(ref, spec)
    assert dec.dtype == STRING and dec.tolist() == items


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=8), max_size=10))
def test_string_kernel_validates_utf8_as_python_does(items):
    # raw bytes as vlen-utf8 items: decodes exactly when every item is valid UTF-8
    buf = numcodecs.VLenBytes().encode(np.array(items + [b""], dtype=object)[:-1])
    try:
        expected = [b.decode("utf-8") for b in items]
    except UnicodeDecodeError:
        expected = None
    spec = ChunkSpec((len(items),), STRING)
    if expected is None:
        with pytest.raises(CorruptChunkError, match="UTF-8"):
            VLenUTF8Codec().decode(buf, spec)
    else:
        assert VLenUTF8Codec().decode(buf, spec).tolist() == expected
        assert list(kvlen.decode_utf8(buf, len(items))) == expected


def test_string_na_encodes_empty():
    na = np.dtypes.StringDType(na_object=None)
    arr = np.array(["a", None, "b"], dtype=na)
    ref = numcodecs.VLenUTF8().encode(np.array(["a", None, "b"], dtype=object))
    assert bytes(VLenUTF8Codec().encode(arr, ChunkSpec((3,), na))) == bytes(ref)


@settings(max_examples=150, deadline=None)
@given(blobs)
def test_bytes_match_numcodecs(items):
    arr = np.array(items + [b"x"], dtype=object)[:-1]  # keep elements as bytes objects
    ref = numcodecs.VLenBytes().encode(arr)
    assert bytes(kvlen.encode_bytes(arr)) == bytes(ref)
    spec = ChunkSpec((len(items),), np.dtype(object))
    assert list(VLenBytesCodec().decode(ref, spec)) == items


@pytest.mark.parametrize("items", [[], [""], ["", "", ""], ["a\x00b", "\x00"],
                                   ["é", "日本語", "🙂" * 5], ["x" * 100_000]])
def test_utf8_edge_cases(items):
    arr = np.array(items, dtype=object)
    ref = numcodecs.VLenUTF8().encode(arr)
    assert bytes(kvlen.encode_utf8(arr)) == bytes(ref)
    assert list(kvlen.decode_utf8(ref, len(items))) == items


def test_none_encodes_empty_as_numcodecs():
    arr = np.array([None, "a"], dtype=object)
    assert bytes(kvlen.encode_utf8(arr)) == bytes(numcodecs.VLenUTF8().encode(arr))
    with pytest.raises(TypeError, match="expected str"):
        kvlen.encode_utf8(np.array([1], dtype=object))


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_truncated_or_garbled_is_corrupt_never_a_crash(items, data):
    ref = bytes(numcodecs.VLenUTF8().encode(np.array(items, dtype=object)))
    cut = data.draw(st.integers(0, max(len(ref) - 1, 0)))
    spec = ChunkSpec((len(items),), STRING)
    codec = VLenUTF8Codec()
    with pytest.raises(CorruptChunkError):  # any cut removes a header, length or text
        codec.decode(ref[:cut], spec)
    garbled = bytearray(ref)
    if garbled:
        pos = data.draw(st.integers(0, len(garbled) - 1))
        garbled[pos] ^= data.draw(st.integers(1, 255))
    try:
        out = codec.decode(bytes(garbled), spec)
    except CorruptChunkError:
        return
    assert out.shape == spec.shape  # a flip inside the text may still decode


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.integers(0, 5))
def test_random_bytes_never_crash(buf, n):
    spec = ChunkSpec((n,), np.dtype(object))
    try:
        out = VLenBytesCodec().decode(buf, spec)
    except CorruptChunkError:
        return
    assert out.shape == (n,)


def test_header_count_mismatch_and_huge_lengths():
    spec = ChunkSpec((3,), STRING)
    good = bytes(numcodecs.VLenUTF8().encode(np.array(["a", "b"], dtype=object)))
    with pytest.raises(CorruptChunkError, match="declares 2 items, expected 3"):
        VLenUTF8Codec().decode(good, spec)
    huge = (1).to_bytes(4, "little") + (2**32 - 1).to_bytes(4, "little") + b"abc"
    with pytest.raises(CorruptChunkError, match="declares 4294967295 bytes"):
        VLenUTF8Codec().decode(huge, ChunkSpec((1,), STRING))
    many = (2**31).to_bytes(4, "little")  # no allocation of 2**31 objects
    with pytest.raises(CorruptChunkError, match="only 4 bytes follow"):
        VLenUTF8Codec().decode(many, ChunkSpec((2**31,), STRING))
    with pytest.raises(CorruptChunkError):
        VLenUTF8Codec().decode(b"\x01\x00\x00\x00\x02\x00\x00\x00\xff\xfe", ChunkSpec((1,), STRING))


def test_pipeline_with_zstd_round_trip():
    spec = ChunkSpec((3, 2), STRING, np.array("", dtype=STRING))
    p = CodecPipeline.from_json([{"name": "vlen-utf8"}, {"name": "zstd",
                                 "configuration": {"level": 1}}], spec, "a/zarr.json")
    data = np.array([["a", "bé"], ["", "x\x00"], ["long" * 10, "z"]], dtype=STRING)
    back = p.decode(p.encode(data.T.copy().T, "k"), "k")
    assert back.dtype == STRING
    np.testing.assert_array_equal(back, data)


# ------------------------------------------------------------------ interop


DATA = np.array(["a", "bé", "", "x\x00y", "日本", "s" * 50, "7", "end"], dtype=object)


def _zarr(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_python_strings_read(tmp_path, zarr_format):
    z = _zarr(zarr.create_array, str(tmp_path / "s.zarr"), shape=(11,), chunks=(3,),
              dtype=str, zarr_format=zarr_format)
    z[:8] = DATA.astype(STRING)
    expected = z[:]
    a = zarrhpc.open_array(tmp_path / "s.zarr")
    assert a.dtype == expected.dtype == STRING
    assert a.fill_value == ""
    np.testing.assert_array_equal(read_chunks(a), expected)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_zarr_python_bytes_read(tmp_path, zarr_format):
    from zarr.core.dtype import VariableLengthBytes

    z = _zarr(zarr.create_array, str(tmp_path / "b.zarr"), shape=(7,), chunks=(3,),
              dtype=VariableLengthBytes(), zarr_format=zarr_format, fill_value=b"\x00z")
    data = np.array([b"", b"\x00\x01", b"abc", b"\xff" * 9, b"q"], dtype=object)
    z[:5] = data
    expected = z[:]
    a = zarrhpc.open_array(tmp_path / "b.zarr")
    assert a.dtype == expected.dtype == object
    got = read_chunks(a)
    assert list(got) == list(expected)


@pytest.mark.parametrize("zarr_format", [2, 3])
@pytest.mark.parametrize("dtype", [str, bytes])
def test_zarrhpc_writes_zarr_python_reads(tmp_path, zarr_format, dtype):
    data = DATA if dtype is str else np.array([s.encode() for s in DATA], dtype=object)
    fill = "-" if dtype is str else b"-"
    a = zarrhpc.create_array(tmp_path / "h.zarr", shape=(10,), chunks=(3,), dtype=dtype,
                             fill_value=fill, zarr_format=zarr_format)
    full = np.empty(10, dtype=a.dtype)
    full[:] = fill
    full[:8] = data
    write_chunks(a, full)
    z = _zarr(zarr.open_array, str(tmp_path / "h.zarr"))
    got = _zarr(z.__getitem__, slice(None))
    assert list(got) == list(full)
    assert z.fill_value == fill


def test_v2_vlen_array_and_object_fill_zero(tmp_path):
    # a zarr-python-2-style store written with numcodecs directly: VLenArray and
    # VLenUTF8 with fill_value 0 (zarr 2's default for object arrays)
    root = tmp_path / "v.zarr"
    root.mkdir()
    items = np.empty(3, dtype=object)
    items[:] = [np.arange(3, dtype="<i4"), np.array([], dtype="<i4"), np.array([7], "<i4")]
    (root / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "|O", "fill_value": 0,
        "order": "C", "filters": [{"id": "vlen-array", "dtype": "<i4"}],
        "compressor": {"id": "zlib", "level": 1}}))
    enc = numcodecs.Zlib(1).encode(numcodecs.VLenArray("<i4").encode(items))
    (root / "0").write_bytes(enc)
    a = zarrhpc.open_array(root)
    got = read_chunks(a)
    for g, e in zip(got, items):
        np.testing.assert_array_equal(g, e)
    s = tmp_path / "s.zarr"
    s.mkdir()
    (s / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "fill_value": 0,
        "order": "C", "filters": [{"id": "vlen-utf8"}], "compressor": None}))
    (s / "0").write_bytes(numcodecs.VLenUTF8().encode(np.array(["x", "y"], dtype=object)))
    a = zarrhpc.open_array(s)
    expected = _zarr(zarr.open_array, str(s))[:]
    np.testing.assert_array_equal(read_chunks(a), expected)


def test_object_without_codec_is_refused(tmp_path):
    s = tmp_path / "o.zarr"
    s.mkdir()
    (s / ".zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "|O", "fill_value": None,
        "order": "C", "filters": None, "compressor": None}))
    with pytest.raises(zarrhpc.errors.UnsupportedError, match="object codec"):
        zarrhpc.open_array(s)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_string_dtype_and_object_codec_create(tmp_path, zarr_format):
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(4,), chunks=(2,),
                             dtype=STRING, zarr_format=zarr_format)
    assert a.dtype == STRING and a.fill_value == ""
    if zarr_format == 2:
        b = zarrhpc.create_array(tmp_path / "b.zarr", shape=(4,), chunks=(2,), dtype=object,
                                 filters=[numcodecs.VLenBytes()], zarr_format=2)
        assert b.dtype == object
        zarray = json.loads((tmp_path / "b.zarr/.zarray").read_text())
        assert zarray["dtype"] == "|O" and zarray["filters"] == [{"id": "vlen-bytes"}]
    else:
        with pytest.raises(zarrhpc.errors.UnsupportedError, match="dtype=str"):
            zarrhpc.create_array(tmp_path / "b.zarr", shape=(4,), chunks=(2,), dtype=object)
