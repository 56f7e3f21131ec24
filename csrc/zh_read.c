/* Basic reads of the native engine: one task per chunk of the request (zh_read_run); a
 * chunk is a file of its own, the byte range of a shard file holding it (src ranges:
 * sharded arrays on a directory, read without Python since W5's sub-volume read spent
 * half its time reading whole shard files into Python bytes before decoding), or bytes
 * the caller hands over. */
#define _GNU_SOURCE
#include "zh_job.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "zh_select.h"
#include "zh_strided.h"

/* A small read of a blosc chunk goes block by block when its box has at most this many
 * rows (one byte range each); a larger one decodes the byte range it spans. */
#define ZH_BOX_ROWS_MAX 4096

static int32_t le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                     ((uint32_t)p[3] << 24));
}

/* Read from a c-blosc1 chunk file of n bytes only what decoding bytes [lo, hi) needs:
 * the header, the block offsets and the compressed blocks holding those bytes, each at
 * its own offset in a buffer of n bytes (the rest is never read by blosc's getitem).
 * Returns the buffer, or NULL when the chunk is not a plain c-blosc1 chunk or anything
 * in it is out of range (the caller then reads the whole file). */
static const char *read_blosc_sparse(zh_wctx *w, int fd, int64_t foff, int64_t n,
                                     int64_t expect, int64_t lo, int64_t hi) {
    unsigned char h[16];
    if (n < 16 || n > INT32_MAX || zh_pread_full(fd, (char *)h, 16, foff) != 0) return NULL;
    int flags = h[2], ts = h[3];
    int32_t nbytes = le32(h + 4), blocksize = le32(h + 8), cbytes = le32(h + 12);
    if ((flags & 0x05) == 0x05 || ts <= 0 || nbytes != expect || cbytes != n || blocksize <= 0 ||
        h[0] == 0 || h[0] > 4)
        return NULL; /* extended (blosc2) header or inconsistent: read it all */
    int64_t a = (lo / ts) * ts, b = ((hi + ts - 1) / ts) * ts;
    char *buf = zh_scratch(w, 3, (size_t)n);
    if (!buf) return NULL;
    memcpy(buf, h, 16);
    if (flags & 0x02) { /* memcpyed: the bytes follow the header as they are */
        if (16 + b > n || zh_pread_full(fd, buf + 16 + a, (size_t)(b - a), foff + 16 + a) != 0)
            return NULL;
        return buf;
    }
    int64_t nblocks = (nbytes + (int64_t)blocksize - 1) / blocksize;
    int64_t table_end = 16 + 4 * nblocks;
    if (table_end > n || zh_pread_full(fd, buf + 16, (size_t)(4 * nblocks), foff + 16) != 0)
        return NULL;
    /* one span holding the wanted blocks and nothing unread past them (zh_codecs.h) */
    int64_t first = INT64_MAX, last = -1;
    if (zh_blosc_span_add(buf, nblocks, n, a / blocksize, (b - 1) / blocksize, &first,
                          &last) != 0 || last < 0)
        return NULL;
    int64_t end = zh_blosc_span_end(buf, nblocks, n, last);
    if (zh_pread_full(fd, buf + first, (size_t)(end - first), foff + first) != 0) return NULL;
    return buf;
}

static void read_task(void *arg, int64_t t) {
    zh_job_t *job = (zh_job_t *)arg;
    zh_piece p;
    zh_wctx *w = zh_task_begin(job, t, &p);
    if (!w) return;
    int direct = p.whole && job->direct_ok && job->swap <= 1;
    if (job->nsteps == 1 && job->steps[0].kind == ZH_BB_BLOSC && job->partial_ok && !direct) {
        /* a small box of a blosc chunk: read and decode only the internal blocks holding
         * its rows (csrc/zh_select.c) */
        int64_t lo = 0, hi = 0, rows = 1;
        zh_piece_range(job, &p, &lo, &hi);
        for (int d = 0; d + 1 < job->ndim; d++) rows *= p.count[d];
        if (hi - lo <= job->decoded_size / 4 && rows <= ZH_BOX_ROWS_MAX) {
            const char *base = NULL;
            int rv = zh_box_view(job, w, t, p.coords, p.first, p.count, p.chunk_strides, &base);
            if (rv == ZH_VIEW_OK) {
                zh_copy_out(job, &p, base);
                job->task_status[t] = ZH_TASK_DONE;
            } else if (rv == ZH_VIEW_MISSING) {
                zh_fill_strided(p.bufp, job->ndim, p.count, job->buf_strides, job->fill_native,
                                job->itemsize);
                job->task_status[t] = ZH_TASK_DONE;
            } else if (rv == ZH_VIEW_FALLBACK) {
                job->task_status[t] = ZH_TASK_FALLBACK;
            }
            return;
        }
    }
    const char *src = NULL;
    int64_t n = 0;
    int fd = -1;
    int64_t foff = 0; /* where the chunk starts in fd (an inner chunk of a shard file) */
    int owned = 1;    /* fd is this task's to close (else the call's shared one) */
    if (job->path_prefix) {
        int rc = zh_open_task_chunk(job, t, p.coords, &fd, &foff, &n, &owned);
        if (rc < 0) return;
        if (rc == 0) fd = -1;
        else src = ""; /* present */
    } else {
        src = job->mem_ptr[t];
        n = src ? job->mem_len[t] : 0;
    }
    if (!src) {
        zh_fill_strided(p.bufp, job->ndim, p.count, job->buf_strides, job->fill_native,
                        job->itemsize);
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    char msg[ZH_ERRLEN];
    int err;
    if (job->nsteps == 0) {
        if (n != job->decoded_size) { /* corrupt: the Python codecs name the problem */
            if (fd >= 0 && owned) close(fd);
            job->task_status[t] = ZH_TASK_FALLBACK;
            return;
        }
        const char *base = src;
        if (fd >= 0) {
            if (direct) {
                err = zh_pread_full(fd, p.bufp, (size_t)n, foff);
                if (owned) close(fd);
                if (err) zh_fail_errno(job, t, "cannot read", err);
                else job->task_status[t] = ZH_TASK_DONE;
                return;
            }
            int64_t lo = 0, hi = n;
            if (job->partial_ok) zh_piece_range(job, &p, &lo, &hi);
            if (hi - lo > n / 2) {
                lo = 0;
                hi = n;
            }
            char *raw = zh_read_scratch(w, fd, foff + lo, hi - lo, &err);
            if (owned) close(fd);
            if (!raw) {
                zh_fail_read(job, t, err);
                return;
            }
            base = raw - lo;
        }
        zh_copy_out(job, &p, base);
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    int sparse_blosc = 0, is_sparse = 0;
    int64_t lo = 0, hi = 0;
    if (job->nsteps == 1 && job->steps[0].kind == ZH_BB_BLOSC && job->partial_ok && !direct) {
        zh_piece_range(job, &p, &lo, &hi);
        sparse_blosc = hi - lo <= job->decoded_size / 4;
    }
    if (fd >= 0 && sparse_blosc) {
        const char *sparse = read_blosc_sparse(w, fd, foff, n, job->decoded_size, lo, hi);
        if (sparse) {
            if (owned) close(fd);
            fd = -1;
            src = sparse;
            is_sparse = 1;
        }
    }
    if (fd >= 0) {
        char *raw = zh_read_scratch(w, fd, foff, n, &err);
        if (owned) close(fd);
        if (!raw) {
            zh_fail_read(job, t, err);
            return;
        }
        src = raw;
    }
    const char *out = NULL;
    size_t out_n = 0;
    msg[0] = 0;
    if (sparse_blosc) {
        /* a small part of a blosc chunk: decompress only the blocks that hold it */
        {
            const char *base;
            int rc = zh_blosc_range(w, src, (size_t)n, job->decoded_size, lo, hi, &base, msg,
                                    sizeof(msg));
            if (rc == ZH_OK) {
                zh_copy_out(job, &p, base);
                job->task_status[t] = ZH_TASK_DONE;
                return;
            }
            if (rc == ZH_ERR_NOMEM) {
                zh_fail(job, t, rc, "out of memory");
                return;
            }
            if (rc == ZH_ERR_CORRUPT) {
                job->task_status[t] = ZH_TASK_FALLBACK;
                return;
            }
            if (is_sparse) { /* not all of it was read: the Python codecs decode it */
                job->task_status[t] = ZH_TASK_FALLBACK;
                return;
            }
        }
    }
    int rc = zh_decode_bytes(w, job->steps, job->nsteps, src, (size_t)n,
                             direct ? p.bufp : NULL, (size_t)job->decoded_size, &out, &out_n,
                             msg, sizeof(msg));
    /* A chunk the engine cannot decode goes to the Python codecs: either they can (an
     * unusual but valid stream) or they raise the error, worded as everywhere else. */
    if (rc == ZH_FALLBACK || rc == ZH_ERR_CORRUPT ||
        (rc == ZH_OK && (int64_t)out_n != job->decoded_size)) {
        job->task_status[t] = ZH_TASK_FALLBACK;
        return;
    }
    if (rc != ZH_OK) {
        zh_fail(job, t, rc, "out of memory");
        return;
    }
    if (out != p.bufp) zh_copy_out(job, &p, out);
    job->task_status[t] = ZH_TASK_DONE;
}

int zh_read_run(zh_job_t *job, int nthreads) {
    return zh_job_run(job, read_task, job, zh_job_ntasks(job), nthreads);
}
