"""``convert`` of a v2 hierarchy with an array under a directory without ``.zgroup``
(z5py writes such stores; zarr-python opens the array by its path): the old code converted
the rest and dropped the array from the result with no error -- ``verify`` compared only
the nodes it had walked -- and in place left it v2 under a v3 root. Now: refused, naming
the implicit group, nothing written."""

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import UnsupportedError


def _source(root):
    g = zarrhpc.open_group(str(root), mode="w", zarr_format=2)
    data = np.arange(63, dtype="i2").reshape(9, 7)
    g.create_array("g1/g2/data", shape=data.shape, chunks=(4, 3), dtype="i2")[...] = data
    g.create_array("top", shape=(4,), chunks=(2,), dtype="f4")[...] = 1.5
    os.remove(root / "g1" / ".zgroup")
    return data


@pytest.mark.parametrize("in_place", [False, True], ids=["copy", "in_place"])
def test_convert_refuses_nodes_under_an_implicit_group(tmp_path, in_place):
    src = tmp_path / "src"
    data = _source(src)
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*"))
    dst = tmp_path / "dst"
    with pytest.raises(UnsupportedError, match="'g1'"):
        if in_place:
            zarrhpc.convert(str(src), in_place=True, progress=False)
        else:
            zarrhpc.convert(str(src), str(dst), progress=False)
    assert sorted(p.relative_to(src).as_posix() for p in src.rglob("*")) == files
    assert not dst.exists() or not any(p.name == "zarr.json" for p in dst.rglob("*"))
    np.testing.assert_array_equal(
        zarrhpc.open_array(str(src), path="g1/g2/data", mode="r")[...], data)
    # once the group is explicit, everything converts
    zarrhpc.open_group(str(src), path="g1", mode="a", zarr_format=2)
    out = zarrhpc.convert(str(src), in_place=True, progress=False) if in_place else \
        zarrhpc.convert(str(src), str(dst), progress=False)
    np.testing.assert_array_equal(out["g1/g2/data"][...], data)
    assert out["g1/g2/data"].metadata.zarr_format == 3
