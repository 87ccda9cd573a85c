/* engine/_dvonnsmp.h: one root iteration on several threads (lazy SMP), included by
 * _dvonncore.c after _dvonnsearch.h.
 *
 * The calling (main) thread searches the iteration exactly as on one thread, but with the
 * GIL released and the shared lock-free table of _dvonnshared.h; its result is the
 * iteration's. Helper threads search the same root at the same time with their own position,
 * killers and history (a copy of the searcher's), only to fill the shared table with entries
 * the main thread then finds: the odd ones one ply deeper than the main thread, the even ones
 * at its depth with the root moves after the first in another (seeded) order; a helper that
 * finishes goes on one ply deeper. The helpers never store the root's entry (the principal
 * variation starts from the main thread's move).
 *
 * Stopping: every thread checks the shared stop flag at its clock checks (a helper every
 * HELPER_CHECK nodes); the main thread sets it when its clock says stop or when its iteration
 * is done, then joins the helpers. The main thread reads the clock as on one thread: the
 * Python clock with the GIL taken back for the call, or, when the clock is time.monotonic on
 * Linux, CLOCK_MONOTONIC directly (the same readings), taking the GIL only every SIGNAL_EVERY
 * seconds to let a signal handler (Ctrl-C) run. With that native clock the helpers read it too and stop at
 * the deadline by themselves.
 */
#ifndef DVONN_SMP_H
#define DVONN_SMP_H
#include "_dvonnsearch.h"
#if !defined(_WIN32) && defined(__GNUC__)
#define DVONN_THREADS 1
#include <pthread.h>
#include <time.h>
#endif

#define MAX_THREADS 64      /* engine/search.py MAX_THREADS */
#define HELPER_CHECK 16     /* a helper looks at the stop flag this often (nodes) */
#ifndef SMP_MIN_DEPTH
#define SMP_MIN_DEPTH 3     /* shallower iterations take microseconds: no helpers */
#endif
#define SIGNAL_EVERY 0.1    /* native clock: seconds between the main thread's signal checks */

typedef struct Smp {
    int stop;                /* read and written with atomics: every thread stops */
    int native;              /* the clock is CLOCK_MONOTONIC: no GIL to read it */
    double deadline;
    PyThreadState *tstate;   /* the main thread's state while it runs without the GIL */
    double signals_at;       /* native clock: when the main thread next runs signal handlers */
} Smp;

static inline int smp_stopped(Smp *sh) { return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED); }
static inline void smp_stop(Smp *sh) { __atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED); }

static double mono_now(void) {
#ifdef DVONN_THREADS
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
#else
    return 0.0;
#endif
}

/* check() of a thread of a search on several threads: 1 = stop. */
static int smp_check(Ctx *x) {
    Smp *sh = x->smp;
    if (smp_stopped(sh)) return 1;
    if (x->helper) {
        x->check_at = x->nodes + HELPER_CHECK;
        if (sh->native && (x->nodes & 1023) < HELPER_CHECK && mono_now() >= sh->deadline) {
            smp_stop(sh);
            return 1;
        }
        return 0;
    }
    double now;
    if (sh->native) {
        now = mono_now();
        if (now >= sh->signals_at) { /* (taking the GIL may wait for another thread) */
            sh->signals_at = now + SIGNAL_EVERY;
            PyEval_RestoreThread(sh->tstate);
            int bad = PyErr_CheckSignals() < 0;
            sh->tstate = PyEval_SaveThread();
            if (bad) { x->error = 1; smp_stop(sh); return 1; }
        }
    } else {
        PyEval_RestoreThread(sh->tstate);
        int bad = PyErr_CheckSignals() < 0;
        PyObject *r = bad ? NULL : PyObject_CallNoArgs(x->clock);
        now = r ? PyFloat_AsDouble(r) : -1.0;
        Py_XDECREF(r);
        bad = bad || !r || (now == -1.0 && PyErr_Occurred());
        sh->tstate = PyEval_SaveThread();
        if (bad) { x->error = 1; smp_stop(sh); return 1; }
    }
    if (now + 2 * (now - x->last_check) >= x->deadline) { smp_stop(sh); return 1; }
    x->last_check = now;
    int64_t next = x->nodes + x->check_every;
    x->check_at = next < x->node_limit ? next : x->node_limit;
    return 0;
}

typedef struct {
    Ctx x;
    int moves[MAXMOVES];
    int n, depth;
    int64_t history[NC * NC];
    int killers[MAX_DEPTH + 2][2];
#ifdef DVONN_THREADS
    pthread_t thread;
#endif
    int running;
} Helper;

#ifdef DVONN_THREADS
static void *helper_main(void *arg) {
    Helper *h = (Helper *)arg;
    int done[MAXMOVES];
    int64_t values[MAXMOVES], best;
    int best_move;
    for (int depth = h->depth; depth <= MAX_DEPTH && !smp_stopped(h->x.smp); depth++) {
        root_search(&h->x, h->moves, h->n, depth, done, values, &best, &best_move);
        if (h->x.stop) break;
        for (int i = 0; i < h->n; i++) { /* the best first in the next iteration */
            if (h->moves[i] == best_move) {
                memmove(h->moves + 1, h->moves, (size_t)i * sizeof(int));
                h->moves[0] = best_move;
                break;
            }
        }
    }
    return NULL;
}
#endif

/* The helper k's view of the root: its own tables, depth and order of the moves. */
static void helper_init(Helper *h, const Ctx *main, const int *moves, int n, int depth, int k) {
    h->x = *main;
    h->x.helper = 1;
    h->x.history = h->history;
    h->x.killers = h->killers;
    h->x.nodes = 0;
    h->x.node_limit = (int64_t)1 << 62;
    h->x.check_at = HELPER_CHECK;
    h->x.clock = NULL;
    memcpy(h->history, main->history, sizeof(h->history));
    for (int i = 0; i < MAX_DEPTH + 2; i++) h->killers[i][0] = h->killers[i][1] = NONE_MOVE;
    memcpy(h->moves, moves, (size_t)n * sizeof(int));
    h->n = n;
    h->depth = depth + (k & 1);
    if (!(k & 1)) { /* a seeded shuffle of the moves after the first */
        uint64_t r = zobrist(&main->pos) ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(k + 1));
        for (int i = n - 1; i > 1; i--) {
            r ^= r << 13; r ^= r >> 7; r ^= r << 17;
            int j = 1 + (int)(r % (uint64_t)i);
            int t = h->moves[i]; h->moves[i] = h->moves[j]; h->moves[j] = t;
        }
    }
    h->running = 0;
}

/* root_search on `threads` threads (the GIL held on entry and on return). Returns -1 with an
 * exception set when the shared table cannot be had; else root_search's count, and the
 * helpers' nodes in *helper_nodes. */
static int smp_root(Ctx *x, const int *moves, int n, int depth, int threads, int native,
                    int *done, int64_t *values, int64_t *best, int *best_move,
                    int64_t *helper_nodes) {
    CoreObject *core = x->core;
    *helper_nodes = 0;
    if (!core->stt) {
        core->stt = stt_new(x->max_entries);
        if (!core->stt) { PyErr_NoMemory(); return -1; }
    }
    core->smp = 1;
    Smp sh;
    memset(&sh, 0, sizeof(sh));
#ifdef __linux__
    sh.native = native;
#endif
    sh.deadline = x->deadline;
    x->smp = &sh;
    x->shared_check = smp_check;
    int helpers = depth >= SMP_MIN_DEPTH ? (threads < MAX_THREADS ? threads : MAX_THREADS) - 1 : 0;
#ifndef DVONN_THREADS
    helpers = 0;
#endif
    Helper *hs = helpers ? (Helper *)PyMem_RawCalloc((size_t)helpers, sizeof(Helper)) : NULL;
    if (!hs) helpers = 0;
    for (int k = 0; k < helpers; k++) helper_init(&hs[k], x, moves, n, depth, k + 1);
    sh.tstate = PyEval_SaveThread();
#ifdef DVONN_THREADS
    pthread_attr_t attr;
    int attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    for (int k = 0; k < helpers; k++)
        hs[k].running = pthread_create(&hs[k].thread, attr_ok ? &attr : NULL, helper_main,
                                       &hs[k]) == 0;
    if (attr_ok) pthread_attr_destroy(&attr);
#endif
    int count = root_search(x, moves, n, depth, done, values, best, best_move);
    smp_stop(&sh);
    for (int k = 0; k < helpers; k++) {
#ifdef DVONN_THREADS
        if (hs[k].running) pthread_join(hs[k].thread, NULL);
#endif
        *helper_nodes += hs[k].x.nodes;
    }
    if (!x->stop && x->use_tt) /* once the helpers are done: nothing overwrites it */
        stt_store(core->stt, zobrist(&x->pos), depth, EXACT, *best, *best_move);
    PyEval_RestoreThread(sh.tstate);
    PyMem_RawFree(hs);
    x->smp = NULL;
    x->stop = x->stop || x->error;
    return count;
}

#endif /* DVONN_SMP_H */
