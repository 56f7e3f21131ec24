"""N5 containers read as Zarr: against tensorstore's n5 driver (the stores it writes, values
compared with the transpose of its view), against blocks laid out as N5 (Java), z5py and
zarr-python 2 write them (built here from the N5 format description: big-endian header,
short edge blocks, varlength and object modes, lz4-java frames, old attribute forms),
corrupt blocks refused, the container read only."""

import bz2
import gzip
import json
import lzma
import struct
import zlib

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError, MetadataError, ReadOnlyError
from zarrhpc.storage import N5Store

ts = pytest.importorskip("tensorstore")

COMPRESSIONS = [{"type": "raw"}, {"type": "gzip"}, {"type": "gzip", "useZlib": True},
                {"type": "bzip2"}, {"type": "xz"},
                {"type": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1},
                {"type": "zstd"}]
DTYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
          "float32", "float64"]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def _ts_write(path, values, block, comp, missing=()):
    t = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(path)},
                 "metadata": {"dimensions": list(values.shape), "blockSize": block,
                              "dataType": str(values.dtype), "compression": comp},
                 "create": True}).result()
    t[...] = values
    for sel in missing:  # leave some blocks unwritten: they read as 0
        t[sel] = 0
    return t


@pytest.mark.parametrize("comp", COMPRESSIONS, ids=lambda c: c["type"] + str(c.get("useZlib", "")))
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensorstore_n5_stores_read_as_its_transpose(tmp_path, comp, dtype):
    values = _values((13, 7, 5), dtype)
    t = _ts_write(tmp_path / "d.n5", values, [4, 3, 2], comp)
    a = zarrhpc.open(tmp_path / "d.n5", mode="r")
    assert isinstance(a.store, N5Store) and a.shape == (5, 7, 13) and a.chunks == (2, 3, 4)
    assert a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a[...], t.read().result().transpose())
    np.testing.assert_array_equal(a[1:4, ::2, 3:11], values.transpose()[1:4, ::2, 3:11])
    np.testing.assert_array_equal(a.oindex[[0, 4], :, [1, 12]],
                                  values.transpose()[np.ix_([0, 4], range(7), [1, 12])])


def test_tensorstore_hierarchy_groups_attributes_and_missing_blocks(tmp_path):
    root = tmp_path / "c.n5"
    values = _values((10, 6), "uint16", 1)
    for name in ("raw/s0", "raw/s1", "labels"):
        t = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(root / name)},
                     "metadata": {"dimensions": [10, 6], "blockSize": [4, 4],
                                  "dataType": "uint16", "compression": {"type": "gzip"}},
                     "create": True}).result()
        t[:4, :4] = values[:4, :4]  # only block (0, 0) is written
    (root / "attributes.json").write_text(json.dumps({"n5": "4.0.0", "title": "t"}))
    attrs = json.loads((root / "raw/s0/attributes.json").read_text())
    attrs["resolution"] = [1, 2]
    (root / "raw/s0/attributes.json").write_text(json.dumps(attrs))
    g = zarrhpc.open(root, mode="r")
    assert isinstance(g, zarrhpc.Group) and dict(g.attrs) == {"title": "t"}
    assert sorted(g.group_keys()) == ["raw"] and sorted(g.array_keys()) == ["labels"]
    s0 = g["raw/s0"]
    assert dict(s0.attrs) == {"resolution": [1, 2]}
    expected = np.zeros((10, 6), "uint16")
    expected[:4, :4] = values[:4, :4]
    np.testing.assert_array_equal(s0[...], expected.T)
    assert sorted(g["raw"].array_keys()) == ["s0", "s1"]
    with pytest.raises(ReadOnlyError):
        s0[0, 0] = 1
    with pytest.raises(ReadOnlyError):
        g.create_group("x")


# -- blocks as other writers lay them out ---------------------------------------------------

def _lz4_frames(data, frame=7):
    from numcodecs.lz4 import compress
    out = b""
    for i in range(0, len(data), frame):
        part = data[i:i + frame]
        packed = compress(part)[4:]  # numcodecs prefixes the decoded size
        out += struct.pack("<8sBiii", b"LZ4Block", 0x20 | 5, len(packed), len(part), 0) + packed
    return out + struct.pack("<8sBiii", b"LZ4Block", 0x10, 0, 0, 0)


def _compress(kind, data):
    import numcodecs
    import zstandard
    return {"raw": lambda b: b, "gzip": gzip.compress, "zlib": zlib.compress,
            "bzip2": bz2.compress, "xz": lzma.compress, "lz4": _lz4_frames,
            "blosc": lambda b: numcodecs.Blosc("zstd", 3, 2).encode(b),
            "zstd": lambda b: zstandard.ZstdCompressor().compress(b),
            "lz4-numcodecs": lambda b: numcodecs.LZ4(1).encode(b),
            "lz4-frame": lambda b: pytest.importorskip("lz4.frame").compress(b),
            "lzma-alone": lambda b: lzma.compress(b, format=lzma.FORMAT_ALONE, preset=1),
            }[kind](data)


def _block(values_zarr_order, kind, mode=0):
    """An N5 block: values given in the Zarr view's C order (N5's axes reversed)."""
    sizes = values_zarr_order.shape[::-1]
    data = _compress(kind, values_zarr_order.astype(values_zarr_order.dtype.newbyteorder(">"))
                     .tobytes())
    if mode == 2:
        return struct.pack(">H", 2) + data
    head = struct.pack(f">HH{len(sizes)}I", mode, len(sizes), *sizes)
    if mode == 1:
        head += struct.pack(">i", values_zarr_order.size)
    return head + data


def _container(root, dims, block, dtype, comp, values, mode=0, short_edges=True, old=False):
    """Write an N5 dataset the way Java's N5 writer does (short edge blocks by default)."""
    root.mkdir(parents=True)
    kind = comp.pop("_kind", None) or ("zlib" if comp.get("useZlib") else comp["type"])
    attrs = {"dimensions": dims, "blockSize": block, "dataType": dtype}
    if old:  # N5 format 0.x: compressionType at the top level
        attrs["compressionType"] = comp["type"]
    else:
        attrs["compression"] = comp
    (root / "attributes.json").write_text(json.dumps({"n5": "2.5.1", **attrs}))
    view = values.transpose()  # the Zarr view: N5 axes reversed
    zblock = block[::-1]
    grid = [-(-d // b) for d, b in zip(dims, block)]
    for idx in np.ndindex(*grid):  # N5 order of block indices
        zidx = idx[::-1]
        sl = tuple(slice(i * b, (i + 1) * b) for i, b in zip(zidx, zblock))
        part = view[sl]
        if not short_edges and part.shape != tuple(zblock):
            full = np.zeros(zblock, view.dtype)
            full[tuple(slice(0, n) for n in part.shape)] = part
            part = full
        p = root.joinpath(*map(str, idx))
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(_block(np.ascontiguousarray(part), kind, mode))


@pytest.mark.parametrize("kind", ["raw", "gzip", "zlib", "bzip2", "xz", "lz4", "blosc", "zstd"])
@pytest.mark.parametrize("short_edges", [True, False], ids=["java-short", "padded"])
def test_blocks_as_java_n5_and_z5py_write_them(tmp_path, kind, short_edges):
    comp = {"type": "gzip", "useZlib": True} if kind == "zlib" else {"type": kind}
    if kind == "blosc":  # n5-blosc writes its parameters; tensorstore requires them
        comp.update(cname="zstd", clevel=3, shuffle=2, blocksize=0)
    values = _values((11, 5, 3), "int32", 2)
    _container(tmp_path / "d", [11, 5, 3], [4, 2, 2], "int32", comp, values,
               short_edges=short_edges)
    a = zarrhpc.open(tmp_path / "d", mode="r")
    np.testing.assert_array_equal(a[...], values.transpose())
    if kind in ("raw", "gzip", "bzip2", "xz", "blosc", "zstd"):  # tensorstore agrees
        t = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(tmp_path / "d")}},
                    read=True).result()
        np.testing.assert_array_equal(a[...], t.read().result().transpose())


@pytest.mark.parametrize("mode", [1, 2])
def test_varlength_and_object_mode_blocks(tmp_path, mode):
    values = _values((6, 4), "float64", 3)
    _container(tmp_path / "d", [6, 4], [3, 2], "float64", {"type": "gzip"}, values,
               mode=mode, short_edges=False)
    np.testing.assert_array_equal(zarrhpc.open(tmp_path / "d", mode="r")[...], values.T)


def test_old_attribute_form_and_store_object(tmp_path):
    values = _values((9, 4), "uint8", 4)
    _container(tmp_path / "d", [9, 4], [4, 4], "uint8", {"type": "bzip2"}, values, old=True)
    (tmp_path / "d" / "attributes.json").write_text(json.dumps({
        "dimensions": [9, 4], "blockSize": [4, 4], "dataType": "uint8",
        "compressionType": "bzip2", "blockSize_note": 1}))
    a = zarrhpc.open_array(N5Store(tmp_path / "d"), mode="r")
    np.testing.assert_array_equal(a[...], values.T)
    assert dict(a.attrs) == {"blockSize_note": 1}


def test_n5_default_codec_in_n5_axis_order(tmp_path):
    """zarr-extensions' n5_default form (a full transpose first) over tensorstore's blocks:
    the array then has N5's axis order, equal to tensorstore's own view."""
    values = _values((9, 5, 4), "int16", 5)
    t = _ts_write(tmp_path / "d", values, [4, 2, 3], {"type": "gzip"})
    (tmp_path / "d" / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [9, 5, 4], "data_type": "int16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 2, 3]}},
        "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "n5_default", "configuration": {"codecs": [
            {"name": "transpose", "configuration": {"order": [2, 1, 0]}},
            {"name": "bytes", "configuration": {"endian": "big"}},
            {"name": "gzip", "configuration": {"level": 5}}]}}]}))
    a = zarrhpc.open_array(tmp_path / "d", mode="r+")
    np.testing.assert_array_equal(a[...], t.read().result())
    a[1:6, 2:4, 0:3] = values[1:6, 2:4, 0:3] + 1  # this form also writes (whole blocks)
    np.testing.assert_array_equal(t.read().result()[1:6, 2:4, 0:3], values[1:6, 2:4, 0:3] + 1)


@pytest.mark.parametrize("damage", ["empty", "mode", "ndim", "larger", "count", "short_data",
                                    "lz4_length"])
def test_corrupt_blocks_are_refused(tmp_path, damage):
    values = _values((6, 4), "uint16", 6)
    kind = "lz4" if damage == "lz4_length" else "raw"
    _container(tmp_path / "d", [6, 4], [3, 2], "uint16", {"type": kind}, values)
    block = tmp_path / "d" / "0" / "0"
    raw = bytearray(block.read_bytes())
    if damage == "empty":
        raw = raw[:1]
    elif damage == "mode":
        raw[:2] = struct.pack(">H", 7)
    elif damage == "ndim":
        raw[2:4] = struct.pack(">H", 3)
    elif damage == "larger":
        raw[4:8] = struct.pack(">I", 99)
    elif damage == "count":
        raw[:2] = struct.pack(">H", 1)
        raw[12:12] = struct.pack(">i", 1000)
    elif damage == "short_data":
        raw = raw[:-2]
    else:
        raw[12 + 13:12 + 17] = struct.pack("<i", 1 << 30)
    block.write_bytes(bytes(raw))
    with pytest.raises(CorruptChunkError, match="0/0"):
        zarrhpc.open(tmp_path / "d", mode="r")[...]


def test_bad_attributes_are_named(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "attributes.json").write_text(json.dumps({
        "n5": "4.0.0", "dimensions": [4], "blockSize": [2], "dataType": "float32",
        "compression": {"type": "jpeg"}}))
    with pytest.raises(MetadataError, match="attributes.json.*jpeg"):
        zarrhpc.open(tmp_path / "d", mode="r")
    (tmp_path / "d" / "attributes.json").write_text(json.dumps({
        "n5": "4.0.0", "dimensions": [4, 3], "blockSize": [2], "dataType": "float32"}))
    with pytest.raises(MetadataError, match="blockSize"):
        zarrhpc.open(tmp_path / "d", mode="r")


def test_zarr_stores_are_not_taken_for_n5(tmp_path):
    a = zarrhpc.create_array(tmp_path / "z", shape=(3,), dtype="i4", zarr_format=2)
    (tmp_path / "z" / "attributes.json").write_text(json.dumps({"n5": "4.0.0"}))
    assert not isinstance(zarrhpc.open(tmp_path / "z", mode="r").store, N5Store)
    a[...] = 5
    assert zarrhpc.open(tmp_path / "z", mode="r")[0] == 5


@pytest.mark.parametrize(("comp", "kind"), [
    ({"type": "lz4", "acceleration": 1}, "lz4-numcodecs"),
    ({"type": "lz4", "blockSize": 65536}, "lz4-frame"),  # pyn5 / the Rust n5 crate
    ({"type": "lzma", "format": 2, "check": -1, "preset": 1, "filters": None}, "lzma-alone"),
    ({"type": "zstd", "level": 1, "checksum": False}, "zstd"),
    ({"type": "gzip", "level": 1, "useZlib": True}, "zlib"),
    ({"type": "bzip2", "blockSize": 9}, "bzip2"),
    ({"type": "xz", "preset": 6}, "xz"),
    ({"type": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}, "blosc"),
])
def test_blocks_as_zarr_python_2_n5store_writes_them(tmp_path, comp, kind):
    """zarr-python 2's N5Store: whole (padded) edge blocks, "n5" in a top-level array's
    attributes, numcodecs compressors under N5 type names (lz4 in numcodecs' framing)."""
    values = _values((9, 6), "float32", 7)
    _container(tmp_path / "d", [9, 6], [4, 4], "float32", {**comp, "_kind": kind}, values,
               short_edges=False)
    attrs = json.loads((tmp_path / "d" / "attributes.json").read_text())
    attrs["n5"] = "2.0.0"
    (tmp_path / "d" / "attributes.json").write_text(json.dumps(attrs))
    a = zarrhpc.open(tmp_path / "d", mode="r")
    np.testing.assert_array_equal(a[...], values.T)
    assert dict(a.attrs) == {}


def test_unknown_lz4_framing_and_bad_lengths_are_refused(tmp_path):
    values = _values((4, 4), "uint8", 8)
    _container(tmp_path / "d", [4, 4], [4, 4], "uint8", {"type": "lz4", "_kind": "lz4-numcodecs"},
               values)
    block = tmp_path / "d" / "0" / "0"
    raw = bytearray(block.read_bytes())
    raw[12:16] = struct.pack("<i", 99)  # numcodecs' size prefix after the 12-byte header
    block.write_bytes(bytes(raw))
    with pytest.raises(CorruptChunkError, match="n5.lz4"):
        zarrhpc.open(tmp_path / "d", mode="r")[...]


@pytest.mark.parametrize("comp", [{"type": "gzip"}, {"type": "raw"}])
def test_tensorstore_axis_order_view(tmp_path, comp):
    """N5Store(axis_order="n5") is tensorstore's view itself, not its transpose."""
    import pickle

    values = _values((13, 7, 5), "int32", 9)
    t = _ts_write(tmp_path / "d.n5", values, [4, 3, 2], comp)
    store = N5Store(tmp_path / "d.n5", axis_order="n5")
    a = zarrhpc.open_array(store, mode="r")
    assert a.shape == (13, 7, 5) and a.chunks == (4, 3, 2)
    np.testing.assert_array_equal(a[...], t.read().result())
    np.testing.assert_array_equal(a[3:11, 1:6:2, 4], values[3:11, 1:6:2, 4])
    b = pickle.loads(pickle.dumps(a))
    assert b.store == store and b.store != N5Store(tmp_path / "d.n5")
    np.testing.assert_array_equal(b[...], values)
    with pytest.raises(ValueError, match="axis_order"):
        N5Store(tmp_path / "d.n5", axis_order="F")
