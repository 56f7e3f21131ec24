"""Conversion plans (pure) and the driver's safety nets, without peers."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.core.convert import ConversionError
from zarrhpc.errors import NodeExistsError, UnsupportedError
from zarrhpc.metadata.convert import group_to_v3, plan_array
from zarrhpc.metadata.v2 import ArrayMetadataV2, GroupMetadataV2


def v2(**over):
    d = {"zarr_format": 2, "shape": [6, 4], "chunks": [3, 2], "dtype": "<f4",
         "compressor": {"id": "zlib", "level": 1}, "fill_value": None, "order": "C",
         "filters": None, "dimension_separator": "/"}
    d.update(over)
    return ArrayMetadataV2.from_json(d, json.dumps(over.pop("attrs", {})).encode())


@pytest.mark.parametrize(
    ("over", "chunks", "reason"),
    [
        ({}, "keep", ""),
        ({"dtype": ">i8", "order": "F"}, "keep", ""),
        ({"filters": [{"id": "delta", "dtype": "<f4"}]}, "keep", ""),
        ({"filters": [{"id": "delta", "dtype": "<f4"}], "order": "F"}, "reencode", "order 'F'"),
        ({"dtype": "<U2", "filters": [{"id": "categorize", "labels": ["a"], "dtype": "<U2",
                                       "astype": "|u1"}]}, "reencode", "categorize"),
        ({"dtype": [["a", ">i2"]]}, "reencode", "big-endian fields"),
        ({"dtype": [["a", "<i2"], ["b", "|u1"]]}, "keep", ""),
    ],
)
def test_plan_v2(over, chunks, reason):
    plan = plan_array(v2(**over))
    assert plan.chunks == chunks and reason in plan.reason
    md = plan.metadata
    assert md.chunk_key_encoding.encode((1, 0)) == "1/0"  # same keys as v2
    assert md.fill_value.tobytes() == bytes(md.data_type.itemsize)  # null became zero
    if chunks == "keep":
        assert md.codecs == v2(**over).codecs_v3()
    else:
        assert [c["name"] for c in md.codecs] == ["bytes", "numcodecs.zlib"][:1] + ["zstd"]


def test_plan_v2_dimension_names_and_refusals():
    md = ArrayMetadataV2.from_json(
        {"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<f8", "compressor": None,
         "fill_value": 0.0, "order": "C", "filters": None},
        b'{"_ARRAY_DIMENSIONS": ["t"], "units": "K"}')
    out = plan_array(md).metadata
    assert out.dimension_names == ("t",) and out.attributes == {"units": "K"}
    sub = v2(dtype=[["a", "<f4", [2]]])
    with pytest.raises(UnsupportedError, match="sub-array"):
        plan_array(sub)
    assert group_to_v3(GroupMetadataV2(attributes={"a": 1})).attributes == {"a": 1}


class CorruptingStore(zarrhpc.MemoryStore):
    """Flips the last byte of every chunk written, as a failing disk would."""

    def _set(self, key, data):
        if not key.endswith((".json", ".zarray", ".zattrs", ".zgroup")):
            data = memoryview(bytes(data[:-1]) + bytes([data[-1] ^ 0xFF]))
        super()._set(key, data)


def test_verification_catches_a_bad_copy():
    src = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(src, name="x", shape=(8,), chunks=(4,), dtype="<i4",
                             zarr_format=2, compressors=None)
    a[...] = np.arange(8)
    with pytest.raises(ConversionError, match="x: converted data differs"):
        zarrhpc.convert(src, CorruptingStore())
    out = zarrhpc.convert(src, CorruptingStore(), verify=False)  # told not to look
    assert out["x"][...].tolist() != list(range(8))


def test_convert_arguments():
    src = zarrhpc.MemoryStore()
    zarrhpc.create_group(src, zarr_format=2)
    with pytest.raises(ValueError, match="either dst or in_place"):
        zarrhpc.convert(src)
    with pytest.raises(UnsupportedError, match="only 'v3'"):
        zarrhpc.convert(src, zarrhpc.MemoryStore(), to="v2")
    dst = zarrhpc.MemoryStore()
    zarrhpc.create_group(dst)
    with pytest.raises(NodeExistsError):
        zarrhpc.convert(src, dst)
