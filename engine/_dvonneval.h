/* engine/_dvonneval.h: the evaluation of the compiled core (included by _dvonnboard.h only):
 * terminal_value, the features of engine/evaluate.py (MOVING_FEATURES, PLACING_FEATURES) and
 * their weights, loaded from Python by init() (engine/evalweights.py, written by
 * benchmarks/learn.py). Each function mirrors its namesake in engine/evaluate.py exactly.
 */
#ifndef DVONN_EVAL_H
#define DVONN_EVAL_H
#define NMF 11 /* len(MOVING_FEATURES) */
#define NPF 11 /* len(PLACING_FEATURES) */
/* MOVING_DEN, MOVING_FULL[NMF], MOVING_EMPTY[NMF], PLACING_DEN, PLACING_EARLY[NPF],
 * PLACING_LATE[NPF]: evaluate.WEIGHTS flattened */
#define NWEIGHTS (2 + 2 * NMF + 2 * NPF)
static int64_t W[NWEIGHTS];
#define DEN_M (W[0])
#define WM_FULL (W + 1)
#define WM_EMPTY (W + 1 + NMF)
#define DEN_P (W[1 + 2 * NMF])
#define WP_EARLY (W + 2 + 2 * NMF)
#define WP_LATE (W + 2 + 2 * NMF + NPF)

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

/* stacks[a] == stacks[b] in Python */
static int same_stack(const Pos *s, int a, int b) {
    return s->h[a] == s->h[b] && memcmp(s->p[a], s->p[b], s->h[a]) == 0;
}

/* field_values() of evaluate.py: a small cache by DVONN mask (it rarely changes) */
typedef struct {
    uint64_t red;
    int fv[NC];
    int used;
} Field;
#ifdef __GNUC__
static __thread Field FIELDS[64]; /* one cache a thread: a search may run on several */
#else
static Field FIELDS[64];
#endif

static const Field *field_values(uint64_t red) {
    Field *f = &FIELDS[(red * 0x9E3779B97F4A7C15ULL) >> 58];
    if (f->used && f->red == red) return f;
    int reds[NC], nr = 0;
    uint64_t m = red;
    while (m) { reds[nr++] = lowcell(m); m &= m - 1; }
    for (int c = 0; c < NC; c++) {
        int v = 64;
        for (int i = 0; i < nr; i++) {
            int d = DIST[c][reds[i]];
            if (d < 4) v += 64 >> (2 * d);
        }
        f->fv[c] = v;
    }
    f->red = red;
    f->used = 1;
    return f;
}

/* placing_features() of evaluate.py: white minus black */
static void placing_features(const Pos *s, int64_t *f) {
    memset(f, 0, NPF * sizeof(int64_t));
    int reds[NC], nr = 0;
    uint64_t m = s->red;
    while (m) { reds[nr++] = lowcell(m); m &= m - 1; }
    if (!nr) return;
    const int *fv = field_values(s->red)->fv;
    int edges[2] = {0, 0};
    m = s->white | s->black;
    while (m) {
        int c = lowcell(m);
        m &= m - 1;
        int sign = same_single(s, c, PW) ? 1 : -1;
        int near = 9, total = 0;
        for (int i = 0; i < nr; i++) {
            int d = DIST[c][reds[i]];
            total += d;
            if (d < near) near = d;
        }
        int foreign = 0, own = 0, empty = 0, dvonn = 0;
        for (int k = 0; k < NNEIGH[c]; k++) {
            int n = NEIGH[c][k];
            if (same_stack(s, c, n)) {
                own++;
            } else {
                foreign++;
                if (!s->h[n]) empty++;
                else if (same_single(s, n, PR)) dvonn++;
            }
        }
        f[0] += sign * total;
        if (near == 1) f[1] += sign;
        else if (near == 2) f[2] += sign;
        if (foreign < 2) f[3] += sign * (2 - foreign);
        if ((EDGE >> c) & 1) {
            edges[sign > 0 ? 0 : 1]++;
            f[5] += sign;
        }
        f[6] += sign * fv[c];
        f[7] += sign * own;
        f[8] += sign * empty;
        f[9] += sign * dvonn;
    }
    int pw = edges[1] - edges[0] - 3, pb = edges[0] - edges[1] - 3;
    f[4] = (pw > 0 ? pw : 0) - (pb > 0 ? pb : 0);
    f[10] = is_black_to_act(s) ? -1 : 1;
}

static int64_t placing_value(const Pos *s) {
    if (!s->red) return 0;
    int64_t f[NPF];
    placing_features(s, f);
    int64_t t = s->ply, u = NC - s->ply, raw = 0;
    for (int k = 0; k < NPF; k++)
        if (f[k]) raw += f[k] * (WP_LATE[k] * t + WP_EARLY[k] * u);
    int64_t value = floordiv(raw, DEN_P * NC);
    return is_black_to_act(s) ? -value : value;
}

/* moving_features() of evaluate.py: white minus black; returns whether the game is over */
static int moving_features(const Pos *s, int64_t *f) {
    int over = 1;
    uint64_t occ = s->occ, white = s->white, black = s->black, red = s->red;
    const int *fv = field_values(red)->fv;
    int64_t stack = 0, move = 0, life = 0, hit = 0, height = 0, mobile = 0, capture = 0;
    int64_t locked = 0, dangling = 0, dvonn = 0;
    for (int c = 0; c < NC; c++) {
        int h = s->h[c];
        if (!h) continue;
        int top = s->p[c][h - 1];
        if (top == PR) continue;
        int sign = top == PW ? 1 : -1;
        stack += sign * fv[c];
        height += sign * h;
        uint64_t nm = NMASK[c];
        if ((red >> c) & 1) dvonn += sign;
        else if (popc(occ & nm) == 1) dangling += sign * h;
        uint64_t reach = h <= MAXH ? TMASK[c * 11 + h] & occ : 0;
        if (!reach) {
            locked += sign * h;
            continue;
        }
        uint64_t enemy = top == PW ? black : white, rest = reach;
        int64_t moves = 0;
        while (rest) {
            moves += fv[lowcell(rest)];
            rest &= rest - 1;
        }
        move += sign * moves;
        if ((occ & nm) != nm || !((INTERIOR >> c) & 1)) { /* it can move now */
            over = 0;
            mobile += sign;
            rest = reach & (red | enemy);
            while (rest) {
                int t = lowcell(rest);
                rest &= rest - 1;
                if ((red >> t) & 1) life += sign * fv[t];
                if ((enemy >> t) & 1) {
                    hit += sign * fv[t];
                    capture += sign * s->h[t];
                }
            }
        }
    }
    f[0] = stack; f[1] = move; f[2] = life; f[3] = hit; f[4] = 64 * height;
    f[5] = 64 * mobile; f[6] = 64 * capture; f[7] = 64 * locked; f[8] = 64 * dangling;
    f[9] = 64 * dvonn; f[10] = is_black_to_act(s) ? -64 : 64;
    return over;
}

static int64_t moving_value(const Pos *s, int *over_out) {
    int64_t f[NMF];
    *over_out = moving_features(s, f);
    int64_t t = popc(s->occ), u = NC - t, raw = 0;
    for (int k = 0; k < NMF; k++)
        if (f[k]) raw += f[k] * (WM_FULL[k] * t + WM_EMPTY[k] * u);
    int64_t value = floordiv(raw, DEN_M * NC);
    return is_black_to_act(s) ? -value : value;
}

#endif /* DVONN_EVAL_H */
