"""Running one call's chunk jobs on the shared pool: every job finished before the call ends.

``Executor.map`` re-raises the first failure as soon as it is reached while the jobs
already running go on: a write that had raised then still stored chunks afterwards (a
shard read-merge-upload finishing seconds later, over what the caller wrote next). The
hunt found it with failing requests on S3 (tests/reliability/test_late_writes.py).
:func:`map_all` cancels the jobs not started and waits for the running ones before the
first failure propagates.

The read paths use it too: a decode still running after the error would write into the
caller's ``out=`` buffer after the call returned.

Life cycle: called by the write and read paths (core/_select.py, _shard.py, _read.py,
convert.py) with ``config.executor()``; holds nothing between calls.
"""

from __future__ import annotations

from concurrent.futures import wait

__all__ = ["map_all"]


def map_all(pool, fn, items) -> list:
    """``[fn(x) for x in items]`` on ``pool``; on a failure, no job outlives the call."""
    futures = [pool.submit(fn, x) for x in items]
    try:
        return [f.result() for f in futures]
    finally:
        for f in futures:
            f.cancel()
        wait(futures)
