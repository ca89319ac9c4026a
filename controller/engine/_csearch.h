/* The engine's search in C (controller.engine._csearch): the evaluation of
 * controller/engine/evaluate.py and the search of search.py and
 * negamax.py, on the compiled rules core's game
 * (controller/rules/_ccore_rules.h).  Plain C; the Python binding is
 * _csearch.c.  See docs/engine-c.md. */
#ifndef CS_SEARCH_H
#define CS_SEARCH_H

#include <stdint.h>
#include "../rules/_ccore_rules.h"

#define CS_WIN 1000000
#define CS_INF (10 * CS_WIN)
#define CS_WON (CS_WIN - 1000)
#define CS_MAX_PLY 128
#define CS_NWEIGHTS 8
#define CS_MAX_THREADS 16

/* Weights in the order of evaluate.Weights' fields. */
enum {
    W_MOB, W_STABLE, W_HANG_THEIRS, W_HANG_OWN, W_SET_EXP_D, W_SET_EXP_A, W_SET_STABLE,
    W_SAFE_STEPS
};

typedef struct {
    kc_bb m, beyond, sides;
} cs_cap;

typedef struct {
    kc_bb nb, others;
    cs_cap caps[3];
    int ncaps;
} cs_malha;

/* evaluate.Masks plus the weights. */
typedef struct {
    int n;
    kc_bb full, not_east, not_west, edge_cols, edge_rows, centre;
    int refuge, lose_when_blocked, dwbf;
    cs_malha malha[4];
    int nmalha;
    int w[CS_NWEIGHTS];
} cs_eval;

void cs_eval_init(cs_eval *e, int n, int refuge, int lose, int dwbf, const int *w);
int cs_evaluate(const cs_eval *e, const kc_state *s);
kc_bb cs_vulnerable(const cs_eval *e, kc_bb own, kc_bb enemy, kc_bb empty);

typedef struct {
    int use_tt, selective, qdepth;
    double seconds;          /* <= 0: no deadline */
    int max_depth;
    long long max_nodes;     /* <= 0: no limit (of the main thread's nodes) */
    int threads;             /* Lazy SMP: 1 to CS_MAX_THREADS */
} cs_options;

typedef struct {
    int found, score, depth, npv;
    long long nodes;
    double seconds;
    kc_act move;
    kc_act pv[CS_MAX_PLY + 2];
} cs_result;

/* Search the game g (changed during the search, restored after).
 * The caller's game is not touched by the threads: each searches a copy.
 * Returns 0, or -1 when out of memory. */
int cs_search(kc_game *g, const cs_eval *e, const cs_options *o, cs_result *out);

#endif
