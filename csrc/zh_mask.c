/* Boolean-mask reads and writes of the native engine, chunk by chunk.  See zh_mask.h. */
#include "zh_mask.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "zh_pool.h"
#include "zh_select.h"
#include "zh_job.h"

/* Measured on W10 (a 1 % mask of a float32 512^3 array, chunks 64^3, 1.34 M points):
 * the mask -> points path (one scan building per-point chunk, coordinates and rank
 * arrays: ~110 MB of fresh memory per read, then a counting sort) spent a third of its
 * CPU time zeroing those pages (clear_page) and another sixth in the single-threaded
 * scan.  Here the counts go to one int64 per row segment (16 MB for W10), counted on the
 * pool, and every task finds its points in its own part of the mask.
 * Wave 9 (perf, load 6-16, CPU per read side by side with the earlier form): the count
 * and the per-chunk pass were 56 % of W10 none (count 23 %: a multiply per 8 bytes;
 * tasks 30 %: a mispredicted branch per row on how many bits it holds, a second column
 * of ranks read to count them, bits and ranks missed in cache in 64 runs of 512 bytes;
 * the ranks' prefix on one thread 2 %).  Now SSE2 compares, popcounts, ranks per block
 * of rows, one pass with read-ahead and a branch-free first 4 bits per row: W10 none
 * ~105 -> ~75 ms, blosc ~178 -> ~131 ms (with zh_select.c's block shifts).  What is
 * left: the copy of the chunks' bytes (none ~30 %), LZ4 (blosc ~32 %), and reading the
 * 128 MB mask once (memory-bound, ~15 %). */

static inline uint64_t word8(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Bit 8*j set where byte j of v is not zero (any value counts as true). */
static inline uint64_t nz_bytes(uint64_t v) {
    v |= v >> 4;
    v |= v >> 2;
    v |= v >> 1;
    return v & 0x0101010101010101ull;
}

/* The true bytes of v (nz_bytes form) packed into the low 8 bits. */
static inline uint64_t pack8(uint64_t nz) { return (nz * 0x0102040810204080ull) >> 56; }

/* Set bits of w (no POPCNT instruction assumed: the build has no -march). */
static inline int64_t popcount64(uint64_t w) {
#ifdef __POPCNT__
    return __builtin_popcountll(w);
#else
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int64_t)((w * 0x0101010101010101ull) >> 56);
#endif
}

typedef struct {
    const uint8_t *mask;
    int64_t rows, row_len, seg_len, nseg, wps;
    int64_t *rank;
    uint64_t *bits;
} count_ctx;

/* Rows [r0, r1) (one block of ZH_MASK_BLOCK_ROWS rows): each segment's elements as
 * bits (bit l of word l / 64: element l of the segment) and its rank inside the block
 * (the selected elements before it, C order, from the block's first row), both at
 * segment-major places (s * rows + r), so that a chunk's task later reads consecutive
 * entries; the block's count at rank[rows * nseg + t]. */
static void count_task(void *arg, int64_t t) {
    count_ctx *c = (count_ctx *)arg;
    int64_t r0 = t * ZH_MASK_BLOCK_ROWS, r1 = r0 + ZH_MASK_BLOCK_ROWS, acc = 0;
    if (r1 > c->rows) r1 = c->rows;
    for (int64_t r = r0; r < r1; r++) {
        const uint8_t *row = c->mask + r * c->row_len;
        for (int64_t s = 0; s < c->nseg; s++) {
            int64_t a = s * c->seg_len, b = a + c->seg_len;
            if (b > c->row_len) b = c->row_len;
            uint64_t *bw = c->bits + (s * c->rows + r) * c->wps;
            int64_t n = 0;
            for (int64_t w = 0; w < c->wps; w++) {
                uint64_t word = 0;
                int64_t k0 = a + 64 * w, k1 = k0 + 64 < b ? k0 + 64 : b, k = k0;
#ifdef __SSE2__
                /* 16 bytes at a time: compare with zero, one bit per byte */
                for (; k + 16 <= k1; k += 16) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(row + k));
                    uint32_t z = (uint32_t)_mm_movemask_epi8(
                        _mm_cmpeq_epi8(v, _mm_setzero_si128()));
                    word |= (uint64_t)(~z & 0xffffu) << (k - k0);
                }
#endif
                for (; k + 8 <= k1; k += 8) {
                    uint64_t v = word8(row + k);
                    if (v) word |= pack8(nz_bytes(v)) << (k - k0);
                }
                for (; k < k1; k++)
                    if (row[k]) word |= 1ull << (k - k0);
                n += popcount64(word);
                bw[w] = word;
            }
            c->rank[s * c->rows + r] = acc;
            acc += n;
        }
    }
    c->rank[c->rows * c->nseg + t] = acc;
}

void zh_mask_count(const uint8_t *mask, int64_t rows, int64_t row_len, int64_t seg_len,
                   int64_t *rank, uint64_t *bits, int nthreads) {
    int64_t nseg = (row_len + seg_len - 1) / seg_len;
    count_ctx c = {mask, rows, row_len, seg_len, nseg, (seg_len + 63) / 64, rank, bits};
    int64_t nblocks = (rows + ZH_MASK_BLOCK_ROWS - 1) / ZH_MASK_BLOCK_ROWS;
    if (nseg > 0)
        zh_pool_run(count_task, &c, nblocks, nthreads);
    else
        for (int64_t b = 0; b < nblocks; b++) rank[b] = 0;
    /* the blocks' counts -> their first ranks (the ranks of the segments are relative
     * to their block: no pass over all of them on one thread) */
    int64_t *blk = rank + rows * nseg, acc = 0;
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t v = blk[b];
        blk[b] = acc;
        acc += v;
    }
    blk[nblocks] = acc;
}

/* Task t's chunk of the grid (C order): its grid coordinates, and the byte offsets in
 * the decoded chunk (*offs) and result places (*dst) of its selected elements (*k of
 * them, malloc'ed: the caller frees both), and in *covered whether they are all the
 * chunk's elements (a chunk inside the array, wholly selected).  0, or -1 when the task failed
 * (done here). */
static int mask_find(zh_mask_t *mj, int64_t t, int64_t *coords, int64_t **offs_out,
                     int64_t **dst_out, int64_t *k_out, int *covered) {
    zh_job_t *job = mj->job;
    int nd = job->ndim, last = nd - 1;
    int64_t first[ZH_MAX_DIMS], count[ZH_MAX_DIMS], rstride[ZH_MAX_DIMS];
    int64_t rest = t, rows = 1, rs = 1;
    int inside = 1;
    for (int d = last; d >= 0; d--) {
        coords[d] = rest % mj->grid[d];
        rest /= mj->grid[d];
        first[d] = coords[d] * job->chunk_shape[d];
        count[d] = mj->shape[d] - first[d];
        if (count[d] > job->chunk_shape[d]) count[d] = job->chunk_shape[d];
        if (count[d] != job->chunk_shape[d]) inside = 0;
        if (d < last) {
            rstride[d] = rs; /* rows of the array are C order over the outer dims */
            rs *= mj->shape[d];
            rows *= count[d];
        }
    }
    int64_t s = coords[last], nrows_all = rs, wps = (job->chunk_shape[last] + 63) / 64;
    const int64_t *rank_s = mj->rank + s * nrows_all;            /* this chunk's segment */
    const uint64_t *bits_s = mj->bits + s * nrows_all * wps;    /* column (segment-major) */
    const int64_t *rank_blk = mj->rank + mj->grid[last] * nrows_all; /* blocks' ranks */
    /* The chunk's rows come in runs of consecutive array rows g (its extent along the
     * second-last dimension; the run's bits and ranks are consecutive entries), the runs
     * an odometer over the outer dimensions (g and co, the run's byte offset in the
     * chunk, kept up to date: no product per row).  One pass: each set bit's offset in
     * the chunk and place in the result, into arrays grown as needed.  A row's first
     * ZH_MASK_UNROLL bits are written without a branch on how many there are (a sparse
     * mask's rows hold 0, 1 or 2 at random: that branch mispredicted on most rows); the
     * entries past the row's count are scratch, overwritten next.  The next run's bits
     * and ranks are read ahead (a step of the third-last dimension away: the processor's
     * own prefetch does not follow these short runs).  Bits past the chunk's edge (none
     * from zh_mask_count) and places outside the result fail the task before any offset
     * is used. */
#define ZH_MASK_UNROLL 4
    int64_t run = last >= 1 ? count[last - 1] : 1, nruns = run ? rows / run : 0;
    int64_t lsr = last >= 1 ? job->chunk_lstrides[last - 1] : 0, ls = job->chunk_lstrides[last];
    int64_t ahead = last >= 2 ? rstride[last - 2] : run;
    int64_t wfull = count[last] / 64, rem = count[last] % 64, out_size = mj->out_size;
    int64_t cap = 1024, k = 0;
    int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * (size_t)cap);
    int64_t *dst = (int64_t *)malloc(sizeof(int64_t) * (size_t)cap);
    uint64_t bad = 0;
    int64_t idx[ZH_MAX_DIMS] = {0}, g = 0, co = 0;
    for (int d = 0; d < last; d++) g += first[d] * rstride[d];
    for (int64_t q = 0; q < nruns && offs && dst && !bad; q++) {
        const uint64_t *bw = bits_s + g * wps;
        const int64_t *rr = rank_s + g;
        for (int64_t p = 0; p < run * wps; p += 8) __builtin_prefetch(bw + ahead * wps + p);
        for (int64_t p = 0; p < run; p += 8) __builtin_prefetch(rr + ahead + p);
        for (int64_t i = 0; i < run; i++, bw += wps) {
            if (cap - k < 64 * wps + ZH_MASK_UNROLL) {
                int64_t nc = 2 * cap + 64 * wps + ZH_MASK_UNROLL;
                int64_t *no = (int64_t *)realloc(offs, sizeof(int64_t) * (size_t)nc);
                if (no) offs = no;
                int64_t *nd_ = no ? (int64_t *)realloc(dst, sizeof(int64_t) * (size_t)nc) : NULL;
                if (nd_) dst = nd_;
                if (!no || !nd_) {
                    free(offs);
                    offs = NULL;
                    break;
                }
                cap = nc;
            }
            int64_t rk = rr[i] + rank_blk[(uint64_t)(g + i) / ZH_MASK_BLOCK_ROWS];
            int64_t at = co + i * lsr;
            for (int64_t wd = 0; wd < wps; wd++, at += 64 * ls) {
                uint64_t b = bw[wd];
                bad |= b & (wd < wfull ? 0 : wd == wfull ? ~0ull << rem : ~0ull);
                int64_t n = popcount64(b);
                bad |= (uint64_t)(rk < 0) | (uint64_t)(n > out_size - rk);
                for (int j = 0; j < ZH_MASK_UNROLL; j++) {
                    offs[k + j] = at + (int64_t)__builtin_ctzll(b | (1ull << 63)) * ls;
                    dst[k + j] = rk + j;
                    b &= b - 1;
                }
                for (int64_t j = ZH_MASK_UNROLL; j < n; j++) {
                    offs[k + j] = at + (int64_t)__builtin_ctzll(b) * ls;
                    dst[k + j] = rk + j;
                    b &= b - 1;
                }
                k += n;
                rk += n;
            }
        }
        for (int d = last - 2; d >= 0; d--) {
            g += rstride[d];
            co += job->chunk_lstrides[d];
            if (++idx[d] < count[d]) break;
            g -= count[d] * rstride[d];
            co -= count[d] * job->chunk_lstrides[d];
            idx[d] = 0;
        }
    }
#undef ZH_MASK_UNROLL
    if (!offs || !dst) {
        free(offs);
        free(dst);
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (bad) {
        free(offs);
        free(dst);
        zh_fail(job, t, ZH_ERR_BOUNDS, "mask bits or ranks do not fit the chunk or the result");
        return -1;
    }
    *offs_out = offs;
    *dst_out = dst;
    *k_out = k;
    *covered = inside && k == rows * count[last];
    return 0;
}

/* A mask task: its chunk's selected elements gathered into the result (read) or set
 * from the values (write: mj->out, one value for all when mj->scalar, through
 * csrc/zh_sel_write.c); a chunk with none is not touched. */
static void mask_any(zh_mask_t *mj, int64_t t, int write) {
    zh_job_t *job = mj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, t, &w)) return;
    int64_t coords[ZH_MAX_DIMS], *offs, *dst, k;
    int covered;
    if (mask_find(mj, t, coords, &offs, &dst, &k, &covered) != 0) return;
    if (k == 0)
        job->task_status[t] = ZH_TASK_DONE;
    else if (write)
        zh_sel_scatter(job, w, t, coords, offs, dst, job->itemsize, k, mj->out, mj->scalar,
                       covered);
    else
        zh_sel_gather(job, w, t, coords, offs, dst, k, mj->out);
    free(offs);
    free(dst);
}

static void mask_task(void *arg, int64_t t) { mask_any((zh_mask_t *)arg, t, 0); }
static void mask_write_task(void *arg, int64_t t) { mask_any((zh_mask_t *)arg, t, 1); }

int zh_mask_run(zh_mask_t *mj, int64_t ntasks, int nthreads) {
    return zh_job_run(mj->job, mask_task, mj, ntasks, nthreads);
}

int zh_mask_write_run(zh_mask_t *mj, int64_t ntasks, int nthreads) {
    return zh_job_run(mj->job, mask_write_task, mj, ntasks, nthreads);
}
