/* Boolean-mask reads and writes of the native engine, one task per chunk of the grid, without a
 * list of points: a counting pass over the mask (zh_mask_count), then per-chunk tasks
 * (zh_mask_run) that gather their elements through csrc/zh_select.c's chunk view.
 * Shares the engine's job (zh_job_t) like the point and orthogonal reads (zh_select.h).
 * No Python.h. */
#ifndef ZH_MASK_H
#define ZH_MASK_H

#include <stdint.h>

#include "zh_engine.h"

/* Mask: a full-shape boolean mask (mask[i] != 0 selects element i, C order), read one
 * task per chunk of the grid (C order) without a list of points.  zh_mask_count scans
 * the mask in blocks of ZH_MASK_BLOCK_ROWS rows on the pool (rows = prod(shape[:-1])
 * rows of nseg = grid[-1] segments: a row segment is the part of a row inside one
 * chunk), keeps each segment's elements as bits (wps = ceil(chunk_shape[-1] / 64) words
 * per segment) and its rank: rank[s * rows + r] + rank[rows * nseg + r / BLOCK] is the
 * result index of segment (r, s)'s first selected element (segment-major places: a
 * chunk's rows are consecutive; the first term counts inside the row's block, the
 * second is the block's first rank), rank[rows * nseg + nblocks] the total.  A task
 * then reads its segments' bits and ranks, and the selected elements of its chunk into
 * out[rank...], opening only chunks that hold any. */
#define ZH_MASK_BLOCK_ROWS 256
/* entries of the rank array: rows * nseg + nblocks + 1 */
#define ZH_MASK_RANKS(rows, nseg) \
    ((rows) * (nseg) + ((rows) + ZH_MASK_BLOCK_ROWS - 1) / ZH_MASK_BLOCK_ROWS + 1)

typedef struct {
    zh_job_t *job;
    const uint64_t *bits;        /* rows * nseg * wps */
    const int64_t *shape, *grid; /* ndim each */
    const int64_t *rank;         /* ZH_MASK_RANKS(rows, nseg) */
    char *out;                   /* reads: the result; writes: the values (native order) */
    int64_t out_size;            /* the selection's elements (result places) */
    int scalar;                  /* writes: out holds one value, set at every place */
} zh_mask_t;

void zh_mask_count(const uint8_t *mask, int64_t rows, int64_t row_len, int64_t seg_len,
                   int64_t *rank, uint64_t *bits, int nthreads);
int zh_mask_run(zh_mask_t *mj, int64_t ntasks, int nthreads);
/* The mask write: each chunk holding selected elements read (unless wholly selected),
 * the values at their places (mj->out[rank...]) merged in, encoded and written
 * atomically, or erased when all fill and not write_empty_chunks (the job's write
 * target: array_shape, path_prefix, write_empty_chunks, durable); see zh_sel_scatter. */
int zh_mask_write_run(zh_mask_t *mj, int64_t ntasks, int nthreads);

#endif
