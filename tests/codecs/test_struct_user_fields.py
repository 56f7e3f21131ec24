"""Structured (``struct``) arrays whose fields are ml_dtypes types (bfloat16, float8): the
``bytes`` codec's ``endian`` applies to every multi-byte field, bfloat16 included (a
big-endian struct of bfloat16 fields was stored and read without swapping, and its
``endian`` dropped from the metadata). The stored bytes are checked against an independent
field-by-field encoding, and a store written by hand in that form reads back."""

import json

import numpy as np
import pytest

import zarrhpc

ml_dtypes = pytest.importorskip("ml_dtypes")
BF = np.dtype(ml_dtypes.bfloat16)
F8 = np.dtype(ml_dtypes.float8_e4m3fn)
DTYPES = {
    "i2+bf16": [("a", "<i2"), ("b", BF)],
    "bf16": [("b", BF)],
    "nested+f8": [("c", [("d", BF), ("e", "u1")]), ("f", F8)],
    "f8+u1": [("x", F8), ("y", "u1")],
}


def _values(dt):
    v = np.zeros(5, dt)
    vals = np.array([1.5, 2.5, -3, 4, 0.25])

    def fill(rec, sub):
        for n in sub.names:
            if sub[n].fields is not None:
                fill(rec[n], sub[n])
            elif sub[n].kind in "iu":
                rec[n] = np.arange(1, 6)
            else:
                rec[n] = vals.astype(sub[n])
    fill(v, dt)
    return v


def _leaves(dt, prefix=()):
    for n in dt.names:
        if dt[n].fields is not None:
            yield from _leaves(dt[n], prefix + (n,))
        else:
            yield prefix + (n,), dt[n]


def _expected_bytes(v, endian):
    """Each element's fields in order, each multi-byte field in ``endian``."""
    out = b""
    for rec in v:
        for path, fdt in _leaves(v.dtype):
            x = rec
            for p in path:
                x = x[p]
            b = np.array(x, dtype=fdt).tobytes()
            out += b[::-1] if endian == "big" and fdt.itemsize > 1 else b
    return out


@pytest.mark.parametrize("endian", ["little", "big"])
@pytest.mark.parametrize("name", DTYPES)
def test_struct_with_ml_dtypes_fields(tmp_path, name, endian):
    dt = np.dtype(DTYPES[name])
    multi = any(f.itemsize > 1 for _, f in _leaves(dt))
    v = _values(dt)
    a = zarrhpc.create_array(tmp_path / "w", shape=(5,), chunks=(5,), dtype=dt,
                             serializer={"name": "bytes", "configuration": {"endian": endian}},
                             compressors=None)
    a[...] = v
    raw = (tmp_path / "w/c/0").read_bytes()
    assert raw == _expected_bytes(v, endian if multi else "little")
    doc = json.loads((tmp_path / "w/zarr.json").read_text())
    assert doc["codecs"][0].get("configuration", {}).get("endian") == (endian if multi else None)
    back = zarrhpc.open_array(tmp_path / "w")
    assert back[...].tobytes() == v.tobytes()
    assert back[1:4].tobytes() == v[1:4].tobytes()
    # the same document and bytes written by another tool read the same
    (tmp_path / "h/c").mkdir(parents=True)
    (tmp_path / "h/zarr.json").write_text(json.dumps(doc))
    (tmp_path / "h/c/0").write_bytes(_expected_bytes(v, endian if multi else "little"))
    assert zarrhpc.open_array(tmp_path / "h")[...].tobytes() == v.tobytes()
