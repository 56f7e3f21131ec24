/* The native batch engine: one call reads (or writes) every chunk a basic selection
 * touches, in parallel, without Python.  The selection arrives as per-dimension pieces
 * (chunk index, first element in the chunk, count, position in the result); the tasks
 * are their cartesian product, last dimension fastest (the order of itertools.product),
 * so a task number names a chunk without any per-chunk array.  No Python.h.
 *
 * The engine's C files: zh_job.c (tasks, errors, chunk paths, opening and reading files;
 * the internals they share are declared in zh_job.h), zh_read.c (basic reads),
 * zh_write.c (writes: atomic files, row groups), zh_shard_write.c (whole shards),
 * zh_select.c and zh_mask.c (point, orthogonal and mask reads). */
#ifndef ZH_ENGINE_H
#define ZH_ENGINE_H

#include <pthread.h>
#include <stdint.h>

#include "zh_codecs.h"
#include "zh_status.h"

/* task status (per task, written by the engine) */
enum { ZH_TASK_TODO = 0, ZH_TASK_DONE = 1, ZH_TASK_FALLBACK = 2, ZH_TASK_FAILED = 3,
       ZH_TASK_SKIPPED = 4 };

typedef struct {
    /* geometry */
    int ndim;
    int64_t itemsize;
    int swap;                       /* byte-swap component size between stored and native */
    const int64_t *chunk_shape;     /* ndim */
    const int64_t *chunk_lstrides;  /* byte strides of a decoded chunk, logical order */
    int64_t decoded_size;           /* bytes of a decoded chunk */
    const int64_t *array_shape;     /* ndim (writes: edge chunks) */
    const zh_bb *steps;
    int nsteps;
    const char *fill_stored;        /* itemsize bytes, stored byte order */
    const char *fill_native;        /* itemsize bytes, native byte order */
    /* the selection, per dimension */
    const int64_t *npieces;         /* ndim */
    const int64_t *piece_off;       /* ndim: where dim d's pieces start in p_* */
    const int64_t *p_chunk, *p_first, *p_count, *p_out;
    const int64_t *step;            /* ndim: the selection's step per dimension */
    /* the caller's buffer (result for reads, value for writes), full-shape view */
    char *buf;
    const int64_t *buf_strides;     /* ndim, bytes */
    /* the store: a directory (path_prefix: root + "/" + array path + "/"), or memory */
    const char *path_prefix;
    int64_t root_len;               /* length of the store root in path_prefix (pruning) */
    int root_fd1;                   /* the root's O_PATH fd + 1 for this call (0: not open) */
    int opens;                      /* chunk files opened by this call (zh_job.c, atomic) */
    int key_kind;                   /* ZH_KEY_DEFAULT or ZH_KEY_V2 (zh_status.h) */
    char sep;
    const char *const *mem_ptr;     /* reads without a directory: per task (NULL: missing) */
    const int64_t *mem_len;
    /* options */
    int partial_ok;                 /* reads: pread only the bytes wanted when uncompressed */
    int direct_ok;                  /* buf layout equals a decoded chunk's layout */
    int write_empty_chunks;
    int durable;
    /* sharded writes (zh_shard_write_run): the chunks above are the inner chunks; the
     * shards written are the product over dimensions of "groups", each a run of
     * consecutive pieces (step 1, whole inner chunks) that make up one shard's extent */
    const int64_t *shard_ratio;     /* ndim: inner chunks per shard */
    const int64_t *g_n, *g_off;     /* ndim: groups per dimension, where they start */
    const int64_t *g_piece, *g_count, *g_shard; /* per group: first piece (relative to
                                     * the dimension's piece_off), pieces, shard index */
    int index_start;                /* the index is at the start of the shard (else end) */
    int index_crc;                  /* a crc32c follows the index */
    /* point and orthogonal reads of inner chunks (csrc/zh_select.c): task t's chunk is
     * the byte range [src_off[t], src_off[t] + src_len[t]) of the file of the stored
     * (outer) chunk at src_coords[src_file[t] * ndim ...], beneath path_prefix;
     * src_len[t] < 0: not stored.  NULL: a task's chunk is its own file. */
    const int64_t *src_coords, *src_file, *src_off, *src_len;
    /* with src ranges, the outer files opened by this call (csrc/zh_job.c): per file its
     * descriptor + 1 (0: not open yet) and size; NULL: each task opens its file.  A call
     * reading many inner chunks of few shards (W5, W11: thousands of inner chunks of 8
     * shards) opened, checked and closed a shard file per inner chunk. */
    int64_t src_nfiles;
    int *src_fd1;
    int64_t *src_size;
    pthread_mutex_t src_mu;
    /* results */
    uint8_t *task_status;           /* per task */
    int failed;                     /* set once a task failed: the others stop */
    pthread_mutex_t err_mu;
    int64_t err_task;               /* lowest failing task, -1 if none */
    int err_code;
    char err_msg[320];
} zh_job_t;

/* Number of tasks of a job: the product of npieces. */
int64_t zh_job_ntasks(const zh_job_t *job);

/* The chunk coordinates of task t. */
void zh_job_coords(const zh_job_t *job, int64_t t, int64_t *coords);

/* Run all tasks of a read (write) job on nthreads threads.  Per-task outcome in
 * task_status; the first failure (by task number) in err_*.  Returns ZH_OK or the first
 * failure's code. */
int zh_read_run(zh_job_t *job, int nthreads);

/* Close the store root a call opened (every *_run does at its end). */
void zh_job_close_root(zh_job_t *job);
int zh_write_run(zh_job_t *job, int nthreads);

/* Write every shard of a sharded write job (see the shard fields): inner chunks are
 * encoded in parallel (shard after shard) into a per-shard arena and the thread that
 * finishes a shard's last one writes the shard (index and chunks, one writev, temporary
 * file and rename), or erases it when every inner chunk is the fill value.  Here tasks
 * are shards (the group product, last dimension fastest): task_status and err_task are
 * per shard, and FALLBACK means the Python codecs must write that shard. */
int zh_shard_write_run(zh_job_t *job, int nthreads);

#endif
