/* The native batch engine.  See zh_engine.h. */
#define _GNU_SOURCE
#include "zh_engine.h"
#include "zh_select.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif
#include <limits.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "zh_pool.h"
#include "zh_strided.h"

#define ZH_PATH_MAX 4096
#define ZH_ERRLEN 256
#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

int64_t zh_job_ntasks(const zh_job_t *job) {
    int64_t n = 1;
    for (int d = 0; d < job->ndim; d++) n *= job->npieces[d];
    return n;
}

/* The piece index of every dimension for task t (last dimension fastest). */
static void task_pieces(const zh_job_t *job, int64_t t, int64_t *piece) {
    for (int d = job->ndim - 1; d >= 0; d--) {
        int64_t np = job->npieces[d];
        piece[d] = job->piece_off[d] + t % np;
        t /= np;
    }
}

void zh_job_coords(const zh_job_t *job, int64_t t, int64_t *coords) {
    int64_t piece[ZH_MAX_DIMS];
    task_pieces(job, t, piece);
    for (int d = 0; d < job->ndim; d++) coords[d] = job->p_chunk[piece[d]];
}

static void fail(zh_job_t *job, int64_t t, int code, const char *msg) {
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

static void fail_errno(zh_job_t *job, int64_t t, const char *what, int err) {
    char msg[ZH_ERRLEN];
    snprintf(msg, sizeof(msg), "%s: [Errno %d] %s", what, err, strerror(err));
    fail(job, t, ZH_ERR_IO, msg);
}

static int chunk_path(const zh_job_t *job, const int64_t *coords, char *out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "%s", job->path_prefix);
    if (n >= cap) return -1;
    if (job->key_kind == 0) {
        n += (size_t)snprintf(out + n, cap - n, "c");
        for (int d = 0; d < job->ndim && n < cap; d++)
            n += (size_t)snprintf(out + n, cap - n, "%c%lld", job->sep, (long long)coords[d]);
    } else if (job->ndim == 0) {
        n += (size_t)snprintf(out + n, cap - n, "0");
    } else {
        for (int d = 0; d < job->ndim && n < cap; d++) {
            if (d) n += (size_t)snprintf(out + n, cap - n, "%c", job->sep);
            if (n < cap) n += (size_t)snprintf(out + n, cap - n, "%lld", (long long)coords[d]);
        }
    }
    return n < cap ? (int)n : -1;
}

static int pread_full(int fd, char *dst, size_t n, int64_t off) {
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

/* Read bytes [lo, lo + len) of fd into scratch buffer 3 and close fd. Returns the buffer,
 * or NULL with *err set: an errno, or ZH_READ_NOMEM. */
#define ZH_READ_NOMEM (-1)
static char *read_and_close(zh_wctx *w, int fd, int64_t lo, int64_t len, int *err) {
    char *buf = zh_scratch(w, 3, (size_t)len);
    *err = buf ? pread_full(fd, buf, (size_t)len, lo) : ZH_READ_NOMEM;
    close(fd);
    return *err ? NULL : buf;
}

/* Fail task t for a read_and_close error. */
static void fail_read(zh_job_t *job, int64_t t, int err) {
    if (err == ZH_READ_NOMEM) fail(job, t, ZH_ERR_NOMEM, "out of memory");
    else fail_errno(job, t, "cannot read", err);
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
}

/* Open path (a chunk or shard file: the store root, then "/" and the key) for reading,
 * never through a symbolic link that leads out of the root (the first root_len bytes):
 * openat2(RESOLVE_BENEATH) from the root where the kernel has it (Linux >= 5.6), else
 * O_NOFOLLOW on the last component.  An fd, or -1 with errno (EXDEV, ELOOP: a link out
 * of the root). */
static int open_beneath(zh_job_t *job, const char *path, int64_t root_len) {
#ifdef SYS_openat2
    if (root_len > 0 && root_len < ZH_PATH_MAX && path[root_len] == '/') {
        char root[ZH_PATH_MAX];
        memcpy(root, path, (size_t)root_len);
        root[root_len] = 0;
        int rfd = job_root(job, root);
        if (rfd < 0) return -1;
        struct open_how how;
        memset(&how, 0, sizeof(how));
        how.flags = O_RDONLY | O_CLOEXEC;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        long f;
        do {
            f = syscall(SYS_openat2, rfd, path + root_len + 1, &how, sizeof(how));
        } while (f < 0 && (errno == EINTR || errno == EAGAIN));
        int e = errno;
        if (f >= 0 || e != ENOSYS) {
            errno = e;
            return (int)f;
        }
    }
#endif
    return open(path, O_RDONLY | O_CLOEXEC | (root_len > 0 ? O_NOFOLLOW : 0));
}

/* Open a chunk file: 1 and fd/size when it holds a value, 0 when missing, -errno (EXDEV
 * or ELOOP: refused, a symbolic link leads out of the store root). */
static int open_chunk(const zh_job_t *job, const char *path, int *fd, int64_t *size) {
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

/* ---------------------------------------------------------------- reads */

/* A small read of a blosc chunk goes block by block when its box has at most this many
 * rows (one byte range each); a larger one decodes the byte range it spans. */
#define ZH_BOX_ROWS_MAX 4096

typedef struct {
    int64_t coords[ZH_MAX_DIMS], first[ZH_MAX_DIMS], count[ZH_MAX_DIMS];
    int64_t chunk_strides[ZH_MAX_DIMS]; /* step * lstride */
    char *bufp;                          /* this task's corner of the caller's buffer */
    int whole;                           /* every element of the chunk, in order */
} zh_piece;

/* The piece of the chunk at piece indices piece[0..ndim). */
static void make_piece_at(const zh_job_t *job, const int64_t *piece, zh_piece *p) {
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

static void make_piece(const zh_job_t *job, int64_t t, zh_piece *p) {
    int64_t piece[ZH_MAX_DIMS];
    task_pieces(job, t, piece);
    make_piece_at(job, piece, p);
}

/* Byte range [lo, hi) of a decoded chunk that the piece reads. */
static void piece_range(const zh_job_t *job, const zh_piece *p, int64_t *lo, int64_t *hi) {
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
static zh_wctx *task_begin(zh_job_t *job, int64_t t, zh_piece *p) {
    if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
        job->task_status[t] = ZH_TASK_SKIPPED;
        return NULL;
    }
    zh_wctx *w = zh_wctx_get();
    if (!w) {
        fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return NULL;
    }
    make_piece(job, t, p);
    return w;
}

static void copy_out(const zh_job_t *job, const zh_piece *p, const char *chunk) {
    const char *src = chunk;
    for (int d = 0; d < job->ndim; d++) src += p->first[d] * job->chunk_lstrides[d];
    zh_copy_strided(p->bufp, src, job->ndim, p->count, job->buf_strides, p->chunk_strides,
                    job->itemsize, job->swap);
}

static int32_t le32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                     ((uint32_t)p[3] << 24));
}

/* Read from a c-blosc1 chunk file of n bytes only what decoding bytes [lo, hi) needs:
 * the header, the block offsets and the compressed blocks holding those bytes, each at
 * its own offset in a buffer of n bytes (the rest is never read by blosc's getitem).
 * Returns the buffer, or NULL when the chunk is not a plain c-blosc1 chunk or anything
 * in it is out of range (the caller then reads the whole file). */
static const char *read_blosc_sparse(zh_wctx *w, int fd, int64_t n, int64_t expect, int64_t lo,
                                     int64_t hi) {
    unsigned char h[16];
    if (n < 16 || n > INT32_MAX || pread_full(fd, (char *)h, 16, 0) != 0) return NULL;
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
        if (16 + b > n || pread_full(fd, buf + 16 + a, (size_t)(b - a), 16 + a) != 0) return NULL;
        return buf;
    }
    int64_t nblocks = (nbytes + (int64_t)blocksize - 1) / blocksize;
    int64_t table_end = 16 + 4 * nblocks;
    if (table_end > n || pread_full(fd, buf + 16, (size_t)(4 * nblocks), 16) != 0) return NULL;
    /* one span holding the wanted blocks and nothing unread past them (zh_codecs.h) */
    int64_t first = INT64_MAX, last = -1;
    if (zh_blosc_span_add(buf, nblocks, n, a / blocksize, (b - 1) / blocksize, &first,
                          &last) != 0 || last < 0)
        return NULL;
    int64_t end = zh_blosc_span_end(buf, nblocks, n, last);
    if (pread_full(fd, buf + first, (size_t)(end - first), first) != 0) return NULL;
    return buf;
}

static void read_task(void *arg, int64_t t) {
    zh_job_t *job = (zh_job_t *)arg;
    zh_piece p;
    zh_wctx *w = task_begin(job, t, &p);
    if (!w) return;
    int direct = p.whole && job->direct_ok && job->swap <= 1;
    if (job->nsteps == 1 && job->steps[0].kind == ZH_BB_BLOSC && job->partial_ok && !direct &&
        !job->src_len) {
        /* a small box of a blosc chunk: read and decode only the internal blocks holding
         * its rows (csrc/zh_select.c) */
        int64_t lo = 0, hi = 0, rows = 1;
        piece_range(job, &p, &lo, &hi);
        for (int d = 0; d + 1 < job->ndim; d++) rows *= p.count[d];
        if (hi - lo <= job->decoded_size / 4 && rows <= ZH_BOX_ROWS_MAX) {
            const char *base = NULL;
            int rv = zh_box_view(job, w, t, p.coords, p.first, p.count, p.chunk_strides, &base);
            if (rv == ZH_VIEW_OK) {
                copy_out(job, &p, base);
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
    if (job->path_prefix) {
        char path[ZH_PATH_MAX];
        if (chunk_path(job, p.coords, path, sizeof(path)) < 0) {
            fail(job, t, ZH_ERR_IO, "path too long");
            return;
        }
        int rc = open_chunk(job, path, &fd, &n);
        if (rc < 0) {
            fail_errno(job, t, (rc == -EXDEV || rc == -ELOOP)
                                   ? "refused: a symbolic link leads out of the store root"
                                   : "cannot open", -rc);
            return;
        }
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
            if (fd >= 0) close(fd);
            job->task_status[t] = ZH_TASK_FALLBACK;
            return;
        }
        const char *base = src;
        if (fd >= 0) {
            if (direct) {
                err = pread_full(fd, p.bufp, (size_t)n, 0);
                close(fd);
                if (err) fail_errno(job, t, "cannot read", err);
                else job->task_status[t] = ZH_TASK_DONE;
                return;
            }
            int64_t lo = 0, hi = n;
            if (job->partial_ok) piece_range(job, &p, &lo, &hi);
            if (hi - lo > n / 2) {
                lo = 0;
                hi = n;
            }
            char *raw = read_and_close(w, fd, lo, hi - lo, &err);
            if (!raw) {
                fail_read(job, t, err);
                return;
            }
            base = raw - lo;
        }
        copy_out(job, &p, base);
        job->task_status[t] = ZH_TASK_DONE;
        return;
    }
    int sparse_blosc = 0, is_sparse = 0;
    int64_t lo = 0, hi = 0;
    if (job->nsteps == 1 && job->steps[0].kind == ZH_BB_BLOSC && job->partial_ok && !direct) {
        piece_range(job, &p, &lo, &hi);
        sparse_blosc = hi - lo <= job->decoded_size / 4;
    }
    if (fd >= 0 && sparse_blosc) {
        const char *sparse = read_blosc_sparse(w, fd, n, job->decoded_size, lo, hi);
        if (sparse) {
            close(fd);
            fd = -1;
            src = sparse;
            is_sparse = 1;
        }
    }
    if (fd >= 0) {
        char *raw = read_and_close(w, fd, 0, n, &err);
        if (!raw) {
            fail_read(job, t, err);
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
                copy_out(job, &p, base);
                job->task_status[t] = ZH_TASK_DONE;
                return;
            }
            if (rc == ZH_ERR_NOMEM) {
                fail(job, t, rc, "out of memory");
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
        fail(job, t, rc, "out of memory");
        return;
    }
    if (out != p.bufp) copy_out(job, &p, out);
    job->task_status[t] = ZH_TASK_DONE;
}

void zh_task_pieces(const zh_job_t *job, int64_t t, int64_t *piece) { task_pieces(job, t, piece); }
void zh_fail(zh_job_t *job, int64_t t, int code, const char *msg) { fail(job, t, code, msg); }
int zh_chunk_path(const zh_job_t *job, const int64_t *coords, char *out, size_t cap) {
    return chunk_path(job, coords, out, cap);
}
int zh_open_chunk(const zh_job_t *job, const char *path, int *fd, int64_t *size) {
    return open_chunk(job, path, fd, size);
}
int zh_pread_full(int fd, char *dst, size_t n, int64_t off) { return pread_full(fd, dst, n, off); }
void zh_fail_read(zh_job_t *job, int64_t t, int err) { fail_read(job, t, err); }

int zh_job_run(zh_job_t *job, void (*fn)(void *, int64_t), void *arg, int64_t ntasks,
               int nthreads) {
    job->err_task = -1;
    job->err_code = ZH_OK;
    job->failed = 0;
    pthread_mutex_init(&job->err_mu, NULL);
    zh_pool_run(fn, arg, ntasks, nthreads);
    pthread_mutex_destroy(&job->err_mu);
    zh_job_close_root(job);
    return job->err_code;
}

int zh_read_run(zh_job_t *job, int nthreads) {
    return zh_job_run(job, read_task, job, zh_job_ntasks(job), nthreads);
}

/* ---------------------------------------------------------------- writes */

static int is_fill(const char *buf, int64_t nbytes, const char *fill, int64_t itemsize) {
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
static int write_filev(const zh_job_t *job, const char *path, struct iovec *iov, int iovcnt,
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
    return write_filev(job, path, &one, 1, msg, msglen);
}

static int erase_file(const zh_job_t *job, const char *path, char *msg, size_t msglen) {
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

/* Read the stored chunk at path into chunk (decoded, stored byte order), or fill it. */
static int load_chunk(const zh_job_t *job, zh_wctx *w, const char *path, char *chunk, char *msg,
                      size_t msglen) {
    int fd = -1;
    int64_t n = 0;
    int rc = open_chunk(job, path, &fd, &n);
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
        int e = pread_full(fd, chunk, (size_t)n, 0);
        close(fd);
        if (e) {
            snprintf(msg, msglen, "cannot read: [Errno %d] %s", e, strerror(e));
            return ZH_ERR_IO;
        }
        return ZH_OK;
    }
    int e;
    char *raw = read_and_close(w, fd, 0, n, &e);
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
static void gather(const zh_job_t *job, const zh_piece *p, char *chunk) {
    char *dst = chunk;
    for (int d = 0; d < job->ndim; d++) dst += p->first[d] * job->chunk_lstrides[d];
    zh_copy_strided(dst, p->bufp, job->ndim, p->count, p->chunk_strides, job->buf_strides,
                    job->itemsize, job->swap);
}

static void fill_chunk(const zh_job_t *job, char *chunk) {
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
        fail(job, t, ZH_ERR_NOMEM, "out of memory");
        return 1;
    }
    int64_t idx[ZH_MAX_DIMS] = {0};
    const char *ptr = p->bufp;
    int fill = !job->write_empty_chunks;
    for (int64_t r = 0; r < nruns; r++) {
        iov[r].iov_base = (void *)ptr;
        iov[r].iov_len = (size_t)run;
        if (fill) fill = is_fill(ptr, run, job->fill_stored, job->itemsize);
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
    int rc = fill ? erase_file(job, path, msg, sizeof(msg))
                  : write_filev(job, path, iov, (int)nruns, msg, sizeof(msg));
    if (rc != ZH_OK) fail(job, t, rc, msg);
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
            fail(job, t, ZH_ERR_NOMEM, "out of memory");
            return;
        }
        if (!covers) {
            int rc = load_chunk(job, w, path, buf, msg, sizeof(msg));
            if (rc == ZH_FALLBACK || rc == ZH_ERR_CORRUPT) {
                job->task_status[t] = ZH_TASK_FALLBACK;
                return;
            }
            if (rc != ZH_OK) {
                fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
                return;
            }
        } else if (!inside) {
            fill_chunk(job, buf);
        }
        gather(job, p, buf);
        chunk = buf;
    }
    int rc;
    if (!job->write_empty_chunks &&
        is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize)) {
        rc = erase_file(job, path, msg, sizeof(msg));
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
        fail(job, t, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
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
        fail(job, t, ZH_ERR_NOMEM, "out of memory");
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
        make_piece(job, tk, q);
        char *path = names + (size_t)(2 * n) * ZH_PATH_MAX, *tmp = path + ZH_PATH_MAX;
        if (chunk_path(job, q->coords, path, ZH_PATH_MAX) < 0) {
            rc = ZH_ERR_IO, bad = tk;
            snprintf(msg, sizeof(msg), "path too long");
            break;
        }
        if (!job->write_empty_chunks && is_fill(q->bufp, run, job->fill_stored, job->itemsize)) {
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
        fail(job, bad, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
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
    zh_wctx *w = task_begin(job, t, &p);
    if (!w) return;
    char path[ZH_PATH_MAX];
    if (write_rowgroup(job, w, t, &p)) return;
    if (chunk_path(job, p.coords, path, sizeof(path)) < 0) {
        fail(job, t, ZH_ERR_IO, "path too long");
        return;
    }
    if (job->nsteps == 0 && p.whole && job->swap == 0 && write_runs(job, w, &p, t, path))
        return;
    write_piece(job, w, t, &p, path);
}

int zh_write_run(zh_job_t *job, int nthreads) {
    return zh_job_run(job, write_task, job, zh_job_ntasks(job), nthreads);
}

/* ---------------------------------------------------------------- sharded writes */

/* Shard arenas are kept between calls (up to ZH_ARENA_KEEP_BYTES): a fresh one costs a
 * page fault per 4 KiB touched, which is a sizeable part of encoding a shard. */
#define ZH_ARENA_KEEP 4
#define ZH_ARENA_KEEP_BYTES ((size_t)256 << 20)
#define ZH_ALIGN(n, a) (((n) + (a)-1) / (a) * (a))
#define ZH_EMPTY_LEN (-1)

static pthread_mutex_t g_arena_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *p;
    size_t cap;
} g_arenas[ZH_ARENA_KEEP];

/* A child forked while another thread held the lock would wait for it forever. */
static void arena_atfork_child(void) { pthread_mutex_init(&g_arena_mu, NULL); }
static pthread_once_t g_arena_once = PTHREAD_ONCE_INIT;
static void arena_register(void) { pthread_atfork(NULL, NULL, arena_atfork_child); }

static char *arena_get(size_t need, size_t *cap) {
    char *got = NULL;
    pthread_once(&g_arena_once, arena_register);
    pthread_mutex_lock(&g_arena_mu);
    int best = -1;
    for (int i = 0; i < ZH_ARENA_KEEP; i++)
        if (g_arenas[i].p && g_arenas[i].cap >= need && (best < 0 || g_arenas[i].cap < g_arenas[best].cap))
            best = i;
    if (best >= 0) {
        got = g_arenas[best].p;
        *cap = g_arenas[best].cap;
        g_arenas[best].p = NULL;
    }
    pthread_mutex_unlock(&g_arena_mu);
    if (got) return got;
    size_t n = ZH_ALIGN(need, (size_t)2 << 20);
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, n) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);
#endif
    *cap = n;
    return (char *)p;
}

static void arena_put(char *p, size_t cap) {
    if (!p) return;
    pthread_mutex_lock(&g_arena_mu);
    size_t kept = 0;
    int slot = -1, smallest = -1;
    for (int i = 0; i < ZH_ARENA_KEEP; i++) {
        if (!g_arenas[i].p) {
            if (slot < 0) slot = i;
            continue;
        }
        kept += g_arenas[i].cap;
        if (smallest < 0 || g_arenas[i].cap < g_arenas[smallest].cap) smallest = i;
    }
    if (slot < 0 && smallest >= 0 && g_arenas[smallest].cap < cap) { /* keep the larger */
        kept -= g_arenas[smallest].cap;
        free(g_arenas[smallest].p);
        g_arenas[smallest].p = NULL;
        slot = smallest;
    }
    if (slot >= 0 && kept + cap <= ZH_ARENA_KEEP_BYTES) {
        g_arenas[slot].p = p;
        g_arenas[slot].cap = cap;
        p = NULL;
    }
    pthread_mutex_unlock(&g_arena_mu);
    free(p);
}

typedef struct {
    char *arena;        /* the index, then one slot of slot_cap bytes per inner chunk */
    size_t cap;
    int64_t remaining; /* inner chunks not yet done (atomic) */
    int fallback;      /* an inner chunk needs the Python codecs (atomic) */
} zh_shard_state;

typedef struct {
    zh_job_t *job;
    int64_t nshards, ntasks;
    int64_t *first_task; /* nshards + 1: where each shard's inner chunks start */
    zh_shard_state *st;
    const char **ptr; /* per inner chunk: its encoded bytes (arena or caller's buffer) */
    int64_t *len;     /* per inner chunk: their length, ZH_EMPTY_LEN when left out */
    size_t slot_cap, index_room, index_nbytes;
    int64_t nchunks; /* inner chunks per shard: the index's entries */
    int64_t tail;    /* the first of the last shards done in turn, or -1 */
    pthread_mutex_t mu;
} zh_shard_run;

/* Group index per dimension of shard s (last dimension fastest). */
static void shard_groups(const zh_job_t *job, int64_t s, int64_t *g) {
    for (int d = job->ndim - 1; d >= 0; d--) {
        g[d] = job->g_off[d] + s % job->g_n[d];
        s /= job->g_n[d];
    }
}

/* Shard coordinates (sc) and the piece indices (piece) of its j-th inner chunk; returns
 * that chunk's flat (C order) place in the shard's index. */
static int64_t shard_piece(const zh_job_t *job, const int64_t *g, int64_t j, int64_t *sc,
                           int64_t *piece) {
    int64_t flat = 0, mul = 1;
    for (int d = job->ndim - 1; d >= 0; d--) {
        int64_t c = job->g_count[g[d]];
        piece[d] = job->piece_off[d] + job->g_piece[g[d]] + j % c;
        j /= c;
        sc[d] = job->g_shard[g[d]];
        flat += (job->p_chunk[piece[d]] - sc[d] * job->shard_ratio[d]) * mul;
        mul *= job->shard_ratio[d];
    }
    return flat;
}

static void put_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* After shard s's last inner chunk: write it (index and inner chunks in one writev to a
 * temporary file, renamed into place) or erase it when no inner chunk is stored; then
 * free its arena.  One large write, not one per inner chunk as they finish: measured,
 * many small appends cost tmpfs more CPU than the overlap saves. */
static void finish_shard(zh_shard_run *run, int64_t s, const char *path) {
    zh_job_t *job = run->job;
    zh_shard_state *st = &run->st[s];
    char msg[ZH_ERRLEN];
    msg[0] = 0;
    int fallback = __atomic_load_n(&st->fallback, __ATOMIC_ACQUIRE);
    if (!st->arena || fallback || __atomic_load_n(&job->failed, __ATOMIC_ACQUIRE)) {
        if (job->task_status[s] != ZH_TASK_FAILED)
            job->task_status[s] = fallback && !job->failed ? ZH_TASK_FALLBACK : ZH_TASK_SKIPPED;
        goto done;
    }
    int64_t t0 = run->first_task[s], n = run->first_task[s + 1] - t0;
    struct iovec *iov = (struct iovec *)malloc(sizeof(struct iovec) * (size_t)(n + 1));
    if (!iov) {
        fail(job, s, ZH_ERR_NOMEM, "out of memory");
        goto done;
    }
    unsigned char *index = (unsigned char *)st->arena;
    int64_t g[ZH_MAX_DIMS], sc[ZH_MAX_DIMS], piece[ZH_MAX_DIMS];
    shard_groups(job, s, g);
    uint64_t pos = job->index_start ? run->index_nbytes : 0;
    int cnt = job->index_start ? 1 : 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t len = run->len[t0 + j];
        if (len == ZH_EMPTY_LEN) continue;
        int64_t flat = shard_piece(job, g, j, sc, piece);
        put_le64(index + 16 * flat, pos);
        put_le64(index + 16 * flat + 8, (uint64_t)len);
        iov[cnt].iov_base = (void *)run->ptr[t0 + j];
        iov[cnt].iov_len = (size_t)len;
        pos += (uint64_t)len;
        cnt++;
    }
    int rc;
    if (cnt == (job->index_start ? 1 : 0)) {
        rc = erase_file(job, path, msg, sizeof(msg));
    } else {
        if (job->index_crc)
            zh_put_crc32c(index + run->nchunks * 16, index, (size_t)run->nchunks * 16);
        int at = job->index_start ? 0 : cnt++;
        iov[at].iov_base = index;
        iov[at].iov_len = run->index_nbytes;
        rc = write_filev(job, path, iov, cnt, msg, sizeof(msg));
    }
    free(iov);
    if (rc != ZH_OK) fail(job, s, rc, msg);
    else job->task_status[s] = ZH_TASK_DONE;
done:
    arena_put(st->arena, st->cap);
    st->arena = NULL;
}

/* Shard s's file name into path; 0 or -1 (too long). */
static int shard_path(const zh_shard_run *run, int64_t s, char *path) {
    int64_t g[ZH_MAX_DIMS], sc[ZH_MAX_DIMS], piece[ZH_MAX_DIMS];
    shard_groups(run->job, s, g);
    shard_piece(run->job, g, 0, sc, piece);
    return chunk_path(run->job, sc, path, ZH_PATH_MAX);
}

/* Encode inner chunk t (shard-major order) into its slot; the last of a shard writes it. */
static void shard_task(void *arg, int64_t t) {
    zh_shard_run *run = (zh_shard_run *)arg;
    zh_job_t *job = run->job;
    int64_t s, j;
    if (run->tail >= 0 && t >= run->first_task[run->tail]) {
        /* the last shards, their inner chunks in turn: they finish together, and their
         * writes run side by side instead of one thread writing while the others wait */
        int64_t k = t - run->first_task[run->tail], n = run->nshards - run->tail;
        s = run->tail + k % n;
        j = k / n;
    } else { /* the last s with first_task[s] <= t */
        int64_t lo = 0, hi = run->nshards - 1;
        while (lo < hi) {
            int64_t mid = (lo + hi + 1) / 2;
            if (run->first_task[mid] <= t) lo = mid;
            else hi = mid - 1;
        }
        s = lo;
        j = t - run->first_task[s];
    }
    t = run->first_task[s] + j; /* this inner chunk's slot (ptr, len) in shard order */
    zh_shard_state *st = &run->st[s];
    char path[ZH_PATH_MAX];
    char msg[ZH_ERRLEN];
    msg[0] = 0;
    run->len[t] = ZH_EMPTY_LEN;
    if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) goto finish;
    zh_wctx *w = zh_wctx_get();
    if (!w) {
        fail(job, s, ZH_ERR_NOMEM, "out of memory");
        goto finish;
    }
    char *arena = __atomic_load_n(&st->arena, __ATOMIC_ACQUIRE);
    if (!arena) {
        pthread_mutex_lock(&run->mu);
        arena = st->arena;
        if (!arena) {
            size_t cap = 0, n = (size_t)(run->first_task[s + 1] - run->first_task[s]);
            arena = arena_get(run->index_room + n * run->slot_cap, &cap);
            if (arena) memset(arena, 0xff, (size_t)run->nchunks * 16); /* every entry empty */
            st->cap = cap;
            __atomic_store_n(&st->arena, arena, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&run->mu);
        if (!arena) {
            fail(job, s, ZH_ERR_NOMEM, "out of memory");
            goto finish;
        }
    }
    int64_t g[ZH_MAX_DIMS], sc[ZH_MAX_DIMS], piece[ZH_MAX_DIMS];
    shard_groups(job, s, g);
    shard_piece(job, g, j, sc, piece);
    zh_piece p;
    make_piece_at(job, piece, &p);
    int inside = 1;
    for (int d = 0; d < job->ndim; d++)
        if ((p.coords[d] + 1) * job->chunk_shape[d] > job->array_shape[d]) inside = 0;
    char *slot = arena + run->index_room + (size_t)j * run->slot_cap;
    const char *chunk;
    if (p.whole && inside && job->direct_ok && job->swap <= 1) {
        chunk = p.bufp; /* straight from the caller's buffer */
    } else {
        char *buf = job->nsteps == 0 ? slot : zh_scratch(w, 0, (size_t)job->decoded_size);
        if (!buf) {
            fail(job, s, ZH_ERR_NOMEM, "out of memory");
            goto finish;
        }
        if (!inside) fill_chunk(job, buf);
        gather(job, &p, buf);
        chunk = buf;
    }
    if (!job->write_empty_chunks &&
        is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize))
        goto finish;
    if (job->nsteps == 0) {
        run->ptr[t] = chunk;
        run->len[t] = job->decoded_size;
        goto finish;
    }
    const char *out;
    size_t out_n;
    int rc = zh_encode_bytes(w, job->steps, job->nsteps, chunk, (size_t)job->decoded_size, slot,
                             run->slot_cap, &out, &out_n, msg, sizeof(msg));
    if (rc == ZH_FALLBACK) {
        __atomic_store_n(&st->fallback, 1, __ATOMIC_RELEASE);
        goto finish;
    }
    if (rc != ZH_OK) {
        fail(job, s, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
        goto finish;
    }
    if (out != slot) {
        if (out_n > run->slot_cap) {
            fail(job, s, ZH_ERR_CODEC, "an encoded inner chunk is larger than its bound");
            goto finish;
        }
        memcpy(slot, out, out_n);
    }
    run->ptr[t] = slot;
    run->len[t] = (int64_t)out_n;
finish:
    if (__atomic_sub_fetch(&st->remaining, 1, __ATOMIC_ACQ_REL) == 0) {
        if (shard_path(run, s, path) < 0) fail(job, s, ZH_ERR_IO, "path too long");
        finish_shard(run, s, path);
    }
}

int zh_shard_write_run(zh_job_t *job, int nthreads) {
    job->err_task = -1;
    job->err_code = ZH_OK;
    job->failed = 0;
    zh_shard_run run;
    memset(&run, 0, sizeof(run));
    run.job = job;
    run.nshards = 1;
    run.nchunks = 1;
    for (int d = 0; d < job->ndim; d++) {
        run.nshards *= job->g_n[d];
        run.nchunks *= job->shard_ratio[d];
    }
    if (run.nshards == 0) return ZH_OK;
    run.index_nbytes = (size_t)run.nchunks * 16 + (job->index_crc ? 4 : 0);
    run.index_room = ZH_ALIGN(run.index_nbytes, 64);
    run.slot_cap = job->nsteps == 0 ? (size_t)job->decoded_size
                                    : zh_encode_bound(job->steps, job->nsteps, (size_t)job->decoded_size);
    run.slot_cap = ZH_ALIGN(run.slot_cap, 64);
    run.first_task = (int64_t *)malloc(sizeof(int64_t) * (size_t)(run.nshards + 1));
    run.st = (zh_shard_state *)calloc((size_t)run.nshards, sizeof(zh_shard_state));
    int64_t g[ZH_MAX_DIMS];
    if (run.first_task && run.st) {
        run.first_task[0] = 0;
        for (int64_t s = 0; s < run.nshards; s++) {
            shard_groups(job, s, g);
            int64_t n = 1;
            for (int d = 0; d < job->ndim; d++) n *= job->g_count[g[d]];
            run.st[s].remaining = n;
            run.first_task[s + 1] = run.first_task[s] + n;
        }
        run.ntasks = run.first_task[run.nshards];
        /* interleave the last min(nthreads, nshards) shards when they are the same size */
        int64_t n = nthreads < run.nshards ? nthreads : run.nshards;
        run.tail = n > 1 ? run.nshards - n : -1;
        for (int64_t s = run.nshards - n + 1; run.tail >= 0 && s < run.nshards; s++)
            if (run.first_task[s + 1] - run.first_task[s] != run.first_task[s] - run.first_task[s - 1])
                run.tail = -1;
        run.ptr = (const char **)malloc(sizeof(char *) * (size_t)(run.ntasks ? run.ntasks : 1));
        run.len = (int64_t *)malloc(sizeof(int64_t) * (size_t)(run.ntasks ? run.ntasks : 1));
    }
    int rc = ZH_OK;
    if (!run.first_task || !run.st || !run.ptr || !run.len) {
        rc = job->err_code = ZH_ERR_NOMEM;
        job->err_task = 0;
        snprintf(job->err_msg, sizeof(job->err_msg), "out of memory");
    } else {
        pthread_mutex_init(&job->err_mu, NULL);
        pthread_mutex_init(&run.mu, NULL);
        zh_pool_run(shard_task, &run, run.ntasks, nthreads);
        pthread_mutex_destroy(&run.mu);
        pthread_mutex_destroy(&job->err_mu);
    zh_job_close_root(job);
        rc = job->err_code;
    }
    free(run.first_task);
    free(run.st);
    free(run.ptr);
    free(run.len);
    return rc;
}
