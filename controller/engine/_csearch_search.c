/* The search of controller/engine/search.py and negamax.py in C:
 * iterative deepening negamax alpha-beta with principal-variation search,
 * aspiration windows, late-move reductions, reverse futility pruning,
 * capture-threat extensions, quiescence over captures, a transposition
 * table, killers and history.  One ply is one action of the rules core; a child's score is
 * negated only when the side to move changed.  See docs/engine-c.md. */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_csearch_ctx.h"

#define LMR_AFTER 3
#define PRUNE_DEPTH 2
#define PRUNE_MARGIN 120
#define PRUNE_MIN_MOVES 6
#define EXTEND_PLY 1


double cs_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void cs_zobrist_init(ctx *c)
{
    uint64_t x = 0x4B48;
    for (int s = 0; s < 2; s++)
        for (int p = 0; p < KC_MAXPTS; p++)
            c->z[s][p] = splitmix(&x);
    c->zside = splitmix(&x);
    c->zsetting = splitmix(&x);
    c->zfirst = splitmix(&x);
    for (int p = 0; p <= KC_MAXPTS; p++)
        c->zchain[p] = splitmix(&x);
}

uint64_t cs_key_of(const ctx *c, const kc_state *s)
{
    uint64_t k = 0;
    for (int side = 0; side < 2; side++)
        for (kc_bb b = s->bb[side]; b; b &= b - 1)
            k ^= c->z[side][kc_low(b)];
    if (s->side)
        k ^= c->zside;
    if (s->setting)
        k ^= c->zsetting;
    else if (s->turn <= 2)
        k ^= c->zfirst;
    k ^= c->zchain[s->chain + 1];
    if (s->ex_stage || s->nrem) {
        uint64_t x = (uint64_t)(uint8_t)s->ex_stage | (uint64_t)(uint8_t)s->ex_soldier << 8
                     | (uint64_t)(uint8_t)s->ex_first << 16
                     | (uint64_t)(uint8_t)s->ex_second << 24 | (uint64_t)(uint8_t)s->nrem << 32;
        for (int i = 0; i < s->nrem; i++)
            x |= (uint64_t)(s->rem[i] & 1) << (40 + i);
        k ^= splitmix(&x);
    }
    return k;
}

int cs_same(const kc_act *a, const kc_act *b)
{
    return a->kind == b->kind && a->frm == b->frm && a->to == b->to && a->flag == b->flag
           && a->caps == b->caps;
}

static void check(ctx *c)
{
    c->next_check = c->nodes + CHECK_EVERY;
    if (*c->halt || (!c->helper && (c->nodes >= c->max_nodes || cs_now() >= c->deadline)))
        c->stop = 1;
}

static int terminal(const ctx *c, int ply)
{
    const kc_state *s = &c->g->s;
    if (s->o_winner < 0)
        return 0;
    return s->o_winner == s->side ? CS_WIN - ply : -(CS_WIN - ply);
}

/* negamax.Negamax._order: a stable sort, best first. */
void cs_order(ctx *c, kc_act *m, int n, const kc_act *tt_move, int ply, int side)
{
    long long keys[KC_MAXACTS];
    for (int i = 0; i < n; i++) {
        long long k;
        if (tt_move && cs_same(&m[i], tt_move))
            k = 1LL << 40;
        else if (m[i].caps)
            k = (1LL << 30) + kc_pop(m[i].caps);
        else if (c->nkillers[ply] > 0 && cs_same(&m[i], &c->killers[ply][0]))
            k = 1LL << 29;
        else if (c->nkillers[ply] > 1 && cs_same(&m[i], &c->killers[ply][1]))
            k = (1LL << 29) - 1;
        else
            k = c->history[side][m[i].frm + 1][m[i].to + 1] - (m[i].flag ? 1LL << 20 : 0);
        keys[i] = k;
    }
    for (int i = 1; i < n; i++) {
        long long k = keys[i];
        kc_act a = m[i];
        int j = i - 1;
        while (j >= 0 && keys[j] < k) {
            keys[j + 1] = keys[j];
            m[j + 1] = m[j];
            j--;
        }
        keys[j + 1] = k;
        m[j + 1] = a;
    }
}

static int is_killer(const ctx *c, const kc_act *m, int ply)
{
    for (int i = 0; i < c->nkillers[ply]; i++)
        if (cs_same(m, &c->killers[ply][i]))
            return 1;
    return 0;
}

static void remember(ctx *c, const kc_act *m, int ply, int side, int depth)
{
    if (!is_killer(c, m, ply)) {
        c->killers[ply][1] = c->killers[ply][0];
        c->killers[ply][0] = *m;
        if (c->nkillers[ply] < 2)
            c->nkillers[ply]++;
    }
    c->history[side][m->frm + 1][m->to + 1] += (long long)depth * depth;
}

int cs_play(ctx *c, const kc_act *m)
{
    if (kc_do(c->g, m) < 0) {
        c->stop = 2;  /* out of memory */
        return -1;
    }
    return 0;
}

static int quiesce(ctx *c, int alpha, int beta, int ply, int qdepth)
{
    kc_game *g = c->g;
    if (g->s.o_reason >= 0)
        return terminal(c, ply);
    int stand = cs_evaluate(c->e, &g->s);
    if (qdepth <= 0 || ply >= CS_MAX_PLY)
        return stand;
    if (stand >= beta)
        return stand;
    if (stand > alpha)
        alpha = stand;
    kc_act *m = c->moves[ply];
    int n = kc_generate(g, m), k = 0;
    for (int i = 0; i < n; i++)
        if (m[i].caps)
            m[k++] = m[i];
    if (!k)
        return stand;
    for (int i = 1; i < k; i++) {  /* stable, most captures first */
        kc_act a = m[i];
        int j = i - 1;
        while (j >= 0 && kc_pop(m[j].caps) < kc_pop(a.caps)) {
            m[j + 1] = m[j];
            j--;
        }
        m[j + 1] = a;
    }
    int best = stand, side = g->s.side;
    for (int i = 0; i < k; i++) {
        c->nodes++;
        if (c->nodes >= c->next_check)
            check(c);
        if (c->stop || cs_play(c, &m[i]) < 0)
            return 0;
        int v = g->s.side == side ? quiesce(c, alpha, beta, ply + 1, qdepth - 1)
                                  : -quiesce(c, -beta, -alpha, ply + 1, qdepth - 1);
        kc_undo(g, NULL);
        if (c->stop)
            return 0;
        if (v > best) {
            best = v;
            if (v > alpha) {
                alpha = v;
                if (v >= beta)
                    break;
            }
        }
    }
    return best;
}

static int negamax(ctx *c, int depth, int alpha, int beta, int ply);

int cs_child(ctx *c, int depth, int alpha, int beta, int ply, int side)
{
    if (c->g->s.side == side)
        return negamax(c, depth, alpha, beta, ply);
    return -negamax(c, depth, -beta, -alpha, ply);
}

static int threat(const ctx *c, int side)
{
    kc_bb own = c->g->s.bb[side], opp = c->g->s.bb[1 - side];
    return kc_pop(cs_vulnerable(c->e, opp, own, c->e->full & ~(own | opp)));
}

static uint64_t load(const uint64_t *w)
{
    return __atomic_load_n(w, __ATOMIC_RELAXED);
}

/* negamax.Negamax._probe: 1 and *score when the entry settles the node. */
static int probe(ctx *c, uint64_t key, int depth, int alpha, int beta, int ply, int *score,
                 kc_act *tt_move, int *has_move)
{
    const tt_entry *t = &c->tt[key & ((1u << TT_BITS) - 1)];
    uint64_t w0 = load(&t->w[0]), w1 = load(&t->w[1]), w2 = load(&t->w[2]),
             w3 = load(&t->w[3]);
    *has_move = 0;
    if ((w0 ^ w1 ^ w2 ^ w3) != key || !w1)
        return 0;
    int escore = (int32_t)(uint32_t)w1, edepth = (int16_t)(w1 >> 32), f = (int)(w1 >> 48 & 0xFF) - 1;
    *has_move = (int)(w1 >> 56 & 1);
    tt_move->caps = w2;
    tt_move->kind = (int8_t)(w3 & 0xFF);
    tt_move->frm = (int8_t)(w3 >> 8 & 0xFF);
    tt_move->to = (int8_t)(w3 >> 16 & 0xFF);
    tt_move->flag = (int8_t)(w3 >> 24 & 0xFF);
    if (edepth == depth || (c->o->selective && edepth > depth)) {
        int s = escore > CS_WON ? escore - ply : escore < -CS_WON ? escore + ply : escore;
        if (f == EXACT || (f == LOWER && s >= beta) || (f == UPPER && s <= alpha)) {
            c->horizon = 1;
            if (f == EXACT && *has_move) {
                c->pv[ply][0] = *tt_move;
                c->pvlen[ply] = 1;
            }
            *score = s;
            return 1;
        }
    }
    return 0;
}

void cs_store(ctx *c, uint64_t key, int depth, int best, int alpha0, int beta, int ply,
              const kc_act *best_move)
{
    tt_entry *t = &c->tt[key & ((1u << TT_BITS) - 1)];
    int f = best >= beta ? LOWER : best > alpha0 ? EXACT : UPPER;
    int s = best > CS_WON ? best + ply : best < -CS_WON ? best - ply : best;
    uint64_t w1 = (uint64_t)(uint32_t)s | (uint64_t)(uint16_t)depth << 32
                  | (uint64_t)(f + 1) << 48 | (uint64_t)(best_move != NULL) << 56;
    uint64_t w2 = 0, w3 = 0;
    if (best_move) {
        w2 = best_move->caps;
        w3 = (uint64_t)(uint8_t)best_move->kind | (uint64_t)(uint8_t)best_move->frm << 8
             | (uint64_t)(uint8_t)best_move->to << 16 | (uint64_t)(uint8_t)best_move->flag << 24;
    }
    __atomic_store_n(&t->w[0], key ^ w1 ^ w2 ^ w3, __ATOMIC_RELAXED);
    __atomic_store_n(&t->w[1], w1, __ATOMIC_RELAXED);
    __atomic_store_n(&t->w[2], w2, __ATOMIC_RELAXED);
    __atomic_store_n(&t->w[3], w3, __ATOMIC_RELAXED);
}

/* negamax.Negamax._prune: reverse futility pruning; 1 and *cut to cut. */
static int prune(ctx *c, int depth, int beta, const kc_act *m, int n, int *cut)
{
    const kc_state *s = &c->g->s;
    if (depth > PRUNE_DEPTH || s->setting || s->chain >= 0 || abs(beta) >= CS_WON
        || n < PRUNE_MIN_MOVES)
        return 0;
    for (int i = 0; i < n; i++)
        if (m[i].caps)
            return 0;
    int stand = cs_evaluate(c->e, s), margin = PRUNE_MARGIN * depth;
    if (stand - margin >= beta) {
        *cut = stand - margin;
        return 1;
    }
    return 0;
}

static void set_pv(ctx *c, int ply, const kc_act *m)
{
    c->pv[ply][0] = *m;
    int n = c->pvlen[ply + 1];
    memcpy(&c->pv[ply][1], c->pv[ply + 1], (size_t)n * sizeof(kc_act));
    c->pvlen[ply] = n + 1;
}

static int negamax(ctx *c, int depth, int alpha, int beta, int ply)
{
    kc_game *g = c->g;
    c->nodes++;
    if (c->nodes >= c->next_check)
        check(c);
    if (c->stop)
        return 0;
    c->pvlen[ply] = 0;
    if (g->s.o_reason >= 0)
        return terminal(c, ply);
    if (depth <= 0 || ply >= CS_MAX_PLY) {
        c->horizon = 1;
        return quiesce(c, alpha, beta, ply, c->o->qdepth);
    }
    kc_act tt_move;
    int has_tt = 0, hit;
    uint64_t key = 0;
    if (c->o->use_tt) {
        key = cs_key_of(c, &g->s);
        if (probe(c, key, depth, alpha, beta, ply, &hit, &tt_move, &has_tt))
            return hit;
    }
    int side = g->s.side, selective = c->o->selective, pv_node = beta - alpha > 1;
    kc_act *m = c->moves[ply];
    int n = kc_generate(g, m);
    if (selective && !pv_node && prune(c, depth, beta, m, n, &hit)) {
        c->horizon = 1;
        return hit;
    }
    cs_order(c, m, n, has_tt ? &tt_move : NULL, ply, side);
    int extend = pv_node && !g->s.setting && depth >= 2 && ply <= EXTEND_PLY;
    int threats = extend ? threat(c, side) : 0;
    int alpha0 = alpha, best = -CS_INF, best_i = -1;
    for (int i = 0; i < n; i++) {
        int caps = m[i].caps != 0, v;
        if (cs_play(c, &m[i]) < 0)
            return 0;
        int d = depth - 1;
        if (extend && !caps && threat(c, side) > threats)
            d++;
        if (selective && i > 0) {
            int r = 0;
            if (i >= LMR_AFTER && depth >= 3 && !caps && !m[i].flag && d < depth
                && !is_killer(c, &m[i], ply))
                r = i >= 3 * LMR_AFTER && depth >= 5 ? 2 : 1;
            v = cs_child(c, d - r, alpha, alpha + 1, ply + 1, side);
            if (r && v > alpha && !c->stop)
                v = cs_child(c, d, alpha, alpha + 1, ply + 1, side);
            if (alpha < v && v < beta && pv_node && !c->stop)
                v = cs_child(c, d, alpha, beta, ply + 1, side);
        } else {
            v = cs_child(c, d, alpha, beta, ply + 1, side);
        }
        kc_undo(g, NULL);
        if (c->stop)
            return 0;
        if (v > best) {
            best = v;
            best_i = i;
            if (v > alpha) {
                alpha = v;
                set_pv(c, ply, &m[i]);
                if (v >= beta) {
                    if (!caps)
                        remember(c, &m[i], ply, side, depth);
                    break;
                }
            }
        }
    }
    if (c->o->use_tt)
        cs_store(c, key, depth, best, alpha0, beta, ply, best_i >= 0 ? &m[best_i] : NULL);
    return best;
}

