"""metadata/convert.py asks the codec forms (codec_forms) instead of naming codecs: which
v2 filters zarr-python 3 reads in v3, which compressors are core v3 codecs, the default
chain; and v2 object arrays convert with the object codec that wrote them."""

import json
import pathlib
import re

import numcodecs
import numpy as np
import pytest
import zarr

import zarrhpc
from zarrhpc.codec_forms import default_chain, readable_in_v3
from zarrhpc.core.convert import convert
from zarrhpc.metadata.convert import plan_array
from zarrhpc.metadata.v2 import ArrayMetadataV2


def v2(**over):
    d = {"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": "<f8",
         "compressor": {"id": "zlib", "level": 1}, "fill_value": None, "order": "C",
         "filters": None}
    d.update(over)
    return ArrayMetadataV2.from_json(d)


def test_convert_module_names_no_codec():
    import zarrhpc.metadata.convert as mod

    code = re.sub(r'"""[\s\S]*?"""', "", pathlib.Path(mod.__file__).read_text())
    names = ["zstd", "blosc", "gzip", "zlib", "delta", "categorize", "packbits", "bytes",
             "astype", "quantize", "fixedscaleoffset", "vlen"]
    assert [n for n in names if f'"{n}"' in code or f"'{n}'" in code] == []


@pytest.mark.parametrize(("codec_id", "readable", "core"), [
    ("delta", True, False), ("bitround", True, False), ("shuffle", True, False),
    ("categorize", False, False), ("vlen-array", False, False), ("zstd", True, True),
    ("blosc", True, True), ("gzip", True, True), ("zlib", True, False), ("lz4", True, False),
    ("no-such-codec", False, False)])
def test_forms_say_who_reads_a_codec_in_v3(codec_id, readable, core):
    assert readable_in_v3({"id": codec_id}) is readable
    assert readable_in_v3({"id": codec_id}, core_only=True) is core


def test_reencoded_chain_keeps_a_core_compressor_for_the_new_type():
    md = v2(filters=[{"id": "categorize", "labels": ["a"], "dtype": "<f8", "astype": "|u1"}],
            compressor={"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1,
                        "blocksize": 0})
    plan = plan_array(md)
    assert plan.chunks == "reencode"
    assert plan.metadata.codecs == [
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                             "typesize": 8, "blocksize": 0}}]
    plan = plan_array(v2(filters=md.filters, compressor={"id": "lz4"}))
    assert plan.metadata.codecs == default_chain(np.dtype("f8"))  # lz4 is not core v3


def test_bitround_filter_is_kept_as_zarr_python_reads_it():
    plan = plan_array(v2(filters=[{"id": "bitround", "keepbits": 8}]))
    assert plan.chunks == "keep" and plan.metadata.codecs[0]["name"] == "numcodecs.bitround"


@pytest.mark.parametrize(("filt", "name", "dtype"), [
    ({"id": "vlen-utf8"}, "vlen-utf8", "string"),
    ({"id": "vlen-bytes"}, "vlen-bytes", "variable_length_bytes"),
    ({"id": "vlen-array", "dtype": "<i4"}, "numcodecs.vlen-array", "object")])
def test_object_arrays_keep_their_object_codec(filt, name, dtype):
    plan = plan_array(v2(dtype="|O", filters=[filt], fill_value=None))
    assert plan.chunks == "keep" and plan.metadata.codecs[0]["name"] == name
    assert plan.metadata.data_type.name == dtype


def test_v2_string_array_converts_and_zarr_python_reads_it(tmp_path):
    zarr.open_group(tmp_path / "src", mode="w", zarr_format=2)
    z = zarr.create_array(tmp_path / "src/s", shape=(5,), chunks=(2,), dtype=str,
                          zarr_format=2, compressors=numcodecs.Zstd(level=1))
    values = ["a", "bé", "", "d\x00d", "e"]
    z[:] = values
    convert(tmp_path / "src", tmp_path / "dst")
    doc = json.loads((tmp_path / "dst/s/zarr.json").read_text())
    assert doc["data_type"] == "string" and doc["codecs"][0]["name"] == "vlen-utf8"
    assert list(zarr.open_array(tmp_path / "dst/s")[:]) == values
    assert list(zarrhpc.open_array(tmp_path / "dst/s")[:]) == values
