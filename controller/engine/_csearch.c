/* Python binding of the engine's search in C (controller.engine._csearch).
 *
 * A game is read from the compiled rules core's object: the Core type of
 * controller.rules._ccore starts with PyObject_HEAD, then its kc_game and
 * a ready flag (controller/rules/_ccore.c); the search copies that game,
 * history and repetition counts included, and searches the copy with the
 * GIL released.  controller/engine/csearch.py is the Python side.  See
 * docs/engine-c.md. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_csearch.h"

typedef struct {
    PyObject_HEAD
    kc_game g;
    int ready;
} CorePrefix;

static PyTypeObject *core_type;

static const kc_game *game_of(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, core_type)) {
        PyErr_SetString(PyExc_TypeError, "a game on the compiled rules core expected");
        return NULL;
    }
    CorePrefix *c = (CorePrefix *)obj;
    if (!c->ready) {
        PyErr_SetString(PyExc_RuntimeError, "compiled core not set up");
        return NULL;
    }
    return &c->g;
}

/* weights: 8 ints (evaluate.Weights' fields in order); flags: (refuge,
 * lose_when_blocked, defender_wins_blocked_first). */
static const kc_game *read_args(PyObject *game, PyObject *weights, PyObject *flags, cs_eval *e)
{
    int w[CS_NWEIGHTS], refuge, lose, dwbf;
    const kc_game *g = game_of(game);
    if (!g)
        return NULL;
    if (!PyArg_ParseTuple(weights, "iiiiiiii;weights: 8 integers", &w[0], &w[1], &w[2],
                          &w[3], &w[4], &w[5], &w[6], &w[7])
        || !PyArg_ParseTuple(flags, "ppp;flags: (refuge, lose_when_blocked, "
                             "defender_wins_blocked_first)", &refuge, &lose, &dwbf))
        return NULL;
    if (g->r.n > 7) {
        PyErr_SetString(PyExc_ValueError, "the C search plays boards up to 7x7");
        return NULL;
    }
    cs_eval_init(e, g->r.n, refuge, lose, dwbf, w);
    return g;
}

static PyObject *py_evaluate(PyObject *mod, PyObject *args)
{
    PyObject *game, *weights, *flags;
    cs_eval e;
    if (!PyArg_ParseTuple(args, "OO!O!", &game, &PyTuple_Type, &weights, &PyTuple_Type, &flags))
        return NULL;
    const kc_game *g = read_args(game, weights, flags, &e);
    return g ? PyLong_FromLong(cs_evaluate(&e, &g->s)) : NULL;
}

static PyObject *act_tuple(const kc_act *a)
{
    return Py_BuildValue("(iiiO)", a->kind, a->frm, a->to, a->flag ? Py_True : Py_False);
}

static PyObject *result_of(const cs_result *r)
{
    PyObject *pv = PyList_New(r->npv);
    for (int i = 0; pv && i < r->npv; i++) {
        PyObject *t = act_tuple(&r->pv[i]);
        if (!t) {
            Py_CLEAR(pv);
            break;
        }
        PyList_SET_ITEM(pv, i, t);
    }
    if (!pv)
        return NULL;
    PyObject *move = r->found ? act_tuple(&r->move) : Py_NewRef(Py_None);
    if (!move) {
        Py_DECREF(pv);
        return NULL;
    }
    return Py_BuildValue("(NiNiLd)", move, r->score, pv, r->depth, r->nodes, r->seconds);
}

/* search(game, weights, flags, seconds, max_depth, max_nodes, use_tt,
 * selective, qdepth, threads) -> (move or None, score, pv, depth, nodes, seconds);
 * a move is (kind, frm, to, flag) with the rules core's kind codes. */
static PyObject *py_search(PyObject *mod, PyObject *args)
{
    PyObject *game, *weights, *flags;
    cs_options o;
    cs_eval e;
    if (!PyArg_ParseTuple(args, "OO!O!diLppii", &game, &PyTuple_Type, &weights, &PyTuple_Type,
                          &flags, &o.seconds, &o.max_depth, &o.max_nodes, &o.use_tt,
                          &o.selective, &o.qdepth, &o.threads))
        return NULL;
    const kc_game *src = read_args(game, weights, flags, &e);
    if (!src)
        return NULL;
    if (o.max_depth < 1 || o.max_depth > 100 || o.qdepth < 0 || o.qdepth > 64 || o.threads < 1
        || o.threads > CS_MAX_THREADS) {
        PyErr_SetString(PyExc_ValueError, "max_depth 1-100, qdepth 0-64, threads 1-16 expected");
        return NULL;
    }
    kc_game g;
    kc_game_init(&g);
    if (kc_game_copy(&g, src) < 0) {
        kc_game_free(&g);
        return PyErr_NoMemory();
    }
    cs_result *r = malloc(sizeof *r);
    int rc = -1;
    if (r) {
        Py_BEGIN_ALLOW_THREADS
        rc = cs_search(&g, &e, &o, r);
        Py_END_ALLOW_THREADS
    }
    kc_game_free(&g);
    PyObject *out = rc == 0 ? result_of(r) : PyErr_NoMemory();
    free(r);
    return out;
}

static PyMethodDef methods[] = {
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(game, weights, flags): the static score for the side to move."},
    {"search", py_search, METH_VARARGS,
     "search(game, weights, flags, seconds, max_depth, max_nodes, use_tt, selective, qdepth, "
     "threads)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_csearch", "The engine's search in C (docs/engine-c.md).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__csearch(void)
{
    PyObject *ccore = PyImport_ImportModule("controller.rules._ccore");
    if (!ccore)
        return NULL;
    PyObject *t = PyObject_GetAttrString(ccore, "Core");
    Py_DECREF(ccore);
    if (!t)
        return NULL;
    if (!PyType_Check(t) || ((PyTypeObject *)t)->tp_basicsize < (Py_ssize_t)sizeof(CorePrefix)) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_ImportError, "controller.rules._ccore.Core is not the expected type");
        return NULL;
    }
    core_type = (PyTypeObject *)t;  /* kept for the module's life */
    return PyModule_Create(&module);
}
