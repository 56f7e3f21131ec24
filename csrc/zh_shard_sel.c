/* Point writes into shards (zh_shard_points_write_run, see zh_select.h): one task per
 * touched shard.  Each task reads the stored shard once (its index checked: length,
 * crc32c, every entry inside the data region), merges the points into each touched
 * inner chunk (decoded, set, checked against the fill value, encoded), keeps the other
 * inner chunks' encoded bytes as they are, and writes index and chunks with one writev
 * to a temporary file renamed into place (atomic per shard), or erases the shard when
 * no inner chunk is left.  A shard whose stored bytes or codecs the engine cannot take
 * (a corrupt index, a chunk the Python codecs must decode) is FALLBACK and not written:
 * the Python path rebuilds it and names any problem.  No Python.h.
 *
 * Why: these writes went through core/_select.py's per-shard Python loop (a decode, a
 * numpy scatter and an encode per inner chunk through the Python codecs); orthogonal
 * and mask writes on sharded arrays are handed here as points. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "zh_job.h"
#include "zh_select.h"

#define ZH_NO_ENTRY UINT64_MAX

static uint64_t get_le64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static void put_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The stored shard's entries (off, len per inner chunk; ZH_NO_ENTRY when empty) from
 * its bytes: 0, or -1 when the index does not check (the Python path names it). */
static int parse_index(const zh_shard_points_t *sp, const unsigned char *raw, int64_t size,
                       uint64_t *ent) {
    int64_t nc = sp->nchunks_per_shard;
    int64_t ixn = nc * 16 + (sp->index_crc ? 4 : 0);
    if (size < ixn) return -1;
    const unsigned char *ix = raw + (sp->index_start ? 0 : size - ixn);
    if (sp->index_crc) {
        unsigned char want[4];
        zh_put_crc32c(want, ix, (size_t)nc * 16);
        if (memcmp(want, ix + nc * 16, 4) != 0) return -1;
    }
    uint64_t lo = sp->index_start ? (uint64_t)ixn : 0;
    uint64_t hi = sp->index_start ? (uint64_t)size : (uint64_t)(size - ixn);
    for (int64_t j = 0; j < nc; j++) {
        uint64_t off = get_le64(ix + 16 * j), len = get_le64(ix + 16 * j + 8);
        ent[2 * j] = off;
        ent[2 * j + 1] = len;
        if (off == ZH_NO_ENTRY && len == ZH_NO_ENTRY) continue;
        if (off < lo || off > hi || len > hi - off) return -1;
    }
    return 0;
}

/* Decode stored inner chunk bytes src[0:n] into chunk (decoded_size bytes): ZH_OK, or
 * ZH_FALLBACK (the Python codecs decode it or name the problem), or ZH_ERR_NOMEM. */
static int decode_into(const zh_job_t *job, zh_wctx *w, const char *src, size_t n,
                       char *chunk) {
    if (job->nsteps == 0) {
        if ((int64_t)n != job->decoded_size) return ZH_FALLBACK;
        memcpy(chunk, src, n);
        return ZH_OK;
    }
    const char *out;
    size_t out_n;
    char msg[ZH_ERRLEN];
    int rc = zh_decode_bytes(w, job->steps, job->nsteps, src, n, chunk,
                             (size_t)job->decoded_size, &out, &out_n, msg, sizeof(msg));
    if (rc == ZH_ERR_NOMEM) return rc;
    if (rc != ZH_OK || (int64_t)out_n != job->decoded_size) return ZH_FALLBACK;
    if (out != chunk) memcpy(chunk, out, out_n);
    return ZH_OK;
}

typedef struct {
    char *p;
    size_t used, cap;
} grow_buf;

/* Each thread keeps its encoded-shard buffer between tasks (up to ZH_KEEP_ENC bytes): a
 * fresh one costs a page fault and a cleared page per 4 KiB written, measured ~6 % of
 * W11w's CPU. */
#define ZH_KEEP_ENC ((size_t)128 << 20)
static __thread grow_buf t_enc;

/* Room for n more bytes at b->p + b->used: 0, or -1 (out of memory). */
static int grow(grow_buf *b, size_t n) {
    if (b->used + n <= b->cap) return 0;
    size_t cap = b->cap ? 2 * b->cap : ((size_t)1 << 20);
    while (cap < b->used + n) cap *= 2;
    char *q = (char *)realloc(b->p, cap);
    if (!q) return -1;
    b->p = q;
    b->cap = cap;
    return 0;
}

static void shard_points_task(void *arg, int64_t s) {
    zh_shard_points_t *sp = (zh_shard_points_t *)arg;
    zh_points_t *pj = sp->pj;
    zh_job_t *job = pj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, s, &w)) return;
    int nd = job->ndim;
    int64_t nc = sp->nchunks_per_shard;
    int64_t ixn = nc * 16 + (sp->index_crc ? 4 : 0);
    char path[ZH_PATH_MAX], msg[ZH_ERRLEN];
    msg[0] = 0;
    uint64_t *ent = NULL;
    int64_t *which = NULL;
    struct iovec *iov = NULL;
    unsigned char *index = NULL;
    grow_buf enc = t_enc;
    t_enc.p = NULL;
    t_enc.cap = 0;
    enc.used = 0;
    int fd = -1;
    if (zh_chunk_path(job, sp->shard_coords + s * nd, path, sizeof(path)) < 0) {
        zh_fail(job, s, ZH_ERR_IO, "path too long");
        return;
    }
    ent = (uint64_t *)malloc(sizeof(uint64_t) * 2 * (size_t)nc);
    which = (int64_t *)malloc(sizeof(int64_t) * (size_t)nc);
    iov = (struct iovec *)malloc(sizeof(struct iovec) * (size_t)(nc + 1));
    index = (unsigned char *)malloc((size_t)ixn);
    char *chunk = zh_scratch(w, 0, (size_t)job->decoded_size);
    if (!ent || !which || !iov || !index || !chunk) {
        zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the inner chunks this shard's points touch: point job chunk per index entry */
    for (int64_t j = 0; j < nc; j++) which[j] = -1;
    if (sp->first[s] < 0 || sp->first[s + 1] < sp->first[s] || sp->first[s + 1] > pj->nchunks) {
        zh_fail(job, s, ZH_ERR_BOUNDS, "shard members out of range");
        goto done;
    }
    for (int64_t i = sp->first[s]; i < sp->first[s + 1]; i++) {
        int64_t k = sp->member[i], f = sp->member_flat[i];
        if (k < 0 || k >= pj->nchunks || f < 0 || f >= nc) {
            zh_fail(job, s, ZH_ERR_BOUNDS, "an inner chunk outside its shard");
            goto done;
        }
        which[f] = k;
    }
    /* the stored shard, read whole (scratch 3) and its index checked */
    int64_t size = 0;
    const char *raw = NULL;
    int rc = zh_open_chunk(job, path, &fd, &size);
    if (rc < 0) {
        zh_fail_errno(job, s, "cannot open", -rc);
        goto done;
    }
    if (rc == 0) {
        for (int64_t j = 0; j < 2 * nc; j++) ent[j] = ZH_NO_ENTRY;
    } else {
        int err = 0;
        raw = zh_read_and_close(w, fd, 0, size, &err);
        fd = -1;
        if (!raw) {
            zh_fail_read(job, s, err);
            goto done;
        }
        if (parse_index(sp, (const unsigned char *)raw, size, ent) != 0) {
            job->task_status[s] = ZH_TASK_FALLBACK;
            goto done;
        }
    }
    size_t bound = job->nsteps == 0 ? (size_t)job->decoded_size
                                    : zh_encode_bound(job->steps, job->nsteps,
                                                      (size_t)job->decoded_size);
    /* each touched inner chunk merged and encoded into enc (offsets: it may move) */
    for (int64_t j = 0; j < nc; j++) {
        int64_t k = which[j];
        if (k < 0) continue;
        if (ent[2 * j] == ZH_NO_ENTRY) {
            zh_fill_chunk(job, chunk);
        } else {
            rc = decode_into(job, w, raw + ent[2 * j], (size_t)ent[2 * j + 1], chunk);
            if (rc == ZH_ERR_NOMEM) {
                zh_fail(job, s, rc, "out of memory");
                goto done;
            }
            if (rc != ZH_OK) {
                job->task_status[s] = ZH_TASK_FALLBACK;
                goto done;
            }
        }
        int64_t m;
        int64_t *offs = zh_point_offsets(pj, k, s, &m);
        if (!offs) goto done;
        zh_sel_put(job, chunk, offs, pj->out_index + pj->offsets[k], job->itemsize, m, pj->out,
                   pj->scalar);
        free(offs);
        if (!job->write_empty_chunks &&
            zh_is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize)) {
            ent[2 * j] = ent[2 * j + 1] = ZH_NO_ENTRY;
            which[j] = -2; /* left out */
            continue;
        }
        if (grow(&enc, bound) != 0) {
            zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
            goto done;
        }
        const char *out = chunk;
        size_t out_n = (size_t)job->decoded_size;
        if (job->nsteps > 0) {
            rc = zh_encode_bytes(w, job->steps, job->nsteps, chunk, (size_t)job->decoded_size,
                                 enc.p + enc.used, bound, &out, &out_n, msg, sizeof(msg));
            if (rc == ZH_FALLBACK) {
                job->task_status[s] = ZH_TASK_FALLBACK;
                goto done;
            }
            if (rc != ZH_OK) {
                zh_fail(job, s, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
                goto done;
            }
            if (out_n > bound) {
                zh_fail(job, s, ZH_ERR_CODEC, "an encoded inner chunk is larger than its bound");
                goto done;
            }
        }
        if (out != enc.p + enc.used) memcpy(enc.p + enc.used, out, out_n);
        ent[2 * j] = enc.used; /* relative to enc until the iovecs are made */
        ent[2 * j + 1] = out_n;
        enc.used += out_n;
    }
    /* the new index (inner chunks in index order) and the shard's pieces */
    int cnt = sp->index_start ? 1 : 0;
    uint64_t pos = sp->index_start ? (uint64_t)ixn : 0;
    for (int64_t j = 0; j < nc; j++) {
        uint64_t off = ent[2 * j], len = ent[2 * j + 1];
        if (off == ZH_NO_ENTRY && len == ZH_NO_ENTRY) {
            put_le64(index + 16 * j, ZH_NO_ENTRY);
            put_le64(index + 16 * j + 8, ZH_NO_ENTRY);
            continue;
        }
        iov[cnt].iov_base = (void *)(which[j] >= 0 ? enc.p + off : raw + off);
        iov[cnt].iov_len = (size_t)len;
        cnt++;
        put_le64(index + 16 * j, pos);
        put_le64(index + 16 * j + 8, len);
        pos += len;
    }
    if (cnt == (sp->index_start ? 1 : 0)) {
        rc = zh_erase_file(job, path, msg, sizeof(msg));
    } else {
        if (sp->index_crc) zh_put_crc32c(index + nc * 16, index, (size_t)nc * 16);
        int at = sp->index_start ? 0 : cnt++;
        iov[at].iov_base = index;
        iov[at].iov_len = (size_t)ixn;
        rc = zh_write_filev(job, path, iov, cnt, msg, sizeof(msg));
    }
    if (rc != ZH_OK) zh_fail(job, s, rc, msg);
    else job->task_status[s] = ZH_TASK_DONE;
done:
    if (fd >= 0) close(fd);
    free(ent);
    free(which);
    free(iov);
    free(index);
    if (enc.cap <= ZH_KEEP_ENC && !t_enc.p) {
        t_enc = enc;
    } else {
        free(enc.p);
    }
}

int zh_shard_points_write_run(zh_shard_points_t *sp, int nthreads) {
    return zh_job_run(sp->pj->job, shard_points_task, sp, sp->nshards, nthreads);
}
