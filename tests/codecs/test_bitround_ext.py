"""The zarr-extensions ``bitround`` codec (zarrs' name; zarr-python writes numcodecs.bitround):
floats rounded exactly as numcodecs' BitRound rounds them; stores with integer bitround
(written by zarrs) read; writing integers refused clearly."""

import json

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CodecError

numcodecs = pytest.importorskip("numcodecs")


@pytest.mark.parametrize(("dtype", "keepbits"), [("float32", 5), ("float64", 12),
                                                 ("float16", 3), ("float32", 1),
                                                 ("float64", 52), ("complex128", 9)])
def test_floats_as_numcodecs(tmp_path, dtype, keepbits):
    rng = np.random.default_rng(3)
    v = (rng.standard_normal(300) * 1e3).astype(dtype)
    if dtype.startswith("complex"):
        v = v + 1j * rng.standard_normal(300)
    v[::17] = np.nan
    a = zarrhpc.create_array(tmp_path, shape=v.shape, chunks=(128,), dtype=dtype,
                             filters=[{"name": "bitround", "configuration": {"keepbits": keepbits}}],
                             compressors=None)
    a[...] = v
    doc = json.loads((tmp_path / "zarr.json").read_text())
    assert doc["codecs"][0] == {"name": "bitround", "configuration": {"keepbits": keepbits}}
    flat = v.view(f"f{v.itemsize // 2}") if dtype.startswith("complex") else v
    ref = np.asarray(numcodecs.BitRound(keepbits=keepbits).encode(flat.copy()))
    assert zarrhpc.open_array(tmp_path)[...].tobytes() == ref.tobytes()


def test_integer_bitround_store_reads_and_write_is_refused(tmp_path):
    doc = {"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "int32",
           "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [6]}},
           "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
           "codecs": [{"name": "bitround", "configuration": {"keepbits": 3}},
                      {"name": "bytes", "configuration": {"endian": "little"}}]}
    (tmp_path / "c").mkdir()
    (tmp_path / "zarr.json").write_text(json.dumps(doc))
    stored = np.array([0, 96, -112, 1 << 20, 7, -8], dtype="<i4")  # as rounded by the writer
    (tmp_path / "c/0").write_bytes(stored.tobytes())
    a = zarrhpc.open_array(tmp_path, mode="r+")
    np.testing.assert_array_equal(a[...], stored)
    with pytest.raises(CodecError, match="bitround"):
        a[...] = np.arange(6)


def test_bad_configuration(tmp_path):
    for conf in ({}, {"keepbits": 0}, {"keepbits": "3"}, {"keepbits": 3, "x": 1}):
        with pytest.raises(CodecError):
            zarrhpc.create_array(tmp_path, shape=(4,), dtype="f4", overwrite=True,
                                 filters=[{"name": "bitround", "configuration": conf}])


@pytest.mark.parametrize(("uri", "conf"), [
    ("https://codec.zarrs.dev/bytes_to_bytes/bz2", {"level": 5}),
    ("https://codec.zarrs.dev/bytes_to_bytes/fletcher32", {}),
    ("https://codec.zarrs.dev/array_to_array/bitround", {"keepbits": 6})])
def test_zarrs_codec_uris(tmp_path, uri, conf):
    """zarrs' early URI names of its experimental codecs read as the codecs they name."""
    v = (np.arange(40, dtype="<f4") - 20) / 3
    a = zarrhpc.create_array(tmp_path / "w", shape=(40,), chunks=(16,), dtype="<f4",
                             **({"filters": [{"name": "bitround", "configuration": conf}]}
                                if "bitround" in uri else
                                {"compressors": [{"name": "numcodecs." + uri.rsplit("/", 1)[-1],
                                                  "configuration": conf}]}))
    a[...] = v
    expected = a[...]
    doc = json.loads((tmp_path / "w/zarr.json").read_text())
    for c in doc["codecs"]:
        if c["name"] == "bitround" or c["name"].startswith("numcodecs."):
            c["name"] = uri
    (tmp_path / "w/zarr.json").write_text(json.dumps(doc))
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "w")[...], expected)
