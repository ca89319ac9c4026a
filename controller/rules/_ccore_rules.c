/* The compiled rules core: tables, move generation, make/unmake and the
 * flow of turns, mirroring controller/rules/core.py rule for rule and in
 * the same order of actions.  See _ccore_rules.h and docs/core.md. */
#include "_ccore_rules.h"

#include <stdlib.h>
#include <string.h>

#define BIT(p) ((kc_bb)1 << (p))

int kc_rules_init(kc_rules *r, const long *opt)
{
    int n = (int)opt[0];
    memset(r, 0, sizeof *r);
    if (n < 3 || n > 8 || n * n > KC_MAXPTS)
        return -1;
    r->n = n;
    r->size = n * n;
    r->centre = r->size / 2;
    r->pps = (r->size - 1) / 2;
    r->full = r->size == 64 ? ~(kc_bb)0 : BIT(r->size) - 1;
    for (int p = 0; p < r->size; p++) {
        int row = p / n, col = p % n;
        r->nb[p][0] = row < n - 1 ? p + n : -1;
        r->nb[p][1] = col < n - 1 ? p + 1 : -1;
        r->nb[p][2] = row > 0 ? p - n : -1;
        r->nb[p][3] = col > 0 ? p - 1 : -1;
        for (int d = 0; d < 4; d++) {
            if (r->nb[p][d] >= 0) {
                r->adj[p] |= BIT(r->nb[p][d]);
                r->smask[d] |= BIT(p);
            }
        }
    }
    r->centre_bit = BIT(r->centre);
    r->near_centre = r->adj[r->centre];
    r->setting_rule = (int)opt[1];
    r->compulsory = (int)opt[2];
    r->chain_optional = (int)opt[3];
    r->refuge = (int)opt[4];
    r->exchange = (int)opt[5];
    r->blocked = (int)opt[6];
    r->bftdw = (int)opt[7];
    r->noprog_cap = opt[8] ? opt[8] : ((int64_t)1 << 62);
    r->repetition = (int)opt[9];
    r->win_kinds = (int)opt[10];
    r->turn_cap = opt[11] ? opt[11] - r->pps + 1 : ((int64_t)1 << 62);
    r->enemy_mask = r->refuge ? ~r->centre_bit : ~(kc_bb)0;
    return 0;
}

static void clear_exchange(kc_state *s)
{
    s->ex_stage = 0;
    s->ex_soldier = s->ex_first = s->ex_second = -1;
}

void kc_game_init(kc_game *g)
{
    kc_state *s = &g->s;
    memset(s, 0, sizeof *s);
    s->setting = 1;
    s->chain = -1;
    s->resume = -1;
    s->o_reason = -1;
    s->o_winner = -1;
    clear_exchange(s);
    g->undo = NULL;
    g->nundo = g->capundo = 0;
    g->counted = NULL;
    g->ncounted = g->capcounted = 0;
}

void kc_game_free(kc_game *g)
{
    free(g->undo);
    free(g->counted);
    g->undo = NULL;
    g->counted = NULL;
    g->nundo = g->capundo = g->ncounted = g->capcounted = 0;
}

int kc_game_copy(kc_game *dst, const kc_game *src)
{
    kc_game_free(dst);
    dst->r = src->r;
    dst->s = src->s;
    if (src->nundo) {
        dst->undo = malloc(src->nundo * sizeof *dst->undo);
        if (!dst->undo)
            return -1;
        memcpy(dst->undo, src->undo, src->nundo * sizeof *dst->undo);
    }
    dst->nundo = dst->capundo = src->nundo;
    if (src->ncounted) {
        dst->counted = malloc(src->ncounted * sizeof *dst->counted);
        if (!dst->counted)
            return -1;
        memcpy(dst->counted, src->counted, src->ncounted * sizeof *dst->counted);
    }
    dst->ncounted = dst->capcounted = src->ncounted;
    return 0;
}

/* Room for one more undo entry and one more counted position. */
int kc_reserve(kc_game *g)
{
    if (g->nundo == g->capundo) {
        size_t cap = g->capundo ? 2 * g->capundo : 256;
        kc_entry *u = realloc(g->undo, cap * sizeof *u);
        if (!u)
            return -1;
        g->undo = u;
        g->capundo = cap;
    }
    if (g->ncounted == g->capcounted) {
        size_t cap = g->capcounted ? 2 * g->capcounted : 64;
        kc_key *k = realloc(g->counted, cap * sizeof *k);
        if (!k)
            return -1;
        g->counted = k;
        g->capcounted = cap;
    }
    return 0;
}

/* Every point next to a point of b. */
static inline kc_bb spread(const kc_rules *r, kc_bb b)
{
    int n = r->n;
    return ((b & r->smask[0]) << n) | ((b & r->smask[1]) << 1)
         | ((b & r->smask[2]) >> n) | ((b & r->smask[3]) >> 1);
}

int kc_has_step(const kc_game *g, int side)
{
    const kc_rules *r = &g->r;
    kc_bb own = g->s.bb[side];
    return (own & spread(r, r->full ^ (own | g->s.bb[1 - side]))) != 0;
}

kc_bb kc_captures(const kc_game *g, int side, int to)
{
    const kc_rules *r = &g->r;
    kc_bb own = g->s.bb[side];
    kc_bb enemy = g->s.bb[1 - side] & r->enemy_mask;
    kc_bb caps = 0;
    for (int d = 0; d < 4; d++) {
        int q = r->nb[to][d];
        if (q < 0)
            continue;
        int beyond = r->nb[q][d];
        if (beyond >= 0 && (enemy & BIT(q)) && (own & BIT(beyond)))
            caps |= BIT(q);
    }
    return caps;
}

static inline void put(kc_act *a, int kind, int frm, int to, kc_bb caps, int flag)
{
    a->kind = (int8_t)kind;
    a->frm = (int8_t)frm;
    a->to = (int8_t)to;
    a->caps = caps;
    a->flag = (int8_t)flag;
}

static int gen_placements(const kc_game *g, kc_act *out)
{
    const kc_rules *r = &g->r;
    const kc_state *s = &g->s;
    kc_bb a = s->bb[0], d = s->bb[1], near = r->near_centre;
    kc_bb empty = r->full & ~(a | d) & ~r->centre_bit;
    kc_bb allowed = empty;
    if (r->setting_rule == SR_FIRST_ADJ) {
        if (!s->bb[s->side] && (empty & near))
            allowed = empty & near;
    } else if (r->setting_rule == SR_OPEN_FIRST && !(a & near)) {
        if (s->side == 1) {
            if (kc_pop(empty & near) == 1 && (empty & ~near))
                allowed = empty & ~near;
        } else if (kc_pop(a) == r->pps - 1 && (empty & near)) {
            allowed = empty & near;
        }
    }
    int k = 0;
    for (; allowed; allowed &= allowed - 1)
        put(&out[k++], K_PLACE, -1, kc_low(allowed), 0, 0);
    return k;
}

static int gen_removals(const kc_game *g, kc_act *out)
{
    int k = 0;
    for (kc_bb own = g->s.bb[g->s.side]; own; own &= own - 1)
        put(&out[k++], K_REMOVE, -1, kc_low(own), 0, 0);
    return k;
}

static int gen_chain(const kc_game *g, kc_act *out)
{
    const kc_rules *r = &g->r;
    int c = g->s.chain, side = g->s.side, k = 0;
    kc_bb empty = r->full ^ (g->s.bb[0] | g->s.bb[1]);
    for (int d = 0; d < 4; d++) {   /* along the directions in order */
        int q = r->nb[c][d];
        if (q < 0 || !(empty & BIT(q)))
            continue;
        kc_bb caps = kc_captures(g, side, q);
        if (caps)
            put(&out[k++], K_STEP, c, q, caps, 0);
    }
    if (r->chain_optional)
        put(&out[k++], K_PASS, -1, -1, 0, 0);
    return k;
}

/* Every step, by from point then to point (S, W, E, N is ascending). */
static int gen_steps(const kc_game *g, kc_act *out)
{
    static const int order[4] = {2, 3, 1, 0};
    const kc_rules *r = &g->r;
    int side = g->s.side, k = 0;
    kc_bb own = g->s.bb[side];
    kc_bb empty = r->full ^ (own | g->s.bb[1 - side]);
    for (kc_bb movers = own & spread(r, empty); movers; movers &= movers - 1) {
        int p = kc_low(movers);
        for (int i = 0; i < 4; i++) {
            int q = r->nb[p][order[i]];
            if (q >= 0 && (empty & BIT(q)))
                put(&out[k++], K_STEP, p, q, kc_captures(g, side, q), 0);
        }
    }
    return k;
}

/* Would this step (with its captures) give the other side a step? */
static int opens(const kc_game *g, const kc_act *a)
{
    const kc_rules *r = &g->r;
    int side = g->s.side;
    kc_bb own = g->s.bb[side] ^ (BIT(a->frm) | BIT(a->to));
    kc_bb opp = g->s.bb[1 - side] & ~a->caps;
    return (opp & spread(r, r->full ^ (own | opp))) != 0;
}

static int may_flag(const kc_game *g, int frm)
{
    const kc_state *s = &g->s;
    if (s->side == 1)
        return 1;
    if (!s->ex_stage || kc_pop(s->bb[0]) < 2)
        return 0;
    if (s->ex_stage == 1)
        return 1;
    return s->ex_stage == 3 && frm != s->ex_first;
}

/* Compulsory captures, the reopen rule and flagged steps. */
static int filter_steps(const kc_game *g, kc_act *out, int k)
{
    const kc_rules *r = &g->r;
    if (r->compulsory) {
        int m = 0;
        for (int i = 0; i < k; i++)
            if (out[i].caps)
                out[m++] = out[i];
        if (m)
            k = m;
    }
    if (r->blocked == BL_REOPEN && k && !kc_has_step(g, 1 - g->s.side)) {
        int m = 0;
        kc_act keep[KC_MAXACTS];
        for (int i = 0; i < k; i++)
            if (opens(g, &out[i]))
                keep[m++] = out[i];
        if (m) {
            memcpy(out, keep, m * sizeof *out);
            k = m;
        }
    }
    if (r->exchange) {
        int m = k;
        for (int i = 0; i < k; i++) {
            if (!out[i].caps && may_flag(g, out[i].frm)) {
                out[m] = out[i];
                out[m++].flag = 1;
            }
        }
        k = m;
    }
    return k;
}

int kc_generate(kc_game *g, kc_act *out)
{
    const kc_state *s = &g->s;
    if (s->o_reason >= 0)
        return 0;
    if (s->setting)
        return gen_placements(g, out);
    if (s->nrem)
        return gen_removals(g, out);
    if (s->chain >= 0)
        return gen_chain(g, out);
    int k = gen_steps(g, out);
    const kc_rules *r = &g->r;
    if (r->compulsory || r->blocked == BL_REOPEN || r->exchange)
        k = filter_steps(g, out, k);
    return k;
}

/* ------------------------------------------------------------------ */
/* Endings and the flow of turns */

void kc_finish(kc_game *g, int winner, int reason, int minor)
{
    kc_state *s = &g->s;
    int kind = 0;
    if (g->r.win_kinds && winner >= 0) {
        if (reason == T_ALL_CAPTURED)
            kind = 1;
        else if (minor)
            kind = 2;
    }
    s->o_reason = (int8_t)reason;
    s->o_winner = (int8_t)winner;
    s->o_kind = (int8_t)kind;
}

static void adjudicate(kc_game *g, int reason)
{
    int a = kc_pop(g->s.bb[0]), d = kc_pop(g->s.bb[1]);
    kc_finish(g, a > d ? 0 : d > a ? 1 : -1, reason, 1);
}

static int same_key(const kc_key *k, const kc_state *s)
{
    if (k->a != s->bb[0] || k->d != s->bb[1] || k->side != s->side
        || k->ex_stage != s->ex_stage || k->ex_soldier != s->ex_soldier
        || k->ex_first != s->ex_first || k->ex_second != s->ex_second
        || k->nrem != s->nrem)
        return 0;
    return memcmp(k->rem, s->rem, (size_t)s->nrem) == 0;
}

/* Count this position for repetition; the third occurrence ends the game.
 * Pieces never come back in the moving phase, so the scan stops at the
 * first counted position with more pieces. */
int kc_count_position(kc_game *g)
{
    kc_state *s = &g->s;
    if (!g->r.repetition || s->o_reason >= 0 || s->chain >= 0)
        return 0;
    if (kc_reserve(g) < 0)
        return -1;
    int total = kc_pop(s->bb[0] | s->bb[1]), n = 1;
    for (size_t i = g->ncounted; i-- > 0;) {
        const kc_key *k = &g->counted[i];
        if (kc_pop(k->a | k->d) > total)
            break;
        n += same_key(k, s);
    }
    kc_key *k = &g->counted[g->ncounted++];
    memset(k, 0, sizeof *k);
    k->a = s->bb[0];
    k->d = s->bb[1];
    k->ply = (int32_t)g->nundo;
    k->side = s->side;
    k->ex_stage = s->ex_stage;
    k->ex_soldier = s->ex_soldier;
    k->ex_first = s->ex_first;
    k->ex_second = s->ex_second;
    k->nrem = s->nrem;
    memcpy(k->rem, s->rem, (size_t)s->nrem);
    if (n >= 3)
        adjudicate(g, T_REPETITION);
    return 0;
}

/* The side to move is set; deal with it being blocked. */
void kc_start_turn(kc_game *g)
{
    const kc_rules *r = &g->r;
    kc_state *s = &g->s;
    int side = s->side;
    if (s->bb[side] & spread(r, r->full ^ (s->bb[0] | s->bb[1])))
        return;
    if (r->blocked == BL_LOSE) {
        kc_finish(g, 1 - side, s->bb[side] ? T_BLOCKED : T_ALL_CAPTURED, 0);
        return;
    }
    if (r->bftdw && side == 1 && s->turn == 2) {
        kc_finish(g, 1, T_BLOCKED_FIRST_TURN, 0);
        return;
    }
    clear_exchange(s);
    if (r->blocked == BL_REMOVE) {
        s->resume = (int8_t)side;
        s->nrem = 3;
        s->rem[0] = 0;
        s->rem[1] = 0;
        s->rem[2] = 1;
        s->side = 0;
        return;
    }
    s->side = (int8_t)(1 - side);
}

static void end_turn(kc_game *g)
{
    const kc_rules *r = &g->r;
    kc_state *s = &g->s;
    int mover = s->side;
    s->chain = -1;
    int turn = ++s->turn;
    if (s->turn_captured) {
        s->noprog = 0;
        s->turn_captured = 0;
    } else {
        s->noprog++;
    }
    if (!s->bb[1 - mover]) {
        kc_finish(g, mover, T_ALL_CAPTURED, 0);
        return;
    }
    if (!s->bb[mover]) {
        kc_finish(g, 1 - mover, T_ALL_CAPTURED, 0);
        return;
    }
    s->side = (int8_t)(1 - mover);
    if (!(s->bb[s->side] & spread(r, r->full ^ (s->bb[0] | s->bb[1])))) {
        kc_start_turn(g);
        if (s->o_reason >= 0)
            return;
    }
    if (turn >= r->turn_cap) {
        kc_finish(g, -1, T_TURN_LIMIT, 0);
        return;
    }
    if (s->noprog >= r->noprog_cap) {
        adjudicate(g, T_NO_PROGRESS);
        return;
    }
    if (r->repetition)
        kc_count_position(g);
}

/* A step that captured: the chain goes on while it can. */
static void took(kc_game *g, int side, int to, kc_bb caps)
{
    const kc_rules *r = &g->r;
    kc_state *s = &g->s;
    kc_bb opp = s->bb[1 - side] &= ~caps;
    s->off[(1 - side) * 3] += kc_pop(caps);
    s->turn_captured = 1;
    clear_exchange(s);
    s->chain = (int8_t)to;
    if (opp) {
        kc_bb empty = r->full ^ (s->bb[side] | opp);
        for (int d = 0; d < 4; d++) {
            int q = r->nb[to][d];
            if (q >= 0 && (empty & BIT(q)) && kc_captures(g, side, q))
                return;
        }
    }
    end_turn(g);
}

static void exchange_step(kc_game *g, int frm, int to, int flag)
{
    kc_state *s = &g->s;
    if (!flag) {
        clear_exchange(s);
        return;
    }
    if (s->side == 1) {
        if (s->ex_stage == 2 && frm == s->ex_soldier) {
            s->ex_stage = 3;
            s->ex_soldier = (int8_t)to;
            s->ex_second = -1;
        } else if (s->ex_stage == 4 && frm == s->ex_soldier) {
            s->bb[1] &= ~BIT(to);
            s->bb[0] &= ~(BIT(s->ex_first) | BIT(s->ex_second));
            s->off[3 + 1] += 1;
            s->off[0 + 1] += 2;
            s->turn_captured = 1;
            clear_exchange(s);
        } else {
            clear_exchange(s);
            s->ex_stage = 1;
            s->ex_soldier = (int8_t)to;
        }
    } else if (s->ex_stage == 1) {
        s->ex_stage = 2;
        s->ex_first = (int8_t)to;
        s->ex_second = -1;
    } else {
        s->ex_stage = 4;
        s->ex_second = (int8_t)to;
    }
}

static void after_placement(kc_game *g)
{
    kc_state *s = &g->s;
    int placed = kc_pop(s->bb[0]) + kc_pop(s->bb[1]);
    if (placed >= 2 * g->r.pps) {
        s->setting = 0;
        s->side = 0;
        s->turn = 1;
        kc_start_turn(g);
        kc_count_position(g);
    } else {
        s->side = (int8_t)((placed / 2) % 2);
    }
}

static void after_removal(kc_game *g)
{
    kc_state *s = &g->s;
    int side = s->side;
    if (!s->bb[side]) {
        kc_finish(g, 1 - side, T_ALL_CAPTURED, 0);
        return;
    }
    s->nrem--;
    memmove(s->rem, s->rem + 1, (size_t)s->nrem);
    s->rem[s->nrem] = 0;
    if (s->nrem) {
        s->side = s->rem[0];
        return;
    }
    s->side = s->resume;
    s->resume = -1;
    kc_start_turn(g);
    kc_count_position(g);
}

int kc_do(kc_game *g, const kc_act *a)
{
    if (kc_reserve(g) < 0)
        return -1;
    kc_state *s = &g->s;
    kc_entry *e = &g->undo[g->nundo++];
    e->s = *s;
    e->act = *a;
    int side = s->side;
    switch (a->kind) {
    case K_STEP:
        s->bb[side] ^= BIT(a->frm) | BIT(a->to);
        if (a->caps) {
            took(g, side, a->to, a->caps);
            return 0;
        }
        if (g->r.exchange)
            exchange_step(g, a->frm, a->to, a->flag);
        end_turn(g);
        break;
    case K_PLACE:
        s->bb[side] |= BIT(a->to);
        after_placement(g);
        break;
    case K_REMOVE:
        s->bb[side] &= ~BIT(a->to);
        s->off[side * 3 + 2] += 1;
        after_removal(g);
        break;
    default:
        end_turn(g);
    }
    return 0;
}

void kc_undo(kc_game *g, kc_act *played)
{
    size_t ply = g->nundo;
    if (g->ncounted && (size_t)g->counted[g->ncounted - 1].ply == ply)
        g->ncounted--;
    kc_entry *e = &g->undo[--g->nundo];
    g->s = e->s;
    if (played)
        *played = e->act;
}
