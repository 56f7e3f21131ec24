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

Past one node:
- *Node-aggregated shards*: with ``policy="node"`` (the default for sharded arrays when the
  job spans more than one node, `zarrhpc.mpi.nodes`) each node owns whole shards and its
  ranks write into the same shard files (`zarrhpc.mpi.aggregate`): about
  ``shards_per_node`` files per node per array instead of one per chunk. Without
  ``shards=`` the shard shape is chosen so that each node's region is whole shards, cut
  into the regions of up to ``shards_per_node`` groups of its ranks (default 2: fewer
  ranks take turns on one file's lock).
- *Durability*: before the commit, the step's files and directories are flushed (``fsync``,
  shared out between the ranks) unless ``durable=False``.
- *Metadata budget*: `save` returns, and `SaveHandle.stats` holds, the job totals of files,
  directories, renames, fsyncs, bytes and seconds (`zarrhpc.checkpoint._stats`).
- *Asynchronous saves* (`save_async`): the arrays are copied once, then a background thread
  saves them on a duplicated communicator (`zarrhpc.checkpoint._handle`); at most one save
  is in flight; every other method waits for it first.
- *Two tiers*: with ``fast=`` every save goes to the fast tier (node-local disk visible to
  the job, /dev/shm) and every ``drain_every``-th save is copied to ``store`` in the
  background, committed there the same way. `latest`/`load` take the newest complete step
  of either tier; ``store`` alone is a valid checkpoint root. `close` (or leaving the
  ``with`` block) waits and drains the newest step.
"""

from __future__ import annotations

import copy
import logging
import math
import pickle
import re
import time
from dataclasses import dataclass, field

import numpy as np

import zarrhpc
from zarrhpc.checkpoint._handle import SaveHandle, Snapshots
from zarrhpc.checkpoint._stats import empty_stats, flush_step, list_step
from zarrhpc.core._nodes import meta_key, read_node, resolve_store
from zarrhpc.errors import (
    CheckpointError,
    CollectiveError,
    ContainsGroupError,
    UnsupportedError,
)
from zarrhpc.metadata import ArrayMetadataV3, GroupMetadataV3
from zarrhpc.mpi.collective import _agree
from zarrhpc.mpi.partition import normalize_region

__all__ = ["Checkpointer", "SaveHandle", "Snapshot"]

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

    def allreduce(self, obj, op=None):
        return obj


class Checkpointer:
    """Save numbered steps of named arrays; find and load the newest complete one.

    Parameters
    ----------
    store : a directory path, or a Store shared by every rank.
    comm : an mpi4py communicator, or None for one process.
    keep_last : keep only this many newest committed steps (default: all). Older steps
        are deleted after each commit, so a job killed in between leaves one more.
    fast, drain_every : the fast tier and how often (every k-th save) it is drained to
        ``store`` (see the module docstring).
    durable : flush (``fsync``) every step's files before its commit.
    shards_per_node : with the node policy and no ``shards=``, the shards are chosen so
        that the regions of up to this many groups of each node's ranks are whole shards
        (a group's ranks write the same files). More than one: a local file system (the
        fast tier, /dev/shm, a node's disk) lets one writer at a time into a file (two
        ranks writing one /dev/shm file took 1.5x as long as writing one file each,
        measured), while every file costs the metadata server a create and a rename.

    Under MPI every method is collective: call it on every rank of ``comm``, in the same
    order (rank 0 reads and writes the checkpoint metadata and broadcasts the answers).
    """

    def __init__(self, store, comm=None, *, keep_last: int | None = None, fast=None,
                 drain_every: int = 1, durable: bool = True, shards_per_node: int = 2):
        if (isinstance(shards_per_node, bool) or not isinstance(shards_per_node, int)
                or shards_per_node < 1):
            raise ValueError(f"shards_per_node: expected a positive integer, got "
                             f"{shards_per_node!r}")
        self.shards_per_node = shards_per_node
        if keep_last is not None and (isinstance(keep_last, bool) or int(keep_last) < 1):
            raise ValueError(f"keep_last: expected a positive integer or None, got {keep_last!r}")
        if isinstance(drain_every, bool) or not isinstance(drain_every, int) or drain_every < 1:
            raise ValueError(f"drain_every: expected a positive integer, got {drain_every!r}")
        self.keep_last = None if keep_last is None else int(keep_last)
        self.comm = comm
        self.durable = bool(durable)
        self.drain_every = drain_every
        self._c = _Serial() if comm is None else comm
        self._reported: set[int] = set()
        if comm is not None:
            from zarrhpc.mpi.collective import _resolve  # only under MPI

            self.store = _resolve(comm, store, "a")
        else:
            self.store = resolve_store(store, "a")
        self._on_root(self._init_root, "checkpoint root")
        self.fast = None if fast is None else Checkpointer(
            fast, comm, keep_last=keep_last, durable=durable, shards_per_node=shards_per_node)
        self._bg_comm = None  # the background saves' communicator (a Dup), made on first use
        self._job: SaveHandle | None = None
        self._snapshots = Snapshots()
        self._saves = 0  # "every k-th" counts saves
        self._closed = False

    # -- context manager, background work --------------------------------------------------
    def __enter__(self) -> Checkpointer:  # noqa: PYI034 - as zarr-python's stores
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Wait for the save or drain in flight, drain the newest step of the fast tier to
        the durable store if it is not there yet, free the background communicator
        (collective under MPI)."""
        if self._closed:
            return
        self._wait_job()
        if self.fast is not None:
            newest = self.fast.latest()
            if newest is not None and newest not in self._scan_all()[0]:
                self._drain(newest)
        if self._bg_comm is not None and self.comm is not None:
            self._bg_comm.Free()
            self._bg_comm = None
        self._closed = True

    def _wait_job(self) -> None:
        """Wait for the background job, if any (local); its failure is raised here once."""
        job, self._job = self._job, None
        if job is not None:
            job.wait()

    def _background(self) -> Checkpointer:
        """A copy of this checkpointer that talks over the background communicator."""
        if self._bg_comm is None:
            if self.comm is not None:
                from zarrhpc.mpi.collective import _mpi

                MPI = _mpi()
                if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
                    raise UnsupportedError(
                        "asynchronous checkpoints and drains use MPI from a background "
                        "thread: MPI must be initialised with MPI_THREAD_MULTIPLE (mpi4py's "
                        "default; see mpi4py.rc.thread_level)")
            self._bg_comm = _Serial() if self.comm is None else self.comm.Dup()
        worker = copy.copy(self)
        worker._c = self._bg_comm
        worker.comm = None if self.comm is None else self._bg_comm
        worker.fast = None
        if self.fast is not None:
            worker.fast = copy.copy(self.fast)
            worker.fast._c, worker.fast.comm = worker._c, worker.comm
        return worker

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
        """Committed steps (of either tier), ascending."""
        self._wait_job()
        committed = self._scan_all()[0]
        if self.fast is not None:
            committed = sorted(set(committed) | set(self.fast.steps()))
        return committed

    def uncommitted(self) -> list[int]:
        """Steps whose save did not finish (ignored by `latest` and `load`), ascending;
        with two tiers, the steps committed in neither."""
        self._wait_job()
        partial = self._scan_all()[1]
        if self.fast is not None:
            done = set(self.steps())
            partial = sorted((set(partial) | set(self.fast.uncommitted())) - done)
        return partial

    def latest(self) -> int | None:
        """The newest committed step (of either tier), or None when there is none."""
        committed = self.steps()
        return committed[-1] if committed else None

    # -- save --------------------------------------------------------------------------
    def save(self, step: int, arrays: dict, attrs: dict | None = None, *, region=None,
             shape=None, chunks=None, shards=None, policy: str | None = None,
             compressors="auto", overwrite: bool = False) -> dict:
        """Write step ``step`` and commit it (collective under MPI).

        Parameters
        ----------
        step : non-negative integer.
        arrays : name -> numpy array: the whole array without MPI, this rank's block under MPI.
        attrs : JSON-serialisable attributes of the step (e.g. the simulated time).
        region : under MPI, this rank's region in global coordinates (tuple of slices), or a
            dict name -> region.
        shape : under MPI, the global shape, or a dict name -> shape.
        chunks, shards, compressors : as `zarrhpc.create_array` (``chunks`` and ``shards``
            may be a dict name -> value). With ``policy="node"`` and no ``shards`` the shards are chosen so that
            each node's region is whole shards.
        policy : who writes which chunk: ``"node"`` (node-aggregated shards) or
            ``"decomposition"``; default ``"node"`` when ``shards`` is given and the job
            spans more than one node, else ``"decomposition"``.
        overwrite : replace a committed step of the same number (an uncommitted one is
            always replaced).

        Returns
        -------
        dict
            Job totals (the same on every rank): ``files_created``, ``dirs_created``,
            ``renames``, ``fsyncs``, ``bytes_written``, ``seconds``.
        """
        self._wait_job()
        target = self.fast if self.fast is not None else self
        prepared = target._prepare(step, arrays, attrs, region, shape, chunks, shards, policy,
                                   compressors, overwrite, None)
        stats = target._save_prepared(*prepared)
        self._after_save(prepared[0])
        return stats

    def save_async(self, step: int, arrays: dict, attrs: dict | None = None, **kwargs
                   ) -> SaveHandle:
        """Start saving step ``step`` in the background; arguments as `save`.

        The arrays are copied before this returns (the caller may overwrite them at once).
        A save still in flight is waited for first: at most one runs at a time. The
        returned `SaveHandle` waits locally (``wait()``, ``done()``, ``exception()``) and
        holds the job totals in ``stats`` once done. Collective under MPI (the snapshot
        and the checks); the save itself runs on a duplicated communicator.
        """
        unknown = set(kwargs) - {"region", "shape", "chunks", "shards", "policy",
                                 "compressors", "overwrite"}
        if unknown:
            raise TypeError(f"save_async: unexpected keyword arguments {sorted(unknown)}")
        self._wait_job()
        target = self.fast if self.fast is not None else self
        prepared = target._prepare(
            step, arrays, attrs, kwargs.get("region"), kwargs.get("shape"),
            kwargs.get("chunks"), kwargs.get("shards"), kwargs.get("policy"),
            kwargs.get("compressors", "auto"), kwargs.get("overwrite", False), self._snapshots)
        worker = self._background()
        drain = self._drain_due()
        wtarget = worker.fast if worker.fast is not None else worker

        def work():
            stats = wtarget._save_prepared(*prepared)
            if drain:
                worker._drain(prepared[0])
            return stats

        self._job = SaveHandle(prepared[0], work)
        return self._job

    def _drain_due(self) -> bool:
        self._saves += 1
        return self.fast is not None and self._saves % self.drain_every == 0

    def _after_save(self, step: int) -> None:
        """After a synchronous save: start the drain to the durable tier when it is due."""
        if self._drain_due():
            worker = self._background()
            self._job = SaveHandle(step, lambda: worker._drain(step))

    def _prepare(self, step, arrays, attrs, region, shape, chunks, shards, policy,
                 compressors, overwrite, snapshots):
        """Checks on every rank, agreed; the snapshot copies when asynchronous."""
        error, jobs = None, {}
        try:  # checked on every rank, then agreed: one rank raising alone would hang the rest
            step, attrs, jobs = self._check_save(step, arrays, attrs, region, shape, chunks)
            if policy not in (None, "node", "decomposition"):
                raise ValueError(f"policy: expected 'node', 'decomposition' or None, got {policy!r}")
            if snapshots is not None:
                jobs = {name: (snapshots.take(name, v), *rest) for name, (v, *rest) in jobs.items()}
        except Exception as exc:  # noqa: BLE001
            error = exc
        _agree(self._c, error, "checkpoint save", quiet=True)
        return step, attrs, jobs, shards, policy, compressors, overwrite

    def _save_prepared(self, step, attrs, jobs, shards, policy, compressors, overwrite) -> dict:
        """The collective save of checked jobs, on this object's communicator."""
        t0 = time.perf_counter()
        group = step_name(step)
        info = {"step": step, "committed": False, "arrays": list(jobs)}
        self._on_root(lambda: self._begin(group, info, attrs, overwrite), f"checkpoint {group}")
        for name, (value, reg, shp, chk) in jobs.items():
            shd = shards if isinstance(shards, dict) and "shape" in shards else _pick(shards, name)
            self._write_array(f"{group}/{name}", value, reg, shp, chk, shd, policy, compressors)
        # every rank's data is stored (the writes end with an agreement): flush, commit
        stats = self._flush(group)
        retired, commit_bytes = self._on_root(
            lambda: (self._commit(group, dict(info, committed=True), attrs),
                     self._commit_bytes(group)), f"checkpoint {group}")
        stats["bytes_written"] += commit_bytes
        if retired:
            self._erase_steps(retired)
        elapsed = time.perf_counter() - t0
        stats["seconds"] = elapsed if self.comm is None else self._c.allreduce(elapsed, op=_max_op())
        return stats

    def _flush(self, group: str) -> dict:
        """Make the step durable before its commit (every rank flushes a share of its
        files and directories) and count what the save created."""
        def scan():
            files, dirs = list_step(self.store, group)
            return [p for p, _ in files], dirs, sum(n for _, n in files)

        files, dirs, nbytes = self._on_root(scan, f"checkpoint {group}")
        rank, size = self._c.Get_rank(), self._c.Get_size()
        fsyncs, error = 0, None
        if self.durable and dirs:  # a LocalStore: paths
            try:
                fsyncs = flush_step((files + dirs)[rank::size])
            except Exception as exc:  # noqa: BLE001
                error = exc
        _agree(self._c, error, f"checkpoint {group}: flush")
        fsyncs = self._c.allreduce(fsyncs)
        stats = empty_stats()
        # + the commit: the step group's and the root's zarr.json rewritten (temp + rename)
        commit_files = 2
        stats.update(files_created=len(files) + commit_files, dirs_created=len(dirs),
                     renames=len(files) + commit_files, fsyncs=fsyncs, bytes_written=nbytes)
        return stats

    def _commit_bytes(self, group: str) -> int:
        from zarrhpc.storage.local import LocalStore

        if not isinstance(self.store, LocalStore):
            return 0
        import os

        return sum(os.path.getsize(self.store._path(k)) for k in (meta_key(group), meta_key(""))
                   if os.path.exists(self.store._path(k)))

    # -- two tiers ---------------------------------------------------------------------
    def _drain(self, step: int) -> None:
        """Copy committed step ``step`` of the fast tier to this (durable) store and commit
        it here (collective on this object's communicator: every rank copies a share)."""
        group = step_name(step)
        src = self.fast.store

        def begin():
            md = read_node(src, group)
            stored = dict(md.attributes)
            info = dict(stored.pop(ATTR), committed=False)
            self._begin(group, info, stored, overwrite=True)
            keys = sorted(k for k in src.list_prefix(f"{group}/") if k != meta_key(group))
            return keys, info, stored

        keys, info, attrs = self._on_root(begin, f"checkpoint {group}: drain")
        error = None
        try:
            rank, size = self._c.Get_rank(), self._c.Get_size()
            for key in keys[rank::size]:
                value = src.get(key)
                if value is None:
                    raise CheckpointError(f"{key}: vanished from the fast tier while draining")
                self.store.set(key, value)
        except Exception as exc:  # noqa: BLE001
            error = exc
        _agree(self._c, error, f"checkpoint {group}: drain")
        self._flush(group)
        retired = self._on_root(lambda: self._commit(group, dict(info, committed=True), attrs),
                                f"checkpoint {group}: drain")
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

    def _write_array(self, path, value, region, shape, chunks, shards, policy,
                     compressors) -> None:
        kwargs = {"chunks": "auto" if chunks is None else chunks, "compressors": compressors}
        if shards is not None:
            kwargs["shards"] = shards
        if self.comm is None:
            a = zarrhpc.create_array(self.store, name=path, shape=value.shape, dtype=value.dtype,
                                     overwrite=True, **kwargs)
            a[...] = value
            return
        from zarrhpc import mpi as zmpi
        from zarrhpc.mpi.nodes import node_map

        if shape is None:  # one rank (checked): the whole array
            shape = value.shape
        shape = tuple(int(n) for n in shape)
        if region is None:  # one rank: the whole array
            region = tuple(slice(0, n) for n in shape)
        nodes = node_map(self.comm)
        if policy is None:
            policy = "node" if shards is not None and nodes.nnodes > 1 else "decomposition"
        if policy == "node" and shards is None:
            kwargs["chunks"], kwargs["shards"] = self._node_shards(
                region, shape, chunks, value.dtype, nodes)
        a = zmpi.create_array(self.comm, self.store, name=path, shape=shape,
                              dtype=value.dtype, overwrite=True, **kwargs)
        own = zmpi.Ownership(a, self.comm, "node", regions=region) if policy == "node" else None
        zmpi.write(a, region, value, self.comm, ownership=own)

    def _node_shards(self, region, shape, chunks, dtype, nodes):
        """(inner chunks, shards) under which each node's region is whole shards: the
        regions of up to ``shards_per_node`` groups of its ranks, each a shard or more."""
        from zarrhpc.core.api import _normalize_chunks
        from zarrhpc.mpi.partition import choose_shards, node_boxes, writer_groups

        box = normalize_region(region, shape, "region")
        boxes = self._c.allgather(box)
        nboxes = node_boxes(boxes, nodes.node_of)
        inner = list(_normalize_chunks(chunks, shape, np.dtype(dtype).itemsize))
        if chunks is None:  # auto: a chunk length that divides the node boundaries
            for axis, c in enumerate(inner):
                cuts = {v for b in nboxes if b is not None for v in b[axis]} - {0, shape[axis]}
                g = math.gcd(*cuts) if cuts else 0
                if g and g % c:
                    fit = max((d for d in range(1, c + 1) if g % d == 0), default=1)
                    if 4 * fit >= c:
                        inner[axis] = fit
        groups = node_boxes(boxes, writer_groups(nodes.node_of, self.shards_per_node))
        return tuple(inner), choose_shards(shape, inner, groups)

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
        self._wait_job()
        if self.fast is not None:  # the newest complete step of either tier
            fast = self.fast._scan_all()[0]
            if (step is None and fast and fast[-1] >= max(self._scan_all()[0], default=-1)) or (
                    step is not None and step in fast):
                return self.fast.load(step, names, region, method=method)
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


def _max_op():
    from zarrhpc.mpi.collective import _mpi  # under MPI only: importing it starts MPI

    return _mpi().MAX


def _pick(value, name: str):
    """A per-name value from a dict, or the same value for every name."""
    if isinstance(value, dict):
        return value.get(name)
    return value
