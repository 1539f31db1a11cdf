/* Fayyad & Irani's recursive MDLP over the ordered groups of many columns at once
 * (pybnc/encode/mdl_columns.py's _split_levels documents it). numpy scores a level of
 * the recursion in a few dozen array operations over every candidate cut of every open
 * segment; here each segment is one loop over its candidates, without the temporaries.
 *
 * The cuts are numpy's to the bit: every quantity is computed with the same formula in
 * the same order. The entropy of a row of counts is scipy's entr (-p log p, libm's log)
 * summed as numpy's add.reduce sums a contiguous row (pairwise, in eight lanes); the
 * logarithms numpy takes of a segment's size and of 3^k - 2 come in as tables, and ln 2
 * as numpy computed it. A segment's best cut is the first of largest gain, as np.argmax
 * takes it (tested against the numpy version). */
#include "native.h"

/* numpy's pairwise summation of n doubles (numpy/_core/src/umath/loops_utils.h.src). */
static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = -0.0;
        for (Py_ssize_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) r[j] = a[j];
        Py_ssize_t i;
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

/* Entropy in bits of k counts (total > 0), as _entropy_bits computes it. terms:
 * scratch of k doubles. */
static double entropy_bits(const int64_t *counts, Py_ssize_t k, double ln2, double *terms) {
    int64_t total = 0;
    for (Py_ssize_t c = 0; c < k; c++) total += counts[c];
    for (Py_ssize_t c = 0; c < k; c++) {
        double p = (double)counts[c] / (double)total;
        terms[c] = p > 0 ? -p * log(p) : 0.0;
    }
    return pairwise_sum(terms, k) / ln2;
}

/* The nonzero counts among k. */
static int64_t nonzero(const int64_t *counts, Py_ssize_t k) {
    int64_t n = 0;
    for (Py_ssize_t c = 0; c < k; c++) n += counts[c] != 0;
    return n;
}

/* mdl_splits(cum, rows, starts, log2_rows, log2_classes, ln2, out) -> accepted
 *
 * cum: (G + 1, K) int64, cum[i] the class counts of groups 0..i-1; rows: (G + 1,) int64
 * their row counts; starts: (C + 1,) int64, column j's groups starts[j]..starts[j+1]-1;
 * log2_rows[n] = log2(n) for n = 0..rows[G]; log2_classes[k] = log2(3^k - 2) for k =
 * 0..K; out: (G,) int64 receives the groups before which a cut is accepted. */
static PyObject *mdl_splits(PyObject *self, PyObject *args) {
    PyObject *o[6];
    double ln2;
    if (!PyArg_ParseTuple(args, "OOOOOdO", &o[0], &o[1], &o[2], &o[3], &o[4], &ln2, &o[5])) return NULL;
    Arr a[6] = {0};
    PyObject *result = NULL;
    int64_t *stack = NULL, *left = NULL;
    double *terms = NULL;
    if (arr_get(o[0], &a[0], 'L', "cum") || arr_get(o[1], &a[1], 'L', "rows") || arr_get(o[2], &a[2], 'L', "starts") ||
        arr_get(o[3], &a[3], 'f', "log2_rows") || arr_get(o[4], &a[4], 'f', "log2_classes") ||
        arr_get(o[5], &a[5], 'L', "out"))
        goto done;
    Py_ssize_t n_bounds = a[1].size, n_groups = n_bounds - 1, n_columns = a[2].size - 1;
    if (n_groups < 0 || n_columns < 0 || a[0].size % (n_bounds ? n_bounds : 1) || a[5].size < n_groups) {
        PyErr_SetString(PyExc_ValueError, "mdl_splits: cum, rows, starts and out disagree");
        goto done;
    }
    Py_ssize_t k = n_bounds ? a[0].size / n_bounds : 0;
    const int64_t *cum = (const int64_t *)a[0].view.buf, *rows = (const int64_t *)a[1].view.buf;
    const int64_t *starts = (const int64_t *)a[2].view.buf;
    const double *log2_rows = F64(a[3]), *log2_classes = F64(a[4]);
    int64_t *out = (int64_t *)a[5].view.buf;
    if (k < 1 || a[4].size < k + 1 || (n_groups && a[3].size <= rows[n_groups])) {
        PyErr_SetString(PyExc_ValueError, "mdl_splits: the log tables are too short");
        goto done;
    }
    for (Py_ssize_t j = 0; j < n_columns; j++)
        if (starts[j] < 0 || starts[j] > starts[j + 1] || starts[j + 1] > n_groups) {
            PyErr_SetString(PyExc_ValueError, "mdl_splits: starts are not increasing within the groups");
            goto done;
        }
    stack = PyMem_Malloc(sizeof(int64_t) * 2 * (n_groups + n_columns + 1));
    left = PyMem_Malloc(sizeof(int64_t) * 3 * k);
    terms = PyMem_Malloc(sizeof(double) * k);
    if (!stack || !left || !terms) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *right = left + k, *total = left + 2 * k;
    Py_ssize_t accepted = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t j = 0; j < n_columns; j++) {
        Py_ssize_t depth = 0;
        stack[0] = starts[j], stack[1] = starts[j + 1], depth = 1;
        while (depth) {
            depth--;
            int64_t lo = stack[2 * depth], hi = stack[2 * depth + 1];
            if (hi - lo < 2) continue;
            for (Py_ssize_t c = 0; c < k; c++) total[c] = cum[hi * k + c] - cum[lo * k + c];
            double s = entropy_bits(total, k, ln2, terms);
            if (s == 0.0) continue; /* a pure segment can never gain information */
            int64_t n_seg = rows[hi] - rows[lo], best = -1;
            double best_gain = 0.0, best_left = 0.0, best_right = 0.0;
            for (int64_t cut = lo + 1; cut < hi; cut++) {
                for (Py_ssize_t c = 0; c < k; c++) {
                    left[c] = cum[cut * k + c] - cum[lo * k + c];
                    right[c] = total[c] - left[c];
                }
                int64_t n_left = rows[cut] - rows[lo];
                double ent_l = entropy_bits(left, k, ln2, terms);
                double ent_r = entropy_bits(right, k, ln2, terms);
                double gain = s - ((double)n_left * ent_l + (double)(n_seg - n_left) * ent_r) / (double)n_seg;
                if (best < 0 || gain > best_gain) best = cut, best_gain = gain, best_left = ent_l, best_right = ent_r;
            }
            for (Py_ssize_t c = 0; c < k; c++) left[c] = cum[best * k + c] - cum[lo * k + c], right[c] = total[c] - left[c];
            int64_t classes = nonzero(total, k), k1 = nonzero(left, k), k2 = nonzero(right, k);
            double delta = log2_classes[classes] - ((double)classes * s - (double)k1 * best_left - (double)k2 * best_right);
            double margin = best_gain - (log2_rows[n_seg - 1] + delta) / (double)n_seg;
            if (margin > 0) {
                out[accepted++] = best;
                stack[2 * depth] = lo, stack[2 * depth + 1] = best, depth++;
                stack[2 * depth] = best, stack[2 * depth + 1] = hi, depth++;
            }
        }
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(accepted);
done:
    PyMem_Free(stack);
    PyMem_Free(left);
    PyMem_Free(terms);
    arr_release(a, 6);
    return result;
}

/* entropies(counts, ln2, out): entropy_bits of each row of counts ((m, K) int64, no
 * empty row) into out ((m,) float64): the kernel's entropy, for the test that holds it
 * to numpy's bit for bit. */
static PyObject *entropies(PyObject *self, PyObject *args) {
    PyObject *o[2];
    double ln2;
    if (!PyArg_ParseTuple(args, "OdO", &o[0], &ln2, &o[1])) return NULL;
    Arr a[2] = {0};
    PyObject *result = NULL;
    double *terms = NULL;
    if (arr_get(o[0], &a[0], 'L', "counts") || arr_get(o[1], &a[1], 'F', "out")) goto done;
    Py_ssize_t m = a[1].size, k = m ? a[0].size / m : 0;
    if (k < 1 || a[0].size != m * k) {
        PyErr_SetString(PyExc_ValueError, "entropies: counts must hold len(out) rows of at least one class");
        goto done;
    }
    if (!(terms = PyMem_Malloc(sizeof(double) * k))) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *counts = (const int64_t *)a[0].view.buf;
    for (Py_ssize_t i = 0; i < m; i++) F64(a[1])[i] = entropy_bits(counts + i * k, k, ln2, terms);
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(terms);
    arr_release(a, 2);
    return result;
}

static PyMethodDef methods[] = {
    {"mdl_splits", mdl_splits, METH_VARARGS, "Fayyad & Irani's accepted cuts over the groups of many columns."},
    {"entropies", entropies, METH_VARARGS, "The entropy in bits of each row of counts."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_mdl_c", "pybnc.encode.mdl_columns' recursion in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__mdl_c(void) { return PyModule_Create(&module); }
