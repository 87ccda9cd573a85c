/* engine/_dvonnboard.h: the board of the compiled core (included by _dvonncore.c only):
 * tables loaded from Python, the position, make/unmake, move generation, perft and the
 * evaluation (in _dvonneval.h). Each function mirrors its namesake in engine/game.py or
 * engine/evaluate.py.
 */
#ifndef DVONN_BOARD_H
#define DVONN_BOARD_H
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

/* the evaluation (terminal_value, placing_value, moving_value): engine/_dvonneval.h */
#include "_dvonneval.h"

#endif /* DVONN_BOARD_H */
