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
#include "_dvonnboard.h"
#include "_dvonnsearch.h"
#include "_dvonnsmp.h"

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
    if (PySequence_Fast_GET_SIZE(seq) != NWEIGHTS) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "weights: expected %d ints", NWEIGHTS);
        return NULL;
    }
    for (int i = 0; i < NWEIGHTS; i++) {
        W[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (W[i] == -1 && PyErr_Occurred()) { Py_DECREF(seq); return NULL; }
    }
    Py_DECREF(seq);
    if (DEN_M <= 0 || DEN_P <= 0) {
        PyErr_SetString(PyExc_ValueError, "weights: MOVING_DEN and PLACING_DEN must be > 0");
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

/* evaluate.placing_features / moving_features: (features, game over) */
static PyObject *py_features(PyObject *self, PyObject *pos) {
    Pos s;
    if (parse_pos(pos, &s) < 0) return NULL;
    int64_t f[NMF > NPF ? NMF : NPF];
    int over = 0, n = NPF;
    if (s.ply < PLACEMENTS) placing_features(&s, f);
    else { over = moving_features(&s, f); n = NMF; }
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(f[i]));
    return Py_BuildValue("(NO)", out, over ? Py_True : Py_False);
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
    self->stt = NULL;
    self->smp = 0;
    memset(self->history, 0, sizeof(self->history));
    for (int i = 0; i < MAX_DEPTH + 2; i++) self->killers[i][0] = self->killers[i][1] = NONE_MOVE;
    return (PyObject *)self;
}

static void Core_dealloc(CoreObject *self) {
    map_clear(&self->tt);
    stt_free(self->stt);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Core_reset(CoreObject *self, PyObject *unused) {
    map_clear(&self->tt);
    stt_clear(self->stt);
    memset(self->history, 0, sizeof(self->history));
    Py_RETURN_NONE;
}

static PyObject *Core_clear_tt(CoreObject *self, PyObject *unused) {
    map_clear(&self->tt);
    Py_RETURN_NONE;
}

static PyObject *Core_tt_len(CoreObject *self, PyObject *unused) {
    return PyLong_FromSsize_t((Py_ssize_t)self->tt.count);
}

static PyObject *Core_new_search(CoreObject *self, PyObject *unused) {
    for (int i = 0; i < MAX_DEPTH + 2; i++) self->killers[i][0] = self->killers[i][1] = NONE_MOVE;
    for (int i = 0; i < NC * NC; i++) self->history[i] >>= 2;
    if (self->stt) self->stt->age = (self->stt->age + 1) & 63;
    Py_RETURN_NONE;
}

static PyObject *Core_tt_get(CoreObject *self, PyObject *arg) {
    uint64_t key = PyLong_AsUnsignedLongLong(arg);
    if (key == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (self->smp) {
        int depth, flag, move;
        int64_t value;
        if (!stt_probe(self->stt, key, &depth, &flag, &value, &move)) Py_RETURN_NONE;
        return Py_BuildValue("(iiLi)", depth, flag, (long long)value, move);
    }
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
 *      use_tt, use_pvs, use_ordering, noise, salt, max_entries, lmr, lmr2, lmr2_depth,
 *      null_r, null_depth, null_min_stacks, null_min_moves), nodes, threads=1,
 *      native_clock=False)
 * -> (stopped, best, best_move, [(move, value), ...], nodes, check_at, last_check,
 *     helper_nodes)
 * One iteration of Searcher._root; on threads > 1 lazy SMP (_dvonnsmp.h), native_clock
 * saying the clock is time.monotonic. */
static PyObject *Core_root(CoreObject *self, PyObject *args) {
    PyObject *pos, *moves_obj, *params;
    int depth, threads = 1, native = 0;
    long long nodes;
    if (!PyArg_ParseTuple(args, "OOiOL|ip", &pos, &moves_obj, &depth, &params, &nodes,
                          &threads, &native))
        return NULL;
    if (threads < 1) return PyErr_Format(PyExc_ValueError, "threads must be >= 1, got %d",
                                         threads);
    Ctx x;
    memset(&x, 0, sizeof(Ctx));
    long long node_limit, check_at, check_every, noise, max_entries;
    unsigned long long salt;
    int use_tt, use_pvs, use_ordering, lmr, lmr2, lmr2_depth;
    if (!PyArg_ParseTuple(params, "LLLddOpppLKLiiiiiii", &node_limit, &check_at, &check_every,
                          &x.deadline, &x.last_check, &x.clock, &use_tt, &use_pvs,
                          &use_ordering, &noise, &salt, &max_entries, &lmr, &lmr2,
                          &lmr2_depth, &x.null_r,
                          &x.null_depth, &x.null_min_stacks, &x.null_min_moves))
        return NULL;
    x.lmr = lmr < 0 ? 0 : lmr;
    x.lmr2 = lmr2 < 0 ? 0 : lmr2;
    x.lmr2_depth = lmr2_depth;
    if (max_entries < 1) {
        PyErr_SetString(PyExc_ValueError, "max_entries must be >= 1");
        return NULL;
    }
    x.max_entries = (size_t)max_entries;
    if (parse_pos(pos, &x.pos) < 0) return NULL;
    x.core = self;
    x.history = self->history;
    x.killers = self->killers;
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
    int done[MAXMOVES], best_move, count;
    int64_t values[MAXMOVES], best, helper_nodes = 0;
    if (threads > 1) {
        count = smp_root(&x, moves, (int)n, depth, threads, native, done, values, &best,
                         &best_move, &helper_nodes);
        if (count < 0) return NULL;
    } else {
        self->smp = 0;
        count = root_search(&x, moves, (int)n, depth, done, values, &best, &best_move);
    }
    if (x.error) return NULL;
    if (threads == 1 && !x.stop && x.use_tt
        && tt_store(&x, zobrist(&x.pos), depth, EXACT, best, best_move) < 0)
        return PyErr_NoMemory();
    PyObject *scored = PyList_New(count);
    if (!scored) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *item = Py_BuildValue("(iL)", done[i], (long long)values[i]);
        if (!item) { Py_DECREF(scored); return NULL; }
        PyList_SET_ITEM(scored, i, item);
    }
    return Py_BuildValue("(OLiNLLdL)", x.stop ? Py_True : Py_False, (long long)best, best_move,
                         scored, (long long)x.nodes, (long long)x.check_at, x.last_check,
                         (long long)helper_nodes);
}

static PyMethodDef Core_methods[] = {
    {"reset", (PyCFunction)Core_reset, METH_NOARGS, "Forget the tables and the history."},
    {"clear_tt", (PyCFunction)Core_clear_tt, METH_NOARGS, "Empty the transposition table."},
    {"tt_len", (PyCFunction)Core_tt_len, METH_NOARGS, "The transposition table's entries."},
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
    {"features", py_features, METH_O, "(evaluation features, game over) for the position."},
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
