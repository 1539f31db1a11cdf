/* The cached scorer's passes over rows (pybnc/search/_rows.py documents each): one loop
 * per pass instead of numpy's temporaries. Sums are taken in the order of the numpy
 * code, so both give the same bits (tested). Every index is checked: a bad code raises
 * IndexError instead of touching memory outside an array. */
#include "native.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static PyObject *index_error(void) {
    PyErr_SetString(PyExc_IndexError, "a code is outside its table (codes and levels disagree)");
    return NULL;
}

/* The counting loop for parent and child codes of one integer type each (the usual
 * int32 codes and int64 configurations get their own copy; other widths are read as
 * int64 blocks). Returns 1 on a code outside the table. */
#define COUNT_LOOP(NAME, TP, TX)                                                                                \
    static int NAME(const int64_t *lead, const TP *par, const TX *chi, Py_ssize_t n, Py_ssize_t n_parent,     \
                    Py_ssize_t levels, Py_ssize_t size, double *out) {                                          \
        for (Py_ssize_t i = 0; i < n; i++) {                                                                    \
            int64_t p = par[i], x = chi[i];                                                                     \
            if (p < 0 || x < 0) continue;                                                                       \
            int64_t flat = (lead[i] * n_parent + p) * levels + x;                                               \
            if (flat < 0 || flat >= size || p >= n_parent || x >= levels) return 1;                             \
            out[flat] += 1.0;                                                                                   \
        }                                                                                                       \
        return 0;                                                                                               \
    }
COUNT_LOOP(count_64_64, int64_t, int64_t)
COUNT_LOOP(count_64_32, int64_t, int32_t)
COUNT_LOOP(count_32_64, int32_t, int64_t)
COUNT_LOOP(count_32_32, int32_t, int32_t)

/* count_rows(leading, parent, child, n_parent, levels, out): out[(lead * n_parent + p) * levels + x] += 1
 * over the rows where neither p nor x is missing. */
static PyObject *count_rows(PyObject *self, PyObject *args) {
    PyObject *o[4];
    Py_ssize_t n_parent, levels;
    if (!PyArg_ParseTuple(args, "OOOnnO", &o[0], &o[1], &o[2], &n_parent, &levels, &o[3])) return NULL;
    Arr a[4] = {0};
    PyObject *result = NULL;
    if (arr_get(o[0], &a[0], 'i', "leading") || arr_get(o[1], &a[1], 'i', "parent") ||
        arr_get(o[2], &a[2], 'i', "child") || arr_get(o[3], &a[3], 'F', "out"))
        goto done;
    Py_ssize_t n = a[2].size, size = a[3].size;
    if (arr_check_size(&a[0], n, "leading") || arr_check_size(&a[1], n, "parent")) goto done;
    double *out = F64(a[3]);
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t buffers[3][NATIVE_BLOCK];
    for (Py_ssize_t start = 0; start < n && !bad; start += NATIVE_BLOCK) {
        Py_ssize_t len = n - start < NATIVE_BLOCK ? n - start : NATIVE_BLOCK;
        const int64_t *lead = iblock(&a[0], start, len, buffers[0]);
        int kp = a[1].kind, kx = a[2].kind;
        const void *par = (const char *)a[1].view.buf + start * a[1].view.itemsize;
        const void *chi = (const char *)a[2].view.buf + start * a[2].view.itemsize;
        if (kp == KIND_I64 && kx == KIND_I64) bad = count_64_64(lead, par, chi, len, n_parent, levels, size, out);
        else if (kp == KIND_I64 && kx == KIND_I32) bad = count_64_32(lead, par, chi, len, n_parent, levels, size, out);
        else if (kp == KIND_I32 && kx == KIND_I64) bad = count_32_64(lead, par, chi, len, n_parent, levels, size, out);
        else if (kp == KIND_I32 && kx == KIND_I32) bad = count_32_32(lead, par, chi, len, n_parent, levels, size, out);
        else bad = count_64_64(lead, iblock(&a[1], start, len, buffers[1]), iblock(&a[2], start, len, buffers[2]),
                               len, n_parent, levels, size, out);
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    arr_release(a, 4);
    return result;
}

/* Rows start .. start + len: each row's cell of table[g, :, p, x] (-1 where p or x is
 * missing); 0 on success. The kernels below work a block of rows at a time, with
 * scratch on the stack: a per-call allocation as large as the rows costs a page fault
 * per page on every call. */
#define ROWS_BLOCK 1024
NATIVE_VECTOR static int cells_of(const int64_t *restrict gs, const int64_t *restrict ps, const int64_t *restrict xs,
                                  Py_ssize_t len, int64_t n_groups, int64_t k, int64_t q, int64_t r,
                                  int64_t *restrict cell, int missing_allowed) {
    int64_t bad = 0;
    for (Py_ssize_t i = 0; i < len; i++) { /* without branches, so that it vectorises */
        int64_t g = gs[i], p = ps[i], x = xs[i];
        int64_t missing = (p < 0) | (x < 0);
        bad |= (g < 0) | (g >= n_groups) | (p >= q) | (x >= r) | (missing & !missing_allowed);
        cell[i] = missing ? -1 : (g * k * q + p) * r + x;
    }
    return bad ? -1 : 0;
}

static int cells(const Arr *groups, const Arr *parent, const Arr *child, Py_ssize_t start, Py_ssize_t len,
                 Py_ssize_t n_groups, Py_ssize_t k, Py_ssize_t q, Py_ssize_t r, int64_t *cell, int missing_allowed) {
    int64_t buffers[3][ROWS_BLOCK];
    return cells_of(iblock(groups, start, len, buffers[0]), iblock(parent, start, len, buffers[1]),
                    iblock(child, start, len, buffers[2]), len, n_groups, k, q, r, cell, missing_allowed);
}

/* row (+)= table value at each cell, 0 (or nothing added) where the cell is -1. */
NATIVE_VECTOR static void gather_block(double *restrict row, const double *restrict flat, const int64_t *restrict cell,
                                       Py_ssize_t len, int add) {
    if (add)
        for (Py_ssize_t i = 0; i < len; i++) row[i] += cell[i] >= 0 ? flat[cell[i] >= 0 ? cell[i] : 0] : -0.0; /* x + -0.0 == x, bit for bit */
    else
        for (Py_ssize_t i = 0; i < len; i++) row[i] = cell[i] >= 0 ? flat[cell[i] >= 0 ? cell[i] : 0] : 0.0;
}

/* gather_rows(table, G, K, q, r, groups, parent, child, out, add): out[c, i] (+)= table[g_i, c, p_i, x_i];
 * without ``add`` a row with p or x missing gets 0. */
static PyObject *gather_rows(PyObject *self, PyObject *args) {
    PyObject *o[5];
    Py_ssize_t G, K, q, r;
    int add;
    if (!PyArg_ParseTuple(args, "OnnnnOOOOp", &o[0], &G, &K, &q, &r, &o[1], &o[2], &o[3], &o[4], &add)) return NULL;
    Arr a[5] = {0};
    PyObject *result = NULL;
    if (arr_get(o[0], &a[0], 'f', "table") || arr_get(o[1], &a[1], 'i', "groups") ||
        arr_get(o[2], &a[2], 'i', "parent") || arr_get(o[3], &a[3], 'i', "child") ||
        arr_get(o[4], &a[4], 'F', "out"))
        goto done;
    Py_ssize_t n = a[3].size;
    if (arr_check_size(&a[0], G * K * q * r, "table") || arr_check_size(&a[1], n, "groups") ||
        arr_check_size(&a[2], n, "parent") || arr_check_size(&a[4], K * n, "out"))
        goto done;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    int64_t cell[ROWS_BLOCK];
    const double *flat = F64(a[0]);
    for (Py_ssize_t start = 0; start < n && !bad; start += ROWS_BLOCK) {
        Py_ssize_t len = n - start < ROWS_BLOCK ? n - start : ROWS_BLOCK;
        bad = cells(&a[1], &a[2], &a[3], start, len, G, K, q, r, cell, 1);
        for (Py_ssize_t c = 0; c < K && !bad; c++) gather_block(F64(a[4]) + c * n + start, flat + c * q * r, cell, len, add);
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    arr_release(a, 5);
    return result;
}

/* training_counts(per_fold, K, F, W, codes, fold, out): out[c, i] = sum_f per_fold[c, f, code_i]
 * - per_fold[c, fold_i, code_i]. */
static PyObject *training_counts(PyObject *self, PyObject *args) {
    PyObject *o[4];
    Py_ssize_t K, F, W;
    if (!PyArg_ParseTuple(args, "OnnnOOO", &o[0], &K, &F, &W, &o[1], &o[2], &o[3])) return NULL;
    Arr a[4] = {0};
    PyObject *result = NULL;
    double *total = NULL;
    if (arr_get(o[0], &a[0], 'f', "per_fold") || arr_get(o[1], &a[1], 'i', "codes") ||
        arr_get(o[2], &a[2], 'i', "fold") || arr_get(o[3], &a[3], 'F', "out"))
        goto done;
    Py_ssize_t n = a[1].size;
    if (arr_check_size(&a[0], K * F * W, "per_fold") || arr_check_size(&a[2], n, "fold") ||
        arr_check_size(&a[3], K * n, "out"))
        goto done;
    total = PyMem_Malloc((W ? W : 1) * sizeof(double));
    if (!total) { PyErr_NoMemory(); goto done; }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    const double *per_fold = F64(a[0]);
    for (Py_ssize_t c = 0; c < K && !bad; c++) {
        for (Py_ssize_t w = 0; w < W; w++) total[w] = 0.0;
        for (Py_ssize_t f = 0; f < F; f++)
            for (Py_ssize_t w = 0; w < W; w++) total[w] += per_fold[(c * F + f) * W + w];
        double *out = F64(a[3]) + c * n;
        const double *own = per_fold + c * F * W;
        int64_t buffers[2][NATIVE_BLOCK];
        for (Py_ssize_t start = 0; start < n && !bad; start += NATIVE_BLOCK) {
            Py_ssize_t len = n - start < NATIVE_BLOCK ? n - start : NATIVE_BLOCK;
            const int64_t *codes = iblock(&a[1], start, len, buffers[0]), *folds = iblock(&a[2], start, len, buffers[1]);
            for (Py_ssize_t i = 0; i < len; i++) {
                int64_t code = codes[i], f = folds[i];
                if (code < 0 || code >= W || f < 0 || f >= F) { bad = 1; break; }
                out[start + i] = total[code] - own[f * W + code];
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    PyMem_Free(total);
    arr_release(a, 4);
    return result;
}

/* Adds the correct predictions of rows start .. start + len (each row's best class
 * ``arg``, ties to the first) to ``tally``: four tallies of n_folds, rows taken in turn,
 * so that consecutive rows of one fold do not wait on each other's store. */
static int add_hits(const int64_t *arg, const Arr *y, const Arr *fold, Py_ssize_t start, Py_ssize_t len,
                    Py_ssize_t n_folds, int64_t *tally) {
    int64_t buffers[2][ROWS_BLOCK];
    const int64_t *ys = iblock(y, start, len, buffers[0]), *folds = iblock(fold, start, len, buffers[1]);
    for (Py_ssize_t i = 0; i < len; i++) {
        int64_t f = folds[i];
        if (f < 0 || f >= n_folds) return -1;
        tally[(i & 3) * n_folds + f] += arg[i] == ys[i];
    }
    return 0;
}

static void tally_out(const int64_t *tally, Py_ssize_t n_folds, double *out) {
    for (Py_ssize_t f = 0; f < n_folds; f++)
        out[f] = (double)(tally[f] + tally[n_folds + f] + tally[2 * n_folds + f] + tally[3 * n_folds + f]);
}

/* best[i], arg[i] = value[i], c where value[i] > best[i] (ties stay with the earlier
 * class, argmax's rule), without branches: which class wins a row is random, so a
 * branch would mispredict about half the time. */
NATIVE_VECTOR static void take_better(const double *restrict value, double *restrict best, int64_t *restrict arg, int64_t c,
                        Py_ssize_t n) {
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    __m128i class2 = _mm_set1_epi64x(c);
    for (; i + 2 <= n; i += 2) {
        __m128d v = _mm_loadu_pd(value + i), b = _mm_loadu_pd(best + i);
        __m128i wins = _mm_castpd_si128(_mm_cmpgt_pd(v, b));
        _mm_storeu_pd(best + i, _mm_max_pd(v, b));  /* v > b ? v : b */
        __m128i a = _mm_loadu_si128((const __m128i *)(arg + i));
        _mm_storeu_si128((__m128i *)(arg + i), _mm_or_si128(_mm_andnot_si128(wins, a), _mm_and_si128(wins, class2)));
    }
#endif
    for (; i < n; i++) {
        int64_t wins = -(int64_t)(value[i] > best[i]);
        best[i] = value[i] > best[i] ? value[i] : best[i];
        arg[i] = (arg[i] & ~wins) | (c & wins);
    }
}

/* sum = first + term (or - term), elementwise; ``sum`` may be ``first``. */
NATIVE_VECTOR static void add_term(double *sum, const double *first, const double *term, Py_ssize_t n, int plus) {
    if (plus)
        for (Py_ssize_t i = 0; i < n; i++) sum[i] = first[i] + term[i];
    else
        for (Py_ssize_t i = 0; i < n; i++) sum[i] = first[i] - term[i];
}

/* out = total + table value of each row's cell - minus, in that order. */
NATIVE_VECTOR static void swapped_sum(double *restrict out, const double *restrict total, const double *restrict flat,
                                      const int64_t *restrict cell, const double *restrict minus, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        double value = total[i] + flat[cell[i]];
        out[i] = value - minus[i];
    }
}

/* correct_per_fold(total, K, y, fold, n_plus, arrays, out): hits per fold of
 * total + arrays[:n_plus] - arrays[n_plus:], each (K, n), added in that order. */
static PyObject *correct_per_fold(PyObject *self, PyObject *args) {
    PyObject *o_total, *o_y, *o_fold, *o_list, *o_out;
    Py_ssize_t K, n_plus;
    if (!PyArg_ParseTuple(args, "OnOOnOO", &o_total, &K, &o_y, &o_fold, &n_plus, &o_list, &o_out)) return NULL;
    PyObject *seq = PySequence_Fast(o_list, "arrays must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    Arr *a = PyMem_Calloc(4 + m, sizeof(Arr));
    const double **terms = PyMem_Calloc(m ? m : 1, sizeof(double *));
    int64_t *tally = NULL;
    PyObject *result = NULL;
    if (!a || !terms) { PyErr_NoMemory(); goto done; }
    if (arr_get(o_total, &a[0], 'f', "total") || arr_get(o_y, &a[1], 'i', "y") ||
        arr_get(o_fold, &a[2], 'i', "fold") || arr_get(o_out, &a[3], 'F', "out"))
        goto done;
    Py_ssize_t n = a[1].size, n_folds = a[3].size;
    if (arr_check_size(&a[0], K * n, "total") || arr_check_size(&a[2], n, "fold")) goto done;
    for (Py_ssize_t j = 0; j < m; j++) {
        if (arr_get(PySequence_Fast_GET_ITEM(seq, j), &a[4 + j], 'f', "arrays[j]") ||
            arr_check_size(&a[4 + j], K * n, "arrays[j]"))
            goto done;
        terms[j] = F64(a[4 + j]);
    }
    tally = PyMem_Calloc(4 * (n_folds ? n_folds : 1), sizeof(int64_t));
    if (!tally) { PyErr_NoMemory(); goto done; }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    const double *total = F64(a[0]);
    double value[ROWS_BLOCK], best[ROWS_BLOCK];
    int64_t arg[ROWS_BLOCK];
    for (Py_ssize_t start = 0; start < n && !bad; start += ROWS_BLOCK) {
        Py_ssize_t len = n - start < ROWS_BLOCK ? n - start : ROWS_BLOCK;
        for (Py_ssize_t c = 0; c < K; c++) {
            /* the block's sums of class c, each term added over the block in turn (the
             * order numpy adds in) */
            Py_ssize_t at = c * n + start;
            double *sum = c == 0 ? best : value;
            const double *first = total + at;
            if (m == 0) memcpy(sum, first, len * sizeof(double));
            for (Py_ssize_t j = 0; j < m; j++) {
                add_term(sum, first, terms[j] + at, len, j < n_plus);
                first = sum;
            }
            if (c == 0) memset(arg, 0, len * sizeof(int64_t));
            else take_better(value, best, arg, c, len);
        }
        bad = add_hits(arg, &a[1], &a[2], start, len, n_folds, tally);
    }
    if (!bad) tally_out(tally, n_folds, F64(a[3]));
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    PyMem_Free(tally);
    if (a) arr_release(a, 4 + m);
    PyMem_Free(a);
    PyMem_Free(terms);
    Py_DECREF(seq);
    return result;
}

/* correct_per_fold_swapped(total, table, G, K, q, r, groups, parent, child, minus, y, fold, out):
 * hits per fold of total + table[g, :, p, x] - minus (rows without missing values). */
static PyObject *correct_per_fold_swapped(PyObject *self, PyObject *args) {
    PyObject *o[10];
    Py_ssize_t G, K, q, r;
    if (!PyArg_ParseTuple(args, "OOnnnnOOOOOOO", &o[0], &o[1], &G, &K, &q, &r, &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8]))
        return NULL;
    Arr a[9] = {0};
    PyObject *result = NULL;
    int64_t *tally = NULL;
    if (arr_get(o[0], &a[0], 'f', "total") || arr_get(o[1], &a[1], 'f', "table") ||
        arr_get(o[2], &a[2], 'i', "groups") || arr_get(o[3], &a[3], 'i', "parent") ||
        arr_get(o[4], &a[4], 'i', "child") || arr_get(o[5], &a[5], 'f', "minus") ||
        arr_get(o[6], &a[6], 'i', "y") || arr_get(o[7], &a[7], 'i', "fold") || arr_get(o[8], &a[8], 'F', "out"))
        goto done;
    Py_ssize_t n = a[4].size, n_folds = a[8].size;
    if (arr_check_size(&a[0], K * n, "total") || arr_check_size(&a[1], G * K * q * r, "table") ||
        arr_check_size(&a[2], n, "groups") || arr_check_size(&a[3], n, "parent") ||
        arr_check_size(&a[5], K * n, "minus") || arr_check_size(&a[6], n, "y") || arr_check_size(&a[7], n, "fold"))
        goto done;
    tally = PyMem_Calloc(4 * (n_folds ? n_folds : 1), sizeof(int64_t));
    if (!tally) { PyErr_NoMemory(); goto done; }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    const double *total = F64(a[0]), *flat = F64(a[1]), *minus = F64(a[5]);
    double scratch[ROWS_BLOCK], best[ROWS_BLOCK];
    int64_t cell[ROWS_BLOCK], arg[ROWS_BLOCK];
    for (Py_ssize_t start = 0; start < n && !bad; start += ROWS_BLOCK) {
        Py_ssize_t len = n - start < ROWS_BLOCK ? n - start : ROWS_BLOCK;
        bad = cells(&a[2], &a[3], &a[4], start, len, G, K, q, r, cell, 0);
        for (Py_ssize_t c = 0; c < K && !bad; c++) {
            swapped_sum(c == 0 ? best : scratch, total + c * n + start, flat + c * q * r, cell, minus + c * n + start, len);
            if (c == 0) memset(arg, 0, len * sizeof(int64_t));
            else take_better(scratch, best, arg, c, len);
        }
        if (!bad) bad = add_hits(arg, &a[6], &a[7], start, len, n_folds, tally);
    }
    if (!bad) tally_out(tally, n_folds, F64(a[8]));
    Py_END_ALLOW_THREADS
    if (bad) index_error();
    else result = Py_NewRef(Py_None);
done:
    PyMem_Free(tally);
    arr_release(a, 9);
    return result;
}

/* compact_join(left, right, right_levels, space, codes, keys) -> number of keys: each
 * observed key left * right_levels + right relabelled 0.. in increasing key order. */
static PyObject *compact_join(PyObject *self, PyObject *args) {
    PyObject *o[4];
    Py_ssize_t right_levels, space;
    if (!PyArg_ParseTuple(args, "OOnnOO", &o[0], &o[1], &right_levels, &space, &o[2], &o[3])) return NULL;
    Arr a[4] = {0};
    PyObject *result = NULL;
    int64_t *label = NULL;
    if (arr_get(o[0], &a[0], 'i', "left") || arr_get(o[1], &a[1], 'i', "right") ||
        arr_get(o[2], &a[2], 'L', "codes") || arr_get(o[3], &a[3], 'L', "keys"))
        goto done;
    Py_ssize_t n = a[0].size;
    if (arr_check_size(&a[1], n, "right") || arr_check_size(&a[2], n, "codes")) goto done;
    label = PyMem_Malloc((space ? space : 1) * sizeof(int64_t));
    if (!label) { PyErr_NoMemory(); goto done; }
    int bad = 0;
    Py_ssize_t n_keys = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t key = 0; key < space; key++) label[key] = -1;
    int64_t buffers[2][NATIVE_BLOCK];
    for (Py_ssize_t start = 0; start < n && !bad; start += NATIVE_BLOCK) {
        Py_ssize_t len = n - start < NATIVE_BLOCK ? n - start : NATIVE_BLOCK;
        const int64_t *ls = iblock(&a[0], start, len, buffers[0]), *rs = iblock(&a[1], start, len, buffers[1]);
        for (Py_ssize_t i = 0; i < len; i++) {
            int64_t l = ls[i], r = rs[i];
            if (l >= 0 && r >= 0) {
                int64_t key = l * right_levels + r;
                if (r >= right_levels || key >= space) { bad = 1; break; }
                label[key] = 0;
            }
        }
    }
    if (!bad) {
        for (Py_ssize_t key = 0; key < space; key++)
            if (label[key] == 0) label[key] = n_keys++;
        if (n_keys > a[3].size) bad = 2;
    }
    if (!bad) {
        int64_t *keys = I64(a[3]), *codes = I64(a[2]);
        for (Py_ssize_t key = 0; key < space; key++)
            if (label[key] >= 0) keys[label[key]] = key;
        for (Py_ssize_t start = 0; start < n; start += NATIVE_BLOCK) {
            Py_ssize_t len = n - start < NATIVE_BLOCK ? n - start : NATIVE_BLOCK;
            const int64_t *ls = iblock(&a[0], start, len, buffers[0]), *rs = iblock(&a[1], start, len, buffers[1]);
            for (Py_ssize_t i = 0; i < len; i++)
                codes[start + i] = (ls[i] >= 0 && rs[i] >= 0) ? label[ls[i] * right_levels + rs[i]] : -1;
        }
    }
    Py_END_ALLOW_THREADS
    if (bad == 1) index_error();
    else if (bad == 2) PyErr_SetString(PyExc_ValueError, "keys: too short for the observed keys");
    else result = PyLong_FromSsize_t(n_keys);
done:
    PyMem_Free(label);
    arr_release(a, 4);
    return result;
}

static PyMethodDef methods[] = {
    {"count_rows", count_rows, METH_VARARGS, "Counts of (leading, parent, child) cells."},
    {"gather_rows", gather_rows, METH_VARARGS, "A table's value per row and class."},
    {"training_counts", training_counts, METH_VARARGS, "Each row's count in its training folds."},
    {"correct_per_fold", correct_per_fold, METH_VARARGS, "Hits per fold of a sum of (K, n) arrays."},
    {"correct_per_fold_swapped", correct_per_fold_swapped, METH_VARARGS, "Hits per fold with a family swapped."},
    {"compact_join", compact_join, METH_VARARGS, "Observed keys of a join, relabelled."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rows_c", "pybnc.search._rows' passes in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__rows_c(void) { return PyModule_Create(&module); }
