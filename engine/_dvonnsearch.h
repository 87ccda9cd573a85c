/* engine/_dvonnsearch.h: the search of the compiled core (included by _dvonncore.c only):
 * the transposition table, the searcher's tables, move ordering and the
 * negamax of Searcher._negamax / _order in engine/search.py, node for node.
 *
 * On one thread (Ctx.smp NULL) it is that exact mirror. On several (lazy SMP, _dvonnsmp.h)
 * the same negamax runs in each thread with its own position, killers and history, the
 * threads sharing the lock-free table of _dvonnshared.h instead of the exact map.
 */
#ifndef DVONN_SEARCH_H
#define DVONN_SEARCH_H
#include <Python.h>
#include "_dvonnboard.h"
#include "_dvonnshared.h"

#define LMR_DEPTH 3 /* engine/search.py LMR_DEPTH */

/* ------------------------------------------------------------------ hash maps */
typedef struct {
    uint64_t key;
    int64_t value;
    int32_t move;
    int16_t depth;
    int8_t flag;
    uint8_t used;
} Entry;

typedef struct {
    Entry *t;
    size_t cap, count;
} Map;

static inline size_t slot_of(uint64_t key, size_t cap) {
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
}

static Entry *map_find(const Map *m, uint64_t key) {
    if (!m->t) return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->t[i].used) {
        if (m->t[i].key == key) return &m->t[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static int map_grow(Map *m) {
    size_t cap = m->cap ? m->cap * 2 : 1 << 16;
    Entry *t = (Entry *)PyMem_RawCalloc(cap, sizeof(Entry));
    if (!t) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->t[i].used) continue;
        size_t j = slot_of(m->t[i].key, cap);
        while (t[j].used) j = (j + 1) & (cap - 1);
        t[j] = m->t[i];
    }
    PyMem_RawFree(m->t);
    m->t = t;
    m->cap = cap;
    return 0;
}

static void map_clear(Map *m);

/* The entry for key, created (unused fields zero) when absent; NULL when out of memory. A new
 * key in a map holding max_entries empties it first (Searcher.max_entries). */
static Entry *map_put(Map *m, uint64_t key, size_t max_entries) {
    if (m->count >= max_entries && !map_find(m, key)) map_clear(m);
    if ((m->count + 1) * 2 > m->cap && map_grow(m) < 0) return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->t[i].used) {
        if (m->t[i].key == key) return &m->t[i];
        i = (i + 1) & (m->cap - 1);
    }
    m->t[i].used = 1;
    m->t[i].key = key;
    m->count++;
    return &m->t[i];
}

static void map_clear(Map *m) {
    PyMem_RawFree(m->t);
    m->t = NULL;
    m->cap = 0;
    m->count = 0;
}

/* ------------------------------------------------------------------ the searcher's tables */
typedef struct {
    PyObject_HEAD
    Map tt;
    int64_t history[NC * NC];
    int killers[MAX_DEPTH + 2][2];
    SharedTT *stt; /* the table of searches on several threads (made by the first one) */
    int smp;       /* 1 when the last iteration ran on several threads: tt_get reads stt */
} CoreObject;

typedef struct Ctx Ctx;

struct Ctx {
    CoreObject *core;
    int64_t *history;   /* core->history, or a helper thread's own copy */
    int (*killers)[2];  /* likewise core->killers */
    void *smp;          /* NULL: one thread, the exact mirror of the Python engine */
    int (*shared_check)(Ctx *x); /* with smp: the clock and stop check of several threads */
    int helper;         /* 1 in a helper thread of a search on several threads */
    Pos pos;
    int64_t nodes, node_limit, check_at, check_every, noise;
    size_t max_entries;
    double deadline, last_check;
    PyObject *clock;
    uint64_t salt;
    int use_tt, use_pvs, use_ordering;
    int lmr;    /* late-move reductions from this move index (0: off; Searcher.lmr) */
    int lmr2, lmr2_depth; /* two plies from this index at this depth (Searcher.lmr2) */
    int null_r, null_depth, null_min_stacks, null_min_moves; /* null move (Searcher.null_r) */
    int stop;   /* the budget ran out (Python's _Stop) */
    int error;  /* a Python exception is set (clock failed, out of memory) */
};

static int check(Ctx *x) {
    if (x->nodes >= x->node_limit) return 1;
    if (x->smp) return x->shared_check(x);
    /* Ctrl-C (and any other signal handler) gets through a long search */
    if (PyErr_CheckSignals() < 0) { x->error = 1; return 1; }
    PyObject *r = PyObject_CallNoArgs(x->clock);
    if (!r) { x->error = 1; return 1; }
    double now = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (now == -1.0 && PyErr_Occurred()) { x->error = 1; return 1; }
    if (now + 2 * (now - x->last_check) >= x->deadline) return 1;
    x->last_check = now;
    int64_t next = x->nodes + x->check_every;
    x->check_at = next < x->node_limit ? next : x->node_limit;
    return 0;
}

static int64_t noise_of(const Ctx *x, uint64_t key) {
    uint64_t h = ((key ^ x->salt) * 0x9E3779B97F4A7C15ULL) & 0xFFFFFFFFFFFFULL;
    return (int64_t)(h % (uint64_t)(2 * x->noise + 1)) - x->noise;
}

typedef struct {
    int64_t key;
    int move;
} Keyed;

static void order(Ctx *x, int *moves, int n, int tt_move, int ply) {
    Pos *s = &x->pos;
    if (s->ply < PLACEMENTS) {
        if (tt_move == NONE_MOVE) return;
        for (int i = 0; i < n; i++) {
            if (moves[i] == tt_move) {
                memmove(moves + 1, moves, (size_t)i * sizeof(int));
                moves[0] = tt_move;
                return;
            }
        }
        return;
    }
    int k0 = NONE_MOVE, k1 = NONE_MOVE;
    if (ply <= MAX_DEPTH) { k0 = x->killers[ply][0]; k1 = x->killers[ply][1]; }
    uint64_t enemy = (s->ply & 1) ? s->black : s->white;
    uint64_t red = s->red;
    Keyed keyed[MAXMOVES];
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int64_t k;
        if (m == tt_move) k = 1LL << 60;
        else if (m == k0) k = 1LL << 59;
        else if (m == k1) k = 1LL << 58;
        else if (m == 0) k = 0;
        else {
            int src = (m - 64) / NC, t = (m - 64) % NC;
            k = x->history[src * NC + t];
            if ((enemy >> t) & 1) k += 1LL << 40;
            if ((red >> t) & 1) k += 1LL << 39;
        }
        keyed[i].key = k;
        keyed[i].move = m;
    }
    /* insertion sort: stable, so equal keys keep the generation order (Python's (-k, i)) */
    for (int i = 1; i < n; i++) {
        Keyed k = keyed[i];
        int j = i - 1;
        while (j >= 0 && keyed[j].key < k.key) {
            keyed[j + 1] = keyed[j];
            j--;
        }
        keyed[j + 1] = k;
    }
    for (int i = 0; i < n; i++) moves[i] = keyed[i].move;
}

/* the leaf value of a moving-phase position that is not over (a null move's test) */
static int64_t static_value(Ctx *x) {
    int over;
    int64_t value = moving_value(&x->pos, &over);
    if (x->noise) value += noise_of(x, zobrist(&x->pos));
    return value;
}

/* The table entry of key (its fields; 1) or 0: the exact map on one thread, else the shared
 * table. */
static inline int tt_probe(Ctx *x, uint64_t key, int *depth, int *flag, int64_t *value,
                           int *move) {
    if (x->smp) return stt_probe(x->core->stt, key, depth, flag, value, move);
    Entry *e = map_find(&x->core->tt, key);
    if (!e) return 0;
    *depth = e->depth;
    *flag = e->flag;
    *value = e->value;
    *move = e->move;
    return 1;
}

/* Stores an entry (replacing any of key); -1 when out of memory. */
static int tt_store(Ctx *x, uint64_t key, int depth, int flag, int64_t value, int move) {
    if (x->smp) {
        stt_store(x->core->stt, key, depth, flag, value, move);
        return 0;
    }
    Entry *e = map_put(&x->core->tt, key, x->max_entries);
    if (!e) return -1;
    e->depth = (int16_t)depth;
    e->flag = (int8_t)flag;
    e->value = value;
    e->move = move;
    return 0;
}

static int64_t negamax(Ctx *x, int depth, int64_t alpha, int64_t beta, int ply, int can_null) {
    x->nodes++;
    if (x->nodes >= x->check_at && check(x)) { x->stop = 1; return 0; }
    Pos *s = &x->pos;
    if (depth <= 0) {
        /* No table of leaf values here (Searcher.evals in Python): computing one costs less
         * than the cache miss of looking it up in a table of millions. */
        int64_t value;
        if (s->ply >= PLACEMENTS) {
            int over;
            value = moving_value(s, &over);
            if (over) value = terminal_value(s);
            else if (x->noise) value += noise_of(x, zobrist(s));
        } else {
            value = placing_value(s);
            if (x->noise) value += noise_of(x, zobrist(s));
        }
        return value;
    }
    int moves[MAXMOVES];
    int n = legal(s, moves);
    if (!n) return terminal_value(s);
    uint64_t key = zobrist(s);
    int tt_move = NONE_MOVE;
    int e_depth, e_flag;
    int64_t e_value;
    if (x->use_tt && tt_probe(x, key, &e_depth, &e_flag, &e_value, &tt_move)) {
        if (e_depth >= depth) {
            if (e_flag == EXACT) return e_value;
            if (e_flag == LOWER) {
                if (e_value >= beta) return e_value;
            } else if (e_value <= alpha) {
                return e_value;
            }
        }
    }
    Undo u;
    /* a null move, as in Searcher._negamax */
    if (x->null_r && can_null && beta - alpha == 1 && s->ply >= PLACEMENTS &&
        -WIN / 2 < alpha && alpha < WIN / 2 && depth >= x->null_depth && n > 1 &&
        n >= x->null_min_moves && popc(s->occ) >= x->null_min_stacks) {
        if (static_value(x) >= beta) {
            push(s, 0, &u);
            int64_t value = -negamax(x, depth - 1 - x->null_r, -beta, -beta + 1, ply + 1, 0);
            pop(s, &u);
            if (x->stop) return 0;
            if (value >= beta) return value >= WIN / 2 ? beta : value;
        }
    }
    if (n > 1 && x->use_ordering) order(x, moves, n, tt_move, ply);
    if (s->ply == LAST_PLACEMENT) {
        push(s, moves[0], &u);
        int64_t value = negamax(x, depth - 1, alpha, beta, ply + 1, 1);
        pop(s, &u);
        return value;
    }
    int64_t alpha0 = alpha, best = -INF;
    int best_move = NONE_MOVE;
    /* late-move reductions, as in Searcher._negamax */
    int late = (x->lmr && x->use_pvs && depth >= LMR_DEPTH && s->ply >= PLACEMENTS) ? x->lmr : n;
    int later = (x->lmr2 && depth >= x->lmr2_depth) ? (x->lmr2 > late ? x->lmr2 : late) : n;
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int64_t value;
        push(s, m, &u);
        if (i == 0 || !x->use_pvs) {
            value = -negamax(x, depth - 1, -beta, -alpha, ply + 1, 1);
        } else {
            value = i >= late ? -negamax(x, i >= later ? depth - 3 : depth - 2, -alpha - 1, -alpha,
                                         ply + 1, 1)
                              : alpha + 1;
            if (!x->stop && value > alpha) {
                value = -negamax(x, depth - 1, -alpha - 1, -alpha, ply + 1, 1);
                if (!x->stop && alpha < value && value < beta)
                    value = -negamax(x, depth - 1, -beta, -alpha, ply + 1, 1);
            }
        }
        pop(s, &u);
        if (x->stop) return 0;
        if (value > best) {
            best = value;
            best_move = m;
            if (value > alpha) {
                alpha = value;
                if (alpha >= beta) {
                    if (m >= 64) {
                        int src = (m - 64) / NC, t = (m - 64) % NC;
                        x->history[src * NC + t] += (int64_t)depth * depth;
                        if (ply <= MAX_DEPTH && x->killers[ply][0] != m) {
                            x->killers[ply][1] = x->killers[ply][0];
                            x->killers[ply][0] = m;
                        }
                    }
                    break;
                }
            }
        }
    }
    if (x->use_tt && tt_store(x, key, depth, best <= alpha0 ? UPPER : best >= beta ? LOWER : EXACT,
                              best, best_move) < 0) {
        PyErr_NoMemory();
        x->error = x->stop = 1;
        return 0;
    }
    return best;
}

/* One iteration at the root (Searcher._root): the moves in their order, PVS after the first.
 * The moves searched completely and their values go to done/values (their count is returned);
 * best and best_move get the iteration's result (meaningful when x->stop is not set). */
static int root_search(Ctx *x, const int *moves, int n, int depth, int *done, int64_t *values,
                       int64_t *best_out, int *best_move_out) {
    Pos *s = &x->pos;
    int64_t alpha = -INF, beta = INF, best = -INF;
    int best_move = moves[0], count = 0;
    Undo u;
    for (int i = 0; i < n && !x->stop; i++) {
        int m = moves[i];
        int64_t value;
        push(s, m, &u);
        if (s->ply - 1 == LAST_PLACEMENT) {
            value = negamax(x, depth - 1, alpha, beta, 1, 1);
            pop(s, &u);
            if (x->stop) break;
            best = value;
            best_move = m;
        } else {
            if (i == 0 || !x->use_pvs) {
                value = -negamax(x, depth - 1, -beta, -alpha, 1, 1);
            } else {
                value = -negamax(x, depth - 1, -alpha - 1, -alpha, 1, 1);
                if (!x->stop && value > alpha) value = -negamax(x, depth - 1, -beta, -alpha, 1, 1);
            }
            pop(s, &u);
            if (x->stop) break;
            if (value > best) {
                best = value;
                best_move = m;
                if (value > alpha) alpha = value;
            }
        }
        done[count] = m;
        values[count++] = value;
    }
    *best_out = best;
    *best_move_out = best_move;
    return count;
}

#endif /* DVONN_SEARCH_H */
