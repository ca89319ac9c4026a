/* The static evaluation of controller/engine/evaluate.py in C, term for
 * term (the Kharbga family on square boards up to 7x7).  Scores are in
 * hundredths of a piece for the side to move.  See docs/engine-c.md. */
#include "_csearch.h"

#define SEALED (-1)
#define COVERED (-2)

static kc_bb bit_at(int n, int f, int r)
{
    return (f >= 0 && f < n && r >= 0 && r < n) ? (kc_bb)1 << (r * n + f) : 0;
}

static void malha_init(cs_eval *e)
{
    static const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    int n = e->n, c = n * n / 2, cf = c % n, cr = c / n;
    e->nmalha = 4;
    for (int i = 0; i < 4; i++) {
        int df = dirs[i][0], dr = dirs[i][1], nf = cf + df, nr = cr + dr;
        cs_malha *m = &e->malha[i];
        m->nb = bit_at(n, nf, nr);
        m->others = 0;
        m->ncaps = 0;
        for (int j = 0; j < 4; j++) {
            int ef = dirs[j][0], er = dirs[j][1];
            if (nf + ef != cf || nr + er != cr)
                m->others |= bit_at(n, nf + ef, nr + er);
        }
        for (int j = 0; j < 4; j++) {
            int ef = dirs[j][0], er = dirs[j][1];
            if (j == i)
                continue;
            int mf = cf + ef, mr = cr + er;
            cs_cap *cp = &m->caps[m->ncaps++];
            cp->m = bit_at(n, mf, mr);
            cp->beyond = bit_at(n, cf + 2 * ef, cr + 2 * er);
            cp->sides = bit_at(n, mf + er, mr + ef) | bit_at(n, mf - er, mr - ef);
        }
    }
}

void cs_eval_init(cs_eval *e, int n, int refuge, int lose, int dwbf, const int *w)
{
    e->n = n;
    e->full = n * n >= 64 ? ~(kc_bb)0 : ((kc_bb)1 << (n * n)) - 1;
    e->not_east = e->not_west = e->edge_cols = e->edge_rows = 0;
    for (int p = 0; p < n * n; p++) {
        int f = p % n, r = p / n;
        kc_bb b = (kc_bb)1 << p;
        if (f != n - 1)
            e->not_east |= b;
        if (f != 0)
            e->not_west |= b;
        if (f == 0 || f == n - 1)
            e->edge_cols |= b;
        if (r == 0 || r == n - 1)
            e->edge_rows |= b;
    }
    e->centre = (kc_bb)1 << (n * n / 2);
    e->refuge = refuge;
    e->lose_when_blocked = lose;
    e->dwbf = dwbf;
    for (int i = 0; i < CS_NWEIGHTS; i++)
        e->w[i] = w[i];
    malha_init(e);
}

static int mobility(const cs_eval *e, kc_bb own, kc_bb empty)
{
    int n = e->n;
    return kc_pop((own << n) & empty) + kc_pop((own >> n) & empty)
           + kc_pop(((own & e->not_east) << 1) & empty)
           + kc_pop(((own & e->not_west) >> 1) & empty);
}

kc_bb cs_vulnerable(const cs_eval *e, kc_bb own, kc_bb enemy, kc_bb empty)
{
    int n = e->n;
    kc_bb full = e->full, ne = e->not_east, nw = e->not_west;
    kc_bb reach = empty & (((enemy << n) & full) | (enemy >> n) | ((enemy & ne) << 1)
                           | ((enemy & nw) >> 1));
    kc_bb north_e = enemy >> n, south_e = (enemy << n) & full;
    kc_bb east_e = (enemy & nw) >> 1, west_e = (enemy & ne) << 1;
    kc_bb north_r = reach >> n, south_r = (reach << n) & full;
    kc_bb east_r = (reach & nw) >> 1, west_r = (reach & ne) << 1;
    kc_bb v = own & ((north_e & south_r) | (south_e & north_r) | (east_e & west_r)
                     | (west_e & east_r));
    if (e->refuge)
        v &= ~e->centre;
    return v;
}

static kc_bb stable(const cs_eval *e, kc_bb own)
{
    int n = e->n;
    kc_bb full = e->full, ne = e->not_east, nw = e->not_west;
    kc_bb seeds_ew = e->edge_cols, seeds_ns = e->edge_rows, s = 0;
    if (e->refuge) {
        seeds_ew |= e->centre;
        seeds_ns |= e->centre;
    }
    for (;;) {
        kc_bb ew = own & (seeds_ew | ((s & ne) << 1) | ((s & nw) >> 1));
        kc_bb ns = own & (seeds_ns | ((s << n) & full) | (s >> n));
        kc_bb nw_ = ew & ns;
        if (e->refuge)
            nw_ |= own & e->centre;
        if (nw_ == s)
            return s;
        s = nw_;
    }
}

/* evaluate.first_move_blocks: fills out[], returns how many. */
static int first_move_blocks(const cs_eval *e, kc_bb a, kc_bb d, int *out)
{
    int k = 0;
    kc_bb empty_all = e->full & ~(a | d) & ~e->centre;
    for (int i = 0; i < e->nmalha; i++) {
        const cs_malha *m = &e->malha[i];
        if (m->nb & d)
            continue;
        if (m->others & d) {
            out[k++] = COVERED;
            continue;
        }
        int need = kc_pop(m->others & empty_all) + ((m->nb & empty_all) ? 1 : 0);
        int covered = 0;
        for (int j = 0; j < m->ncaps; j++) {
            const cs_cap *c = &m->caps[j];
            if (!(c->beyond & a) || (c->m & a))
                continue;
            if (c->m & d) {
                if (c->sides & d) {
                    covered = 1;
                    break;
                }
                need += kc_pop(c->sides & empty_all);
            } else if (c->sides & ~a) {
                need += 1;
            }
        }
        out[k++] = covered ? COVERED : need == 0 ? SEALED : need;
    }
    return k;
}

static int block_score(const cs_eval *e, kc_bb a, kc_bb d, int side)
{
    int blocks[4];
    int nb = first_move_blocks(e, a, d, blocks);
    if (e->lose_when_blocked) {
        int left = 2 - kc_pop(side == 0 ? a : d) % 2, near = 0, threats = 0, three = 0;
        for (int i = 0; i < nb; i++) {
            if (blocks[i] == SEALED)
                return 5000;
            if (blocks[i] > 0 && blocks[i] <= left)
                near = 1;
            if (blocks[i] > 0 && blocks[i] <= 2)
                threats++;
            if (blocks[i] == 3)
                three++;
        }
        if (side == 0 && near)
            return 4000;
        if (side == 1 && threats > left)
            return 3500;
        return 40 * threats + 15 * three;
    }
    if (e->dwbf && nb) {
        for (int i = 0; i < nb; i++)
            if (blocks[i] != SEALED)
                return 0;
        return -5000;
    }
    return 0;
}

static int setting_score(const cs_eval *e, kc_bb a, kc_bb d, int side)
{
    const int *w = e->w;
    int score = w[W_SET_EXP_D] * kc_pop(cs_vulnerable(e, d, a, e->centre));
    score -= w[W_SET_EXP_A] * kc_pop(cs_vulnerable(e, a, d, e->centre));
    score += w[W_SET_STABLE] * (kc_pop(stable(e, a)) - kc_pop(stable(e, d)));
    score += block_score(e, a, d, side);
    return side == 0 ? score : -score;
}

int cs_evaluate(const cs_eval *e, const kc_state *s)
{
    int side = s->side;
    if (s->setting)
        return setting_score(e, s->bb[0], s->bb[1], side);
    const int *w = e->w;
    kc_bb own = s->bb[side], opp = s->bb[1 - side];
    kc_bb empty = e->full & ~(own | opp);
    int score = 100 * (kc_pop(own) - kc_pop(opp));
    score += w[W_MOB] * (mobility(e, own, empty) - mobility(e, opp, empty));
    if (w[W_SAFE_STEPS]) {
        /* steps onto squares where the enemy cannot take the piece at once */
        kc_bb risky_own = cs_vulnerable(e, empty, opp, empty);
        kc_bb risky_opp = cs_vulnerable(e, empty, own, empty);
        score += w[W_SAFE_STEPS] * (mobility(e, own, empty & ~risky_own)
                                    - mobility(e, opp, empty & ~risky_opp));
    }
    score += w[W_STABLE] * (kc_pop(stable(e, own)) - kc_pop(stable(e, opp)));
    score += w[W_HANG_THEIRS] * kc_pop(cs_vulnerable(e, opp, own, empty));
    score -= w[W_HANG_OWN] * kc_pop(cs_vulnerable(e, own, opp, empty));
    return score;
}
