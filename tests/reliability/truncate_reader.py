"""Files truncated and rewritten in place under a reader: no SIGBUS, no wrong data.

A reader process reads a large value in a loop (LocalStore chunk and shard sizes, and a
ZipStore entry) while this process truncates the files in place and writes them back.
Every read must give the right bytes or a zarrhpc `StoreError`; the reader must exit
normally (a SIGBUS would kill it). Usable without pytest::

    python tests/reliability/truncate_reader.py --seconds 30
"""

import argparse
import os
import random
import signal
import subprocess
import sys
import time

READER = r"""
import sys, time
from zarrhpc.errors import StoreError
from zarrhpc.storage import LocalStore
from zarrhpc.storage.zip import ZipStore
root, zpath, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
expect = bytes(range(256)) * (int(sys.argv[4]) // 256)
local = LocalStore(root)
stop = time.monotonic() + seconds
reads = errors = wrong = short = 0
while time.monotonic() < stop:
    for get in (lambda: local.get("big"), lambda: ZipStore(zpath).get("big")):
        try:
            value = get()
        except StoreError:
            errors += 1
            continue
        reads += 1
        if value is None or bytes(value) == expect:
            continue
        if expect.startswith(bytes(value)):
            short += 1  # the file was that short when it was opened: its value then
        else:
            wrong += 1  # bytes that were never in the file at that length (zeros...)
print(reads, errors, wrong, short, flush=True)
"""


def run(tmp: str, seconds: float, size: int = 4 << 20, seed: int = 0) -> dict:
    """Run the reader for ``seconds`` against files being cut; the counts."""
    from zarrhpc.storage import LocalStore
    from zarrhpc.storage.zip import ZipStore

    rng = random.Random(seed)
    data = bytes(range(256)) * (size // 256)
    root = os.path.join(tmp, "store")
    LocalStore(root).set("big", data)
    zpath = os.path.join(tmp, "data.zip")
    with ZipStore(zpath, mode="w") as z:
        z.set("big", data)
    with open(zpath, "rb") as f:
        zbytes = f.read()
    big = os.path.join(root, "big")
    proc = subprocess.Popen([sys.executable, "-c", READER, root, zpath, str(seconds),
                             str(size)], stdout=subprocess.PIPE, text=True)
    cuts = 0
    while proc.poll() is None:
        for path, whole in ((big, data), (zpath, zbytes)):
            # truncate in place (same inode), then write the same bytes back in place
            os.truncate(path, rng.randrange(0, len(whole)))
            time.sleep(rng.uniform(0, 0.003))
            with open(path, "r+b") as f:
                f.write(whole)
            cuts += 1
        time.sleep(rng.uniform(0, 0.002))
    out, _ = proc.communicate()
    counts = {"returncode": proc.returncode, "cuts": cuts,
              "crashed": proc.returncode == -signal.SIGBUS or proc.returncode < 0}
    if proc.returncode == 0:
        reads, errors, wrong, short = (int(x) for x in out.split())
        counts.update(reads=reads, store_errors=errors, wrong=wrong, short_file=short)
    return counts


if __name__ == "__main__":
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(run(tmp, args.seconds))
