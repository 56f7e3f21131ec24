"""Zarr v2 arrays and groups through the public API: format detection, hierarchy,
attributes, errors."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.core.metadata import ArrayV2Metadata
from zarrhpc.errors import ContainsArrayError, MetadataError, UnsupportedError


def test_create_v2_array_writes_v2_documents_and_ancestors():
    store = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(store, name="a/b/x", shape=(5, 4), chunks=(2, 3), dtype="<f8",
                             zarr_format=2, attributes={"u": 1})
    keys = set(store.list())
    assert {".zgroup", "a/.zgroup", "a/b/.zgroup", "a/b/x/.zarray", "a/b/x/.zattrs"} <= keys
    assert not any(k.endswith("zarr.json") for k in keys)
    assert a.zarr_format == 2 and isinstance(a.metadata, ArrayV2Metadata)
    zarray = json.loads(bytes(store.get("a/b/x/.zarray")))
    # the type's zero when not given, as zarr-python 3 writes it
    assert zarray["compressor"] == {"id": "zstd", "level": 0} and zarray["fill_value"] == 0.0
    a[...] = np.arange(20.0).reshape(5, 4)
    assert "a/b/x/2.1" in set(store.list())
    b = zarrhpc.open(store, path="a/b/x")
    assert b.zarr_format == 2 and b.attrs["u"] == 1
    np.testing.assert_array_equal(b[...], np.arange(20.0).reshape(5, 4))
    assert b.fill_value == 0.0
    c = zarrhpc.create_array(store, name="n", shape=(2,), dtype="<f8", zarr_format=2,
                             fill_value=None)
    assert json.loads(bytes(store.get("n/.zarray")))["fill_value"] is None
    assert c.fill_value is None and c[...].tolist() == [0.0, 0.0]  # null stays null, reads as zero


def test_format_detection_and_members():
    s2, s3 = zarrhpc.MemoryStore(), zarrhpc.MemoryStore()
    g2 = zarrhpc.create_group(s2, path="g", zarr_format=2)
    g2.create_array("x", shape=(3,), dtype="i4")  # inherits the group's format
    g2.create_group("sub")
    zarrhpc.create_group(s3, path="g").create_array("x", shape=(3,), dtype="i4")
    for store, fmt in ((s2, 2), (s3, 3)):
        root = zarrhpc.open_group(store)
        assert root.zarr_format == fmt  # the ancestors were made in the same format
        assert root["g/x"].zarr_format == fmt and root["g"].zarr_format == fmt
        assert zarrhpc.open(store, path="g/x").info.rows[1] == ("Zarr format", str(fmt))
    assert list(zarrhpc.open_group(s2, path="g")) == ["sub", "x"]


def test_v2_group_lists_only_nodes_with_documents():
    store = zarrhpc.MemoryStore()
    g = zarrhpc.create_group(store, zarr_format=2)
    g.create_array("x", shape=(2,), dtype="u1")
    store.set("stray/0", b"\x00")  # a key with no .zarray/.zgroup: not a member in v2
    assert list(g) == ["x"]


def test_attributes_write_only_zattrs():
    store = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(store, shape=(2,), dtype="u1", zarr_format=2, name="x")
    before = bytes(store.get("x/.zarray"))
    a.attrs["units"] = "m"
    assert bytes(store.get("x/.zarray")) == before
    assert json.loads(bytes(store.get("x/.zattrs"))) == {"units": "m"}


def test_dimension_names_as_xarray_attribute():
    store = zarrhpc.MemoryStore()
    # v2 takes no dimension_names (zarr-python's ValueError); xarray's attribute names them
    with pytest.raises(ValueError, match="do not support dimension names"):
        zarrhpc.create_array(store, shape=(2, 3), dtype="f4", zarr_format=2,
                             dimension_names=["y", "x"])
    a = zarrhpc.create_array(store, shape=(2, 3), dtype="f4", zarr_format=2,
                             attributes={"_ARRAY_DIMENSIONS": ["y", "x"]})
    assert a.attrs["_ARRAY_DIMENSIONS"] == ["y", "x"]
    assert zarrhpc.open_array(store).dimension_names == ("y", "x")


def test_v2_paths_are_normalised_as_the_spec_says():
    store = zarrhpc.MemoryStore()
    zarrhpc.create_array(store, name="//a\\b//", shape=(1,), dtype="u1", zarr_format=2)
    assert "a/b/.zarray" in set(store.list())
    with pytest.raises(MetadataError, match="'.' or '..'"):
        zarrhpc.create_array(store, name="a/../b", shape=(1,), dtype="u1", zarr_format=2)


def test_v2_creation_errors():
    store = zarrhpc.MemoryStore()
    zarrhpc.create_array(store, name="x", shape=(1,), dtype="u1", zarr_format=2)
    with pytest.raises(ContainsArrayError):
        zarrhpc.create_array(store, name="x/y", shape=(1,), dtype="u1", zarr_format=2)
    with pytest.raises(UnsupportedError, match="at most one compressor"):
        zarrhpc.create_array(store, name="z", shape=(1,), dtype="u1", zarr_format=2,
                             compressors=[{"id": "zlib"}, {"id": "gzip"}])
    with pytest.raises(UnsupportedError, match="'v2' encoding"):
        zarrhpc.create_array(store, name="z", shape=(1,), dtype="u1", zarr_format=2,
                             chunk_key_encoding={"name": "default"})
    with pytest.raises(UnsupportedError, match="object codec"):
        zarrhpc.create_array(store, name="z", shape=(1,), dtype=object, zarr_format=2)
    with pytest.raises(zarrhpc.errors.MetadataValidationError, match="zarr_format"):
        zarrhpc.create_array(store, name="z", shape=(1,), dtype="u1", zarr_format=4)


def test_bad_v2_metadata_names_the_key():
    store = zarrhpc.MemoryStore()
    store.set("x/.zarray", b'{"zarr_format": 2, "shape": [2], "chunks": [1], "dtype": "f8",'
                           b' "compressor": null, "fill_value": 0, "order": "C", "filters": null}')
    with pytest.raises(MetadataError, match=r"^x/.zarray: dtype: .*byte order"):
        zarrhpc.open_array(store, path="x")


def test_corrupt_v2_chunk_names_the_key():
    store = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(store, name="x", shape=(4,), chunks=(2,), dtype="<i4",
                             zarr_format=2, compressors={"id": "zlib", "level": 1})
    a[...] = 1
    store.set("x/1", b"garbage")
    with pytest.raises(zarrhpc.errors.CorruptChunkError, match=r"^x/1: "):
        a[...]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["<u2", ">f4", ">c8", "|b1", ">U3", "<M8[ms]"])
def test_v2_round_trip_and_partial_writes(order, dtype):
    rng = np.random.default_rng(0)
    dt = np.dtype(dtype)
    if dt.kind == "U":
        data = rng.choice(np.array(["", "a", "xyz"], dtype=dt), (5, 7))
    elif dt.kind == "M":
        data = rng.integers(0, 10**12, (5, 7)).astype(dt)
    else:
        data = rng.integers(0, 2, (5, 7)).astype(dt) if dt.kind == "b" else \
            rng.standard_normal((5, 7)).astype(dt) if dt.kind in "fc" else \
            rng.integers(0, 1000, (5, 7)).astype(dt)
    a = zarrhpc.create_array("memory://", shape=(5, 7), chunks=(2, 3), dtype=dt,
                             zarr_format=2, order=order)
    a[...] = data
    a[1:4, 2:6] = data[:3, :4]  # partial chunks: read, merge, re-encode
    expected = data.copy()
    expected[1:4, 2:6] = data[:3, :4]
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(a[::-2, 1::3], expected[::-2, 1::3])


def test_v3_attribute_naming_the_draft_uri_is_not_a_draft():
    store = zarrhpc.MemoryStore()
    zarrhpc.create_group(store, attributes={"see": "https://purl.org/zarr/spec/core/3.0"})
    g = zarrhpc.open_group(store, mode="r+")
    assert not g.read_only and g.zarr_format == 3
