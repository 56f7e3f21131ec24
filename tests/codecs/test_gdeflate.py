"""zarrs' ``gdeflate`` codec through NVIDIA's CPU GDeflate library (codecs/gdeflate.py).

No writer of gdeflate stores installs here (zarrista is built without it, zarrs' test data
holds none): the pages come from the same libdeflate GDeflate build zarrs links; the
framing zarrs puts around them is checked field by field, and every damaged chunk must be
refused with CorruptChunkError, never read wrong or crash.
"""

import json
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.codecs import parse_codec
from zarrhpc.errors import CodecError, CorruptChunkError

pytest.importorskip("nvidia.libnvcomp")

NAMES = ["zarrs.gdeflate", "https://codec.zarrs.dev/bytes_to_bytes/gdeflate"]


def _codec(level=5):
    return parse_codec({"name": "zarrs.gdeflate", "configuration": {"level": level}})


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 4, n) + np.arange(n) % 7).astype("u1").tobytes()


@pytest.mark.parametrize("n", [1, 100, 65535, 65536, 65537, 200_000])
def test_zarrs_layout(n):
    """UNCOMPRESSED_INPUT_LENGTH, NUMBER_OF_PAGES (one per 64 KiB), the page sizes (u64 LE),
    the pages; and back."""
    data = _data(n)
    enc = _codec().encode(data)
    size, npages = struct.unpack_from("<QQ", enc)
    assert size == n and npages == -(-n // 65536)
    sizes = struct.unpack_from(f"<{npages}Q", enc, 16)
    assert 16 + 8 * npages + sum(sizes) == len(enc)
    assert bytes(_codec().decode(enc, None, n)) == data


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["u1", "<i4", "<f8"])
def test_arrays_round_trip_and_keep_the_name(tmp_path, name, dtype):
    values = np.arange(40_000).astype(dtype).reshape(200, 200) * 3
    a = zarrhpc.create_array(str(tmp_path), shape=values.shape, chunks=(200, 100), dtype=dtype,
                             compressors=[{"name": name, "configuration": {"level": 9}}])
    a[...] = values
    written = json.loads((tmp_path / "zarr.json").read_text())["codecs"][1]
    assert written["name"] in NAMES and written["configuration"] == {"level": 9}
    b = zarrhpc.open_array(str(tmp_path))
    np.testing.assert_array_equal(b[...], values)
    np.testing.assert_array_equal(b[17:150:3, 99:101], values[17:150:3, 99:101])


def _bad(enc: bytes, n: int):
    with pytest.raises(CorruptChunkError):
        _codec().decode(enc, None, n)


def test_damaged_headers_are_refused():
    n = 100_000
    enc = _codec().encode(_data(n))
    _bad(enc[:10], n)                                       # shorter than the header
    _bad(struct.pack("<Q", n + 1) + enc[8:], n)             # another size than the chunk's
    _bad(enc[:8] + struct.pack("<Q", 3) + enc[16:], n)      # a page count the size denies
    _bad(enc[:8] + struct.pack("<Q", 2**61) + enc[16:], n)  # a huge page count
    _bad(enc[:-1], n)                                       # a page cut short
    _bad(enc + b"\0", n)                                    # bytes past the last page
    sizes = list(struct.unpack_from("<2Q", enc, 16))
    swapped = enc[:16] + struct.pack("<2Q", sizes[0] - 1, sizes[1] + 1) + enc[32:]
    _bad(swapped, n)                                        # page limits moved


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 70_000), st.data())
def test_flipped_bytes_decode_right_or_are_refused(n, data):
    """A damaged chunk decodes to the chunk's size (deflate has no checksum: a flipped
    literal decodes to another byte) or raises CorruptChunkError; never a crash or another
    length."""
    original = _data(n, seed=n)
    enc = bytearray(_codec().encode(original))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(enc) - 1))
        enc[i] ^= data.draw(st.integers(1, 255))
    try:
        out = _codec().decode(bytes(enc), None, n)
    except CorruptChunkError:
        return
    assert len(out) == n


def test_configuration_checked():
    for conf in ({"level": 13}, {"level": -1}, {"level": "9"}, {}, {"level": 9, "x": 1}):
        with pytest.raises(CodecError):
            parse_codec({"name": "zarrs.gdeflate", "configuration": conf})


def test_missing_library_names_the_package(monkeypatch):
    import zarrhpc.codecs.gdeflate as g

    monkeypatch.setattr(g, "_LIB", [])
    monkeypatch.setitem(__import__("sys").modules, "nvidia.libnvcomp", None)
    with pytest.raises(CodecError, match=r"a/zarr.json: codecs\[1\].*pip install "
                                         r"nvidia-libnvcomp-cu12"):
        parse_codec({"name": "zarrs.gdeflate", "configuration": {"level": 1}}, "a/zarr.json",
                    "codecs[1]")
