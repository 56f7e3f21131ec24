/* Point (vindex, coordinate) and orthogonal (oindex) reads of the native engine (masks:
 * csrc/zh_mask.h, through zh_sel_gather below).
 *
 * Both run one task per touched chunk on the engine's pool (csrc/zh_pool.c), each chunk
 * opened and decoded once, with the GIL released by the caller.  They share the
 * engine's job (zh_job_t: geometry, codec chain, fill value, store, per-task status and
 * first error) and add what the selection is.  A task reads only what it needs when it
 * can: the byte runs holding its elements from an uncompressed chunk file (neighbours
 * coalesced), the internal blocks holding them from a blosc chunk; otherwise the whole
 * chunk, decoded once.  Every index is checked against the chunk and the result before
 * memory is touched.  Chunks the engine cannot decode are FALLBACK for the caller.
 * No Python.h.
 *
 * Measured (wave 5, the 2-core VM under load, CPU time per call; issue 15's W4/W8-W11):
 * - W4 8x8x8 box of an uncompressed 64^3 float32 chunk: 13 us, of which the kernel
 *   takes two thirds: the root's O_PATH open + close 1.3 us (now once per call), the
 *   chunk's openat2 + close 1.8, fstat 0.28, 8 preads of 1824 bytes 0.33 each (cold
 *   page-cache bytes: _copy_to_iter and the page lookups are most of it); 1.3 chunks per
 *   read.  Blosc: + LZ4 of 8 blocks (~5.7 us) and the wanted blocks' bytes.
 * - W8 uncompressed (~195 random points per 1 MiB chunk): per chunk, one 1 MiB pread
 *   ~100 us, one pread per touched 4 KiB page ~100 us, 195 preads of 4 bytes ~80 us,
 *   mmap + MAP_POPULATE ~133 us, mmap with demand faults ~102 us (faults cost several
 *   us each on this VM): whole-chunk preads stay; no way found past the copy floor.
 * - Blosc blocks (8 KiB, 128 per chunk) that 100 000 random points touch: 78 % (W8),
 *   78 % of 16 per 32^3 inner chunk (W11), 100 % for the 1 % mask (W10): those decode
 *   whole chunks; W9 (64 indices per axis) touches ~12 % and decodes only those.
 *
 * Wave 7 (load average 8-17 on the 2 cores: CPU times, side by side with main):
 * - W8 blosc profile: LZ4 ~31 %, the page-cache copy of the compressed chunk ~38 %
 *   (_copy_to_iter + page lookups), unshuffle 3 %, qsort of the points' ranges 3 %,
 *   Python ~5 ms of ~120.  Now more than half but not all blocks wanted: the whole
 *   chunk read, one c-blosc2 decode told to skip the others (zh_blosc_blocks), the
 *   blocks marked without a sort: W8 blosc 123 -> 108 ms, W11 128 -> 113 ms CPU.
 *   What is left is the copy of the compressed bytes (the gaps between wanted blocks
 *   are shorter than a system call is worth) and LZ4 of the wanted blocks.
 * - W8 none: one 4-byte pread ~0.5 us, one 1 MiB pread ~155 us CPU under this load:
 *   ZH_RUN_GAP/COST 4096 (was 8192) read ~90 runs per chunk instead of the whole chunk,
 *   60 -> 53 ms; the ranges' qsort (~6 %) is a radix sort now.  Not tried: io_uring
 *   (the ~0.5 us per pread is mostly the page lookup and copy, not the system call).
 *
 * Wave 9 (load 6-16; CPU time per read, base and new side by side):
 * - W11 sharded vindex blosc (~110-118 ms CPU): LZ4 of the wanted blocks 38 %, the
 *   copy of the inner chunks' compressed bytes 25 % + page-cache lookups 10 % (4,096
 *   inner chunks of 8 shard files of ~50 MB: a deeper page tree than W8's 1 MiB files),
 *   unshuffle 3 %; the Python side (projection 4.5 ms, shard indexes 0.4 ms) is small:
 *   nothing of ours left to cut that measures.  The points touch 12 of an inner chunk's
 *   16 blocks: LZ4 of those is the floor short of smaller blosc blocks (a format
 *   choice that would slow W5's whole reads).
 * - Tried, not kept: un-shuffling only the wanted elements of each decoded block (our
 *   own blosc form, each wanted block decompressed once): W8/W11 (1-2 floats per block)
 *   unchanged within noise (90.7-91.3 vs 90.7-92.2 ms, 110-117 vs 108-120 ms); W10's
 *   1 % mask (~20 floats per block) 15-30 % slower: each element written alone into
 *   the decoded chunk's scratch missed the cache once, where the whole block's
 *   un-shuffle streams its writes.
 * - W10 blosc: two divisions per one-element range marking the touched blocks were
 *   ~4 %: shifts for power-of-two blocks (chunk_view).
 * - W8 none / blosc: no new idea that measured faster (mmap of chunk files: faults cost
 *   as much as the copy on this VM, and a file truncated by another program would
 *   raise SIGBUS in the engine).
 *
 * Wave 10: the selection writes (point, orthogonal, mask) are the engine's too
 * (csrc/zh_sel_write.c, figures there); wave 11 into shards (csrc/zh_shard_sel.c).
 * W8 / W11 reads: nothing new tried; the floors above stand (the copy of the chunks'
 * bytes and LZ4 of the wanted blocks).
 *
 * Wave 11, the floor measured (ZH_FLOOR_*: zarrhpc bench's floor rows; CPU per read, all
 * threads, medians of 5 in turning rounds, load 8-9):
 * - The bench's blosc-lz4 chunks differ by writer: ours 8 KiB blocks (128 per 64^3 chunk,
 *   16 per 32^3 inner chunk, ratio 1.26); zarr-python's, zarrs' and tensorstore's (all
 *   c-blosc1, blocksize 0) 512 KiB (2 per chunk) and 128 KiB (1 per inner chunk), 1.44.
 * - W8: ours 174 ms, its floor (each touched chunk fetched and decoded whole, nothing
 *   gathered) 170, floor-blocks 170; on zarr-python's bytes ours 197, floor 183;
 *   tensorstore 303.  W11: ours 165, floor 178, floor-blocks 162; on zarr-python's
 *   bytes ours 191, floor 184; tensorstore 361.  The selection work is within noise of
 *   nothing: 3x the best peer would need a third of the bare fetch + decode of the
 *   touched chunks.  Partial decode (the wanted blocks only) saves nothing measurable:
 *   78 % of our 8 KiB blocks are touched, and on the peers' layout every block is. */
#ifndef ZH_SELECT_H
#define ZH_SELECT_H

#include <stdint.h>
#include <string.h>

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
    char *out;                   /* reads: the result; writes: the values (native order) */
    int64_t out_size;
    int scalar;                  /* writes: out holds one value, set at every point */
    int floor;                   /* reads: ZH_FLOOR_* (zarrhpc bench's floor rows) */
} zh_points_t;

/* A point read that fetches and decodes but gathers nothing (out is not touched): the
 * floor of a selection read that `zarrhpc bench` reports beside it.  WHOLE: each touched
 * chunk read and decoded whole (what every peer does); BLOCKS: only what the points
 * need, as a real read (the wanted blosc blocks, the uncompressed runs). */
enum { ZH_FLOOR_NONE = 0, ZH_FLOOR_WHOLE = 1, ZH_FLOOR_BLOCKS = 2 };

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
 * internal blocks holding the box's rows are read and decoded.  For csrc/zh_read.c's
 * small reads of blosc chunks. */
int zh_box_view(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                const int64_t *first, const int64_t *count, const int64_t *cstrides,
                const char **base);

/* Run every chunk of a point (orthogonal) read on nthreads threads.  Returns ZH_OK or
 * the first failure's code (details in the job's err_*). */
int zh_points_run(zh_points_t *pj, int nthreads);
/* The point write (csrc/zh_sel_write.c): each chunk read, point i set to
 * out[out_index[i]] in point order (a repeated point ends with its last value, as
 * numpy's assignment), encoded and written atomically, or erased when all fill and not
 * write_empty_chunks (the job's write target).  Returns as zh_points_run. */
int zh_points_write_run(zh_points_t *pj, int nthreads);
int zh_ortho_run(zh_ortho_t *oj, int nthreads);
/* The orthogonal write (csrc/zh_sel_write.c): the job's buffer is the value (full
 * shape, any strides), q_out places along its dimensions; each touched chunk read
 * (unless every element is set), merged, encoded, written atomically or erased as in
 * zh_points_write_run. */
int zh_ortho_write_run(zh_ortho_t *oj, int nthreads);

/* ---- shared with csrc/zh_mask.c (mask reads) and csrc/zh_sel_write.c ---- */

/* One element of itemsize bytes from src to dst, each swap-byte component reversed
 * when swap > 1 (stored <-> native byte order). */
static inline void zh_put_elem(char *dst, const char *src, int64_t itemsize, int swap) {
    if (swap <= 1) {
        if (itemsize == 4) memcpy(dst, src, 4);
        else if (itemsize == 8) memcpy(dst, src, 8);
        else memcpy(dst, src, (size_t)itemsize);
        return;
    }
    for (int64_t c = 0; c < itemsize; c += swap)
        for (int b = 0; b < swap; b++) dst[c + b] = src[c + swap - 1 - b];
}

/* Start task t: 0 when it must not run (an earlier task failed: marked skipped; out of
 * memory: failed), else 1 with the thread's working context in *w. */
int zh_sel_begin(zh_job_t *job, int64_t t, zh_wctx **w);
/* Task t's m elements at byte offsets offs of its decoded chunk at coords (only their
 * bytes are read when possible) into out[dst[i]] (the fill value for a missing chunk);
 * sets the task's status: done, fallback, or failed with the job's error. */
void zh_sel_gather(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                   const int64_t *offs, const int64_t *dst, int64_t m, char *out);

/* Chunk k of a point job: its points' byte offsets in the decoded chunk (malloc'ed, the
 * caller frees; *m of them), each point checked inside its chunk and its place
 * (out_index) inside out_size; NULL when task t failed (done here; t is k but for
 * zh_shard_points_write_run, whose tasks are shards). */
int64_t *zh_point_offsets(zh_points_t *pj, int64_t k, int64_t t, int64_t *m);

/* Point writes into shards (csrc/zh_shard_sel.c): the point job's chunks are inner
 * chunks, grouped by shard: shard s (grid coordinates shard_coords[s*ndim ...]) holds
 * the point job's chunks member[first[s] .. first[s+1]), member_flat[...] their places
 * in the shard's index (C order over the nchunks_per_shard inner chunks).  The index is
 * little-endian uint64 (offset, length) pairs, at the start or the end, a crc32c after
 * it with index_crc. */
typedef struct {
    zh_points_t *pj;
    int64_t nshards, nchunks_per_shard;
    const int64_t *shard_coords, *first, *member, *member_flat;
    int index_start, index_crc;
} zh_shard_points_t;
/* One task per shard: the stored shard read once and its index checked, its touched
 * inner chunks merged as zh_points_write_run does, the others kept as stored, the shard
 * written atomically (or erased when no inner chunk is left).  task_status and err_task
 * are per shard; FALLBACK (a corrupt shard, a codec the engine cannot run) wrote
 * nothing. */
int zh_shard_points_write_run(zh_shard_points_t *sp, int nthreads);

/* Set element i at byte offset offs[i] of a decoded chunk to the value at byte
 * src[i] * src_scale of values (the first value for all when scalar; native order,
 * swapped to the stored order), in order. */
void zh_sel_put(const zh_job_t *job, char *chunk, const int64_t *offs, const int64_t *src,
                int64_t src_scale, int64_t m, const char *values, int scalar);
/* Task t of an orthogonal job: its chunk's coords, and per dimension where its index
 * list starts in q_in/q_out and its length, each index checked inside the chunk and
 * its place inside full_shape; *nelem the product.  0, or -1 when the task failed. */
int zh_ortho_lists(zh_ortho_t *oj, int64_t t, int64_t *coords, int64_t *start,
                   int64_t *count, int64_t *nelem);

/* Task t's chunk at coords after a selection write (csrc/zh_sel_write.c): the stored
 * chunk is read and decoded (not when covered: every element is set here), element i
 * at byte offset offs[i] set to the value at byte src[i] * src_scale of values (the
 * first value for all when scalar; native order, swapped to the stored order) in order,
 * then the chunk encoded and written atomically (temporary file, rename), or erased
 * when it equals the fill value and the job does not write empty chunks.  Offsets and
 * value places are the caller's checked ones.  Sets the task's status: done, fallback
 * (a chunk the Python codecs must decode or encode; nothing written), or failed with
 * the job's error. */
void zh_sel_scatter(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                    const int64_t *offs, const int64_t *src, int64_t src_scale, int64_t m,
                    const char *values, int scalar, int covered);

#endif
