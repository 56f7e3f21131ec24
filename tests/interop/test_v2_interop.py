"""Zarr v2 interop both ways with zarr-python 3 (zarr_format=2) and tensorstore's ``zarr``
driver: every dtype, order, separator, compressor and filter of issue 5.

Numeric dtypes x (compressor, order, separator) are zipped rather than crossed so that
each value of every axis is met at least once with both peers; string, datetime and
structured types and the filters go against zarr-python only (tensorstore's zarr driver
has neither).
"""

import itertools
import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.peers import random_data, same_bits
from zarrhpc.testing.peers_v2 import (
    V2_NUMERIC,
    ts_read_v2,
    ts_write_v2,
    zarr_read_v2,
    zarr_write_v2,
)

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

SHAPE, CHUNKS = (7, 5), (3, 4)  # edge chunks overhang on both axes

COMPRESSORS = [
    None,
    {"id": "zlib", "level": 1},
    {"id": "gzip", "level": 1},
    {"id": "zstd", "level": 1},
    {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
    {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": -1, "blocksize": 0},
    {"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": 2, "blocksize": 0},
    {"id": "bz2", "level": 1},
    {"id": "lz4", "acceleration": 1},  # not in tensorstore
]
TS_COMPRESSORS = {None, "zlib", "gzip", "zstd", "blosc", "bz2"}

# zip the axes: every dtype once, every compressor, order and separator several times
CASES = [
    (dt, comp, order, sep)
    for dt, comp, order, sep in zip(
        V2_NUMERIC,
        itertools.cycle(COMPRESSORS),
        itertools.cycle(["C", "F", "F"]),
        itertools.cycle([".", "/"]),
    )
] + [("<f8", c, "F", "/") for c in COMPRESSORS[len(V2_NUMERIC) % len(COMPRESSORS):]]


def fill_for(dtype):
    return {"b": True, "c": 1.5 - 2j, "f": -3.25}.get(np.dtype(dtype).kind, 7)


def zh_write(path, data, *, compressor, order="C", separator=".", filters=None,
             fill_value=None, region=Ellipsis):
    a = zarrhpc.create_array(
        path, shape=data.shape, chunks=CHUNKS, dtype=data.dtype, zarr_format=2,
        compressors=compressor, filters=filters, order=order, fill_value=fill_value,
        chunk_key_encoding={"name": "v2", "separator": separator}, overwrite=True,
    )
    a[region] = data[region]
    return a


def _cid(c):
    return "none" if c is None else f"{c['id']}{c.get('shuffle', '')}"


@pytest.mark.parametrize(
    ("dtype", "compressor", "order", "sep"), CASES,
    ids=[f"{d}-{_cid(c)}-{o}-{s}" for d, c, o, s in CASES],
)
def test_numeric_both_ways(tmp_path, dtype, compressor, order, sep):
    data = random_data(np.dtype(dtype).newbyteorder("="), SHAPE, seed=1)
    stored = data.astype(dtype)
    fill = fill_for(dtype)
    with_ts = compressor is None or compressor["id"] in TS_COMPRESSORS
    # zarrhpc writes, peers read
    a = zh_write(tmp_path / "a.zarr", stored, compressor=compressor, order=order,
                 separator=sep, fill_value=fill)
    meta = json.loads((tmp_path / "a.zarr" / ".zarray").read_text())
    assert meta["dtype"] == np.dtype(dtype).str and meta["order"] == order
    assert meta["dimension_separator"] == sep and meta["compressor"] == compressor
    key = "2/1" if sep == "/" else "2.1"
    assert (tmp_path / "a.zarr" / key).is_file()
    # zarr-python's: the stored byte order ('>i2'); values equal the native data's
    assert a.dtype == np.dtype(dtype) and a[...].dtype == np.dtype(dtype)
    assert same_bits(zarr_read_v2(tmp_path / "a.zarr").astype(data.dtype), data)
    if with_ts:
        assert same_bits(ts_read_v2(tmp_path / "a.zarr").astype(data.dtype), data)
    # peers write, zarrhpc reads (a strided, reversed selection too)
    zarr_write_v2(tmp_path / "z.zarr", stored, CHUNKS, compressor=compressor, order=order,
                  separator=sep, fill_value=fill)
    written = ["z.zarr"]
    if with_ts:
        ts_write_v2(tmp_path / "t.zarr", stored, CHUNKS, compressor=compressor, order=order,
                    separator=sep, fill_value=fill)
        written.append("t.zarr")
    for where in written:
        b = zarrhpc.open_array(tmp_path / where)
        assert b.zarr_format == 2
        assert same_bits(b[...].astype(data.dtype), data), where
        assert same_bits(b[5:0:-2, 1::3].astype(data.dtype), data[5:0:-2, 1::3]), where


@pytest.mark.parametrize("sep", [".", "/"])
def test_missing_chunks_and_fill_values(tmp_path, sep):
    """Only chunk (0, 0) is written; the rest reads as the fill value (NaN here)."""
    data = random_data("float32", SHAPE, seed=3)
    region = (slice(0, 3), slice(0, 4))
    expected = np.full(SHAPE, np.nan, dtype="float32")
    expected[region] = data[region]
    comp = {"id": "zstd", "level": 1}
    zh_write(tmp_path / "a.zarr", data, compressor=comp, separator=sep, fill_value=np.nan,
             region=region)
    chunk_files = [p for p in (tmp_path / "a.zarr").rglob("*") if p.is_file()
                   and not p.name.startswith(".")]
    assert [p.relative_to(tmp_path / "a.zarr").as_posix() for p in chunk_files] == ["0" + sep + "0"]
    assert json.loads((tmp_path / "a.zarr" / ".zarray").read_text())["fill_value"] == "NaN"
    assert same_bits(zarr_read_v2(tmp_path / "a.zarr"), expected)
    assert same_bits(ts_read_v2(tmp_path / "a.zarr"), expected)
    zarr_write_v2(tmp_path / "z.zarr", data, CHUNKS, compressor=comp, separator=sep,
                  fill_value=np.nan, region=region)
    assert same_bits(zarrhpc.open_array(tmp_path / "z.zarr")[...], expected)


EXTENDED = [
    ("|S5", b"ab"),
    ("|S3", None),
    ("<U3", "xy"),
    (">U2", "q"),
    ("|V4", b"\x01\x02\x03\x04"),
    ("<M8[ns]", np.datetime64("NaT")),
    (">m8[s]", np.timedelta64(5, "s")),
    ("<M8[10s]", np.datetime64(70, "s")),
    ([("a", "<i4"), ("b", ">f8")], (1, 2.5)),
]


def _extended_data(dtype, shape, seed):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt.kind == "U":
        letters = np.array(list("abcdefghij"))
        n = dt.itemsize // 4
        words = ["".join(rng.choice(letters, rng.integers(0, n + 1)))
                 for _ in range(np.prod(shape))]
        return np.array(words, dtype=dt).reshape(shape)
    if dt.kind == "S":
        raw = rng.integers(1, 256, size=(int(np.prod(shape)), dt.itemsize), dtype=np.uint8)
        raw[:, -1] = 0  # null-terminated: trailing zeros are what numpy strips
        return raw.view(dt).reshape(shape)
    if dt.kind in "Mm":
        return rng.integers(-(2**40), 2**40, size=shape).astype("i8").astype(dt.newbyteorder("=")) \
            .view(dt.newbyteorder("=")).astype(dt)
    raw = rng.integers(0, 256, size=(int(np.prod(shape)) * dt.itemsize,), dtype=np.uint8)
    return raw.view(dt).reshape(shape)


@pytest.mark.parametrize(("dtype", "fill"), EXTENDED, ids=[str(d) for d, _ in EXTENDED])
def test_extended_dtypes_with_zarr_python(tmp_path, dtype, fill):
    stored = _extended_data(dtype, SHAPE, seed=4)
    if isinstance(fill, tuple):
        fill = np.array(fill, dtype=np.dtype(dtype))[()]
    comp = {"id": "zstd", "level": 1}
    region = (slice(0, 3), slice(None))  # chunks of row 2+ stay missing
    expected = np.empty(SHAPE, dtype=stored.dtype)
    expected[...] = np.zeros((), stored.dtype) if fill is None else fill
    expected[region] = stored[region]
    a = zh_write(tmp_path / "a.zarr", stored, compressor=comp, fill_value=fill, region=region)
    back = zarr_read_v2(tmp_path / "a.zarr")
    assert back.dtype.itemsize == stored.dtype.itemsize
    assert same_bits(back.astype(stored.dtype), expected)
    zarr_write_v2(tmp_path / "z.zarr", stored, CHUNKS, compressor=comp, fill_value=fill,
                  region=region, order="F")
    got = zarrhpc.open_array(tmp_path / "z.zarr")[...]
    assert same_bits(got.astype(stored.dtype), expected)
    assert same_bits(a[...].astype(stored.dtype), expected)


FILTERS = [
    ("<f8", [{"id": "delta", "dtype": "<f8", "astype": "<f4"}], "F"),
    (">i4", [{"id": "delta", "dtype": ">i4", "astype": ">i4"}], "C"),
    ("<f8", [{"id": "fixedscaleoffset", "offset": 0, "scale": 10, "dtype": "<f8",
              "astype": "|u1"}], "C"),
    ("<f4", [{"id": "quantize", "digits": 2, "dtype": "<f4", "astype": "<f4"}], "F"),
    ("<f8", [{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}], "C"),
    ("|b1", [{"id": "packbits"}], "C"),
    ("<U3", [{"id": "categorize", "labels": ["", "ab", "c"], "dtype": "<U3",
              "astype": "|u1"}], "C"),
    ("<i8", [{"id": "delta", "dtype": "<i8", "astype": "<i8"},
             {"id": "astype", "encode_dtype": "<i4", "decode_dtype": "<i8"}], "F"),
]


def _filter_data(dtype, filters):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(5)
    if dt.kind == "U":
        return rng.choice(np.array(["", "ab", "c"], dtype=dt), SHAPE)
    if dt.kind == "b":
        return rng.integers(0, 2, SHAPE).astype(bool)
    if filters[0]["id"] == "fixedscaleoffset":
        return (rng.integers(0, 250, SHAPE) / 10).astype(dt)  # exact after scaling
    return rng.integers(-1000, 1000, SHAPE).astype(dt)


@pytest.mark.parametrize(("dtype", "filters", "order"), FILTERS,
                         ids=[f"{f[0]['id']}-{f[-1]['id']}-{d}" for d, f, _ in FILTERS])
def test_filters_with_zarr_python(tmp_path, dtype, filters, order):
    data = _filter_data(dtype, filters)
    comp = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}
    zh_write(tmp_path / "a.zarr", data, compressor=comp, filters=filters, order=order)
    meta = json.loads((tmp_path / "a.zarr" / ".zarray").read_text())
    assert [f["id"] for f in meta["filters"]] == [f["id"] for f in filters]
    expected = zarrhpc.open_array(tmp_path / "a.zarr")[...]
    if filters[0]["id"] != "quantize":  # quantize is lossy; the others are exact here
        np.testing.assert_array_equal(expected, data)
    np.testing.assert_array_equal(zarr_read_v2(tmp_path / "a.zarr"), expected)
    zarr_write_v2(tmp_path / "z.zarr", data, CHUNKS, compressor=comp, filters=filters,
                  order=order)
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "z.zarr")[...], expected)
    # the same chunk bytes: zarrhpc's encoding equals zarr-python's, key by key
    for key in ("0.0", "2.1"):
        a_bytes = (tmp_path / "a.zarr" / key).read_bytes()
        z_bytes = (tmp_path / "z.zarr" / key).read_bytes()
        assert a_bytes == z_bytes, key


def test_hierarchy_attributes_and_dimension_names(tmp_path):
    root = zarrhpc.create_group(tmp_path / "h.zarr", zarr_format=2, attributes={"title": "t"})
    # v2 takes no dimension_names (as zarr-python); xarray's attribute names them
    with pytest.raises(ValueError, match="do not support dimension names"):
        root.create_array("grp/sub/x", shape=(4, 3), dtype="i2", dimension_names=["t", "y"])
    a = root.create_array("grp/sub/x", shape=(4, 3), chunks=(2, 2), dtype="i2",
                          attributes={"_ARRAY_DIMENSIONS": ["time", "lat"]})
    assert a.dimension_names == ("time", "lat")
    a[...] = np.arange(12).reshape(4, 3)
    for p in ("", "grp", "grp/sub"):
        assert (tmp_path / "h.zarr" / p / ".zgroup").is_file()  # v2: every ancestor
    z = zarr.open_group(str(tmp_path / "h.zarr"), mode="r", zarr_format=2)
    assert z.attrs["title"] == "t"
    assert z["grp/sub/x"].attrs["_ARRAY_DIMENSIONS"] == ["time", "lat"]
    np.testing.assert_array_equal(z["grp/sub/x"][...], np.arange(12).reshape(4, 3))
    # zarr-python writes a hierarchy; zarrhpc lists it
    zg = zarr.create_group(str(tmp_path / "z.zarr"), zarr_format=2, attributes={"a": 1})
    zg.create_group("g1").create_array("y", shape=(2,), dtype="f4",
                                       attributes={"_ARRAY_DIMENSIONS": ["t"]})
    g = zarrhpc.open_group(tmp_path / "z.zarr", mode="r+")
    assert g.zarr_format == 2 and g.attrs["a"] == 1
    assert [n for n, _ in g.members(max_depth=None)] == ["g1", "g1/y"]
    assert g["g1/y"].dimension_names == ("t",)
    g["g1/y"].attrs["units"] = "K"
    assert zarr.open_array(str(tmp_path / "z.zarr"), path="g1/y", mode="r").attrs["units"] == "K"


@pytest.mark.parametrize(
    ("descr", "json_dtype"),
    [
        ([("a", "|u1"), ("c", [("x", "<u2"), ("y", ">f4")])],
         [["a", "|u1"], ["c", [["x", "<u2"], ["y", ">f4"]]]]),
        ([("x", "<f4"), ("z", ">i2", (2, 2))], [["x", "<f4"], ["z", ">i2", [2, 2]]]),
    ],
    ids=["nested", "subarray"],
)
def test_nested_and_subarray_structured(tmp_path, descr, json_dtype):
    """zarr-python 3.1 reads neither, so the spec is the oracle: the JSON form of the
    dtype, and uncompressed chunks holding the chunk's C-order element bytes."""
    stored = _extended_data(descr, SHAPE, seed=6)
    zh_write(tmp_path / "a.zarr", stored, compressor=None, fill_value=None)
    meta = json.loads((tmp_path / "a.zarr" / ".zarray").read_text())
    assert meta["dtype"] == json_dtype and meta["fill_value"] is None
    chunk = np.zeros(CHUNKS, dtype=stored.dtype)
    chunk[:1, :] = stored[6:7, 4:]  # the corner chunk (2, 1): one row, one column inside
    chunk[:1, :1] = stored[6:7, 4:5]
    got = np.frombuffer((tmp_path / "a.zarr" / "2.1").read_bytes(), dtype=stored.dtype)
    assert got.reshape(CHUNKS)[0, 0].tobytes() == stored[6, 4].tobytes()
    assert (tmp_path / "a.zarr" / "0.0").read_bytes() == stored[:3, :4].tobytes()
    assert same_bits(zarrhpc.open_array(tmp_path / "a.zarr")[...], stored)


V3_EXTENDED = ["|S5", "<U3", "<M8[ms]", ">m8[s]", [("a", "<i4"), ("b", "<f8")],
               [("p", "|u1"), ("q", [("x", "<u2")])]]


@pytest.mark.parametrize("dtype", V3_EXTENDED, ids=[str(d) for d in V3_EXTENDED])
def test_v3_extension_types_with_zarr_python(tmp_path, dtype):
    """The types beyond the v3 core, under zarr-python 3.1's names, both ways."""
    import warnings

    stored = _extended_data(dtype, SHAPE, seed=8)
    native = stored.astype(zarrhpc.metadata.data_type_from_numpy(stored.dtype).dtype)
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=SHAPE, chunks=CHUNKS, dtype=stored.dtype)
    a[...] = stored
    meta = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    assert meta["data_type"] == a.metadata.data_type.to_json(zarr_format=3)
    struct = stored.dtype.fields is not None
    if struct:  # zarr-python 3.1's "structured" (fields as pairs, base64 fill), by default
        assert meta["data_type"]["name"] == "structured" and isinstance(meta["fill_value"], str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python warns that these types are unstable
        got = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[...]
        z = zarr.create_array(str(tmp_path / "z.zarr"), shape=SHAPE, chunks=CHUNKS,
                              dtype=native.dtype, fill_value=None)
        z[...] = native
    assert same_bits(np.asarray(got).astype(native.dtype), native)
    assert same_bits(zarrhpc.open_array(tmp_path / "z.zarr")[...], native)


NUMCODECS_V3 = [
    ("<i8", [{"name": "numcodecs.delta", "configuration": {"dtype": "<i8"}}],
     [{"name": "numcodecs.lz4", "configuration": {}}]),
    ("<i8", [{"name": "numcodecs.fixedscaleoffset",
              "configuration": {"offset": 0, "scale": 1, "dtype": "<i8", "astype": "<i4"}}],
     [{"name": "numcodecs.zlib", "configuration": {"level": 1}}]),
    ("|b1", [{"name": "numcodecs.packbits", "configuration": {}}],
     [{"name": "numcodecs.bz2", "configuration": {"level": 1}}]),
]


@pytest.mark.parametrize(("dtype", "filters", "compressors"), NUMCODECS_V3,
                         ids=["delta-lz4", "fso-zlib", "packbits-bz2"])
def test_numcodecs_names_in_v3_with_zarr_python(tmp_path, dtype, filters, compressors):
    """v3 arrays with numcodecs.<id> codecs (what conversion writes) read both ways."""
    data = (np.arange(60).reshape(6, 10) ** 2).astype(dtype)
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=(4, 3),
                             dtype=data.dtype, filters=filters, compressors=compressors)
    a[...] = data
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[...], data)
    z = zarr.create_array(str(tmp_path / "z.zarr"), shape=data.shape, chunks=(4, 3),
                          dtype=data.dtype, filters=filters, compressors=compressors)
    z[...] = data
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "z.zarr")[...], data)
