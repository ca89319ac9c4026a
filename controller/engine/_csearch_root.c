/* The root of the C search: aspiration windows, iterative deepening and
 * the threads of the Lazy SMP search (helpers search the same tree and
 * share the transposition table).  See docs/engine-c.md. */
#define _POSIX_C_SOURCE 199309L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "_csearch_ctx.h"

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
        if (cs_play(c, &ord[i]) < 0)
            return;
        if (pvs && i > 0) {
            v = cs_child(c, depth - 1, alpha, alpha + 1, 1, side);
            if (alpha < v && v < beta && !c->stop)
                v = cs_child(c, depth - 1, alpha, beta, 1, side);
        } else {
            v = cs_child(c, depth - 1, alpha, beta, 1, side);
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
        cs_store(c, cs_key_of(c, &g->s), depth, r->score, alpha0, beta, 0, &r->move);
}

static void to_front(kc_act *ord, int n, const kc_act *m)
{
    for (int i = 0; i < n; i++)
        if (cs_same(&ord[i], m)) {
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

static void deepen(ctx *c, kc_act *ord, int n, cs_result *out, root_out *r, int id)
{
    double last_time = 0.0;
    for (int depth = 1; depth <= c->o->max_depth; depth++) {
        double began = cs_now();
        int d = depth + (id & 1) > c->o->max_depth ? depth : depth + (id & 1);
        c->horizon = 0;
        c->has_partial = 0;
        aspirate(c, ord, n, d, out->score, out->depth, r);
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
        out->depth = d;
        out->npv = r->npv;
        memcpy(out->pv, r->pv, (size_t)r->npv * sizeof(kc_act));
        to_front(ord, n, &r->move);
        if (abs(r->score) >= CS_WON && d >= CS_WIN - abs(r->score))
            break;
        if (!c->horizon)
            break;
        double t = cs_now(), took = t - began, growth = 2.0;
        if (last_time > 0.002) {
            growth = took / last_time;
            growth = growth < 2.0 ? 2.0 : growth > 8.0 ? 8.0 : growth;
        }
        last_time = took;
        if (!c->helper && t + took * growth * (c->o->selective ? 0.5 : 1.0) > c->deadline)
            break;
    }
}

/* One searching thread: its own game, move lists, killers and history;
 * the table and the halt flag are shared. */
typedef struct {
    ctx c;
    kc_game g;
    kc_act ord[KC_MAXACTS];
    int n, id, started;
    cs_result out;
    root_out r;
    pthread_t th;
} worker;

static void worker_free(worker *w)
{
    if (!w)
        return;
    free(w->c.moves);
    kc_game_free(&w->g);
    free(w);
}

static worker *worker_new(const kc_game *g, const cs_eval *e, const cs_options *o,
                          tt_entry *tt, volatile int *halt, int id, double start)
{
    worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    kc_game_init(&w->g);
    w->c.moves = calloc(CS_MAX_PLY + 2, sizeof *w->c.moves);
    if (!w->c.moves || kc_game_copy(&w->g, g) < 0) {
        worker_free(w);
        return NULL;
    }
    ctx *c = &w->c;
    c->g = &w->g;
    c->e = e;
    c->o = o;
    c->tt = tt;
    c->halt = halt;
    c->helper = id > 0;
    c->max_nodes = o->max_nodes > 0 ? o->max_nodes : (1LL << 62);
    c->deadline = o->seconds > 0 ? start + o->seconds : 1e300;
    c->next_check = CHECK_EVERY;
    cs_zobrist_init(c);
    w->id = id;
    w->n = kc_generate(&w->g, w->ord);
    w->out.found = 1;
    w->out.move = w->ord[0];
    w->out.score = cs_evaluate(e, &w->g.s);
    w->out.pv[0] = w->ord[0];
    w->out.npv = 1;
    cs_order(c, w->ord, w->n, NULL, 0, w->g.s.side);
    return w;
}

static void *run(void *arg)
{
    worker *w = arg;
    deepen(&w->c, w->ord, w->n, &w->out, &w->r, w->id);
    return NULL;
}

int cs_search(kc_game *g, const cs_eval *e, const cs_options *o, cs_result *out)
{
    double start = cs_now();
    int nthreads = o->threads < 1 ? 1 : o->threads > CS_MAX_THREADS ? CS_MAX_THREADS : o->threads;
    worker *ws[CS_MAX_THREADS] = {NULL};
    volatile int halt = 0;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (g->s.o_reason >= 0) {
        out->seconds = cs_now() - start;
        return 0;
    }
    tt_entry *tt = calloc((size_t)1 << TT_BITS, sizeof *tt);
    if (!tt)
        return -1;
    for (int i = 0; i < nthreads; i++) {
        ws[i] = worker_new(g, e, o, tt, &halt, i, start);
        if (!ws[i]) {
            rc = -1;
            goto done;
        }
    }
    if (!ws[0]->n)
        goto done;
    for (int i = 1; i < nthreads; i++)
        ws[i]->started = pthread_create(&ws[i]->th, NULL, run, ws[i]) == 0;
    run(ws[0]);
    halt = 1;
    *out = ws[0]->out;
    for (int i = 0; i < nthreads; i++) {
        if (i && ws[i]->started)
            pthread_join(ws[i]->th, NULL);
        out->nodes += ws[i]->c.nodes;
        if (ws[i]->c.stop == 2)
            rc = -1;
    }
done:
    for (int i = 0; i < nthreads; i++)
        worker_free(ws[i]);
    free(tt);
    out->seconds = cs_now() - start;
    return rc;
}
