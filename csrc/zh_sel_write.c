/* Selection writes of the native engine: point (coordinate), orthogonal and mask
 * writes, one task per touched chunk, each chunk read once, merged, encoded and written
 * atomically on the engine's pool with the GIL released by the caller.  The point
 * write's tasks are zh_select.c's (zh_points_write_run), the mask write's zh_mask.c's
 * (zh_mask_write_run), the orthogonal write's here; all end in zh_sel_scatter below.
 * See zh_select.h.  No Python.h.
 *
 * Why (wave 10, W8w/W10w of zarrhpc.bench.selections): these writes went through
 * Python per chunk (core/_select.py _update_chunks: a fetch, a decode, a numpy scatter,
 * an encode and a store call per chunk, on the executor with the GIL taken per step);
 * the mask write first turned the mask into per-point arrays (~110 MB for a 1 % mask of
 * 512^3) on one thread.  CPU per write of a float32 512^3 array, chunks 64^3 (every
 * one of the 512 chunks touched), main 7a8dd31 -> this, 3 writes each, load 7-9:
 * W8w 100 000 points none 666 -> 333 ms, blosc-lz4 849 -> 524; W10w 1 % mask none
 * 723 -> 368, blosc 955 -> 568; W9w 64^3 oindex none 643 -> 332, blosc 974 -> 603.
 * What is left (perf): uncompressed, ~80 % in the kernel (tmpfs pages of each new
 * chunk file allocated, the replaced file's freed, the old chunk's bytes copied in):
 * the cost of rewriting every chunk atomically; blosc, LZ4 compression first, then
 * decompression.  Writing the points in place would skip most of it but would not be
 * atomic per chunk (a reader could see half a write): not done. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "zh_job.h"
#include "zh_select.h"

void zh_sel_put(const zh_job_t *job, char *chunk, const int64_t *offs, const int64_t *src,
                int64_t src_scale, int64_t m, const char *values, int scalar) {
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
        for (int64_t i = 0; i < m; i++)
            zh_put_elem(chunk + offs[i], values + src[i] * src_scale, isz, swap);
    }
}

void zh_sel_scatter(zh_job_t *job, zh_wctx *w, int64_t t, const int64_t *coords,
                    const int64_t *offs, const int64_t *src, int64_t src_scale, int64_t m,
                    const char *values, int scalar, int covered) {
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
    zh_sel_put(job, chunk, offs, src, src_scale, m, values, scalar);
    if (!job->write_empty_chunks &&
        zh_is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize)) {
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

/* Chunk t of an orthogonal write: the product of its index lists (checked by
 * zh_ortho_lists), in C order (a repeated index keeps the last value,
 * as numpy's assignment), each element's offset in the chunk and in the value (the
 * job's buffer: any strides, 0 for broadcast dimensions), then zh_sel_scatter. */
static void ortho_write_task(void *arg, int64_t t) {
    zh_ortho_t *oj = (zh_ortho_t *)arg;
    zh_job_t *job = oj->job;
    zh_wctx *w;
    if (!zh_sel_begin(job, t, &w)) return;
    int nd = job->ndim;
    int64_t coords[ZH_MAX_DIMS], start[ZH_MAX_DIMS], count[ZH_MAX_DIMS], m;
    if (zh_ortho_lists(oj, t, coords, start, count, &m) != 0) return;
    if (m == 0) {
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    int64_t *offs = (int64_t *)malloc(sizeof(int64_t) * (size_t)m * 2);
    if (!offs) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return;
    }
    int64_t *src = offs + m, idx[ZH_MAX_DIMS] = {0}, covered = 1;
    for (int d = 0; d < nd; d++)
        if (count[d] != job->chunk_shape[d]) covered = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t o = 0, v = 0;
        for (int d = 0; d < nd; d++) {
            o += oj->q_in[start[d] + idx[d]] * job->chunk_lstrides[d];
            v += oj->q_out[start[d] + idx[d]] * job->buf_strides[d];
        }
        offs[i] = o;
        src[i] = v;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) break;
            idx[d] = 0;
        }
    }
    if (covered) { /* every index of the chunk, once each: nothing to merge */
        for (int d = 0; d < nd && covered; d++) {
            uint8_t seen[4096];
            if (count[d] > (int64_t)sizeof(seen)) {
                covered = 0;
                break;
            }
            memset(seen, 0, (size_t)count[d]);
            for (int64_t j = start[d]; j < start[d] + count[d]; j++) {
                if (seen[oj->q_in[j]]) covered = 0;
                seen[oj->q_in[j]] = 1;
            }
        }
    }
    zh_sel_scatter(job, w, t, coords, offs, src, 1, m, job->buf, 0, (int)covered);
    free(offs);
}

int zh_ortho_write_run(zh_ortho_t *oj, int nthreads) {
    return zh_job_run(oj->job, ortho_write_task, oj, zh_job_ntasks(oj->job), nthreads);
}
