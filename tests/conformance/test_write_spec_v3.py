"""v3 write conformance: every ``zarr.json`` zarrhpc writes for dtype x fill x option has
the core spec's required members in their required forms (zarr-v3 core, /work/shared/
specs) and equals zarr-python 3's document member by member, except where
``_write_spec._deliberate`` says why not."""

import pytest

from tests.conformance._write_spec import DTYPES, base64_ok, compare, float_json_ok

REQUIRED = ("zarr_format", "node_type", "shape", "data_type", "chunk_grid",
            "chunk_key_encoding", "fill_value", "codecs")


def check_v3(doc: dict) -> list[str]:
    bad = [f"missing {k}" for k in REQUIRED if k not in doc]
    if bad:
        return bad
    if doc["zarr_format"] != 3 or doc["node_type"] != "array":
        bad.append("zarr_format/node_type")
    shape = doc["shape"]
    if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
        bad.append(f"shape {shape!r}")
    grid = doc["chunk_grid"]
    if grid.get("name") != "regular" or len(grid["configuration"]["chunk_shape"]) != len(shape):
        bad.append(f"chunk_grid {grid!r}")
    cke = doc["chunk_key_encoding"]
    if cke.get("name") not in ("default", "v2") or cke.get("configuration", {}).get(
            "separator") not in ("/", "."):
        bad.append(f"chunk_key_encoding {cke!r}")
    codecs = doc["codecs"]
    if not codecs or not all(isinstance(c, dict) and isinstance(c.get("name"), str)
                             for c in codecs):
        bad.append(f"codecs {codecs!r}")
    if "dimension_names" in doc and len(doc["dimension_names"]) != len(shape):
        bad.append("dimension_names length")
    if doc.get("storage_transformers", []) != []:
        bad.append("storage_transformers")
    if not isinstance(doc.get("attributes", {}), dict):
        bad.append("attributes")
    dt, fill = doc["data_type"], doc["fill_value"]
    name = dt if isinstance(dt, str) else dt.get("name")
    if name in ("float16", "float32", "float64") and not float_json_ok(fill):
        bad.append(f"float fill {fill!r}")
    if name in ("complex64", "complex128") and not (
            isinstance(fill, list) and len(fill) == 2 and all(map(float_json_ok, fill))):
        bad.append(f"complex fill {fill!r}")
    if name == "bool" and not isinstance(fill, bool):
        bad.append(f"bool fill {fill!r}")
    if name in ("numpy.datetime64", "numpy.timedelta64") and not isinstance(fill, int):
        bad.append(f"datetime fill {fill!r}")
    if name == "null_terminated_bytes" and not base64_ok(fill):
        bad.append(f"bytes fill {fill!r}")
    if isinstance(name, str) and name.startswith("r") and name[1:].isdigit() and not (
            isinstance(fill, list) and len(fill) * 8 == int(name[1:])):
        bad.append(f"raw fill {fill!r}")
    # zarr-extensions: registered names only (null_terminated_bytes: zarr-python's, no
    # registered alternative), "structured" is read-only, struct fills are objects with
    # one value per field and its multi-byte fields name the bytes codec's endian
    if not (name in CORE_TYPES or name in REGISTERED or (name[:1] == "r" and name[1:].isdigit())):
        bad.append(f"data_type {name!r} is not registered")
    if name == "struct":
        fields = [f["name"] for f in dt["configuration"]["fields"]]
        if not (isinstance(fill, dict) and list(fill) == fields):
            bad.append(f"struct fill {fill!r}")
        if codecs[0].get("name") == "bytes" and "endian" not in codecs[0].get(
                "configuration", {}) and any(f["data_type"] not in ("uint8", "int8", "bool")
                                             for f in dt["configuration"]["fields"]):
            bad.append("struct without bytes endian")
    for c in codecs:
        conf = c.get("configuration", {})
        if c.get("name") == "zstd" and not set(conf) <= {"level", "checksum"}:
            bad.append(f"zstd configuration {conf!r}")
    return bad


CORE_TYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"}
#: "structured": zarr-extensions' legacy alias of struct, which zarrhpc writes by default
#: because zarr-python 3.1 reads nothing else (decision: metadata/dtypes_ext.py)
REGISTERED = {"bytes", "string", "struct", "structured", "fixed_length_utf32",
              "numpy.datetime64", "numpy.timedelta64", "null_terminated_bytes"}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_v3_documents_follow_the_spec_and_zarr_python(tmp_path, dtype):
    problems = compare(tmp_path, 3, dtype, check_v3)
    assert problems == []
