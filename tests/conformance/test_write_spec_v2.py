"""v2 write conformance: every ``.zarray`` zarrhpc writes for dtype x fill x option has
exactly the v2 spec's keys in their forms (filters null when there are none, compressor
null or an object with an id, order C/F, dimension_separator, NaN/Infinity as strings,
bytes as base64) and equals zarr-python 3's document, ``.zattrs`` included, except where
``_write_spec._deliberate`` says why not."""

import numpy as np
import pytest

from tests.conformance._write_spec import DTYPES, base64_ok, compare, float_json_ok

KEYS = {"zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value", "order",
        "filters", "dimension_separator"}


def check_v2(doc: dict) -> list[str]:
    bad = []
    keys = set(doc) - {"<.zattrs>"}
    if keys != KEYS:
        bad.append(f"keys {sorted(keys ^ KEYS)}")
        return bad
    if doc["zarr_format"] != 2 or doc["order"] not in ("C", "F"):
        bad.append("zarr_format/order")
    if doc["dimension_separator"] not in (".", "/"):
        bad.append("dimension_separator")
    if doc["filters"] is not None and (doc["filters"] == [] or not all(
            isinstance(f, dict) and "id" in f for f in doc["filters"])):
        bad.append(f"filters {doc['filters']!r} (null when there are none)")
    comp = doc["compressor"]
    if comp is not None and not (isinstance(comp, dict) and "id" in comp):
        bad.append(f"compressor {comp!r}")
    if len(doc["chunks"]) != len(doc["shape"]):
        bad.append("chunks")
    dt = doc["dtype"]
    fill = doc["fill_value"]
    if isinstance(dt, str):
        kind = np.dtype(dt).kind
        if kind == "f" and fill is not None and not float_json_ok(fill):
            bad.append(f"float fill {fill!r}")
        if kind == "c" and fill is not None and not (
                isinstance(fill, list) and len(fill) == 2 and all(map(float_json_ok, fill))):
            bad.append(f"complex fill {fill!r}")
        if kind in "SV" and fill is not None and not base64_ok(fill):
            bad.append(f"bytes fill {fill!r}")
    return bad


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_v2_documents_follow_the_spec_and_zarr_python(tmp_path, dtype):
    problems = compare(tmp_path, 2, dtype, check_v2)
    assert problems == []
