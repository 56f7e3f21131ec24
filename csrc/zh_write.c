/* Writes of the native engine (zh_write_run): one task per chunk, each written to a
 * temporary file and renamed into place (or erased when all fill); uncompressed whole
 * chunks straight from the caller's buffer (write_runs) or in row groups. */
#define _GNU_SOURCE
#include "zh_job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "zh_strided.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

int zh_is_fill(const char *buf, int64_t nbytes, const char *fill, int64_t itemsize) {
    if (itemsize == 4 || itemsize == 8 || itemsize == 2 || itemsize == 1) {
        uint64_t pat = 0;
        for (int64_t i = 0; i < 8; i += itemsize) memcpy((char *)&pat + i, fill, (size_t)itemsize);
        int64_t i = 0;
        for (; i + 8 <= nbytes; i += 8) {
            uint64_t v;
            memcpy(&v, buf + i, 8);
            if (v != pat) return 0;
        }
        for (; i < nbytes; i++)
            if (buf[i] != ((const char *)&pat)[i % 8]) return 0;
        return 1;
    }
    for (int64_t i = 0; i < nbytes; i += itemsize)
        if (memcmp(buf + i, fill, (size_t)itemsize) != 0) return 0;
    return 1;
}

static uint64_t next_random(void) {
    static __thread uint64_t s = 0;
    if (s == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
            (uint64_t)(uintptr_t)&s;
        if (s == 0) s = 0x9E3779B97F4A7C15ull;
    }
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

/* mkdir every missing directory of `dir` below the first root_len bytes; 0 or errno. */
static int make_dirs(char *dir, int64_t root_len) {
    size_t len = strlen(dir);
    for (size_t i = (size_t)(root_len > 0 ? root_len : 1); i <= len; i++) {
        if (dir[i] != '/' && dir[i] != 0) continue;
        char c = dir[i];
        dir[i] = 0;
        int rc = mkdir(dir, 0777);
        int e = errno;
        dir[i] = c;
        if (rc != 0 && e != EEXIST) return e;
    }
    return 0;
}

static int fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    int rc = fsync(fd) == 0 ? 0 : errno;
    close(fd);
    return rc;
}

static void prune(char *dir, int64_t root_len) {
    for (;;) {
        size_t len = strlen(dir);
        if ((int64_t)len <= root_len) return;
        if (rmdir(dir) != 0) return;
        char *slash = strrchr(dir, '/');
        if (!slash) return;
        *slash = 0;
    }
}

/* Write all of iov[0..iovcnt) to fd; 0 or errno.  iov is used up (changed). */
static int writev_all(int fd, struct iovec *iov, int iovcnt) {
    while (iovcnt > 0) {
        int cnt = iovcnt < IOV_MAX ? iovcnt : IOV_MAX;
        ssize_t r = writev(fd, iov, cnt);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        while (r > 0 && iovcnt > 0) {
            if ((size_t)r >= iov->iov_len) {
                r -= (ssize_t)iov->iov_len;
                iov++;
                iovcnt--;
            } else {
                iov->iov_base = (char *)iov->iov_base + r;
                iov->iov_len -= (size_t)r;
                r = 0;
            }
        }
        while (iovcnt > 0 && iov->iov_len == 0) {
            iov++;
            iovcnt--;
        }
    }
    return 0;
}

/* Create a temporary file next to path (its name in tmp, ZH_PATH_MAX bytes) and open it
 * for writing in *fd.  0, or a status with msg. */
static int tmp_open(const zh_job_t *job, const char *path, char *tmp, int *fd, char *msg,
                    size_t msglen) {
    char dir[ZH_PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(msg, msglen, "bad path");
        return ZH_ERR_IO;
    }
    *slash = 0;
    *fd = -1;
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t a = next_random(), b = next_random();
        int len = snprintf(tmp, ZH_PATH_MAX, "%s/" ZH_TMP_PREFIX "%016llx%016llx" ZH_TMP_SUFFIX,
                           dir, (unsigned long long)a, (unsigned long long)b);
        if (len < 0 || len >= ZH_PATH_MAX) {
            snprintf(msg, msglen, "path too long");
            return ZH_ERR_IO;
        }
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (*fd >= 0) return ZH_OK;
        int e = errno;
        if (e == EEXIST) continue;
        if (e == ENOENT) { /* missing directory, or pruned by a concurrent erase */
            int m = make_dirs(dir, job->root_len);
            if (m == ENOTDIR || m == EEXIST) e = ENOTDIR;
            else if (m != 0 && m != ENOENT) {
                snprintf(msg, msglen, "cannot create the directory for it: [Errno %d] %s", m,
                         strerror(m));
                return ZH_ERR_IO;
            } else continue;
        }
        if (e == ENOTDIR) {
            snprintf(msg, msglen, "cannot set: a parent of it is a value, so it cannot also be a prefix");
            return ZH_ERR_STORE;
        }
        snprintf(msg, msglen, "cannot create a temporary file: [Errno %d] %s", e, strerror(e));
        return ZH_ERR_IO;
    }
    snprintf(msg, msglen, "cannot set: its directory keeps disappearing");
    return ZH_ERR_IO;
}

/* Finish a temporary file: fsync when durable, close, rename over path (all unless e, an
 * errno from writing it, is set; then it is removed).  0, or a status with msg. */
static int tmp_commit(const zh_job_t *job, int fd, const char *tmp, const char *path, int e,
                      char *msg, size_t msglen) {
    if (!e && job->durable && fsync(fd) != 0) e = errno;
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, path) != 0) e = errno;
    if (e) {
        unlink(tmp);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(msg, msglen, "cannot set: it is a prefix of other keys (a directory)");
            return ZH_ERR_STORE;
        }
        snprintf(msg, msglen, "cannot set: [Errno %d] %s", e, strerror(e));
        return ZH_ERR_IO;
    }
    if (job->durable) {
        char dir[ZH_PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        int f = fsync_dir(dir);
        if (f) {
            snprintf(msg, msglen, "cannot flush its directory: [Errno %d] %s", f, strerror(f));
            return ZH_ERR_IO;
        }
    }
    return ZH_OK;
}

/* Write iov[0..iovcnt) to path atomically (temporary file, rename).  0, or a status with
 * msg.  iov is used up. */
int zh_write_filev(const zh_job_t *job, const char *path, struct iovec *iov, int iovcnt,
                       char *msg, size_t msglen) {
    char tmp[ZH_PATH_MAX];
    int fd;
    int rc = tmp_open(job, path, tmp, &fd, msg, msglen);
    if (rc != ZH_OK) return rc;
    return tmp_commit(job, fd, tmp, path, writev_all(fd, iov, iovcnt), msg, msglen);
}

static int write_file(const zh_job_t *job, const char *path, const char *data, size_t n,
                      char *msg, size_t msglen) {
    struct iovec one = {(void *)data, n};
    return zh_write_filev(job, path, &one, 1, msg, msglen);
}

int zh_erase_file(const zh_job_t *job, const char *path, char *msg, size_t msglen) {
    if (unlink(path) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR || e == EISDIR || e == EPERM) return ZH_OK;
        snprintf(msg, msglen, "cannot erase: [Errno %d] %s", e, strerror(e));
        return ZH_ERR_IO;
    }
    char dir[ZH_PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        if (job->durable) {
            int f = fsync_dir(dir);
            if (f) {
                snprintf(msg, msglen, "cannot flush its directory: [Errno %d] %s", f, strerror(f));
                return ZH_ERR_IO;
            }
        }
        prune(dir, job->root_len);
    }
    return ZH_OK;
}

int zh_load_chunk(const zh_job_t *job, zh_wctx *w, const char *path, char *chunk, char *msg,
                  size_t msglen) {
    int fd = -1;
    int64_t n = 0;
    int rc = zh_open_chunk(job, path, &fd, &n);
    if (rc < 0) {
        snprintf(msg, msglen, "%s: [Errno %d] %s",
                 (rc == -EXDEV || rc == -ELOOP)
                     ? "refused: a symbolic link leads out of the store root" : "cannot open",
                 -rc, strerror(-rc));
        return ZH_ERR_IO;
    }
    if (rc == 0) {
        zh_fill_strided(chunk, 1, &(int64_t){job->decoded_size / job->itemsize},
                        &(int64_t){job->itemsize}, job->fill_stored, job->itemsize);
        return ZH_OK;
    }
    if (job->nsteps == 0) {
        if (n != job->decoded_size) {
            close(fd);
            snprintf(msg, msglen, "expected %lld bytes (an uncompressed chunk), got %lld",
                     (long long)job->decoded_size, (long long)n);
            return ZH_ERR_CORRUPT;
        }
        int e = zh_pread_full(fd, chunk, (size_t)n, 0);
        close(fd);
        if (e) {
            snprintf(msg, msglen, "cannot read: [Errno %d] %s", e, strerror(e));
            return ZH_ERR_IO;
        }
        return ZH_OK;
    }
    int e;
    char *raw = zh_read_and_close(w, fd, 0, n, &e);
    if (!raw) {
        if (e == ZH_READ_NOMEM) return ZH_ERR_NOMEM;
        snprintf(msg, msglen, "cannot read: [Errno %d] %s", e, strerror(e));
        return ZH_ERR_IO;
    }
    const char *out;
    size_t out_n;
    rc = zh_decode_bytes(w, job->steps, job->nsteps, raw, (size_t)n, chunk,
                         (size_t)job->decoded_size, &out, &out_n, msg, msglen);
    if (rc != ZH_OK) return rc;
    if ((int64_t)out_n != job->decoded_size) {
        snprintf(msg, msglen, "decoded %zu bytes, expected %lld (the chunk's size)", out_n,
                 (long long)job->decoded_size);
        return ZH_ERR_CORRUPT;
    }
    if (out != chunk) memcpy(chunk, out, out_n);
    return ZH_OK;
}

/* Copy the caller's part of piece p into chunk (decoded layout, stored byte order). */
void zh_gather(const zh_job_t *job, const zh_piece *p, char *chunk) {
    char *dst = chunk;
    for (int d = 0; d < job->ndim; d++) dst += p->first[d] * job->chunk_lstrides[d];
    zh_copy_strided(dst, p->bufp, job->ndim, p->count, p->chunk_strides, job->buf_strides,
                    job->itemsize, job->swap);
}

void zh_fill_chunk(const zh_job_t *job, char *chunk) {
    zh_fill_strided(chunk, 1, &(int64_t){job->decoded_size / job->itemsize},
                    &(int64_t){job->itemsize}, job->fill_stored, job->itemsize);
}

/* The shortest run worth its own iovec: shorter rows are gathered first.  Measured on
 * tmpfs, float64 chunks: 512-byte rows cost 10-20 % more CPU as iovecs than gathered,
 * 1 KiB rows 20-25 % less. */
#define ZH_ZC_MIN_RUN 1024

/* An uncompressed whole chunk straight from the caller's buffer: its rows (in stored
 * order) become the iovecs of one writev, with no copy in user space.  Returns 1 when the
 * task is done (or failed), 0 when the layout does not allow it. */
static int write_runs(zh_job_t *job, zh_wctx *w, const zh_piece *p, int64_t t, const char *path) {
    int nd = job->ndim, order[ZH_MAX_DIMS];
    if (nd == 0) return 0;
    for (int d = 0; d < nd; d++) order[d] = d;
    for (int i = 1; i < nd; i++) /* stored C order: byte strides of the chunk, descending */
        for (int k = i; k > 0 && job->chunk_lstrides[order[k]] > job->chunk_lstrides[order[k - 1]]; k--) {
            int tmp = order[k];
            order[k] = order[k - 1];
            order[k - 1] = tmp;
        }
    int inner = nd;
    int64_t run = job->itemsize;
    while (inner > 0) { /* merge dims that are contiguous in both the chunk and the buffer */
        int d = order[inner - 1];
        if (job->chunk_lstrides[d] != run || job->buf_strides[d] != run) break;
        run *= job->chunk_shape[d];
        inner--;
    }
    if (inner == nd || run < ZH_ZC_MIN_RUN || job->decoded_size / run > INT_MAX) return 0;
    int64_t nruns = job->decoded_size / run;
    struct iovec *iov = (struct iovec *)zh_scratch(w, 0, sizeof(struct iovec) * (size_t)nruns);
    if (!iov) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return 1;
    }
    int64_t idx[ZH_MAX_DIMS] = {0};
    const char *ptr = p->bufp;
    int fill = !job->write_empty_chunks;
    for (int64_t r = 0; r < nruns; r++) {
        iov[r].iov_base = (void *)ptr;
        iov[r].iov_len = (size_t)run;
        if (fill) fill = zh_is_fill(ptr, run, job->fill_stored, job->itemsize);
        for (int k = inner - 1; k >= 0; k--) { /* odometer over the outer dims */
            int d = order[k];
            ptr += job->buf_strides[d];
            if (++idx[d] < job->chunk_shape[d]) break;
            ptr -= job->buf_strides[d] * job->chunk_shape[d];
            idx[d] = 0;
        }
    }
    char msg[ZH_ERRLEN];
    msg[0] = 0;
    int rc = fill ? zh_erase_file(job, path, msg, sizeof(msg))
                  : zh_write_filev(job, path, iov, (int)nruns, msg, sizeof(msg));
    if (rc != ZH_OK) zh_fail(job, t, rc, msg);
    else job->task_status[t] = ZH_TASK_DONE;
    return 1;
}

/* Write the piece p of task t to its chunk at path: gather (merging with the stored chunk
 * when the piece does not cover it), encode, write to a temporary file and rename; or
 * erase the chunk when it is all fill. */
static void write_piece(zh_job_t *job, zh_wctx *w, int64_t t, const zh_piece *p,
                        const char *path) {
    int covers = 1, inside = 1;
    for (int d = 0; d < job->ndim; d++) {
        int64_t c = job->chunk_shape[d];
        int64_t extent = job->array_shape[d] - p->coords[d] * c;
        if (extent > c) extent = c;
        if (p->count[d] != extent) covers = 0;
        if (extent != c) inside = 0;
    }
    char msg[ZH_ERRLEN];
    msg[0] = 0;
    const char *chunk;
    if (p->whole && job->direct_ok && job->swap <= 1) {
        chunk = p->bufp; /* straight from the caller's buffer */
    } else {
        char *buf = zh_scratch(w, 0, (size_t)job->decoded_size);
        if (!buf) {
            zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
            return;
        }
        if (!covers) {
            int rc = zh_load_chunk(job, w, path, buf, msg, sizeof(msg));
            if (rc == ZH_FALLBACK || rc == ZH_ERR_CORRUPT) {
                job->task_status[t] = ZH_TASK_FALLBACK;
                return;
            }
            if (rc != ZH_OK) {
                zh_fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
                return;
            }
        } else if (!inside) {
            zh_fill_chunk(job, buf);
        }
        zh_gather(job, p, buf);
        chunk = buf;
    }
    int rc;
    if (!job->write_empty_chunks &&
        zh_is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize)) {
        rc = zh_erase_file(job, path, msg, sizeof(msg));
    } else {
        const char *out;
        size_t out_n;
        rc = zh_encode_bytes(w, job->steps, job->nsteps, chunk, (size_t)job->decoded_size, NULL, 0, &out,
                             &out_n, msg, sizeof(msg));
        if (rc == ZH_FALLBACK) {
            job->task_status[t] = ZH_TASK_FALLBACK;
            return;
        }
        if (rc == ZH_OK) rc = write_file(job, path, out, out_n, msg, sizeof(msg));
    }
    if (rc != ZH_OK) {
        zh_fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
        return;
    }
    job->task_status[t] = ZH_TASK_DONE;
}

/* Row groups.  Uncompressed whole chunks side by side along the last axis share the rows
 * of the caller's buffer: gathering them together reads every source row once, front to
 * back, where chunk by chunk reads a short run out of every long row, once per chunk.
 * Measured on tmpfs (64^3 float64 chunks, 512-byte rows, 2 processes on 2 cores): 0.10-0.12
 * s of CPU per 256 MiB, against 0.15-0.20 s chunk by chunk; one contiguous write of the
 * same bytes takes 0.10-0.13 s.  Each chunk is still its own temporary file and rename. */
#define ZH_RG_MAX 8                        /* chunks per group */
#define ZH_RG_MAX_RUN 2048                 /* longer rows: iovecs (write_runs) cost less; 1
                                            * KiB rows: 0.14-0.15 s here against 0.16-0.19 */
#define ZH_RG_BYTES ((int64_t)1 << 20)     /* gather buffer per group: L2-sized */

/* The row length in bytes when the job's whole chunks can be written in row groups, else 0:
 * uncompressed, native byte order, C-order chunks, rows contiguous in the caller's buffer
 * and shorter than ZH_RG_MAX_RUN. */
static int64_t rowgroup_run(const zh_job_t *job) {
    int nd = job->ndim, last = nd - 1;
    if (nd < 2 || job->nsteps != 0 || job->swap != 0 || job->npieces[last] < 2) return 0;
    if (job->step[last] != 1 || job->buf_strides[last] != job->itemsize ||
        job->chunk_lstrides[last] != job->itemsize)
        return 0;
    for (int d = last - 1; d >= 0; d--)
        if (job->chunk_lstrides[d] != job->chunk_lstrides[d + 1] * job->chunk_shape[d + 1]) return 0;
    int64_t run = job->chunk_shape[last] * job->itemsize;
    return run < ZH_RG_MAX_RUN ? run : 0;
}

/* Piece k of the last dimension spans a whole chunk along it. */
static int rowgroup_member(const zh_job_t *job, int64_t k) {
    int last = job->ndim - 1;
    int64_t i = job->piece_off[last] + k;
    return job->p_first[i] == 0 && job->p_count[i] == job->chunk_shape[last];
}

static int write_all(int fd, const char *data, size_t n) {
    struct iovec one = {(void *)data, n};
    return writev_all(fd, &one, 1);
}

/* Task t's whole chunk in a row group.  Returns 0 when row groups do not apply (the caller
 * writes the chunk), 1 when it is done here or by the task that leads its group: the
 * group's first whole chunk writes them all; a member whose first row is all fill may be
 * all fill, and is written (or erased) on its own, by write_piece. */
static int write_rowgroup(zh_job_t *job, zh_wctx *w, int64_t t, const zh_piece *p) {
    int64_t run = p->whole ? rowgroup_run(job) : 0;
    if (!run) return 0;
    int last = job->ndim - 1;
    int64_t np = job->npieces[last], k = t % np; /* the last dimension is the fastest */
    int64_t gs = k / ZH_RG_MAX * ZH_RG_MAX, ge = gs + ZH_RG_MAX < np ? gs + ZH_RG_MAX : np;
    int64_t lead = gs;
    while (!rowgroup_member(job, lead)) lead++; /* stops at k at the latest */
    if (lead != k) return 1;

    int64_t ts[ZH_RG_MAX], nrows = job->decoded_size / run;
    zh_piece mp[ZH_RG_MAX];
    int fds[ZH_RG_MAX], n = 0, solo[ZH_RG_MAX], nsolo = 0;
    char *names = zh_scratch(w, 2, (size_t)2 * ZH_RG_MAX * ZH_PATH_MAX);
    if (!names) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return 1;
    }
    char msg[ZH_ERRLEN];
    msg[0] = 0;
    int rc = ZH_OK;
    int64_t bad = t;
    for (int64_t kk = k; kk < ge && rc == ZH_OK; kk++) {
        if (!rowgroup_member(job, kk)) continue;
        int64_t tk = t + (kk - k);
        zh_piece *q = &mp[n];
        zh_make_piece(job, tk, q);
        char *path = names + (size_t)(2 * n) * ZH_PATH_MAX, *tmp = path + ZH_PATH_MAX;
        if (zh_chunk_path(job, q->coords, path, ZH_PATH_MAX) < 0) {
            rc = ZH_ERR_IO, bad = tk;
            snprintf(msg, sizeof(msg), "path too long");
            break;
        }
        if (!job->write_empty_chunks && zh_is_fill(q->bufp, run, job->fill_stored, job->itemsize)) {
            solo[nsolo++] = n; /* maybe all fill: write_piece checks the whole chunk */
            ts[n++] = tk;
            fds[n - 1] = -1;
            continue;
        }
        rc = tmp_open(job, path, tmp, &fds[n], msg, sizeof(msg));
        if (rc != ZH_OK) bad = tk;
        else ts[n++] = tk;
    }
    int active = n - nsolo;
    int64_t rows = active ? ZH_RG_BYTES / (run * active) : 1;
    if (rows < 1) rows = 1;
    char *buf = rc == ZH_OK && active ? zh_scratch(w, 0, (size_t)(rows * run * active)) : NULL;
    if (rc == ZH_OK && active && !buf) rc = ZH_ERR_NOMEM, bad = t;
    int e = 0;
    int64_t idx[ZH_MAX_DIMS] = {0}, off = 0; /* odometer over the outer dimensions */
    for (int64_t r0 = 0; rc == ZH_OK && active && r0 < nrows && !e; r0 += rows) {
        int64_t nr = nrows - r0 < rows ? nrows - r0 : rows;
        for (int64_t r = 0; r < nr; r++) {
            char *dst = buf + r * run;
            for (int m = 0; m < n; m++)
                if (fds[m] >= 0) {
                    memcpy(dst, mp[m].bufp + off, (size_t)run);
                    dst += rows * run;
                }
            for (int d = last - 1; d >= 0; d--) {
                off += job->buf_strides[d];
                if (++idx[d] < job->chunk_shape[d]) break;
                off -= job->buf_strides[d] * job->chunk_shape[d];
                idx[d] = 0;
            }
        }
        const char *src = buf;
        for (int m = 0; m < n && !e; m++)
            if (fds[m] >= 0) {
                if ((e = write_all(fds[m], src, (size_t)(nr * run)))) bad = ts[m];
                src += rows * run;
            }
    }
    if (e) {
        rc = ZH_ERR_IO;
        snprintf(msg, sizeof(msg), "cannot set: [Errno %d] %s", e, strerror(e));
    }
    for (int m = 0; m < n; m++) { /* commit every file, or after a failure remove them */
        if (fds[m] < 0) continue;
        char *path = names + (size_t)(2 * m) * ZH_PATH_MAX, *tmp = path + ZH_PATH_MAX;
        if (rc != ZH_OK) {
            close(fds[m]);
            unlink(tmp);
        } else if ((rc = tmp_commit(job, fds[m], tmp, path, 0, msg, sizeof(msg))) != ZH_OK) {
            bad = ts[m];
        } else {
            job->task_status[ts[m]] = ZH_TASK_DONE;
        }
    }
    if (rc != ZH_OK) {
        zh_fail(job, bad, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
        return 1;
    }
    for (int i = 0; i < nsolo; i++) {
        char path[ZH_PATH_MAX]; /* own copy: write_piece may use every scratch buffer */
        memcpy(path, names + (size_t)(2 * solo[i]) * ZH_PATH_MAX, ZH_PATH_MAX);
        write_piece(job, w, ts[solo[i]], &mp[solo[i]], path);
    }
    return 1;
}

static void write_task(void *arg, int64_t t) {
    zh_job_t *job = (zh_job_t *)arg;
    zh_piece p;
    zh_wctx *w = zh_task_begin(job, t, &p);
    if (!w) return;
    char path[ZH_PATH_MAX];
    if (write_rowgroup(job, w, t, &p)) return;
    if (zh_chunk_path(job, p.coords, path, sizeof(path)) < 0) {
        zh_fail(job, t, ZH_ERR_IO, "path too long");
        return;
    }
    if (job->nsteps == 0 && p.whole && job->swap == 0 && write_runs(job, w, &p, t, path))
        return;
    write_piece(job, w, t, &p, path);
}

int zh_write_run(zh_job_t *job, int nthreads) {
    return zh_job_run(job, write_task, job, zh_job_ntasks(job), nthreads);
}
