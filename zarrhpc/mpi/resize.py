"""Collective resize: every rank calls it; rank 0 changes the array, all ranks see it.

Life cycle: all ranks meet first (no rank may still be reading or writing chunks that
the resize erases), then rank 0 runs ``Array.resize`` (erases the chunks wholly outside the new shape,
then rewrites the metadata document atomically); all ranks agree on the outcome (a
failure on rank 0 raises there and `CollectiveError` naming it on the others); then
every other rank re-reads the metadata (``Array.refresh``) and all agree again, so that
on return every rank's handle has the new shape and no rank writes into the old one.
"""

from __future__ import annotations

from zarrhpc.mpi._comm import _agree, _wait_quietly

__all__ = ["resize"]


def resize(comm, array, new_shape) -> tuple[int, ...]:
    """Resize ``array`` on every rank of ``comm`` (collective); the new shape.

    Parameters
    ----------
    comm : mpi4py communicator
    array : zarrhpc.Array
        Each rank's handle on the same array.
    new_shape : tuple of int

    Raises
    ------
    CollectiveError
        On the ranks where it did not fail, when a rank failed (the failing rank raises
        its own exception).
    """
    _wait_quietly(comm)  # every rank is done with the old shape
    error = None
    if comm.Get_rank() == 0:
        try:
            array.resize(new_shape)
        except Exception as exc:  # noqa: BLE001 - every rank must learn of it
            error = exc
    _agree(comm, error, f"resize of {array.name!r} to {tuple(new_shape)!r}")
    error = None
    if comm.Get_rank() != 0:
        try:
            array.refresh()
        except Exception as exc:  # noqa: BLE001
            error = exc
    _agree(comm, error, f"resize of {array.name!r}: refresh")
    return array.shape
