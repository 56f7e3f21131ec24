"""Run a function in a forked child process and return what it puts on its queue.

For tests that the native engine (its thread pool, its caches and locks) still works in
a child forked after the parent used it: ``target(*args, queue)`` runs in the child.
"""

from __future__ import annotations

import multiprocessing


def in_forked_child(target, *args, timeout: float = 60):
    """``target(*args, queue)`` in a forked child; its exit code must be 0; returns the
    one value it put on ``queue``."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    proc.join(timeout)
    assert proc.exitcode == 0, f"forked child exited with {proc.exitcode}"
    return queue.get(timeout=5)
