/* Store roots kept open between engine calls.
 *
 * Every chunk file is opened with openat2(RESOLVE_BENEATH) from an O_PATH descriptor of
 * the store root, so that a symbolic link cannot lead out of the store.  Opening that
 * root for every chunk cost as much as a third of a small read: on the 2-core VM an
 * O_PATH open + close of the root takes 1.3 us of CPU, the chunk's openat2 + close 1.8,
 * fstat 0.28, a 1824-byte pread 0.33; a W4 8x8x8 read of an uncompressed 64^3 float32
 * chunk (8 preads) took 13 us of CPU in all, 1.3 chunks per read on average.  So the
 * roots stay open in a small process-wide table (ZH_ROOTS entries, least recently used
 * replaced) and every use checks the descriptor still names the directory at the path:
 *
 * - fstat of the kept descriptor (0.28 us): the directory's ctime and link count.  A
 *   directory removed (rmtree, overwrite) has no links; one renamed away (a dataset
 *   swapped for a new one by renaming directories) gets a new ctime on Linux's local
 *   file systems (ext4, xfs, btrfs, tmpfs), as does one whose entries changed.  Either
 *   way the path is looked up again (stat: 0.8 us) and compared by device and inode; a
 *   different directory gets a fresh descriptor.
 * - a chunk that is not found through a kept descriptor is looked for once more through
 *   the path (zh_root_recheck), so a missing chunk is never reported from a directory
 *   that is no longer the store's.
 *
 * Each entry counts its users: a replaced descriptor is closed when its last user gives
 * it back, never while another thread may still open through it.  A forked child keeps
 * the table (the descriptors are inherited) with a fresh mutex. */
#define _GNU_SOURCE
#include "zh_roots.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZH_ROOTS 16
#define ZH_ROOT_MAX 4096

typedef struct {
    char *path; /* NULL: free or retired */
    size_t len;
    int fd;     /* -1: free */
    int refs;
    dev_t dev;
    ino_t ino;
    struct timespec ctime;
    uint64_t used;
} zh_root;

static zh_root g_roots[ZH_ROOTS] = {{0}};
static uint64_t g_clock = 0;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void atfork_child(void) { pthread_mutex_init(&g_mu, NULL); }
static void init_once(void) {
    for (int i = 0; i < ZH_ROOTS; i++) g_roots[i].fd = -1;
    pthread_atfork(NULL, NULL, atfork_child);
}

static int same_time(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Open root as an O_PATH directory; its identity in *st.  -1 with errno. */
static int open_root(const char *root, size_t len, struct stat *st) {
    char path[ZH_ROOT_MAX];
    if (len == 0 || len >= sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, root, len);
    path[len] = 0;
    int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Does the path still name the directory `fd` is?  1 yes, 0 no. */
static int path_is(const char *root, size_t len, const struct stat *kept) {
    char path[ZH_ROOT_MAX];
    struct stat st;
    if (len == 0 || len >= sizeof(path)) return 0;
    memcpy(path, root, len);
    path[len] = 0;
    return stat(path, &st) == 0 && st.st_dev == kept->st_dev && st.st_ino == kept->st_ino;
}

/* Drop entry i's descriptor from the table (caller holds g_mu): closed now when unused,
 * else by its last user.  Returns an fd to close after unlocking, or -1. */
static int retire(int i) {
    zh_root *r = &g_roots[i];
    free(r->path);
    r->path = NULL;
    r->len = 0;
    if (r->refs == 0) {
        int fd = r->fd;
        r->fd = -1;
        return fd;
    }
    return -1;
}

/* Put a fresh descriptor into the table; its slot, or -1 (every slot in use). */
static int install(const char *root, size_t len, int fd, const struct stat *st, int *to_close) {
    int best = -1;
    for (int i = 0; i < ZH_ROOTS; i++) {
        zh_root *r = &g_roots[i];
        if (r->refs) continue;
        if (best < 0 || r->fd < 0 || (g_roots[best].fd >= 0 && r->used < g_roots[best].used))
            best = i;
        if (r->fd < 0) break;
    }
    *to_close = -1;
    if (best < 0) return -1;
    zh_root *r = &g_roots[best];
    char *copy = (char *)malloc(len + 1);
    if (!copy) return -1;
    if (r->fd >= 0) {
        *to_close = r->fd;
        free(r->path);
    }
    memcpy(copy, root, len);
    copy[len] = 0;
    r->path = copy;
    r->len = len;
    r->fd = fd;
    r->refs = 1;
    r->dev = st->st_dev;
    r->ino = st->st_ino;
    r->ctime = st->st_ctim;
    r->used = ++g_clock;
    return best;
}

static int find(const char *root, size_t len) {
    for (int i = 0; i < ZH_ROOTS; i++) {
        zh_root *r = &g_roots[i];
        if (r->path && r->len == len && memcmp(r->path, root, len) == 0) return i;
    }
    return -1;
}

/* A fresh descriptor into the table (or uncached: slot -1). */
static int fresh(const char *root, size_t len, int *slot) {
    struct stat st;
    int fd = open_root(root, len, &st);
    if (fd < 0) return -1;
    int to_close = -1;
    pthread_mutex_lock(&g_mu);
    int i = find(root, len);
    int old = -1;
    if (i >= 0) old = retire(i); /* another thread's entry for the same path: ours wins */
    *slot = install(root, len, fd, &st, &to_close);
    pthread_mutex_unlock(&g_mu);
    if (old >= 0) close(old);
    if (to_close >= 0) close(to_close);
    return fd;
}

int zh_root_get(const char *root, size_t root_len, int *slot) {
    pthread_once(&g_once, init_once);
    *slot = -1;
    pthread_mutex_lock(&g_mu);
    int i = find(root, root_len);
    int fd = -1;
    struct stat kept;
    struct timespec ctime = {0, 0};
    if (i >= 0) {
        zh_root *r = &g_roots[i];
        r->refs++;
        r->used = ++g_clock;
        fd = r->fd;
        kept.st_dev = r->dev;
        kept.st_ino = r->ino;
        ctime = r->ctime;
    }
    pthread_mutex_unlock(&g_mu);
    if (fd < 0) return fresh(root, root_len, slot);
    struct stat st;
    int live = fstat(fd, &st) == 0 && st.st_nlink > 0;
    if (live && same_time(&st.st_ctim, &ctime)) {
        *slot = i;
        return fd;
    }
    /* removed, renamed or changed: the path decides */
    if (live && path_is(root, root_len, &kept)) {
        pthread_mutex_lock(&g_mu);
        if (g_roots[i].fd == fd) g_roots[i].ctime = st.st_ctim;
        pthread_mutex_unlock(&g_mu);
        *slot = i;
        return fd;
    }
    zh_root_put(fd, i);
    pthread_mutex_lock(&g_mu);
    if (g_roots[i].fd == fd && g_roots[i].path) {
        int c = retire(i);
        pthread_mutex_unlock(&g_mu);
        if (c >= 0) close(c);
    } else {
        pthread_mutex_unlock(&g_mu);
    }
    return fresh(root, root_len, slot);
}

void zh_root_put(int fd, int slot) {
    if (slot < 0) {
        if (fd >= 0) close(fd);
        return;
    }
    int c = -1;
    pthread_mutex_lock(&g_mu);
    zh_root *r = &g_roots[slot];
    if (r->fd == fd && r->refs > 0) {
        r->refs--;
        if (r->refs == 0 && !r->path) { /* retired while in use: the last user closes */
            c = r->fd;
            r->fd = -1;
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (c >= 0) close(c);
}

int zh_root_recheck(const char *root, size_t root_len, int fd, int *slot) {
    struct stat kept;
    if (fstat(fd, &kept) == 0 && kept.st_nlink > 0 && path_is(root, root_len, &kept))
        return -1; /* the same directory: its answer stands */
    int new_slot;
    int nfd = fresh(root, root_len, &new_slot); /* retires the stale entry */
    if (nfd < 0) return -1; /* the path names no directory now: missing either way */
    zh_root_put(fd, *slot);
    *slot = new_slot;
    return nfd;
}
