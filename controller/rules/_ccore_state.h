/* Part of _ccore.c (included once): the state as Python values, the undo
 * entries, copies, and the whole-game loops in C (random playouts, perft). */

static PyObject *removals_tuple(const kc_state *s)
{
    PyObject *t = PyTuple_New(s->nrem);
    for (int i = 0; t && i < s->nrem; i++)
        PyTuple_SET_ITEM(t, i, PyLong_FromLong(s->rem[i]));
    return t;
}

static PyObject *fields_of(CoreObject *self, const kc_state *s)
{
    PyObject *ex;
    if (s->ex_stage)
        ex = Py_BuildValue("(iiii)", s->ex_stage, s->ex_soldier, s->ex_first, s->ex_second);
    else
        ex = Py_NewRef(Py_None);
    return Py_BuildValue(
        "(KKiOiiNiNiO((iii)(iii))N)", (unsigned long long)s->bb[0],
        (unsigned long long)s->bb[1], s->side, s->setting ? Py_True : Py_False, s->chain,
        s->turn, ex, s->noprog, removals_tuple(s), s->resume,
        s->turn_captured ? Py_True : Py_False, s->off[0], s->off[1], s->off[2], s->off[3],
        s->off[4], s->off[5], outcome_of(self, s));
}

static PyObject *Core_fields(CoreObject *self, PyObject *unused)
{
    return ready(self) ? fields_of(self, &self->g.s) : NULL;
}

static int read_exchange(PyObject *ex, kc_state *s)
{
    int stage = 0, soldier = -1, first = -1, second = -1;
    if (ex != Py_None && !PyArg_ParseTuple(ex, "iiii", &stage, &soldier, &first, &second))
        return -1;
    s->ex_stage = (int8_t)stage;
    s->ex_soldier = (int8_t)soldier;
    s->ex_first = (int8_t)first;
    s->ex_second = (int8_t)second;
    return 0;
}

static int read_removals(PyObject *rem, kc_state *s)
{
    if (!PyTuple_Check(rem) || PyTuple_GET_SIZE(rem) > KC_MAXREM) {
        PyErr_Format(Unsupported, "removals: a tuple of at most %d sides", KC_MAXREM);
        return -1;
    }
    memset(s->rem, 0, sizeof s->rem);
    s->nrem = (int8_t)PyTuple_GET_SIZE(rem);
    for (int i = 0; i < s->nrem; i++) {
        long side = PyLong_AsLong(PyTuple_GET_ITEM(rem, i));
        if (side != 0 && side != 1) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "removals: sides 0 or 1");
            return -1;
        }
        s->rem[i] = (int8_t)side;
    }
    return 0;
}

/* _set_fields(a, d, side, setting, chain, turn, ex, noprog, removals,
 * resume, turn_captured, ((c, e, r), (c, e, r)), outcome codes or None) */
static PyObject *Core_set_fields(CoreObject *self, PyObject *args)
{
    kc_state s = self->g.s;
    unsigned long long a, d;
    int side, setting, chain, turn, noprog, resume, captured;
    PyObject *ex, *rem, *out;
    int off[6];
    if (!ready(self)
        || !PyArg_ParseTuple(args, "KKipiiOiOip((iii)(iii))O", &a, &d, &side, &setting, &chain,
                             &turn, &ex, &noprog, &rem, &resume, &captured, &off[0], &off[1],
                             &off[2], &off[3], &off[4], &off[5], &out))
        return NULL;
    kc_bb full = self->g.r.full;
    if ((a | d) & ~full || (a & d) || side < 0 || side > 1 || chain < -1
        || chain >= self->g.r.size || resume < -1 || resume > 1) {
        PyErr_SetString(PyExc_ValueError, "_set_fields: a state off this board");
        return NULL;
    }
    if (read_exchange(ex, &s) < 0 || read_removals(rem, &s) < 0)
        return NULL;
    s.o_reason = -1;
    s.o_winner = -1;
    s.o_kind = 0;
    int reason, winner, kind;
    if (out != Py_None) {
        if (!PyArg_ParseTuple(out, "iii", &reason, &winner, &kind))
            return NULL;
        if (reason < 0 || reason >= T_COUNT || winner < -1 || winner > 1 || kind < 0 || kind > 2) {
            PyErr_SetString(PyExc_ValueError, "_set_fields: outcome codes out of range");
            return NULL;
        }
        s.o_reason = (int8_t)reason;
        s.o_winner = (int8_t)winner;
        s.o_kind = (int8_t)kind;
    }
    s.bb[0] = a;
    s.bb[1] = d;
    s.side = (int8_t)side;
    s.setting = (int8_t)setting;
    s.chain = (int8_t)chain;
    s.turn = turn;
    s.noprog = noprog;
    s.resume = (int8_t)resume;
    s.turn_captured = (int8_t)captured;
    memcpy(s.off, off, sizeof off);
    self->g.s = s;
    drop_cache(self);
    Py_RETURN_NONE;
}

static PyObject *Core_entry(CoreObject *self, PyObject *arg)
{
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (!ready(self) || (i == -1 && PyErr_Occurred()))
        return NULL;
    if (i < 0)
        i += (Py_ssize_t)self->g.nundo;
    if (i < 0 || (size_t)i >= self->g.nundo) {
        PyErr_SetString(PyExc_IndexError, "undo entry out of range");
        return NULL;
    }
    const kc_entry *e = &self->g.undo[i];
    PyObject *raw = self->uraws[i];
    raw = raw ? Py_NewRef(raw) : act_raw(self, &e->act);
    return Py_BuildValue("(NN)", fields_of(self, &e->s), raw);
}

/* An undo entry for an ending by the players: the state as it is. */
static PyObject *Core_push_marker(CoreObject *self, PyObject *raw)
{
    kc_act a = {0, K_OTHER, -1, -1, 0};
    if (!ready(self))
        return NULL;
    if (kc_reserve(&self->g) < 0 || reserve_uraws(self) < 0)
        return PyErr_NoMemory();
    kc_entry *e = &self->g.undo[self->g.nundo];
    e->s = self->g.s;
    e->act = a;
    self->uraws[self->g.nundo++] = Py_NewRef(raw);
    drop_cache(self);
    Py_RETURN_NONE;
}

static PyObject *Core_start_turn(CoreObject *self, PyObject *mover)
{
    if (!ready(self))
        return NULL;
    kc_start_turn(&self->g);
    drop_cache(self);
    Py_RETURN_NONE;
}

static PyObject *Core_count_position(CoreObject *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    if (kc_count_position(&self->g) < 0)
        return PyErr_NoMemory();
    drop_cache(self);
    Py_RETURN_NONE;
}

static PyObject *Core_finish_code(CoreObject *self, PyObject *args)
{
    int winner, reason, minor;
    if (!ready(self) || !PyArg_ParseTuple(args, "iip", &winner, &reason, &minor))
        return NULL;
    if (winner < -1 || winner > 1 || reason < 0 || reason >= T_COUNT) {
        PyErr_SetString(PyExc_ValueError, "_finish_code: winner -1..1, a termination code");
        return NULL;
    }
    kc_finish(&self->g, winner, reason, minor);
    drop_cache(self);
    Py_RETURN_NONE;
}

static PyObject *Core_copy_to(CoreObject *self, PyObject *other_obj)
{
    if (!ready(self))
        return NULL;
    if (!PyObject_TypeCheck(other_obj, Py_TYPE(self)) && !PyObject_TypeCheck(self, Py_TYPE(other_obj))) {
        PyErr_SetString(PyExc_TypeError, "_copy_core_to: a compiled core of the same kind");
        return NULL;
    }
    CoreObject *o = (CoreObject *)other_obj;
    PyObject *objs = Py_NewRef(self->objs);
    Core_clear(o);
    free(o->uraws);
    o->uraws = NULL;
    o->capuraws = 0;
    size_t n = self->g.nundo;
    memcpy(&o->kind, &self->kind, (char *)(&self->move_of + 1) - (char *)&self->kind);
    o->objs = objs;
    if (kc_game_copy(&o->g, &self->g) < 0)
        return PyErr_NoMemory();
    o->uraws = calloc(n ? n : 1, sizeof *o->uraws);
    if (!o->uraws) {
        o->g.nundo = 0;
        return PyErr_NoMemory();
    }
    o->capuraws = n ? n : 1;
    for (size_t i = 0; i < n; i++)
        o->uraws[i] = Py_XNewRef(self->uraws[i]);
    o->ready = 1;
    Py_RETURN_NONE;
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

/* playouts(count, seed): uniformly random games from this position, each
 * undone after; returns (actions, attacker wins, defender wins, draws). */
static PyObject *Core_playouts(CoreObject *self, PyObject *args)
{
    long count;
    unsigned long long seed;
    if (!ready(self) || !PyArg_ParseTuple(args, "lK", &count, &seed))
        return NULL;
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t start = self->g.nundo;
    long long actions = 0, wins[3] = {0, 0, 0};
    kc_act acts[KC_MAXACTS];
    for (long i = 0; i < count; i++) {
        while (self->g.s.o_reason < 0) {
            int n = kc_generate(&self->g, acts);
            uint64_t r = next_random(&x) >> 32;
            if (!n || do_act(self, &acts[(r * (uint64_t)n) >> 32], NULL) < 0)
                break;
            actions++;
        }
        wins[self->g.s.o_winner + 1]++;
        while (self->g.nundo > start)
            kc_undo(&self->g, NULL);
        if (PyErr_Occurred())
            return NULL;
    }
    drop_cache(self);
    return Py_BuildValue("(LLLL)", actions, wins[1], wins[2], wins[0]);
}

static long long perft(CoreObject *self, int depth)
{
    if (depth == 0)
        return 1;
    kc_act acts[KC_MAXACTS];
    int n = kc_generate(&self->g, acts);
    if (depth == 1)
        return n;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        if (do_act(self, &acts[i], NULL) < 0)
            return -1;
        long long sub = perft(self, depth - 1);
        kc_undo(&self->g, NULL);
        if (sub < 0)
            return -1;
        total += sub;
    }
    return total;
}

static PyObject *Core_perft(CoreObject *self, PyObject *arg)
{
    long depth = PyLong_AsLong(arg);
    if (!ready(self) || (depth == -1 && PyErr_Occurred()))
        return NULL;
    if (depth < 0 || depth > 12) {
        PyErr_SetString(PyExc_ValueError, "perft depth 0..12");
        return NULL;
    }
    long long n = perft(self, (int)depth);
    drop_cache(self);
    return n < 0 ? NULL : PyLong_FromLongLong(n);
}

#define STATE_METHODS                                                                    \
    {"_fields", (PyCFunction)Core_fields, METH_NOARGS, "The state's fields as values."}, \
    {"_set_fields", (PyCFunction)Core_set_fields, METH_VARARGS, "Set the state."},      \
    {"_entry", (PyCFunction)Core_entry, METH_O, "Undo entry i: (fields, raw)."},         \
    {"_push_marker", (PyCFunction)Core_push_marker, METH_O, "Undo entry, no change."},   \
    {"_start_turn_c", (PyCFunction)Core_start_turn, METH_O, "The blocked rule."},  \
    {"_count_position", (PyCFunction)Core_count_position, METH_NOARGS, "Repetition."},   \
    {"_finish_code", (PyCFunction)Core_finish_code, METH_VARARGS, "End the game."},      \
    {"_copy_core_to", (PyCFunction)Core_copy_to, METH_O, "Copy the game into other."},   \
    {"playouts", (PyCFunction)Core_playouts, METH_VARARGS, "Random games in C."},        \
    {"perft", (PyCFunction)Core_perft, METH_O, "Leaf count at a depth."},

/* Attributes named as the pure core's. */
#define GETTER(name, expr)                                               \
    static PyObject *get_##name(CoreObject *self, void *closure)         \
    {                                                                    \
        if (!ready(self))                                                \
            return NULL;                                                 \
        const kc_state *s = &self->g.s;                                  \
        (void)s;                                                         \
        return expr;                                                     \
    }

GETTER(bb, Py_BuildValue("[KK]", (unsigned long long)s->bb[0], (unsigned long long)s->bb[1]))
GETTER(side, PyLong_FromLong(s->side))
GETTER(setting, PyBool_FromLong(s->setting))
GETTER(chain, PyLong_FromLong(s->chain))
GETTER(turn, PyLong_FromLong(s->turn))
GETTER(noprog, PyLong_FromLong(s->noprog))
GETTER(resume, PyLong_FromLong(s->resume))
GETTER(turn_captured, PyBool_FromLong(s->turn_captured))
GETTER(outcome, outcome_of(self, s))
GETTER(removals, removals_tuple(s))
GETTER(off, Py_BuildValue("((iii)(iii))", s->off[0], s->off[1], s->off[2], s->off[3],
                          s->off[4], s->off[5]))
GETTER(ply, PyLong_FromSize_t(self->g.nundo))
GETTER(raws, Py_NewRef(self->raws ? self->raws : Py_None))
GETTER(moves, Py_NewRef(self->moves ? self->moves : Py_None))
GETTER(ex_key, s->ex_stage ? Py_BuildValue("(iiii)", s->ex_stage, s->ex_soldier, s->ex_first,
                                           s->ex_second)
                           : Py_NewRef(Py_None))

static PyGetSetDef Core_getset[] = {
    {"_bb", (getter)get_bb, NULL, "The two bitboards (a new list).", NULL},
    {"_side", (getter)get_side, NULL, NULL, NULL},
    {"_setting", (getter)get_setting, NULL, NULL, NULL},
    {"_chain", (getter)get_chain, NULL, NULL, NULL},
    {"_turn", (getter)get_turn, NULL, NULL, NULL},
    {"_noprog", (getter)get_noprog, NULL, NULL, NULL},
    {"_resume", (getter)get_resume, NULL, NULL, NULL},
    {"_turn_captured", (getter)get_turn_captured, NULL, NULL, NULL},
    {"_outcome", (getter)get_outcome, NULL, NULL, NULL},
    {"_removals", (getter)get_removals, NULL, NULL, NULL},
    {"_off", (getter)get_off, NULL, NULL, NULL},
    {"_ply", (getter)get_ply, NULL, "Actions played (undo entries).", NULL},
    {"_raws", (getter)get_raws, NULL, "The cached raw actions or None.", NULL},
    {"_moves", (getter)get_moves, NULL, "The cached moves or None.", NULL},
    {"_ex_key", (getter)get_ex_key, NULL, "The exchange as 4 numbers or None.", NULL},
    /* Game's and BoardViews' read-only views, in C. */
    {"ply", (getter)get_ply, NULL, "How many actions have been played.", NULL},
    {"side", (getter)get_side, NULL, "The side to move (0 Attacker, 1 Defender).", NULL},
    {"outcome", (getter)get_outcome, NULL, "None while the game runs.", NULL},
    {"setting", (getter)get_setting, NULL, "Is the game in the setting phase?", NULL},
    {"turn", (getter)get_turn, NULL, "Turn of the moving phase.", NULL},
    {"chain_point", (getter)get_chain, NULL, "The chaining piece's point (-1: none).", NULL},
    {"removals", (getter)get_removals, NULL, "Sides still to remove a piece.", NULL},
    {NULL},
};
