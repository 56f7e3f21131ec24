"""Every refusal of copy_into / fill: a KernelError (or TypeError for a wrong type),
never a crash, and the destination untouched."""

from __future__ import annotations

import numpy as np
import pytest

from zarrhpc._kernels import copy_into, fill
from zarrhpc.errors import KernelError, ZarrhpcError


def test_kernel_error_is_a_value_error():
    assert issubclass(KernelError, ZarrhpcError)
    assert issubclass(KernelError, ValueError)


@pytest.mark.parametrize(
    "dst_shape, src_shape",
    [((3, 4), (4, 3)), ((3, 4), (3, 4, 1)), ((), (1,)), ((0,), (1,)), ((2, 0), (0, 2))],
)
def test_copy_into_shape_mismatch(dst_shape, src_shape):
    dst = np.zeros(dst_shape, "u1")
    with pytest.raises(KernelError, match="shape mismatch"):
        copy_into(dst, np.ones(src_shape, "u1"))
    assert not dst.any()


@pytest.mark.parametrize("src_dtype", ["u2", "f8", "V3", "c8"])
def test_copy_into_itemsize_mismatch(src_dtype):
    dst = np.zeros(5, "f4")
    with pytest.raises(KernelError, match="itemsize mismatch"):
        copy_into(dst, np.ones(5, src_dtype))


def test_copy_into_same_itemsize_other_dtype_is_fine():
    dst = np.zeros(4, "u4")
    copy_into(dst, np.ones(4, "f4"))  # raw bytes: no conversion
    np.testing.assert_array_equal(dst, np.ones(4, "f4").view("u4"))


def test_copy_into_read_only_destination():
    dst = np.zeros(8)
    dst.flags.writeable = False
    with pytest.raises(KernelError, match="read-only"):
        copy_into(dst, np.ones(8))
    with pytest.raises(KernelError, match="read-only"):
        copy_into(np.broadcast_to(np.zeros(1), (8,)), np.ones(8))


@pytest.mark.parametrize("swap", [3, 5, 6, 16, -1, -4, 2**70])
def test_copy_into_bad_swap(swap):
    dst = np.zeros(4, "V16")
    with pytest.raises(KernelError, match="swap"):
        copy_into(dst, np.zeros(4, "V16"), swap=swap)


@pytest.mark.parametrize("dtype, swap", [("V6", 4), ("V6", 8), ("u1", 2), ("V3", 2), ("f4", 8)])
def test_copy_into_swap_must_divide_itemsize(dtype, swap):
    dst = np.zeros(4, dtype)
    with pytest.raises(KernelError, match="does not divide"):
        copy_into(dst, np.zeros(4, dtype), swap=swap)


@pytest.mark.parametrize("swap", [2.0, "4", None])
def test_copy_into_swap_of_wrong_type(swap):
    with pytest.raises(TypeError, match="swap"):
        copy_into(np.zeros(4, "f4"), np.zeros(4, "f4"), swap=swap)


@pytest.mark.parametrize(
    "dtype", [object, [("a", "f8"), ("o", object)]], ids=["object", "struct-with-object"]
)
def test_copy_into_and_fill_refuse_python_objects(dtype):
    objs = np.array([1, 2, 3], dtype=object) if dtype is object else np.zeros(3, dtype)
    raw = np.zeros(3, np.dtype(("V", objs.itemsize)))
    with pytest.raises(KernelError, match="Python objects"):
        copy_into(objs, objs.copy())
    with pytest.raises(KernelError, match="Python objects"):
        copy_into(raw, objs)  # would hand out borrowed pointers
    with pytest.raises(KernelError, match="Python objects"):
        fill(objs, bytes(objs.itemsize))


@pytest.mark.parametrize("arg", [[1, 2, 3], b"abc", None, 3])
def test_copy_into_needs_arrays(arg):
    with pytest.raises(TypeError):
        copy_into(arg, np.zeros(3))
    with pytest.raises(TypeError):
        copy_into(np.zeros(3), arg)


@pytest.mark.parametrize("value", [b"", b"\x00" * 3, b"\x00" * 5, b"\x00" * 8])
def test_fill_value_of_wrong_length(value):
    dst = np.zeros(6, "f4")
    with pytest.raises(KernelError, match="bytes, element has 4"):
        fill(dst, value)
    assert not dst.any()


@pytest.mark.parametrize("value", [0, 4, 1.5, "abcd", None])
def test_fill_value_must_be_bytes_like(value):
    # bytes(4) would be four zero bytes: an int must not be taken as a length
    with pytest.raises(TypeError, match="bytes-like"):
        fill(np.zeros(1, "f4"), value)


def test_fill_read_only_destination():
    dst = np.zeros(8, "u1")
    dst.flags.writeable = False
    with pytest.raises(KernelError, match="read-only"):
        fill(dst, b"\x01")


def test_fill_needs_an_array():
    with pytest.raises(TypeError):
        fill(bytearray(8), b"\x01")


def test_zero_itemsize_is_a_noop():
    empty = np.dtype([])
    a = np.zeros(3, empty)
    copy_into(a, np.zeros(3, empty))
    fill(a, b"")
