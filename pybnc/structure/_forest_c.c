/* The maximum spanning forest of pybnc.structure.chow_liu in C: Prim's algorithm under
 * the strict order "heavier, then smaller (i, j)", one tree per component, the weight of
 * an edge read at (min, max) of its nodes, as the numpy version does. That order makes
 * the forest unique, so the edges are the ones the numpy version (and Kruskal) finds.
 *
 * numpy runs about ten small array operations per node joined, each a few microseconds:
 * on 279 features (arrhythmia) 17 ms of a 117 ms TAN fit, 157 ms on 2,000 features. Here
 * a node costs two passes over n numbers (0.8 and 11 ms; benchmarks/bench_small_fits.py). */
#include "native.h"

/* Whether edge (a, b) (a < b) comes before edge (c, d) (c < d) among equal weights. */
static inline int key_before(Py_ssize_t a, Py_ssize_t b, Py_ssize_t c, Py_ssize_t d) {
    return a < c || (a == c && b < d);
}

typedef struct {
    const double *w;
    Py_ssize_t n;
    double floor;
    char *outside;
    double *best;        /* the best usable edge from the tree to each node outside */
    Py_ssize_t *from;    /* its other end, -1 where none */
} Prim;

static void join(Prim *p, Py_ssize_t u) {
    p->outside[u] = 0;
    for (Py_ssize_t v = 0; v < p->n; v++) {
        if (!p->outside[v]) continue;
        Py_ssize_t lo = v < u ? v : u, hi = v < u ? u : v;
        double w = p->w[lo * p->n + hi];
        if (!(w > p->floor)) continue; /* NaN is never usable */
        int better = w > p->best[v];
        if (!better && w == p->best[v] && p->from[v] >= 0) {
            Py_ssize_t f = p->from[v];
            better = key_before(lo, hi, v < f ? v : f, v < f ? f : v);
        }
        if (better) {
            p->best[v] = w;
            p->from[v] = u;
        }
    }
}

/* spanning_forest(weights (n, n) float64, positive_only, edges (n, 2) int64 out) -> number
 * of edges written, in the order Prim's adds them. */
static PyObject *spanning_forest(PyObject *self, PyObject *args) {
    PyObject *o[2];
    int positive_only;
    if (!PyArg_ParseTuple(args, "OpO", &o[0], &positive_only, &o[1])) return NULL;
    Arr a[2] = {0};
    PyObject *result = NULL;
    Prim p = {0};
    if (arr_get(o[0], &a[0], 'f', "weights") || arr_get(o[1], &a[1], 'L', "edges")) goto done;
    Py_ssize_t n = 0;
    while (n * n < a[0].size) n++;
    if (n * n != a[0].size || a[1].size < 2 * n) {
        PyErr_SetString(PyExc_ValueError, "spanning_forest: weights must be n x n and edges hold n rows of 2");
        goto done;
    }
    p.w = (const double *)a[0].view.buf;
    p.n = n;
    p.floor = positive_only ? 0.0 : -INFINITY;
    p.outside = PyMem_Malloc(n ? n : 1);
    p.best = PyMem_Malloc(sizeof(double) * (n ? n : 1));
    p.from = PyMem_Malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    if (!p.outside || !p.best || !p.from) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t v = 0; v < n; v++) {
        p.outside[v] = 1;
        p.best[v] = -INFINITY;
        p.from[v] = -1;
    }
    int64_t *edges = (int64_t *)a[1].view.buf;
    Py_ssize_t count = 0;
    for (Py_ssize_t root = 0; root < n; root++) {
        if (!p.outside[root]) continue;
        join(&p, root);
        for (;;) {
            Py_ssize_t pick = -1, pick_lo = 0, pick_hi = 0;
            for (Py_ssize_t t = 0; t < n; t++) {
                if (!p.outside[t] || p.from[t] < 0) continue;
                Py_ssize_t f = p.from[t], lo = t < f ? t : f, hi = t < f ? f : t;
                if (pick < 0 || p.best[t] > p.best[pick]
                    || (p.best[t] == p.best[pick] && key_before(lo, hi, pick_lo, pick_hi))) {
                    pick = t;
                    pick_lo = lo;
                    pick_hi = hi;
                }
            }
            if (pick < 0) break;
            edges[2 * count] = pick_lo;
            edges[2 * count + 1] = pick_hi;
            count++;
            join(&p, pick);
        }
    }
    result = PyLong_FromSsize_t(count);
done:
    PyMem_Free(p.outside);
    PyMem_Free(p.best);
    PyMem_Free(p.from);
    arr_release(a, 2);
    return result;
}

static PyMethodDef methods[] = {
    {"spanning_forest", spanning_forest, METH_VARARGS, "Prim's maximum spanning forest, ties by (i, j)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_forest_c",
                                    "pybnc.structure.chow_liu's maximum spanning forest in C.", -1, methods};

PyMODINIT_FUNC PyInit__forest_c(void) { return PyModule_Create(&module); }
