"""The native engine (LocalStore files, memory sources) and the Python path agree with numpy.

Every read and write here runs three ways: the engine on a LocalStore (chunk files opened
by the engine), the engine fed by a MemoryStore's buffers, and the Python per-chunk path
(the engine switched off). All three must equal numpy, chunk by chunk, bit for bit.
"""

import os
import pathlib
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc import config
from zarrhpc.errors import CorruptChunkError, ReadOnlyError, StoreError
from zarrhpc.testing.fork import in_forked_child
from zarrhpc.testing.gil import progress_during
from zarrhpc.testing.strategies import basic_selections, shapes_and_chunks

CHAINS = {
    "none": dict(compressors=None),
    "gzip": dict(compressors={"name": "gzip", "configuration": {"level": 1}}),
    "zstd-crc": dict(compressors=[{"name": "zstd", "configuration": {"level": 1, "checksum": True}},
                                  {"name": "crc32c"}]),
    "blosc-bit": dict(compressors={"name": "blosc", "configuration": {
        "cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "blocksize": 0}}),
    "blosc-lz4": dict(compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "blocksize": 0}}),
    "transpose-big-crc": dict(
        filters=[{"name": "transpose", "configuration": {"order": "F"}}],
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
        compressors=[{"name": "crc32c"}]),
}
WAYS = ["local", "memory", "python"]


def assert_same_files(mine: pathlib.Path, theirs: pathlib.Path) -> None:
    """The same files under both roots, byte for byte (the engine against the Python path)."""
    stored = sorted(p.relative_to(mine) for p in mine.rglob("*") if p.is_file())
    assert stored == sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
    for rel in stored:
        assert (mine / rel).read_bytes() == (theirs / rel).read_bytes(), rel


def make(way, tmp_path, **kwargs):
    store = zarrhpc.MemoryStore() if way == "memory" else zarrhpc.LocalStore(tmp_path / "d")
    a = zarrhpc.create_array(store, overwrite=True, **kwargs)
    if way == "python":
        a._engine = None
    else:
        assert a._engine is not None, "expected a chain the engine knows"
    return a


def test_engine_is_used_for_native_chains(tmp_path):
    for chain in CHAINS.values():
        a = make("local", tmp_path, shape=(4, 4), chunks=(2, 2), dtype="f4", **chain)
        assert a._engine is not None


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("chain", sorted(CHAINS))
def test_roundtrip_every_way(tmp_path, way, chain):
    data = (np.arange(23 * 17 * 5, dtype="f8").reshape(23, 17, 5) * 1.5 - 99).astype("f4")
    a = make(way, tmp_path, shape=data.shape, chunks=(6, 4, 5), dtype="f4", fill_value=-1,
             **CHAINS[chain])
    a[...] = data
    np.testing.assert_array_equal(a[...], data)
    for sel in [(slice(3, 21, 2), slice(None, None, -3), 2), (5, 7, 3), (slice(None), 0),
                (slice(20, 2, -4), slice(1, 16), slice(0, 5, 2))]:
        np.testing.assert_array_equal(a[sel], data[sel])
    # partial writes merge with what is stored
    data[2:19, 3, ::2] = 7.25
    a[2:19, 3, ::2] = 7.25
    np.testing.assert_array_equal(a[...], data)
    out = np.empty_like(data)
    assert a.read(out=out) is out
    np.testing.assert_array_equal(out, data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(geom=shapes_and_chunks(), data=st.data(), way=st.sampled_from(["local", "memory"]),
       chain=st.sampled_from(sorted(CHAINS)), dtype=st.sampled_from(["u1", "i2", "f4", "c16"]))
def test_engine_matches_numpy(tmp_path_factory, geom, data, way, chain, dtype):
    shape, chunks = geom
    tmp = tmp_path_factory.mktemp("n")
    a = make(way, tmp, shape=shape, chunks=chunks, dtype=dtype, fill_value=3, **CHAINS[chain])
    expected = np.full(shape, 3, dtype=dtype)
    for _ in range(3):
        sel = data.draw(basic_selections(shape))
        value = data.draw(st.integers(0, 100))
        expected[sel] = value
        a[sel] = value
        np.testing.assert_array_equal(a[...], expected)
        read_sel = data.draw(basic_selections(shape))
        np.testing.assert_array_equal(a[read_sel], expected[read_sel])


def test_direct_decode_into_contiguous_result(tmp_path):
    # rows of whole chunks land contiguously in the result: decoded straight into it
    data = np.random.default_rng(1).random((8, 1024))
    for chain in ("none", "zstd-crc", "blosc-lz4"):
        a = make("local", tmp_path, shape=data.shape, chunks=(1, 1024), dtype="f8",
                 **CHAINS[chain])
        a[...] = data
        np.testing.assert_array_equal(a[...], data)
        np.testing.assert_array_equal(a[3], data[3])


def _rchar() -> int:
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("rchar")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs /proc/self/io")
def test_uncompressed_element_read_reads_only_what_it_needs(tmp_path):
    a = make("local", tmp_path, shape=(256, 256, 16), chunks=(128, 128, 16), dtype="f8",
             compressors=None)  # 2 MiB chunks
    a[...] = np.arange(a.size, dtype="f8").reshape(a.shape)
    with config.set(threads=1):
        before = _rchar()
        v = a[200, 3, 7]
        used = _rchar() - before
    assert v == np.ravel_multi_index((200, 3, 7), a.shape)
    assert used < 64 * 1024, f"read {used} bytes for one element of a 2 MiB chunk"


def test_fill_chunks_are_erased_and_directories_pruned(tmp_path):
    a = make("local", tmp_path, shape=(8, 8), chunks=(4, 4), dtype="i4", fill_value=5)
    a[...] = 1
    root = tmp_path / "d"
    assert (root / "c" / "1" / "1").is_file()
    a[4:, :] = 5  # two chunks become fill
    assert not (root / "c" / "1").exists()  # both files gone, directory pruned
    assert (root / "c" / "0" / "1").is_file()
    np.testing.assert_array_equal(a[4:, :], 5)
    a._write_empty_chunks = True
    a[4:, :4] = 5
    assert (root / "c" / "1" / "0").is_file()
    assert not any(p.name.startswith(".zhtmp-") for p in root.rglob("*"))


def test_corrupt_chunks_raise_naming_the_key(tmp_path):
    for chain in ("none", "gzip", "zstd-crc", "blosc-lz4", "transpose-big-crc"):
        a = make("local", tmp_path, shape=(8, 8), chunks=(4, 4), dtype="f4", **CHAINS[chain])
        a[...] = np.arange(64, dtype="f4").reshape(8, 8)
        path = tmp_path / "d" / "c" / "1" / "0"
        raw = path.read_bytes()
        bads = [raw[: len(raw) // 2], b""]
        if chain in ("gzip", "zstd-crc", "transpose-big-crc"):  # these carry a checksum
            bads.append(raw[:-1] + bytes([raw[-1] ^ 0xFF]))
        for bad in bads:
            path.write_bytes(bad)
            with pytest.raises(CorruptChunkError, match="c/1/0"):
                a[...]
            with pytest.raises(CorruptChunkError, match="c/1/0"):
                a[5, 1:3] = 1.0  # a partial write must read the chunk first
        path.write_bytes(raw)
        np.testing.assert_array_equal(a[4:, :4], np.arange(64, dtype="f4").reshape(8, 8)[4:, :4])


def test_multi_member_gzip_falls_back_to_python(tmp_path):
    import gzip

    a = make("local", tmp_path, shape=(4, 4), chunks=(4, 4), dtype="u1",
             **CHAINS["gzip"])
    data = np.arange(16, dtype="u1")
    (tmp_path / "d" / "c" / "0").mkdir(parents=True)
    (tmp_path / "d" / "c" / "0" / "0").write_bytes(
        gzip.compress(data[:6].tobytes()) + gzip.compress(data[6:].tobytes()))
    np.testing.assert_array_equal(a[...], data.reshape(4, 4))


def test_value_in_the_way_is_a_store_error(tmp_path):
    a = make("local", tmp_path, shape=(4, 4), chunks=(2, 2), dtype="f4", compressors=None)
    (tmp_path / "d" / "c").write_bytes(b"not a directory")
    with pytest.raises(StoreError, match="c/0/0"):
        a[...] = 1.0


def test_read_only_store_refuses_writes(tmp_path):
    a = make("local", tmp_path, shape=(4, 4), chunks=(2, 2), dtype="f4")
    a[...] = 2.0
    b = zarrhpc.open_array(zarrhpc.LocalStore(tmp_path / "d", read_only=True))
    with pytest.raises(ReadOnlyError):
        b[0, 0] = 1.0
    np.testing.assert_array_equal(b[...], 2.0)


def test_threads_and_concurrent_callers_agree(tmp_path):
    data = np.random.default_rng(2).random((64, 64, 16)).astype("f4")
    a = make("local", tmp_path, shape=data.shape, chunks=(8, 8, 16), dtype="f4",
             **CHAINS["blosc-lz4"])
    with config.set(threads=2):
        a[...] = data
    results = []

    def reader(sel):
        with config.set(threads=2):
            results.append(np.array_equal(a[sel], data[sel]))

    threads = [threading.Thread(target=reader, args=((slice(i, 64 - i),),)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 8
    with config.set(threads=1):
        np.testing.assert_array_equal(a[...], data)


def _child_read(path, queue):
    a = zarrhpc.open_array(path)
    queue.put(float(a[...].sum()))


def test_engine_works_in_a_forked_child(tmp_path):
    a = make("local", tmp_path, shape=(64, 64), chunks=(8, 8), dtype="f8")
    a[...] = 1.0
    with config.set(threads=2):
        a[...]  # start the pool's threads in the parent
    assert in_forked_child(_child_read, str(tmp_path / "d")) == 64 * 64


def test_engine_read_and_write_release_the_gil(tmp_path):
    data = np.random.default_rng(3).random((512, 512, 32)).astype("f4")  # 32 MiB
    a = make("local", tmp_path, shape=data.shape, chunks=(128, 128, 32), dtype="f4",
             **CHAINS["blosc-lz4"])
    with config.set(threads=1):
        assert progress_during(lambda: a.__setitem__(Ellipsis, data), repeats=3) > 0
        assert progress_during(lambda: a[...], repeats=3) > 0


def test_temp_names_match_localstore():
    from zarrhpc._kernels import engine
    from zarrhpc.storage import local

    assert (engine.TEMP_PREFIX, engine.TEMP_SUFFIX) == (local._TEMP_PREFIX, local._TEMP_SUFFIX)


def test_engine_crc32c_matches_the_library():
    import crc32c

    from zarrhpc._kernels import engine

    rng = np.random.default_rng(4)
    for n in (0, 1, 7, 8, 9, 4095, 100_000):
        buf = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert engine.crc32c(buf) == crc32c.crc32c(buf)


def _blosc_small_blocks(shuffle="shuffle"):
    # clevel 1: c-blosc picks 128 KiB blocks, so a 1 MiB chunk holds 8 of them
    return dict(compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 1, "shuffle": shuffle, "blocksize": 0}})


@pytest.mark.parametrize("shuffle", ["shuffle", "noshuffle", "bitshuffle"])
def test_blosc_partial_reads_of_multi_block_chunks(tmp_path, shuffle):
    rng = np.random.default_rng(5)
    data = np.cumsum(rng.standard_normal((256, 1024)), axis=1)  # compressible, not trivial
    a = make("local", tmp_path, shape=data.shape, chunks=(128, 1024), dtype="f8",
             **_blosc_small_blocks(shuffle))
    a[...] = data
    raw = (tmp_path / "d" / "c" / "1" / "0").read_bytes()
    assert int.from_bytes(raw[8:12], "little") < 2**20  # really several blocks
    for _ in range(300):
        i, j = int(rng.integers(0, 256)), int(rng.integers(0, 1024))
        assert a[i, j] == data[i, j]
        np.testing.assert_array_equal(a[i:i + 3, j:j + 5], data[i:i + 3, j:j + 5])


def test_blosc_partial_read_of_incompressible_chunk(tmp_path):
    data = np.random.default_rng(6).integers(0, 2**63, (64, 64), dtype="u8")
    a = make("local", tmp_path, shape=data.shape, chunks=(64, 64), dtype="u8",
             compressors={"name": "blosc", "configuration": {
                 "cname": "lz4", "clevel": 1, "shuffle": "noshuffle"}})
    a[...] = data
    for i, j in [(0, 0), (63, 63), (17, 42)]:
        assert a[i, j] == data[i, j]


def test_hostile_blosc_block_offsets_never_crash(tmp_path):
    data = np.cumsum(np.random.default_rng(7).standard_normal((128, 1024)), axis=1)
    a = make("local", tmp_path, shape=data.shape, chunks=(128, 1024), dtype="f8",
             **_blosc_small_blocks())
    a[...] = data
    path = tmp_path / "d" / "c" / "0" / "0"
    raw = bytes(path.read_bytes())
    for bad in (0xFFFFFFF0, 3, len(raw) - 1, 16, 0x7FFFFFFF):
        hostile = bytearray(raw)
        hostile[16 + 4 * 2: 16 + 4 * 3] = bad.to_bytes(4, "little")  # block 2's offset
        path.write_bytes(bytes(hostile))
        for read in (lambda: a[40, 10], lambda: a[...]):  # block 2 holds rows 32-47
            try:
                got = read()
            except CorruptChunkError as exc:
                assert "c/0/0" in str(exc)
            else:  # blosc has no checksum: a value may come back, but never a crash
                assert np.asarray(got).dtype == np.float64


@pytest.mark.parametrize("level", [1, 5, 9])
def test_engine_gzip_and_zlib_streams_are_standard(tmp_path, level):
    import gzip
    import zlib

    data = np.cumsum(np.random.default_rng(8).standard_normal((64, 64)), axis=0)
    a = make("local", tmp_path, shape=data.shape, chunks=(64, 64), dtype="f8",
             compressors={"name": "gzip", "configuration": {"level": level}})
    a[...] = data
    raw = (tmp_path / "d" / "c" / "0" / "0").read_bytes()
    assert gzip.decompress(raw) == data.astype("<f8").tobytes()  # the standard library reads it
    # and the engine reads what the standard library writes (zlib headers too, as the codec does)
    for blob in (gzip.compress(data.tobytes(), level), zlib.compress(data.tobytes(), level)):
        (tmp_path / "d" / "c" / "0" / "0").write_bytes(blob)
        np.testing.assert_array_equal(a[...], data)


def test_engine_without_zlib_ng_gives_the_same_data(tmp_path):
    import subprocess
    import sys

    code = (
        "import numpy as np, zarrhpc, sys\n"
        "d = np.arange(4096.0).reshape(64, 64)\n"
        "a = zarrhpc.create_array(sys.argv[1], shape=d.shape, chunks=(32, 32), dtype='f8',"
        " compressors={'name': 'gzip', 'configuration': {'level': 6}})\n"
        "a[...] = d\n"
        "assert (zarrhpc.open_array(sys.argv[1])[...] == d).all()\n"
    )
    env = dict(os.environ, ZH_NO_ZLIBNG="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "z")], env=env, check=True)
    b = zarrhpc.open_array(tmp_path / "z")  # zlib-written chunks, read here by zlib-ng
    np.testing.assert_array_equal(b[...], np.arange(4096.0).reshape(64, 64))


ROW_CHAINS = {  # uncompressed chains: whole chunks are written from the caller's rows
    "c-order": dict(compressors=None),
    "transposed": dict(filters=[{"name": "transpose", "configuration": {"order": [1, 0, 2]}}],
                       compressors=None),  # rows kept, outer dimensions in another order
    "transposed-rows": dict(filters=[{"name": "transpose", "configuration": {"order": [1, 2, 0]}}],
                            compressors=None),  # no rows left: gathered
    "big-endian": dict(serializer={"name": "bytes", "configuration": {"endian": "big"}},
                       compressors=None),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data(), chain=st.sampled_from(sorted(ROW_CHAINS)),
       dtype=st.sampled_from(["u1", "f8", "c16"]), order=st.sampled_from(["C", "F"]),
       strided=st.booleans())
def test_uncompressed_rows_written_without_a_copy_match_numpy(tmp_path_factory, data, chain,
                                                               dtype, order, strided):
    # long rows (1 KiB and more) take the writev-from-the-caller path; short rows of whole
    # chunks side by side are gathered in row groups (up to 8 chunks: more are split)
    itemsize = np.dtype(dtype).itemsize
    last = data.draw(st.sampled_from([1024 // itemsize, 2048 // itemsize + 3, 1, 3,
                                      max(1, 64 // itemsize)]), label="row")
    across = data.draw(st.integers(2, 3) if last * itemsize >= 1024 else st.integers(1, 10),
                       label="chunks across")
    chunks = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4)), last)
    shape = tuple(c * data.draw(st.integers(1, 3)) + data.draw(st.sampled_from([0, 0, 1]))
                  for c in chunks[:2]) + (last * across + data.draw(st.sampled_from([0, 0, 1])),)
    tmp = tmp_path_factory.mktemp("rows")
    way = data.draw(st.sampled_from(["local", "python"]), label="way")
    a = make(way, tmp, shape=shape, chunks=chunks, dtype=dtype, fill_value=0, **ROW_CHAINS[chain])
    rng = np.random.default_rng(0)
    expected = np.zeros(shape, dtype=dtype)
    for _ in range(2):
        if data.draw(st.sampled_from([True, True, False]), label="everything"):
            sel = (slice(None),) * 3  # whole chunks: the rows of value go out as they are
        else:
            sel = data.draw(basic_selections(shape), label="sel")
        target = expected[sel]
        value = (rng.integers(0, 200, size=np.shape(target))).astype(dtype)
        zeros = data.draw(st.sampled_from(["none", "all", "first rows"]), label="zeros")
        if zeros == "all":
            value[...] = 0  # fill: chunks are erased
        elif zeros == "first rows" and value.ndim:
            value[:1] = 0  # some chunks start with a fill row: all fill or not
        value = np.asarray(value, order=order)
        if strided and value.ndim:
            wide = np.zeros(value.shape[:-1] + (2 * value.shape[-1],), dtype=dtype)
            wide[..., ::2] = value
            value = wide[..., ::2]
        a[sel] = value
        expected[sel] = value
        np.testing.assert_array_equal(a[...], expected)
    if way == "local":
        ref = make("python", tmp_path_factory.mktemp("ref"), shape=shape, chunks=chunks,
                   dtype=dtype, fill_value=0, **ROW_CHAINS[chain])
        ref[...] = expected
        assert_same_files(tmp / "d", pathlib.Path(ref.store.root))


@pytest.mark.parametrize("chain", sorted(ROW_CHAINS))
@pytest.mark.parametrize("dtype", ["u1", "f8", "c16"])
def test_whole_chunks_from_the_callers_rows(tmp_path, chain, dtype):
    itemsize = np.dtype(dtype).itemsize
    chunks = (2, 3, 2048 // itemsize)
    shape = (4, 7, 2 * chunks[2] + 5)  # several rows per chunk, edge chunks too
    a = make("local", tmp_path, shape=shape, chunks=chunks, dtype=dtype, fill_value=0,
             **ROW_CHAINS[chain])
    value = (np.arange(np.prod(shape)) % 251 + 1).astype(dtype).reshape(shape)
    value[2:4, 3:6, : chunks[2]] = 0  # one chunk is all fill: erased, not stored
    a[...] = value
    np.testing.assert_array_equal(a[...], value)
    assert not (tmp_path / "d" / "c" / "1" / "1" / "0").exists()
    ref = make("python", tmp_path / "ref", shape=shape, chunks=chunks, dtype=dtype,
               fill_value=0, **ROW_CHAINS[chain])
    ref[...] = value
    assert_same_files(tmp_path / "d", pathlib.Path(ref.store.root))


def test_row_groups_of_short_rows(tmp_path):
    # 64-byte rows, 11 whole chunks and an edge chunk across: row groups of 8 and 3
    chunks = (4, 5, 8)
    shape = (8, 10, 8 * 11 + 3)
    a = make("local", tmp_path, shape=shape, chunks=chunks, dtype="f8", fill_value=0,
             compressors=None)
    value = np.arange(1, np.prod(shape) + 1, dtype="f8").reshape(shape)
    a[...] = value
    value[0, 0, 16:24] = 0  # chunk (0, 0, 2) starts with a fill row, is not all fill
    value[0:4, 5:10, 24:32] = 0  # chunk (0, 1, 3) is all fill: its file goes
    value[5:8, 0:5, 32:40] = 0  # chunk (1, 0, 4): fill but for its first row
    value[4, 0:5, 32:40] = 0
    value[4, 0, 32] = 7
    a[...] = value
    np.testing.assert_array_equal(a[...], value)
    root = tmp_path / "d"
    assert not (root / "c" / "0" / "1" / "3").exists()
    assert (root / "c" / "0" / "0" / "2").exists() and (root / "c" / "1" / "0" / "4").exists()
    for coords in [(0, 0, 2), (1, 0, 4), (1, 1, 10), (0, 0, 7), (0, 0, 8)]:
        box = tuple(slice(i * c, (i + 1) * c) for i, c in zip(coords, chunks))
        stored = (root / "c" / "/".join(map(str, coords))).read_bytes()
        assert stored == np.ascontiguousarray(value[box]).tobytes(), coords
    # the same bytes as chunk by chunk, from a value whose outer strides are negative
    b = make("local", tmp_path / "flipped", shape=shape, chunks=chunks, dtype="f8",
             fill_value=0, compressors=None)
    b[...] = np.flip(np.flip(value, 0).copy(), 0)
    np.testing.assert_array_equal(b[...], value)
    assert_same_files(root, tmp_path / "flipped" / "d")


def test_row_group_failure_names_the_chunk_and_leaves_no_temporary_file(tmp_path):
    a = make("local", tmp_path, shape=(4, 40), chunks=(4, 8), dtype="f8", fill_value=0,
             compressors=None)
    (tmp_path / "d" / "c" / "0" / "2" / "x").mkdir(parents=True)  # a prefix where a value goes
    with pytest.raises(StoreError, match="c/0/2"):
        a[...] = np.arange(1.0, 161.0).reshape(4, 40)
    assert not [p for p in (tmp_path / "d").rglob("*") if ".zhtmp-" in p.name]
    assert (tmp_path / "d" / "c" / "0" / "2" / "x").is_dir()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data(), dtype=st.sampled_from(["u1", "i2", "f8", "c16"]),
       ndim=st.integers(2, 4))
def test_row_groups_match_numpy_and_the_python_path(tmp_path_factory, data, dtype, ndim):
    # uncompressed chunks with short rows, several whole chunks across the last axis
    itemsize = np.dtype(dtype).itemsize
    last = data.draw(st.integers(1, max(1, 2047 // itemsize)), label="row")
    chunks = tuple(data.draw(st.integers(1, 3)) for _ in range(ndim - 1)) + (last,)
    shape = tuple(c * data.draw(st.integers(1, 2)) + data.draw(st.sampled_from([0, 1]))
                  for c in chunks[:-1]) + (
        last * data.draw(st.integers(2, 10)) + data.draw(st.sampled_from([0, 1])),)
    tmp = tmp_path_factory.mktemp("rowgroups")
    a = make("local", tmp, shape=shape, chunks=chunks, dtype=dtype, fill_value=0,
             compressors=None)
    expected = np.zeros(shape, dtype=dtype)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    for _ in range(2):
        if data.draw(st.booleans(), label="everything"):
            sel = (slice(None),) * ndim
        else:
            sel = data.draw(basic_selections(shape), label="sel")
        target = expected[sel]
        value = rng.integers(1, 200, size=np.shape(target)).astype(dtype)
        # fill (zero) elements here and there: some chunks all fill, some start with fill
        value[rng.random(np.shape(target)) < data.draw(st.sampled_from([0.0, 0.5, 0.97, 1.0]))] = 0
        a[sel] = value
        expected[sel] = value
    np.testing.assert_array_equal(a[...], expected)
    ref = make("python", tmp_path_factory.mktemp("ref"), shape=shape, chunks=chunks,
               dtype=dtype, fill_value=0, compressors=None)
    ref[...] = expected
    assert_same_files(tmp / "d", pathlib.Path(ref.store.root))
