/* The two products of a discriminative fit's every evaluation (pybnc.parameters.discriminative):
 * the rows' scores ``A @ V`` and the cells' gradient ``A.T @ R``, for a CSR design ``A``
 * (rows x cells) and values of K classes per cell or per row.
 *
 * scipy's csr_matvecs and csc_matvecs do the same sums in the same order (each row's
 * entries in turn, into a zeroed output), so the results are the same to the bit; here
 * the classes' loop is unrolled for the common K = 2 and an entry costs its index, its
 * value and K products, which makes a fit of AODE's weights (millions of entries read a
 * few hundred times) about twice as fast. */
#include "native.h"

/* The CSR arrays and the dense operands of one call, checked. */
typedef struct {
    Arr a[5];
    Py_ssize_t rows, entries;
} Design;

static int design_get(PyObject *const *o, Design *d, const char *dense) {
    if (arr_get(o[0], &d->a[0], 'i', "indptr") || arr_get(o[1], &d->a[1], 'i', "indices") ||
        arr_get(o[2], &d->a[2], 'f', "data") || arr_get(o[3], &d->a[3], 'f', dense) ||
        arr_get(o[4], &d->a[4], 'F', "out"))
        return -1;
    if (d->a[1].kind != KIND_I32 && d->a[1].kind != KIND_I64) {
        PyErr_SetString(PyExc_TypeError, "indices: int32 or int64 expected");
        return -1;
    }
    d->rows = d->a[0].size - 1;
    d->entries = d->rows >= 0 ? iget(&d->a[0], d->rows) : 0;
    if (d->rows < 0 || arr_check_size(&d->a[1], d->entries, "indices") ||
        arr_check_size(&d->a[2], d->entries, "data"))
        return -1;
    return 0;
}

static void index_error(void) { PyErr_SetString(PyExc_IndexError, "a design's index is out of range"); }

/* Entry e of row i's index, for either width. */
#define INDEX(e) (wide ? ((const int64_t *)idx)[e] : (int64_t)((const int32_t *)idx)[e])

/* scores(indptr, indices, data, values (cells, K), out (rows, K)): out = A @ values. */
static PyObject *scores(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OOOOOn", &o[0], &o[1], &o[2], &o[3], &o[4], &k)) return NULL;
    Design d = {0};
    PyObject *result = NULL;
    if (design_get(o, &d, "values")) goto done;
    if (k < 1 || arr_check_size(&d.a[4], d.rows * k, "out")) goto done;
    Py_ssize_t cells = d.a[3].size / k;
    const void *idx = d.a[1].view.buf;
    int wide = d.a[1].kind == KIND_I64, bad = 0;
    const double *data = F64(d.a[2]), *values = F64(d.a[3]);
    double *out = F64(d.a[4]);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < d.rows && !bad; i++) {
        int64_t lo = iget(&d.a[0], i), hi = iget(&d.a[0], i + 1);
        if (k == 2) {
            double s0 = 0.0, s1 = 0.0;
            for (int64_t e = lo; e < hi; e++) {
                int64_t j = INDEX(e);
                if ((uint64_t)j >= (uint64_t)cells) { bad = 1; break; }
                s0 += data[e] * values[2 * j];
                s1 += data[e] * values[2 * j + 1];
            }
            out[2 * i] = s0;
            out[2 * i + 1] = s1;
        } else {
            double *row = out + i * k;
            for (Py_ssize_t c = 0; c < k; c++) row[c] = 0.0;
            for (int64_t e = lo; e < hi; e++) {
                int64_t j = INDEX(e);
                if ((uint64_t)j >= (uint64_t)cells) { bad = 1; break; }
                const double *v = values + j * k;
                for (Py_ssize_t c = 0; c < k; c++) row[c] += data[e] * v[c];
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    arr_release(d.a, 5);
    return result;
}

/* gradient(indptr, indices, data, residual (rows, K), out (cells, K), zeroed): out += A.T @ residual. */
static PyObject *gradient(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OOOOOn", &o[0], &o[1], &o[2], &o[3], &o[4], &k)) return NULL;
    Design d = {0};
    PyObject *result = NULL;
    if (design_get(o, &d, "residual")) goto done;
    if (k < 1 || arr_check_size(&d.a[3], d.rows * k, "residual")) goto done;
    Py_ssize_t cells = d.a[4].size / k;
    const void *idx = d.a[1].view.buf;
    int wide = d.a[1].kind == KIND_I64, bad = 0;
    const double *data = F64(d.a[2]), *residual = F64(d.a[3]);
    double *out = F64(d.a[4]);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < d.rows && !bad; i++) {
        int64_t lo = iget(&d.a[0], i), hi = iget(&d.a[0], i + 1);
        const double *r = residual + i * k;
        for (int64_t e = lo; e < hi; e++) {
            int64_t j = INDEX(e);
            if ((uint64_t)j >= (uint64_t)cells) { bad = 1; break; }
            double *g = out + j * k;
            if (k == 2) {
                g[0] += data[e] * r[0];
                g[1] += data[e] * r[1];
            } else {
                for (Py_ssize_t c = 0; c < k; c++) g[c] += data[e] * r[c];
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    arr_release(d.a, 5);
    return result;
}

static PyMethodDef methods[] = {
    {"scores", scores, METH_VARARGS, "A CSR design's rows' scores: A @ values."},
    {"gradient", gradient, METH_VARARGS, "A CSR design's cells' gradient: out += A.T @ residual."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_design_c",
                                    "pybnc.parameters.discriminative's products in C.", -1, methods};

PyMODINIT_FUNC PyInit__design_c(void) { return PyModule_Create(&module); }
