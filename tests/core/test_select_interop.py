"""What zarrhpc writes through each selection form, zarr-python reads back identically
(and the reverse), on v2 and v3, plain, sharded and nested-sharded arrays."""

import numpy as np
import pytest
import zarr

import zarrhpc
from zarrhpc.codecs import ShardingCodec

LAYOUTS = {
    "v3": dict(zarr_format=3),
    "v3-zstd": dict(zarr_format=3, compressors={"name": "zstd", "configuration": {"level": 1}}),
    "v2": dict(zarr_format=2, compressors={"id": "zstd", "level": 1}),
    "sharded": dict(zarr_format=3, shards=(6, 6)),
    "nested": dict(zarr_format=3, shards=(6, 6), serializer=ShardingCodec((1, 3)),
                   compressors=None),
}


def forms(a, ref):
    """Write through every form into zarrhpc array ``a``, mirroring it into ``ref``."""
    rng = np.random.default_rng(3)
    a.oindex[[4, 0, 4], ::-2] = 1.5
    ref[np.ix_([4, 0, 4], np.arange(11)[::-2])] = 1.5
    pts = (rng.integers(0, 9, 20), rng.integers(0, 11, 20))
    v = rng.random(20).astype("f8")
    a.vindex[pts] = v
    ref[pts] = v
    mask = rng.random((9, 11)) < 0.2
    a[mask] = -2.0
    ref[mask] = -2.0
    a.blocks[1, -1] = 7.0
    b = a.shards or a.chunks
    ref[b[0]:2 * b[0], (-(-11 // b[1]) - 1) * b[1]:] = 7.0
    a[[1, 8]] = 3.0  # a[list] on 2-d: orthogonal on the first axis, as zarr-python
    ref[[1, 8]] = 3.0
    a.set_coordinate_selection(([0, 0], [10, 10]), [4.0, 5.0])  # last wins
    ref[0, 10] = 5.0


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_zarr_python_reads_what_every_form_wrote(tmp_path, layout):
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(9, 11), chunks=(3, 3), dtype="f8",
                             fill_value=0, **LAYOUTS[layout])
    ref = np.zeros((9, 11))
    forms(a, ref)
    np.testing.assert_array_equal(a[...], ref)
    z = zarr.open_array(str(tmp_path / "a"), mode="r")
    np.testing.assert_array_equal(z[...], ref)
    # and zarr-python's selections agree with ours on the same store
    np.testing.assert_array_equal(z.oindex[[8, 2], [1, 1, 0]], a.oindex[[8, 2], [1, 1, 0]])
    np.testing.assert_array_equal(z.vindex[[8, 2], [1, 0]], a.vindex[[8, 2], [1, 0]])
    np.testing.assert_array_equal(z.blocks[1], a.blocks[1])


@pytest.mark.parametrize("layout", ["v3", "v2", "sharded"])
def test_zarrhpc_reads_what_zarr_python_wrote(tmp_path, layout):
    kw = {k: v for k, v in LAYOUTS[layout].items() if k != "serializer"}
    z = zarr.create_array(str(tmp_path / "z"), shape=(9, 11), chunks=(3, 3), dtype="f8",
                          fill_value=0, **kw)
    rng = np.random.default_rng(5)
    pts = (rng.integers(0, 9, 30), rng.integers(0, 11, 30))
    z.vindex[pts] = np.arange(30.0)
    z.oindex[[2, 7], [0, 10]] = -1.0
    ref = z[...]
    a = zarrhpc.open_array(str(tmp_path / "z"))
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(a.vindex[pts], z.vindex[pts])
    mask = ref > 10
    np.testing.assert_array_equal(a[mask], z[mask])
