/* Log-determinants of weighted Laplacian minors, subtraction-free (pybnc/averaging/
 * _laplacian.py documents the elimination), for batches of graphs and for TBMATAN's
 * rows x classes: in linear arithmetic with rescaling, no log or exp per update.
 *
 * Every update w_uv += (w_uk / d_k) w_kv only adds, so each step has a small relative
 * error whatever the conditioning; what linear arithmetic must guard is the range.
 * TBMATAN's Bayes factors on large tables span tens of thousands of nats, far past a
 * double's e^-745 .. e^709, so each weight is held as a double m times 2^(512 e), m kept
 * within 2^-256 .. 2^256 (a "block exponent" e, held as a double so that the loops
 * vectorise). Two numbers whose blocks differ by 2 or more differ by at least 2^256:
 * adding the smaller changes nothing; by one, the smaller is scaled by 2^-512 exactly.
 * When all of a graph's weights lie within e^DOUBLE_RANGE of each other the blocks are
 * not needed: the weights are scaled so that the largest is e^(700 - log n), every
 * entry of every step then stays a normal double (an entry only grows, a row's sum
 * never does), and each update's product is taken as
 *     (larger of w_uk, w_kv) / d_k * (smaller):
 * a quotient too small to be represented then belongs to a product below e^-700 of
 * e^(700 - log n), at most e^-40 of the smallest entry it could be added to. */
#include "native.h"
#if defined(__SSE2__)
#include <xmmintrin.h>
/* Subnormal results flushed to zero (and read as zero) while a kernel runs: x86 takes a
 * slow path for each subnormal operand. The plain-double scale below keeps every entry
 * far enough above the subnormals that a flushed product is negligible. */
#define FLUSH_SUBNORMALS unsigned int saved_csr = _mm_getcsr(); _mm_setcsr(saved_csr | 0x8040);
#define RESTORE_SUBNORMALS _mm_setcsr(saved_csr);
#else
#define FLUSH_SUBNORMALS
#define RESTORE_SUBNORMALS
#endif

#define FLOOR (-1e300)        /* log weights at or below: no edge */
#define DOUBLE_RANGE 1300.0   /* nats between the largest and smallest weight, plain doubles */
#define BLOCK_LOG (512.0 * M_LN2)
#define NO_BLOCK (-1e9)       /* the block of a zero */

static const double BLOCK = 0x1p512, INV_BLOCK = 0x1p-512, HIGH = 0x1p256, LOW = 0x1p-256;

/* m 2^(512 e) = exp(x). */
static inline void to_blocks(double x, double *m, double *e) {
    if (!(x > 0.5 * FLOOR)) {
        *m = 0.0, *e = NO_BLOCK;
        return;
    }
    double block = nearbyint(x / BLOCK_LOG);
    *m = exp(x - block * BLOCK_LOG);
    *e = block;
}

/* (m, e) with m brought back within 2^-256 .. 2^256 (m up to 2^+-768 on entry). */
static inline void normalise(double *m, double *e) {
    if (*m >= HIGH) *m *= INV_BLOCK, *e += 1.0;
    else if (*m < LOW && *m > 0.0) *m *= BLOCK, *e -= 1.0;
}

/* (mt, et) += (mp, ep), normalised. */
static inline void add_blocks(double *mt, double *et, double mp, double ep) {
    double d = *et - ep;
    if (d >= 0.0) *mt += d < 0.5 ? mp : (d < 1.5 ? mp * INV_BLOCK : 0.0);
    else {
        *mt = mp + (d > -1.5 ? (d > -0.5 ? *mt : *mt * INV_BLOCK) : 0.0);
        *et = ep;
    }
    normalise(mt, et);
}

/* target += f * row over ``len`` entries, every number in blocks: the inner loop of the
 * elimination, written without branches so that it vectorises. */
NATIVE_VECTOR static void blocks_axpy(double *restrict mt, double *restrict et, const double *restrict mr,
                                      const double *restrict er, double mf, double ef, Py_ssize_t len) {
    for (Py_ssize_t v = 0; v < len; v++) {
        double mp = mf * mr[v], ep = ef + er[v], target = mt[v], block = et[v], d = block - ep;
        /* one select at a time, every value computed: the compiler turns them into blends */
        double big = mp, small = target, e = ep, gap = -d;
        big = d >= 0.0 ? target : big;
        small = d >= 0.0 ? mp : small;
        e = d >= 0.0 ? block : e;
        gap = d >= 0.0 ? d : gap;
        double scale = 0.0;
        scale = gap < 1.5 ? INV_BLOCK : scale;
        scale = gap < 0.5 ? 1.0 : scale;
        double m = big + small * scale, down = m * INV_BLOCK, up = m * BLOCK, e_down = e + 1.0, e_up = e - 1.0;
        double out_m = m, out_e = e;
        out_m = m >= HIGH ? down : out_m;
        out_e = m >= HIGH ? e_down : out_e;
        out_m = m < LOW ? up : out_m;
        out_e = m < LOW ? e_up : out_e;
        mt[v] = out_m;
        et[v] = out_e;
    }
}

/* Log tree sum from the lower triangle (m, e) (n1 x n1, entries v < u) and the ground
 * edges, in blocks (all overwritten). */
static double eliminate_blocks(double *m, double *e, double *mg, double *eg, Py_ssize_t n1) {
    double total = 0.0;
    for (Py_ssize_t k = n1 - 1; k >= 0; k--) {
        const double *mrow = m + k * n1, *erow = e + k * n1;
        double mp = mg[k], ep = eg[k];
        for (Py_ssize_t v = 0; v < k; v++) add_blocks(&mp, &ep, mrow[v], erow[v]);
        if (!(mp > 0.0)) return -INFINITY; /* node k cut off: no spanning tree */
        total += log(mp) + ep * BLOCK_LOG;
        double inverse = 1.0 / mp;
        for (Py_ssize_t u = 0; u < k; u++) {
            double mf = mrow[u] * inverse, ef = erow[u] - ep; /* w_uk / d_k */
            normalise(&mf, &ef);
            add_blocks(&mg[u], &eg[u], mf * mg[k], ef + eg[k]);
            blocks_axpy(m + u * n1, e + u * n1, mrow, erow, mf, ef, u);
        }
    }
    return total;
}

/* The log of the largest weight for the plain-double elimination of weights spanning
 * ``range`` nats: the smallest stays e^48 above the subnormals (e^-660; a product flushed
 * to zero is below e^-48 of any entry), every row sum (at most n times the largest)
 * below e^709, and the largest as near 1 as that allows (the pivots' logs are then small
 * numbers, summed without losing digits). */
static double double_top(double range, Py_ssize_t n1) {
    double top = range - 660.0, ceiling = 700.0 - log((double)(n1 + 1));
    return top < 0.0 ? 0.0 : (top > ceiling ? ceiling : top);
}

/* target += w_uk w_kv / d_k without losing a product that counts (see the head). */
NATIVE_VECTOR static void doubles_axpy(double *restrict target, const double *restrict row,
                                       const double *restrict normalised, double w_uk, double scaled, Py_ssize_t len) {
    for (Py_ssize_t v = 0; v < len; v++) {
        double by_u = scaled * row[v], by_v = w_uk * normalised[v];
        target[v] += w_uk >= row[v] ? by_u : by_v;
    }
}

/* The same in plain doubles, from weights multiplied by e^shift (their largest near
 * double_top); ``normalised`` is scratch of n1 doubles. Each pivot is e^shift times the
 * unscaled one, and is unscaled as it is summed (a sum of n logs near 700 would leave
 * little of the result's precision after one subtraction at the end). */
static double eliminate_doubles(double *work, double *ground, double *normalised, Py_ssize_t n1, double shift) {
    double log_total = 0.0;
    for (Py_ssize_t k = n1 - 1; k >= 0; k--) {
        const double *row = work + k * n1;
        double pivot = ground[k];
        for (Py_ssize_t v = 0; v < k; v++) pivot += row[v];
        if (!(pivot > 0.0)) return -INFINITY;
        log_total += log(pivot) - shift;
        double inverse = 1.0 / pivot;
        for (Py_ssize_t v = 0; v < k; v++) normalised[v] = row[v] * inverse;
        double ground_k = ground[k], ground_normalised = ground_k * inverse;
        for (Py_ssize_t u = 0; u < k; u++) {
            double w_uk = row[u], scaled = normalised[u];
            ground[u] += w_uk >= ground_k ? scaled * ground_k : w_uk * ground_normalised;
            doubles_axpy(work + u * n1, row, normalised, w_uk, scaled, u);
        }
    }
    return log_total;
}

/* Scratch for one graph of n1 + 1 nodes: the triangle and the ground edges, as plain
 * doubles or as (m, e) pairs. */
typedef struct {
    Py_ssize_t n1;
    double *m, *e, *mg, *eg, *normalised;
} Graph;

static int graph_alloc(Graph *g, Py_ssize_t n1) {
    g->n1 = n1;
    g->m = PyMem_RawMalloc((2 * (n1 * n1 + n1) + n1) * sizeof(double) + 1);
    if (!g->m) return -1;
    g->e = g->m + n1 * n1, g->mg = g->e + n1 * n1, g->eg = g->mg + n1, g->normalised = g->eg + n1;
    return 0;
}

/* Log tree sum of the graph whose log weights are in g->m (triangle) and g->mg (ground). */
static double tree_sum(Graph *g) {
    Py_ssize_t n1 = g->n1;
    double top = -INFINITY, bottom = INFINITY;
    for (Py_ssize_t u = 0; u < n1; u++)
        for (Py_ssize_t v = 0; v <= u; v++) {
            double x = v < u ? g->m[u * n1 + v] : g->mg[u];
            top = x > top ? x : top;
            bottom = x < bottom ? x : bottom;
        }
    if (top - bottom <= DOUBLE_RANGE && bottom > 0.5 * FLOOR) {
        double shift = double_top(top - bottom, n1) - top;
        for (Py_ssize_t u = 0; u < n1; u++) {
            for (Py_ssize_t v = 0; v < u; v++) g->m[u * n1 + v] = exp(g->m[u * n1 + v] + shift);
            g->mg[u] = exp(g->mg[u] + shift);
        }
        return eliminate_doubles(g->m, g->mg, g->normalised, n1, shift);
    }
    for (Py_ssize_t u = 0; u < n1; u++) {
        for (Py_ssize_t v = 0; v < u; v++) to_blocks(g->m[u * n1 + v], &g->m[u * n1 + v], &g->e[u * n1 + v]);
        to_blocks(g->mg[u], &g->mg[u], &g->eg[u]);
    }
    return eliminate_blocks(g->m, g->e, g->mg, g->eg, n1);
}

/* tree_sums(flat, B, n, out): out[b] = log tree sum of the complete graph with log
 * weights flat[b] (n x n, symmetric, diagonal ignored; -inf: no edge). */
static PyObject *tree_sums(PyObject *self, PyObject *args) {
    PyObject *o[2];
    Py_ssize_t B, n;
    if (!PyArg_ParseTuple(args, "OnnO", &o[0], &B, &n, &o[1])) return NULL;
    Arr a[2] = {0};
    PyObject *result = NULL;
    Graph g = {0};
    if (arr_get(o[0], &a[0], 'f', "flat") || arr_get(o[1], &a[1], 'F', "out")) goto done;
    if (n < 2 || a[0].size < B * n * n || a[1].size < B) {
        PyErr_SetString(PyExc_ValueError, "tree_sums: need n >= 2 and (B, n, n) weights");
        goto done;
    }
    if (graph_alloc(&g, n - 1)) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    FLUSH_SUBNORMALS
    const double *flat = F64(a[0]);
    Py_ssize_t n1 = n - 1;
    for (Py_ssize_t b = 0; b < B; b++) {
        const double *w = flat + b * n * n;
        for (Py_ssize_t u = 0; u < n1; u++) {
            for (Py_ssize_t v = 0; v < u; v++) g.m[u * n1 + v] = w[u * n + v] > FLOOR ? w[u * n + v] : FLOOR;
            g.mg[u] = w[u * n + n1] > FLOOR ? w[u * n + n1] : FLOOR;
        }
        F64(a[1])[b] = tree_sum(&g);
    }
    RESTORE_SUBNORMALS
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyMem_RawFree(g.m);
    arr_release(a, 2);
    return result;
}

/* TBMATAN's weights beta_uv h_c(x_u, x_v) (+ extra_uv) of every row, built without a log
 * or exp per entry: beta (times max_x h_c) tabled once per call, h_c / max h_c as doubles. */
typedef struct {
    Py_ssize_t n, K, W;
    int doubles;              /* every weight of every row within e^DOUBLE_RANGE, none zero */
    double top;               /* with doubles: the log of the largest weight as held (double_top) */
    double *h;                /* exp(log_h - h_top[c]), (K x W x W); NULL: from log_h per entry */
    double *h_top, *dropped;  /* per class: max(0, max log_h), and e^-h_top (the factor of h = 1) */
    double *beta_m, *beta_e;  /* (K x n x n): beta e^h_top[c] in blocks, or (doubles) beta e^(top - beta_top) */
    double *scale;            /* per class, with doubles: log of the common divisor (of the largest weight) */
    double *extra_m, *extra_e;/* (n x n) in blocks; NULL without extra weights or with doubles */
    double *extra_d;          /* with doubles, (K x n x n): extra e^(top - scale[c]); NULL without extra weights */
} Tables;

static void tables_free(Tables *t) {
    PyMem_RawFree(t->h);
    PyMem_RawFree(t->h_top);
    PyMem_RawFree(t->beta_m);
    PyMem_RawFree(t->extra_m);
    PyMem_RawFree(t->extra_d);
}

static int tables_build(Tables *t, const double *log_beta, const double *log_h, const double *log_extra,
                        int has_extra, Py_ssize_t n, Py_ssize_t K, Py_ssize_t W) {
    t->n = n, t->K = K, t->W = W;
    t->h_top = PyMem_RawMalloc(3 * K * sizeof(double));
    t->beta_m = PyMem_RawMalloc(2 * K * n * n * sizeof(double));
    if (!t->h_top || !t->beta_m) return -1;
    t->dropped = t->h_top + K, t->scale = t->h_top + 2 * K, t->beta_e = t->beta_m + K * n * n;
    double beta_top = -INFINITY, beta_bottom = INFINITY, h_range = 0.0;
    for (Py_ssize_t u = 0; u < n; u++)
        for (Py_ssize_t v = 0; v < u; v++) {
            double x = log_beta[u * n + v];
            beta_top = x > beta_top ? x : beta_top;
            beta_bottom = x < beta_bottom ? x : beta_bottom;
        }
    /* extra weights (Kron reduction) add to every weight: class c's largest is then at
     * most beta_top e^h_top[c] + extra_top, its smallest still beta_bottom e^bottom */
    double extra_top = -INFINITY, extra_range = 0.0;
    for (Py_ssize_t u = 0; has_extra && u < n; u++)
        for (Py_ssize_t v = 0; v < u; v++) extra_top = log_extra[u * n + v] > extra_top ? log_extra[u * n + v] : extra_top;
    for (Py_ssize_t c = 0; c < K; c++) {
        double top = 0.0, bottom = 0.0; /* a dropped factor is h = 1 */
        for (Py_ssize_t i = 0; i < W * W; i++) {
            double x = log_h[c * W * W + i];
            top = x > top ? x : top;
            bottom = x < bottom ? x : bottom;
        }
        t->h_top[c] = top, t->dropped[c] = exp(-top);
        h_range = top - bottom > h_range ? top - bottom : h_range;
        double largest = beta_top + top, gap = extra_top - largest;
        t->scale[c] = gap > 0.0 ? extra_top + log1p(exp(-gap)) : largest + log1p(exp(gap));
        extra_range = t->scale[c] - beta_bottom - bottom > extra_range ? t->scale[c] - beta_bottom - bottom : extra_range;
    }
    double range = has_extra ? extra_range : beta_top - beta_bottom + h_range;
    /* h / max h as doubles when its products with beta's mantissas stay normal */
    if (h_range < 300.0 && K * W * W <= (1 << 22)) {
        t->h = PyMem_RawMalloc(K * W * W * sizeof(double));
        if (!t->h) return -1;
        for (Py_ssize_t c = 0; c < K; c++)
            for (Py_ssize_t i = 0; i < W * W; i++) t->h[c * W * W + i] = exp(log_h[c * W * W + i] - t->h_top[c]);
    }
    t->doubles = t->h && beta_bottom > 0.5 * FLOOR && range <= DOUBLE_RANGE;
    t->top = double_top(range, n - 1);
    for (Py_ssize_t c = 0; c < K; c++) {
        double *bm = t->beta_m + c * n * n, *be = t->beta_e + c * n * n;
        if (!has_extra) t->scale[c] = beta_top + t->h_top[c];
        double base = has_extra ? t->scale[c] - t->h_top[c] : beta_top; /* bm h_max: the largest weight */
        for (Py_ssize_t i = 0; i < n * n; i++) {
            if (t->doubles) bm[i] = exp(log_beta[i] - base + t->top);
            else to_blocks(log_beta[i] + t->h_top[c], &bm[i], &be[i]);
        }
    }
    if (has_extra && t->doubles) {
        t->extra_d = PyMem_RawMalloc(K * n * n * sizeof(double));
        if (!t->extra_d) return -1;
        for (Py_ssize_t c = 0; c < K; c++)
            for (Py_ssize_t i = 0; i < n * n; i++)
                t->extra_d[c * n * n + i] = log_extra[i] > 0.5 * FLOOR ? exp(log_extra[i] - t->scale[c] + t->top) : 0.0;
    } else if (has_extra) {
        t->extra_m = PyMem_RawMalloc(2 * n * n * sizeof(double));
        if (!t->extra_m) return -1;
        t->extra_e = t->extra_m + n * n;
        for (Py_ssize_t i = 0; i < n * n; i++) to_blocks(log_extra[i], &t->extra_m[i], &t->extra_e[i]);
    }
    return 0;
}

/* One row of a graph's weights, pairs (u, v) for v < len: beta (scaled) times h read at
 * the row's columns (``dropped_h`` where u or v is dropped); in blocks when ``be``. */
NATIVE_VECTOR static void fill_weights(double *restrict m, double *restrict e, const double *restrict bm,
                                       const double *restrict be, const double *restrict h_row,
                                       const int64_t *restrict col, const int64_t *restrict drop, int drop_u,
                                       double dropped_h, Py_ssize_t len) {
    for (Py_ssize_t v = 0; v < len; v++) {
        double h = h_row[col[v]];
        h = drop_u || drop[v] ? dropped_h : h;
        double x = bm[v] * h;
        if (be) { /* h >= e^-300: at most two steps up, none down (bm, h <= 2^256, 1) */
            double block = be[v], once = x * BLOCK, twice = once * BLOCK;
            double out = x, out_e = block;
            out = x < LOW ? once : out;
            out_e = x < LOW ? block - 1.0 : out_e;
            out = once < LOW ? twice : out;
            out_e = once < LOW ? block - 2.0 : out_e;
            out = x > 0.0 ? out : 0.0;
            e[v] = out_e;
            x = out;
        }
        m[v] = x;
    }
}

/* Weight (u, v) of a row in blocks from the logs (log_h too wide for the h table). */
static void row_weight_logs(const Tables *t, const double *log_beta, const double *log_h, Py_ssize_t c,
                            const int64_t *col, const int64_t *dropped, Py_ssize_t u, Py_ssize_t v, double *m, double *e) {
    int drop_uv = dropped[u] || dropped[v];
    to_blocks(log_beta[u * t->n + v] + (drop_uv ? 0.0 : log_h[(c * t->W + col[u]) * t->W + col[v]]), m, e);
}

#include "_laplacian_lanes.h"

/* rows_tree_sums(log_beta, log_h, K, W, columns, drop, log_extra, has_extra, out[, lanes]):
 * out[r, c] = log tree sum of the weights beta_uv h_c(x_u, x_v) (+ extra_uv), with
 * h = 1 where ``drop`` marks u or v; columns (m, n) hold each row's one-hot columns.
 * In doubles mode the graphs run LANES at a time unless ``lanes`` is false (one at a
 * time: the reference the tests compare the lanes with). */
static PyObject *rows_tree_sums(PyObject *self, PyObject *args) {
    PyObject *o[6];
    Py_ssize_t K, W;
    int has_extra, lanes = 1;
    if (!PyArg_ParseTuple(args, "OOnnOOOpO|p", &o[0], &o[1], &K, &W, &o[2], &o[3], &o[4], &has_extra, &o[5], &lanes))
        return NULL;
    Arr a[6] = {0};
    PyObject *result = NULL;
    int64_t *dropped = NULL;
    double *scratch = NULL;
    Graph g = {0};
    Tables t = {0};
    if (arr_get(o[0], &a[0], 'f', "log_beta") || arr_get(o[1], &a[1], 'f', "log_h") ||
        arr_get(o[2], &a[2], 'L', "columns") || arr_get(o[3], &a[3], 'i', "drop") ||
        arr_get(o[4], &a[4], 'f', "log_extra") || arr_get(o[5], &a[5], 'F', "out"))
        goto done;
    Py_ssize_t rows = a[5].size / (K ? K : 1), n = rows ? a[2].size / rows : 0;
    if (rows == 0) { result = Py_NewRef(Py_None); goto done; }
    if (n < 2 || a[0].size != n * n || a[1].size != K * W * W || a[2].size != rows * n || a[3].size != rows * n ||
        a[4].size != n * n || a[5].size != rows * K) {
        PyErr_SetString(PyExc_ValueError, "rows_tree_sums: inconsistent shapes");
        goto done;
    }
    for (Py_ssize_t i = 0; i < rows * n; i++)
        if (I64(a[2])[i] < 0 || I64(a[2])[i] >= W) {
            PyErr_SetString(PyExc_IndexError, "rows_tree_sums: a column outside log_h");
            goto done;
        }
    int failed;
    Py_BEGIN_ALLOW_THREADS
    FLUSH_SUBNORMALS
    const double *log_beta = F64(a[0]), *log_h = F64(a[1]), *log_extra = F64(a[4]);
    failed = tables_build(&t, log_beta, log_h, log_extra, has_extra, n, K, W);
    Py_ssize_t n1 = n - 1, per_graph = rows;
    /* the scratch of the path taken only (each is about n^2 doubles per lane or graph) */
    failed = failed || !(dropped = PyMem_RawMalloc(LANES * n * sizeof(int64_t)));
#ifdef HAVE_LANES
    if (!failed && t.doubles && lanes && n <= LANES_MAX_NODES) {
        failed = !(scratch = PyMem_RawMalloc(lanes_scratch(n1) * sizeof(lane_t)));
        if (!failed) failed = rows_doubles_lanes(&t, I64(a[2]), &a[3], rows, dropped, scratch, F64(a[5])) != 0;
        per_graph = 0;
    }
#endif
    failed = failed || (per_graph && graph_alloc(&g, n1));
    for (Py_ssize_t r = 0; r < per_graph && !failed; r++) {
        const int64_t *col = I64(a[2]) + r * n;
        for (Py_ssize_t u = 0; u < n; u++) dropped[u] = iget(&a[3], r * n + u) != 0;
        for (Py_ssize_t c = 0; c < K; c++) {
            const double *bm = t.beta_m + c * n * n, *be = t.doubles ? NULL : t.beta_e + c * n * n;
            /* the pairs (u, v), v < u < n1, then the ground edges (u, n1): the entries
             * log_tree_sum reads, so that both give the same digits where log_h or
             * log_beta are symmetric only to rounding */
            for (Py_ssize_t u = 0; u < n1; u++) {
                double *m_out = g.m + u * n1, *e_out = g.e + u * n1;
                if (t.h) {
                    fill_weights(m_out, e_out, bm + u * n, be ? be + u * n : NULL, t.h + (c * W + col[u]) * W, col,
                                 dropped, (int)dropped[u], t.dropped[c], u);
                } else {
                    for (Py_ssize_t v = 0; v < u; v++) row_weight_logs(&t, log_beta, log_h, c, col, dropped, u, v,
                                                                       &m_out[v], &e_out[v]);
                }
                if (t.h) {
                    int drop_uv = dropped[u] || dropped[n1];
                    double h = drop_uv ? t.dropped[c] : t.h[(c * W + col[u]) * W + col[n1]];
                    fill_weights(&g.mg[u], &g.eg[u], bm + u * n + n1, be ? be + u * n + n1 : NULL, &h, (const int64_t[]){0},
                                 (const int64_t[]){0}, 0, 0.0, 1);
                } else {
                    row_weight_logs(&t, log_beta, log_h, c, col, dropped, u, n1, &g.mg[u], &g.eg[u]);
                }
                if (t.extra_d) {
                    const double *extra = t.extra_d + c * n * n + u * n;
                    for (Py_ssize_t v = 0; v < u; v++) m_out[v] += extra[v];
                    g.mg[u] += extra[n1];
                }
                if (t.extra_m) {
                    for (Py_ssize_t v = 0; v < u; v++)
                        add_blocks(&m_out[v], &e_out[v], t.extra_m[u * n + v], t.extra_e[u * n + v]);
                    add_blocks(&g.mg[u], &g.eg[u], t.extra_m[u * n + n1], t.extra_e[u * n + n1]);
                }
            }
            F64(a[5])[r * K + c] =
                t.doubles ? eliminate_doubles(g.m, g.mg, g.normalised, n1, t.top - t.scale[c])
                          : eliminate_blocks(g.m, g.e, g.mg, g.eg, n1);
        }
    }
    RESTORE_SUBNORMALS
    Py_END_ALLOW_THREADS
    if (failed) PyErr_NoMemory();
    else result = Py_NewRef(Py_None);
done:
    tables_free(&t);
    PyMem_RawFree(g.m);
    PyMem_RawFree(dropped);
    PyMem_RawFree(scratch);
    arr_release(a, 6);
    return result;
}

static PyMethodDef methods[] = {
    {"tree_sums", tree_sums, METH_VARARGS, "Log tree sums of a batch of complete graphs."},
    {"rows_tree_sums", rows_tree_sums, METH_VARARGS, "TBMATAN's log tree sums per row and class."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_laplacian_c",
                                    "pybnc.averaging._laplacian's eliminations in C.", -1, methods};

PyMODINIT_FUNC PyInit__laplacian_c(void) { return PyModule_Create(&module); }
