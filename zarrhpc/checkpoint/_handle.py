"""The handle of an asynchronous checkpoint save (`Checkpointer.save_async`).

Life cycle: `Checkpointer.save_async` snapshots the arrays (`Snapshots`: one copy into
buffers pooled per array name, reused by the next save once this one is done), then
starts one background thread that runs the whole collective save on the checkpointer's
duplicated communicator (so the application may go on using its own communicator), and
returns a `SaveHandle`. `SaveHandle.wait` only joins that thread: it is local, never
collective. The background save commits the step only after every rank's part is
written and flushed (the same protocol as a synchronous save), so a job killed while it
runs leaves the previous committed step loadable.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from zarrhpc._kernels import alloc, copy_into

__all__ = ["SaveHandle", "Snapshots"]


class SaveHandle:
    """A checkpoint save running in the background.

    Attributes
    ----------
    step : the step being saved.
    stats : the save's job totals once it is done (``files_created``, ``dirs_created``,
        ``renames``, ``fsyncs``, ``bytes_written``, ``seconds``), else None.
    """

    def __init__(self, step: int, work) -> None:
        self.step = step
        self.stats: dict | None = None
        self._error: BaseException | None = None
        self._started = time.perf_counter()
        self.finished_at: float | None = None
        self._thread = threading.Thread(target=self._run, args=(work,),
                                        name=f"zarrhpc-checkpoint-{step}", daemon=True)
        self._thread.start()

    def _run(self, work) -> None:
        try:
            self.stats = work()
        except BaseException as exc:  # noqa: BLE001 - kept for wait()/exception()
            self._error = exc
        finally:
            self.finished_at = time.perf_counter()

    def done(self) -> bool:
        """True once the save has finished (committed or failed)."""
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> dict:
        """Wait for this rank's part of the save to finish (local: no communication);
        returns the stats, or raises the save's exception (TimeoutError on ``timeout``)."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"checkpoint step {self.step}: still saving after {timeout} s")
        if self._error is not None:
            raise self._error
        return self.stats

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The save's exception once it finished (None when it committed)."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"checkpoint step {self.step}: still saving after {timeout} s")
        return self._error

    def __repr__(self) -> str:
        state = "running" if not self.done() else ("failed" if self._error else "committed")
        return f"<SaveHandle step={self.step} {state}>"


class Snapshots:
    """Buffers the asynchronous saves copy the arrays into, one per name, reused.

    From zarrhpc's block cache (`zarrhpc._kernels.alloc`): 2 MiB pages, and a buffer a
    dropped checkpointer freed is taken again by the next one. Fresh 4 KiB pages cost the
    first snapshot its page faults and zeroing: 0.5-1.6 s for 256 MiB per rank, 4 ranks
    on a loaded 2-core VM (np.empty), about as long as the synchronous save of the step.
    The caller (`Checkpointer.save_async`) waits for the save in flight before ``take``.
    """

    def __init__(self) -> None:
        self._buffers: dict = {}

    def take(self, name: str, value) -> np.ndarray:
        """A private copy of ``value`` (one copy, without the GIL for large arrays)."""
        value = np.asarray(value)
        buf = self._buffers.get(name)
        if buf is None or buf.shape != value.shape or buf.dtype != value.dtype:
            buf = self._buffers[name] = alloc.empty(value.shape, value.dtype)
        copy_into(buf, value)
        return buf
