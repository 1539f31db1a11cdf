/* SKDB's leave-one-out pass for one family (pybnc/search/leave_one_out.py documents it):
 * the counts a held-out row sees are read from the family's non-zero cells through hash
 * tables of at most as many keys as rows, instead of per-k' tables over every cell.
 * Each factor and product is the numpy code's expression in its order, so both give
 * the same bits (tested). Every code is checked: a bad one raises IndexError. */
#include "native.h"

/* Open addressing on non-negative int64 keys; -1 marks an empty slot. */
typedef struct {
    int64_t *keys, *ids;
    int64_t mask, n;
} Hash;

static int hash_init(Hash *h, Py_ssize_t most) {
    int64_t size = 16;
    while (size < 2 * most) size <<= 1;
    h->keys = malloc(size * sizeof(int64_t));
    h->ids = malloc(size * sizeof(int64_t));
    if (!h->keys || !h->ids) return -1;
    memset(h->keys, 0xff, size * sizeof(int64_t));
    h->mask = size - 1;
    h->n = 0;
    return 0;
}

static void hash_free(Hash *h) {
    free(h->keys);
    free(h->ids);
}

static inline int64_t hash_slot(const Hash *h, int64_t key) {
    uint64_t s = ((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17;
    for (;; s++) {
        int64_t at = (int64_t)(s & (uint64_t)h->mask);
        if (h->keys[at] == key || h->keys[at] < 0) return at;
    }
}

/* The id of ``key``, a new one if it is not there yet. */
static inline int64_t hash_add(Hash *h, int64_t key) {
    int64_t at = hash_slot(h, key);
    if (h->keys[at] < 0) {
        h->keys[at] = key;
        h->ids[at] = h->n++;
    }
    return h->ids[at];
}

/* The id of ``key``, -1 if it is not there. */
static inline int64_t hash_find(const Hash *h, int64_t key) {
    int64_t at = hash_slot(h, key);
    return h->keys[at] < 0 ? -1 : h->ids[at];
}

/* pybnc.parameters.learn.ratio of (num + alpha, den + r alpha): uniform where nothing is counted. */
static inline double theta(double num, double den, double r, double alpha) {
    double a = num + alpha, b = den + r * alpha;
    double t = b > 0 ? a / b : 1.0 / (r > 1 ? r : 1);
    return t > 1e-300 ? t : 1e-300;
}

/* num[g] = theta(num[g], den[config[g]]) for g < n: the factors at the cells, in place. */
NATIVE_VECTOR static void cell_thetas(double *restrict num, const double *restrict den,
                                      const int64_t *restrict config, int64_t n, double r, double alpha) {
    for (int64_t g = 0; g < n; g++) num[g] = theta(num[g], den[config[g]], r, alpha);
}

/* odds[i] *= cell[g[i]] / own[i] where the row counts (``use``: seen, and not the row's
 * own class, whose factor own / own is 1); a factor of 1 leaves the other bits as they are. */
NATIVE_VECTOR static void multiply_odds(double *restrict odds, const double *restrict cell,
                                        const int64_t *restrict g, const double *restrict own,
                                        const unsigned char *restrict seen, const int64_t *restrict ys, int64_t c,
                                        Py_ssize_t m) {
    for (Py_ssize_t i = 0; i < m; i++) {
        double factor = cell[g[i]] / own[i];
        odds[i] *= (seen[i] & (ys[i] != c)) ? factor : 1.0;
    }
}

/* family_odds(table, occupied, shape, slots, y, k, alpha, leave_out, odds, totals):
 *   table: the family's counts, flat, of shape ``shape`` = (K, s_1, .., s_p, s_child),
 *     each s a feature's levels + 1 (the last slot "missing"), parents strongest first;
 *   occupied: flat indices of a superset of its non-zero cells, or None (all are read);
 *   slots: (m, p + 1) the rows' slots of the parents and the child; y: (m,) their classes;
 *   odds: (K, k + 1, m), each class's odds against the row's own, multiplied in place by
 *     the family's factors with its first k' parents (k' = p for every candidate >= p);
 *   totals: (k + 1, m), the odds summed over the classes afterwards. */
static PyObject *family_odds(PyObject *self, PyObject *args) {
    PyObject *o[7], *occupied_obj;
    Py_ssize_t k;
    double alpha;
    int leave_out;
    if (!PyArg_ParseTuple(args, "OOOOOndpOO", &o[0], &occupied_obj, &o[1], &o[2], &o[3], &k, &alpha, &leave_out,
                          &o[4], &o[5]))
        return NULL;
    int has_occupied = occupied_obj != Py_None;
    o[6] = occupied_obj;
    Arr a[7] = {0};
    PyObject *result = NULL;
    int64_t *coords = NULL, *cell_key = NULL, *cell_config = NULL, *row_key = NULL, *row_g = NULL, *row_h = NULL;
    double *values = NULL, *num = NULL, *den = NULL, *own = NULL;
    unsigned char *seen = NULL;
    Hash keys = {0}, configs = {0};
    if (arr_get(o[0], &a[0], 'f', "table") || arr_get(o[1], &a[1], 'i', "shape") ||
        arr_get(o[2], &a[2], 'i', "slots") || arr_get(o[3], &a[3], 'i', "y") || arr_get(o[4], &a[4], 'F', "odds") ||
        arr_get(o[5], &a[5], 'F', "totals") || (has_occupied && arr_get(o[6], &a[6], 'i', "occupied")))
        goto done;
    if (a[2].kind != KIND_I64 || a[3].kind != KIND_I64 || (has_occupied && a[6].kind != KIND_I64)) {
        PyErr_SetString(PyExc_TypeError, "slots, y and occupied: int64 arrays");
        goto done;
    }
    const int64_t *slot = I64(a[2]), *ys = I64(a[3]), *cells = has_occupied ? I64(a[6]) : NULL;
    Py_ssize_t n_axes = a[1].size, n_vars = n_axes - 1, n_parents = n_axes - 2, m = a[3].size;
    if (n_axes < 2 || n_parents > k) {
        PyErr_SetString(PyExc_ValueError, "shape: (K, parents' slots.., child's slots), at most k parents");
        goto done;
    }
    int64_t shape[64];
    if (n_axes > 64) {
        PyErr_SetString(PyExc_ValueError, "shape: at most 63 features in a family");
        goto done;
    }
    Py_ssize_t size = 1;
    for (Py_ssize_t d = 0; d < n_axes; d++) {
        shape[d] = iget(&a[1], d);
        if (shape[d] < 1) {
            PyErr_SetString(PyExc_ValueError, "shape: every axis needs a slot");
            goto done;
        }
        size *= shape[d];
    }
    int64_t K = shape[0], s_child = shape[n_axes - 1];
    double r = (double)(s_child - 1);
    if (arr_check_size(&a[0], size, "table") || arr_check_size(&a[2], m * n_vars, "slots") ||
        arr_check_size(&a[4], K * (k + 1) * m, "odds") || arr_check_size(&a[5], (k + 1) * m, "totals"))
        goto done;
    Py_ssize_t n_cells = has_occupied ? a[6].size : size;
    coords = malloc((n_vars + 1) * (n_cells + 1) * sizeof(int64_t));
    values = malloc((n_cells + 1) * sizeof(double));
    cell_key = malloc((n_cells + 1) * sizeof(int64_t));
    row_key = malloc((m + 1) * sizeof(int64_t));
    row_g = malloc((m + 1) * sizeof(int64_t));
    row_h = malloc((m + 1) * sizeof(int64_t));
    cell_config = malloc((m + 1) * sizeof(int64_t));
    own = malloc((m + 1) * sizeof(double));
    seen = malloc(m + 1);
    if (!coords || !values || !cell_key || !row_key || !row_g || !row_h || !cell_config || !own || !seen ||
        hash_init(&keys, m) || hash_init(&configs, m)) {
        PyErr_NoMemory();
        goto done;
    }
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    const double *flat = F64(a[0]);
    double *odds = F64(a[4]), *totals = F64(a[5]);
    /* the non-zero cells, each as its class and one coordinate per feature */
    Py_ssize_t nnz = 0;
    for (Py_ssize_t j = 0; j < n_cells && !bad; j++) {
        int64_t at = has_occupied ? cells[j] : j;
        if (at < 0 || at >= size) { bad = 1; break; }
        double v = flat[at];
        if (v == 0.0) continue;
        for (Py_ssize_t d = n_axes - 1; d >= 0; d--) {
            coords[d * n_cells + nnz] = at % shape[d];
            at /= shape[d];
        }
        values[nnz++] = v;
    }
    for (Py_ssize_t i = 0; i < m && !bad; i++) {
        int64_t yi = ys[i];
        bad |= yi < 0 || yi >= K;
        for (Py_ssize_t d = 0; d < n_vars; d++) {
            int64_t s = slot[i * n_vars + d];
            bad |= s < 0 || s >= shape[1 + d];
        }
        row_key[i] = 0;
        seen[i] = 1;
    }
    for (Py_ssize_t j = 0; j < nnz; j++) cell_key[j] = 0;
    const int64_t *child_coord = coords + (n_axes - 1) * n_cells;
    for (Py_ssize_t kept = 0; kept <= n_parents && !bad; kept++) {
        if (kept) { /* one more parent: its slot joins every configuration */
            int64_t s = shape[kept];
            for (Py_ssize_t j = 0; j < nnz; j++) cell_key[j] = cell_key[j] * s + coords[kept * n_cells + j];
            for (Py_ssize_t i = 0; i < m; i++) {
                int64_t parent = slot[i * n_vars + kept - 1];
                row_key[i] = row_key[i] * s + parent;
                seen[i] &= parent < s - 1;
            }
        }
        /* the rows' parent configurations and cells, numbered as met */
        keys.n = configs.n = 0;
        memset(keys.keys, 0xff, (keys.mask + 1) * sizeof(int64_t));
        memset(configs.keys, 0xff, (configs.mask + 1) * sizeof(int64_t));
        for (Py_ssize_t i = 0; i < m; i++) {
            int64_t child = slot[i * n_vars + n_vars - 1];
            if (child == s_child - 1) seen[i] = 0;
            row_g[i] = row_h[i] = 0; /* read but not used where the row is not seen */
            if (!seen[i]) continue;
            row_h[i] = hash_add(&configs, row_key[i]);
            row_g[i] = hash_add(&keys, row_key[i] * s_child + child);
            cell_config[row_g[i]] = row_h[i];
        }
        int64_t G = keys.n, H = configs.n;
        free(num);
        free(den);
        num = calloc(K * G + 1, sizeof(double));
        den = calloc(K * H + 1, sizeof(double));
        if (!num || !den) { bad = 2; break; }
        /* in the order of the cells, as numpy's bincount adds them */
        for (Py_ssize_t j = 0; j < nnz; j++) {
            int64_t c = coords[j], child = child_coord[j];
            int64_t g = hash_find(&keys, cell_key[j] * s_child + child);
            if (g >= 0) num[c * G + g] += values[j];
            if (child < s_child - 1) {
                int64_t h = hash_find(&configs, cell_key[j]);
                if (h >= 0) den[c * H + h] += values[j];
            }
        }
        double lower = leave_out ? 1.0 : 0.0;
        for (Py_ssize_t i = 0; i < m; i++)
            own[i] = seen[i] ? theta(num[ys[i] * G + row_g[i]] - lower, den[ys[i] * H + row_h[i]] - lower, r, alpha)
                             : 1.0;
        /* the other classes' factors: one per cell the rows reach, not one per row */
        for (int64_t c = 0; c < K; c++) cell_thetas(num + c * G, den + c * H, cell_config, G, r, alpha);
        Py_ssize_t last = kept < n_parents ? kept : k; /* the candidates this table serves */
        for (int64_t c = 0; c < K; c++)
            for (Py_ssize_t j = kept; j <= last; j++)
                multiply_odds(odds + (c * (k + 1) + j) * m, num + c * G, row_g, own, seen, ys, c, m);
    }
    if (!bad)
        for (Py_ssize_t j = 0; j <= k; j++) {
            double *t = totals + j * m;
            for (Py_ssize_t i = 0; i < m; i++) t[i] = odds[j * m + i];
            for (int64_t c = 1; c < K; c++) {
                const double *oc = odds + (c * (k + 1) + j) * m;
                for (Py_ssize_t i = 0; i < m; i++) t[i] += oc[i];
            }
        }
    Py_END_ALLOW_THREADS
    if (bad == 2) PyErr_NoMemory();
    else if (bad) PyErr_SetString(PyExc_IndexError, "a code or cell is outside the family's table");
    else result = Py_NewRef(Py_None);
done:
    free(coords);
    free(values);
    free(cell_key);
    free(row_key);
    free(row_g);
    free(row_h);
    free(cell_config);
    free(own);
    free(seen);
    free(num);
    free(den);
    hash_free(&keys);
    hash_free(&configs);
    arr_release(a, 7);
    return result;
}

static PyMethodDef methods[] = {
    {"family_odds", family_odds, METH_VARARGS, "A family's leave-one-out factors, multiplied into the odds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_leave_one_out_c",
                                    "pybnc.search.leave_one_out's pass in C.", -1, methods};

PyMODINIT_FUNC PyInit__leave_one_out_c(void) { return PyModule_Create(&module); }
