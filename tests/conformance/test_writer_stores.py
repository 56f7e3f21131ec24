"""Stores written by other libraries open in zarrhpc with the values their writer reads back.

The writers (libnetcdf's NCZarr through netCDF4, zarrs through zarrista, zarrita,
ome-zarr-py, ngff-zarr, anndata, zarr-python with imagecodecs' codecs) ran once in
throw-away environments (writer_stores/gen_*.py); their stores and reads are committed as
writer_stores/<writer>-<version>.tar.xz, so the suite needs none of them. Each recorded
array is compared with what the writer read, and with zarr-python 3 wherever zarr-python
opens it.

Differences of representation, not of values, are undone here and listed:

- Text in fixed-length ``|S<n>`` arrays (NCZarr's ``string`` variables, GDAL's strings):
  zarr-python and zarrhpc hand out the bytes, their writers decode them to ``str``.
- NCZarr scalars are stored as shape ``[1]`` with ``_nczarr_array.scalar``; netCDF hands
  out a 0-d value.
- zarrs' ``optional`` data type reads as a ``numpy.ma.MaskedArray``, as zarrista reads it.

Where a writer misreads its own store (:data:`WRITER_MISREADS`), zarrhpc reads what the
metadata declares, and the test checks that.
"""

from __future__ import annotations

import io
import json
import tarfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import zarrhpc
from zarrhpc.testing.corpus import values_equal

HERE = Path(__file__).parent / "writer_stores"
ARCHIVES = sorted(HERE.glob("*.tar.xz"))


def _manifest(archive: Path) -> dict:
    with tarfile.open(archive, "r:xz") as tf:
        return json.load(tf.extractfile("manifest.json"))


MANIFESTS = {a.name[:-7]: _manifest(a) for a in ARCHIVES}
CASES = [(w, n) for w, m in MANIFESTS.items() for n in m["arrays"]]

#: arrays whose writer reads other values than the metadata says are stored, and why:
#: zarrhpc reads what the metadata says (as zarr-python and later releases of the writer)
WRITER_MISREADS = {
    f"netcdf4-1.6.5:{mode}-{v}": (
        "libnetcdf 4.9.3-development declares '>i4' / '>f8' for big-endian variables but "
        "stores their chunks little-endian and reads them back so; libnetcdf 4.10.1 "
        "and zarr-python read the declared byte order")
    for mode in ("nczarr", "zarr", "zarr-noxarray") for v in ("big_i4", "big_f8")}


def _zarr_python_scrambles(root: Path, entry: dict) -> bool:
    """Whether zarr-python reads other values than the writer here, for a known reason:
    libnetcdf records its shuffle filter as ``elementsize: 0`` and shuffles by the type
    size (it adds one to every zlib-compressed variable); numcodecs takes 0 as "no
    shuffle" and hands out scrambled values of multi-byte types. zarrhpc reads libnetcdf's
    values (codecs/numcodecs_adapter.py)."""
    zarray = root / entry["store"] / entry["path"] / ".zarray"
    if not zarray.exists():
        return False
    meta = json.loads(zarray.read_text())
    codecs = [*(meta.get("filters") or []), meta.get("compressor") or {}]
    return np.dtype(meta["dtype"]).itemsize > 1 and any(
        c.get("id") == "shuffle" and c.get("elementsize") == 0 for c in codecs)


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    roots = {}
    for a in ARCHIVES:
        root = tmp_path_factory.mktemp(a.name[:-7])
        with tarfile.open(a, "r:xz") as tf:
            tf.extractall(root, filter="data")
        roots[a.name[:-7]] = root
    return roots


def test_writers_present():
    writers = {w.split("-")[0] for w in MANIFESTS}
    assert {"netcdf4", "zarrista", "zarrita", "gdal", "ome", "ngff", "anndata",
            "imagecodecs"} <= writers
    assert len(CASES) > 200


def _expected(root: Path, name: str):
    with np.load(io.BytesIO((root / "expected" / f"{name}.npz").read_bytes()),
                 allow_pickle=True) as z:
        values = z["values"]
        mask = z["mask"] if "mask" in z.files else None
    return values, mask


def _open(root: Path, entry: dict):
    store = str(root / entry["store"])
    return zarrhpc.open_array(store, path=entry["path"], mode="r")


def _ml_equal(got, raw) -> bool:
    """``got`` (an ml_dtypes array, or pairs of them) equals the writer's values stored as
    raw bytes: compared by value (bits outside a sub-byte type's width do not count)."""
    got = np.asarray(got)
    if raw.shape != got.shape or raw.dtype.itemsize != got.dtype.itemsize:
        return False
    want = raw.view(got.dtype)
    parts = [(got[f], want[f]) for f in got.dtype.names] if got.dtype.names else [(got, want)]
    with np.errstate(invalid="ignore"):
        return all(np.array_equal(g.astype("f8"), w.astype("f8"), equal_nan=True)
                   for g, w in parts)


def _comparable(got, values, entry):
    """(got, expected) with the representation differences of the module docstring undone."""
    if np.asarray(got).dtype.kind == "S" and values.dtype.kind == "O" and all(
            isinstance(v, str) for v in values.ravel()):
        values = np.array([s.encode("utf-8") for s in values.ravel()],
                          dtype=np.asarray(got).dtype).reshape(values.shape)
    if values.ndim == 0 and np.shape(got) == (1,):
        got = np.asarray(got).reshape(())
    return got, values


@pytest.mark.parametrize(("writer", "name"), CASES, ids=[f"{w}:{n}" for w, n in CASES])
def test_reads_as_the_writer_read(unpacked, writer, name):
    entry = MANIFESTS[writer]["arrays"][name]
    root = unpacked[writer]
    values, mask = _expected(root, name)
    a = _open(root, entry)
    got = a[...]
    if mask is not None:
        assert isinstance(got, np.ma.MaskedArray), type(got)
        assert np.array_equal(np.ma.getmaskarray(got), mask)
        got = np.ma.getdata(got).copy()
        got[mask] = values[mask]  # under the mask any value is right
    if entry.get("ml_dtype"):
        assert _ml_equal(got, values), f"zarrhpc\n{got!r}\nwriter\n{values!r}"
        return
    got, values = _comparable(got, values, entry)
    if f"{writer}:{name}" in WRITER_MISREADS:  # the stored bytes, read as declared
        values = values.astype(values.dtype.newbyteorder("=")).byteswap()
        got = np.asarray(got).astype(values.dtype)
        assert got.tobytes() == values.tobytes()
        return
    assert values_equal(got, values), f"zarrhpc\n{got!r}\nwriter\n{values!r}"
    # a strided sub-selection decodes the same (the partial-read paths)
    if values.ndim == 2 and all(values.shape) and mask is None:
        sub, want = _comparable(a[1::2, ::-2], values[1::2, ::-2], entry)
        assert values_equal(sub, want)


@pytest.mark.parametrize(("writer", "name"), CASES, ids=[f"{w}:{n}" for w, n in CASES])
def test_reads_as_zarr_python(unpacked, writer, name):
    import zarr

    entry = MANIFESTS[writer]["arrays"][name]
    root = unpacked[writer]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = zarr.open_array(str(root / entry["store"]), path=entry["path"], mode="r")
            theirs = z[...]
    except Exception as exc:  # zarr-python's limits (data types, codecs, grids it lacks)
        pytest.skip(f"zarr-python cannot read it: {type(exc).__name__}: {exc}"[:200])
    ours = _open(root, entry)[...]
    if _zarr_python_scrambles(root, entry):
        assert not values_equal(ours, theirs), "zarr-python reads libnetcdf's shuffle now"
        return
    assert values_equal(ours, theirs), f"zarrhpc\n{ours!r}\nzarr-python\n{theirs!r}"
