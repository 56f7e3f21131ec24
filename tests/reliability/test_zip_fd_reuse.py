"""A ZipStore read racing a store opened on the same archive with mode "a".

Found by the hunt (wave 9): ``_Archive.make_writable`` (a read-only archive of this
process made writable when a store opens it with mode ``"a"``) opened a new descriptor and
closed the old one while reads through the read-only store were using its number.  The
next file this process opened got that number, and the read returned that file's bytes as
the entry's value, with no error (or failed with EBADF).  The descriptor's number must
stay the archive's for as long as the archive is open.
"""

import os
import random
import threading
import time

import pytest

from zarrhpc.storage import local as _local
from zarrhpc.storage.zip import ZipStore

VALUES = {f"k{i}": bytes([i]) * 4096 for i in range(32)}


def _archive(tmp_path) -> str:
    path = str(tmp_path / "a.zip")
    s = ZipStore(path, mode="w")
    for k, v in VALUES.items():
        s.set(k, v)
    s.close()
    return path


def test_read_in_flight_while_archive_made_writable(tmp_path, monkeypatch):
    path = _archive(tmp_path)
    decoy = tmp_path / "decoy"
    decoy.write_bytes(b"\xaa" * (1 << 16))
    reader = ZipStore(path, mode="r")
    assert bytes(reader.get("k1")) == VALUES["k1"]
    real = _local.read_stable
    inside, go = threading.Event(), threading.Event()

    def paused(fd, *args, **kwargs):  # the read has taken the archive's descriptor
        if threading.current_thread().name == "zip-reader":
            inside.set()
            assert go.wait(10)
        return real(fd, *args, **kwargs)

    monkeypatch.setattr(_local, "read_stable", paused)
    got: list = []
    t = threading.Thread(target=lambda: got.append(_try(reader.get, "k5")), name="zip-reader")
    t.start()
    assert inside.wait(10)
    writer = ZipStore(path, mode="a")  # the shared archive becomes writable
    fd = os.open(decoy, os.O_RDONLY)  # takes the lowest free descriptor number
    try:
        go.set()
        t.join(10)
    finally:
        os.close(fd)
    writer.close()
    reader.close()
    assert got and not isinstance(got[0], BaseException), got
    assert bytes(got[0]) == VALUES["k5"]


def _try(fn, *args):
    try:
        return fn(*args)
    except BaseException as exc:  # noqa: BLE001 -- reported by the test
        return exc


@pytest.mark.parametrize("seconds", [1.5])
def test_readers_and_append_opens_stress(tmp_path, seconds):
    """Threads read through a read-only store while stores in mode "a" come and go and
    another thread opens and closes files: every value read is the key's own."""
    path = _archive(tmp_path)
    decoy = tmp_path / "decoy"
    decoy.write_bytes(b"\xaa" * (1 << 16))
    wrong, errors, reads = [], [], [0]
    t0 = time.monotonic()
    cycle = 0
    while time.monotonic() - t0 < seconds:
        reader = ZipStore(path, mode="r")
        stop = threading.Event()

        def read(seed, reader=reader, stop=stop):
            r = random.Random(seed)
            while not stop.is_set():
                k = f"k{r.randrange(len(VALUES))}"
                v = _try(reader.get, k)
                if isinstance(v, BaseException):
                    errors.append(repr(v))
                    continue
                reads[0] += 1
                if bytes(v) != VALUES[k]:
                    wrong.append(k)

        def churn(stop=stop):
            while not stop.is_set():
                os.close(os.open(decoy, os.O_RDONLY))

        threads = [threading.Thread(target=read, args=(cycle * 2 + i,)) for i in range(2)]
        threads.append(threading.Thread(target=churn))
        for t in threads:
            t.start()
        time.sleep(0.003)
        writer = ZipStore(path, mode="a")
        time.sleep(0.003)
        stop.set()
        for t in threads:
            t.join()
        writer.close()
        reader.close()
        cycle += 1
    assert reads[0] > 0
    assert not wrong and not errors, (wrong[:5], errors[:5])
