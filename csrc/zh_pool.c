/* Worker pool.  See zh_pool.h.  Jobs wait in a queue; an idle worker joins the oldest job
 * that still has tasks and wants helpers; tasks are claimed with an atomic counter. */
#include "zh_pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "zh_status.h"

#define ZH_POOL_MAX 256

typedef struct zh_job {
    zh_task_fn fn;
    void *arg;
    int64_t n;
    int64_t next;          /* atomic */
    int helpers_wanted;
    int helpers_active;    /* under g_mu */
    struct zh_job *qnext;  /* under g_mu */
} zh_job;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;
static zh_job *g_queue = NULL;
static int g_nthreads = 0;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void run_tasks(zh_job *job) {
    for (;;) {
        int64_t i = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (i >= job->n) return;
        job->fn(job->arg, i);
    }
}

static zh_job *claim_job(void) {
    for (zh_job *j = g_queue; j; j = j->qnext) {
        if (j->helpers_active < j->helpers_wanted &&
            __atomic_load_n(&j->next, __ATOMIC_RELAXED) < j->n) {
            j->helpers_active++;
            return j;
        }
    }
    return NULL;
}

static void *worker(void *unused) {
    (void)unused;
    pthread_mutex_lock(&g_mu);
    for (;;) {
        zh_job *job = claim_job();
        if (!job) {
            pthread_cond_wait(&g_work, &g_mu);
            continue;
        }
        pthread_mutex_unlock(&g_mu);
        run_tasks(job);
        pthread_mutex_lock(&g_mu);
        if (--job->helpers_active == 0) pthread_cond_broadcast(&g_done);
    }
    return NULL;
}

static void after_fork_child(void) {
    /* the pool's threads do not exist in the child */
    pthread_mutex_init(&g_mu, NULL);
    pthread_cond_init(&g_work, NULL);
    pthread_cond_init(&g_done, NULL);
    g_queue = NULL;
    g_nthreads = 0;
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

int zh_pool_run(zh_task_fn fn, void *arg, int64_t n, int nthreads) {
    int status = ZH_OK;
    if (n <= 0) return status;
    if (nthreads > ZH_POOL_MAX) nthreads = ZH_POOL_MAX;
    int helpers = nthreads - 1;
    if (helpers > n - 1) helpers = (int)(n - 1);
    if (helpers <= 0) {
        for (int64_t i = 0; i < n; i++) fn(arg, i);
        return status;
    }
    pthread_once(&g_atfork_once, register_atfork);
    zh_job job = {fn, arg, n, 0, helpers, 0, NULL};
    pthread_mutex_lock(&g_mu);
    while (g_nthreads < helpers) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, worker, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            status = ZH_ERR_NOMEM;
            break;
        }
        g_nthreads++;
    }
    zh_job **tail = &g_queue;
    while (*tail) tail = &(*tail)->qnext;
    *tail = &job;
    if (helpers == 1) pthread_cond_signal(&g_work);
    else pthread_cond_broadcast(&g_work);
    pthread_mutex_unlock(&g_mu);

    run_tasks(&job);

    pthread_mutex_lock(&g_mu);
    for (zh_job **p = &g_queue; *p; p = &(*p)->qnext) {
        if (*p == &job) {
            *p = job.qnext;
            break;
        }
    }
    while (job.helpers_active > 0) pthread_cond_wait(&g_done, &g_mu);
    pthread_mutex_unlock(&g_mu);
    return status;
}
