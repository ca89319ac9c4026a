/* Python binding of the compiled rules core (_ccore_rules.c).
 *
 * controller.rules._ccore.Core holds one game: its state and undo stack
 * live in C; raw tuples and Move objects exist only at the API's edge and
 * are the shared objects of controller/rules/tables.py, handed over once
 * by controller/rules/accel.py (_ccore_setup).  See docs/core.md. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_ccore_rules.h"

#define NOBJ 14

typedef struct {
    PyObject_HEAD
    kc_game g;
    int ready;
    PyObject *objs;            /* the tuple handed over by accel.py */
    PyObject **uraws;          /* the raw played at each undo entry */
    size_t capuraws;
    PyObject *raws, *moves;    /* the legal actions, until the next action */
    kc_act acts[KC_MAXACTS];   /* the same, as the C core's actions */
    /* Borrowed from objs. */
    PyObject *kind[4];
    PyObject *step_raw[KC_MAXPTS * 4], *flag_raw[KC_MAXPTS * 4];
    PyObject *step_move[KC_MAXPTS * 4], *flag_move[KC_MAXPTS * 4];
    PyObject *cap_move[KC_MAXPTS * 4];
    PyObject *place_raw[KC_MAXPTS], *place_move[KC_MAXPTS];
    PyObject *remove_raw[KC_MAXPTS], *remove_move[KC_MAXPTS];
    PyObject *pass_raw, *pass_move, *outcomes, *move_of;
} CoreObject;

static PyObject *Unsupported;

static int ready(CoreObject *self)
{
    if (!self->ready)
        PyErr_SetString(PyExc_RuntimeError, "compiled core not set up (_ccore_setup)");
    return self->ready;
}

static void drop_cache(CoreObject *self)
{
    Py_CLEAR(self->raws);
    Py_CLEAR(self->moves);
}

static void drop_uraws(CoreObject *self, size_t from)
{
    for (size_t i = from; i < self->g.nundo; i++)
        Py_CLEAR(self->uraws[i]);
}

static int dir_of(const kc_rules *r, int frm, int to)
{
    if (frm < 0 || frm >= r->size)
        return -1;
    for (int d = 0; d < 4; d++)
        if (r->nb[frm][d] == to)
            return d;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Raw tuples and moves at the edge */

static PyObject *new_raw(CoreObject *self, int kind, int frm, int to, kc_bb caps, int flag)
{
    PyObject *t = PyTuple_New(5);
    if (!t)
        return NULL;
    PyTuple_SET_ITEM(t, 0, Py_NewRef(self->kind[kind]));
    PyTuple_SET_ITEM(t, 1, PyLong_FromLong(frm));
    PyTuple_SET_ITEM(t, 2, PyLong_FromLong(to));
    PyTuple_SET_ITEM(t, 3, PyLong_FromUnsignedLongLong(caps));
    PyTuple_SET_ITEM(t, 4, PyBool_FromLong(flag));
    for (int i = 1; i < 4; i++) {
        if (!PyTuple_GET_ITEM(t, i)) {
            Py_DECREF(t);
            return NULL;
        }
    }
    return t;
}

static PyObject *act_raw(CoreObject *self, const kc_act *a)
{
    PyObject *o = NULL;
    int d = dir_of(&self->g.r, a->frm, a->to);
    switch (a->kind) {
    case K_STEP:
        if (!a->caps && d >= 0)
            o = a->flag ? self->flag_raw[a->frm * 4 + d] : self->step_raw[a->frm * 4 + d];
        else
            return new_raw(self, K_STEP, a->frm, a->to, a->caps, a->flag);
        break;
    case K_PLACE:
        o = self->place_raw[a->to];
        break;
    case K_REMOVE:
        o = self->remove_raw[a->to];
        break;
    default:
        o = self->pass_raw;
    }
    Py_INCREF(o);
    return o;
}

static PyObject *act_move(CoreObject *self, const kc_act *a, PyObject *raw)
{
    PyObject *o;
    int d = dir_of(&self->g.r, a->frm, a->to);
    if (a->kind == K_STEP && d >= 0 && !a->flag)
        o = a->caps ? self->cap_move[a->frm * 4 + d] : self->step_move[a->frm * 4 + d];
    else if (a->kind == K_STEP && d >= 0 && !a->caps)
        o = self->flag_move[a->frm * 4 + d];
    else if (a->kind == K_PLACE)
        o = self->place_move[a->to];
    else if (a->kind == K_REMOVE)
        o = self->remove_move[a->to];
    else if (a->kind == K_PASS)
        o = self->pass_move;
    else
        return PyObject_CallOneArg(self->move_of, raw);
    Py_INCREF(o);
    return o;
}

/* Read a raw tuple (kind, frm, to, caps, flag) into an action. */
static int raw_act(CoreObject *self, PyObject *raw, kc_act *a)
{
    if (!PyTuple_Check(raw) || PyTuple_GET_SIZE(raw) != 5) {
        PyErr_SetString(PyExc_ValueError, "a raw action is a 5-tuple (kind, frm, to, caps, flag)");
        return -1;
    }
    PyObject *kind = PyTuple_GET_ITEM(raw, 0);
    a->kind = K_OTHER;
    for (int k = 0; k < 4; k++) {
        if (kind == self->kind[k]
            || (PyUnicode_Check(kind) && PyUnicode_Compare(kind, self->kind[k]) == 0)) {
            a->kind = (int8_t)k;
            break;
        }
    }
    long frm = PyLong_AsLong(PyTuple_GET_ITEM(raw, 1));
    long to = PyLong_AsLong(PyTuple_GET_ITEM(raw, 2));
    unsigned long long caps = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(raw, 3));
    int flag = PyObject_IsTrue(PyTuple_GET_ITEM(raw, 4));
    if (PyErr_Occurred() || flag < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError,
                        "a raw action holds a kind, two points, a mask >= 0 and a flag");
        return -1;
    }
    int size = self->g.r.size;
    int bad = (a->kind == K_STEP && (frm < 0 || frm >= size || to < 0 || to >= size))
           || ((a->kind == K_PLACE || a->kind == K_REMOVE) && (to < 0 || to >= size))
           || (caps >> (size - 1) >> 1) != 0;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "raw action off the board");
        return -1;
    }
    a->frm = (int8_t)(a->kind == K_STEP ? frm : -1);
    a->to = (int8_t)(a->kind == K_PASS || a->kind == K_OTHER ? -1 : to);
    a->caps = caps;
    a->flag = (int8_t)flag;
    return 0;
}

static PyObject *outcome_of(CoreObject *self, const kc_state *s)
{
    if (s->o_reason < 0)
        Py_RETURN_NONE;
    PyObject *o = PyList_GET_ITEM(self->outcomes, s->o_reason * 9 + (s->o_winner + 1) * 3 + s->o_kind);
    Py_INCREF(o);
    return o;
}

/* ------------------------------------------------------------------ */
/* Set-up */

static int take_list(PyObject *objs, int i, PyObject **out, Py_ssize_t n)
{
    PyObject *list = PyTuple_GET_ITEM(objs, i);
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) {
        PyErr_Format(PyExc_ValueError, "_ccore_setup: item %d must be a list of %zd", i, n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        out[k] = PyList_GET_ITEM(list, k);
    return 0;
}

static PyObject *Core_setup(CoreObject *self, PyObject *args)
{
    PyObject *opts, *objs;
    long opt[12];
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &opts, &PyTuple_Type, &objs))
        return NULL;
    if (PyTuple_GET_SIZE(opts) != 12 || PyTuple_GET_SIZE(objs) != NOBJ) {
        PyErr_SetString(PyExc_ValueError, "_ccore_setup: 12 options and 14 objects");
        return NULL;
    }
    for (int i = 0; i < 12; i++) {
        opt[i] = PyLong_AsLong(PyTuple_GET_ITEM(opts, i));
        if (opt[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    kc_rules r;
    if (kc_rules_init(&r, opt) < 0) {
        PyErr_Format(Unsupported, "the compiled core holds boards of 3x3 to 8x8, not %ldx%ld",
                     opt[0], opt[0]);
        return NULL;
    }
    PyObject *kinds = PyTuple_GET_ITEM(objs, 0);
    if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != 4) {
        PyErr_SetString(PyExc_ValueError, "_ccore_setup: four kind names");
        return NULL;
    }
    int size = r.size;
    if (take_list(objs, 1, self->step_raw, size * 4) || take_list(objs, 2, self->flag_raw, size * 4)
        || take_list(objs, 3, self->step_move, size * 4)
        || take_list(objs, 4, self->flag_move, size * 4)
        || take_list(objs, 5, self->cap_move, size * 4)
        || take_list(objs, 6, self->place_raw, size) || take_list(objs, 7, self->place_move, size)
        || take_list(objs, 8, self->remove_raw, size)
        || take_list(objs, 9, self->remove_move, size))
        return NULL;
    self->outcomes = PyTuple_GET_ITEM(objs, 12);
    if (!PyList_Check(self->outcomes) || PyList_GET_SIZE(self->outcomes) != T_COUNT * 9) {
        PyErr_SetString(PyExc_ValueError, "_ccore_setup: outcomes by reason, winner, kind");
        return NULL;
    }
    for (int k = 0; k < 4; k++)
        self->kind[k] = PyTuple_GET_ITEM(kinds, k);
    self->pass_raw = PyTuple_GET_ITEM(objs, 10);
    self->pass_move = PyTuple_GET_ITEM(objs, 11);
    self->move_of = PyTuple_GET_ITEM(objs, 13);
    Py_INCREF(objs);
    Py_XSETREF(self->objs, objs);
    drop_uraws(self, 0);
    kc_game_free(&self->g);
    kc_game_init(&self->g);
    self->g.r = r;
    drop_cache(self);
    self->ready = 1;
    Py_RETURN_NONE;
}

static PyObject *Core_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    CoreObject *self = (CoreObject *)type->tp_alloc(type, 0);
    if (self)
        kc_game_init(&self->g);
    return (PyObject *)self;
}

static int Core_traverse(CoreObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->objs);
    Py_VISIT(self->raws);
    Py_VISIT(self->moves);
    for (size_t i = 0; i < self->g.nundo; i++)
        Py_VISIT(self->uraws[i]);
    return 0;
}

static int Core_clear(CoreObject *self)
{
    drop_cache(self);
    drop_uraws(self, 0);
    self->ready = 0;
    Py_CLEAR(self->objs);
    return 0;
}

static void Core_dealloc(CoreObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Core_clear(self);
    free(self->uraws);
    kc_game_free(&self->g);
    tp->tp_free((PyObject *)self);
}

/* ------------------------------------------------------------------ */
/* Play */

/* Room for the raw of one more undo entry. */
static int reserve_uraws(CoreObject *self)
{
    if (self->capuraws >= self->g.nundo + 1)
        return 0;
    size_t cap = self->capuraws ? 2 * self->capuraws : 256;
    PyObject **u = realloc(self->uraws, cap * sizeof *u);
    if (!u)
        return -1;
    self->uraws = u;
    self->capuraws = cap;
    return 0;
}

static int do_act(CoreObject *self, const kc_act *a, PyObject *raw)
{
    if (reserve_uraws(self) < 0 || kc_do(&self->g, a) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_XINCREF(raw);
    self->uraws[self->g.nundo - 1] = raw;
    drop_cache(self);
    return 0;
}

static PyObject *Core_do(CoreObject *self, PyObject *raw)
{
    kc_act a;
    if (!ready(self) || raw_act(self, raw, &a) < 0 || do_act(self, &a, raw) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Core_undo_one(CoreObject *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    if (!self->g.nundo) {
        PyErr_SetString(PyExc_IndexError, "pop from a game with no moves");
        return NULL;
    }
    kc_act a;
    PyObject *raw = self->uraws[self->g.nundo - 1];
    self->uraws[self->g.nundo - 1] = NULL;
    kc_undo(&self->g, &a);
    drop_cache(self);
    return raw ? raw : act_raw(self, &a);
}

/* The legal actions as lists of raws and moves (and acts), cached. */
static int generate(CoreObject *self)
{
    if (!self->raws || !self->moves) {
        kc_act *acts = self->acts;
        int n = kc_generate(&self->g, acts);
        PyObject *raws = PyList_New(n), *moves = PyList_New(n);
        if (!raws || !moves)
            goto fail;
        for (int i = 0; i < n; i++) {
            PyObject *raw = act_raw(self, &acts[i]);
            if (!raw)
                goto fail;
            PyList_SET_ITEM(raws, i, raw);
            PyObject *move = act_move(self, &acts[i], raw);
            if (!move)
                goto fail;
            PyList_SET_ITEM(moves, i, move);
        }
        drop_cache(self);
        self->raws = raws;
        self->moves = moves;
        return 0;
    fail:
        Py_XDECREF(raws);
        Py_XDECREF(moves);
        return -1;
    }
    return 0;
}

static PyObject *Core_generated(CoreObject *self, PyObject *unused)
{
    if (!ready(self) || generate(self) < 0)
        return NULL;
    return PyTuple_Pack(2, self->raws, self->moves);
}

/* Play the legal move ``move`` (found by identity, else by equality);
 * False when it is not legal here. */
static PyObject *Core_play_move(CoreObject *self, PyObject *move)
{
    if (!ready(self) || generate(self) < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(self->moves), i;
    PyObject **items = ((PyListObject *)self->moves)->ob_item;
    for (i = 0; i < n && items[i] != move; i++)
        ;
    for (Py_ssize_t k = 0; i == n && k < n; k++) {
        int eq = PyObject_RichCompareBool(items[k], move, Py_EQ);
        if (eq < 0)
            return NULL;
        if (eq)
            i = k;
    }
    if (i == n)
        Py_RETURN_FALSE;
    PyObject *raw = Py_NewRef(PyList_GET_ITEM(self->raws, i));
    int err = do_act(self, &self->acts[i], raw);
    Py_DECREF(raw);
    if (err < 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *Core_captures(CoreObject *self, PyObject *args)
{
    int side, frm, to;
    if (!ready(self) || !PyArg_ParseTuple(args, "iii", &side, &frm, &to))
        return NULL;
    if (side < 0 || side > 1 || to < 0 || to >= self->g.r.size) {
        PyErr_SetString(PyExc_ValueError, "side 0 or 1 and a point of the board");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(kc_captures(&self->g, side, to));
}

static PyObject *Core_raw_step(CoreObject *self, PyObject *args)
{
    PyObject *kind, *t;
    int frm, to, flag, size = self->g.r.size;
    if (!ready(self) || !PyArg_ParseTuple(args, "Oiip", &kind, &frm, &to, &flag))
        return NULL;
    t = Py_BuildValue("(OiiiO)", kind, frm, to, 0, flag ? Py_True : Py_False);
    if (!t)
        return NULL;
    kc_act a;
    if (raw_act(self, t, &a) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    if (a.kind == K_STEP) {
        a.caps = kc_captures(&self->g, self->g.s.side, to);
        if (a.caps || dir_of(&self->g.r, frm, to) < 0)
            Py_SETREF(t, new_raw(self, K_STEP, frm, to, a.caps, flag));
        else
            Py_SETREF(t, act_raw(self, &a));
    } else if (a.kind != K_OTHER && a.kind != K_PASS && to >= 0 && to < size) {
        Py_SETREF(t, act_raw(self, &a));
    }
    return t;
}

#include "_ccore_state.h"
#include "_ccore_api.h"

static PyMethodDef Core_methods[] = {
    {"_ccore_setup", (PyCFunction)Core_setup, METH_VARARGS,
     "_ccore_setup(options, objects): the rules and the shared edge objects."},
    {"_generated", (PyCFunction)Core_generated, METH_NOARGS,
     "The legal actions as (raw tuples, moves), cached until the next action."},
    {"_play_move", (PyCFunction)Core_play_move, METH_O,
     "Play a legal Move (by identity or equality); False if it is not legal."},
    {"_do", (PyCFunction)Core_do, METH_O, "Play a raw action (its captures trusted)."},
    {"_undo_one", (PyCFunction)Core_undo_one, METH_NOARGS, "Undo the last action; return it."},
    {"_captures", (PyCFunction)Core_captures, METH_VARARGS,
     "_captures(side, frm, to): the enemy pieces such a step takes."},
    {"_raw_step", (PyCFunction)Core_raw_step, METH_VARARGS,
     "_raw_step(kind, frm, to, flag): the raw tuple, captures found."},
    STATE_METHODS
    API_METHODS
    {NULL}
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "controller.rules._ccore.Core",
    .tp_doc = "The compiled rules core of one game (see controller.rules.accel).",
    .tp_basicsize = sizeof(CoreObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = Core_new,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_traverse = (traverseproc)Core_traverse,
    .tp_clear = (inquiry)Core_clear,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef ccore_module = {
    PyModuleDef_HEAD_INIT, "_ccore",
    "The compiled rules core of the Kharbga family (see docs/core.md).", -1, NULL,
};

PyMODINIT_FUNC PyInit__ccore(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&ccore_module);
    if (!m)
        return NULL;
    Unsupported = PyErr_NewException("controller.rules._ccore.Unsupported",
                                     PyExc_ValueError, NULL);
    Py_INCREF(&CoreType);
    if (!Unsupported || PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0
        || PyModule_AddObject(m, "Unsupported", Unsupported) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(Unsupported);
    PyModule_AddIntConstant(m, "MAX_POINTS", KC_MAXPTS);
    return m;
}
