"""Stores written by other libraries open in zarrhpc with the values their writer reads back.

The writers (libnetcdf's NCZarr through netCDF4, zarrs through zarrista, zarrita,
ome-zarr-py, ngff-zarr, anndata, zarr-python with imagecodecs' codecs, z5 (C++) through
z5py: Zarr v2, v3 with shards, N5; zarrista-bounded: shards rewritten in place, with dead
bytes and inner chunks out of grid order) ran once in
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
            "imagecodecs", "z5py"} <= writers
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


# ---------------------------------------------------------------------------------------
# rewrites keep what the writer wrote: attribute updates and resizes on copies of every store
# ---------------------------------------------------------------------------------------

STORES = sorted({(w, e["store"]) for w, m in MANIFESTS.items() for e in m["arrays"].values()})
NEW_ATTR = "zarrhpc_rewrite"


def _docs(node: Path) -> dict:
    """The node's metadata documents, parsed (order kept), by name."""
    return {n: json.loads((node / n).read_bytes()) for n in ("zarr.json", ".zarray", ".zattrs")
            if (node / n).is_file()}


def _grid_name(docs: dict) -> str:
    grid = docs.get("zarr.json", {}).get("chunk_grid", "regular")
    return grid if isinstance(grid, str) else grid.get("name", "")


def _assert_only(before: dict, after: dict, changed: dict, where: str) -> None:
    """``after`` is ``before`` with the members of ``changed`` set (same members, same
    order, every other member exactly as it was, compared as JSON text)."""
    want = {**before, **changed}
    assert list(after) == list(want), f"{where}: members {list(after)} != {list(want)}"
    for key in want:
        if isinstance(want[key], float) and not np.isfinite(want[key]):
            # a NaN/Infinity literal (zarrita's fill) is not JSON: written as the spec's string
            assert after[key] == {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[
                str(want[key])], f"{where}: {key!r} is {after[key]!r}"
            continue
        assert json.dumps(after[key]) == json.dumps(want[key]), (
            f"{where}: member {key!r} rewritten:\n{after[key]!r}\nwas\n{before.get(key)!r}")


def _check_values(root: Path, entry: dict, name: str, old_shape: tuple, a) -> None:
    """The array reads the writer's values inside ``old_shape`` and its fill past it."""
    values, mask = _expected(root, name)
    got = a[tuple(slice(0, n) for n in old_shape)]
    if mask is not None:
        got = np.ma.getdata(got).copy()
        got[mask] = values[mask]
    if entry.get("ml_dtype"):
        assert _ml_equal(got, values)
        return
    got, values = _comparable(got, values, entry)
    if f"{entry['writer']}:{name}" in WRITER_MISREADS:
        return  # compared by bytes in test_reads_as_the_writer_read; unchanged by a rewrite
    assert values_equal(got, values), f"zarrhpc\n{got!r}\nwriter\n{values!r}"


@pytest.mark.parametrize(("writer", "store"), STORES, ids=[f"{w}:{s}" for w, s in STORES])
def test_rewrites_keep_what_the_writer_wrote(unpacked, tmp_path, writer, store):
    """On a copy of the store, per array: ``attrs`` update, then (but on NCZarr, whose
    dimensions are shared by several variables) a resize growing the first axis by one.
    The documents may differ only where the operation says; values stay the writer's."""
    import shutil

    src = unpacked[writer] / store
    if src.is_file():
        pytest.skip("zip store: read-only here")
    copy = tmp_path / "s"
    shutil.copytree(src, copy)
    entries = {n: {**e, "writer": writer} for n, e in MANIFESTS[writer]["arrays"].items()
               if e["store"] == store}
    done = set()
    for name, entry in entries.items():
        if entry["path"] in done:  # two records of one array
            continue
        done.add(entry["path"])
        node = copy / entry["path"]
        before = _docs(node)
        a = zarrhpc.open_array(str(copy), path=entry["path"], mode="r+")
        if not before:
            # the 2022 draft layout (meta/root/...) and N5: read-only in zarrhpc (documented)
            assert (copy / "meta").is_dir() or (node / "attributes.json").is_file()
            with pytest.raises(zarrhpc.errors.ReadOnlyError):
                a.attrs[NEW_ATTR] = 1
            continue
        a.attrs[NEW_ATTR] = 1
        after = _docs(node)
        if "zarr.json" in before:
            attrs = {**(before["zarr.json"].get("attributes") or {}), NEW_ATTR: 1}
            _assert_only(before["zarr.json"], after["zarr.json"], {"attributes": attrs}, name)
        else:
            assert (node / ".zarray").read_bytes() == (src / entry["path"] / ".zarray").read_bytes()
            want = {**before.get(".zattrs", {}), NEW_ATTR: 1}
            _assert_only({}, after[".zattrs"], want, name)
        a = zarrhpc.open_array(str(copy), path=entry["path"], mode="r")
        _check_values(unpacked[writer], entry, name, a.shape, a)
        if writer.startswith("netcdf4") or not a.ndim:
            continue
        old_shape, before = a.shape, after
        new_shape = (old_shape[0] + 1, *old_shape[1:])
        a = zarrhpc.open_array(str(copy), path=entry["path"], mode="r+")
        try:
            a.resize(new_shape)
        except zarrhpc.errors.UnsupportedError:
            # a cut edge chunk of zarrs' bounded grid cannot grow (it keeps its cut shape)
            assert _grid_name(before) == "zarrs.regular_bounded" and old_shape[0] % (
                before["zarr.json"]["chunk_grid"]["configuration"]["chunk_shape"][0])
            continue
        after = _docs(node)
        doc = "zarr.json" if "zarr.json" in before else ".zarray"
        changed = {"shape": list(new_shape)}
        if _grid_name(before) == "rectilinear":  # an edge may be added to reach the shape
            changed["chunk_grid"] = after[doc]["chunk_grid"]
        _assert_only(before[doc], after[doc], changed, f"{name} resized")
        if ".zattrs" in before:
            assert after[".zattrs"] == before[".zattrs"]
        a = zarrhpc.open_array(str(copy), path=entry["path"], mode="r")
        assert a.shape == new_shape
        _check_values(unpacked[writer], entry, name, old_shape, a)
        # past the old end: what the stored edge chunks hold there (a resize rewrites no
        # chunk), as zarr-python reads the resized copy
        theirs = _zarr_python_read(copy, entry["path"])
        if theirs is not None and not _zarr_python_scrambles(copy, {**entry, "store": "."}):
            ours = a[...]
            if entry.get("ml_dtype"):
                assert np.array_equal(np.asarray(ours).view("u1"), np.asarray(theirs).view("u1"))
            else:
                assert values_equal(ours, theirs), f"zarrhpc\n{ours!r}\nzarr-python\n{theirs!r}"
    _check_consolidation(copy)


def _check_consolidation(copy: Path) -> None:
    """Consolidating the rewritten store keeps every document as it is on disk: each entry
    of ``.zmetadata`` (v2) or each array of the root's ``consolidated_metadata`` (v3) equals
    the node's own document, and the root document changes only there."""
    root_json = copy / "zarr.json"
    v3 = root_json.is_file() and "consolidated_metadata" in json.loads(root_json.read_bytes())
    if not v3 and not (copy / ".zmetadata").is_file():
        return
    before = json.loads(root_json.read_bytes()) if v3 else None
    zarrhpc.consolidate_metadata(str(copy))
    if not v3:
        entries = json.loads((copy / ".zmetadata").read_bytes())["metadata"]
        assert entries, "nothing consolidated"
        for key, doc in entries.items():  # keys sorted, as zarr-python 2 writes .zmetadata
            if key.endswith(".zattrs") and not (copy / key).is_file():
                assert doc == {}, key  # a node without .zattrs: its attributes, none
                continue
            on_disk = json.loads((copy / key).read_bytes())
            assert json.dumps(doc, sort_keys=True) == json.dumps(on_disk, sort_keys=True), key
        return
    after = json.loads(root_json.read_bytes())
    _assert_only(before, after, {"consolidated_metadata": after["consolidated_metadata"]},
                 "root zarr.json")
    for path, doc in after["consolidated_metadata"]["metadata"].items():
        if doc.get("node_type") == "array":
            on_disk = json.loads((copy / path / "zarr.json").read_bytes())
            assert json.dumps(doc) == json.dumps(on_disk), path


def _zarr_python_read(store: Path, path: str):
    """zarr-python's read of the array (None where it cannot read it)."""
    import zarr

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return zarr.open_array(str(store), path=path, mode="r")[...]
    except Exception:  # zarr-python's limits (data types, codecs, grids it lacks)
        return None
