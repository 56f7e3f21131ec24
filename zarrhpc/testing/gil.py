"""Prove that a call releases the GIL: by progress, not by timing.

A worker thread reads a counter, runs one kernel call on a 64 MiB block and reads the
counter again, while the main thread increments it.  The forced GIL hand-off is pushed
out to 100 s (``sys.setswitchinterval``) and the main thread yields the GIL itself
every few hundred increments, so:

- if the kernel releases the GIL, the main thread runs while the kernel does: the
  counter moves between the worker's two reads;
- if the kernel held the GIL, nothing else could run between the two reads (no forced
  switch in 100 s), and the counter would not move at all.

No clock is compared with another, so a slow or busy machine cannot make it fail.
"""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["progress_during"]


def progress_during(call, repeats: int = 20) -> int:
    """How often the main thread ran while ``call()`` ran ``repeats`` times in a worker.

    Several calls, because on a loaded machine the main thread may not be scheduled
    during any one short call; a kernel holding the GIL still gives exactly 0.
    """
    counter = 0
    started = threading.Event()
    done = threading.Event()
    seen = {}

    def worker():
        started.set()
        before = counter
        for _ in range(repeats):
            call()
        seen["delta"] = counter - before
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        started.wait()
        while not done.is_set():
            counter += 1
            if counter % 256 == 0:
                time.sleep(0)  # let the worker have the GIL when it wants it back
        t.join()
    finally:
        sys.setswitchinterval(old)
    return seen["delta"]
