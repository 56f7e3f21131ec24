"""Zarr v2 arrays keep their stored ``order`` as zarr-python 3 keeps it: created with the
``order`` given (else the global ``array.order``; an ``ArrayConfig`` order does not
change what is stored), read back in the stored order whatever the config asks for.
Compared with zarr-python on the same calls."""

import json

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

CASES = [dict(config={"order": "F"}), dict(order="F"), dict(order="C", config={"order": "F"}),
         dict(order="F", config={"order": "C"}), dict()]


def _stored_order(store):
    raw = store[".zarray"]
    return json.loads(raw.to_bytes())["order"]


def _observe(lib, kwargs, global_order):
    data = np.arange(35, dtype="i4").reshape(5, 7)
    store = {}
    with lib.config.set({"array.order": global_order}):
        a = lib.create_array(store, shape=data.shape, chunks=(2, 3), dtype="i4",
                             zarr_format=2, **kwargs)
        a[:] = data
        got = a[:]
    np.testing.assert_array_equal(got, data)
    reopened = lib.open_array(store, mode="r", config={"order": "C" if global_order == "F"
                                                       else "F"})
    back = reopened[:]
    np.testing.assert_array_equal(back, data)
    return (_stored_order(store), a.order, repr(a.config), got.flags.f_contiguous, reopened.order,
            back.flags.f_contiguous)


@pytest.mark.parametrize("global_order", ["C", "F"])
@pytest.mark.parametrize("kwargs", CASES, ids=[str(c) for c in CASES])
def test_v2_order_as_zarr_python(kwargs, global_order):
    assert _observe(zarrhpc, kwargs, global_order) == _observe(zarr, kwargs, global_order)
