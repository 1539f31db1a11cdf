/* The two products of a discriminative fit's every evaluation (pybnc.parameters.discriminative)
 * on a table of two classes: the rows' scores ``A @ V`` and the cells' gradient ``A.T @ R``,
 * for a CSR design ``A`` (rows x cells) and two values per cell or per row.
 *
 * scipy's csr_matvecs and csc_matvecs do the same sums in the same order (each row's
 * entries in turn, into a zeroed output), so the results are the same to the bit. Its
 * loop over the classes costs more than the products when there are two: here they are
 * written out, and a fit of AODE's weights (millions of entries read a hundred times)
 * takes about half the time. With more classes scipy's loop is as fast (measured: 3 to
 * 26 classes), so scipy runs them. */
#include "native.h"

/* One call's CSR arrays (indptr, indices, data), its dense operand and its output,
 * checked: one of the dense operand (3) and the output (4) holds two values per row, the
 * other two per cell. */
typedef struct {
    Arr a[5];
    Py_ssize_t rows, cells;
    int wide; /* int64 indices (else int32) */
    const void *idx;
    const double *data, *dense;
    double *out;
} Design;

static int design_check(PyObject *args, Design *d, const char *dense, int per_row) {
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4])) return -1;
    if (arr_get(o[0], &d->a[0], 'i', "indptr") || arr_get(o[1], &d->a[1], 'i', "indices") ||
        arr_get(o[2], &d->a[2], 'f', "data") || arr_get(o[3], &d->a[3], 'f', dense) ||
        arr_get(o[4], &d->a[4], 'F', "out"))
        return -1;
    if (d->a[1].kind != KIND_I32 && d->a[1].kind != KIND_I64) {
        PyErr_SetString(PyExc_TypeError, "indices: int32 or int64 expected");
        return -1;
    }
    d->wide = d->a[1].kind == KIND_I64;
    d->rows = d->a[0].size - 1;
    Py_ssize_t entries = d->rows >= 0 ? iget(&d->a[0], d->rows) : 0;
    if (d->rows < 0 || arr_check_size(&d->a[1], entries, "indices") || arr_check_size(&d->a[2], entries, "data") ||
        arr_check_size(&d->a[per_row], d->rows * 2, per_row == 4 ? "out" : dense))
        return -1;
    d->cells = d->a[7 - per_row].size / 2;
    d->idx = d->a[1].view.buf;
    d->data = F64(d->a[2]);
    d->dense = F64(d->a[3]);
    d->out = F64(d->a[4]);
    return 0;
}

/* design_check, the arrays released where it fails (-1, an exception set). */
static int design_get(PyObject *args, Design *d, const char *dense, int per_row) {
    if (design_check(args, d, dense, per_row) == 0) return 0;
    arr_release(d->a, 5);
    return -1;
}

static PyObject *design_done(Design *d, int bad) {
    arr_release(d->a, 5);
    if (bad) {
        PyErr_SetString(PyExc_IndexError, "a design's index is out of range");
        return NULL;
    }
    return Py_NewRef(Py_None);
}

/* Entry e's cell, for either width of the indices. */
#define INDEX(e) (d.wide ? ((const int64_t *)d.idx)[e] : (int64_t)((const int32_t *)d.idx)[e])

/* scores(indptr, indices, data, values (cells, 2), out (rows, 2)): out = A @ values. */
static PyObject *scores(PyObject *self, PyObject *args) {
    Design d = {0};
    if (design_get(args, &d, "values", 4)) return NULL;
    const double *restrict data = d.data, *restrict values = d.dense;
    double *restrict out = d.out;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < d.rows && !bad; i++) {
        int64_t lo = iget(&d.a[0], i), hi = iget(&d.a[0], i + 1);
        double s0 = 0.0, s1 = 0.0;
        for (int64_t e = lo; e < hi; e++) {
            int64_t j = INDEX(e);
            if ((uint64_t)j >= (uint64_t)d.cells) { bad = 1; break; }
            s0 += data[e] * values[2 * j];
            s1 += data[e] * values[2 * j + 1];
        }
        out[2 * i] = s0;
        out[2 * i + 1] = s1;
    }
    Py_END_ALLOW_THREADS
    return design_done(&d, bad);
}

/* gradient(indptr, indices, data, residual (rows, 2), out (cells, 2) zeroed): out += A.T @ residual. */
static PyObject *gradient(PyObject *self, PyObject *args) {
    Design d = {0};
    if (design_get(args, &d, "residual", 3)) return NULL;
    const double *restrict data = d.data, *restrict residual = d.dense;
    double *restrict out = d.out;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < d.rows && !bad; i++) {
        int64_t lo = iget(&d.a[0], i), hi = iget(&d.a[0], i + 1);
        double r0 = residual[2 * i], r1 = residual[2 * i + 1];
        for (int64_t e = lo; e < hi; e++) {
            int64_t j = INDEX(e);
            if ((uint64_t)j >= (uint64_t)d.cells) { bad = 1; break; }
            out[2 * j] += data[e] * r0;
            out[2 * j + 1] += data[e] * r1;
        }
    }
    Py_END_ALLOW_THREADS
    return design_done(&d, bad);
}

static PyMethodDef methods[] = {
    {"scores", scores, METH_VARARGS, "A CSR design's rows' scores: A @ values."},
    {"gradient", gradient, METH_VARARGS, "A CSR design's cells' gradient: out += A.T @ residual."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_design_c",
                                    "pybnc.parameters.discriminative's products in C.", -1, methods};

PyMODINIT_FUNC PyInit__design_c(void) { return PyModule_Create(&module); }
