"""The zarr-extensions complex types made of small floats (complex_bfloat16,
complex_float16, complex_float8_*/6_*/4_*), checked byte by byte against their specs
(zarr-developers/zarr-extensions data-types/complex_*/README.md): two parts, real first,
each encoded as its float type, two-byte parts in the bytes codec's endian; fill values
``[re, im]`` in the part type's JSON forms. No reader here reads them (zarrs does, but
zarrs-python goes through zarr-python's metadata, which lacks them), so the stored bytes
and documents are built by hand from the spec and compared."""

import json
import struct

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import MetadataError
from zarrhpc.metadata.dtypes import (
    data_type_from_numpy,
    fill_value_from_user,
    fill_value_to_json,
    parse_data_type,
    parse_fill_value,
)
from zarrhpc.metadata.dtypes_cplx import COMPLEX_PAIR_NAMES

# every complex_* directory of zarr-developers/zarr-extensions data-types/ (July 2026)
SMALL = ["complex_bfloat16", "complex_float16", "complex_float4_e2m1fn",
         "complex_float6_e2m3fn", "complex_float6_e3m2fn", "complex_float8_e3m4",
         "complex_float8_e4m3", "complex_float8_e4m3b11fnuz", "complex_float8_e4m3fnuz",
         "complex_float8_e5m2", "complex_float8_e5m2fnuz", "complex_float8_e8m0fnu"]


def _part(name: str) -> np.dtype:
    part = name[len("complex_"):]
    return np.dtype("<f2") if part == "float16" else np.dtype(getattr(ml_dtypes, part))


def test_every_extension_name_is_handled():
    assert sorted(COMPLEX_PAIR_NAMES) == sorted(SMALL)


@pytest.mark.parametrize("name", SMALL)
def test_type_is_a_real_imag_pair_of_its_part_type(name):
    dt = parse_data_type(name, "a/zarr.json")
    part = _part(name)
    assert dt.dtype.names == ("real", "imag")
    assert dt.dtype.fields["real"] == (part, 0) and dt.dtype.fields["imag"] == (part,
                                                                                part.itemsize)
    assert dt.itemsize == 2 * part.itemsize and dt.to_json() == name
    # the numpy type names the same data type (what create_array takes), and
    # {"name": ...} reads as the short name
    assert data_type_from_numpy(dt.dtype) == dt
    assert parse_data_type({"name": name}, "a/zarr.json") == dt


@pytest.mark.parametrize(("name", "numpy_name"), [("complex_float32", "complex64"),
                                                  ("complex_float64", "complex128")])
def test_full_width_complex_types_are_numpy_complex(name, numpy_name):
    assert parse_data_type(name, "a/zarr.json").dtype.name == numpy_name


def test_other_real_imag_structs_stay_structured():
    for npdt in (np.dtype([("real", "<f4"), ("imag", "<f4")]),
                 np.dtype([("re", "<f2"), ("im", "<f2")]),
                 np.dtype([("real", "<f2"), ("imag", ml_dtypes.bfloat16)])):
        assert data_type_from_numpy(npdt).name == "structured"


def _spec_bytes(name, values) -> bytes:
    """The chunk bytes the spec prescribes (bytes codec, little endian), built from the
    part types' own bit patterns, independently of zarrhpc."""
    part = _part(name)
    out = b""
    for re_v, im_v in values:
        for v in (re_v, im_v):
            bits = np.array(v, dtype=part).view(np.uint8 if part.itemsize == 1 else "<u2")
            out += struct.pack("<B" if part.itemsize == 1 else "<H", int(bits))
    return out


@pytest.mark.parametrize("name", SMALL)
def test_write_stores_the_spec_bytes_and_document(tmp_path, name):
    values = [(1.0, 2.0), (0.5, -1.0), (-4.0, 1.5), (1.0, 1.0)]
    part = _part(name)
    ok = [(r, i) for r, i in values
          if float(np.array(r, part)) == r and float(np.array(i, part)) == i]
    dt = parse_data_type(name, "x")
    data = np.zeros(len(ok), dt.dtype)
    data["real"] = [r for r, _ in ok]
    data["imag"] = [i for _, i in ok]
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=data.shape,
                             dtype=dt.dtype, compressors=None, fill_value=[1.0, 1.0])
    a[...] = data
    doc = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    # float8_e8m0fnu parts as bit patterns (what tensorstore and zarrs read right)
    one = "0x7f" if name.endswith("e8m0fnu") else 1.0
    assert doc["data_type"] == name and doc["fill_value"] == [one, one]
    bytes_codec = doc["codecs"][0]
    assert bytes_codec["name"] == "bytes"
    # endian: required for two-byte parts, meaningless (and left out) for one-byte ones
    assert bytes_codec.get("configuration", {}).get("endian") == (
        "little" if part.itemsize == 2 else None)
    chunk = (tmp_path / "a.zarr" / "c" / "0").read_bytes()
    assert chunk == _spec_bytes(name, ok)
    back = zarrhpc.open_array(tmp_path / "a.zarr")[...]
    assert back.tobytes() == data.tobytes()


@pytest.mark.parametrize("name", ["complex_bfloat16", "complex_float16", "complex_float8_e5m2"])
def test_reads_a_hand_written_store(tmp_path, name):
    """A store as the spec (and zarrs) lays it out, written here without zarrhpc."""
    part = _part(name)
    nan_bits = {"complex_bfloat16": "0x7fc1", "complex_float16": "0x7e01",
                "complex_float8_e5m2": "0x7f"}[name]
    root = tmp_path / "h.zarr"
    (root / "c").mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [5], "data_type": name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": ["-Infinity", nan_bits],
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}))
    (root / "c" / "0").write_bytes(_spec_bytes(name, [(1.0, -2.0), (0.25, 3.0), (8.0, 0.0)]))
    a = zarrhpc.open_array(root)
    got = a[...]
    assert list(got["real"][:3].astype(float)) == [1.0, 0.25, 8.0]
    assert list(got["imag"][:3].astype(float)) == [-2.0, 3.0, 0.0]
    # chunk 1 is missing: the fill value, bit for bit (a NaN with a payload)
    assert np.isneginf(got["real"][3:].astype(float)).all()
    width = 2 * part.itemsize
    bits = got["imag"][3:].view(np.uint8 if part.itemsize == 1 else "<u2")
    assert all(f"0x{int(b):0{width}x}" == nan_bits for b in bits)
    assert json.loads(a._metadata.to_bytes())["fill_value"] == ["-Infinity", nan_bits]


def _spec_bytes_big(name, values) -> bytes:
    """The spec's bytes with ``"endian": "big"``: each two-byte part big-endian."""
    out = _spec_bytes(name, values)
    return b"".join(out[i:i + 2][::-1] for i in range(0, len(out), 2))


@pytest.mark.parametrize("sharded", [False, True])
@pytest.mark.parametrize("name", ["complex_bfloat16", "complex_float16"])
def test_big_endian_two_byte_parts_read_and_write_the_spec_bytes(tmp_path, name, sharded):
    """README: "2 consecutive (real component followed by imaginary component) 2-byte
    little-endian or big-endian values": with ``"endian": "big"`` each part is swapped on
    its own (was refused: no reader here to compare with, so the bytes are built by hand
    from the spec). Read, written whole and in part, and through a shard."""
    root = tmp_path / "b.zarr"
    root.mkdir()
    big = {"name": "bytes", "configuration": {"endian": "big"}}
    codecs = [big] if not sharded else [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2], "codecs": [big],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                         {"name": "crc32c"}], "index_location": "end"}}]
    (root / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [3], "data_type": name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": [1.5, "-Infinity"],
        "codecs": codecs}))
    values = [(1.0, -2.0), (0.25, 3.0)]
    chunk = _spec_bytes_big(name, values)
    if not sharded:
        (root / "c").mkdir()
        (root / "c" / "0").write_bytes(chunk)
        got = zarrhpc.open_array(root)[...]
        assert got["real"].astype(float).tolist() == [1.0, 0.25, 1.5]
        assert got["imag"].astype(float).tolist() == [-2.0, 3.0, -np.inf]
    arr = zarrhpc.open_array(root, mode="r+")
    data = np.zeros(3, dtype=arr.dtype)
    data["real"], data["imag"] = [1.0, 0.25, -4.0], [-2.0, 3.0, 0.5]
    arr[...] = data
    stored = (root / "c" / "1").read_bytes()
    expect = _spec_bytes_big(name, [(-4.0, 0.5), (1.5, -np.inf)])
    if sharded:
        assert stored[:4] == expect[:4]  # the edge shard holds one inner chunk
        assert (root / "c" / "0").read_bytes()[:8] == chunk
    else:
        assert stored == expect and (root / "c" / "0").read_bytes() == chunk
    arr[1:2] = data[2:3]
    back = zarrhpc.open_array(root)[...]
    assert back["real"].astype(float).tolist() == [1.0, -4.0, -4.0]
    assert back["imag"].astype(float).tolist() == [-2.0, 0.5, 0.5]


@pytest.mark.parametrize("name", ["complex_bfloat16", "complex_float16"])
def test_create_array_big_endian_parts(tmp_path, name):
    dtype = parse_data_type(name, "x").dtype
    a = zarrhpc.create_array(str(tmp_path / "c.zarr"), shape=(2,), chunks=(2,), dtype=dtype,
                             serializer=zarrhpc.codecs.BytesCodec(endian="big"),
                             compressors=None)
    data = np.zeros(2, dtype=dtype)
    data["real"], data["imag"] = [1.0, 0.25], [-2.0, 3.0]
    a[...] = data
    assert (tmp_path / "c.zarr" / "c" / "0").read_bytes() == _spec_bytes_big(
        name, [(1.0, -2.0), (0.25, 3.0)])
    doc = json.loads((tmp_path / "c.zarr" / "zarr.json").read_text())
    assert doc["codecs"][0] == {"name": "bytes", "configuration": {"endian": "big"}}
    assert zarrhpc.open_array(str(tmp_path / "c.zarr"))[...].tobytes() == data.tobytes()


def test_one_byte_parts_ignore_endian(tmp_path):
    name = "complex_float8_e4m3"
    root = tmp_path / "e.zarr"
    (root / "c").mkdir(parents=True)
    (root / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [1], "data_type": name,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": [0, 0],
        "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}))
    (root / "c" / "0").write_bytes(_spec_bytes(name, [(1.5, -0.5)]))
    got = zarrhpc.open_array(root)[...]
    assert float(got["real"][0]) == 1.5 and float(got["imag"][0]) == -0.5


@pytest.mark.parametrize("bad", [[1.0], "NaN", [1, 2, 3], ["x", 0], None])
def test_bad_fill_values_name_the_document(bad):
    dt = parse_data_type("complex_bfloat16", "x")
    with pytest.raises(MetadataError, match="a/zarr.json: fill_value"):
        parse_fill_value(dt, bad, "a/zarr.json")


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(SMALL), re_bits=st.integers(0, 0xFFFF), im_bits=st.integers(0, 0xFFFF))
def test_fill_value_json_keeps_every_bit(name, re_bits, im_bits):
    dt = parse_data_type(name, "x")
    part = _part(name)
    mask = (1 << (8 * part.itemsize)) - 1
    raw = np.array([re_bits & mask, im_bits & mask],
                   dtype=np.uint8 if part.itemsize == 1 else "<u2").tobytes()
    value = np.frombuffer(raw, dtype=dt.dtype).reshape(())
    js = fill_value_to_json(dt, value)
    assert isinstance(js, list) and len(js) == 2
    back = parse_fill_value(dt, json.loads(json.dumps(js, allow_nan=False)), "x")
    # NaN payloads and signed zeros survive; for sub-byte types only the type's bits count
    assert back.tobytes() == value.tobytes() or _same_values(back, value)


def _same_values(a, b) -> bool:
    fa = np.array([a["real"], a["imag"]]).astype(float)
    fb = np.array([b["real"], b["imag"]]).astype(float)
    return bool(np.array_equal(fa, fb, equal_nan=True))


def test_user_fill_values():
    dt = parse_data_type("complex_float16", "x")
    for given_value, re_v, im_v in [(1 + 2j, 1.0, 2.0), ([0.5, "Infinity"], 0.5, np.inf),
                                    (3, 3.0, 0.0), (None, 0.0, 0.0)]:
        out = fill_value_from_user(dt, given_value)
        assert float(out["real"]) == re_v and float(out["imag"]) == im_v
    with pytest.raises(MetadataError, match="complex number"):
        fill_value_from_user(dt, {"re": 1})


@pytest.mark.parametrize("name", SMALL)
def test_zdtype_class_per_type(tmp_path, name):
    """zarrhpc.core.dtype has one class per type (ComplexBFloat16, ...): create_array takes
    it, the array's metadata gives it back, its JSON forms are the spec's."""
    import zarrhpc.core.dtype as D

    cls = D.data_type_registry.get(name)
    inst = cls()
    assert type(inst).__name__.startswith("Complex") and inst.to_json(zarr_format=3) == name
    assert D.get_data_type_from_native_dtype(parse_data_type(name, "x").dtype) == inst
    assert D.get_data_type_from_json(name, zarr_format=3) == inst
    one = inst.cast_scalar(1 - 1j if name != "complex_float8_e8m0fnu" else [1, 2])
    assert float(one["real"]) == 1.0
    js = inst.to_json_scalar(one, zarr_format=3)
    assert js[0] == ("0x7f" if name.endswith("e8m0fnu") else 1.0)
    assert inst.from_json_scalar(js, zarr_format=3).tobytes() == one.tobytes()
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(2,), dtype=inst, fill_value=one)
    assert zarrhpc.open_array(tmp_path / "a.zarr").metadata.data_type == inst
    assert a[...].tobytes() == np.array([one, one]).tobytes()


def test_codec_layer_sees_the_same_two_byte_pairs():
    """codecs/abc.py recognises the pairs with two-byte parts on its own (codecs may not
    import metadata): it must agree with the metadata's definition, and leave look-alikes
    (other part types, mixed parts, big-endian parts) alone."""
    from zarrhpc.codecs.abc import component_size

    for name in SMALL:
        dt = parse_data_type(name, "x")
        part = dt.dtype.fields["real"][0]
        assert component_size(dt.dtype) == (2 if part.itemsize == 2 else 0), name
    for npdt in (np.dtype([("real", "<f4"), ("imag", "<f4")]),
                 np.dtype([("real", "<f2"), ("imag", ml_dtypes.bfloat16)]),
                 np.dtype([("real", ">f2"), ("imag", ">f2")]),
                 np.dtype([("imag", "<f2"), ("real", "<f2")])):
        assert component_size(npdt) == 0
