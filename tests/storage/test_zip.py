"""ZipStore: the shared conformance suite plus what is particular to a zip file."""

from __future__ import annotations

import gc
import io
import os
import pickle
import struct
import subprocess
import sys
import warnings
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc.storage._zipformat as zf
from zarrhpc.errors import InvalidKeyError, ReadOnlyError, StoreError, UnsupportedError
from zarrhpc.storage import ZipStore
from zarrhpc.testing.store import StoreTests


class TestZipStore(StoreTests):
    def make_store(self, tmp_path):
        return ZipStore(tmp_path / "store.zip", mode="w")


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data.zip"


def read_with_zipfile(path, stored=True) -> dict[str, bytes]:
    """What Python's zipfile finds in the archive (it checks every CRC-32 too)."""
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        names = z.namelist()
        assert len(names) == len(set(names)), f"duplicate entries: {names}"
        if stored:
            assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        return {name: z.read(name) for name in names}


SAMPLE = {"zarr.json": b"{}", "a/c/0/0": bytes(range(256)) * 40, "é/ü": b"utf-8 name", "e": b""}


def write_sample(path, **kwargs):
    with ZipStore(path, mode="w", **kwargs) as store:
        for key, value in SAMPLE.items():
            store.set(key, value)


# -- the file on disk -------------------------------------------------------------------


def test_file_is_a_zip_of_stored_entries(path):
    write_sample(path)
    assert read_with_zipfile(path) == SAMPLE
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("é/ü")
        assert info.flag_bits & 0x800  # UTF-8 name flag
        assert z.getinfo("zarr.json").flag_bits & 0x800 == 0


def test_empty_store_is_an_empty_zip(path):
    ZipStore(path, mode="w").close()
    assert read_with_zipfile(path) == {}
    assert path.stat().st_size == 22  # just the end of central directory record
    with ZipStore(path) as store:
        assert list(store.list()) == []


def test_overwrite_and_erase_leave_one_entry_per_key(path):
    with ZipStore(path, mode="w", compact=False) as store:
        store.set("k", b"first")
        store.set("k", b"second")
        store.set("gone", b"x")
        store.set("d/1", b"1")
        store.set("d/2", b"2")
        store.erase("gone")
        store.erase_prefix("d/")
        store.set("d/3", b"3")
    assert read_with_zipfile(path) == {"k": b"second", "d/3": b"3"}
    with ZipStore(path) as store:
        assert sorted(store.list()) == ["d/3", "k"]
        assert bytes(store.get("k")) == b"second"


def test_compaction_reclaims_overwritten_space(tmp_path):
    big = os.urandom(100_000)
    sizes = {}
    for compact in (False, "auto", True):
        p = tmp_path / f"{compact}.zip"
        with ZipStore(p, mode="w", compact=compact) as store:
            store.set("small", b"s" * 10)
            for _ in range(5):
                store.set("big", big)
            store.set("small", b"t" * 10)
        assert read_with_zipfile(p) == {"big": big, "small": b"t" * 10}
        sizes[compact] = p.stat().st_size
    assert sizes[False] > 5 * len(big)
    assert len(big) < sizes["auto"] == sizes[True] < len(big) + 300


def test_auto_compaction_leaves_small_waste(tmp_path):
    # a rewritten zarr.json beside large chunks is not worth copying the archive for
    sizes = {}
    for compact in ("auto", True):
        p = tmp_path / f"{compact}.zip"
        with ZipStore(p, mode="w", compact=compact) as store:
            store.set("c/0", os.urandom(50_000))
            store.set("zarr.json", b"{}" * 100)
            store.set("zarr.json", b"{}")
        sizes[compact] = p.stat().st_size
    # the dead entry, and the empty archive's end record written when it was created
    assert sizes["auto"] - sizes[True] == 30 + len("zarr.json") + 200 + 22


def test_flush_makes_a_valid_zip_while_open(path):
    store = ZipStore(path, mode="w")
    store.set("a", b"1")
    store.flush()
    assert read_with_zipfile(path) == {"a": b"1"}
    store.set("b", b"2")  # written over the directory, which is written again
    store.flush()
    assert read_with_zipfile(path) == {"a": b"1", "b": b"2"}
    store.close()
    with pytest.raises(ReadOnlyError):
        ZipStore(path).flush()


def test_durable_fsyncs_on_close(path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    with ZipStore(path, mode="w", durable=True) as store:
        store.set("a", b"1")
    assert synced
    synced.clear()
    with ZipStore(path, mode="a") as store:
        store.set("b", b"1")
    assert synced == []


def test_zip64_records(path, monkeypatch):
    # Lower the ZIP64 thresholds so a small archive needs every ZIP64 record.
    monkeypatch.setattr(zf, "ZIP64_LIMIT", 100)
    monkeypatch.setattr(zf, "COUNT_LIMIT", 3)
    values = {f"c/{i}": bytes([i]) * (50 + 40 * i) for i in range(6)}
    with ZipStore(path, mode="w") as store:
        for key, value in values.items():
            store.set(key, value)
    raw = path.read_bytes()
    assert raw.count(b"PK\x06\x06") == 1 and raw.count(b"PK\x06\x07") == 1
    assert read_with_zipfile(path) == values
    monkeypatch.undo()
    with ZipStore(path) as store:
        assert {k: bytes(store.get(k)) for k in store.list()} == values


def test_reads_zip64_written_by_zipfile(path):
    with zipfile.ZipFile(path, "w") as z:
        for i in range(3):
            with z.open(f"c/{i}", "w", force_zip64=True) as f:
                f.write(bytes([i]) * 1000)
    with ZipStore(path) as store:
        assert sorted(store.list()) == ["c/0", "c/1", "c/2"]
        assert bytes(store.get("c/2")) == b"\x02" * 1000


# -- reads --------------------------------------------------------------------------------


def test_stored_entries_are_read_not_mapped(path):
    """pread, never mmap: a file truncated under a mapping kills readers with SIGBUS."""
    write_sample(path)
    with ZipStore(path) as store:
        value = store.get("a/c/0/0")
        assert type(value) is bytes
        assert bytes(value) == SAMPLE["a/c/0/0"]
        (part,) = store.get_partial_values([("a/c/0/0", 300, 10)])
        assert bytes(part) == SAMPLE["a/c/0/0"][300:310]
        store._archive.fd  # noqa: B018 - the archive is open, and has no mapping
        assert not hasattr(store._archive, "map")
    # buffers stay valid after the store is closed
    assert bytes(value) == SAMPLE["a/c/0/0"]


def test_views_survive_compaction(path):
    store = ZipStore(path, mode="w", compact=True)
    store.set("k", b"old" * 100)
    store.set("k", b"new" * 100)
    value = store.get("k")
    store.close()  # compacts: a new file is renamed over the old one
    assert bytes(value) == b"new" * 100
    assert read_with_zipfile(path) == {"k": b"new" * 100}


def test_reads_deflated_bzip2_and_directory_entries(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("zarr.json", b'{"a": 1}' * 50, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("c/0", b"x" * 5000, compress_type=zipfile.ZIP_BZIP2)
        z.writestr("c/", b"")  # a directory entry: not a key
        z.writestr("../evil", b"no")  # no key reaches it
        z.writestr("s", b"plain")
    with ZipStore(path) as store:
        assert sorted(store.list()) == ["c/0", "s", "zarr.json"]
        assert bytes(store.get("zarr.json")) == b'{"a": 1}' * 50
        assert bytes(store.get("c/0")) == b"x" * 5000
        assert store.get_partial_values([("c/0", -3, None), ("zarr.json", 0, 8)]) == [
            b"xxx", b'{"a": 1}',
        ]


def test_unsupported_compression_and_encryption(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("lz", b"data" * 100, compress_type=zipfile.ZIP_LZMA)
        z.writestr("ok", b"fine")
    raw = bytearray(path.read_bytes())
    with ZipStore(path) as store:
        with pytest.raises(UnsupportedError, match=r"data\.zip: entry 'lz'.*method 14"):
            store.get("lz")
        assert store.get("ok") == memoryview(b"fine")
    # set the "encrypted" flag of "ok" in its central directory record
    cd = raw.rindex(b"PK\x01\x02")
    raw[cd + 8] |= 1
    path.write_bytes(bytes(raw))
    with ZipStore(path) as store, pytest.raises(UnsupportedError, match="'ok'.*encrypted"):
        store.get("ok")


def test_reads_data_descriptors_and_prepended_data(path):
    class Unseekable(io.RawIOBase):  # makes zipfile write data descriptors (flag bit 3)
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)

    sink = Unseekable()
    with zipfile.ZipFile(sink, "w") as z:
        z.writestr("a", b"alpha", compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("b", b"beta")
    # A self-extractor stub before the archive shifts every offset.
    path.write_bytes(b"#!/bin/sh\nexit 0\n" * 10 + bytes(sink.data))
    with ZipStore(path) as store:
        assert bytes(store.get("a")) == b"alpha"
        assert bytes(store.get("b")) == b"beta"
    with ZipStore(path, mode="a") as store:
        store.set("c", b"gamma")
    assert read_with_zipfile(path, stored=False) == {"a": b"alpha", "b": b"beta", "c": b"gamma"}


def test_duplicate_entries_newest_wins(path):
    # zarr-python's ZipStore (zipfile) writes a key twice as two entries
    with zipfile.ZipFile(path, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name"
        z.writestr("k", b"old")
        z.writestr("k", b"new")
    with ZipStore(path) as store:
        assert list(store.list()) == ["k"]
        assert bytes(store.get("k")) == b"new"
    with ZipStore(path, mode="a", compact=True) as store:
        store.set("j", b"1")
    assert read_with_zipfile(path) == {"k": b"new", "j": b"1"}


# -- modes -------------------------------------------------------------------------------


def test_modes(path):
    with pytest.raises(StoreError, match=r"data\.zip.*mode 'r'") as info:
        ZipStore(path)
    assert isinstance(info.value, OSError) and info.value.errno == 2
    write_sample(path)
    with pytest.raises(StoreError, match=r"data\.zip.*mode 'x'"):
        ZipStore(path, mode="x")
    with ZipStore(path) as store:
        assert store.read_only and store.mode == "r"
        assert str(store.path) == str(path.resolve())
        with pytest.raises(ReadOnlyError, match="'k'"):
            store.set("k", b"1")
    with ZipStore(path, mode="a") as store:
        assert not store.read_only
        store.set("new", b"1")
    assert read_with_zipfile(path) == {**SAMPLE, "new": b"1"}
    with ZipStore(path, mode="a", read_only=True) as store:
        assert store.read_only and bytes(store.get("new")) == b"1"
    with ZipStore(path, mode="w") as store:
        assert list(store.list()) == []
    assert read_with_zipfile(path) == {}
    with ZipStore(path.with_name("new.zip"), mode="x") as store:
        store.set("k", b"v")
    assert read_with_zipfile(path.with_name("new.zip")) == {"k": b"v"}
    with ZipStore(path.with_name("made.zip"), mode="a") as store:
        pass
    assert read_with_zipfile(path.with_name("made.zip")) == {}


def test_bad_arguments(path):
    with pytest.raises(ValueError, match="mode"):
        ZipStore(path, mode="r+")
    with pytest.raises(ValueError, match="compact"):
        ZipStore(path, mode="w", compact="sometimes")
    with pytest.raises(TypeError, match="path"):
        ZipStore(3.5, mode="w")
    with ZipStore(path, mode="w") as store, pytest.raises(InvalidKeyError, match="65535"):
        store.set("k" * 70000, b"")


def test_mode_r_not_read_only(path):
    """zarr-python accepts ``ZipStore(path, mode="r", read_only=False)`` (users pass it so
    that ``zarr.load``'s mode "a" takes the store): reads work, a write is refused naming
    the mode, and closing leaves the file as it was."""
    with ZipStore(path, mode="w") as store:
        store.set("k", b"v")
    before = path.read_bytes()
    with ZipStore(path, mode="r", read_only=False) as store:
        assert store.read_only is False
        assert bytes(store.get("k")) == b"v"
        with pytest.raises(ReadOnlyError, match="mode 'r'"):
            store.set("k2", b"w")
        with pytest.raises(ReadOnlyError, match="mode 'r'"):
            store.erase("k")
    assert path.read_bytes() == before


def test_one_archive_per_file_in_a_process(path):
    writer = ZipStore(path, mode="w")
    writer.set("a", b"1")
    reader = ZipStore(str(path))  # shares the open archive: sees unflushed writes
    assert bytes(reader.get("a")) == b"1"
    appender = ZipStore(path, mode="a")
    appender.set("b", b"2")
    assert bytes(writer.get("b")) == b"2"
    with pytest.raises(StoreError, match="open in this process"):
        ZipStore(path, mode="w")
    writer.close()  # a writer's close leaves a complete zip for other processes
    assert read_with_zipfile(path) == {"a": b"1", "b": b"2"}
    appender.set("c", b"3")
    appender.close()
    assert bytes(reader.get("c")) == b"3"
    reader.close()
    assert read_with_zipfile(path) == {"a": b"1", "b": b"2", "c": b"3"}
    ZipStore(path, mode="w").close()  # all closed: truncating is allowed again


def test_file_changed_by_another_program_is_reopened(path):
    write_sample(path)
    reader = ZipStore(path)
    assert bytes(reader.get("zarr.json")) == b"{}"
    with zipfile.ZipFile(path, "w") as z:  # replaced while the reader is open
        z.writestr("zarr.json", b'{"new": true}')
    with ZipStore(path) as fresh:
        assert bytes(fresh.get("zarr.json")) == b'{"new": true}'
    with pytest.raises(StoreError, match="changed on disk"):
        reader.with_read_only(False)  # appending would write over the other file
    reader.close()


def test_read_only_archive_becomes_writable(path):
    write_sample(path)
    reader = ZipStore(path)
    writer = reader.with_read_only(False)
    assert writer.mode == "a"
    writer.set("x", b"1")
    assert bytes(reader.get("x")) == b"1"
    writer.close()
    reader.close()
    assert read_with_zipfile(path) == {**SAMPLE, "x": b"1"}


def test_garbage_collected_store_writes_its_directory(path):
    store = ZipStore(path, mode="w")
    store.set("k", b"v")
    del store
    gc.collect()
    assert read_with_zipfile(path) == {"k": b"v"}


def test_store_open_at_exit_writes_its_directory(path):
    code = (
        "import sys; from zarrhpc.storage import ZipStore\n"
        "store = ZipStore(sys.argv[1], mode='w')\n"
        "store.set('a/b', b'written, never closed')\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    assert read_with_zipfile(path) == {"a/b": b"written, never closed"}


def test_pickle_read_only(path):
    write_sample(path)
    with ZipStore(path) as store:
        clone = pickle.loads(pickle.dumps(store))
        assert bytes(clone.get("zarr.json")) == b"{}" and clone.read_only
        clone.close()
    with ZipStore(path, mode="a") as store, pytest.raises(TypeError, match="read-only"):
        pickle.dumps(store)


def test_repr_and_equality(path):
    with ZipStore(path, mode="w") as store:
        assert repr(store) == f"ZipStore('zip://{path.resolve()}')"
        view = store.with_read_only()
        assert view != store and view == store.with_read_only() and view.read_only
        assert hash(view) == hash(store.with_read_only())


# -- corrupt files ---------------------------------------------------------------------


def central_record(raw: bytes, name: bytes) -> int:
    """Offset of the central directory record of the entry ``name``."""
    pos = raw.index(b"PK\x01\x02")
    while raw[pos + 46 : pos + 46 + len(name)] != name:
        pos = raw.index(b"PK\x01\x02", pos + 1)
    return pos


@pytest.fixture
def sample_bytes(path):
    write_sample(path)
    return path.read_bytes()


def test_not_a_zip(path):
    path.write_bytes(b"")
    with pytest.raises(StoreError, match=r"data\.zip: not a zip file \(the file is empty\)"):
        ZipStore(path)
    path.write_bytes(b"hello world" * 1000)
    for mode in ("r", "a"):
        with pytest.raises(StoreError, match=r"data\.zip: not a zip file"):
            ZipStore(path, mode=mode)
    assert path.read_bytes() == b"hello world" * 1000  # "a" did not append to it


def test_truncated_central_directory(path, sample_bytes):
    cd = sample_bytes.index(b"PK\x01\x02")
    # cut the last directory record in half, keep the end record
    eocd = sample_bytes[-22:]
    path.write_bytes(sample_bytes[: len(sample_bytes) - 22 - 20] + eocd)
    with pytest.raises(StoreError, match=r"data\.zip: corrupt zip file: .*does not fit"):
        ZipStore(path)
    # the end record announces more entries than the directory holds
    more = bytearray(sample_bytes)
    struct.pack_into("<HH", more, len(more) - 22 + 8, 9, 9)
    path.write_bytes(bytes(more))
    with pytest.raises(StoreError, match=r"data\.zip: corrupt zip file: .*truncated"):
        ZipStore(path)
    # the file is cut inside the entries: the end record is gone; what ZipStore wrote
    # opens as of its last complete directory (here the empty one it began with) ...
    path.write_bytes(sample_bytes[:cd - 10])
    with ZipStore(path) as store:
        assert store.recovered and list(store.list()) == []
    # ... and a zip from another writer, with no complete directory at all, does not open
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a", b"x" * 100)
    cut = path.read_bytes()
    path.write_bytes(cut[: cut.index(b"PK\x01\x02") - 10])
    with pytest.raises(StoreError, match=r"data\.zip: not a zip file"):
        ZipStore(path)


def test_entry_offset_beyond_the_file(path, sample_bytes):
    raw = bytearray(sample_bytes)
    struct.pack_into("<I", raw, central_record(raw, b"a/c/0/0") + 42, 10**9)
    path.write_bytes(bytes(raw))
    with ZipStore(path) as store:
        assert bytes(store.get("zarr.json")) == b"{}"  # the rest stays readable
        with pytest.raises(StoreError, match=r"data\.zip: entry 'a/c/0/0': local header "
                                             r"offset 1000000000 lies beyond"):
            store.get("a/c/0/0")
        with pytest.raises(StoreError, match="'a/c/0/0'"):
            store.get_partial_values([("a/c/0/0", 0, 4)])


def test_entry_size_beyond_the_file(path, sample_bytes):
    raw = bytearray(sample_bytes)
    rec = central_record(raw, b"a/c/0/0")
    struct.pack_into("<II", raw, rec + 20, 10**8, 10**8)  # compressed and real size
    path.write_bytes(bytes(raw))
    message = r"data\.zip: entry 'a/c/0/0': data of 100000000 bytes .* reaches past"
    with ZipStore(path) as store, pytest.raises(StoreError, match=message):
        store.get("a/c/0/0")


def test_entry_offset_not_at_a_local_header(path, sample_bytes):
    raw = bytearray(sample_bytes)
    struct.pack_into("<I", raw, central_record(raw, b"e") + 42, 5)
    path.write_bytes(bytes(raw))
    with ZipStore(path) as store, pytest.raises(StoreError, match="'e': no local file header"):
        store.get("e")


def test_bad_deflate_data(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("k", b"abc" * 1000, compress_type=zipfile.ZIP_DEFLATED)
    raw = bytearray(path.read_bytes())
    raw[40:50] = b"\xff" * 10
    path.write_bytes(bytes(raw))
    with ZipStore(path) as store, pytest.raises(StoreError, match="entry 'k'"):
        store.get("k")


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_files_give_store_errors(tmp_path, data):
    """Any truncation or damage ends in a StoreError (or wrong bytes), never a crash or
    another exception."""
    sources = {"ours": tmp_path / "ours.zip", "deflated": tmp_path / "deflated.zip"}
    if not sources["ours"].exists():
        write_sample(sources["ours"])
        with zipfile.ZipFile(sources["deflated"], "w", zipfile.ZIP_DEFLATED) as z:
            for key, value in SAMPLE.items():
                z.writestr(key, value)
    raw = bytearray(sources[data.draw(st.sampled_from(sorted(sources)))].read_bytes())
    if data.draw(st.booleans(), label="truncate"):
        raw = raw[: data.draw(st.integers(0, len(raw)), label="cut")]
    n = len(raw)
    # damage anywhere, but mostly in the headers, the directory and the end records
    where = st.one_of(st.integers(0, n - 1), st.integers(0, min(n - 1, 40)),
                      st.integers(max(0, n - 250), n - 1)) if n else st.nothing()
    for _ in range(data.draw(st.integers(0, 4), label="damages") if n else 0):
        pos = data.draw(where, label="pos")
        value = data.draw(st.binary(min_size=1, max_size=4), label="value")
        raw[pos : pos + len(value)] = value
    bad = tmp_path / "bad.zip"
    bad.write_bytes(bytes(raw))
    try:
        store = ZipStore(bad)
    except StoreError as exc:
        assert "bad.zip" in str(exc)
        return
    with store:
        for key in store.list():
            try:
                store.get(key)
                store.get_partial_values([(key, -5, None)])
            except (StoreError, UnsupportedError) as exc:
                assert "bad.zip" in str(exc) and repr(key) in str(exc)



def test_entry_changing_under_a_read_names_the_zip_path_and_entry(tmp_path, monkeypatch):
    """Another program rewriting the archive in place under every read attempt: the
    StoreError names the zip file and the entry (the changes are simulated through the
    file's change stamp, which is what the reader compares)."""
    import itertools

    import zarrhpc.storage.local as local_mod

    path = str(tmp_path / "x.zip")
    with ZipStore(path, mode="w") as z:
        z.set("a/c/0", b"x" * 100)
    ticks = itertools.count()
    monkeypatch.setattr(local_mod, "_stamp", lambda st: (st.st_size, next(ticks), 0))
    z = ZipStore(path)
    with pytest.raises(StoreError, match="keeps changing") as info:
        z.get("a/c/0")
    assert path in str(info.value) and "'a/c/0'" in str(info.value)
    z.close()
