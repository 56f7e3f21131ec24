"""The fill value of a new string array, as zarr-python 3 makes it: the value it holds,
what it writes into the metadata, what reopening gives and the elements of an unwritten
array, for dtype=str / StringDType / U<n>, v2 and v3, fill value not given, None, "" and
"x" (v2 with an explicit None writes null, elements read as "")."""

import json
import warnings

import numpy as np
import pytest

import zarrhpc

zarr = pytest.importorskip("zarr")

_UNSET = object()


def _made(lib, tmp_path, fmt, dtype, fill, how):
    kw = dict(shape=(3,), chunks=(2,), dtype=dtype)
    if fill is not _UNSET:
        kw["fill_value"] = fill
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "create_array":
            a = lib.create_array(str(tmp_path), zarr_format=fmt, **kw)
            path = tmp_path
        elif how == "create":
            a = lib.create(store=str(tmp_path), zarr_format=fmt, **kw)
            path = tmp_path
        else:
            a = lib.open_group(str(tmp_path), mode="w", zarr_format=fmt).create_array("x", **kw)
            path = tmp_path / "x"
        doc = json.loads((path / (".zarray" if fmt == 2 else "zarr.json")).read_text())
        r = lib.open_array(str(path))
        return (repr(a.fill_value), doc["fill_value"], repr(r.fill_value), r[...].tolist(),
                str(r.dtype))


@pytest.mark.parametrize("how", ["create_array", "create", "group"])
@pytest.mark.parametrize("fill", [_UNSET, None, "", "x"], ids=["unset", "None", "empty", "x"])
@pytest.mark.parametrize("dtype", [str, np.dtypes.StringDType(), "<U3"], ids=["str", "T", "U3"])
@pytest.mark.parametrize("fmt", [2, 3])
def test_string_fill_as_zarr_python(tmp_path, fmt, dtype, fill, how):
    ours = _made(zarrhpc, tmp_path / "zh", fmt, dtype, fill, how)
    theirs = _made(zarr, tmp_path / "zp", fmt, dtype, fill, how)
    assert ours == theirs
