/* Selection writes of the native engine: point (coordinate) and mask writes, one task
 * per touched chunk, each chunk read once, merged, encoded and written atomically on
 * the engine's pool with the GIL released by the caller.  The mask write finds its
 * chunk's elements with zh_mask.c's pass (zh_mask_write_run); both end in
 * zh_sel_scatter below.  See zh_select.h.  No Python.h.
 *
 * Why (wave 10, W8w/W10w of zarrhpc.bench.selections): these writes went through
 * Python per chunk (core/_select.py _update_chunks: a fetch, a decode, a numpy scatter,
 * an encode and a store call per chunk, on the executor with the GIL taken per step);
 * the mask write first turned the mask into per-point arrays (~110 MB for a 1 % mask of
 * 512^3) on one thread. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "zh_job.h"
#include "zh_select.h"

void zh_sel_scatter(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                    const int64_t *offs, const int64_t *src, int64_t m, const char *values,
                    int scalar, int covered) {
    char path[ZH_PATH_MAX], msg[ZH_ERRLEN];
    msg[0] = 0;
    if (zh_chunk_path(job, coords, path, sizeof(path)) < 0) {
        zh_fail(job, t, ZH_ERR_IO, "path too long");
        return;
    }
    char *chunk = zh_scratch(w, 0, (size_t)job->decoded_size);
    if (!chunk) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return;
    }
    int rc = ZH_OK;
    if (!covered) {
        rc = zh_load_chunk(job, w, path, chunk, msg, sizeof(msg));
        if (rc == ZH_FALLBACK || rc == ZH_ERR_CORRUPT) { /* the Python codecs decide */
            job->task_status[t] = ZH_TASK_FALLBACK;
            return;
        }
        if (rc != ZH_OK) {
            zh_fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
            return;
        }
    }
    int64_t isz = job->itemsize;
    int swap = job->swap;
    if (scalar) {
        char one[64];
        if (isz <= (int64_t)sizeof(one)) { /* swapped once, then plain copies */
            zh_put_elem(one, values, isz, swap);
            for (int64_t i = 0; i < m; i++) zh_put_elem(chunk + offs[i], one, isz, 0);
        } else {
            for (int64_t i = 0; i < m; i++) zh_put_elem(chunk + offs[i], values, isz, swap);
        }
    } else {
        for (int64_t i = 0; i < m; i++) zh_put_elem(chunk + offs[i], values + src[i] * isz, isz, swap);
    }
    if (!job->write_empty_chunks &&
        zh_is_fill(chunk, job->decoded_size, job->fill_stored, isz)) {
        rc = zh_erase_file(job, path, msg, sizeof(msg));
    } else {
        const char *out;
        size_t out_n;
        rc = zh_encode_bytes(w, job->steps, job->nsteps, chunk, (size_t)job->decoded_size, NULL,
                             0, &out, &out_n, msg, sizeof(msg));
        if (rc == ZH_FALLBACK) {
            job->task_status[t] = ZH_TASK_FALLBACK;
            return;
        }
        if (rc == ZH_OK) {
            struct iovec one = {(void *)out, out_n};
            rc = zh_write_filev(job, path, &one, 1, msg, sizeof(msg));
        }
    }
    if (rc != ZH_OK) {
        zh_fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
        return;
    }
    job->task_status[t] = ZH_TASK_DONE;
}

/* Chunk k of a point write: its points' offsets (each checked inside the chunk, its
 * value's place inside the values), then zh_sel_scatter in point order. */
static void point_write_task(void *arg, int64_t k) {
    zh_points_t *pj = (zh_points_t *)arg;
    zh_job_t *job = pj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, k, &w)) return;
    int nd = job->ndim;
    int64_t p0 = pj->offsets[k], p1 = pj->offsets[k + 1];
    if (p0 < 0 || p1 < p0 || p1 > pj->npoints) {
        zh_fail(job, k, ZH_ERR_BOUNDS, "point offsets out of range");
        return;
    }
    int64_t m = p1 - p0;
    if (m == 0) {
        job->task_status[k] = ZH_TASK_DONE;
        return;
    }
    int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * (size_t)m);
    if (!offs) {
        zh_fail(job, k, ZH_ERR_NOMEM, "out of memory");
        return;
    }
    for (int64_t i = 0; i < m; i++) {
        const int64_t *c = pj->in_chunk + (p0 + i) * nd;
        int64_t off = 0;
        for (int d = 0; d < nd; d++) {
            if (c[d] < 0 || c[d] >= job->chunk_shape[d]) {
                zh_fail(job, k, ZH_ERR_BOUNDS, "a point lies outside its chunk");
                free(offs);
                return;
            }
            off += c[d] * job->chunk_lstrides[d];
        }
        int64_t o = pj->out_index[p0 + i];
        if (o < 0 || o >= pj->out_size) {
            zh_fail(job, k, ZH_ERR_BOUNDS, "a point's value is out of range");
            free(offs);
            return;
        }
        offs[i] = off;
    }
    zh_sel_scatter(job, w, k, pj->chunk_coords + k * nd, offs, pj->out_index + p0, m, pj->out,
                   pj->scalar, 0);
    free(offs);
}

int zh_points_write_run(zh_points_t *pj, int nthreads) {
    return zh_job_run(pj->job, point_write_task, pj, pj->nchunks, nthreads);
}
