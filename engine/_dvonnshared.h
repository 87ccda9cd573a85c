/* engine/_dvonnshared.h: the transposition table of a search on several threads (lazy SMP,
 * _dvonnsmp.h), included by _dvonnsearch.h only.
 *
 * Lock-free: a slot is two 64-bit words, (key ^ data, data), each written and read with one
 * atomic (relaxed) access. Two threads writing the same slot at once may leave one's key word
 * beside the other's data word; the check key ^ data == key then fails and the slot reads as
 * empty, so a torn entry is never taken for another position's (a 64-bit collision aside,
 * as with any Zobrist table; the search also only ever plays a table move that it finds among
 * the position's legal moves). Buckets of two slots: the first keeps the deeper entry of this
 * search, the second is always replaced. One search on one thread never uses this table: it
 * keeps the exact map of _dvonnsearch.h, the mirror of the Python engine.
 */
#ifndef DVONN_SHARED_H
#define DVONN_SHARED_H
#include <stdint.h>
#include <string.h>
#include <Python.h>

typedef struct {
    uint64_t keyx; /* key ^ data */
    uint64_t data; /* value (32 bits), move + 1 (16), depth (8), flag (2) and age (6) */
} Slot;

typedef struct SharedTT {
    Slot *t;
    size_t buckets; /* a power of two; a bucket is two slots */
    int age;        /* searches so far, modulo 64: older entries give way first */
} SharedTT;

#define LOAD64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* A table of at least max_entries slots (rounded up to a power of two), empty; NULL when out
 * of memory. */
static SharedTT *stt_new(size_t max_entries) {
    size_t buckets = 1;
    while (buckets * 2 < max_entries) buckets <<= 1;
    SharedTT *tt = (SharedTT *)PyMem_RawCalloc(1, sizeof(SharedTT));
    if (!tt) return NULL;
    tt->t = (Slot *)PyMem_RawCalloc(buckets * 2, sizeof(Slot));
    if (!tt->t) {
        PyMem_RawFree(tt);
        return NULL;
    }
    tt->buckets = buckets;
    return tt;
}

static void stt_free(SharedTT *tt) {
    if (!tt) return;
    PyMem_RawFree(tt->t);
    PyMem_RawFree(tt);
}

static void stt_clear(SharedTT *tt) {
    if (tt) memset(tt->t, 0, tt->buckets * 2 * sizeof(Slot));
}

static inline Slot *stt_bucket(const SharedTT *tt, uint64_t key) {
    return &tt->t[2 * (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20 & (tt->buckets - 1))];
}

/* 1 and the entry's fields when key is in the table, else 0. */
static int stt_probe(const SharedTT *tt, uint64_t key, int *depth, int *flag, int64_t *value,
                     int *move) {
    Slot *b = stt_bucket(tt, key);
    for (int i = 0; i < 2; i++) {
        uint64_t data = LOAD64(&b[i].data);
        uint64_t keyx = LOAD64(&b[i].keyx);
        if (data && (keyx ^ data) == key) {
            *value = (int32_t)(uint32_t)data;
            *move = (int)((data >> 32) & 0xFFFF) - 1;
            *depth = (int)((data >> 48) & 0xFF);
            *flag = (int)((data >> 56) & 3);
            return 1;
        }
    }
    return 0;
}

static void stt_store(SharedTT *tt, uint64_t key, int depth, int flag, int64_t value,
                      int move) {
    if (value > INT32_MAX || value < INT32_MIN || depth < 1 || depth > 255) return;
    uint64_t data = (uint64_t)(uint32_t)(int32_t)value | (uint64_t)(uint16_t)(move + 1) << 32
                    | (uint64_t)depth << 48 | (uint64_t)(flag | tt->age << 2) << 56;
    Slot *b = stt_bucket(tt, key);
    uint64_t old = LOAD64(&b[0].data);
    uint64_t old_key = LOAD64(&b[0].keyx) ^ old;
    int keep = old && old_key != key && (int)(old >> 58) == tt->age
               && (int)((old >> 48) & 0xFF) > depth;
    Slot *slot = keep ? &b[1] : &b[0];
    STORE64(&slot->data, data);
    STORE64(&slot->keyx, key ^ data);
}

#endif /* DVONN_SHARED_H */
