/* The native engine's job plumbing: task numbering, failures, chunk file names, the store
 * root's descriptor, opening chunk files beneath it, the piece of a chunk a task covers,
 * and running a job's tasks on the pool.  See zh_engine.h and zh_job.h. */
#define _GNU_SOURCE
#include "zh_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif
#include <unistd.h>

#include "zh_pool.h"
#include "zh_strided.h"

int64_t zh_job_ntasks(const zh_job_t *job) {
    int64_t n = 1;
    for (int d = 0; d < job->ndim; d++) n *= job->npieces[d];
    return n;
}

/* The piece index of every dimension for task t (last dimension fastest). */
void zh_task_pieces(const zh_job_t *job, int64_t t, int64_t *piece) {
    for (int d = job->ndim - 1; d >= 0; d--) {
        int64_t np = job->npieces[d];
        piece[d] = job->piece_off[d] + t % np;
        t /= np;
    }
}

void zh_job_coords(const zh_job_t *job, int64_t t, int64_t *coords) {
    int64_t piece[ZH_MAX_DIMS];
    zh_task_pieces(job, t, piece);
    for (int d = 0; d < job->ndim; d++) coords[d] = job->p_chunk[piece[d]];
}

void zh_fail(zh_job_t *job, int64_t t, int code, const char *msg) {
    job->task_status[t] = ZH_TASK_FAILED;
    pthread_mutex_lock(&job->err_mu);
    if (job->err_task < 0 || t < job->err_task) {
        job->err_task = t;
        job->err_code = code;
        snprintf(job->err_msg, sizeof(job->err_msg), "%s", msg);
    }
    pthread_mutex_unlock(&job->err_mu);
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
}

void zh_fail_errno(zh_job_t *job, int64_t t, const char *what, int err) {
    char msg[ZH_ERRLEN];
    snprintf(msg, sizeof(msg), "%s: [Errno %d] %s", what, err, strerror(err));
    zh_fail(job, t, ZH_ERR_IO, msg);
}

/* Append c (and a terminating 0) at out + n if it fits in cap; the new length. */
static size_t put_char(char *out, size_t n, size_t cap, char c) {
    if (n + 1 < cap) {
        out[n] = c;
        out[n + 1] = 0;
    }
    return n + 1;
}

/* Append the decimal form of v (and a terminating 0) if it fits in cap; the new length. */
static size_t put_int(char *out, size_t n, size_t cap, int64_t v) {
    char tmp[24];
    int k = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[k++] = '-';
    if (n + (size_t)k < cap) {
        for (int i = 0; i < k; i++) out[n + (size_t)i] = tmp[k - 1 - i];
        out[n + (size_t)k] = 0;
    }
    return n + (size_t)k;
}

/* (By hand, not snprintf: five snprintf calls were ~0.7 us of every chunk a read opens.) */
int zh_chunk_path(const zh_job_t *job, const int64_t *coords, char *out, size_t cap) {
    size_t n = strlen(job->path_prefix);
    if (n >= cap) return -1;
    memcpy(out, job->path_prefix, n + 1);
    if (job->key_kind == 0) {
        n = put_char(out, n, cap, 'c');
        for (int d = 0; d < job->ndim && n < cap; d++) {
            n = put_char(out, n, cap, job->sep);
            n = put_int(out, n, cap, coords[d]);
        }
    } else if (job->ndim == 0) {
        n = put_char(out, n, cap, '0');
    } else {
        for (int d = 0; d < job->ndim && n < cap; d++) {
            if (d) n = put_char(out, n, cap, job->sep);
            if (n < cap) n = put_int(out, n, cap, coords[d]);
        }
    }
    return n < cap ? (int)n : -1;
}

int zh_pread_full(int fd, char *dst, size_t n, int64_t off) {
    while (n > 0) {
        ssize_t r = pread(fd, dst, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (r == 0) return EIO; /* the file shrank under us */
        dst += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

char *zh_read_scratch(zh_wctx *w, int fd, int64_t lo, int64_t len, int *err) {
    char *buf = zh_scratch(w, 3, (size_t)len);
    *err = buf ? zh_pread_full(fd, buf, (size_t)len, lo) : ZH_READ_NOMEM;
    return *err ? NULL : buf;
}

char *zh_read_and_close(zh_wctx *w, int fd, int64_t lo, int64_t len, int *err) {
    char *buf = zh_read_scratch(w, fd, lo, len, err);
    close(fd);
    return buf;
}

/* Fail task t for a read_and_close error. */
void zh_fail_read(zh_job_t *job, int64_t t, int err) {
    if (err == ZH_READ_NOMEM) zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
    else zh_fail_errno(job, t, "cannot read", err);
}

/* The store root's O_PATH descriptor, opened by the call's first chunk and shared by its
 * threads until the call ends (zh_job_close_root).  Opening it for every chunk cost 1.3 us
 * of CPU per chunk on the 2-core VM (a chunk's own openat2 + close: 1.8 us; a W8/W10 read
 * opens 512 chunks).  It is not kept between calls: a kept descriptor holds the file
 * system busy (umount fails) and can name a directory the path no longer names. */
static int job_root(zh_job_t *job, const char *root) {
    int have = __atomic_load_n(&job->root_fd1, __ATOMIC_ACQUIRE);
    if (have) return have - 1;
    int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int expect = 0;
    if (__atomic_compare_exchange_n(&job->root_fd1, &expect, fd + 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return fd;
    close(fd); /* another thread opened it first */
    return expect - 1;
}

void zh_job_close_root(zh_job_t *job) {
    if (job->root_fd1) close(job->root_fd1 - 1);
    job->root_fd1 = 0;
    for (int64_t f = 0; job->src_fd1 && f < job->src_nfiles; f++) {
        if (job->src_fd1[f]) close(job->src_fd1[f] - 1);
        job->src_fd1[f] = 0;
    }
}

#ifdef SYS_openat2
/* Whether path has a ".." component. */
static int has_dotdot(const char *path) {
    for (const char *p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
        if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == 0)) return 1;
    return 0;
}

/* Open path for reading only if no symbolic link lies anywhere on it (ELOOP otherwise):
 * then a path naming the store root, "/" and a key without ".." is beneath the root by
 * its name alone.  The first chunk file of a call is opened so: a call that opens one
 * chunk (three quarters of W4's 8x8x8 reads) saves opening and closing the root, two of
 * its eight system calls (~1.5 us of a ~35 us blosc read measured by perf).  A link on
 * the way (the root's own path, or inside the store) costs one refused lookup, then the
 * root's way below. */
/* openat2 for reading with the given resolve flags, retried on EINTR/EAGAIN. */
static int openat2_read(int dirfd, const char *path, uint64_t resolve) {
    struct open_how how;
    memset(&how, 0, sizeof(how));
    how.flags = O_RDONLY | O_CLOEXEC;
    how.resolve = resolve | RESOLVE_NO_MAGICLINKS;
    long f;
    do {
        f = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    } while (f < 0 && (errno == EINTR || errno == EAGAIN));
    return (int)f;
}

static int open_no_links(const char *path) {
    return openat2_read(AT_FDCWD, path, RESOLVE_NO_SYMLINKS);
}
#endif

/* Open path (a chunk or shard file: the store root, then "/" and the key) for reading,
 * never through a symbolic link that leads out of the root (the first root_len bytes):
 * openat2(RESOLVE_BENEATH) from the root where the kernel has it (Linux >= 5.6), else
 * O_NOFOLLOW on the last component.  An fd, or -1 with errno (EXDEV, ELOOP: a link out
 * of the root). */
static int open_beneath(zh_job_t *job, const char *path, int64_t root_len) {
#ifdef SYS_openat2
    if (root_len > 0 && root_len < ZH_PATH_MAX && path[root_len] == '/') {
        if (__atomic_fetch_add(&job->opens, 1, __ATOMIC_RELAXED) == 0 &&
            !has_dotdot(path + root_len)) {
            int f = open_no_links(path);
            if (f >= 0 || (errno != ELOOP && errno != ENOSYS && errno != EINVAL))
                return f; /* ENOENT and the like: the same along the root's way */
        }
        char root[ZH_PATH_MAX];
        memcpy(root, path, (size_t)root_len);
        root[root_len] = 0;
        int rfd = job_root(job, root);
        if (rfd < 0) return -1;
        int f = openat2_read(rfd, path + root_len + 1, RESOLVE_BENEATH);
        int e = errno;
        if (f >= 0 || e != ENOSYS) {
            errno = e;
            return f;
        }
    }
#endif
    return open(path, O_RDONLY | O_CLOEXEC | (root_len > 0 ? O_NOFOLLOW : 0));
}

/* Open a chunk file: 1 and fd/size when it holds a value, 0 when missing, -errno (EXDEV
 * or ELOOP: refused, a symbolic link leads out of the store root). */
int zh_open_chunk(const zh_job_t *job, const char *path, int *fd, int64_t *size) {
    int f = open_beneath((zh_job_t *)job, path, job->root_len); /* (its root slot only) */
    if (f < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        return -errno;
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) { /* a directory is a prefix, not a value */
        close(f);
        return 0;
    }
    *fd = f;
    *size = (int64_t)st.st_size;
    return 1;
}

int zh_open_task_chunk(zh_job_t *job, int64_t t, const int64_t *coords, int *fd,
                       int64_t *foff, int64_t *n, int *owned) {
    char path[ZH_PATH_MAX];
    *fd = -1;
    *foff = 0;
    *owned = 1;
    int64_t file = -1;
    if (job->src_len) { /* a range of the stored (outer) chunk's file */
        if (job->src_len[t] < 0) return 0;
        file = job->src_file[t];
        coords = job->src_coords + file * job->ndim;
    }
    int rc = 1;
    if (file >= 0 && job->src_fd1 && __atomic_load_n(&job->src_fd1[file], __ATOMIC_ACQUIRE)) {
        *fd = job->src_fd1[file] - 1; /* open already: its size was stored before */
        *n = job->src_size[file];
        *owned = 0;
    } else if (zh_chunk_path(job, coords, path, sizeof(path)) < 0) {
        zh_fail(job, t, ZH_ERR_IO, "path too long");
        return -1;
    } else {
        rc = zh_open_chunk(job, path, fd, n);
        if (rc > 0 && file >= 0 && job->src_fd1) { /* share it with the call's other tasks */
            pthread_mutex_lock(&job->src_mu);
            if (job->src_fd1[file]) { /* another task was first: use its descriptor */
                close(*fd);
                *fd = job->src_fd1[file] - 1;
                *n = job->src_size[file];
            } else {
                job->src_size[file] = *n;
                __atomic_store_n(&job->src_fd1[file], *fd + 1, __ATOMIC_RELEASE);
            }
            pthread_mutex_unlock(&job->src_mu);
            *owned = 0;
        }
    }
    if (rc < 0) {
        zh_fail_errno(job, t, (rc == -EXDEV || rc == -ELOOP)
                                  ? "refused: a symbolic link leads out of the store root"
                                  : "cannot open", -rc);
        return -1;
    }
    if (rc == 0 && !job->src_len) return 0;
    if (job->src_len) { /* the range must lie in the file as it is now */
        int64_t off = job->src_off[t], len = job->src_len[t];
        if (rc == 0 || off < 0 || off > *n || len > *n - off) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "%lld bytes at offset %lld lie beyond the shard's %lld bytes "
                     "(the shard changed or is truncated)",
                     (long long)len, (long long)off, (long long)(rc == 0 ? 0 : *n));
            zh_fail(job, t, ZH_ERR_CORRUPT, msg);
            if (*fd >= 0 && *owned) close(*fd);
            *fd = -1;
            return -1;
        }
        *foff = off;
        *n = len;
    }
    return 1;
}

/* The piece of the chunk at piece indices piece[0..ndim). */
void zh_make_piece_at(const zh_job_t *job, const int64_t *piece, zh_piece *p) {
    p->bufp = job->buf;
    p->whole = 1;
    for (int d = 0; d < job->ndim; d++) {
        int64_t k = piece[d];
        p->coords[d] = job->p_chunk[k];
        p->first[d] = job->p_first[k];
        p->count[d] = job->p_count[k];
        p->chunk_strides[d] = job->step[d] * job->chunk_lstrides[d];
        p->bufp += job->p_out[k] * job->buf_strides[d];
        if (p->first[d] != 0 || job->step[d] != 1 || p->count[d] != job->chunk_shape[d])
            p->whole = 0;
    }
}

void zh_make_piece(const zh_job_t *job, int64_t t, zh_piece *p) {
    int64_t piece[ZH_MAX_DIMS];
    zh_task_pieces(job, t, piece);
    zh_make_piece_at(job, piece, p);
}

/* Byte range [lo, hi) of a decoded chunk that the piece reads. */
void zh_piece_range(const zh_job_t *job, const zh_piece *p, int64_t *lo, int64_t *hi) {
    int64_t a = 0, b = 0;
    for (int d = 0; d < job->ndim; d++) {
        if (p->count[d] == 0) continue;
        int64_t s0 = p->first[d] * job->chunk_lstrides[d];
        int64_t s1 = s0 + (p->count[d] - 1) * p->chunk_strides[d];
        a += s0 < s1 ? s0 : s1;
        b += s0 < s1 ? s1 : s0;
    }
    *lo = a;
    *hi = b + job->itemsize;
}

/* The common start of a task: NULL when it is skipped (another task failed) or failed. */
zh_wctx *zh_task_begin(zh_job_t *job, int64_t t, zh_piece *p) {
    if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
        job->task_status[t] = ZH_TASK_SKIPPED;
        return NULL;
    }
    zh_wctx *w = zh_wctx_get();
    if (!w) {
        zh_fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    zh_make_piece(job, t, p);
    return w;
}

void zh_copy_out(const zh_job_t *job, const zh_piece *p, const char *chunk) {
    const char *src = chunk;
    for (int d = 0; d < job->ndim; d++) src += p->first[d] * job->chunk_lstrides[d];
    zh_copy_strided(p->bufp, src, job->ndim, p->count, job->buf_strides, p->chunk_strides,
                    job->itemsize, job->swap);
}

int zh_job_run(zh_job_t *job, void (*fn)(void *, int64_t), void *arg, int64_t ntasks,
               int nthreads) {
    job->err_task = -1;
    job->err_code = ZH_OK;
    job->failed = 0;
    pthread_mutex_init(&job->err_mu, NULL);
    pthread_mutex_init(&job->src_mu, NULL);
    zh_pool_run(fn, arg, ntasks, nthreads);
    pthread_mutex_destroy(&job->src_mu);
    pthread_mutex_destroy(&job->err_mu);
    zh_job_close_root(job);
    return job->err_code;
}
