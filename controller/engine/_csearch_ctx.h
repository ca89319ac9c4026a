/* Private to the C search (_csearch_search.c, _csearch_root.c): the
 * state of one searching thread.  See docs/engine-c.md. */
#ifndef CS_CTX_H
#define CS_CTX_H

#include "_csearch.h"

#define CHECK_EVERY 256
#define TT_BITS 19
enum { EXACT, LOWER, UPPER };

/* A table entry, shared by the threads without locks: w[0] is the key
 * XOR the other words, so a torn entry (two threads writing at once)
 * reads as a miss. */
typedef struct {
    uint64_t w[4];
} tt_entry;

typedef struct {
    kc_game *g;
    const cs_eval *e;
    const cs_options *o;
    tt_entry *tt;
    long long nodes, next_check, max_nodes;
    double deadline;
    volatile int *halt;      /* shared: set when the main thread is done */
    int stop, horizon, helper;
    kc_act (*moves)[KC_MAXACTS];
    kc_act killers[CS_MAX_PLY + 2][2];
    int nkillers[CS_MAX_PLY + 2];
    long long history[2][KC_MAXPTS + 1][KC_MAXPTS + 1];
    kc_act pv[CS_MAX_PLY + 2][CS_MAX_PLY + 2];
    int pvlen[CS_MAX_PLY + 2];
    uint64_t z[2][KC_MAXPTS], zside, zsetting, zfirst, zchain[KC_MAXPTS + 1];
    int has_partial, partial_score, partial_npv;
    kc_act partial_pv[CS_MAX_PLY + 2];
} ctx;

double cs_now(void);
void cs_zobrist_init(ctx *c);
uint64_t cs_key_of(const ctx *c, const kc_state *s);
int cs_same(const kc_act *a, const kc_act *b);
void cs_order(ctx *c, kc_act *m, int n, const kc_act *tt_move, int ply, int side);
int cs_play(ctx *c, const kc_act *m);
int cs_child(ctx *c, int depth, int alpha, int beta, int ply, int side);
void cs_store(ctx *c, uint64_t key, int depth, int best, int alpha0, int beta, int ply,
              const kc_act *best_move);

#endif
