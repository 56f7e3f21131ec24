/* A small pool of worker threads for the native engine: one call runs n independent
 * tasks on the calling thread plus up to nthreads-1 pool threads, and returns when all
 * are done.  Threads are created on first need and kept; a forked child starts empty. */
#ifndef ZH_POOL_H
#define ZH_POOL_H

#include <stdint.h>

typedef void (*zh_task_fn)(void *arg, int64_t i);

/* Run fn(arg, i) for i in [0, n), on at most nthreads threads (the caller included).
 * Returns 0, or ZH_ERR_NOMEM when no pool thread could be started (then the caller ran
 * every task itself). */
int zh_pool_run(zh_task_fn fn, void *arg, int64_t n, int nthreads);

#endif
