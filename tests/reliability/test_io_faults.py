"""Real I/O faults, not mocks: each gives an exception naming the key and the errno,
leaves the previous data whole and no temporary file, and the process writes on.

- EFBIG: ``RLIMIT_FSIZE`` in a subprocess (SIGXFSZ ignored, so write() fails);
- ENOSPC: a 1 MiB tmpfs, where this machine lets us mount one (else skipped, saying why);
- files vanishing between listing and reading;
- EINTR: a signal handler firing every 100 us during reads and writes.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import StoreError
from zarrhpc.storage import LocalStore

FSIZE = r"""
import errno, os, resource, signal, sys
import numpy as np, zarrhpc
from zarrhpc.errors import ZarrhpcError
from zarrhpc.storage import LocalStore
root = sys.argv[1]
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
a = zarrhpc.open_array(root, path="a", mode="r+")
store = LocalStore(root)
inf = resource.RLIM_INFINITY
resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, inf))
for what in ("store", "array"):
    try:
        if what == "store":
            store.set("big", b"x" * 200_000)
        else:
            a[...] = np.full(a.shape, 7, dtype="f8")  # 8 chunks of 128 KiB each
    except ZarrhpcError as exc:
        assert getattr(exc, "errno", None) == errno.EFBIG and "[Errno 27]" in str(exc), exc
        assert ("'big'" in str(exc)) if what == "store" else ("c/" in str(exc)), exc
        print(what, "EFBIG", flush=True)
    else:
        raise SystemExit(f"{what}: no error")
store.set("small", b"ok")  # the process writes on: small values still fit
resource.setrlimit(resource.RLIMIT_FSIZE, (inf, inf))  # and big ones once allowed again
a[0, 0] = 5
print("went on", flush=True)
"""


def _leftovers(root):
    return [f for _, _, fs in os.walk(root) for f in fs if f.startswith(".zhtmp-")]


def test_efbig_names_key_and_errno_old_data_intact(tmp_path):
    root = str(tmp_path / "s")
    a = zarrhpc.create_array(root, name="a", shape=(128, 1024), chunks=(16, 1024), dtype="f8",
                             compressors=None)
    a[...] = 1.0
    LocalStore(root).set("big", b"old")
    out = subprocess.run([sys.executable, "-c", FSIZE, root], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["store EFBIG", "array EFBIG", "went on"]
    b = zarrhpc.open_array(root, path="a")[...]
    assert b[0, 0] == 5 and (b.ravel()[1:] == 1.0).all()  # every old chunk whole
    assert bytes(LocalStore(root).get("big")) == b"old"
    assert bytes(LocalStore(root).get("small")) == b"ok"
    assert _leftovers(root) == []


@pytest.fixture
def small_fs():
    d = tempfile.mkdtemp(prefix="zh-enospc-")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        os.rmdir(d)
        pytest.skip(f"cannot mount a small tmpfs here: {r.stderr.strip()}")
    yield d
    subprocess.run(["umount", d], check=False)
    os.rmdir(d)


def test_enospc_names_key_and_errno_old_data_intact(small_fs):
    root = os.path.join(small_fs, "s")
    a = zarrhpc.create_array(root, shape=(160, 1024), chunks=(16, 1024), dtype="f8",
                             compressors=None, fill_value=0)  # 10 chunks of 128 KiB
    a[:16] = 1.0  # 128 KiB
    store = LocalStore(root)
    with pytest.raises(StoreError) as info:
        store.set("big", b"x" * (2 << 20))
    assert _errno_named(info.value, 28) and "'big'" in str(info.value), str(info.value)
    with pytest.raises(StoreError) as info:
        a[...] = 2.0
    assert "c/" in str(info.value) and _errno_named(info.value, 28), str(info.value)
    b = zarrhpc.open_array(root)[...]
    for i in range(0, 160, 16):  # each chunk whole: old (1 or fill) or new (2)
        assert len(np.unique(b[i:i + 16])) == 1
    assert _leftovers(root) == []
    for i in range(10):
        store.erase(f"c/{i}/0")
    store.set("after", b"ok")  # the process writes on once space is back
    assert bytes(store.get("after")) == b"ok"


def test_files_vanishing_between_listing_and_reading(tmp_path):
    store = LocalStore(tmp_path)
    for i in range(20):
        store.set(f"c/{i}", b"v%d" % i)
    keys = list(store.list_prefix("c/"))
    for k in keys[::2]:
        os.unlink(tmp_path / k)
    got = store.get_values(keys)
    assert [g is None for g in got] == [i % 2 == 0 for i in range(len(keys))]
    shutil.rmtree(tmp_path / "c")
    assert store.get("c/1") is None and list(store.list_prefix("c/")) == []


EINTR = r"""
import signal, sys, numpy as np, zarrhpc
n = [0]
def tick(*_):
    n[0] += 1
signal.signal(signal.SIGALRM, tick)
signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
root = sys.argv[1]
d = np.arange(256 * 4096, dtype="f8").reshape(256, 4096)
for compressors in (None, {"name": "zstd", "configuration": {"level": 1}}):
    a = zarrhpc.create_array(root, shape=d.shape, chunks=(32, 4096), dtype="f8",
                             compressors=compressors, overwrite=True)
    for _ in range(5):
        a[...] = d
        assert (a[...] == d).all()
    s = zarrhpc.storage.LocalStore(root)
    s.mmap_threshold = 1
    for _ in range(20):
        s.set("blob", d.tobytes())
        assert bytes(s.get("blob")) == d.tobytes()
signal.setitimer(signal.ITIMER_REAL, 0, 0)
print(n[0])
"""


def test_eintr_during_reads_and_writes(tmp_path):
    out = subprocess.run([sys.executable, "-c", EINTR, str(tmp_path / "s")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 100  # the signals did arrive during the I/O


def _errno_named(exc, code: int) -> bool:
    return getattr(exc, "errno", None) == code and f"[Errno {code}]" in str(exc)


@pytest.fixture
def read_only_mount(tmp_path):
    """(writable dir, the same dir bind-mounted read-only), where the machine allows."""
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir()
    ro.mkdir()
    r = subprocess.run(["mount", "--bind", str(src), str(ro)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {r.stderr.strip()}")
    r = subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        subprocess.run(["umount", str(ro)], check=False)
        pytest.skip(f"cannot make a bind mount read-only here: {r.stderr.strip()}")
    yield src, ro
    subprocess.run(["umount", str(ro)], check=False)


@pytest.mark.parametrize("sharded", [False, True])
def test_erofs_names_key_and_errno_old_data_intact(read_only_mount, tmp_path, sharded):
    """A read-only file system (EROFS): every write kind fails naming the key and the
    errno, reads go on, nothing is torn, and the process writes elsewhere."""
    src, ro = read_only_mount
    kw = dict(shards=(32, 64)) if sharded else {}
    a = zarrhpc.create_group(str(src / "s")).create_array(
        "a", shape=(64, 64), chunks=(16, 64), dtype="i4", fill_value=0, **kw)
    a[...] = 1
    zarrhpc.consolidate_metadata(str(src / "s"))
    b = zarrhpc.open_array(str(ro / "s"), path="a", mode="r+")
    np.testing.assert_array_equal(b[...], 1)  # reads go on
    writes = {
        "whole": lambda: b.__setitem__(Ellipsis, 2),
        "partial": lambda: b.__setitem__((slice(0, 3), slice(None)), 3),
        "attrs": lambda: b.attrs.update({"x": 1}),
        "resize": lambda: b.resize((80, 64)),
        "store": lambda: LocalStore(str(ro / "s")).set("k", b"v"),
        "consolidate": lambda: zarrhpc.consolidate_metadata(str(ro / "s")),
    }
    for what, write in writes.items():
        with pytest.raises(StoreError) as info:
            write()
        assert _errno_named(info.value, 30), (what, str(info.value))
        key = {"attrs": "a/zarr.json", "resize": "a/zarr.json", "store": "'k'",
               "consolidate": "zarr.json"}.get(what, "a/c/")
        assert key in str(info.value), (what, str(info.value))
    np.testing.assert_array_equal(zarrhpc.open_array(str(src / "s"), path="a")[...], 1)
    assert zarrhpc.open_array(str(src / "s"), path="a").shape == (64, 64)
    c = zarrhpc.create_array(str(tmp_path / "elsewhere"), shape=(4,), chunks=(2,), dtype="i4")
    c[...] = 5  # the process writes on elsewhere
    np.testing.assert_array_equal(c[...], 5)
