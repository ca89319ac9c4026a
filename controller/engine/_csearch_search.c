/* The search of controller/engine/search.py in C: iterative deepening
 * negamax alpha-beta with principal-variation search, aspiration windows,
 * late-move reductions, reverse futility pruning, capture-threat
 * extensions, quiescence over captures, a transposition table, killers and
 * history.  One ply is one action of the rules core; a child's score is
 * negated only when the side to move changed.  See docs/engine-c.md. */
#define _POSIX_C_SOURCE 199309L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "_csearch.h"

#define CHECK_EVERY 256
#define LMR_AFTER 3
#define PRUNE_DEPTH 2
#define PRUNE_MARGIN 120
#define PRUNE_MIN_MOVES 6
#define EXTEND_PLY 1
#define TT_BITS 19
enum { EXACT, LOWER, UPPER };

typedef struct {
    uint64_t key;
    int32_t score;
    int16_t depth;
    int8_t flag, has_move;
    kc_act move;
} tt_entry;

typedef struct {
    kc_game *g;
    const cs_eval *e;
    const cs_options *o;
    tt_entry *tt;
    long long nodes, next_check, max_nodes;
    double deadline;
    int stop, horizon;
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

static double now(void)
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

static void zobrist_init(ctx *c)
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

static uint64_t key_of(const ctx *c, const kc_state *s)
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

static int same(const kc_act *a, const kc_act *b)
{
    return a->kind == b->kind && a->frm == b->frm && a->to == b->to && a->flag == b->flag
           && a->caps == b->caps;
}

static void check(ctx *c)
{
    c->next_check = c->nodes + CHECK_EVERY;
    if (c->nodes >= c->max_nodes || now() >= c->deadline)
        c->stop = 1;
}

static int terminal(const ctx *c, int ply)
{
    const kc_state *s = &c->g->s;
    if (s->o_winner < 0)
        return 0;
    return s->o_winner == s->side ? CS_WIN - ply : -(CS_WIN - ply);
}

/* search.Searcher._order: a stable sort, best first. */
static void order(ctx *c, kc_act *m, int n, const kc_act *tt_move, int ply, int side)
{
    long long keys[KC_MAXACTS];
    for (int i = 0; i < n; i++) {
        long long k;
        if (tt_move && same(&m[i], tt_move))
            k = 1LL << 40;
        else if (m[i].caps)
            k = (1LL << 30) + kc_pop(m[i].caps);
        else if (c->nkillers[ply] > 0 && same(&m[i], &c->killers[ply][0]))
            k = 1LL << 29;
        else if (c->nkillers[ply] > 1 && same(&m[i], &c->killers[ply][1]))
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
        if (same(m, &c->killers[ply][i]))
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

static int play(ctx *c, const kc_act *m)
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
        if (c->stop || play(c, &m[i]) < 0)
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

static int child(ctx *c, int depth, int alpha, int beta, int ply, int side)
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

/* search.Searcher._probe: 1 and *score when the entry settles the node. */
static int probe(ctx *c, uint64_t key, int depth, int alpha, int beta, int ply, int *score,
                 kc_act *tt_move, int *has_move)
{
    const tt_entry *t = &c->tt[key & ((1u << TT_BITS) - 1)];
    *has_move = 0;
    if (t->key != key || !t->flag)
        return 0;
    *has_move = t->has_move;
    *tt_move = t->move;
    if (t->depth == depth || (c->o->selective && t->depth > depth)) {
        int s = t->score > CS_WON ? t->score - ply : t->score < -CS_WON ? t->score + ply : t->score;
        int f = t->flag - 1;
        if (f == EXACT || (f == LOWER && s >= beta) || (f == UPPER && s <= alpha)) {
            c->horizon = 1;
            if (f == EXACT && t->has_move) {
                c->pv[ply][0] = t->move;
                c->pvlen[ply] = 1;
            }
            *score = s;
            return 1;
        }
    }
    return 0;
}

static void store(ctx *c, uint64_t key, int depth, int best, int alpha0, int beta, int ply,
                  const kc_act *best_move)
{
    tt_entry *t = &c->tt[key & ((1u << TT_BITS) - 1)];
    int f = best >= beta ? LOWER : best > alpha0 ? EXACT : UPPER;
    t->key = key;
    t->depth = (int16_t)depth;
    t->flag = (int8_t)(f + 1);
    t->score = best > CS_WON ? best + ply : best < -CS_WON ? best - ply : best;
    t->has_move = best_move != NULL;
    if (best_move)
        t->move = *best_move;
}

/* search.Searcher._prune: reverse futility pruning; 1 and *cut to cut. */
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
        key = key_of(c, &g->s);
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
    order(c, m, n, has_tt ? &tt_move : NULL, ply, side);
    int extend = pv_node && !g->s.setting && depth >= 2 && ply <= EXTEND_PLY;
    int threats = extend ? threat(c, side) : 0;
    int alpha0 = alpha, best = -CS_INF, best_i = -1;
    for (int i = 0; i < n; i++) {
        int caps = m[i].caps != 0, v;
        if (play(c, &m[i]) < 0)
            return 0;
        int d = depth - 1;
        if (extend && !caps && threat(c, side) > threats)
            d++;
        if (selective && i > 0) {
            int r = 0;
            if (i >= LMR_AFTER && depth >= 3 && !caps && !m[i].flag && d < depth
                && !is_killer(c, &m[i], ply))
                r = i >= 3 * LMR_AFTER && depth >= 5 ? 2 : 1;
            v = child(c, d - r, alpha, alpha + 1, ply + 1, side);
            if (r && v > alpha && !c->stop)
                v = child(c, d, alpha, alpha + 1, ply + 1, side);
            if (alpha < v && v < beta && pv_node && !c->stop)
                v = child(c, d, alpha, beta, ply + 1, side);
        } else {
            v = child(c, d, alpha, beta, ply + 1, side);
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
        store(c, key, depth, best, alpha0, beta, ply, best_i >= 0 ? &m[best_i] : NULL);
    return best;
}

typedef struct {
    int score, npv;
    kc_act move;
    kc_act pv[CS_MAX_PLY + 2];
} root_out;

/* search.Searcher._root. */
static void root(ctx *c, kc_act *ord, int n, int depth, int alpha, int beta, root_out *r)
{
    kc_game *g = c->g;
    int side = g->s.side, pvs = c->o->selective, alpha0 = alpha;
    r->score = -CS_INF;
    r->move = ord[0];
    r->pv[0] = ord[0];
    r->npv = 1;
    c->nodes++;
    for (int i = 0; i < n; i++) {
        int v;
        if (play(c, &ord[i]) < 0)
            return;
        if (pvs && i > 0) {
            v = child(c, depth - 1, alpha, alpha + 1, 1, side);
            if (alpha < v && v < beta && !c->stop)
                v = child(c, depth - 1, alpha, beta, 1, side);
        } else {
            v = child(c, depth - 1, alpha, beta, 1, side);
        }
        kc_undo(g, NULL);
        if (c->stop)
            return;
        if (v > r->score) {
            r->score = v;
            r->move = ord[i];
            r->pv[0] = ord[i];
            memcpy(&r->pv[1], c->pv[1], (size_t)c->pvlen[1] * sizeof(kc_act));
            r->npv = c->pvlen[1] + 1;
            if (pvs && alpha0 < v && v < beta) {
                c->has_partial = 1;
                c->partial_score = v;
                c->partial_npv = r->npv;
                memcpy(c->partial_pv, r->pv, (size_t)r->npv * sizeof(kc_act));
            }
            if (v > alpha) {
                alpha = v;
                if (v >= beta)
                    break;
            }
        }
    }
    if (c->o->use_tt && r->score > -CS_INF)
        store(c, key_of(c, &g->s), depth, r->score, alpha0, beta, 0, &r->move);
}

static void to_front(kc_act *ord, int n, const kc_act *m)
{
    for (int i = 0; i < n; i++)
        if (same(&ord[i], m)) {
            kc_act a = ord[i];
            memmove(&ord[1], &ord[0], (size_t)i * sizeof(kc_act));
            ord[0] = a;
            return;
        }
}

/* search.Searcher._aspirate. */
static void aspirate(ctx *c, kc_act *ord, int n, int depth, int guess, int done, root_out *r)
{
    static const int widths[2] = {40, 200};
    if (!c->o->selective || done < 3 || abs(guess) >= CS_WON) {
        root(c, ord, n, depth, -CS_INF, CS_INF, r);
        return;
    }
    for (int i = 0; i < 2; i++) {
        int alpha = guess - widths[i], beta = guess + widths[i];
        root(c, ord, n, depth, alpha, beta, r);
        if (c->stop || (alpha < r->score && r->score < beta))
            return;
        to_front(ord, n, &r->move);
    }
    root(c, ord, n, depth, -CS_INF, CS_INF, r);
}

static void deepen(ctx *c, kc_act *ord, int n, cs_result *out, root_out *r)
{
    double last_time = 0.0;
    for (int depth = 1; depth <= c->o->max_depth; depth++) {
        double began = now();
        c->horizon = 0;
        c->has_partial = 0;
        aspirate(c, ord, n, depth, out->score, out->depth, r);
        if (c->stop) {
            if (c->has_partial) {
                out->score = c->partial_score;
                out->move = c->partial_pv[0];
                out->npv = c->partial_npv;
                memcpy(out->pv, c->partial_pv, (size_t)out->npv * sizeof(kc_act));
            }
            break;
        }
        out->move = r->move;
        out->score = r->score;
        out->depth = depth;
        out->npv = r->npv;
        memcpy(out->pv, r->pv, (size_t)r->npv * sizeof(kc_act));
        to_front(ord, n, &r->move);
        if (abs(r->score) >= CS_WON && depth >= CS_WIN - abs(r->score))
            break;
        if (!c->horizon)
            break;
        double t = now(), took = t - began, growth = 2.0;
        if (last_time > 0.002) {
            growth = took / last_time;
            growth = growth < 2.0 ? 2.0 : growth > 8.0 ? 8.0 : growth;
        }
        last_time = took;
        if (t + took * growth * (c->o->selective ? 0.5 : 1.0) > c->deadline)
            break;
    }
}

int cs_search(kc_game *g, const cs_eval *e, const cs_options *o, cs_result *out)
{
    double start = now();
    memset(out, 0, sizeof *out);
    ctx *c = calloc(1, sizeof *c);
    root_out *r = calloc(1, sizeof *r);
    kc_act *ord = calloc(KC_MAXACTS, sizeof *ord);
    if (c)
        c->moves = calloc(CS_MAX_PLY + 2, sizeof *c->moves);
    if (c && o->use_tt)
        c->tt = calloc((size_t)1 << TT_BITS, sizeof *c->tt);
    if (!c || !r || !ord || !c->moves || (o->use_tt && !c->tt)) {
        if (c) {
            free(c->moves);
            free(c->tt);
        }
        free(c);
        free(r);
        free(ord);
        return -1;
    }
    c->g = g;
    c->e = e;
    c->o = o;
    c->max_nodes = o->max_nodes > 0 ? o->max_nodes : (1LL << 62);
    c->deadline = o->seconds > 0 ? start + o->seconds : 1e300;
    c->next_check = CHECK_EVERY;
    zobrist_init(c);
    size_t base = g->nundo;
    int n = g->s.o_reason >= 0 ? 0 : kc_generate(g, ord);
    int oom = 0;
    if (n) {
        out->found = 1;
        out->move = ord[0];
        out->score = cs_evaluate(e, &g->s);
        out->pv[0] = ord[0];
        out->npv = 1;
        order(c, ord, n, NULL, 0, g->s.side);
        deepen(c, ord, n, out, r);
        oom = c->stop == 2;
        while (g->nundo > base)
            kc_undo(g, NULL);
    }
    out->nodes = c->nodes;
    out->seconds = now() - start;
    free(c->moves);
    free(c->tt);
    free(c);
    free(r);
    free(ord);
    return oom ? -1 : 0;
}
