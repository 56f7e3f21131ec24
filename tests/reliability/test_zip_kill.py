"""A ZipStore append killed (SIGKILL) at a random moment still opens, with the contents of
its last flush: new entries never overwrite a directory already written, and an archive
without end records is recovered from its last complete directory."""

import os
import random
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from zarrhpc.storage.zip import ZipStore

CHILD = r"""
import sys
from zarrhpc.storage.zip import ZipStore
path, start = sys.argv[1], int(sys.argv[2])
store = ZipStore(path, mode="a")
i = start
while True:
    store.set(f"k{i % 13}", (b"%d;" % i) * (1 + i % 5000))
    i += 1
    if i % 7 == 0:
        store.flush()
        print(i, flush=True)
"""


def state_at(start: int, stop: int, before: dict) -> dict:
    """The keys and values after the writes start..stop-1 on top of ``before``."""
    out = dict(before)
    for i in range(start, stop):
        out[f"k{i % 13}"] = (b"%d;" % i) * (1 + i % 5000)
    return out


def contents(path) -> dict:
    with ZipStore(path) as store:
        return {k: bytes(store.get(k)) for k in store.list()}


@pytest.mark.parametrize("seed", range(6))
def test_killed_append_opens_with_its_last_flush(tmp_path, seed):
    rng = random.Random(seed)
    path = tmp_path / "data.zip"
    with ZipStore(path, mode="w") as store:  # committed before the killed session
        store.set("old", b"committed")
        store.set("k0", b"old k0")
    before = {"old": b"committed", "k0": b"old k0"}
    start = 1
    for _ in range(2):  # two killed sessions in a row on the same file
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(start)],
                                stdout=subprocess.PIPE, text=True)
        first_line = proc.stdout.readline()  # it is writing
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        proc.wait()
        flushed = [int(x) for x in (first_line + out).split()]
        got = contents(path)
        # the last flush printed, or a later one that completed before the print
        first = flushed[-1] if flushed else start + (-start) % 7
        candidates = [state_at(start, first, before), state_at(start, first + 7, before)]
        if not flushed:
            candidates.append(before)  # no flush completed in this session
        assert any(got == c for c in candidates), sorted(got)
        assert got["old"] == b"committed"
        before = got
        start = max((int(v.split(b";")[0]) for k, v in got.items() if k != "old"
                     and v != b"old k0"), default=0) + 1000
    # zipfile reads the recovered archive once a writer closed it again
    with ZipStore(path, mode="a"):
        pass
    with zipfile.ZipFile(path) as z:
        assert {n: z.read(n) for n in z.namelist()} == before
    assert not ZipStore(path).recovered


def test_recovered_flag_and_no_directory_overwritten(tmp_path):
    path = tmp_path / "data.zip"
    with ZipStore(path, mode="w") as store:
        store.set("a", b"1")
    first = path.read_bytes()
    store = ZipStore(path, mode="a")
    store.set("b", b"2" * 1000)
    # the first session's archive, directory and end record included, is still whole
    assert path.read_bytes()[: len(first)] == first
    os.truncate(path, os.path.getsize(path) - 5)  # as if killed mid-entry
    store._archive.closed = True  # abandon the session without writing a directory
    os.close(store._archive.fd)
    store._finalizer.detach()
    with ZipStore(path) as again:
        assert again.recovered
        assert {k: bytes(again.get(k)) for k in again.list()} == {"a": b"1"}
