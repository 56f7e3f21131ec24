"""Write conformance, clause by clause, beyond the dtype x fill x option matrix of
tests/conformance/test_write_spec_*.py: what zarrhpc writes for hierarchy paths, node
names, v2 compressor objects and v3 raw types, checked against the v2 spec
(/work/shared/specs), the v3 core spec and what zarr-python 3 writes for the same call.
"""

import json
import warnings

import numcodecs
import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import MetadataError

zarr = pytest.importorskip("zarr")

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings("ignore::UserWarning")]


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _json_files(root):
    return {str(p.relative_to(root)): json.loads(p.read_text()) for p in root.rglob("*")
            if p.is_file() and p.name in ("zarr.json", ".zarray", ".zgroup", ".zattrs")}


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("name", ["a//b/c", "a\\b\\c", "/a/b/c/", "a/b//c"])
@pytest.mark.parametrize("kind", ["array", "group"])
def test_logical_paths_are_normalised(tmp_path, fmt, name, kind):
    """v2 spec, logical paths: backslashes become '/', leading/trailing '/' are stripped
    and runs of '/' collapse (MUST); groups are created at every ancestor path and the
    root (MUST). zarr-python applies the same to v3; the documents equal its own."""
    docs = {}
    for lib in (zarr, zarrhpc):
        root = tmp_path / lib.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = lib.open_group(str(root), mode="w", zarr_format=fmt)
            if kind == "array":
                g.create_array(name, shape=(3,), dtype="i2", compressors=None)
            else:
                g.create_group(name)
        docs[lib.__name__] = _json_files(root)
    meta = "zarr.json" if fmt == 3 else (".zarray" if kind == "array" else ".zgroup")
    assert f"a/b/c/{meta}" in docs["zarrhpc"]
    group_doc = "zarr.json" if fmt == 3 else ".zgroup"
    for ancestor in ("", "a/", "a/b/"):
        assert f"{ancestor}{group_doc}" in docs["zarrhpc"], ancestor
    assert docs["zarrhpc"] == docs["zarr"]
    assert zarrhpc.open_group(str(tmp_path / "zarrhpc"), mode="r")["a/b/c"] is not None


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("name", ["a/./b", "a/../b", "..", "."])
def test_dot_segments_are_refused(tmp_path, fmt, name):
    """v2 spec: a '.' or '..' segment MUST raise an error; v3 core: a node name must not
    consist only of periods. Nothing is written."""
    g = zarrhpc.open_group(str(tmp_path / "g"), mode="w", zarr_format=fmt)
    before = _files(tmp_path / "g")
    with pytest.raises(MetadataError, match="period|'\\.' or '\\.\\.'"):
        g.create_array(name, shape=(2,), dtype="u1")
    with pytest.raises(MetadataError):
        g.create_group(name)
    assert _files(tmp_path / "g") == before


@pytest.mark.parametrize("name", [".zarray", ".zgroup", ".zattrs", ".zmetadata", "a/.zarray"])
def test_v2_node_named_as_a_metadata_key_is_refused(tmp_path, name):
    """A v2 node named '.zarray' (etc.) would put its directory where its parent's
    metadata document lives (zarr-python 3 writes such a broken hierarchy)."""
    g = zarrhpc.open_group(str(tmp_path / "g"), mode="w", zarr_format=2)
    before = _files(tmp_path / "g")
    for make in (lambda: g.create_array(name, shape=(2,), dtype="u1"),
                 lambda: g.create_group(name)):
        with pytest.raises(MetadataError, match="v2 metadata document"):
            make()
    assert _files(tmp_path / "g") == before


def test_v3_node_name_zarr_json_is_refused(tmp_path):
    """v3 core, node names: 'zarr.json' would collide with the group's own document."""
    g = zarrhpc.open_group(str(tmp_path / "g"), mode="w")
    before = _files(tmp_path / "g")
    with pytest.raises(MetadataError):
        g.create_array("zarr.json", shape=(2,), dtype="u1")
    assert _files(tmp_path / "g") == before


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("name", ["__x", "a/__meta", "__xarray_dataarray_variable__"])
@pytest.mark.parametrize("kind", ["array", "group"])
def test_reserved_prefix_names_are_created_as_zarr_python(tmp_path, fmt, name, kind):
    """v3 core reserves the prefix '__'; zarr-python 3 creates such nodes (xarray's
    unnamed DataArray is '__xarray_dataarray_variable__'), and so does zarrhpc (the lead's
    decision): the same documents, and each library reads the other's."""
    docs = {}
    for lib in (zarr, zarrhpc):
        root = tmp_path / lib.__name__
        g = lib.open_group(str(root), mode="w", zarr_format=fmt)
        if kind == "array":
            g.create_array(name, shape=(3,), chunks=(2,), dtype="i2", fill_value=0)[:] = [
                1, 2, 3]
        else:
            g.create_group(name, attributes={"k": 1})
        docs[lib.__name__] = _json_files(root)
    assert docs["zarrhpc"] == docs["zarr"]
    for lib, other in ((zarr, zarrhpc), (zarrhpc, zarr)):
        node = lib.open_group(str(tmp_path / other.__name__), mode="r")[name]
        if kind == "array":
            np.testing.assert_array_equal(node[:], [1, 2, 3])
        else:
            assert dict(node.attrs) == {"k": 1}


@pytest.mark.parametrize("compressor", [
    numcodecs.Zstd(), numcodecs.Zstd(level=5), {"id": "zstd", "level": 1, "checksum": False},
    numcodecs.Zstd(checksum=True)], ids=["default", "level5", "dict", "checksum"])
def test_v2_zstd_checksum_false_is_left_out(tmp_path, compressor):
    """zarr-python 3 leaves zstd's ``checksum: false`` out of ``.zarray`` (numcodecs
    before 0.13 refuses the member: zarr-python issue 2647); zarrhpc writes the same
    document and chunk bytes zarr-python reads."""
    docs = {}
    for lib in (zarr, zarrhpc):
        path = tmp_path / lib.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.create_array(str(path), shape=(10,), chunks=(5,), dtype="<i4",
                                 zarr_format=2, compressors=compressor)
            a[...] = np.arange(10, dtype="<i4")
        docs[lib.__name__] = json.loads((path / ".zarray").read_text())
    comp = docs["zarrhpc"]["compressor"]
    checksum = isinstance(compressor, numcodecs.Zstd) and compressor.checksum
    assert ("checksum" in comp) == bool(checksum)
    assert comp == docs["zarr"]["compressor"]
    numcodecs.get_codec(dict(comp))  # numcodecs builds it from the written form
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = zarr.open_array(str(tmp_path / "zarrhpc"), mode="r")[...]
    assert back.tolist() == list(range(10))


@pytest.mark.parametrize("dtype", ["V1", "V3", "V8"])
def test_v3_raw_types_are_the_core_specs(tmp_path, dtype):
    """v3 core data types: raw bits are ``r<N>`` (N a multiple of 8), the fill value an
    array of N/8 integers in [0, 255]. zarr-python 3.1 writes its own ``raw_bytes``
    (registered nowhere in zarr-extensions, whose ``r`` entry points at the core spec) and
    cannot read ``r<N>``; zarrs reads ``r<N>``; zarrhpc reads both and writes the spec's."""
    n = np.dtype(dtype).itemsize
    a = zarrhpc.create_array(str(tmp_path / "r"), shape=(4,), chunks=(2,), dtype=dtype,
                             fill_value=bytes(range(1, n + 1)), compressors=None)
    data = np.frombuffer(bytes(range(100, 100 + 4 * n)), dtype=dtype)
    a[:2] = data[:2]
    doc = json.loads((tmp_path / "r" / "zarr.json").read_text())
    assert doc["data_type"] == f"r{8 * n}"
    assert doc["fill_value"] == list(range(1, n + 1))
    assert (tmp_path / "r" / "c" / "0").read_bytes() == data[:2].tobytes()
    got = zarrhpc.open_array(str(tmp_path / "r"), mode="r")[...]
    assert got.tobytes() == data[:2].tobytes() + bytes(range(1, n + 1)) * 2


@pytest.mark.parametrize("filters", [
    [numcodecs.CRC32C()], [numcodecs.Delta(dtype="<i4"), numcodecs.Blosc(cname="zstd", shuffle=2)],
    [numcodecs.Zstd(level=1)], [numcodecs.Delta(dtype="<i4"), numcodecs.CRC32C(),
                                numcodecs.Zlib(level=1)]],
    ids=["crc32c", "delta-blosc", "zstd", "delta-crc32c-zlib"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_v2_compressors_used_as_filters(tmp_path, filters, order):
    """v2 spec, filters: any codec may be a filter, applied before the compressor. A
    compressor or checksum as a filter works on the serialised chunk (was refused: the
    chain put a bytes->bytes codec before the bytes codec). Read what zarr-python writes;
    zarr-python reads what zarrhpc writes; the chunk bytes are the same."""
    data = (np.arange(63, dtype="<i4").reshape(9, 7) * 37) % 1000
    paths = {}
    for lib in (zarr, zarrhpc):
        path = tmp_path / lib.__name__
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = lib.create_array(str(path), shape=data.shape, chunks=(4, 3), dtype="<i4",
                                 zarr_format=2, filters=filters, compressors=None, order=order)
            a[...] = data
        paths[lib.__name__] = path
    assert zarrhpc.open_array(str(paths["zarr"]), mode="r")[...].tolist() == data.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = zarr.open_array(str(paths["zarrhpc"]), mode="r")[...]
    assert back.tolist() == data.tolist()
    if all(isinstance(f, (numcodecs.CRC32C, numcodecs.Delta)) for f in filters):
        # (compressors: other library versions may write other, equally valid frames)
        assert (paths["zarr"] / "1.1").read_bytes() == (paths["zarrhpc"] / "1.1").read_bytes()


def test_v3_variable_length_bytes_use_the_registered_name(tmp_path):
    """zarr-extensions registers variable-length bytes as ``bytes`` (fill value base64 or
    a list of byte values); zarr-python 3.1 writes its own ``variable_length_bytes`` (which
    zarrs does not read) and reads ``bytes`` as an alias: zarrhpc writes ``bytes``."""
    values = [b"a", b"", b"\x00z"]
    a = zarrhpc.create_array(str(tmp_path / "b.zarr"), shape=(3,), chunks=(2,), dtype=bytes,
                             fill_value=b"\x01")
    a[:2] = np.array(values[:2], dtype=object)
    doc = json.loads((tmp_path / "b.zarr" / "zarr.json").read_text())
    assert doc["data_type"] == "bytes" and doc["fill_value"] == "AQ=="
    assert doc["codecs"][0]["name"] == "vlen-bytes"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = zarr.open_array(str(tmp_path / "b.zarr"), mode="r")[...]
    assert list(got) == [b"a", b"", b"\x01"]
