/* Point (vindex, coordinate, mask) and orthogonal (oindex) reads of the native engine.
 *
 * Both run one task per touched chunk on the engine's pool (csrc/zh_pool.c), each chunk
 * opened and decoded once, with the GIL released by the caller.  They share the
 * engine's job (zh_job_t: geometry, codec chain, fill value, store, per-task status and
 * first error) and add what the selection is.  A task reads only what it needs when it
 * can: the byte runs holding its elements from an uncompressed chunk file (neighbours
 * coalesced), the internal blocks holding them from a blosc chunk; otherwise the whole
 * chunk, decoded once.  Every index is checked against the chunk and the result before
 * memory is touched.  Chunks the engine cannot decode are FALLBACK for the caller.
 * No Python.h. */
#ifndef ZH_SELECT_H
#define ZH_SELECT_H

#include <stdint.h>

#include "zh_engine.h"

/* Points: chunk k (task k) holds points offsets[k] .. offsets[k+1]; point i's
 * coordinates inside its chunk are in_chunk[i*ndim .. i*ndim+ndim), its element goes to
 * out[out_index[i]] (a contiguous result of out_size elements). */
typedef struct {
    zh_job_t *job;               /* mem_ptr/mem_len and task_status are per chunk */
    int64_t nchunks, npoints;
    const int64_t *chunk_coords; /* nchunks * ndim */
    const int64_t *offsets;      /* nchunks + 1 */
    const int64_t *in_chunk;     /* npoints * ndim */
    const int64_t *out_index;    /* npoints */
    char *out;
    int64_t out_size;
} zh_points_t;

/* Orthogonal: the job's per-dimension pieces (npieces, piece_off, p_chunk) name the
 * touched chunks; piece k selects the indices q_in[q_start[k] .. q_start[k]+q_count[k])
 * inside its chunk, which land at q_out[...] along that dimension of the job's buffer
 * (buf, buf_strides; full_shape bounds q_out).  Tasks: the product of pieces, last
 * dimension fastest. */
typedef struct {
    zh_job_t *job;
    const int64_t *q_start, *q_count; /* per piece */
    const int64_t *q_in, *q_out;      /* concatenated over pieces */
    int64_t nq;                       /* length of q_in and q_out */
    const int64_t *full_shape;        /* ndim */
} zh_ortho_t;

/* What zh_box_view found: the chunk's view, a missing chunk (the fill value), a chunk
 * the Python codecs must decode, or a failure (the task is failed already). */
enum { ZH_VIEW_OK = 0, ZH_VIEW_MISSING = 1, ZH_VIEW_FALLBACK = 2, ZH_VIEW_FAILED = 3 };

/* A view (*base: the chunk's first byte) of task t's decoded chunk at coords in which
 * every element of the box is valid: count[d] elements from first[d] along each
 * dimension, cstrides[d] bytes apart in the decoded chunk.  From a blosc chunk only the
 * internal blocks holding the box's rows are read and decoded.  For csrc/zh_engine.c's
 * small reads of blosc chunks. */
int zh_box_view(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                const int64_t *first, const int64_t *count, const int64_t *cstrides,
                const char **base);

/* Run every chunk of a point (orthogonal) read on nthreads threads.  Returns ZH_OK or
 * the first failure's code (details in the job's err_*). */
int zh_points_run(zh_points_t *pj, int nthreads);
int zh_ortho_run(zh_ortho_t *oj, int nthreads);

#endif
