"""What zarrhpc writes through each selection form, zarr-python reads back identically
(and the reverse), on v2 and v3, plain, sharded and nested-sharded arrays."""

import tempfile

import numpy as np
import pytest
import zarr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.codecs import ShardingCodec
from zarrhpc.testing.strategies_select import (
    block_selections,
    coordinate_selections,
    layouts,
    make_array,
    mask_selections,
    numpy_outer_index,
    orthogonal_selections,
)

LAYOUTS = {
    "v3": {"zarr_format": 3},
    "v3-zstd": {"zarr_format": 3, "compressors": {"name": "zstd", "configuration": {"level": 1}}},
    "v2": {"zarr_format": 2, "compressors": {"id": "zstd", "level": 1}},
    "sharded": {"zarr_format": 3, "shards": (6, 6)},
    "nested": {"zarr_format": 3, "shards": (6, 6), "serializer": ShardingCodec((1, 3)),
                   "compressors": None},
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


SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(layout=layouts(min_len=1), kind=st.sampled_from(["oindex", "vindex", "mask", "blocks"]),
       data=st.data())
def test_random_writes_read_back_by_zarr_python(layout, kind, data):
    layout = {**layout, "local": True}
    with tempfile.TemporaryDirectory() as tmp:
        a, ref = make_array(layout, tmp)
        shape = ref.shape
        if kind == "oindex":
            sel = data.draw(orthogonal_selections(shape))
            index, dropped = numpy_outer_index(sel, shape)
            full = tuple(len(np.ravel(i)) for i in index)
            v = np.arange(int(np.prod(full))).reshape(full).astype(ref.dtype)
            a.oindex[sel] = v.reshape([n for n, d in zip(full, dropped) if not d])
            ref[index] = v
        elif kind == "blocks":
            blocks = layout["shards"] or layout["chunks"]
            sel = data.draw(block_selections(shape, blocks))
            region = []
            for s, n, c in zip(sel, shape, blocks):
                nb = -(-n // c)
                lo, hi = ((s.start, s.stop) if isinstance(s, slice) else (s % nb, s % nb + 1))
                region.append(slice(lo * c, hi * c))
            a.blocks[sel] = 1
            ref[tuple(region)] = 1
        else:
            sel = (data.draw(coordinate_selections(shape)) if kind == "vindex"
                   else data.draw(mask_selections(shape)))
            key = sel if isinstance(sel, tuple) or kind == "mask" else (sel,)
            v = np.arange(ref[key].size).reshape(ref[key].shape).astype(ref.dtype)
            a.vindex[sel] = v
            ref[key] = v
        np.testing.assert_array_equal(a[...], ref)
        z = zarr.open_array(tmp, mode="r")
        np.testing.assert_array_equal(z[...], ref)
