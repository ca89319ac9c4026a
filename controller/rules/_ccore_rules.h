/* The compiled rules core of the Kharbga family (square boards up to 8x8):
 * the same state, move order, make/unmake and flow of turns as the
 * pure-Python core (controller/rules/core.py), on 64-bit bitboards with
 * no allocation on the inner path.  Plain C: the Python binding is
 * _ccore.c.  See docs/core.md. */
#ifndef KC_RULES_H
#define KC_RULES_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t kc_bb;

#define KC_MAXPTS 64
#define KC_MAXACTS 400
#define KC_MAXREM 8

/* Action kinds (the raw tuple's first field). */
enum { K_STEP = 0, K_PLACE = 1, K_PASS = 2, K_REMOVE = 3, K_OTHER = 4 };
/* Variant options. */
enum { SR_OPEN_FIRST = 0, SR_FIRST_ADJ = 1, SR_FREE = 2 };
enum { BL_LOSE = 0, BL_MOVE_AGAIN = 1, BL_REOPEN = 2, BL_REMOVE = 3 };
/* Termination reasons, in the order of controller.rules.moves.Termination. */
enum {
    T_ALL_CAPTURED = 0, T_BLOCKED, T_BLOCKED_FIRST_TURN, T_NO_PROGRESS,
    T_REPETITION, T_BARRIER, T_TURN_LIMIT, T_RESIGNATION, T_AGREEMENT,
    T_COUNT
};

typedef struct {
    kc_bb caps;
    int8_t kind, frm, to, flag;
} kc_act;

/* Everything that decides a position (the fields of state.State). */
typedef struct {
    kc_bb bb[2];
    int32_t turn, noprog;
    int32_t off[6];          /* per side: captured, exchanged, removed */
    int8_t side, setting, chain, turn_captured, resume;
    int8_t ex_stage, ex_soldier, ex_first, ex_second;   /* stage 0: none */
    int8_t nrem, rem[KC_MAXREM];
    int8_t o_reason, o_winner, o_kind;  /* o_reason -1: the game runs */
} kc_state;

typedef struct {
    kc_state s;
    kc_act act;
} kc_entry;

/* A position counted for repetition, with the ply it was counted at. */
typedef struct {
    kc_bb a, d;
    int32_t ply;
    int8_t side, ex_stage, ex_soldier, ex_first, ex_second, nrem;
    int8_t rem[KC_MAXREM];
} kc_key;

typedef struct {
    int n, size, centre, pps;
    kc_bb full, centre_bit, near_centre, enemy_mask;
    int8_t nb[KC_MAXPTS][4];      /* neighbour along N, E, S, W or -1 */
    kc_bb adj[KC_MAXPTS];
    kc_bb smask[4];
    int setting_rule, compulsory, chain_optional, refuge, exchange, blocked;
    int bftdw, repetition, win_kinds;
    int64_t turn_cap, noprog_cap;
} kc_rules;

typedef struct {
    kc_rules r;
    kc_state s;
    kc_entry *undo;
    size_t nundo, capundo;
    kc_key *counted;
    size_t ncounted, capcounted;
} kc_game;

/* Options in this order: n, setting_rule, compulsory, chain_optional,
 * refuge, exchange, blocked, bftdw, no_progress_turns, repetition,
 * win_kinds, turn_limit.  Returns 0, or -1 for a board it cannot hold. */
int kc_rules_init(kc_rules *r, const long *opt);
void kc_game_init(kc_game *g);
void kc_game_free(kc_game *g);
int kc_game_copy(kc_game *dst, const kc_game *src);
int kc_reserve(kc_game *g);

int kc_generate(kc_game *g, kc_act *out);
kc_bb kc_captures(const kc_game *g, int side, int to);
int kc_do(kc_game *g, const kc_act *a);          /* -1: out of memory */
void kc_undo(kc_game *g, kc_act *played);
void kc_start_turn(kc_game *g);
int kc_count_position(kc_game *g);
void kc_finish(kc_game *g, int winner, int reason, int minor);
int kc_has_step(const kc_game *g, int side);

static inline int kc_pop(kc_bb x) { return __builtin_popcountll(x); }
static inline int kc_low(kc_bb x) { return __builtin_ctzll(x); }

#endif
