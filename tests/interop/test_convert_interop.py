"""Converting v2 and 2022-draft hierarchies to v3: zarr-python 3 and tensorstore open the
result with equal data; chunks stay byte-identical where the plan keeps them."""

import json

import numcodecs
import numpy as np
import pytest

import zarrhpc
from zarrhpc.cli import main
from zarrhpc.testing.corpus import zarr_python_reads_struct
from zarrhpc.testing.draft_stores import root_array_store, spec_store, zarr_python2_store
from zarrhpc.testing.peers import same_bits

zarr = pytest.importorskip("zarr")
ts = pytest.importorskip("tensorstore")

pytestmark = pytest.mark.interop

RNG = np.random.default_rng(7)
# name -> (data, create_array keywords, tensorstore can read the v3 result, plan)
V2_ARRAYS = {
    "f8_blosc": (RNG.standard_normal((7, 5)), dict(
        compressors=numcodecs.Blosc("lz4", 5, 1)), True, "keep"),
    "i2_big_F": (RNG.integers(-999, 999, (7, 5)).astype(">i2"), dict(
        compressors=numcodecs.GZip(1), order="F",
        chunk_key_encoding={"name": "v2", "separator": "/"}), True, "keep"),
    "grp/u1_zlib": (RNG.integers(0, 255, (9,)).astype("u1"), dict(
        compressors=numcodecs.Zlib(1)), False, "keep"),
    "grp/U3": (np.array(["a", "bc", "xyz", ""] * 2, dtype="<U3"), dict(
        compressors=numcodecs.Zstd(1)), False, "keep"),
    "grp/M8": (np.arange(8).astype("<M8[s]"), dict(compressors=None), False, "keep"),
    "grp/struct_big": (np.array([(1, 2.5), (3, -1.0)] * 3, dtype=[("a", "<i4"), ("b", ">f8")]),
                       dict(compressors=None,
                            fill_value=np.zeros((), [("a", "<i4"), ("b", ">f8")])[()]),
                       False, "reencode"),
    "grp/delta": (np.arange(40, dtype="<i8").reshape(8, 5), dict(
        filters=[numcodecs.Delta("<i8")], compressors=numcodecs.Zstd(1)), False, "keep"),
    "grp/categorize": (np.array(["ab", "c", "ab", ""] * 2, dtype="<U2"), dict(
        filters=[numcodecs.Categorize(["", "ab", "c"], "<U2")], compressors=None),
        False, "reencode"),
}


def write_v2(path):
    root = zarr.create_group(str(path), zarr_format=2, attributes={"title": "v2"})
    for name, (data, kw, _, _) in V2_ARRAYS.items():
        chunks = tuple(max(1, n // 2) for n in data.shape)
        a = root.create_array(name, shape=data.shape, chunks=chunks, dtype=data.dtype, **kw)
        a[...] = data
    root["f8_blosc"].attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]


def check_v3(path):
    # zarrhpc writes numpy structured types as zarr-extensions "struct", which zarr-python
    # 3.1 does not read (it wrote the legacy "structured"): those arrays are read with
    # zarrhpc there, and the group is opened without its consolidated metadata
    reads_struct = zarr_python_reads_struct()
    z = zarr.open_group(str(path), mode="r", zarr_format=3,
                        use_consolidated=None if reads_struct else False)
    assert z.attrs["title"] == "v2"
    for name, (data, _, with_ts, _) in V2_ARRAYS.items():
        struct = np.asarray(data).dtype.fields is not None
        got = z[name][...] if reads_struct or not struct else zarrhpc.open_array(
            str(path), path=name, mode="r")[...]
        assert same_bits(np.asarray(got).astype(data.dtype), data), name
        if with_ts:
            t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file",
                                                        "path": str(path / name)}}).result()
            assert same_bits(t.read().result().astype(data.dtype), data), name
    assert z["f8_blosc"].metadata.dimension_names == ("y", "x")


def test_v2_to_v3_copy(tmp_path):
    write_v2(tmp_path / "v2.zarr")
    out = zarrhpc.convert(tmp_path / "v2.zarr", tmp_path / "v3.zarr")
    assert out.zarr_format == 3
    check_v3(tmp_path / "v3.zarr")
    for name, (*_, plan) in V2_ARRAYS.items():
        if plan == "keep":  # the same keys and the same bytes
            key = "0.0" if name != "i2_big_F" else "0/0"
            if np.ndim(V2_ARRAYS[name][0]) == 1:
                key = "0"
            src = (tmp_path / "v2.zarr" / name / key).read_bytes()
            assert (tmp_path / "v3.zarr" / name / key).read_bytes() == src, name
    meta = json.loads((tmp_path / "v3.zarr" / "grp/struct_big/zarr.json").read_text())
    assert meta["data_type"]["name"] == "structured"  # what zarr-python 3.1 reads


def test_v2_to_v3_in_place_rewrites_only_metadata(tmp_path):
    store = tmp_path / "v2.zarr"
    write_v2(store)
    zarr.consolidate_metadata(str(store))
    chunk = store / "f8_blosc" / "0.0"
    before = chunk.read_bytes(), chunk.stat().st_mtime_ns
    zarrhpc.convert(store, in_place=True)
    assert (chunk.read_bytes(), chunk.stat().st_mtime_ns) == before  # not even rewritten
    assert not list(store.rglob(".zarray")) and not list(store.rglob(".zgroup"))
    assert not (store / ".zmetadata").exists()
    check_v3(store)
    root = json.loads((store / "zarr.json").read_text())  # consolidated in, consolidated out
    assert "grp/delta" in root["consolidated_metadata"]["metadata"]
    if zarr_python_reads_struct():
        assert zarr.open_consolidated(str(store), zarr_format=3)["grp/U3"].shape == (8,)


@pytest.mark.parametrize("builder", [spec_store, zarr_python2_store, root_array_store])
@pytest.mark.parametrize("in_place", [False, True])
def test_draft_to_v3(tmp_path, builder, in_place):
    src = tmp_path / "draft"
    expected = builder(src)
    names = {spec_store: "foo/bar", zarr_python2_store: "g/x", root_array_store: ""}
    name = names[builder]
    dst = None if in_place else tmp_path / "v3.zarr"
    zarrhpc.convert(src, dst, in_place=in_place)
    where = src if in_place else dst
    assert not (where / "meta").exists() or not in_place
    z = zarr.open_array(str(where), path=name, mode="r")
    np.testing.assert_array_equal(z[...], expected)
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file",
                                                "path": str(where / name)}}).result()
    np.testing.assert_array_equal(t.read().result(), expected)
    assert json.loads((where / "zarr.json").read_text())["zarr_format"] == 3


def test_cli_convert_with_progress(tmp_path, capsys):
    write_v2(tmp_path / "v2.zarr")
    assert main(["convert", str(tmp_path / "v2.zarr"), str(tmp_path / "v3.zarr"),
                 "--to", "v3", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert "converted to Zarr v3, verified" in out and "converting [" in err
    assert main(["convert", str(tmp_path / "v2.zarr"), str(tmp_path / "v3.zarr")]) == 2
    assert "already holds Zarr nodes" in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "v2.zarr"), "--in-place", "--no-verify"]) == 0
    check_v3(tmp_path / "v2.zarr")
