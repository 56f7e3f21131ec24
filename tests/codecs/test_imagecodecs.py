"""imagecodecs' numcodecs codecs (``imagecodecs_*`` ids) in v2 arrays, both ways with
zarr-python (which reads them once imagecodecs registered them with numcodecs)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zarrhpc
from zarrhpc.codecs.numcodecs_adapter import IMAGECODECS_FILTER_IDS, IMAGECODECS_IDS
from zarrhpc.errors import CodecError

imagecodecs = pytest.importorskip("imagecodecs")


def test_every_imagecodecs_codec_has_its_kind():
    import imagecodecs.numcodecs as icn

    ids = {getattr(icn, n).codec_id for n in icn.__all__
           if isinstance(getattr(icn, n), type) and getattr(getattr(icn, n), "codec_id", None)}
    assert ids == set(IMAGECODECS_IDS) | set(IMAGECODECS_FILTER_IDS)


def _image(shape, dtype):
    y, x = np.mgrid[0:shape[0], 0:shape[1]]
    return ((x * 7 + y * 3) % 200).astype(dtype)


CASES = [
    ({"id": "imagecodecs_png"}, None, "u1"),
    ({"id": "imagecodecs_png"}, None, "u2"),
    ({"id": "imagecodecs_jpeg2k", "level": 0}, None, "u2"),
    ({"id": "imagecodecs_jpegxl", "lossless": True}, None, "u1"),
    ({"id": "imagecodecs_lzw"}, None, "i4"),
    ({"id": "imagecodecs_zstd", "level": 3}, None, "f8"),
    ({"id": "zlib", "level": 1}, [{"id": "imagecodecs_bfloat16"}], "f4"),
    ({"id": "zlib", "level": 1}, [{"id": "imagecodecs_float24"}], "f4"),
    ({"id": "zlib", "level": 1}, [{"id": "imagecodecs_floatpred", "shape": [16, 16],
                                   "dtype": "<f4"}], "f4"),
]


@pytest.mark.parametrize(("compressor", "filters", "dtype"), CASES,
                         ids=[f"{c['id']}-{f[0]['id'] if f else ''}-{d}" for c, f, d in CASES])
def test_written_by_zarrhpc_read_by_zarr_python(tmp_path, compressor, filters, dtype):
    import zarr

    data = _image((37, 29), dtype)
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=data.shape, dtype=dtype,
                             chunks=(16, 16), zarr_format=2, compressors=compressor,
                             filters=filters)
    a[...] = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = zarr.open_array(str(tmp_path / "a"), mode="r")[...]
    ours = zarrhpc.open_array(str(tmp_path / "a"), mode="r")[...]
    assert np.array_equal(ours, theirs)
    lossy = any(f["id"] in ("imagecodecs_bfloat16", "imagecodecs_float24")
                for f in filters or [])
    if lossy:
        assert np.allclose(ours, data, rtol=1e-2)
    else:
        assert np.array_equal(ours, data)


def test_unknown_imagecodecs_id_names_the_package(tmp_path):
    root = tmp_path / "a"
    root.mkdir()
    (root / ".zarray").write_text(
        '{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<u2", "fill_value": 0, '
        '"order": "C", "filters": null, "compressor": {"id": "imagecodecs_nosuchcodec"}}')
    with pytest.raises(CodecError, match=r"\.zarray.*imagecodecs_nosuchcodec.*pip install "
                                         r"imagecodecs"):
        zarrhpc.open_array(str(root), mode="r")[...]


def test_imagecodecs_zarr3_names_are_refused_clearly(tmp_path):
    import json

    (tmp_path / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "imagecodecs_png"}]}))
    with pytest.raises(CodecError, match=r"imagecodecs_png.*imagecodecs-zarr.*numcodecs\."
                                         r"imagecodecs_png is") as err:
        zarrhpc.open_array(str(tmp_path), mode="r")
    assert "numcodecs.imagecodecs_<id>" in str(err.value)
    assert "numcodecs.imagecodecs_zstd" not in str(err.value)  # one entry for all of them


def test_shape_configured_codec_refuses_an_order_f_write(tmp_path):
    # meshopt takes the chunk in its configured shape; an order-F v2 array hands codecs
    # the chunk transposed. zarr-python writes it and reads it back transposed (shown
    # here), and our reads of such stores match zarr-python's (writer stores tests): a
    # write would read back wrong, so it is refused with the key named
    import imagecodecs.numcodecs as icn
    import numcodecs

    zarr = pytest.importorskip("zarr")
    icn.register_codecs()
    conf = {"id": "imagecodecs_meshopt", "shape": (12, 15), "dtype": "<f4"}
    data = np.arange(36 * 30, dtype="f4").reshape(36, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(tmp_path / "zp.zarr", shape=data.shape, chunks=(12, 15),
                              dtype="f4", zarr_format=2, order="F", filters=None,
                              compressors=numcodecs.get_codec(conf))
        z[...] = data
        assert not np.array_equal(z[...], data)
        np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "zp.zarr")[...], z[...])
        a = zarrhpc.create_array(tmp_path / "zh.zarr", shape=data.shape, chunks=(12, 15),
                                 dtype="f4", zarr_format=2, order="F", filters=None,
                                 compressors=numcodecs.get_codec(conf))
        with pytest.raises(CodecError, match=r"0\.0.*order='F'.*order='C'"):
            a[...] = data
        c = zarrhpc.create_array(tmp_path / "zc.zarr", shape=data.shape, chunks=(12, 15),
                                 dtype="f4", zarr_format=2, order="C", filters=None,
                                 compressors=numcodecs.get_codec(conf))
        c[...] = data
        np.testing.assert_array_equal(zarr.open_array(tmp_path / "zc.zarr", mode="r")[...],
                                      data)


@pytest.mark.parametrize("cid", ["imagecodecs_delta", "imagecodecs_xor"])
def test_delta_xor_without_shape_and_dtype_refuse_writes_that_read_back_wrong(tmp_path, cid):
    # shape/dtype null: the filter encodes the chunk's elements along its last axis and
    # decodes bytes; zarr-python writes such chunks and reads them back wrong (shown), we
    # read its stores as it does, refuse the write, and round-trip the spelled-out form
    import imagecodecs.numcodecs as icn
    import numcodecs

    zarr = pytest.importorskip("zarr")
    icn.register_codecs()
    data = _image((37, 29), "i4")
    kw = dict(shape=data.shape, chunks=(16, 16), dtype="i4", zarr_format=2, fill_value=0,
              compressors=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = zarr.create_array(tmp_path / "zp.zarr", filters=[numcodecs.get_codec(
            {"id": cid})], **kw)
        z[...] = data
        assert not np.array_equal(z[...], data)
        np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "zp.zarr")[...], z[...])
        a = zarrhpc.create_array(tmp_path / "zh.zarr", filters=[numcodecs.get_codec(
            {"id": cid})], **kw)
        with pytest.raises(CodecError, match=r'0\.0.*"shape": \[16, 16\], "dtype": "<i4"'):
            a[...] = data
        spelled = {"id": cid, "shape": [16, 16], "dtype": "<i4"}
        b = zarrhpc.create_array(tmp_path / "zs.zarr", filters=[numcodecs.get_codec(spelled)],
                                 **kw)
        b[...] = data
        np.testing.assert_array_equal(b[...], data)
        np.testing.assert_array_equal(zarr.open_array(tmp_path / "zs.zarr", mode="r")[...],
                                      data)
        one_row = zarrhpc.create_array(tmp_path / "u1.zarr", shape=(40,), chunks=(16,),
                                       dtype="u1", zarr_format=2, compressors=None,
                                       filters=[numcodecs.get_codec({"id": cid})])
        one_row[...] = np.arange(40, dtype="u1") * 3  # bytes of one row: the same thing
        np.testing.assert_array_equal(one_row[...], np.arange(40, dtype="u1") * 3)
