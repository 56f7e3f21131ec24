"""The same bad selections raise the same exception classes as zarr-python 3.

zarr-python runs side by side on an array of the same shape and chunks. Our class must
carry zarr-python's name when it raises one of its own classes, and derive from the same
builtin otherwise.
"""

import numpy as np
import pytest
import zarr

import zarrhpc
from zarrhpc.storage import MemoryStore

SHAPE, CHUNKS = (6, 7), (2, 3)

# (description, operation on an array)
CASES = [
    ("float index", lambda a: a[1.5]),
    ("float in a tuple", lambda a: a[1, 2.0]),
    ("too many indices", lambda a: a[:, 1, 2]),
    ("two ellipses", lambda a: a[..., ...]),
    ("int out of bounds", lambda a: a[6]),
    ("negative out of bounds", lambda a: a[-7, 0]),
    ("list of lists", lambda a: a[[[1, 2]]]),
    ("lists with a slice", lambda a: a[[1, 2], [1], :]),
    ("mask of the wrong shape", lambda a: a[np.ones((3, 7), bool)]),
    ("coordinates out of bounds", lambda a: a[[1, 9], [1, 1]]),
    ("coordinates that do not broadcast", lambda a: a.vindex[[1, 2], [1, 2, 3]]),
    ("vindex with a slice", lambda a: a.vindex[[1, 2], :]),
    ("vindex with a float", lambda a: a.vindex[1.5, 2]),
    ("oindex out of bounds", lambda a: a.oindex[[1, 9]]),
    ("oindex 2-d int array", lambda a: a.oindex[np.array([[1]]), :]),
    ("oindex bool of the wrong length", lambda a: a.oindex[np.ones(5, bool)]),
    ("oindex float", lambda a: a.oindex[1.5]),
    ("oindex too many", lambda a: a.oindex[[1], [2], [3]]),
    ("block out of bounds", lambda a: a.blocks[3]),
    ("block step", lambda a: a.blocks[::2]),
    ("block array", lambda a: a.blocks[[0, 1]]),
    ("coordinate selection with a slice", lambda a: a.get_coordinate_selection((slice(None), [1]))),
    ("mask selection of the wrong shape", lambda a: a.get_mask_selection(np.ones(6, bool))),
    ("basic selection with a list", lambda a: a.get_basic_selection([1, 2])),
    ("fields on a plain dtype", lambda a: a.get_basic_selection(slice(None), fields="x")),
    ("vindex write of the wrong size", lambda a: a.vindex.__setitem__(([1, 2], [1, 2]), [1, 2, 3])),
]


def test_oindex_write_of_the_wrong_shape_is_refused():
    # zarr-python 3.1 stores part of such a value silently; zarrhpc refuses it (numpy's rule)
    _, h = _arrays()
    with pytest.raises(ValueError, match="cannot be broadcast"):
        h.oindex[[1, 2], 0] = np.ones(3)
    assert not h[...].any()


def _arrays():
    z = zarr.create_array(zarr.storage.MemoryStore(), shape=SHAPE, chunks=CHUNKS, dtype="i4")
    h = zarrhpc.create_array(MemoryStore(), shape=SHAPE, chunks=CHUNKS, dtype="i4")
    return z, h


ZARR_NAMES = {"BoundsCheckError", "NegativeStepError", "VindexInvalidSelectionError",
              "ArrayIndexError"}


@pytest.mark.parametrize("what,op", CASES, ids=[c[0] for c in CASES])
def test_same_error_class_as_zarr_python(what, op):
    z, h = _arrays()
    with pytest.raises(Exception) as theirs:
        op(z)
    with pytest.raises(Exception) as ours:
        op(h)
    t, o = type(theirs.value), type(ours.value)
    if t.__name__ in ZARR_NAMES:
        assert o.__name__ == t.__name__, (what, t, o, ours.value)
    for builtin in (IndexError, ValueError, TypeError):
        if issubclass(t, builtin):
            assert isinstance(ours.value, builtin), (what, t, o, ours.value)


def test_error_texts_follow_zarr_python():
    z, h = _arrays()
    for op in (lambda a: a[1.5], lambda a: a.vindex[[1, 2], :], lambda a: a.blocks[3]):
        with pytest.raises(IndexError) as theirs:
            op(z)
        with pytest.raises(IndexError) as ours:
            op(h)
        head = str(theirs.value).split(";")[0].split(" got ")[0][:40]
        assert head in str(ours.value)
