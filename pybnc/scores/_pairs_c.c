/* Every feature pair's N I(X_i; X_j | C) straight from the coded rows
 * (pybnc/scores/pair_rows.py documents it and keeps the numpy version): a pair costs two
 * passes over its rows and no pass over its cells, so a wide table with few rows never
 * holds, nor sums, the K x W x W pair counts. Every code is checked: a code outside its
 * feature's levels raises IndexError instead of touching memory outside the tables. */
#include "native.h"

static PyObject *index_error(void) {
    PyErr_SetString(PyExc_IndexError, "a code is outside its feature's levels (codes and cardinalities disagree)");
    return NULL;
}

/* Sum of xlogx over the cells the rows touched (each read once: it is cleared after
 * its read, and a cell read again reads 0 log 0 = 0), four running sums so that the
 * additions do not wait on each other. */
static inline double read_and_clear(int32_t *table, const int32_t *cell_of, Py_ssize_t n, const double *xlogx) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    Py_ssize_t r = 0;
    for (; r + 4 <= n; r += 4) {
        int32_t c0 = cell_of[r], c1 = cell_of[r + 1], c2 = cell_of[r + 2], c3 = cell_of[r + 3];
        s0 += xlogx[table[c0]]; table[c0] = 0;
        s1 += xlogx[table[c1]]; table[c1] = 0;
        s2 += xlogx[table[c2]]; table[c2] = 0;
        s3 += xlogx[table[c3]]; table[c3] = 0;
    }
    for (; r < n; r++) { s0 += xlogx[table[cell_of[r]]]; table[cell_of[r]] = 0; }
    return (s0 + s1) + (s2 + s3);
}

/* pair_terms(codes_t, y, cards, n_classes, complete, xlogx, level_terms, class_term, terms, n_pair)
 *
 * codes_t (d, n) int32, -1 missing; y (n,) int32 in 0 .. n_classes - 1; cards (d,) int64;
 * complete (d,) uint8, 1 where the feature is observed in every row; xlogx (n + 1,) float64,
 * m log m of every count m (0 at 0); level_terms (d,) float64, sum_{c,a} N(c, a) log N(c, a) of a
 * complete feature; class_term = sum_c N(c) log N(c). Writes, for i < j, terms[i, j] =
 * sum N(c,a,b) log N(c,a,b) + sum N(c) log N(c) - sum N(c,a) log N(c,a) - sum N(c,b) log N(c,b)
 * over the rows where both are observed, and n_pair[i, j] = the number of those rows.
 *
 * A pair is two passes over its rows: the first adds each row to its cell (and, where
 * either feature has missing values, to the pair's margins, over the rows where both are
 * observed), the second reads each touched cell's m log m and clears it. Between two
 * complete features the margins are the level counts, read from level_terms. */
static PyObject *pair_terms(PyObject *self, PyObject *args) {
    PyObject *o[8];
    Py_ssize_t n_classes;
    double class_term;
    if (!PyArg_ParseTuple(args, "OOOnOOOdOO", &o[0], &o[1], &o[2], &n_classes, &o[3], &o[4], &o[5], &class_term,
                          &o[6], &o[7]))
        return NULL;
    Arr a[8] = {0};
    PyObject *result = NULL;
    int32_t *scratch = NULL;
    if (arr_get(o[0], &a[0], 'i', "codes_t") || arr_get(o[1], &a[1], 'i', "y") || arr_get(o[2], &a[2], 'L', "cards") ||
        arr_get(o[3], &a[3], 'i', "complete") || arr_get(o[4], &a[4], 'f', "xlogx") ||
        arr_get(o[5], &a[5], 'f', "level_terms") || arr_get(o[6], &a[6], 'F', "terms") ||
        arr_get(o[7], &a[7], 'F', "n_pair"))
        goto done;
    if (a[0].kind != KIND_I32 || a[1].kind != KIND_I32 || a[3].kind != KIND_U8) {
        PyErr_SetString(PyExc_TypeError, "codes_t and y must be int32, complete uint8");
        goto done;
    }
    const Py_ssize_t d = a[2].size, n = a[1].size, K = n_classes;
    if (K < 1) { PyErr_SetString(PyExc_ValueError, "n_classes must be positive"); goto done; }
    if (arr_check_size(&a[0], d * n, "codes_t") || arr_check_size(&a[3], d, "complete") ||
        arr_check_size(&a[4], n + 1, "xlogx") || arr_check_size(&a[5], d, "level_terms") ||
        arr_check_size(&a[6], d * d, "terms") || arr_check_size(&a[7], d * d, "n_pair"))
        goto done;
    const int32_t *codes = (const int32_t *)a[0].view.buf, *y = (const int32_t *)a[1].view.buf;
    const int64_t *cards = I64(a[2]);
    const uint8_t *complete = (const uint8_t *)a[3].view.buf;
    const double *xlogx = F64(a[4]), *level_terms = F64(a[5]);
    double *terms = F64(a[6]), *n_pair = F64(a[7]);
    int64_t r_max = 1, r_next = 1; /* the two largest cardinalities bound every pair's table */
    for (Py_ssize_t i = 0; i < d; i++) {
        if (cards[i] < 0) { PyErr_SetString(PyExc_ValueError, "cards: a negative cardinality"); goto done; }
        if (cards[i] >= r_max) { r_next = r_max; r_max = cards[i]; }
        else if (cards[i] > r_next) r_next = cards[i];
    }
    if (K * r_max * r_next > INT32_MAX / 2) { PyErr_SetString(PyExc_ValueError, "a pair's table is too large"); goto done; }
    for (Py_ssize_t r = 0; r < n; r++)
        if (y[r] < 0 || y[r] >= K) { index_error(); goto done; }
    const Py_ssize_t cells = K * r_max * r_next, margin = K * r_max;
    /* the joint cells, both margins, the class totals; each row's (class, x_i), cell and margins */
    scratch = PyMem_Calloc((size_t)(cells + 2 * margin + K + 5 * n + 1), sizeof(int32_t));
    if (scratch == NULL) { PyErr_NoMemory(); goto done; }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    int32_t *joint = scratch, *left = joint + cells, *right = left + margin, *per_class = right + margin;
    int32_t *lead = per_class + K, *cell_of = lead + n, *left_of = cell_of + n, *right_of = left_of + n,
            *class_of = right_of + n;
    for (Py_ssize_t i = 0; i < d && !bad; i++) {
        const int32_t *xi = codes + i * n;
        const int64_t ri = cards[i];
        for (Py_ssize_t r = 0; r < n; r++) {
            if (xi[r] >= ri || (complete[i] && xi[r] < 0)) { bad = 1; break; }
            lead[r] = xi[r] < 0 ? -1 : (int32_t)(y[r] * ri + xi[r]);
        }
        for (Py_ssize_t j = i + 1; j < d && !bad; j++) {
            const int32_t *xj = codes + j * n;
            const int32_t rj = (int32_t)cards[j];
            if (complete[i] && complete[j]) {
                for (Py_ssize_t r = 0; r < n; r++) {
                    int32_t b = xj[r];
                    if ((uint32_t)b >= (uint32_t)rj) { bad = 1; break; }
                    int32_t cell = lead[r] * rj + b;
                    cell_of[r] = cell;
                    joint[cell]++;
                }
                if (bad) break;
                terms[i * d + j] = read_and_clear(joint, cell_of, n, xlogx) + class_term - level_terms[i] - level_terms[j];
                n_pair[i * d + j] = (double)n;
                continue;
            }
            Py_ssize_t both = 0;
            for (Py_ssize_t r = 0; r < n; r++) {
                int32_t b = xj[r];
                if (b >= rj) { bad = 1; break; }
                if (lead[r] < 0 || b < 0) continue;
                cell_of[both] = lead[r] * rj + b;
                left_of[both] = lead[r];
                right_of[both] = y[r] * rj + b;
                class_of[both] = y[r];
                joint[cell_of[both]]++; left[left_of[both]]++; right[right_of[both]]++; per_class[y[r]]++;
                both++;
            }
            if (bad) break;
            terms[i * d + j] = read_and_clear(joint, cell_of, both, xlogx) + read_and_clear(per_class, class_of, both, xlogx)
                               - read_and_clear(left, left_of, both, xlogx) - read_and_clear(right, right_of, both, xlogx);
            n_pair[i * d + j] = (double)both;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    PyMem_Free(scratch);
    arr_release(a, 8);
    return result;
}

static PyMethodDef methods[] = {
    {"pair_terms", pair_terms, METH_VARARGS, "N I(X_i; X_j | C) and N of every pair i < j, from the coded rows."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pairs_c", "pybnc.scores.pair_rows' kernel in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__pairs_c(void) { return PyModule_Create(&module); }
