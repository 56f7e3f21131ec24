"""Shared matrix of the write-conformance checks (test_write_spec_v2.py / _v3.py).

Every call ``create_array(**case)`` is made with zarrhpc and with zarr-python 3 into fresh
directories; the documents are then checked against the spec's required members and
encodings, and compared with zarr-python's member by member. The few places where zarrhpc
writes or accepts something else on purpose are listed in :func:`_deliberate`, with why.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import warnings

import numpy as np
import zarr

import zarrhpc

DTYPES = ["bool", "i1", "u2", "i4", "u8", "f2", "f4", "f8", "c8", "c16", "<M8[ns]", "<m8[s]",
          "S5", "U3", str, "V4", [("a", "<i2"), ("b", "<f4")]]
FILLS = [None, np.nan, np.inf, -np.inf, 0, 1]


def options(fmt: int) -> list[dict]:
    out = [{}, {"order": "F"}, {"attributes": {"a": [1, "x"]}}, {"compressors": None},
           {"filters": None}, {"compressors": zarr.codecs.BloscCodec()},
           {"compressors": zarr.codecs.GzipCodec(level=3)}]
    if fmt == 3:
        out += [{"dimension_names": ["x", None]},
                {"chunk_key_encoding": {"name": "v2", "separator": "."}},
                {"chunk_key_encoding": {"name": "default", "separator": "."}},
                {"shards": (4, 6), "chunks": (2, 3)}]
    else:
        out += [{"chunk_key_encoding": {"name": "v2", "separator": "/"}}]
    return out


def _deliberate(fmt, dtype, fill, opts, zarr_result, ours) -> str | None:
    """Why zarrhpc differs from zarr-python here on purpose (None: it must not differ)."""
    if fmt == 3 and isinstance(dtype, str) and dtype.startswith("V"):
        return "v3 raw types: zarrhpc writes the core spec's r<bits> (zarr-python raw_bytes)"
    named = '{"name": "bytes", "configuration": {"endian": "little"}}'
    if fmt == 3 and isinstance(dtype, list) and isinstance(ours, dict) and isinstance(
            zarr_result, dict) and named in json.dumps(ours) and json.loads(json.dumps(
                ours).replace(named, '{"name": "bytes"}', 1)) == zarr_result:
        return ("v3 structured types: the bytes codec names its endian (zarr-python 3.1 "
                "leaves it out; zarrs and the zarr-extensions struct spec need it)")
    if fmt == 3 and dtype == "bool" and isinstance(fill, float):
        return "a NaN/Inf fill for bool is refused (zarr-python stores True)"
    if isinstance(zarr_result, str) and isinstance(ours, dict):
        if fmt == 2 and dtype is str and opts.get("filters", "auto") is None:
            return "v2 str without filters: zarrhpc adds vlen-utf8 (zarr-python refuses)"
        if fmt == 3 and dtype is str and isinstance(fill, float):
            return "zarr-python refuses a float fill for str; zarrhpc stores its text"
    return None


def make(lib, path, fmt, dtype, fill, opts):
    kw = {"shape": (8, 6), "chunks": (4, 3), "dtype": dtype, "zarr_format": fmt, **opts}
    if fill is not None:
        kw["fill_value"] = fill
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lib.create_array(str(path), **kw)
        except Exception as exc:  # noqa: BLE001 - the class and text are the result
            return f"{type(exc).__name__}: {exc}"
    doc = json.loads((path / (".zarray" if fmt == 2 else "zarr.json")).read_text())
    if fmt == 2 and (path / ".zattrs").exists():
        doc["<.zattrs>"] = json.loads((path / ".zattrs").read_text())
    return doc


def compare(tmp_path, fmt, dtype, check_spec) -> list[str]:
    """Run the matrix for ``dtype``; returns the undeclared differences (empty: pass)."""
    problems = []
    n = 0
    for fill in FILLS:
        for opts in options(fmt):
            n += 1
            theirs = make(zarr, tmp_path / f"z{n}", fmt, dtype, fill, opts)
            ours = make(zarrhpc, tmp_path / f"h{n}", fmt, dtype, fill, opts)
            if isinstance(ours, dict):
                problems += [f"{dtype} {fill} {opts}: spec: {p}" for p in check_spec(ours)]
            if theirs == ours or (isinstance(theirs, str) and isinstance(ours, str)):
                continue
            if _deliberate(fmt, dtype, fill, opts, theirs, ours):
                continue
            if isinstance(theirs, dict) and isinstance(ours, dict):
                keys = sorted(set(theirs) | set(ours))
                diff = {k: (theirs.get(k, "<absent>"), ours.get(k, "<absent>")) for k in keys
                        if theirs.get(k, "<absent>") != ours.get(k, "<absent>")}
            else:
                diff = {"zarr-python": theirs, "zarrhpc": ours}
            problems.append(f"{dtype!r} fill={fill!r} {opts}: {diff}")
    return problems


def float_json_ok(v) -> bool:
    """A float fill value as the specs encode it: a number or NaN/Infinity/-Infinity
    (or a hex string of the bits)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return math.isfinite(v)
    return isinstance(v, str) and (v in ("NaN", "Infinity", "-Infinity") or v.startswith("0x"))


def base64_ok(v) -> bool:
    """A bytes fill value as the specs encode it: base64 text."""
    try:
        base64.b64decode(v, validate=True)
    except (TypeError, ValueError, binascii.Error):
        return False
    return isinstance(v, str)
