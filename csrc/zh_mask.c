/* Boolean-mask reads of the native engine, chunk by chunk.  See zh_mask.h. */
#include "zh_mask.h"

#include <stdlib.h>
#include <string.h>

#include "zh_pool.h"
#include "zh_select.h"
#include "zh_job.h"

/* Measured on W10 (a 1 % mask of a float32 512^3 array, chunks 64^3, 1.34 M points):
 * the mask -> points path (one scan building per-point chunk, coordinates and rank
 * arrays: ~110 MB of fresh memory per read, then a counting sort) spent a third of its
 * CPU time zeroing those pages (clear_page) and another sixth in the single-threaded
 * scan.  Here the counts go to one int64 per row segment (16 MB for W10), counted on the
 * pool, and every task finds its points in its own part of the mask. */

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

/* The true bytes of v (nz_bytes form) packed into the low 8 bits, and counted. */
static inline uint64_t pack8(uint64_t nz) { return (nz * 0x0102040810204080ull) >> 56; }
static inline int64_t count8(uint64_t nz) { return (int64_t)((nz * 0x0101010101010101ull) >> 56); }

typedef struct {
    const uint8_t *mask;
    int64_t rows, row_len, seg_len, nseg, wps, per_task;
    int64_t *rank;
    uint64_t *bits;
} count_ctx;

/* Rows [r0, r1): each segment's count into rank and its elements as bits (bit l of
 * word l / 64: element l of the segment), both at segment-major places (s * rows + r),
 * so that a chunk's task later reads consecutive entries. */
static void count_task(void *arg, int64_t t) {
    count_ctx *c = (count_ctx *)arg;
    int64_t r0 = t * c->per_task, r1 = r0 + c->per_task;
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
                for (; k + 8 <= k1; k += 8) {
                    uint64_t v = word8(row + k);
                    if (!v) continue;
                    uint64_t nz = nz_bytes(v);
                    word |= pack8(nz) << (k - k0);
                    n += count8(nz);
                }
                for (; k < k1; k++)
                    if (row[k]) {
                        word |= 1ull << (k - k0);
                        n++;
                    }
                bw[w] = word;
            }
            c->rank[s * c->rows + r] = n;
        }
    }
}

void zh_mask_count(const uint8_t *mask, int64_t rows, int64_t row_len, int64_t seg_len,
                   int64_t *rank, uint64_t *bits, int nthreads) {
    int64_t nseg = (row_len + seg_len - 1) / seg_len;
    count_ctx c = {mask, rows, row_len, seg_len, nseg, (seg_len + 63) / 64, 256, rank, bits};
    if (rows > 0 && nseg > 0)
        zh_pool_run(count_task, &c, (rows + c.per_task - 1) / c.per_task, nthreads);
    /* ranks in C order of the elements: row by row, a row's segments in order */
    int64_t acc = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t s = 0; s < nseg; s++) {
            int64_t *p = rank + s * rows + r, v = *p;
            *p = acc;
            acc += v;
        }
    rank[rows * nseg] = acc;
}

static void mask_task(void *arg, int64_t t) {
    zh_mask_t *mj = (zh_mask_t *)arg;
    zh_job_t *job = mj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, t, &w)) return;
    int nd = job->ndim, last = nd - 1;
    int64_t coords[ZH_MAX_DIMS], first[ZH_MAX_DIMS], count[ZH_MAX_DIMS], rstride[ZH_MAX_DIMS];
    int64_t rest = t, rows = 1, rs = 1;
    for (int d = last; d >= 0; d--) {
        coords[d] = rest % mj->grid[d];
        rest /= mj->grid[d];
        first[d] = coords[d] * job->chunk_shape[d];
        count[d] = mj->shape[d] - first[d];
        if (count[d] > job->chunk_shape[d]) count[d] = job->chunk_shape[d];
        if (d < last) {
            rstride[d] = rs; /* rows of the array are C order over the outer dims */
            rs *= mj->shape[d];
            rows *= count[d];
        }
    }
    int64_t s = coords[last], nrows_all = rs, wps = (job->chunk_shape[last] + 63) / 64;
    const int64_t *rank_s = mj->rank + s * nrows_all; /* this chunk's segment column */
    /* the rank after segment (g, s) is the next entry in C order: (g, s + 1), or the
     * first segment of row g + 1, or the total */
    int64_t nseg = mj->grid[last];
#define ZH_RANK_AFTER(g) (s + 1 < nseg ? mj->rank[(s + 1) * nrows_all + (g)]            \
                          : (g) + 1 < nrows_all ? mj->rank[(g) + 1] : mj->rank[nseg * nrows_all])
    /* how many points: the ranks of the chunk's segments */
    /* rows of the chunk: an odometer over the outer dimensions, g (the array row) and
     * co (the row's byte offset in the chunk) kept up to date, no product per row */
    int64_t idx[ZH_MAX_DIMS] = {0}, m = 0, g0 = 0;
    for (int d = 0; d < last; d++) g0 += first[d] * rstride[d];
    int64_t g = g0;
    for (int64_t r = 0; r < rows; r++) {
        m += ZH_RANK_AFTER(g) - rank_s[g];
        for (int d = last - 1; d >= 0; d--) {
            g += rstride[d];
            if (++idx[d] < count[d]) break;
            g -= count[d] * rstride[d];
            idx[d] = 0;
        }
    }
    if (m == 0) {
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)m);
    if (!offs) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return;
    }
    int64_t *dst = offs + m, k = 0;
    memset(idx, 0, sizeof(idx));
    g = g0;
    int64_t co = 0;
    for (int64_t r = 0; r < rows && k <= m; r++) {
        int64_t rk = rank_s[g], want = ZH_RANK_AFTER(g) - rk;
        if (want > 0) {
            const uint64_t *bw = mj->bits + (s * nrows_all + g) * wps;
            int64_t got = 0, ls = job->chunk_lstrides[last];
            for (int64_t w = 0; w < wps && k <= m; w++) {
                uint64_t bits = bw[w];
                while (bits) {
                    int64_t l = 64 * w + __builtin_ctzll(bits);
                    bits &= bits - 1;
                    if (got == want || k == m || l >= count[last]) { /* inconsistent */
                        k = m + 1;
                        break;
                    }
                    offs[k] = co + l * ls;
                    dst[k] = rk + got;
                    got++;
                    k++;
                }
            }
            if (got != want) k = m + 1;
        }
        for (int d = last - 1; d >= 0; d--) {
            g += rstride[d];
            co += job->chunk_lstrides[d];
            if (++idx[d] < count[d]) break;
            g -= count[d] * rstride[d];
            co -= count[d] * job->chunk_lstrides[d];
            idx[d] = 0;
        }
    }
#undef ZH_RANK_AFTER
    if (k != m) {
        zh_fail(job, t, ZH_ERR_BOUNDS, "mask ranks and bits do not agree");
        free(offs);
        return;
    }
    for (int64_t i = 0; i < m; i++)
        if (dst[i] < 0 || dst[i] >= mj->out_size) {
            zh_fail(job, t, ZH_ERR_BOUNDS, "a point's place in the result is out of range");
            free(offs);
            return;
        }
    zh_sel_gather(job, w, t, coords, offs, dst, m, mj->out);
    free(offs);
}

int zh_mask_run(zh_mask_t *mj, int64_t ntasks, int nthreads) {
    return zh_job_run(mj->job, mask_task, mj, ntasks, nthreads);
}
