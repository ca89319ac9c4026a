/* Part of _ccore.c (included once): the hot calls of Game's low-level
 * interface, in C.  CompiledGame puts the compiled core first among its
 * bases, so these replace Game's Python versions with the same meaning:
 * legal_moves, raw_moves, push, push_raw, pop, captures, bitboards, and the properties
 * ply, side, outcome, setting, turn, chain_point and removals. */

static PyObject *Core_raw_moves(CoreObject *self, PyObject *unused)
{
    if (!ready(self) || generate(self) < 0)
        return NULL;
    return Py_NewRef(self->raws);
}

static PyObject *Core_legal_moves(CoreObject *self, PyObject *unused)
{
    if (!ready(self) || generate(self) < 0)
        return NULL;
    return PyList_GetSlice(self->moves, 0, PyList_GET_SIZE(self->moves));
}

static PyObject *Core_push_raw(CoreObject *self, PyObject *raw)
{
    return Core_do(self, raw);
}

/* push(kind, frm, to, flag=False): a raw action by its parts, captures
 * found (no legality check). */
static PyObject *Core_push(CoreObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (!ready(self))
        return NULL;
    if (nargs < 3 || nargs + nkw > 4
        || (nkw && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "flag"))) {
        PyErr_SetString(PyExc_TypeError, "push(kind, frm, to, flag=False)");
        return NULL;
    }
    PyObject *raw = Py_BuildValue("(OOOiO)", args[0], args[1], args[2], 0,
                                  nargs + nkw == 4 ? args[3] : Py_False);
    kc_act a;
    if (!raw || raw_act(self, raw, &a) < 0) {
        Py_XDECREF(raw);
        return NULL;
    }
    Py_DECREF(raw);
    if (a.kind == K_STEP)
        a.caps = kc_captures(&self->g, self->g.s.side, a.to);
    if (do_act(self, &a, NULL) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* pop(): undo the last action and return it as a Move. */
static PyObject *Core_pop(CoreObject *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    if (!self->g.nundo) {
        PyErr_SetString(PyExc_IndexError, "pop from a game with no moves");
        return NULL;
    }
    kc_act a = self->g.undo[self->g.nundo - 1].act;
    PyObject *raw = self->uraws[self->g.nundo - 1];
    PyObject *move;
    if (a.kind == K_OTHER || (a.kind == K_STEP && a.caps && a.flag))
        move = PyObject_CallOneArg(self->move_of, raw ? raw : Py_None);
    else
        move = act_move(self, &a, raw);
    if (!move)
        return NULL;
    self->uraws[self->g.nundo - 1] = NULL;
    Py_XDECREF(raw);
    kc_undo(&self->g, NULL);
    drop_cache(self);
    return move;
}

static PyObject *Core_public_captures(CoreObject *self, PyObject *args)
{
    int frm, to;
    if (!ready(self) || !PyArg_ParseTuple(args, "ii", &frm, &to))
        return NULL;
    if (to < 0 || to >= self->g.r.size) {
        PyErr_SetString(PyExc_ValueError, "captures: a point of the board");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(kc_captures(&self->g, self->g.s.side, to));
}

static PyObject *Core_bitboards(CoreObject *self, PyObject *unused)
{
    if (!ready(self))
        return NULL;
    return Py_BuildValue("(KK)", (unsigned long long)self->g.s.bb[0],
                         (unsigned long long)self->g.s.bb[1]);
}

#define API_METHODS                                                                      \
    {"legal_moves", (PyCFunction)Core_legal_moves, METH_NOARGS,                          \
     "Every legal single action for the side to move (a new list)."},                    \
    {"raw_moves", (PyCFunction)Core_raw_moves, METH_NOARGS,                              \
     "The legal actions as raw tuples (a shared list: do not change it)."},             \
    {"push_raw", (PyCFunction)Core_push_raw, METH_O, "Play a raw tuple of raw_moves."},  \
    {"push", (PyCFunction)(void (*)(void))Core_push, METH_FASTCALL | METH_KEYWORDS,                   \
     "push(kind, frm, to, flag=False): play a raw action known to be legal."},           \
    {"pop", (PyCFunction)Core_pop, METH_NOARGS, "Undo the last action and return it."},  \
    {"captures", (PyCFunction)Core_public_captures, METH_VARARGS,                        \
     "captures(frm, to): the enemy pieces that step of the side to move takes."},        \
    {"bitboards", (PyCFunction)Core_bitboards, METH_NOARGS,                              \
     "The Attacker's and the Defender's pieces as bitboards."},
