"""Benchmarks of zarrhpc.indexing: parsing a selection and planning it over a chunk grid.

The plan (which chunks, which part of each, where it lands) is built once per request, so
its cost is a fixed cost of every read and write: it must stay small next to the I/O even
for big grids (issue 3: "selection plan built once, vectorised"). Uses the public names of
`zarrhpc.indexing`; a benchmark whose function is gone is skipped, not failed.
"""

import zarrhpc.indexing as indexing

#: name -> (array shape, chunk shape, selection)
CASES = {
    # W3: the unaligned sub-volume of the 512^3 standard array (6 x 5 x 8 chunks)
    "w3-subvolume": ((512, 512, 512), (64, 64, 64),
                     (slice(100, 400), slice(37, 300), slice(5, 500))),
    # W7: the whole 4096^2 array in 64^2 chunks (4096 chunks)
    "w7-full": ((4096, 4096), (64, 64), (Ellipsis,)),
    # a strided, reversed selection over many chunks
    "stepped": ((4096, 4096), (64, 64), (slice(None, None, -3), slice(7, 4000, 5))),
    # one element of a huge grid (10^10 chunks): the plan must not grow with the grid
    "element-huge-grid": ((10**6, 10**6), (10, 10), (123456, 654321)),
    # a thin slab across a huge grid: 10^4 chunks
    "slab-huge-grid": ((10**6, 10**6), (10, 100), (slice(0, 10), slice(None))),
}


def _require(name):
    func = getattr(indexing, name, None)
    if func is None:
        raise NotImplementedError(f"zarrhpc.indexing.{name} is gone")
    return func


class Selection:
    """Normalising a selection against the array shape (per request, per dimension)."""

    params = [list(CASES)]
    param_names = ["case"]

    def setup(self, case):
        self.normalize = _require("normalize_basic_selection")
        self.shape, _, self.selection = CASES[case]

    def time_normalize(self, case):
        self.normalize(self.selection, self.shape)


class Projection:
    """The per-chunk iterator (one ChunkProjection object per chunk touched)."""

    params = [list(CASES)]
    param_names = ["case"]

    def setup(self, case):
        normalize = _require("normalize_basic_selection")
        self.project = _require("iter_chunk_projections")
        shape, self.chunks, selection = CASES[case]
        self.selection = normalize(selection, shape)

    def time_iter_projections(self, case):
        for _ in self.project(self.selection, self.chunks):
            pass

    def track_chunks(self, case):
        """Chunks in the plan."""
        return sum(1 for _ in self.project(self.selection, self.chunks))

    track_chunks.unit = "chunks"


class Plan:
    """The plan the native engine takes: per-dimension pieces as int64 arrays (the
    chunks are their product, never enumerated in Python)."""

    params = [list(CASES)]
    param_names = ["case"]

    def setup(self, case):
        normalize = _require("normalize_basic_selection")
        self.plan_chunks = _require("plan_chunks")
        shape, self.chunks, selection = CASES[case]
        self.selection = normalize(selection, shape)

    def time_plan_chunks(self, case):
        self.plan_chunks(self.selection, self.chunks).arrays()
