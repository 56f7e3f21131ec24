"""resize and append: v2 and v3, plain and sharded, checked against zarr-python."""

import numpy as np
import pytest
import zarr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import ReadOnlyError, ShapeError

LAYOUTS = {
    "v3": {"zarr_format": 3},
    "v2": {"zarr_format": 2},
    "sharded": {"zarr_format": 3},
}


def both(tmp_path, layout, shape=(7, 11), chunks=(2, 3)):
    kw = dict(shape=shape, chunks=chunks, dtype="i4", fill_value=0, **LAYOUTS[layout])
    if layout == "sharded":
        kw["shards"] = (4, 6)
    h = zarrhpc.create_array(str(tmp_path / "h"), **kw)
    z = zarr.create_array(str(tmp_path / "z"), **kw)
    data = np.arange(np.prod(shape), dtype="i4").reshape(shape) + 1
    h[...] = data
    z[...] = data
    return h, z


def stored(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()
                  and not p.name.startswith((".z", "zarr.json")))


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("steps", [[(3, 4)], [(9, 13)], [(3, 4), (7, 11)], [(0, 5), (8, 2)],
                                   [(7, 2), (7, 14)]])
def test_resize_like_zarr_python(tmp_path, layout, steps):
    h, z = both(tmp_path, layout)
    for shape in steps:
        h.resize(shape)
        z.resize(shape)
        assert h.shape == z.shape == shape
        np.testing.assert_array_equal(h[...], z[...])  # cut edge chunks keep their bytes
        assert stored(tmp_path / "h") == stored(tmp_path / "z")  # same chunks erased
    reopened = zarrhpc.open_array(str(tmp_path / "h"))
    assert reopened.shape == steps[-1]
    np.testing.assert_array_equal(reopened[...], z[...])
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "h"))[...], z[...])


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_append_like_zarr_python(tmp_path, layout, axis):
    h, z = both(tmp_path, layout)
    extra = np.full((5, 11) if axis == 0 else (7, 4), -3, dtype="i4")
    # zarr-python 3.1 refuses a negative axis; zarrhpc counts it from the end, as numpy
    assert h.append(extra, axis=axis) == z.append(extra, axis=axis % 2)
    np.testing.assert_array_equal(h[...], z[...])
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "h"))[...], z[...])


def test_resize_and_append_errors(tmp_path):
    h, _ = both(tmp_path, "v3")
    with pytest.raises(ShapeError, match="dimensions"):
        h.resize((3,))
    with pytest.raises(ValueError, match="not compatible"):
        h.append(np.ones((2, 4)))
    with pytest.raises(ValueError, match="axis 2"):
        h.append(np.ones((2, 11)), axis=2)
    ro = zarrhpc.open_array(str(tmp_path / "h"), mode="r")
    with pytest.raises(ReadOnlyError):
        ro.resize((2, 2))
    assert zarrhpc.open_array(str(tmp_path / "h")).shape == (7, 11)


def test_refresh_sees_another_handle_resize(tmp_path):
    h, _ = both(tmp_path, "v3")
    other = zarrhpc.open_array(str(tmp_path / "h"), mode="r+")
    h.resize((20, 11))
    h[15:] = 9
    assert other.shape == (7, 11)
    other.refresh()
    assert other.shape == (20, 11)
    assert (other[15:] == 9).all()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(layout=st.sampled_from(list(LAYOUTS)), data=st.data())
def test_random_resizes_and_appends_like_zarr_python(tmp_path_factory, layout, data):
    tmp = tmp_path_factory.mktemp("r")
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(0, 9)) for _ in range(ndim))
    chunks = tuple(data.draw(st.integers(1, 3)) for _ in range(ndim))
    kw = dict(shape=shape, dtype="i2", fill_value=0, **LAYOUTS[layout])
    if layout == "sharded":
        kw["shards"] = tuple(2 * c for c in chunks)
    h = zarrhpc.create_array(str(tmp / "h"), chunks=chunks, **kw)
    z = zarr.create_array(str(tmp / "z"), chunks=chunks, **kw)
    x = (np.arange(int(np.prod(shape))) % 100 + 1).astype("i2").reshape(shape)
    h[...] = x
    z[...] = x
    for _ in range(data.draw(st.integers(1, 3))):
        if data.draw(st.booleans()):
            new = tuple(data.draw(st.integers(0, 10)) for _ in range(ndim))
            h.resize(new)
            z.resize(new)
        else:
            axis = data.draw(st.integers(0, ndim - 1))
            extra = list(h.shape)
            extra[axis] = data.draw(st.integers(0, 4))
            block = np.full(extra, 7, "i2")
            assert h.append(block, axis=axis) == z.append(block, axis=axis)
        assert h.shape == z.shape
        np.testing.assert_array_equal(h[...], z[...])
        assert stored(tmp / "h") == stored(tmp / "z")
    np.testing.assert_array_equal(zarr.open_array(str(tmp / "h"))[...], z[...])
