// A small pool of worker threads for the kernels' parallel loops. A feature map's layer takes
// tens of microseconds, about what waking a sleeping thread costs, so after a job the workers
// spin for half a millisecond before they sleep: the next layer's job finds them
// awake. Tasks are handed out one at a time from a shared counter; which thread runs a task
// never changes what it computes.
#include "CKernels.h"

#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define MAXIMUM_WORKERS 63

static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;     // one job at a time
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int worker_count = 0;                                      // threads started (under job_lock)
static atomic_long generation = 0;                                // bumped for every job
static atomic_int running = 0;                                    // workers still inside the current job
static atomic_int next_task = 0;
static int task_count = 0, task_limit = 0;                        // tasks, and how many workers may take them
static coach_task job_task = 0;
static void *job_context = 0;
static _Thread_local int inside_task = 0;
static long first_generation[MAXIMUM_WORKERS];                    // the generation before each worker's first job

int coach_pool_inside_task(void) { return inside_task; }

static long nanoseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void take_tasks(void) {
    inside_task = 1;
    for (int i = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed); i < task_count;
         i = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed))
        job_task(job_context, i);
    inside_task = 0;
}

static void *worker_main(void *argument) {
    const int index = (int)(long)argument;
    long seen = first_generation[index];   // the job that started it may already have begun
    for (;;) {
        long now = atomic_load_explicit(&generation, memory_order_acquire);
        if (now == seen) {
            const long until = nanoseconds() + 500000;   // spin half a millisecond, then sleep
            int spins = 0;
            while ((now = atomic_load_explicit(&generation, memory_order_acquire)) == seen) {
                _mm_pause();
                if (++spins % 256 == 0 && nanoseconds() > until) break;
            }
            if (now == seen) {
                pthread_mutex_lock(&sleep_lock);
                while ((now = atomic_load_explicit(&generation, memory_order_acquire)) == seen)
                    pthread_cond_wait(&wake, &sleep_lock);
                pthread_mutex_unlock(&sleep_lock);
            }
        }
        seen = now;
        if (index < task_limit) take_tasks();
        atomic_fetch_sub_explicit(&running, 1, memory_order_release);
    }
    return 0;
}

void coach_pool_run(int threads, int tasks, coach_task task, void *context) {
    if (threads > MAXIMUM_WORKERS + 1) threads = MAXIMUM_WORKERS + 1;
    // Serially when only one thread is wanted, inside another task, or while another caller's job runs.
    if (threads <= 1 || tasks <= 1 || inside_task || pthread_mutex_trylock(&job_lock) != 0) {
        int was = inside_task;
        inside_task = 1;
        for (int i = 0; i < tasks; i++) task(context, i);
        inside_task = was;
        return;
    }
    while (worker_count < threads - 1) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 8 << 20);
        first_generation[worker_count] = atomic_load(&generation);
        if (pthread_create(&thread, &attributes, worker_main, (void *)(long)worker_count) != 0) {
            pthread_attr_destroy(&attributes);
            break;
        }
        pthread_attr_destroy(&attributes);
        worker_count++;
    }
    job_task = task;
    job_context = context;
    task_count = tasks;
    task_limit = threads - 1;
    atomic_store_explicit(&next_task, 0, memory_order_relaxed);
    atomic_store_explicit(&running, worker_count, memory_order_relaxed);
    pthread_mutex_lock(&sleep_lock);
    atomic_fetch_add_explicit(&generation, 1, memory_order_release);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&sleep_lock);
    take_tasks();
    while (atomic_load_explicit(&running, memory_order_acquire) > 0) _mm_pause();
    pthread_mutex_unlock(&job_lock);
}
