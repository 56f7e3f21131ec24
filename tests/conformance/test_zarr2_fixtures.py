"""Stores written by zarr-python 2.x (2.11 and 2.18: v2 and 2.18's experimental v3 of the
2022 draft, sharding storage transformer included) and by zarr-python 3.0.x (whose forms
3.1 changed: '<U4' / '|S3' v2 arrays with vlen chunks, v3 bytes fill []) open in zarrhpc
with the values, shape, dtype, fill value, attributes and members that writer read back.

The stores and zarr 2.x's reads are committed as archives (zarr2_stores/zarr-<version>.tar.xz,
written by zarr2_stores/generate.py under that zarr 2.x release): zarr 2.x is not needed here.
"""

from __future__ import annotations

import ast
import io
import json
import tarfile
from pathlib import Path

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.corpus import Written, compare_with_zarrhpc

HERE = Path(__file__).parent / "zarr2_stores"
ARCHIVES = sorted(HERE.glob("zarr-*.tar.xz"))


def _manifest(archive: Path) -> dict:
    with tarfile.open(archive, "r:xz") as tf:
        return json.load(tf.extractfile("manifest.json"))


MANIFESTS = {a.name: _manifest(a) for a in ARCHIVES}
CASES = [(a, n) for a, m in MANIFESTS.items() for n in m["stores"]]


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    roots = {}
    for a in ARCHIVES:
        root = tmp_path_factory.mktemp(a.name.replace(".tar.xz", ""))
        with tarfile.open(a, "r:xz") as tf:
            tf.extractall(root, filter="data")
        roots[a.name] = root
    return roots


def test_archives_present():
    assert {m["zarr"][:4] for m in MANIFESTS.values()} >= {"2.11", "2.18"}
    # 2.18 wrote the 2022-draft v3 stores, sharded ones included
    stores = MANIFESTS[next(a for a in MANIFESTS if "2.18" in a)]["stores"]
    assert any(n.startswith("v3-shard-") for n in stores)
    assert len(CASES) > 1000
    assert any(m["zarr"].startswith("3.0") for m in MANIFESTS.values())


def _dtype(s: str):
    return np.dtype(ast.literal_eval(s) if s.startswith("[") else s)


def _as_zarr_python3_reads(values: np.ndarray) -> np.ndarray:
    """zarr 2.x hands out a string array's fill value object (None, 0) where a chunk is
    missing; zarr-python 3 (and zarrhpc, its drop-in) hand out a string of the array's kind
    there: "" for None, "0" for 0 in a vlen-utf8 array, b"" for all three in a vlen-bytes one."""
    flat = values.ravel()
    kinds = {type(v) for v in flat if isinstance(v, (str, bytes)) and v}
    if len(kinds) != 1:
        return values
    kind = kinds.pop()
    out = np.empty(flat.shape, dtype=object)
    for i, v in enumerate(flat):
        if v is None or (kind is bytes and v == ""):
            v = kind()
        elif type(v) is int and v == 0:
            v = "0" if kind is str else b""
        out[i] = v
    return out.reshape(values.shape)


@pytest.mark.parametrize(("archive", "name"), CASES, ids=[f"{a[5:-7]}-{n}" for a, n in CASES])
def test_zarr2_store_reads_as_zarr2_read_it(unpacked, archive, name):
    entry = MANIFESTS[archive]["stores"][name]
    root = unpacked[archive]
    with np.load(io.BytesIO((root / "expected" / f"{name}.npz").read_bytes()),
                 allow_pickle=True) as z:
        values, fill = z["values"], z["fill"]
    fill = fill.item() if fill.dtype.kind == "O" else fill[()]
    store = str(root / entry["store"])
    check_fill = values.dtype.kind != "O"
    if entry["format"] == "3draft" and fill is None:
        check_fill = False  # final v3 has no null fill value: the type's default, as v2 reads
    if values.dtype.kind == "O" and any(k in name for k in ("vlenutf8", "vlenbytes",
                                                            "obj-dtype-")):
        values = _as_zarr_python3_reads(values)  # vlen strings; json/msgpack keep None
    w = Written(store + (f"::{entry['path']}" if entry["path"] else ""), values,
                tuple(entry["shape"]), _dtype(entry["dtype"]), fill, entry["attrs"],
                check_fill=check_fill)
    problems = compare_with_zarrhpc(w)
    assert not problems, "\n".join(problems)
    if entry["members"] is not None:
        g = zarrhpc.open_group(store, mode="r")
        got = sorted(n + "/" if isinstance(node, zarrhpc.Group) else n
                     for n, node in g.members(max_depth=None))
        assert got == entry["members"]
