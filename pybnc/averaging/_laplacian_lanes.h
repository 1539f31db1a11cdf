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
#if defined(__GNUC__) /* GCC and clang: vector types; elsewhere rows_tree_sums runs one graph at a time */
#define HAVE_LANES 1
/* LANES doubles, one per graph; loads and stores need not be aligned. */
typedef double lane_t __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));
typedef int64_t lane_mask __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));
typedef uint64_t lane_bits __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double))));

static const double LN2_HI = 6.93147180369123816490e-01; /* 32 trailing zero bits: k LN2_HI exact */
static const double LN2_LO = 1.90821492927058770002e-10;

/* Packed lower triangle: the entries (u, v), v < u, of node u start at u (u - 1) / 2. */
static inline Py_ssize_t triangle_row(Py_ssize_t u) { return u * (u - 1) / 2; }

/* where ``mask``, a, else b (mask lanes all ones or all zeros). Macros, not functions:
 * a vector argument of a function would depend on the target's ABI. */
#define LANE_SELECT(mask, a, b) ((lane_t)((((lane_mask)(a)) & (mask)) | (((lane_mask)(b)) & ~(mask))))

/* w_uk w_kv / d_k as eliminate_doubles forms it: (larger / d_k) * smaller, where
 * ``scaled`` = w_uk / d_k and ``normalised`` = w_kv / d_k are already rounded. */
#define LANE_PRODUCT(w_uk, scaled, w_kv, normalised) \
    LANE_SELECT((w_uk) >= (w_kv), (scaled) * (w_kv), (w_uk) * (normalised))

/* out[l] = log tree sum of lane l's graph (triangle ``work``, ground edges ``ground``,
 * weights multiplied by e^shift[l]); ``normalised`` is scratch of n1 lanes. */
NATIVE_VECTOR static void eliminate_doubles_lanes(lane_t *restrict work, lane_t *restrict ground,
                                                  lane_t *restrict normalised, Py_ssize_t n1,
                                                  const double *restrict shift, double *restrict out) {
    const lane_t zero = {0.0}, one = zero + 1.0;
    const lane_bits mantissa = {0}, exponent_one = mantissa + 0x3ff0000000000000ULL;
    lane_t product = one;
    lane_mask alive = (lane_mask)(one == one), exponent = alive & 0;
    for (Py_ssize_t k = n1 - 1; k >= 0; k--) {
        const lane_t *row = work + triangle_row(k);
        lane_t pivot = ground[k];
        for (Py_ssize_t v = 0; v < k; v++) pivot += row[v];
        lane_mask ok = pivot > zero;
        alive &= ok;
        lane_t safe = LANE_SELECT(ok, pivot, one), inverse = LANE_SELECT(ok, one / safe, zero);
        /* product (in [1, 2)) times a positive normal double: split off its power of two */
        lane_bits bits = (lane_bits)(product * safe);
        exponent += (lane_mask)((bits >> 52) & 0x7ff) - 1023;
        product = (lane_t)((bits & (mantissa + 0x800fffffffffffffULL)) | exponent_one);
        lane_t ground_k = ground[k], ground_normalised = ground_k * inverse;
        for (Py_ssize_t v = 0; v < k; v++) normalised[v] = row[v] * inverse;
        for (Py_ssize_t u = 0; u < k; u++)
            ground[u] += LANE_SELECT(row[u] >= ground_k, normalised[u] * ground_k, row[u] * ground_normalised);
        /* nodes u .. u + 3 together: each row[v], normalised[v] read once for four targets */
        Py_ssize_t u = 0;
        for (; u + 4 <= k; u += 4) {
            lane_t *t0 = work + triangle_row(u), *t1 = work + triangle_row(u + 1), *t2 = work + triangle_row(u + 2),
                   *t3 = work + triangle_row(u + 3);
            lane_t w0 = row[u], w1 = row[u + 1], w2 = row[u + 2], w3 = row[u + 3];
            lane_t s0 = normalised[u], s1 = normalised[u + 1], s2 = normalised[u + 2], s3 = normalised[u + 3];
            for (Py_ssize_t v = 0; v < u; v++) {
                lane_t r = row[v], q = normalised[v];
                t0[v] += LANE_PRODUCT(w0, s0, r, q);
                t1[v] += LANE_PRODUCT(w1, s1, r, q);
                t2[v] += LANE_PRODUCT(w2, s2, r, q);
                t3[v] += LANE_PRODUCT(w3, s3, r, q);
            }
            t1[u] += LANE_PRODUCT(w1, s1, row[u], normalised[u]);
            t2[u] += LANE_PRODUCT(w2, s2, row[u], normalised[u]);
            t2[u + 1] += LANE_PRODUCT(w2, s2, row[u + 1], normalised[u + 1]);
            t3[u] += LANE_PRODUCT(w3, s3, row[u], normalised[u]);
            t3[u + 1] += LANE_PRODUCT(w3, s3, row[u + 1], normalised[u + 1]);
            t3[u + 2] += LANE_PRODUCT(w3, s3, row[u + 2], normalised[u + 2]);
        }
        for (; u < k; u++) {
            lane_t *target = work + triangle_row(u), w_uk = row[u], scaled = normalised[u];
            for (Py_ssize_t v = 0; v < u; v++) target[v] += LANE_PRODUCT(w_uk, scaled, row[v], normalised[v]);
        }
    }
    for (int l = 0; l < LANES; l++) {
        double e = (double)exponent[l];
        out[l] = alive[l] ? (e * LN2_HI - (double)n1 * shift[l]) + (log(product[l]) + e * LN2_LO) : -INFINITY;
    }
}

/* The weights of LANES rows for class c in doubles mode: beta (scaled) times h at each
 * row's columns, h = 1 (scaled) where u or v is dropped; for every lane the products
 * fill_weights forms, entry for entry. ``dropped`` is LANES x n flags, NULL if none. */
NATIVE_VECTOR static void fill_lanes(lane_t *restrict work, lane_t *restrict ground, const Tables *t, Py_ssize_t c,
                                     const int64_t *const col[LANES], const int64_t *restrict dropped) {
    Py_ssize_t n = t->n, n1 = n - 1, W = t->W;
    const double *bm = t->beta_m + c * n * n, *h = t->h + c * W * W, dropped_h = t->dropped[c];
    const int64_t *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3];
    for (Py_ssize_t u = 0; u < n1; u++) {
        const double *h0 = h + c0[u] * W, *h1 = h + c1[u] * W, *h2 = h + c2[u] * W, *h3 = h + c3[u] * W;
        const double *bm_row = bm + u * n;
        lane_t *out = work + triangle_row(u);
        for (Py_ssize_t v = 0; v <= u; v++) {
            Py_ssize_t at = v < u ? v : n1; /* the last pass: the ground edge (u, n1) */
            lane_t h_v = {h0[c0[at]], h1[c1[at]], h2[c2[at]], h3[c3[at]]};
            if (dropped) {
                const int64_t *d = dropped;
                lane_t is_dropped = {d[u] || d[at], d[n + u] || d[n + at], d[2 * n + u] || d[2 * n + at],
                                     d[3 * n + u] || d[3 * n + at]};
                h_v = LANE_SELECT(is_dropped != 0.0, h_v - h_v + dropped_h, h_v);
            }
            *(v < u ? &out[v] : &ground[u]) = bm_row[at] * h_v;
        }
    }
}

/* Every (row, class) graph of rows_tree_sums in doubles mode into out[r K + c], LANES
 * rows of one class at a time (a last, partial group repeats its last row).
 * ``dropped`` is scratch of LANES x n, ``scratch`` of (n1 (n1 - 1) / 2 + 2 n1) x LANES
 * doubles. */
static void rows_doubles_lanes(const Tables *t, const int64_t *columns, const Arr *drop, Py_ssize_t rows,
                               int64_t *dropped, double *scratch, double *out) {
    Py_ssize_t n = t->n, n1 = n - 1, K = t->K;
    lane_t *work = (lane_t *)scratch, *ground = work + triangle_row(n1), *normalised = ground + n1;
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
            fill_lanes(work, ground, t, c, col, any_dropped ? dropped : NULL);
            eliminate_doubles_lanes(work, ground, normalised, n1, shift, result);
            for (int l = 0; l < LANES && r0 + l < rows; l++) out[(r0 + l) * K + c] = result[l];
        }
    }
}
#endif
