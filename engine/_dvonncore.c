/* engine._dvonncore: the optional compiled core of the DVONN search (move generation,
 * make/unmake, perft, evaluation and the fixed-depth alpha-beta of one iteration).
 *
 * It mirrors engine/game.py, engine/evaluate.py and Searcher._root/_negamax/_order in
 * engine/search.py exactly: the same move order, the same transposition table and leaf-value
 * table semantics (exact maps keyed by the Zobrist hash, always replaced), the same killers and
 * history, the same node counting and clock checks (the injected Python clock is called at the
 * same nodes). The pure-Python engine is the reference; tests compare both on perft and on
 * fixed-depth searches. All board tables (rays, Zobrist keys, weights) come from Python via
 * init(), so both always use the same geometry and keys.
 *
 * Moves are small ints: 0 = PASS, 1 + cell = placement, 64 + source * 49 + target = step.
 * A position is (stacks: tuple of 49 str of 'w'/'b'/'r' bottom->top, ply, linked).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NC 49
#define PLACEMENTS 49
#define LAST_PLACEMENT 48
#define MAXH 10
#define MAX_DEPTH 64
#define MAXMOVES 192
#define WIN 1000000LL
#define INF (10 * WIN)
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define PW 0
#define PB 1
#define PR 2
#define NONE_MOVE (-1)

static uint64_t Z[NC * NC * 3];
static uint64_t Z_BLACK;
static int8_t TARGETS[NC * 11][6];
static uint8_t NTARGETS[NC * 11];
static uint64_t TMASK[NC * 11];
static uint64_t NMASK[NC];
static int8_t NEIGH[NC][6];
static uint8_t NNEIGH[NC];
static int8_t RING[NC][6];
static uint64_t INTERIOR, EDGE;
static uint8_t DIST[NC][NC];
/* W_STACK, W_REACH, W_REACH_LIFE, W_REACH_NEAR, W_HIT, W_CUT*64, POSITION, SCALE, MAT_EARLY,
 * MAT_LATE */
static int64_t W[10];
static int ready = 0;

typedef struct {
    uint8_t h[NC];
    uint8_t p[NC][NC];
    uint64_t occ, white, black, red, hash;
    int ply;
    int linked;
} Pos;

typedef struct {
    uint64_t occ, white, black, red, hash;
    uint8_t h[NC];
} Undo;

/* SWAR popcount: inline on any target (a builtin without -mpopcnt is a library call) */
static inline int popc(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
static inline int lowcell(uint64_t x) { return __builtin_ctzll(x); }

static inline int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static inline int is_black_to_act(const Pos *s) {
    return s->ply < PLACEMENTS ? (s->ply & 1) : !(s->ply & 1);
}

static inline uint64_t zobrist(const Pos *s) {
    return s->hash ^ (is_black_to_act(s) ? Z_BLACK : 0);
}

static uint64_t flood(uint64_t seed, uint64_t within) {
    uint64_t reached = seed & within, frontier = reached;
    while (frontier) {
        uint64_t next = 0;
        while (frontier) {
            int c = lowcell(frontier);
            frontier &= frontier - 1;
            next |= NMASK[c];
        }
        next &= within & ~reached;
        reached |= next;
        frontier = next;
    }
    return reached;
}

static int safe_to_empty(int cell, uint64_t occ) {
    int ring[6], all = 1, starts = 0;
    for (int i = 0; i < 6; i++) {
        int n = RING[cell][i];
        ring[i] = n >= 0 && ((occ >> n) & 1);
        if (!ring[i]) all = 0;
    }
    if (all) return 1;
    for (int i = 0; i < 6; i++)
        if (ring[i] && !ring[(i + 5) % 6]) starts++;
    return starts <= 1;
}

/* ------------------------------------------------------------------ make / unmake */
static void push(Pos *s, int code, Undo *u) {
    u->occ = s->occ; u->white = s->white; u->black = s->black; u->red = s->red;
    u->hash = s->hash;
    memcpy(u->h, s->h, NC);
    if (code == 0) {
        /* pass */
    } else if (code < 64) {
        int dst = code - 1;
        int piece = s->ply < 3 ? PR : (is_black_to_act(s) ? PB : PW);
        uint64_t bit = 1ULL << dst;
        s->p[dst][0] = (uint8_t)piece;
        s->h[dst] = 1;
        s->occ |= bit;
        if (piece == PW) s->white |= bit;
        else if (piece == PB) s->black |= bit;
        else s->red |= bit;
        s->hash ^= Z[dst * NC * 3 + piece];
    } else {
        int src = (code - 64) / NC, dst = (code - 64) % NC;
        int hs = s->h[src], hb = s->h[dst];
        uint64_t hash = s->hash;
        for (int i = 0; i < hs; i++) {
            int piece = s->p[src][i];
            hash ^= Z[(src * NC + i) * 3 + piece] ^ Z[(dst * NC + hb + i) * 3 + piece];
            s->p[dst][hb + i] = (uint8_t)piece;
        }
        s->h[dst] = (uint8_t)(hb + hs);
        s->h[src] = 0;
        uint64_t sbit = 1ULL << src, dbit = 1ULL << dst;
        uint64_t occ = s->occ & ~sbit;
        uint64_t white = s->white & ~sbit & ~dbit, black = s->black & ~sbit & ~dbit;
        if (s->p[src][hs - 1] == PW) white |= dbit;
        else black |= dbit;
        uint64_t red = s->red;
        uint64_t carries = red & sbit;
        if (carries) red = (red & ~sbit) | dbit;
        uint64_t alive;
        if (s->linked && !carries && safe_to_empty(src, occ)) alive = occ;
        else alive = flood(red, occ);
        uint64_t dead = occ & ~alive;
        while (dead) {
            int c = lowcell(dead);
            dead &= dead - 1;
            for (int i = 0; i < s->h[c]; i++) hash ^= Z[(c * NC + i) * 3 + s->p[c][i]];
            s->h[c] = 0;
        }
        occ &= alive;
        white &= alive;
        black &= alive;
        s->occ = occ; s->white = white; s->black = black; s->red = red; s->hash = hash;
    }
    s->ply++;
}

static void pop(Pos *s, const Undo *u) {
    s->occ = u->occ; s->white = u->white; s->black = u->black; s->red = u->red;
    s->hash = u->hash;
    memcpy(s->h, u->h, NC);
    s->ply--;
}

/* ------------------------------------------------------------------ move generation */
static int steps(const Pos *s, uint64_t side, int first_only, int *out) {
    int n = 0;
    uint64_t occ = s->occ;
    while (side) {
        int c = lowcell(side);
        side &= side - 1;
        int h = s->h[c];
        if (h > MAXH) continue;
        uint64_t nm = NMASK[c];
        if (((INTERIOR >> c) & 1) && (occ & nm) == nm) continue;
        int idx = c * 11 + h;
        for (int k = 0; k < NTARGETS[idx]; k++) {
            int t = TARGETS[idx][k];
            if ((occ >> t) & 1) {
                if (out) out[n] = 64 + c * NC + t;
                n++;
                if (first_only) return n;
            }
        }
    }
    return n;
}

static int legal(const Pos *s, int *out) {
    if (s->ply < PLACEMENTS) {
        int n = 0;
        uint64_t empty = ((1ULL << NC) - 1) & ~s->occ;
        while (empty) {
            out[n++] = 1 + lowcell(empty);
            empty &= empty - 1;
        }
        return n;
    }
    uint64_t mine, theirs;
    if (s->ply & 1) { mine = s->white; theirs = s->black; }
    else { mine = s->black; theirs = s->white; }
    int n = steps(s, mine, 0, out);
    if (n) return n;
    if (steps(s, theirs, 1, NULL)) {
        out[0] = 0;
        return 1;
    }
    return 0;
}

static int64_t perft(Pos *s, int depth) {
    if (depth == 0) return 1;
    int moves[MAXMOVES];
    int n = legal(s, moves);
    if (!n) return 1;
    if (depth == 1) return n;
    int64_t total = 0;
    Undo u;
    for (int i = 0; i < n; i++) {
        push(s, moves[i], &u);
        total += perft(s, depth - 1);
        pop(s, &u);
    }
    return total;
}

/* ------------------------------------------------------------------ evaluation */
static int64_t terminal_value(const Pos *s) {
    int64_t w = 0, b = 0;
    uint64_t m = s->white;
    while (m) { w += s->h[lowcell(m)]; m &= m - 1; }
    m = s->black;
    while (m) { b += s->h[lowcell(m)]; m &= m - 1; }
    int64_t diff = is_black_to_act(s) ? b - w : w - b;
    if (diff > 0) return WIN + 100 * diff;
    if (diff < 0) return -WIN + 100 * diff;
    return 0;
}

static int same_single(const Pos *s, int c, int piece) {
    return s->h[c] == 1 && s->p[c][0] == piece;
}

static int64_t placing_value(const Pos *s) {
    int reds[NC], nr = 0;
    uint64_t m = s->red;
    while (m) { reds[nr++] = lowcell(m); m &= m - 1; }
    if (!nr) return 0;
    int64_t score[2] = {0, 0};
    int edges[2] = {0, 0};
    m = s->white | s->black;
    while (m) {
        int c = lowcell(m);
        m &= m - 1;
        int side = same_single(s, c, PW) ? 0 : 1;
        int piece = s->p[c][s->h[c] - 1];
        int near = 9, total = 0;
        for (int i = 0; i < nr; i++) {
            int d = DIST[c][reds[i]];
            total += d;
            if (d < near) near = d;
        }
        int64_t v = -(int64_t)total * 10;
        if (near == 1) v += 100;
        else if (near == 2) v += 50;
        if ((EDGE >> c) & 1) edges[side]++;
        int foreign = 0;
        for (int k = 0; k < NNEIGH[c]; k++) {
            int n = NEIGH[c][k];
            /* stacks[n] != stacks[c]: in the placing phase every stack is one piece */
            if (!(s->h[c] == 1 && same_single(s, n, piece))) foreign++;
        }
        if (foreign < 2) v -= 50 * (2 - foreign);
        score[side] += v;
    }
    if (edges[1] - edges[0] > 3) score[0] -= 10 * (edges[1] - edges[0] - 3);
    if (edges[0] - edges[1] > 3) score[1] -= 10 * (edges[0] - edges[1] - 3);
    int64_t value = floordiv(score[0] - score[1], 4);
    return is_black_to_act(s) ? -value : value;
}

/* field_values() of evaluate.py: a small cache by DVONN mask (it rarely changes) */
typedef struct {
    uint64_t red;
    uint64_t ring1;
    int fv[NC];
    int used;
} Field;
static Field FIELDS[64];

static const Field *field_values(uint64_t red) {
    Field *f = &FIELDS[(red * 0x9E3779B97F4A7C15ULL) >> 58];
    if (f->used && f->red == red) return f;
    int reds[NC], nr = 0;
    uint64_t m = red;
    while (m) { reds[nr++] = lowcell(m); m &= m - 1; }
    f->ring1 = 0;
    for (int c = 0; c < NC; c++) {
        int v = 64, near = 4;
        for (int i = 0; i < nr; i++) {
            int d = DIST[c][reds[i]];
            if (d < 4) v += 64 >> (2 * d);
            if (d < near) near = d;
        }
        if (near == 1) f->ring1 |= 1ULL << c;
        f->fv[c] = v;
    }
    f->red = red;
    f->used = 1;
    return f;
}

static int64_t moving_value(const Pos *s, int *over_out) {
    int over = 1;
    uint64_t occ = s->occ, white = s->white, black = s->black, red = s->red;
    const Field *field = field_values(red);
    const int *fv = field->fv;
    uint64_t ring1 = field->ring1;
    int64_t raw = 0, material = 0;
    for (int c = 0; c < NC; c++) {
        int h = s->h[c];
        if (!h) continue;
        int top = s->p[c][h - 1];
        if (top == PR) continue;
        uint64_t enemy = top == PW ? black : white;
        int64_t v = W[0] * fv[c];
        uint64_t nm = NMASK[c];
        uint64_t links = occ & nm;
        if (h <= MAXH && (links != nm || !((INTERIOR >> c) & 1))) {
            uint64_t reach = TMASK[c * 11 + h] & occ;
            if (reach) {
                over = 0;
                v += W[1] * popc(reach) + W[2] * popc(reach & red) + W[3] * popc(reach & ring1)
                     + W[4] * popc(reach & enemy);
            }
        }
        if ((links & enemy) && !(links & (links - 1)) && !((red >> c) & 1)) v -= W[5] * h;
        if (top == PW) { raw += v; material += h; }
        else { raw -= v; material -= h; }
    }
    int64_t raw_material = 0;
    if (W[8] || W[9]) {
        int64_t empty = NC - popc(occ);
        raw_material = material * (W[8] + floordiv((W[9] - W[8]) * empty, NC));
    }
    int64_t value = floordiv(raw * W[6], W[7]) + raw_material;
    *over_out = over;
    return is_black_to_act(s) ? -value : value;
}

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

/* The entry for key, created (unused fields zero) when absent; NULL when out of memory. */
static Entry *map_put(Map *m, uint64_t key) {
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
    Map evals;
    int64_t history[NC * NC];
    int killers[MAX_DEPTH + 2][2];
} CoreObject;

typedef struct {
    CoreObject *core;
    Pos pos;
    int64_t nodes, node_limit, check_at, check_every, noise;
    double deadline, last_check;
    PyObject *clock;
    uint64_t salt;
    int use_tt, use_pvs, use_ordering;
    int stop;   /* the budget ran out (Python's _Stop) */
    int error;  /* a Python exception is set (clock failed, out of memory) */
} Ctx;

static int check(Ctx *x) {
    if (x->nodes >= x->node_limit) return 1;
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
    if (ply <= MAX_DEPTH) { k0 = x->core->killers[ply][0]; k1 = x->core->killers[ply][1]; }
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
            k = x->core->history[src * NC + t];
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

static int64_t negamax(Ctx *x, int depth, int64_t alpha, int64_t beta, int ply) {
    x->nodes++;
    if (x->nodes >= x->check_at && check(x)) { x->stop = 1; return 0; }
    Pos *s = &x->pos;
    CoreObject *core = x->core;
    if (depth <= 0) {
        uint64_t key = zobrist(s);
        Entry *e = map_find(&core->evals, key);
        if (e) return e->value;
        int64_t value;
        if (s->ply >= PLACEMENTS) {
            int over;
            value = moving_value(s, &over);
            if (over) value = terminal_value(s);
            else if (x->noise) value += noise_of(x, key);
        } else {
            value = placing_value(s);
            if (x->noise) value += noise_of(x, key);
        }
        e = map_put(&core->evals, key);
        if (!e) { PyErr_NoMemory(); x->error = x->stop = 1; return 0; }
        e->value = value;
        return value;
    }
    int moves[MAXMOVES];
    int n = legal(s, moves);
    if (!n) return terminal_value(s);
    uint64_t key = zobrist(s);
    int tt_move = NONE_MOVE;
    if (x->use_tt) {
        Entry *e = map_find(&core->tt, key);
        if (e) {
            tt_move = e->move;
            if (e->depth >= depth) {
                if (e->flag == EXACT) return e->value;
                if (e->flag == LOWER) {
                    if (e->value >= beta) return e->value;
                } else if (e->value <= alpha) {
                    return e->value;
                }
            }
        }
    }
    if (n > 1 && x->use_ordering) order(x, moves, n, tt_move, ply);
    Undo u;
    if (s->ply == LAST_PLACEMENT) {
        push(s, moves[0], &u);
        int64_t value = negamax(x, depth - 1, alpha, beta, ply + 1);
        pop(s, &u);
        return value;
    }
    int64_t alpha0 = alpha, best = -INF;
    int best_move = NONE_MOVE;
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int64_t value;
        push(s, m, &u);
        if (i == 0 || !x->use_pvs) {
            value = -negamax(x, depth - 1, -beta, -alpha, ply + 1);
        } else {
            value = -negamax(x, depth - 1, -alpha - 1, -alpha, ply + 1);
            if (!x->stop && alpha < value && value < beta)
                value = -negamax(x, depth - 1, -beta, -alpha, ply + 1);
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
                        core->history[src * NC + t] += (int64_t)depth * depth;
                        if (ply <= MAX_DEPTH && core->killers[ply][0] != m) {
                            core->killers[ply][1] = core->killers[ply][0];
                            core->killers[ply][0] = m;
                        }
                    }
                    break;
                }
            }
        }
    }
    if (x->use_tt) {
        Entry *e = map_put(&core->tt, key);
        if (!e) { PyErr_NoMemory(); x->error = x->stop = 1; return 0; }
        e->depth = (int16_t)depth;
        e->flag = (int8_t)(best <= alpha0 ? UPPER : best >= beta ? LOWER : EXACT);
        e->value = best;
        e->move = best_move;
    }
    return best;
}

/* ------------------------------------------------------------------ Python glue */
static int parse_pos(PyObject *obj, Pos *s) {
    if (!ready) {
        PyErr_SetString(PyExc_RuntimeError, "engine._dvonncore.init() was not called");
        return -1;
    }
    PyObject *stacks;
    int ply, linked;
    if (!PyArg_ParseTuple(obj, "Oip", &stacks, &ply, &linked)) return -1;
    PyObject *seq = PySequence_Fast(stacks, "stacks must be a sequence of 49 str");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != NC) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "stacks must be a sequence of 49 str");
        return -1;
    }
    memset(s, 0, sizeof(Pos));
    for (int c = 0; c < NC; c++) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(seq, c), &len);
        if (!text) { Py_DECREF(seq); return -1; }
        if (len > NC) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "stack %d is taller than 49 pieces", c);
            return -1;
        }
        uint64_t bit = 1ULL << c;
        for (Py_ssize_t i = 0; i < len; i++) {
            int piece = text[i] == 'w' ? PW : text[i] == 'b' ? PB : text[i] == 'r' ? PR : -1;
            if (piece < 0) {
                Py_DECREF(seq);
                PyErr_Format(PyExc_ValueError, "stack %d holds %R: use w, b, r", c,
                             PySequence_Fast_GET_ITEM(seq, c));
                return -1;
            }
            s->p[c][i] = (uint8_t)piece;
            s->hash ^= Z[(c * NC + i) * 3 + piece];
            if (piece == PR) s->red |= bit;
        }
        s->h[c] = (uint8_t)len;
        if (len) {
            s->occ |= bit;
            if (s->p[c][len - 1] == PW) s->white |= bit;
            else if (s->p[c][len - 1] == PB) s->black |= bit;
        }
    }
    Py_DECREF(seq);
    s->ply = ply;
    s->linked = linked;
    return 0;
}

static int load_u64_seq(PyObject *obj, uint64_t *out, Py_ssize_t n, const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd items", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == (uint64_t)-1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
    }
    Py_DECREF(seq);
    return 0;
}

/* A sequence of n sequences of small ints (at most width each) into rows/lengths. */
static int load_rows(PyObject *obj, int8_t *rows, uint8_t *lens, Py_ssize_t n, int width,
                     const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd rows", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), what);
        if (!row) { Py_DECREF(seq); return -1; }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(row);
        if (len > width) {
            Py_DECREF(row); Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s: row %zd is too long", what, i);
            return -1;
        }
        for (Py_ssize_t k = 0; k < len; k++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, k));
            if (v == -1 && PyErr_Occurred()) { Py_DECREF(row); Py_DECREF(seq); return -1; }
            rows[i * width + k] = (int8_t)v;
        }
        if (lens) lens[i] = (uint8_t)len;
        Py_DECREF(row);
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *core_init(PyObject *self, PyObject *args) {
    PyObject *z, *targets, *tmasks, *neigh, *nmasks, *ring, *dist, *weights;
    unsigned long long zb, interior, edge;
    if (!PyArg_ParseTuple(args, "OKOOOOOKKOO", &z, &zb, &targets, &tmasks, &neigh, &nmasks,
                          &ring, &interior, &edge, &dist, &weights))
        return NULL;
    uint64_t tmp[NC * NC];
    if (load_u64_seq(z, Z, NC * NC * 3, "zobrist keys") < 0) return NULL;
    if (load_rows(targets, &TARGETS[0][0], NTARGETS, NC * 11, 6, "targets") < 0) return NULL;
    if (load_u64_seq(tmasks, TMASK, NC * 11, "target masks") < 0) return NULL;
    if (load_rows(neigh, &NEIGH[0][0], NNEIGH, NC, 6, "neighbours") < 0) return NULL;
    if (load_u64_seq(nmasks, NMASK, NC, "neighbour masks") < 0) return NULL;
    memset(RING, -1, sizeof(RING));
    memset(FIELDS, 0, sizeof(FIELDS));
    if (load_rows(ring, &RING[0][0], NULL, NC, 6, "ring") < 0) return NULL;
    if (load_u64_seq(dist, tmp, NC * NC, "distances") < 0) return NULL;
    for (int i = 0; i < NC * NC; i++) DIST[i / NC][i % NC] = (uint8_t)tmp[i];
    PyObject *seq = PySequence_Fast(weights, "weights");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != 10) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights: expected 10 ints");
        return NULL;
    }
    for (int i = 0; i < 10; i++) {
        W[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (W[i] == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
    }
    Py_DECREF(seq);
    if (W[7] <= 0) {
        PyErr_SetString(PyExc_ValueError, "weights: SCALE must be > 0");
        return NULL;
    }
    Z_BLACK = zb;
    INTERIOR = interior;
    EDGE = edge;
    ready = 1;
    Py_RETURN_NONE;
}

static PyObject *py_perft(PyObject *self, PyObject *args) {
    PyObject *pos;
    int depth;
    if (!PyArg_ParseTuple(args, "Oi", &pos, &depth)) return NULL;
    if (depth < 0) return PyErr_Format(PyExc_ValueError, "perft depth must be >= 0, got %d",
                                       depth);
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    int64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = perft(&s, depth);
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong(n);
}

static PyObject *py_legal(PyObject *self, PyObject *pos) {
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    int moves[MAXMOVES];
    int n = legal(&s, moves);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(moves[i]));
    return out;
}

static PyObject *py_evaluate(PyObject *self, PyObject *pos) {
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    int over = 0;
    int64_t v = s.ply < PLACEMENTS ? placing_value(&s) : moving_value(&s, &over);
    return Py_BuildValue("(LO)", (long long)v, over ? Py_True : Py_False);
}

static PyObject *py_terminal(PyObject *self, PyObject *pos) {
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    return PyLong_FromLongLong(terminal_value(&s));
}

static PyObject *py_zobrist(PyObject *self, PyObject *pos) {
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(zobrist(&s));
}

/* play(pos, moves) -> (stacks after the moves, zobrist): a check of make/unmake */
static PyObject *py_play(PyObject *self, PyObject *args) {
    PyObject *pos, *moves;
    if (!PyArg_ParseTuple(args, "OO", &pos, &moves)) return NULL;
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence of int");
    if (!seq) return NULL;
    Undo u;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (code == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
        int buf[MAXMOVES];
        int n = legal(&s, buf), ok = 0;
        for (int k = 0; k < n; k++) ok |= buf[k] == code;
        if (!ok) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError, "move code %ld is not legal", code);
        }
        push(&s, (int)code, &u);
    }
    Py_DECREF(seq);
    PyObject *stacks = PyTuple_New(NC);
    if (!stacks) return NULL;
    for (int c = 0; c < NC; c++) {
        char text[NC + 1];
        for (int i = 0; i < s.h[c]; i++) text[i] = "wbr"[s.p[c][i]];
        PyObject *str = PyUnicode_FromStringAndSize(text, s.h[c]);
        if (!str) { Py_DECREF(stacks); return NULL; }
        PyTuple_SET_ITEM(stacks, c, str);
    }
    return Py_BuildValue("(NK)", stacks, (unsigned long long)zobrist(&s));
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    CoreObject *self = (CoreObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    memset(&self->tt, 0, sizeof(Map));
    memset(&self->evals, 0, sizeof(Map));
    memset(self->history, 0, sizeof(self->history));
    for (int i = 0; i < MAX_DEPTH + 2; i++) self->killers[i][0] = self->killers[i][1] = NONE_MOVE;
    return (PyObject *)self;
}

static void Core_dealloc(CoreObject *self) {
    map_clear(&self->tt);
    map_clear(&self->evals);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Core_reset(CoreObject *self, PyObject *unused) {
    map_clear(&self->tt);
    map_clear(&self->evals);
    memset(self->history, 0, sizeof(self->history));
    Py_RETURN_NONE;
}

static PyObject *Core_clear_tt(CoreObject *self, PyObject *unused) {
    map_clear(&self->tt);
    Py_RETURN_NONE;
}

static PyObject *Core_clear_evals(CoreObject *self, PyObject *unused) {
    map_clear(&self->evals);
    Py_RETURN_NONE;
}

static PyObject *Core_sizes(CoreObject *self, PyObject *unused) {
    return Py_BuildValue("(nn)", (Py_ssize_t)self->tt.count, (Py_ssize_t)self->evals.count);
}

static PyObject *Core_new_search(CoreObject *self, PyObject *unused) {
    for (int i = 0; i < MAX_DEPTH + 2; i++) self->killers[i][0] = self->killers[i][1] = NONE_MOVE;
    for (int i = 0; i < NC * NC; i++) self->history[i] >>= 2;
    Py_RETURN_NONE;
}

static PyObject *Core_tt_get(CoreObject *self, PyObject *arg) {
    uint64_t key = PyLong_AsUnsignedLongLong(arg);
    if (key == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    Entry *e = map_find(&self->tt, key);
    if (!e) Py_RETURN_NONE;
    return Py_BuildValue("(iiLi)", (int)e->depth, (int)e->flag, (long long)e->value, e->move);
}

static PyObject *Core_history(CoreObject *self, PyObject *unused) {
    PyObject *out = PyList_New(NC * NC);
    if (!out) return NULL;
    for (int i = 0; i < NC * NC; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(self->history[i]));
    return out;
}

/* root(pos, moves, depth, (node_limit, check_at, check_every, deadline, last_check, clock,
 *      use_tt, use_pvs, use_ordering, noise, salt), nodes)
 * -> (stopped, best, best_move, [(move, value), ...], nodes, check_at, last_check)
 * One iteration of Searcher._root. */
static PyObject *Core_root(CoreObject *self, PyObject *args) {
    PyObject *pos, *moves_obj, *params;
    int depth;
    long long nodes;
    if (!PyArg_ParseTuple(args, "OOiOL", &pos, &moves_obj, &depth, &params, &nodes)) return NULL;
    Ctx x;
    memset(&x, 0, sizeof(Ctx));
    long long node_limit, check_at, check_every, noise;
    unsigned long long salt;
    int use_tt, use_pvs, use_ordering;
    if (!PyArg_ParseTuple(params, "LLLddOpppLK", &node_limit, &check_at, &check_every,
                          &x.deadline, &x.last_check, &x.clock, &use_tt, &use_pvs,
                          &use_ordering, &noise, &salt))
        return NULL;
    if (parse_pos(pos, &x.pos) < 0) return NULL;
    x.core = self;
    x.nodes = nodes;
    x.node_limit = node_limit;
    x.check_at = check_at;
    x.check_every = check_every;
    x.noise = noise;
    x.salt = salt;
    x.use_tt = use_tt;
    x.use_pvs = use_pvs;
    x.use_ordering = use_ordering;
    PyObject *seq = PySequence_Fast(moves_obj, "moves must be a sequence of int");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > MAXMOVES) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "root needs 1..192 moves");
        return NULL;
    }
    int moves[MAXMOVES];
    for (Py_ssize_t i = 0; i < n; i++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (code == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
        moves[i] = (int)code;
    }
    Py_DECREF(seq);
    PyObject *scored = PyList_New(0);
    if (!scored) return NULL;
    Pos *s = &x.pos;
    uint64_t root_key = zobrist(s);
    int64_t alpha = -INF, beta = INF, best = -INF;
    int best_move = moves[0];
    Undo u;
    for (Py_ssize_t i = 0; i < n && !x.stop; i++) {
        int m = moves[i];
        int64_t value;
        push(s, m, &u);
        if (s->ply - 1 == LAST_PLACEMENT) {
            value = negamax(&x, depth - 1, alpha, beta, 1);
            pop(s, &u);
            if (x.stop) break;
            best = value;
            best_move = m;
        } else {
            if (i == 0 || !x.use_pvs) {
                value = -negamax(&x, depth - 1, -beta, -alpha, 1);
            } else {
                value = -negamax(&x, depth - 1, -alpha - 1, -alpha, 1);
                if (!x.stop && value > alpha) value = -negamax(&x, depth - 1, -beta, -alpha, 1);
            }
            pop(s, &u);
            if (x.stop) break;
            if (value > best) {
                best = value;
                best_move = m;
                if (value > alpha) alpha = value;
            }
        }
        PyObject *item = Py_BuildValue("(iL)", m, (long long)value);
        if (!item || PyList_Append(scored, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(scored);
            return NULL;
        }
        Py_DECREF(item);
    }
    if (x.error) {
        Py_DECREF(scored);
        return NULL;
    }
    if (!x.stop && x.use_tt) {
        Entry *e = map_put(&self->tt, root_key);
        if (!e) { Py_DECREF(scored); return PyErr_NoMemory(); }
        e->depth = (int16_t)depth;
        e->flag = EXACT;
        e->value = best;
        e->move = best_move;
    }
    return Py_BuildValue("(OLiNLLd)", x.stop ? Py_True : Py_False, (long long)best, best_move,
                         scored, (long long)x.nodes, (long long)x.check_at, x.last_check);
}

static PyMethodDef Core_methods[] = {
    {"reset", (PyCFunction)Core_reset, METH_NOARGS, "Forget the tables and the history."},
    {"clear_tt", (PyCFunction)Core_clear_tt, METH_NOARGS, "Empty the transposition table."},
    {"clear_evals", (PyCFunction)Core_clear_evals, METH_NOARGS, "Empty the leaf values."},
    {"sizes", (PyCFunction)Core_sizes, METH_NOARGS, "(TT entries, leaf values)."},
    {"new_search", (PyCFunction)Core_new_search, METH_NOARGS,
     "Clear the killers and age the history (a search starts)."},
    {"tt_get", (PyCFunction)Core_tt_get, METH_O, "(depth, flag, value, move) or None."},
    {"history", (PyCFunction)Core_history, METH_NOARGS, "The history table as a list."},
    {"root", (PyCFunction)Core_root, METH_VARARGS, "One fixed-depth root iteration."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "engine._dvonncore.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The tables of one Searcher (TT, leaf values, history, killers).",
    .tp_new = Core_new,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
};

static PyMethodDef module_methods[] = {
    {"init", core_init, METH_VARARGS, "Load the board tables, Zobrist keys and weights."},
    {"perft", py_perft, METH_VARARGS, "perft(pos, depth): leaves of the game tree."},
    {"legal_moves", py_legal, METH_O, "Legal move codes of a position, in engine order."},
    {"evaluate", py_evaluate, METH_O, "(static value, game over) for the side to act."},
    {"terminal_value", py_terminal, METH_O, "Exact value of a finished game."},
    {"zobrist", py_zobrist, METH_O, "The Zobrist hash of a position (side to act included)."},
    {"play", py_play, METH_VARARGS, "(stacks, zobrist) after legal move codes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "engine._dvonncore",
    "The optional compiled core of the DVONN search (see engine/accel.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__dvonncore(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
