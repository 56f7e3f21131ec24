/* Point and orthogonal reads of the native engine.  See zh_select.h. */
#define _GNU_SOURCE
#include "zh_select.h"
#include "zh_blosc1.h"
#include "zh_job.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zh_pool.h"

/* Bytes worth one system call: runs closer than this are read as one, and a sparse
 * read must save more than this per run over reading the whole chunk.  (With
 * ZH_RUN_GAP >= ZH_RUN_COST, reading the span covering the runs never beats one pread
 * per run, so there is no third choice.)  Measured on the 2-core VM, process CPU time,
 * under the usual load (load average 12-14): a 4-byte pread from the page cache costs
 * ~0.5 us and a 1 MiB pread ~155 us (so one call is worth ~3.5 KiB of copy); side by
 * side, 4096 against the earlier 8192: W8 none 53 against 60 ms CPU (195 points of a
 * 1 MiB chunk: ~90 preads of ~200 KiB in all instead of the whole chunk), W4 block8
 * blosc 40 against 43-47 us (the wanted blocks' regions, 16 KiB apart, no longer read
 * with the 6.5 KiB block between them), W9 and W4 none unchanged; 2048 was no better. */
#ifndef ZH_RUN_GAP
#define ZH_RUN_GAP 4096
#endif
#ifndef ZH_RUN_COST
#define ZH_RUN_COST 4096
#endif

/* The first read of a blosc chunk for a sparse decode: the header and the offsets of up
 * to (ZH_BLOSC_HEAD - 16) / 4 blocks in one system call. */
#define ZH_BLOSC_HEAD 4096
#define ZH_BLOSC_BLOCK 8192

typedef struct {
    int64_t lo, hi;
} zh_rng;

static int cmp_rng(const void *a, const void *b) {
    int64_t x = ((const zh_rng *)a)->lo, y = ((const zh_rng *)b)->lo;
    return (x > y) - (x < y);
}

static int32_t le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                     ((uint32_t)p[3] << 24));
}

/* Sort ranges by start: an LSD radix sort (8-bit digits, as many passes as the largest
 * start needs: 3 for a 1 MiB chunk) where qsort's merge sort through a compare function
 * cost ~6% of W8 none (195 unsorted one-element ranges per chunk, ~7 us per chunk);
 * insertion sort for a few ranges, qsort for negative starts or no memory. */
static void sort_rng(zh_rng *rg, int64_t nr) {
    if (nr <= 16) {
        for (int64_t i = 1; i < nr; i++) {
            zh_rng x = rg[i];
            int64_t j = i;
            for (; j > 0 && rg[j - 1].lo > x.lo; j--) rg[j] = rg[j - 1];
            rg[j] = x;
        }
        return;
    }
    uint64_t top = 0;
    for (int64_t i = 0; i < nr; i++) {
        if (rg[i].lo < 0) {
            qsort(rg, (size_t)nr, sizeof(zh_rng), cmp_rng);
            return;
        }
        top |= (uint64_t)rg[i].lo;
    }
    zh_rng *tmp = (zh_rng *)malloc(sizeof(zh_rng) * (size_t)nr);
    if (!tmp) {
        qsort(rg, (size_t)nr, sizeof(zh_rng), cmp_rng);
        return;
    }
    zh_rng *a = rg, *b = tmp;
    for (int shift = 0; shift < 64 && (top >> shift) != 0; shift += 8) {
        int64_t cnt[257];
        memset(cnt, 0, sizeof(cnt));
        for (int64_t i = 0; i < nr; i++) cnt[(((uint64_t)a[i].lo >> shift) & 255) + 1]++;
        for (int k = 1; k < 257; k++) cnt[k] += cnt[k - 1];
        for (int64_t i = 0; i < nr; i++) b[cnt[((uint64_t)a[i].lo >> shift) & 255]++] = a[i];
        zh_rng *c = a;
        a = b;
        b = c;
    }
    if (a != rg) memcpy(rg, a, sizeof(zh_rng) * (size_t)nr);
    free(tmp);
}

/* Sort ranges by start and merge those closer than gap; returns the new count. */
static int64_t coalesce(zh_rng *rg, int64_t nr, int64_t gap) {
    if (nr <= 1) return nr;
    int sorted = 1;
    for (int64_t i = 1; i < nr && sorted; i++) sorted = rg[i].lo >= rg[i - 1].lo;
    if (!sorted) sort_rng(rg, nr);
    int64_t k = 0;
    for (int64_t i = 1; i < nr; i++) {
        if (rg[i].lo <= rg[k].hi + gap) {
            if (rg[i].hi > rg[k].hi) rg[k].hi = rg[i].hi;
        } else {
            rg[++k] = rg[i];
        }
    }
    return k + 1;
}

/* What a task needs from its chunk: the byte ranges of the decoded chunk it reads,
 * built only when a sparse read is possible (ranges may overlap; any order). */
typedef int64_t (*zh_ranges_fn)(void *ctx, zh_rng **out);

enum { VIEW_OK = ZH_VIEW_OK, VIEW_MISSING = ZH_VIEW_MISSING, VIEW_FALLBACK = ZH_VIEW_FALLBACK,
       VIEW_FAILED = ZH_VIEW_FAILED };

/* The bytes of a c-blosc1 chunk of n bytes (expect decoded) read first: the header and
 * (for up to 1020 blocks) the block offsets in one read, as many as blocks of
 * ZH_BLOSC_BLOCK bytes would need (our own writer's; larger blocks need fewer, smaller
 * ones a second read), at most an eighth of a small chunk (reading ahead must not cost
 * the saving).  Reading 4096 bytes where the table of a 1 MiB chunk takes 528 cost 0.3 us
 * of a 40 us W4 read (cold bytes copied). */
static int64_t blosc_head_len(int64_t expect, int64_t n) {
    int64_t head = 16 + 4 * ((expect + ZH_BLOSC_BLOCK - 1) / ZH_BLOSC_BLOCK);
    if (head > ZH_BLOSC_HEAD) head = ZH_BLOSC_HEAD;
    if (head > n / 8) head = n / 8;
    if (head < 16) head = 16;
    return head;
}

/* From an open c-blosc1 chunk file of n bytes at offset foff whose first head bytes are
 * in buf (a buffer of n bytes), read the rest of the block offsets and the compressed
 * blocks holding the ranges rg[0..nr) (sorted, merged), each at its own offset in buf.  ends[i] (when > 0) is
 * where the bytes read around range i's blocks end: the decoder of range i must be told
 * the chunk ends there (zh_codecs.h: blosc reads a block forward from its offset and
 * never past the header's compressed size), so that a block whose streams claim more
 * bytes (a damaged offset table) fails instead of decoding bytes of the buffer that were
 * not read from this file.  NULL when the chunk is not a plain c-blosc1 chunk, anything
 * in it is out of range, or the sparse read would not pay: read it all.
 *
 * Each range's blocks are read as their own region, regions closer than ZH_RUN_GAP
 * merged: one span from the first wanted block to the last cost W9 (64 random indices
 * per axis: 64 rows of a 64^3 float32 chunk, ~16 of its 128 blocks of 8 KiB) nearly
 * the whole compressed chunk copied per chunk (the wanted blocks lie in 8 random
 * planes), where reading the ~16 blocks costs 16 preads of ~6 KiB. */
static const char *read_blosc_blocks(char *buf, int64_t head, int fd, int64_t foff,
                                     int64_t n, int64_t expect, const zh_rng *rg, int64_t nr,
                                     int64_t *ends) {
    if (n < 16 || n > INT32_MAX) return NULL;
    for (int64_t i = 0; i < nr; i++) ends[i] = -1;
    const unsigned char *h = (const unsigned char *)buf;
    int flags = h[2], ts = h[3];
    int32_t nbytes = le32(h + 4), blocksize = le32(h + 8), cbytes = le32(h + 12);
    if ((flags & 0x05) == 0x05 || ts <= 0 || nbytes != expect || cbytes != n || blocksize <= 0 ||
        h[0] == 0 || h[0] > 4)
        return NULL;
    if (flags & 0x02) { /* memcpyed: the bytes follow the header as they are */
        for (int64_t i = 0; i < nr; i++) {
            int64_t a = (rg[i].lo / ts) * ts, b = ((rg[i].hi + ts - 1) / ts) * ts;
            if (b > nbytes || 16 + b > n ||
                zh_pread_full(fd, buf + 16 + a, (size_t)(b - a), foff + 16 + a) != 0)
                return NULL;
        }
        return buf;
    }
    int64_t nblocks = (nbytes + (int64_t)blocksize - 1) / blocksize;
    int64_t table_end = 16 + 4 * nblocks;
    if (table_end > n || (table_end > head &&
                          zh_pread_full(fd, buf + head, (size_t)(table_end - head), foff + head) != 0))
        return NULL;
    zh_rng *reg = (zh_rng *)malloc(sizeof(zh_rng) * 2 * (size_t)(nr ? nr : 1));
    if (!reg) return NULL;
    zh_rng *own = reg + nr; /* each range's bytes */
    int sorted = zh_blosc_starts_sorted(buf, nblocks, n);
    const unsigned char *bst = (const unsigned char *)buf + 16;
    for (int64_t i = 0; i < nr; i++) {
        int64_t first = INT64_MAX, last = -1, end;
        int64_t k0 = rg[i].lo / blocksize, k1 = (rg[i].hi - 1) / blocksize;
        if (sorted && k0 >= 0 && k0 <= k1 && k1 < nblocks) {
            first = le32(bst + 4 * k0);
            end = k1 + 1 < nblocks ? le32(bst + 4 * (k1 + 1)) : n;
        } else {
            if (zh_blosc_span_add(buf, nblocks, n, k0, k1, &first, &last) != 0 || last < 0) {
                free(reg);
                return NULL;
            }
            /* the next block offset after the last wanted one */
            end = zh_blosc_next_start(buf, nblocks, n, last);
        }
        own[i].lo = first < head ? head : first; /* the header read holds the rest */
        own[i].hi = end;
        reg[i] = own[i];
    }
    int64_t nreg = coalesce(reg, nr, ZH_RUN_GAP);
    for (int64_t r = 0; r < nreg; r++)
        if (reg[r].hi > reg[r].lo &&
            zh_pread_full(fd, buf + reg[r].lo, (size_t)(reg[r].hi - reg[r].lo), foff + reg[r].lo) != 0) {
            free(reg);
            return NULL;
        }
    for (int64_t i = 0; i < nr; i++) {
        for (int64_t r = 0; r < nreg; r++)
            if (own[i].lo >= reg[r].lo && own[i].hi <= reg[r].hi) {
                ends[i] = reg[r].hi;
                break;
            }
        if (ends[i] < 0) { /* cannot happen: every range lies in its region */
            free(reg);
            return NULL;
        }
    }
    free(reg);
    return buf;
}

/* A view of task t's decoded chunk in which every byte its ranges name is valid.
 * On VIEW_OK *base is the chunk's first byte (only the wanted bytes may be valid);
 * VIEW_FAILED has failed the task already. */
static int chunk_view(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                      zh_ranges_fn ranges, void *ctx, const char **base) {
    const char *src = NULL;
    int64_t n = 0;
    int fd = -1, err;
    zh_rng *rg = NULL;
    int64_t nr = 0;
    int rv = VIEW_OK;
    int64_t foff = 0; /* where the chunk starts in fd */
    int owned = 1;    /* fd is this task's to close */
    const char *all = NULL; /* the whole file's bytes, when read already */
    if (job->path_prefix) {
        int rc = zh_open_task_chunk(job, t, coords, &fd, &foff, &n, &owned);
        if (rc < 0) return VIEW_FAILED;
        if (rc == 0) return VIEW_MISSING;
    } else {
        src = job->mem_ptr[t];
        if (!src) return VIEW_MISSING;
        n = job->mem_len[t];
    }
    int64_t dsize = job->decoded_size;
    char msg[256];
    msg[0] = 0;
    if (job->nsteps == 0) {
        if (n != dsize) { /* corrupt: the Python codecs name the problem */
            rv = VIEW_FALLBACK;
            goto done;
        }
        if (fd < 0) {
            *base = src;
            goto done;
        }
        char *buf = zh_scratch(w, 3, (size_t)n);
        if (!buf) {
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            rv = VIEW_FAILED;
            goto done;
        }
        nr = ranges(ctx, &rg);
        if (nr < 0) {
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            rv = VIEW_FAILED;
            goto done;
        }
        nr = coalesce(rg, nr, ZH_RUN_GAP);
        int64_t total = 0;
        for (int64_t i = 0; i < nr; i++) total += rg[i].hi - rg[i].lo + ZH_RUN_COST;
        err = 0;
        if (total < n) {
            for (int64_t i = 0; i < nr && !err; i++)
                err = zh_pread_full(fd, buf + rg[i].lo, (size_t)(rg[i].hi - rg[i].lo),
                                    foff + rg[i].lo);
        } else {
            err = zh_pread_full(fd, buf, (size_t)n, foff);
        }
        if (err) {
            zh_fail_read(job, t, err);
            rv = VIEW_FAILED;
            goto done;
        }
        *base = buf;
        goto done;
    }
    if (job->nsteps == 1 && job->steps[0].kind == ZH_BB_BLOSC && n >= 16) {
        /* which internal blocks the ranges touch: fewer than all, decode only those */
        const unsigned char *h = (const unsigned char *)src;
        char *sbuf = NULL; /* a file's bytes as read so far: its first head bytes */
        int64_t head = 0;
        if (fd >= 0) {
            head = blosc_head_len(dsize, n);
            sbuf = n <= INT32_MAX ? zh_scratch(w, 3, (size_t)n) : NULL;
            if (!sbuf || zh_pread_full(fd, sbuf, (size_t)head, foff) != 0) goto whole;
            h = (const unsigned char *)sbuf;
        }
        int64_t bs = le32(h + 8);
        if (bs <= 0 || bs >= dsize || h[3] == 0 || bs % h[3] != 0) goto whole;
        nr = ranges(ctx, &rg);
        if (nr < 0) {
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            rv = VIEW_FAILED;
            goto done;
        }
        for (int64_t i = 0; i < nr; i++)
            if (rg[i].lo < 0 || rg[i].hi > dsize || rg[i].lo >= rg[i].hi) goto whole;
        int64_t nblocks = (dsize + bs - 1) / bs;
        /* the blocks wanted, marked without sorting the ranges (a dense point read has
         * hundreds of unsorted one-element ranges per chunk: qsort cost ~3% of W8) */
        uint8_t *keep = (uint8_t *)calloc((size_t)nblocks, 1);
        if (!keep) {
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            rv = VIEW_FAILED;
            goto done;
        }
        /* blocks of a power-of-two size (every writer's) by shifts: two divisions per
         * range cost ~4% of W10 blosc (2,600 one-element ranges per chunk) */
        int64_t touched = 0;
        int sh = (bs & (bs - 1)) == 0 ? __builtin_ctzll((unsigned long long)bs) : -1;
        for (int64_t i = 0; i < nr; i++) {
            int64_t k0 = sh >= 0 ? rg[i].lo >> sh : rg[i].lo / bs;
            int64_t k1 = sh >= 0 ? (rg[i].hi - 1) >> sh : (rg[i].hi - 1) / bs;
            for (int64_t k = k0; k <= k1; k++)
                if (!keep[k]) {
                    keep[k] = 1;
                    touched++;
                }
        }
        if (touched == nblocks) {
            free(keep);
            goto whole;
        }
        if (2 * touched > nblocks) {
            /* dense (W8/W11: 100,000 random points touch ~78% of the 8 KiB blocks): the
             * whole chunk read (the gaps between wanted blocks are shorter than a system
             * call is worth), then one decode that skips the unwanted blocks */
            if (fd >= 0) {
                if (zh_pread_full(fd, sbuf + head, (size_t)(n - head), foff + head) != 0) {
                    free(keep);
                    goto whole; /* read again there: its failure names the error */
                }
                src = all = sbuf;
            }
            char *dst = zh_scratch(w, 0, (size_t)dsize);
            int rc = dst ? zh_blosc_blocks(w, src, (size_t)n, dsize, keep, nblocks, dst, msg,
                                           sizeof(msg))
                         : ZH_ERR_NOMEM;
            free(keep);
            if (rc == ZH_OK) {
                *base = dst;
                goto done;
            }
            if (rc == ZH_ERR_NOMEM) {
                zh_fail(job, t, rc, "out of memory");
                rv = VIEW_FAILED;
                goto done;
            }
            goto whole; /* FALLBACK or CORRUPT: the whole-chunk decode decides */
        }
        free(keep);
        nr = coalesce(rg, nr, 0);
        /* one decode per block: ranges that start in a block the previous one reaches
         * are decoded together (blosc decompresses whole blocks) */
        int64_t k = 0;
        for (int64_t i = 1; i < nr; i++) {
            if (rg[i].lo / bs <= (rg[k].hi - 1) / bs) {
                if (rg[i].hi > rg[k].hi) rg[k].hi = rg[i].hi;
            } else {
                rg[++k] = rg[i];
            }
        }
        if (nr > 0) nr = k + 1;
        int64_t *ends = NULL;
        if (fd >= 0) {
            ends = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nr ? nr : 1));
            src = ends ? read_blosc_blocks(sbuf, head, fd, foff, n, dsize, rg, nr, ends) : NULL;
            if (!src) {
                free(ends);
                goto whole;
            }
        }
        char *dst = zh_scratch(w, 0, (size_t)dsize);
        if (!dst) {
            free(ends);
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            rv = VIEW_FAILED;
            goto done;
        }
        /* our own writer's form decodes here (zh_blosc1.h: no blosc context, only the
         * wanted elements un-shuffled, straight into dst); any other goes to c-blosc2.
         * Scratch 2: zh_blosc_range's buffer (1) may move when it grows. */
        char *tmp = zh_scratch(w, 2, (size_t)bs);
        for (int64_t i = 0; i < nr; i++) {
            const char *b;
            /* this range's blocks decode from the bytes read around them and nothing else
             * (src is our scratch buffer when ends is set) */
            if (ends && ends[i] > 0) zh_blosc_set_cbytes((char *)src, ends[i]);
            if (tmp && zh_blosc1_decode_range(src, (size_t)n, dsize, rg[i].lo, rg[i].hi, dst,
                                              tmp, bs) == 0)
                continue;
            int rc = zh_blosc_range(w, src, (size_t)n, dsize, rg[i].lo, rg[i].hi, &b, msg,
                                    sizeof(msg));
            if (rc == ZH_ERR_NOMEM) {
                free(ends);
                zh_fail(job, t, rc, "out of memory");
                rv = VIEW_FAILED;
                goto done;
            }
            if (rc != ZH_OK) { /* the Python codecs decode it or name the problem */
                free(ends);
                rv = VIEW_FALLBACK;
                goto done;
            }
            memcpy(dst + rg[i].lo, b + rg[i].lo, (size_t)(rg[i].hi - rg[i].lo));
        }
        free(ends);
        *base = dst;
        goto done;
    }
whole:
    if (fd >= 0 && all) {
        src = all;
    } else if (fd >= 0) {
        char *buf = zh_scratch(w, 3, (size_t)n);
        err = buf ? zh_pread_full(fd, buf, (size_t)n, foff) : -1;
        if (err) {
            zh_fail_read(job, t, err);
            rv = VIEW_FAILED;
            goto done;
        }
        src = buf;
    }
    {
        const char *out = NULL;
        size_t out_n = 0;
        int rc = zh_decode_bytes(w, job->steps, job->nsteps, src, (size_t)n, NULL, 0, &out,
                                 &out_n, msg, sizeof(msg));
        if (rc == ZH_FALLBACK || rc == ZH_ERR_CORRUPT || (rc == ZH_OK && (int64_t)out_n != dsize)) {
            rv = VIEW_FALLBACK;
        } else if (rc != ZH_OK) {
            zh_fail(job, t, rc, "out of memory");
            rv = VIEW_FAILED;
        } else {
            *base = out;
        }
    }
done:
    if (fd >= 0 && owned) close(fd);
    free(rg);
    return rv;
}

/* ---------------------------------------------------------------- boxes */

typedef struct {
    const zh_job_t *job;
    const int64_t *first, *count, *cstrides;
} box_ctx;

/* One range per innermost row of the box (the product of the outer dimensions). */
static int64_t box_ranges(void *arg, zh_rng **out) {
    box_ctx *c = (box_ctx *)arg;
    const zh_job_t *job = c->job;
    int nd = job->ndim, last = nd - 1;
    int64_t rows = 1, base0 = 0;
    for (int d = 0; d < nd; d++) {
        if (c->count[d] <= 0) {
            *out = NULL;
            return 0;
        }
        if (d < last) rows *= c->count[d];
        base0 += c->first[d] * job->chunk_lstrides[d];
    }
    zh_rng *rg = (zh_rng *)malloc(sizeof(zh_rng) * (size_t)(rows ? rows : 1));
    if (!rg) return -1;
    int64_t lo = 0, hi = 0; /* the innermost row's span around its first element */
    if (nd > 0) {
        int64_t e = (c->count[last] - 1) * c->cstrides[last];
        lo = e < 0 ? e : 0;
        hi = e < 0 ? 0 : e;
    }
    int64_t idx[ZH_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
        int64_t b = base0;
        for (int d = 0; d < last; d++) b += idx[d] * c->cstrides[d];
        rg[r].lo = b + lo;
        rg[r].hi = b + hi + job->itemsize;
        for (int d = last - 1; d >= 0; d--) {
            if (++idx[d] < c->count[d]) break;
            idx[d] = 0;
        }
    }
    *out = rg;
    return rows;
}

int zh_box_view(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                const int64_t *first, const int64_t *count, const int64_t *cstrides,
                const char **base) {
    box_ctx ctx = {job, first, count, cstrides};
    return chunk_view(job, w, t, coords, box_ranges, &ctx, base);
}

int zh_sel_begin(zh_job_t *job, int64_t t, zh_wctx **w) {
    if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
        job->task_status[t] = ZH_TASK_SKIPPED;
        return 0;
    }
    *w = zh_wctx_get();
    if (!*w) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- points */

/* One range per point (mask reads too): its element's bytes in the decoded chunk. */
typedef struct {
    int64_t isz;
    const int64_t *offs;
    int64_t m;
} mk_ctx;

static int64_t mk_ranges(void *arg, zh_rng **out) {
    mk_ctx *c = (mk_ctx *)arg;
    zh_rng *rg = (zh_rng *)malloc(sizeof(zh_rng) * (size_t)(c->m ? c->m : 1));
    if (!rg) return -1;
    for (int64_t i = 0; i < c->m; i++) {
        rg[i].lo = c->offs[i];
        rg[i].hi = c->offs[i] + c->isz;
    }
    *out = rg;
    return c->m;
}

void zh_sel_gather(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                   const int64_t *offs, const int64_t *dst, int64_t m, char *out) {
    int64_t isz = job->itemsize;
    mk_ctx ctx = {isz, offs, m};
    const char *base = NULL;
    int rv = m ? chunk_view(job, w, t, coords, mk_ranges, &ctx, &base) : VIEW_MISSING;
    if (rv == VIEW_OK) {
        for (int64_t i = 0; i < m; i++) zh_put_elem(out + dst[i] * isz, base + offs[i], isz, job->swap);
        job->task_status[t] = ZH_TASK_DONE;
    } else if (rv == VIEW_MISSING) {
        for (int64_t i = 0; i < m; i++) zh_put_elem(out + dst[i] * isz, job->fill_native, isz, 0);
        job->task_status[t] = ZH_TASK_DONE;
    } else if (rv == VIEW_FALLBACK) {
        job->task_status[t] = ZH_TASK_FALLBACK;
    }
}

int64_t *zh_point_offsets(zh_points_t *pj, int64_t k, int64_t t, int64_t *m_out) {
    zh_job_t *job = pj->job;
    int nd = job->ndim;
    int64_t p0 = pj->offsets[k], p1 = pj->offsets[k + 1];
    if (p0 < 0 || p1 < p0 || p1 > pj->npoints) {
        zh_fail(job, t, ZH_ERR_BOUNDS, "point offsets out of range");
        return NULL;
    }
    int64_t m = p1 - p0;
    int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * (size_t)(m ? m : 1));
    if (!offs) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < m; i++) {
        const int64_t *c = pj->in_chunk + (p0 + i) * nd;
        int64_t off = 0;
        for (int d = 0; d < nd; d++) {
            if (c[d] < 0 || c[d] >= job->chunk_shape[d]) {
                zh_fail(job, t, ZH_ERR_BOUNDS, "a point lies outside its chunk");
                free(offs);
                return NULL;
            }
            off += c[d] * job->chunk_lstrides[d];
        }
        int64_t o = pj->out_index[p0 + i];
        if (o < 0 || o >= pj->out_size) {
            zh_fail(job, t, ZH_ERR_BOUNDS, "a point's place in the buffer is out of range");
            free(offs);
            return NULL;
        }
        offs[i] = off;
    }
    *m_out = m;
    return offs;
}

/* The whole decoded chunk as one range (ZH_FLOOR_WHOLE). */
static int64_t whole_range(void *arg, zh_rng **out) {
    const zh_job_t *job = (const zh_job_t *)arg;
    zh_rng *rg = (zh_rng *)malloc(sizeof(zh_rng));
    if (!rg) return -1;
    rg->lo = 0;
    rg->hi = job->decoded_size;
    *out = rg;
    return 1;
}

/* Task k of a floor read (see ZH_FLOOR_*): the chunk's view made, nothing gathered. */
static void point_floor(zh_points_t *pj, int64_t k, zh_wctx *w, const int64_t *offs,
                        int64_t m) {
    zh_job_t *job = pj->job;
    const int64_t *coords = pj->chunk_coords + k * job->ndim;
    mk_ctx ctx = {job->itemsize, offs, m};
    const char *base = NULL;
    int rv = !m ? VIEW_MISSING
             : pj->floor == ZH_FLOOR_WHOLE ? chunk_view(job, w, k, coords, whole_range, job, &base)
                                           : chunk_view(job, w, k, coords, mk_ranges, &ctx, &base);
    if (rv == VIEW_OK || rv == VIEW_MISSING) job->task_status[k] = ZH_TASK_DONE;
    else if (rv == VIEW_FALLBACK) job->task_status[k] = ZH_TASK_FALLBACK;
}

/* Chunk k of a point read (its elements gathered into the result) or write (set from
 * the values in point order, a repeated point keeping its last value: zh_sel_scatter in
 * csrc/zh_sel_write.c; a chunk of no points is not touched). */
static void point_any(zh_points_t *pj, int64_t k, int write) {
    zh_job_t *job = pj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, k, &w)) return;
    int64_t m;
    int64_t *offs = zh_point_offsets(pj, k, k, &m);
    if (!offs) return;
    const int64_t *coords = pj->chunk_coords + k * job->ndim;
    const int64_t *where = pj->out_index + pj->offsets[k];
    if (!write && pj->floor)
        point_floor(pj, k, w, offs, m);
    else if (!write)
        zh_sel_gather(job, w, k, coords, offs, where, m, pj->out);
    else if (m == 0)
        job->task_status[k] = ZH_TASK_DONE;
    else
        zh_sel_scatter(job, w, k, coords, offs, where, job->itemsize, m, pj->out, pj->scalar, 0);
    free(offs);
}

static void point_task(void *arg, int64_t k) { point_any((zh_points_t *)arg, k, 0); }
static void point_write_task(void *arg, int64_t k) { point_any((zh_points_t *)arg, k, 1); }

int zh_points_write_run(zh_points_t *pj, int nthreads) {
    return zh_job_run(pj->job, point_write_task, pj, pj->nchunks, nthreads);
}

int zh_points_run(zh_points_t *pj, int nthreads) {
    return zh_job_run(pj->job, point_task, pj, pj->nchunks, nthreads);
}

/* ---------------------------------------------------------------- orthogonal */

typedef struct {
    const zh_ortho_t *oj;
    const int64_t *start, *count; /* per dimension: this task's index lists */
} or_ctx;

/* One range per innermost row: the product of the outer dimensions' indices. */
static int64_t or_ranges(void *arg, zh_rng **out) {
    or_ctx *c = (or_ctx *)arg;
    const zh_ortho_t *oj = c->oj;
    const zh_job_t *job = oj->job;
    int nd = job->ndim, last = nd - 1;
    int64_t rows = 1;
    for (int d = 0; d < last; d++) rows *= c->count[d];
    zh_rng *rg = (zh_rng *)malloc(sizeof(zh_rng) * (size_t)(rows ? rows : 1));
    if (!rg) return -1;
    int64_t lo = INT64_MAX, hi = 0;
    if (nd > 0) {
        for (int64_t j = 0; j < c->count[last]; j++) {
            int64_t v = oj->q_in[c->start[last] + j] * job->chunk_lstrides[last];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    } else {
        lo = 0;
    }
    int64_t idx[ZH_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
        int64_t base = 0;
        for (int d = 0; d < last; d++)
            base += oj->q_in[c->start[d] + idx[d]] * job->chunk_lstrides[d];
        rg[r].lo = base + lo;
        rg[r].hi = base + hi + job->itemsize;
        for (int d = last - 1; d >= 0; d--) {
            if (++idx[d] < c->count[d]) break;
            idx[d] = 0;
        }
    }
    *out = rg;
    return rows;
}

/* Copy (src != NULL) or fill the task's elements into the caller's buffer. */
static void or_copy(const zh_ortho_t *oj, const int64_t *start, const int64_t *count,
                    const char *src) {
    const zh_job_t *job = oj->job;
    int nd = job->ndim, last = nd - 1;
    int64_t isz = job->itemsize;
    const int64_t *bs = job->buf_strides, *ls = job->chunk_lstrides;
    if (nd == 0) {
        if (src) zh_put_elem(job->buf, src, isz, job->swap);
        else memcpy(job->buf, job->fill_native, (size_t)isz);
        return;
    }
    const int64_t *in_l = oj->q_in + start[last], *out_l = oj->q_out + start[last];
    int64_t n_l = count[last];
    /* the innermost run is one memcpy when both sides are consecutive */
    int run = job->swap <= 1 && ls[last] == isz && bs[last] == isz;
    for (int64_t j = 1; j < n_l && run; j++)
        if (in_l[j] != in_l[0] + j || out_l[j] != out_l[0] + j) run = 0;
    int64_t rows = 1;
    for (int d = 0; d < last; d++) rows *= count[d];
    int64_t idx[ZH_MAX_DIMS] = {0};
    for (int64_t r = 0; r < rows; r++) {
        int64_t so = 0, dof = 0;
        for (int d = 0; d < last; d++) {
            so += oj->q_in[start[d] + idx[d]] * ls[d];
            dof += oj->q_out[start[d] + idx[d]] * bs[d];
        }
        char *dst = job->buf + dof;
        if (!src) {
            for (int64_t j = 0; j < n_l; j++) zh_put_elem(dst + out_l[j] * bs[last], job->fill_native, isz, 0);
        } else if (run) {
            memcpy(dst + out_l[0] * isz, src + so + in_l[0] * isz, (size_t)(n_l * isz));
        } else {
            for (int64_t j = 0; j < n_l; j++)
                zh_put_elem(dst + out_l[j] * bs[last], src + so + in_l[j] * ls[last], isz, job->swap);
        }
        for (int d = last - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) break;
            idx[d] = 0;
        }
    }
}

int zh_ortho_lists(zh_ortho_t *oj, int64_t t, int64_t *coords, int64_t *start,
                   int64_t *count, int64_t *nelem) {
    zh_job_t *job = oj->job;
    int nd = job->ndim;
    int64_t piece[ZH_MAX_DIMS];
    zh_task_pieces(job, t, piece);
    *nelem = 1;
    for (int d = 0; d < nd; d++) {
        int64_t k = piece[d];
        coords[d] = job->p_chunk[k];
        start[d] = oj->q_start[k];
        count[d] = oj->q_count[k];
        if (start[d] < 0 || count[d] < 0 || start[d] + count[d] > oj->nq) {
            zh_fail(job, t, ZH_ERR_BOUNDS, "index lists out of range");
            return -1;
        }
        for (int64_t j = start[d]; j < start[d] + count[d]; j++) {
            if (oj->q_in[j] < 0 || oj->q_in[j] >= job->chunk_shape[d]) {
                zh_fail(job, t, ZH_ERR_BOUNDS, "an index lies outside its chunk");
                return -1;
            }
            if (oj->q_out[j] < 0 || oj->q_out[j] >= oj->full_shape[d]) {
                zh_fail(job, t, ZH_ERR_BOUNDS, "an index's place in the buffer is out of range");
                return -1;
            }
        }
        *nelem *= count[d];
    }
    return 0;
}

static void ortho_task(void *arg, int64_t t) {
    zh_ortho_t *oj = (zh_ortho_t *)arg;
    zh_job_t *job = oj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, t, &w)) return;
    int64_t coords[ZH_MAX_DIMS], start[ZH_MAX_DIMS], count[ZH_MAX_DIMS], nelem;
    if (zh_ortho_lists(oj, t, coords, start, count, &nelem) != 0) return;
    if (nelem == 0) {
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    or_ctx ctx = {oj, start, count};
    const char *base = NULL;
    int rv = chunk_view(job, w, t, coords, or_ranges, &ctx, &base);
    if (rv == VIEW_OK || rv == VIEW_MISSING) {
        or_copy(oj, start, count, rv == VIEW_OK ? base : NULL);
        job->task_status[t] = ZH_TASK_DONE;
    } else if (rv == VIEW_FALLBACK) {
        job->task_status[t] = ZH_TASK_FALLBACK;
    }
}

int zh_ortho_run(zh_ortho_t *oj, int nthreads) {
    return zh_job_run(oj->job, ortho_task, oj, zh_job_ntasks(oj->job), nthreads);
}
