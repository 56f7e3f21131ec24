/* Sharded writes of the native engine (zh_shard_write_run, see zh_engine.h). */
#define _GNU_SOURCE
#include "zh_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "zh_pool.h"

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
        zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
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
        rc = zh_erase_file(job, path, msg, sizeof(msg));
    } else {
        if (job->index_crc)
            zh_put_crc32c(index + run->nchunks * 16, index, (size_t)run->nchunks * 16);
        int at = job->index_start ? 0 : cnt++;
        iov[at].iov_base = index;
        iov[at].iov_len = run->index_nbytes;
        rc = zh_write_filev(job, path, iov, cnt, msg, sizeof(msg));
    }
    free(iov);
    if (rc != ZH_OK) zh_fail(job, s, rc, msg);
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
    return zh_chunk_path(run->job, sc, path, ZH_PATH_MAX);
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
        zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
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
            zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
            goto finish;
        }
    }
    int64_t g[ZH_MAX_DIMS], sc[ZH_MAX_DIMS], piece[ZH_MAX_DIMS];
    shard_groups(job, s, g);
    shard_piece(job, g, j, sc, piece);
    zh_piece p;
    zh_make_piece_at(job, piece, &p);
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
            zh_fail(job, s, ZH_ERR_NOMEM, "out of memory");
            goto finish;
        }
        if (!inside) zh_fill_chunk(job, buf);
        zh_gather(job, &p, buf);
        chunk = buf;
    }
    if (!job->write_empty_chunks &&
        zh_is_fill(chunk, job->decoded_size, job->fill_stored, job->itemsize))
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
        zh_fail(job, s, rc, rc == ZH_ERR_NOMEM ? "out of memory" : msg);
        goto finish;
    }
    if (out != slot) {
        if (out_n > run->slot_cap) {
            zh_fail(job, s, ZH_ERR_CODEC, "an encoded inner chunk is larger than its bound");
            goto finish;
        }
        memcpy(slot, out, out_n);
    }
    run->ptr[t] = slot;
    run->len[t] = (int64_t)out_n;
finish:
    if (__atomic_sub_fetch(&st->remaining, 1, __ATOMIC_ACQ_REL) == 0) {
        if (shard_path(run, s, path) < 0) zh_fail(job, s, ZH_ERR_IO, "path too long");
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
