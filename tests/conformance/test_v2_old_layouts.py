"""Old v2 layouts: dimension_separator absent (flat or nested keys), "/" and "."; .zattrs-only
directories are not nodes (as zarr-python)."""

import json

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")


@pytest.mark.parametrize(("written", "recorded"), [(".", None), ("/", None), ("/", "/"),
                                                   (".", ".")])
@pytest.mark.parametrize("first_chunk", [True, False])
def test_separator_absent_or_given(tmp_path, written, recorded, first_chunk):
    p = tmp_path / "a.zarr"
    z = zarr.create_array(str(p), shape=(4, 6), chunks=(2, 3), dtype="i2", zarr_format=2,
                          fill_value=-1, chunk_key_encoding={"name": "v2", "separator": written})
    data = np.arange(24, dtype="i2").reshape(4, 6)
    if first_chunk:
        z[:] = data
    else:  # chunk (0, 0) missing: the layout is told by the others
        z[2:, :] = data[2:, :]
        data[:2, :3] = -1
        z[:2, 3:] = data[:2, 3:]
    doc = json.loads((p / ".zarray").read_text())
    if recorded is None:
        del doc["dimension_separator"]  # as zarr-python < 2.8 wrote nested stores
    (p / ".zarray").write_text(json.dumps(doc))
    a = zarrhpc.open_array(p)
    np.testing.assert_array_equal(a[...], data)
    assert a.metadata.dimension_separator == written


def test_zattrs_only_directory_is_not_a_node(tmp_path):
    g = zarr.create_group(str(tmp_path / "g.zarr"), zarr_format=2)
    g.create_array("x", shape=(2,), dtype="u1")
    (tmp_path / "g.zarr/loose").mkdir()
    (tmp_path / "g.zarr/loose/.zattrs").write_text('{"a": 1}')
    h = zarrhpc.open_group(tmp_path / "g.zarr")
    assert [n for n, _ in h.members()] == [n for n, _ in g.members()] == ["x"]
    with pytest.raises(KeyError):
        h["loose"]
