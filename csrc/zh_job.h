/* The native engine's internals shared by its C files (see zh_engine.h for the list):
 * task numbering, failures, chunk file names, opening and reading chunk files, the piece
 * of a chunk a task reads or writes, and the file writes both write paths use.  Not part
 * of the engine's interface to Cython. */
#ifndef ZH_JOB_H
#define ZH_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "zh_engine.h"

#define ZH_PATH_MAX 4096
#define ZH_ERRLEN 256
/* zh_read_and_close's error for out of memory (errnos are positive) */
#define ZH_READ_NOMEM (-1)

/* ---- tasks and failures (csrc/zh_job.c) ---- */

/* Run ntasks tasks fn(arg, t) of job on the pool: resets the job's first error, closes
 * its root afterwards; returns ZH_OK or the first failure's code. */
int zh_job_run(zh_job_t *job, void (*fn)(void *, int64_t), void *arg, int64_t ntasks,
               int nthreads);

/* The piece index of every dimension for task t (last dimension fastest). */
void zh_task_pieces(const zh_job_t *job, int64_t t, int64_t *piece);
/* Mark task t failed with code and message (the lowest failing task wins). */
void zh_fail(zh_job_t *job, int64_t t, int code, const char *msg);
/* Chunk file path of coords into out (cap bytes): its length, or -1 when too long. */
int zh_chunk_path(const zh_job_t *job, const int64_t *coords, char *out, size_t cap);
/* Open a chunk file beneath the store root (no symbolic link out of it): 1 with fd and
 * size when it holds a value, 0 when missing, -errno. */
int zh_open_chunk(const zh_job_t *job, const char *path, int *fd, int64_t *size);
/* Open task t's stored chunk (grid coordinates coords): its own file, or with src ranges
 * (job->src_len) the byte range of its outer chunk's file, checked against the file's
 * size.  1 with *fd, *foff (where the chunk starts in fd) and *n (its bytes) when stored,
 * 0 when not, -1 when the task failed (done here).  *owned: the caller closes fd (else it
 * is the call's shared descriptor of that file, closed by zh_job_run). */
int zh_open_task_chunk(zh_job_t *job, int64_t t, const int64_t *coords, int *fd,
                       int64_t *foff, int64_t *n, int *owned);
/* pread exactly n bytes at off: 0 or an errno (EIO when the file is shorter). */
int zh_pread_full(int fd, char *dst, size_t n, int64_t off);
/* Fail task t for a failed read (err: an errno, or -1 for out of memory). */
void zh_fail_read(zh_job_t *job, int64_t t, int err);
/* Fail task t with an I/O error: "what: [Errno e] strerror". */
void zh_fail_errno(zh_job_t *job, int64_t t, const char *what, int err);
/* Read bytes [lo, lo + len) of fd into scratch buffer 3 and close fd.  Returns the buffer,
 * or NULL with *err set: an errno, or ZH_READ_NOMEM. */
char *zh_read_and_close(zh_wctx *w, int fd, int64_t lo, int64_t len, int *err);
/* The same without closing fd. */
char *zh_read_scratch(zh_wctx *w, int fd, int64_t lo, int64_t len, int *err);

/* ---- the piece of a chunk one task reads or writes (csrc/zh_job.c) ---- */

typedef struct {
    int64_t coords[ZH_MAX_DIMS], first[ZH_MAX_DIMS], count[ZH_MAX_DIMS];
    int64_t chunk_strides[ZH_MAX_DIMS]; /* step * lstride */
    char *bufp;                          /* this task's corner of the caller's buffer */
    int whole;                           /* every element of the chunk, in order */
} zh_piece;

/* The piece of the chunk at piece indices piece[0..ndim), and that of task t. */
void zh_make_piece_at(const zh_job_t *job, const int64_t *piece, zh_piece *p);
void zh_make_piece(const zh_job_t *job, int64_t t, zh_piece *p);
/* Byte range [lo, hi) of a decoded chunk that the piece reads. */
void zh_piece_range(const zh_job_t *job, const zh_piece *p, int64_t *lo, int64_t *hi);
/* The common start of a task: its scratch context and piece, or NULL when it is skipped
 * (another task failed) or failed. */
zh_wctx *zh_task_begin(zh_job_t *job, int64_t t, zh_piece *p);
/* Copy the piece's part of a decoded chunk into the caller's buffer. */
void zh_copy_out(const zh_job_t *job, const zh_piece *p, const char *chunk);

/* ---- writing (csrc/zh_write.c; csrc/zh_shard_write.c uses them too) ---- */

/* Whether nbytes of buf all hold the itemsize-byte value fill. */
int zh_is_fill(const char *buf, int64_t nbytes, const char *fill, int64_t itemsize);
/* Write iov[0..iovcnt) to path atomically (temporary file, rename).  0, or a status with
 * msg.  iov is used up. */
int zh_write_filev(const zh_job_t *job, const char *path, struct iovec *iov, int iovcnt,
                   char *msg, size_t msglen);
/* Erase the value at path (missing is fine) and prune the directories it leaves empty. */
int zh_erase_file(const zh_job_t *job, const char *path, char *msg, size_t msglen);
/* Copy the caller's part of piece p into chunk (decoded layout, stored byte order). */
void zh_gather(const zh_job_t *job, const zh_piece *p, char *chunk);
/* Fill a decoded chunk with the fill value (stored byte order). */
void zh_fill_chunk(const zh_job_t *job, char *chunk);
/* Read the stored chunk at path into chunk (decoded_size bytes: decoded, stored byte
 * order), or fill it when missing.  ZH_OK, ZH_FALLBACK (the Python codecs must decode
 * it), ZH_ERR_CORRUPT / ZH_ERR_IO with msg, or ZH_ERR_NOMEM. */
int zh_load_chunk(const zh_job_t *job, zh_wctx *w, const char *path, char *chunk, char *msg,
                  size_t msglen);

#endif
