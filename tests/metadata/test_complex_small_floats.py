"""The zarr-extensions complex types: complex_float32/complex_float64 are read as numpy's
complex64/complex128; the ones made of smaller floats (complex_bfloat16, complex_float16,
complex_float8_*, complex_float6_*, complex_float4_*) have no numpy representation
(ml_dtypes has no complex types) and no installed reader, so they are refused by name,
never misread as something else."""

import pytest

from zarrhpc.errors import UnsupportedError
from zarrhpc.metadata.dtypes import parse_data_type

# every complex_* directory of zarr-developers/zarr-extensions data-types/ (July 2026)
SMALL = ["complex_bfloat16", "complex_float16", "complex_float4_e2m1fn",
         "complex_float6_e2m3fn", "complex_float6_e3m2fn", "complex_float8_e3m4",
         "complex_float8_e4m3", "complex_float8_e4m3b11fnuz", "complex_float8_e4m3fnuz",
         "complex_float8_e5m2", "complex_float8_e5m2fnuz", "complex_float8_e8m0fnu"]


@pytest.mark.parametrize("name", SMALL)
def test_small_float_complex_types_are_refused_by_name(name):
    with pytest.raises(UnsupportedError, match=f"'{name}' is not supported: no numpy"):
        parse_data_type(name, "a/zarr.json")


@pytest.mark.parametrize(("name", "numpy_name"), [("complex_float32", "complex64"),
                                                  ("complex_float64", "complex128")])
def test_full_width_complex_types_are_numpy_complex(name, numpy_name):
    assert parse_data_type(name, "a/zarr.json").dtype.name == numpy_name
