"""Clean up after an MPI job that was SIGKILLed on purpose (kill tests, the demo).

MPICH keeps each job's intranode shared memory in a file under /dev/shm and removes it
when the job ends normally; a job killed with SIGKILL cannot, and every such run would
leave 2-4 MiB of RAM behind. Read the names from the ranks' mappings before the kill,
remove the files after it.
"""

from __future__ import annotations

from pathlib import Path


def shm_segments(pids) -> set[str]:
    """The MPI shared-memory files (MPICH's, in /dev/shm) mapped by these processes."""
    found = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:  # gone already, or no /proc
            continue
        for line in maps.splitlines():
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/dev/shm/mpich_shm_"):
                found.add(fields[5].strip())
    return found


def remove(segments) -> None:
    """Remove the files `shm_segments` named, once the job is dead."""
    for seg in segments:
        Path(seg).unlink(missing_ok=True)


def kill_job(job, ranks) -> set[str]:
    """SIGKILL every rank (process ids ``ranks``) and the launcher's process group (``job``
    a `subprocess.Popen` started with ``start_new_session=True``); wait for the launcher
    and remove the job's shared-memory files. Returns the files removed."""
    import os
    import signal

    segments = shm_segments(ranks)
    for pid in ranks:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.killpg(job.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    job.wait(timeout=60)
    remove(segments)
    return segments

