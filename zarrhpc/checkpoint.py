"""Checkpoint/restart: numbered steps in one Zarr hierarchy, each committed by a marker.

Layout (readable by any Zarr v3 reader)::

    root group          attrs {"zarrhpc_checkpoint": {"latest": 30, "format": 1}}
      step_00000020/    group attrs {"zarrhpc_checkpoint": {"step": 20, "committed": true,
                                     "arrays": [...]}, ...user attrs}
        temperature     one array per saved field
      step_00000030/

Life cycle of a step (`Checkpointer.save`): rank 0 creates the step group marked
``committed: false``; every array is created collectively and written (each rank its block,
`zarrhpc.mpi.write`); after every rank has finished (the write's closing agreement is a
barrier), rank 0 rewrites the group's ``zarr.json`` with ``committed: true`` (one atomic
file replace: this is the commit), then updates the root attribute, then applies the
retention policy (rank 0 un-commits the steps it retires; every rank erases a share of
their chunks). A job killed at any moment leaves either the previous state or a step
without the marker, which `latest`/`load` ignore and report (`uncommitted`). The marker,
not the root attribute, is the truth: the root attribute may lag by one step if the job
dies between the two writes. Deleting a step un-commits it first.

Works without MPI (``comm=None``: whole arrays, one process) and under MPI (each rank passes
its local blocks, their region in global coordinates and the global shape).
"""

from __future__ import annotations

import logging
import pickle
import re
from dataclasses import dataclass, field

import numpy as np

import zarrhpc
from zarrhpc.core._nodes import meta_key, read_node, resolve_store
from zarrhpc.errors import CheckpointError, CollectiveError, ContainsGroupError
from zarrhpc.metadata import ArrayMetadataV3, GroupMetadataV3
from zarrhpc.mpi.collective import _agree
from zarrhpc.mpi.partition import normalize_region

__all__ = ["Checkpointer", "Snapshot"]

log = logging.getLogger("zarrhpc.checkpoint")

ATTR = "zarrhpc_checkpoint"
_STEP_RE = re.compile(r"^step_(\d+)$")


def step_name(step: int) -> str:
    return f"step_{step:08d}"


@dataclass
class Snapshot:
    """What `Checkpointer.load` returns: the step, its arrays (this rank's blocks) and attrs."""

    step: int
    arrays: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]


class _Serial:
    """The few communicator calls the checkpointer makes, for one process."""

    def Get_rank(self) -> int:  # mpi4py's names
        return 0

    def Get_size(self) -> int:
        return 1

    def bcast(self, obj, root=0):
        return obj

    def allgather(self, obj):
        return [obj]


class Checkpointer:
    """Save numbered steps of named arrays; find and load the newest complete one.

    Parameters
    ----------
    store : a directory path, or a Store shared by every rank.
    comm : an mpi4py communicator, or None for one process.
    keep_last : keep only this many newest committed steps (default: all). Older steps
        are deleted after each commit, so a job killed in between leaves one more.

    Under MPI every method is collective: call it on every rank of ``comm``, in the same
    order (rank 0 reads and writes the checkpoint metadata and broadcasts the answers).
    """

    def __init__(self, store, comm=None, *, keep_last: int | None = None):
        if keep_last is not None and (isinstance(keep_last, bool) or int(keep_last) < 1):
            raise ValueError(f"keep_last: expected a positive integer or None, got {keep_last!r}")
        self.keep_last = None if keep_last is None else int(keep_last)
        self.comm = comm
        self._c = _Serial() if comm is None else comm
        self._reported: set[int] = set()
        if comm is not None:
            from zarrhpc.mpi.collective import _resolve  # only under MPI

            self.store = _resolve(comm, store, "a")
        else:
            self.store = resolve_store(store, "a")
        self._on_root(self._init_root, "checkpoint root")

    # -- collective helpers ------------------------------------------------------------
    def _on_root(self, fn, what: str):
        """Run ``fn`` on rank 0, broadcast its result; every rank raises if it failed."""
        result, error = None, None
        if self._c.Get_rank() == 0:
            try:
                result = fn()
            except Exception as exc:  # noqa: BLE001 - re-raised on every rank below
                error = exc
        if error is not None:
            try:  # the exception itself travels when it can, so every rank raises the same
                pickle.loads(pickle.dumps(error))
                remote = error
            except Exception:  # noqa: BLE001
                remote = f"{type(error).__name__}: {error}"
        else:
            remote = None
        result, remote = self._c.bcast((result, remote), root=0)
        if error is not None:
            raise error
        if isinstance(remote, BaseException):
            raise remote
        if remote is not None:
            raise CollectiveError(f"{what}: rank 0 failed: {remote}")
        return result

    def _init_root(self) -> None:
        md = read_node(self.store, "")
        if isinstance(md, ArrayMetadataV3):
            raise ContainsGroupError(f"{meta_key('')}: an array at the root, expected a checkpoint group")
        if md is None:
            zarrhpc.create_group(self.store, attributes={ATTR: {"latest": None, "format": 1}})

    # -- discovery ---------------------------------------------------------------------
    def _scan(self) -> tuple[list[int], list[int]]:
        """(committed steps, uncommitted steps), both ascending."""
        committed, partial = [], []
        for name in self.store.list_dir(""):
            m = _STEP_RE.match(name)
            if not m:
                continue
            md = read_node(self.store, name)
            info = md.attributes.get(ATTR, {}) if isinstance(md, GroupMetadataV3) else {}
            (committed if info.get("committed") is True else partial).append(int(m.group(1)))
        return sorted(committed), sorted(partial)

    def _scan_all(self) -> tuple[list[int], list[int]]:
        committed, partial = self._on_root(self._scan, "checkpoint scan")
        for step in partial if self._c.Get_rank() == 0 else ():  # one report per job
            if step not in self._reported:
                self._reported.add(step)
                log.warning("checkpoint step %d in %r is not committed (a save was interrupted); "
                            "it is ignored", step, self.store)
        return committed, partial

    def steps(self) -> list[int]:
        """Committed steps, ascending."""
        return self._scan_all()[0]

    def uncommitted(self) -> list[int]:
        """Steps whose save did not finish (ignored by `latest` and `load`), ascending."""
        return self._scan_all()[1]

    def latest(self) -> int | None:
        """The newest committed step, or None when there is none."""
        committed = self.steps()
        return committed[-1] if committed else None

    # -- save --------------------------------------------------------------------------
    def save(self, step: int, arrays: dict, attrs: dict | None = None, *, region=None,
             shape=None, chunks=None, compressors="auto", overwrite: bool = False) -> None:
        """Write step ``step`` and commit it (collective under MPI).

        Parameters
        ----------
        step : non-negative integer.
        arrays : name -> numpy array: the whole array without MPI, this rank's block under MPI.
        attrs : JSON-serialisable attributes of the step (e.g. the simulated time).
        region : under MPI, this rank's region in global coordinates (tuple of slices), or a
            dict name -> region.
        shape : under MPI, the global shape, or a dict name -> shape.
        chunks, compressors : as `zarrhpc.create_array` (``chunks`` may be a dict per name).
        overwrite : replace a committed step of the same number (an uncommitted one is
            always replaced).
        """
        error = None
        try:  # checked on every rank, then agreed: one rank raising alone would hang the rest
            step, attrs, jobs = self._check_save(step, arrays, attrs, region, shape, chunks)
        except Exception as exc:  # noqa: BLE001
            error = exc
        _agree(self._c, error, "checkpoint save")
        group = step_name(step)
        info = {"step": step, "committed": False, "arrays": list(arrays)}
        self._on_root(lambda: self._begin(group, info, attrs, overwrite), f"checkpoint {group}")
        for name, (value, reg, shp, chk) in jobs.items():
            self._write_array(f"{group}/{name}", value, reg, shp, chk, compressors)
        # every rank's data is stored (the writes end with an agreement): commit
        retired = self._on_root(lambda: self._commit(group, dict(info, committed=True), attrs),
                                f"checkpoint {group}")
        if retired:
            self._erase_steps(retired)

    def _check_save(self, step, arrays, attrs, region, shape, chunks):
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
            raise ValueError(f"step: expected a non-negative integer, got {step!r}")
        if not arrays:
            raise ValueError("arrays: expected at least one name -> array")
        attrs = dict(attrs or {})
        if ATTR in attrs:
            raise ValueError(f"attrs: the key {ATTR!r} is reserved for the checkpointer")
        size = self._c.Get_size()
        jobs = {}
        for name, value in arrays.items():
            value, reg, shp = np.asarray(value), _pick(region, name), _pick(shape, name)
            if self.comm is None:
                whole = tuple((0, n) for n in value.shape)
                if (shp is not None and tuple(shp) != value.shape) or (
                        reg is not None and normalize_region(reg, value.shape, name) != whole):
                    raise ValueError(f"{name}: without a communicator arrays are whole; got an "
                                     f"array of shape {value.shape}, shape={shp}, region={reg}")
            elif size > 1 and (reg is None or shp is None):
                raise ValueError(f"{name}: under MPI with {size} ranks each rank passes its "
                                 f"region and the global shape (got region={reg}, shape={shp})")
            jobs[name] = (value, reg, shp, _pick(chunks, name))
        return int(step), attrs, jobs

    def _begin(self, group: str, info: dict, attrs: dict, overwrite: bool) -> None:
        md = read_node(self.store, group)
        if md is not None:
            old = md.attributes.get(ATTR, {}) if isinstance(md, GroupMetadataV3) else {}
            if old.get("committed") is True and not overwrite:
                raise ContainsGroupError(f"{meta_key(group)}: step {info['step']} is already "
                                         "committed (save(..., overwrite=True) replaces it)")
            self._delete(group)
        zarrhpc.create_group(self.store, path=group, attributes={ATTR: info, **attrs},
                             overwrite=True)

    def _write_array(self, path, value, region, shape, chunks, compressors) -> None:
        kwargs = {"chunks": "auto" if chunks is None else chunks, "compressors": compressors}
        if self.comm is None:
            a = zarrhpc.create_array(self.store, name=path, shape=value.shape, dtype=value.dtype,
                                     overwrite=True, **kwargs)
            a[...] = value
            return
        from zarrhpc import mpi as zmpi

        if shape is None:  # one rank (checked): the whole array
            shape = value.shape
        a = zmpi.create_array(self.comm, self.store, name=path, shape=tuple(shape),
                              dtype=value.dtype, overwrite=True, **kwargs)
        if region is None:  # one rank: the whole array
            region = tuple(slice(0, n) for n in a.shape)
        zmpi.write(a, region, value, self.comm)

    def _commit(self, group: str, info: dict, attrs: dict) -> list[str]:
        """Commit ``group``; returns the groups the retention policy retires, un-committed
        already (`_erase_steps` removes them)."""
        node = zarrhpc.open_group(self.store, path=group, mode="r+")
        node.attrs.put({ATTR: info, **attrs})  # the commit: one atomic zarr.json replace
        committed, partial = self._scan()
        zarrhpc.open_group(self.store, mode="r+").attrs[ATTR] = {"latest": committed[-1], "format": 1}
        if self.keep_last is None:
            return []
        newest = committed[-1]
        retired = [step_name(s) for s in committed[:-self.keep_last]]
        retired += [step_name(s) for s in partial if s < newest]
        for old in retired:
            self._uncommit(old)
        return retired

    def _erase_steps(self, groups: list[str]) -> None:
        """Remove retired (un-committed) step groups; every rank erases a share of their
        chunks, then rank 0 the rest. On a parallel file system unlinking a large step from
        one rank would take about as long as writing it did from all."""
        size = self._c.Get_size()
        if size > 1:
            keys = self._on_root(
                lambda: [k for g in groups for k in self.store.list_prefix(f"{g}/")
                         if not k.endswith("zarr.json")], "checkpoint retention")
            error = None
            try:
                self.store.erase_values(keys[self._c.Get_rank()::size])
            except Exception as exc:  # noqa: BLE001 - agreed below: every rank raises
                error = exc
            _agree(self._c, error, "checkpoint retention")
        self._on_root(lambda: [self.store.erase_prefix(f"{g}/") for g in groups],
                      "checkpoint retention")

    def _uncommit(self, group: str) -> None:
        """Mark a step not committed: from here on it is ignored, whatever is left of it."""
        md = read_node(self.store, group)
        if isinstance(md, GroupMetadataV3) and md.attributes.get(ATTR, {}).get("committed"):
            info = dict(md.attributes[ATTR], committed=False)
            self.store.set(meta_key(group), md.with_attributes({**md.attributes, ATTR: info}).to_bytes())

    def _delete(self, group: str) -> None:
        """Un-commit first, then remove: a crash half-way leaves an ignored step."""
        self._uncommit(group)
        self.store.erase_prefix(f"{group}/")

    # -- load --------------------------------------------------------------------------
    def load(self, step: int | None = None, names=None, region=None, *,
             method: str = "direct") -> Snapshot:
        """Read a committed step (default: the newest); collective under MPI.

        ``names``: which arrays (default: all the step holds). ``region``: this rank's
        region (tuple of slices, or a dict name -> region); default the whole arrays.
        ``method``: under MPI, as `zarrhpc.mpi.read`.
        """
        committed, partial = self._scan_all()
        if step is None:
            if not committed:
                extra = f" (uncommitted: {partial})" if partial else ""
                raise CheckpointError(f"{self.store!r}: no committed checkpoint step{extra}")
            step = committed[-1]
        elif step not in committed:
            state = "not committed (its save was interrupted)" if step in partial else "missing"
            raise CheckpointError(f"{self.store!r}: {step_name(step)}: step {step} is {state}; "
                                  f"committed steps: {committed}")
        group = step_name(step)
        node = zarrhpc.open_group(self.store, path=group)
        stored_attrs = dict(node.attrs)
        info = stored_attrs.pop(ATTR)
        names = list(info["arrays"]) if names is None else list(names)
        out = {}
        for name in names:
            if name not in info["arrays"]:
                raise CheckpointError(f"{meta_key(group)}: no array {name!r} in step {step}; "
                                      f"it holds {info['arrays']}")
            sel = _pick(region, name)
            if self.comm is None:
                a = zarrhpc.open_array(self.store, path=f"{group}/{name}")
                out[name] = a[...] if sel is None else a[sel]
            else:
                from zarrhpc import mpi as zmpi

                a = zmpi.open_array(self.comm, self.store, path=f"{group}/{name}", mode="r")
                if sel is None:
                    sel = tuple(slice(0, n) for n in a.shape)
                out[name] = zmpi.read(a, sel, self.comm, method=method)
        return Snapshot(step, out, stored_attrs)


def _pick(value, name: str):
    """A per-name value from a dict, or the same value for every name."""
    if isinstance(value, dict):
        return value.get(name)
    return value
