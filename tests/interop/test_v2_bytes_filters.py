"""v2 filters that are bytes-to-bytes codecs (zlib, gzip, zstd, lz4, bz2, lzma, blosc,
base64, crc32 and the other checksums, ... as *filters*), for every such codec numcodecs
registers: created and opened as zarr-python 3 does (its test_v2_filters_codecs), and
each library reads what the other wrote. No per-codec list: the ids come from numcodecs'
registry, less the array-level ones (zarrhpc.codecs.numcodecs_adapter.default_kind)."""

import json
import warnings

import numpy as np
import pytest

import zarrhpc
from zarrhpc.codecs.numcodecs_adapter import OBJECT_IDS, default_kind

numcodecs = pytest.importorskip("numcodecs")
zarr = pytest.importorskip("zarr")

_NOT_BYTES = {"vlen-utf8", "vlen-bytes", "vlen-array", "pickle", "categorize", *OBJECT_IDS}


def _bytes_codecs():
    from numcodecs.registry import codec_registry

    out = []
    for cid, cls in sorted(codec_registry.items()):
        if cid in _NOT_BYTES or default_kind(cid) != "bytes_to_bytes":
            continue
        try:
            codec = cls()
            codec.decode(codec.encode(np.arange(4, dtype="<i4")))
        except Exception:  # noqa: BLE001 - needs arguments or a package not installed
            continue
        out.append(codec)
    return out


CODECS = _bytes_codecs()


def test_the_usual_ones_are_there():
    ids = {c.codec_id for c in CODECS}
    assert ids >= {"zlib", "gzip", "zstd", "bz2", "lzma", "blosc", "crc32", "adler32",
                   "fletcher32", "jenkins_lookup3", "base64"}


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("codec", CODECS, ids=[c.codec_id for c in CODECS])
def test_bytes_codec_as_v2_filter(tmp_path, codec, order):
    data = np.arange(63, dtype="<i4").reshape(9, 7) * 7 - 100
    kw = dict(shape=data.shape, chunks=(4, 3), dtype="<i4", zarr_format=2, filters=[codec],
              order=order, compressors=None, fill_value=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zp = zarr.create_array(str(tmp_path / "zp.zarr"), **kw)
        zp[:5] = data[:5]
    zh = zarrhpc.create_array(tmp_path / "zh.zarr", **kw)
    zh[:5] = data[:5]
    expected = data.copy()
    expected[5:] = -1
    doc = json.loads((tmp_path / "zh.zarr/.zarray").read_text())
    assert doc["filters"][0]["id"] == codec.codec_id and doc["compressor"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "zh.zarr"))[...], expected)
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "zp.zarr")[...], expected)
    np.testing.assert_array_equal(zarrhpc.open_array(tmp_path / "zh.zarr")[1::2, ::-3],
                                  expected[1::2, ::-3])
    # the chunk bytes decode through numcodecs as zarr-python 2 chained them
    raw = (tmp_path / "zh.zarr/0.0").read_bytes()
    chunk = np.frombuffer(codec.decode(raw), dtype="<i4").reshape(4, 3, order=order)
    np.testing.assert_array_equal(chunk, expected[:4, :3])


@pytest.mark.parametrize("order", ["C", "F"])
def test_zarr_python_create_call(order):
    """zarr-python's test_v2_filters_codecs, verbatim in zarrhpc."""
    for filters in ([], [numcodecs.Delta(dtype="<i4")], [numcodecs.Zlib(level=2)]):
        with zarrhpc.config.set({"array.order": order}):
            arr = zarrhpc.create(shape=1, dtype="<i4", zarr_format=2, filters=filters)
        arr[:] = [42]
        np.testing.assert_array_equal(arr[:], [42])
