"""v2 object arrays with numcodecs' JSON / MsgPack object codecs (json2, msgpack2), as
zarr-python 2 wrote them (zarr-python 3 refuses them): any JSON-able element round trips,
a damaged chunk is refused (tests/conformance/test_zarr2_fixtures.py reads zarr 2.x's)."""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError

numcodecs = pytest.importorskip("numcodecs")


@pytest.mark.parametrize("codec", ["json", "msgpack"])
def test_round_trip_and_corrupt_chunk(tmp_path, codec):
    if codec == "msgpack":
        pytest.importorskip("msgpack")
    oc = numcodecs.JSON() if codec == "json" else numcodecs.MsgPack()
    a = zarrhpc.create(shape=(5,), chunks=(2,), dtype=object, object_codec=oc, zarr_format=2,
                       compressor=None, store=tmp_path / "a")
    v = np.empty(5, dtype=object)
    v[:] = ["a", 1, [1, "b"], {"k": None}, None]
    a[...] = v
    back = zarrhpc.open_array(tmp_path / "a")
    assert back[...].tolist() == v.tolist()
    assert back[1:4].tolist() == v[1:4].tolist()
    # the chunk holds numcodecs' own encoding of the elements
    raw = (tmp_path / "a/0").read_bytes()
    assert oc.decode(raw).tolist() == v[:2].tolist()
    (tmp_path / "a/0").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(CorruptChunkError):
        zarrhpc.open_array(tmp_path / "a")[...]
