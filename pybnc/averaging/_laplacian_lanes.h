/* The plain-double elimination of _laplacian_c.c (eliminate_doubles) run on LANES graphs
 * at once, their entries interleaved (entry i of graph l at i * LANES + l), so that every
 * step of the elimination is a vector operation across graphs instead of a short loop
 * within one: TBMATAN's graphs have a few dozen nodes, and a row of the triangle is too
 * short for the per-graph loops to fill the vector units.
 *
 * Each lane performs exactly the arithmetic of eliminate_doubles on its graph, in the
 * same order, so the entries and pivots are the same doubles. Only the pivots' logs are
 * gathered differently: their product is kept as a mantissa in [1, 2) and an integer
 * power of two (exact: a pivot is a positive normal double below e^700, see
 * double_top), and one log is taken at the end instead of one per step. A lane whose
 * graph is cut off (a zero pivot) goes on with zero updates and answers -inf, as
 * eliminate_doubles does. Included by _laplacian_c.c only. */
#define LANES 4 /* fill_lanes spells out four */
/* Beyond this many nodes the rows of the triangle, read across by each row's steps, no
 * longer stay in cache and one graph at a time is as fast (measured on 2 x 2 classes of
 * random rows: the lanes 3.0x faster at 36 nodes, 1.7x at 200, 1.2x at 300, 0.9x at 400). */
#define LANES_MAX_NODES 320
#if defined(__GNUC__) /* GCC and clang: vector types; elsewhere rows_tree_sums runs one graph at a time */
#define HAVE_LANES 1
/* LANES doubles, one per graph; loads and stores need not be aligned. */
typedef double lane_t __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));
typedef int64_t lane_mask __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));
typedef uint64_t lane_bits __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));

static const double LN2_HI = 6.93147180369123816490e-01; /* 32 trailing zero bits: k LN2_HI exact */
static const double LN2_LO = 1.90821492927058770002e-10;

/* the helpers are always inlined into the vector clones */
#define LANE_INLINE static inline __attribute__((always_inline))

/* where ``mask``, a, else b (mask lanes all ones or all zeros). Macros, not functions:
 * a vector argument of a function would depend on the target's ABI. */
#define LANE_SELECT(mask, a, b) ((lane_t)((((lane_mask)(a)) & (mask)) | (((lane_mask)(b)) & ~(mask))))

/* w_uk w_kv / d_k as eliminate_doubles forms it, (larger / d_k) * smaller: with w_uk the
 * larger, (w_uk / d_k) w_kv, else w_uk (w_kv / d_k), the same roundings. */
#define LANE_PRODUCT(w_uk, w_kv, inverse) \
    (LANE_SELECT((w_uk) >= (w_kv), (w_uk), (w_kv)) * (inverse) * LANE_SELECT((w_uk) >= (w_kv), (w_kv), (w_uk)))

/* The step's products where node k's row is narrow: its weights (the w_kv and the ground
 * edge) within 2^NARROW of each other in every lane. (w_uk / d_k) w_kv then loses nothing
 * that counts: w_uk / d_k is at least 2^-NARROW / n, a normal double, and a product below
 * 2^-1022, flushed to zero, is under e^-48 of the entry it is added to (every entry is
 * above e^-660, see double_top). */
#define NARROW 960

/* Row u of the padded triangle: its ground edge, then its edges (u, v) for v < u, in
 * multiples of four (the padding is zero). Rows start at row_start[u]. */
static Py_ssize_t padded_width(Py_ssize_t u) { return (u + 4) & ~(Py_ssize_t)3; }

/* Lanes of scratch that rows_doubles_lanes needs for graphs of n1 + 1 nodes. */
static Py_ssize_t lanes_scratch(Py_ssize_t n1) {
    Py_ssize_t total = n1; /* the pivots' inverses */
    for (Py_ssize_t u = 0; u < n1; u++) total += padded_width(u);
    return total;
}

/* Entries j .. j + 3 of row u brought to their state at u's step: every step k > u
 * applied in order, the four entries held in registers (four: eight spill registers). */
LANE_INLINE void apply_steps(lane_t *restrict row, const lane_t *restrict work, const Py_ssize_t *restrict row_start,
                             const lane_t *restrict inverses, const int *restrict narrow, Py_ssize_t n1, Py_ssize_t u,
                             Py_ssize_t j) {
    lane_t a0 = row[j], a1 = row[j + 1], a2 = row[j + 2], a3 = row[j + 3];
    for (Py_ssize_t k = n1 - 1; k > u; k--) {
        const lane_t *from = work + row_start[k], *x = from + j;
        lane_t w_uk = from[1 + u], inverse = inverses[k];
        if (narrow[k]) {
            lane_t scaled = w_uk * inverse;
            a0 += scaled * x[0], a1 += scaled * x[1], a2 += scaled * x[2], a3 += scaled * x[3];
        } else {
            a0 += LANE_PRODUCT(w_uk, x[0], inverse), a1 += LANE_PRODUCT(w_uk, x[1], inverse);
            a2 += LANE_PRODUCT(w_uk, x[2], inverse), a3 += LANE_PRODUCT(w_uk, x[3], inverse);
        }
    }
    row[j] = a0, row[j + 1] = a1, row[j + 2] = a2, row[j + 3] = a3;
}

/* out[l] = log tree sum of lane l's graph (the padded triangle ``work``, weights
 * multiplied by e^shift[l]); ``inverses`` is scratch of n1 lanes, ``narrow`` of n1 ints.
 *
 * The elimination of eliminate_doubles, reordered: node u's row is brought to its state
 * at its own step (every step k > u applied, in the same order) just before it is
 * eliminated, in registers, so each entry is stored once rather than once per step (the
 * stores bounded the step-by-step form). Each row is kept as it was at its step, with
 * its pivot's inverse: all that the later rows read. Where a row's weights are narrow
 * (see NARROW), its step's products take one multiply and no select. */
NATIVE_VECTOR static void eliminate_doubles_lanes(lane_t *restrict work, const Py_ssize_t *restrict row_start,
                                                  lane_t *restrict inverses, int *restrict narrow, Py_ssize_t n1,
                                                  const double *restrict shift, double *restrict out) {
    const lane_t zero = {0.0}, one = zero + 1.0;
    const lane_bits mantissa = {0}, exponent_one = mantissa + 0x3ff0000000000000ULL;
    lane_t product = one;
    lane_mask alive = (lane_mask)(one == one), exponent = alive & 0;
    for (Py_ssize_t u = n1 - 1; u >= 0; u--) {
        lane_t *row = work + row_start[u];
        for (Py_ssize_t j = 0; j < padded_width(u); j += 4) apply_steps(row, work, row_start, inverses, narrow, n1, u, j);
        /* u's own step: its pivot (the ground edge, then the others, as eliminate_doubles
         * sums them), and whether its row is narrow */
        lane_t pivot = row[0], smallest = row[0], largest = row[0];
        for (Py_ssize_t v = 1; v <= u; v++) {
            pivot += row[v];
            smallest = LANE_SELECT(row[v] < smallest, row[v], smallest);
            largest = LANE_SELECT(row[v] > largest, row[v], largest);
        }
        lane_mask ok = pivot > zero, wide = largest > smallest * 0x1p960;
        alive &= ok;
        lane_t safe = LANE_SELECT(ok, pivot, one);
        inverses[u] = LANE_SELECT(ok, one / safe, zero);
        narrow[u] = !(wide[0] | wide[1] | wide[2] | wide[3]);
        /* product (in [1, 2)) times a positive normal double: split off its power of two */
        lane_bits bits = (lane_bits)(product * safe);
        exponent += (lane_mask)((bits >> 52) & 0x7ff) - 1023;
        product = (lane_t)((bits & (mantissa + 0x800fffffffffffffULL)) | exponent_one);
    }
    for (int l = 0; l < LANES; l++) {
        double e = (double)exponent[l];
        out[l] = alive[l] ? (e * LN2_HI - (double)n1 * shift[l]) + (log(product[l]) + e * LN2_LO) : -INFINITY;
    }
}

/* The weights of LANES rows for class c in doubles mode, into the padded triangle: beta
 * (scaled) times h at each row's columns, h = 1 (scaled) where u or v is dropped, plus the
 * extra weights if any; for every lane the weights rows_tree_sums forms, entry for entry. ``dropped`` is LANES x n
 * flags, NULL if none. */
NATIVE_VECTOR static void fill_lanes(lane_t *restrict work, const Py_ssize_t *restrict row_start, const Tables *t,
                                     Py_ssize_t c, const int64_t *const col[LANES], const int64_t *restrict dropped) {
    Py_ssize_t n = t->n, n1 = n - 1, W = t->W;
    const double *bm = t->beta_m + c * n * n, *h = t->h + c * W * W, dropped_h = t->dropped[c];
    const double *extra = t->extra_d ? t->extra_d + c * n * n : NULL;
    const int64_t *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3];
    for (Py_ssize_t u = 0; u < n1; u++) {
        const double *h0 = h + c0[u] * W, *h1 = h + c1[u] * W, *h2 = h + c2[u] * W, *h3 = h + c3[u] * W;
        const double *bm_row = bm + u * n;
        lane_t *out = work + row_start[u];
        for (Py_ssize_t v = 0; v <= u; v++) {
            Py_ssize_t at = v ? v - 1 : n1; /* first the ground edge (u, n1), then (u, v - 1) */
            lane_t h_v = {h0[c0[at]], h1[c1[at]], h2[c2[at]], h3[c3[at]]};
            if (dropped) {
                const int64_t *d = dropped;
                lane_t is_dropped = {d[u] || d[at], d[n + u] || d[n + at], d[2 * n + u] || d[2 * n + at],
                                     d[3 * n + u] || d[3 * n + at]};
                h_v = LANE_SELECT(is_dropped != 0.0, h_v - h_v + dropped_h, h_v);
            }
            out[v] = bm_row[at] * h_v;
            if (extra) out[v] += extra[u * n + at];
        }
        for (Py_ssize_t v = u + 1; v < padded_width(u); v++) out[v] = (lane_t){0.0};
    }
}

/* Two classes: the lanes hold two rows in both classes, (r, 0), (r, 1), (r + 1, 0),
 * (r + 1, 1), read from tables with the two classes side by side (``h2``, ``bm2``,
 * ``extra2``: entry i of class c at 2 i + c), so that one row's two weights come from one
 * 16-byte load and the rows' columns are read once for both classes. ``dropped``: the
 * two rows' flags (2 x n), NULL if none. The weights are those of fill_lanes. */
NATIVE_VECTOR static void fill_pairs(lane_t *restrict work, const Py_ssize_t *restrict row_start, const Tables *t,
                                     const double *restrict h2, const double *restrict bm2,
                                     const double *restrict extra2, const int64_t *restrict c0,
                                     const int64_t *restrict c1, const int64_t *restrict dropped) {
    Py_ssize_t n = t->n, n1 = n - 1, W = t->W;
    const lane_t dropped_h = {t->dropped[0], t->dropped[1], t->dropped[0], t->dropped[1]};
    for (Py_ssize_t u = 0; u < n1; u++) {
        const double *h0 = h2 + 2 * c0[u] * W, *h1 = h2 + 2 * c1[u] * W, *bm_row = bm2 + 2 * u * n;
        lane_t *out = work + row_start[u];
        for (Py_ssize_t v = 0; v <= u; v++) {
            Py_ssize_t at = v ? v - 1 : n1; /* first the ground edge (u, n1), then (u, v - 1) */
            const double *p0 = h0 + 2 * c0[at], *p1 = h1 + 2 * c1[at], *b = bm_row + 2 * at;
            lane_t h_v = {p0[0], p0[1], p1[0], p1[1]}, beta = {b[0], b[1], b[0], b[1]};
            if (dropped) {
                int first = dropped[u] || dropped[at], second = dropped[n + u] || dropped[n + at];
                lane_t is_dropped = {first, first, second, second};
                h_v = LANE_SELECT(is_dropped != 0.0, dropped_h, h_v);
            }
            out[v] = beta * h_v;
            if (extra2) {
                const double *e = extra2 + 2 * (u * n + at);
                out[v] += (lane_t){e[0], e[1], e[0], e[1]};
            }
        }
        for (Py_ssize_t v = u + 1; v < padded_width(u); v++) out[v] = (lane_t){0.0};
    }
}

/* Entry i of class c of a (K x size) table at 2 i + c, for K = 2. */
static double *side_by_side(const double *table, Py_ssize_t size) {
    double *pairs = PyMem_RawMalloc(2 * size * sizeof(double));
    for (Py_ssize_t i = 0; pairs && i < size; i++) pairs[2 * i] = table[i], pairs[2 * i + 1] = table[size + i];
    return pairs;
}

/* Every (row, class) graph of rows_tree_sums in doubles mode into out[r K + c]: with two
 * classes two rows at a time (fill_pairs), else LANES rows of one class at a time; a
 * last, partial group repeats its last row. ``dropped`` is scratch of LANES x n,
 * ``scratch`` of lanes_scratch(n1) lanes. Returns -1 when out of memory. */
static int rows_doubles_lanes(const Tables *t, const int64_t *columns, const Arr *drop, Py_ssize_t rows,
                              int64_t *dropped, double *scratch, double *out) {
    Py_ssize_t n = t->n, n1 = n - 1, K = t->K, row_start[n1 + 1];
    row_start[0] = 0;
    for (Py_ssize_t u = 0; u < n1; u++) row_start[u + 1] = row_start[u] + padded_width(u);
    lane_t *work = (lane_t *)scratch, *inverses = work + row_start[n1];
    int narrow[n1];
    if (K == 2) {
        double *h2 = side_by_side(t->h, t->W * t->W), *bm2 = side_by_side(t->beta_m, n * n);
        double *extra2 = t->extra_d ? side_by_side(t->extra_d, n * n) : NULL;
        int failed = !h2 || !bm2 || (t->extra_d && !extra2);
        double shift[LANES] = {t->top - t->scale[0], t->top - t->scale[1], t->top - t->scale[0], t->top - t->scale[1]};
        for (Py_ssize_t r0 = 0; r0 < rows && !failed; r0 += 2) {
            Py_ssize_t r1 = r0 + 1 < rows ? r0 + 1 : r0;
            int any_dropped = 0;
            for (Py_ssize_t u = 0; u < n; u++) {
                any_dropped |= (int)(dropped[u] = iget(drop, r0 * n + u) != 0);
                any_dropped |= (int)(dropped[n + u] = iget(drop, r1 * n + u) != 0);
            }
            double result[LANES];
            fill_pairs(work, row_start, t, h2, bm2, extra2, columns + r0 * n, columns + r1 * n,
                       any_dropped ? dropped : NULL);
            eliminate_doubles_lanes(work, row_start, inverses, narrow, n1, shift, result);
            out[2 * r0] = result[0], out[2 * r0 + 1] = result[1];
            if (r1 > r0) out[2 * r1] = result[2], out[2 * r1 + 1] = result[3];
        }
        PyMem_RawFree(h2), PyMem_RawFree(bm2), PyMem_RawFree(extra2);
        return failed ? -1 : 0;
    }
    for (Py_ssize_t r0 = 0; r0 < rows; r0 += LANES) {
        const int64_t *col[LANES];
        int any_dropped = 0;
        for (int l = 0; l < LANES; l++) {
            Py_ssize_t r = r0 + l < rows ? r0 + l : rows - 1;
            col[l] = columns + r * n;
            for (Py_ssize_t u = 0; u < n; u++) any_dropped |= (int)(dropped[l * n + u] = iget(drop, r * n + u) != 0);
        }
        for (Py_ssize_t c = 0; c < K; c++) {
            double shift[LANES], result[LANES];
            for (int l = 0; l < LANES; l++) shift[l] = t->top - t->scale[c];
            fill_lanes(work, row_start, t, c, col, any_dropped ? dropped : NULL);
            eliminate_doubles_lanes(work, row_start, inverses, narrow, n1, shift, result);
            for (int l = 0; l < LANES && r0 + l < rows; l++) out[(r0 + l) * K + c] = result[l];
        }
    }
    return 0;
}
#endif
