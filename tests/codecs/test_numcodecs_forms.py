"""Every numcodecs codec by its v3 name ``numcodecs.<id>`` and its v2 id, both ways with
zarr-python 3; each codec class answers all its forms; missing codecs name the package."""

import json
import warnings

import numcodecs
import numpy as np
import pytest

import zarrhpc
from zarrhpc.codec_forms import draft_entry, v2_entry
from zarrhpc.codecs import (
    BloscCodec,
    BloscShuffle,
    BytesCodec,
    GzipCodec,
    ZstdCodec,
    get_codec_class,
    parse_codec,
)
from zarrhpc.codecs.abc import NativeStep
from zarrhpc.codecs.registry import codec_from_v2, codec_to_v2
from zarrhpc.errors import CodecError

zarr = pytest.importorskip("zarr")
znc = pytest.importorskip("zarr.codecs.numcodecs")

DATA = np.linspace(-5, 10, 300).reshape(20, 15)

# (filters, serializer, compressors) as zarr-python takes them, keyed by a label
CASES = {
    "shuffle+bz2": ([], [znc.Shuffle(elementsize=8), znc.BZ2(level=1)]),
    "bitround+lzma": ([znc.BitRound(keepbits=10)], [znc.LZMA()]),
    "delta+lz4": ([znc.Delta(dtype="<f8")], [znc.LZ4()]),
    "checksums": ([], [znc.Adler32(), znc.Fletcher32(), znc.JenkinsLookup3(), znc.CRC32()]),
    "numcodecs.blosc": ([], [znc.Blosc(cname="zstd", clevel=3, shuffle=2)]),
    "numcodecs.gzip+zstd": ([], [znc.GZip(level=3), znc.Zstd(level=2)]),
    "fixedscaleoffset": ([znc.FixedScaleOffset(offset=0, scale=100, dtype="<f8",
                                               astype="<i4")], "auto"),
    "quantize": ([znc.Quantize(digits=3, dtype="<f8")], "auto"),
    "crc32c": ([], [znc.CRC32C()]),
}


def _zarr_python_writes(path, filters, compressors):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = zarr.create_array(str(path), shape=DATA.shape, chunks=(7, 6), dtype="f8",
                              filters=filters, compressors=compressors)
        a[:] = DATA
        return zarr.open_array(str(path))[:]


@pytest.mark.parametrize("label", sorted(CASES))
def test_zarr_python_writes_numcodecs_names_zarrhpc_reads(tmp_path, label):
    filters, compressors = CASES[label]
    expected = _zarr_python_writes(tmp_path / "a.zarr", filters, compressors)
    codecs = json.loads((tmp_path / "a.zarr/zarr.json").read_text())["codecs"]
    assert any(c["name"].startswith("numcodecs.") for c in codecs)
    got = zarrhpc.open_array(tmp_path / "a.zarr")[:]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("label", sorted(CASES))
def test_zarrhpc_writes_numcodecs_names_zarr_python_reads(tmp_path, label):
    filters, compressors = CASES[label]
    def to_json(cs):
        return [c.to_dict() for c in cs]

    a = zarrhpc.create_array(
        tmp_path / "b.zarr", shape=DATA.shape, chunks=(7, 6), dtype="f8",
        filters=to_json(filters), compressors=compressors if compressors == "auto"
        else to_json(compressors))
    a[:] = DATA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _zarr_python_writes(tmp_path / "ref.zarr", filters, compressors)
        got = zarr.open_array(str(tmp_path / "b.zarr"))[:]
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "b.zarr")[:], expected)


@pytest.mark.parametrize(
    ("v2", "filters"),
    [
        ({"id": "bz2", "level": 2}, None),
        ({"id": "lzma", "preset": 1}, [{"id": "shuffle", "elementsize": 8}]),
        ({"id": "zlib", "level": 1}, [{"id": "bitround", "keepbits": 12}]),
        ({"id": "lz4", "acceleration": 1}, [{"id": "delta", "dtype": "<f8"}]),
        ({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": -1, "blocksize": 0}, None),
        (None, [{"id": "fletcher32"}]),
    ],
)
def test_v2_ids_both_ways(tmp_path, v2, filters):
    # zarr-python 3 writes the v2 store with numcodecs objects, zarrhpc reads it ...
    nc_filters = [numcodecs.get_codec(dict(f)) for f in filters or []] or None
    nc_comp = numcodecs.get_codec(dict(v2)) if v2 else None
    a = zarr.create_array(str(tmp_path / "z.zarr"), shape=DATA.shape, chunks=(7, 6),
                          dtype="f8", zarr_format=2, filters=nc_filters, compressors=nc_comp)
    a[:] = DATA
    expected = zarr.open_array(str(tmp_path / "z.zarr"))[:]
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "z.zarr")[:], expected)
    # ... and zarrhpc writes it by id, zarr-python reads it
    b = zarrhpc.create_array(tmp_path / "h.zarr", shape=DATA.shape, chunks=(7, 6), dtype="f8",
                             zarr_format=2, filters=filters or None,
                             compressors=v2 if v2 else None)
    b[:] = DATA
    zarray = json.loads((tmp_path / "h.zarr/.zarray").read_text())
    assert zarray["compressor"] == (dict(v2) if v2 else None)
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "h.zarr"))[:], expected)


def test_one_class_answers_every_form():
    assert get_codec_class("numcodecs.zstd") is ZstdCodec
    assert get_codec_class("numcodecs.gzip") is GzipCodec
    assert get_codec_class("numcodecs.blosc") is BloscCodec
    assert get_codec_class("endian") is BytesCodec
    # numcodecs' configuration under the numcodecs.<id> name is translated by the class
    b = parse_codec({"name": "numcodecs.blosc", "configuration": {"cname": "lz4", "clevel": 1,
                                                                   "shuffle": 2}})
    assert isinstance(b, BloscCodec) and b.shuffle is BloscShuffle.bitshuffle
    assert codec_from_v2({"id": "zstd", "level": 3}) == ZstdCodec(level=3, checksum=False)
    assert codec_to_v2(BloscCodec("zstd", 3, "bitshuffle", 4)) == {
        "id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}
    assert codec_to_v2(numcodecs.Shuffle(elementsize=4)) == {"id": "shuffle", "elementsize": 4}
    assert codec_to_v2({"name": "numcodecs.bitround", "configuration": {"keepbits": 3}}) == {
        "id": "bitround", "keepbits": 3}
    # metadata sees the same translations through codec_forms
    assert v2_entry({"id": "blosc", "shuffle": -1, "cname": "lz4", "clevel": 5},
                    np.dtype("u1"))["configuration"]["shuffle"] == "bitshuffle"
    assert v2_entry({"id": "bitround", "keepbits": 3}, np.dtype("f4")) == {
        "name": "numcodecs.bitround", "configuration": {"keepbits": 3}}
    assert draft_entry("endian", {"endian": "big"}, np.dtype("i4")) == {
        "name": "bytes", "configuration": {"endian": "big"}}
    assert draft_entry("bz2", {"level": 1}, np.dtype("i4"))["name"] == "numcodecs.bz2"
    # native steps are typed records
    step = ZstdCodec(level=4, checksum=True).native_step()
    assert isinstance(step, NativeStep) and step.level == 4 and step.checksum


def test_missing_codec_names_codec_key_and_package(tmp_path):
    a = zarrhpc.create_array(tmp_path / "a.zarr", shape=(4,), chunks=(2,), dtype="f8")
    doc = json.loads((tmp_path / "a.zarr/zarr.json").read_text())
    doc["codecs"] = [{"name": "numcodecs.pcodec_absent", "configuration": {}},
                     {"name": "bytes", "configuration": {"endian": "little"}}]
    (tmp_path / "a.zarr/zarr.json").write_text(json.dumps(doc))
    del a
    with pytest.raises(CodecError) as info:
        zarrhpc.open_array(tmp_path / "a.zarr")[:]
    msg = str(info.value)
    assert "zarr.json" in msg and "numcodecs.pcodec_absent" in msg and "install" in msg
    if "zfpy" not in numcodecs.registry.codec_registry:  # optional package not installed
        with pytest.raises(CodecError, match="install zfpy"):
            codec_from_v2({"id": "zfpy", "mode": 4}, ".zarray", "compressor")


def test_unknown_ignorable_numcodecs_codec_is_skipped():
    assert parse_codec({"name": "numcodecs.nosuch", "must_understand": False}) is None
