/* The HDP smoothing's Gibbs chains (pybnc/parameters/hdp.py documents the model), each
 * family's whole chain in one call: the table-count sweeps, the concentration draws and
 * the running average of the estimates. Families share nothing (each has its own
 * concentrations), so each runs alone, on its own random stream, the GIL released.
 *
 * A table count's conditional over the window of candidates v is
 *     S(n, v) c^v S(m_par(v), t_par) / Gamma(c_par + N_par(v))
 * (S: unsigned Stirling numbers of the first kind). Successive candidates differ by the
 * ratio
 *     S(n, v) / S(n, v - 1) * c * S(m + 1, t_par) / S(m, t_par) / (c_par + N_par(v - 1)),
 * with m = m_par(v - 1); both Stirling ratios come from tables built once per process
 * (S(m + 1, t) / S(m, t) = m + S(m, t - 1) / S(m, t)), so a candidate costs a few
 * multiplications instead of the log-gamma, logs and exponential of the log-space
 * formula. Where a product would leave the range of a double the slot is redone with the
 * logs of the same ratios. */
#include "native.h"

#define ROOT_CONCENTRATION 2.0
#define PRIOR_SHAPE 2.0
#define PRIOR_RATE 1.0
#define MAX_CONCENTRATION 4000.0
#define SAMPLE_EVERY 5
#define MAX_WINDOW 64
/* -log(max(q, 1e-75)): the bound the numpy sampler puts on a Beta draw's log */
#define MAX_NEG_LOG_Q 172.69388197455342

/* Stirling ratios for 0 <= n < size:
 *   up[n(n+1)/2 + v]   = S(n, v + 1) / S(n, v)   (1 <= v < n; row-major: v runs along a row)
 *   down[col(t) + m-t] = S(m, t - 1) / S(m, t)   (2 <= t <= m; column-major: m runs along) */
typedef struct {
    int64_t size;
    double *up, *down;
    int64_t *down_start;
} Ratios;

static Ratios *current_ratios = NULL; /* only grows; an older table is kept, never freed */

/* Tables for counts below ``needed`` (at least; rounded up to a power of two, but never
 * past ``cap`` rows), built with the GIL held and published once complete. */
static Ratios *ratios_for(int64_t needed, int64_t cap) {
    if (current_ratios && current_ratios->size >= needed) return current_ratios;
    int64_t size = 64;
    while (size < needed) size *= 2;
    if (size > cap) size = cap > needed ? cap : needed;
    Ratios *r = PyMem_RawCalloc(1, sizeof(Ratios));
    if (r) {
        r->size = size;
        r->up = PyMem_RawCalloc(size * (size + 1) / 2 + 1, sizeof(double));
        r->down = PyMem_RawCalloc(size * (size + 1) / 2 + 1, sizeof(double));
        r->down_start = PyMem_RawCalloc(size + 1, sizeof(int64_t));
    }
    if (!r || !r->up || !r->down || !r->down_start) {
        if (r) {
            PyMem_RawFree(r->up);
            PyMem_RawFree(r->down);
            PyMem_RawFree(r->down_start);
        }
        PyMem_RawFree(r);
        PyErr_NoMemory();
        return NULL;
    }
    int64_t at = 0;
    for (int64_t t = 2; t < size; t++) {
        r->down_start[t] = at - t; /* entry (t, m), t <= m < size, at down_start[t] + m */
        at += size - t;
    }
    /* From S(n + 1, t) = n S(n, t) + S(n, t - 1), divided through by S(n, v):
     *   S(n+1, v+1) / S(n+1, v) = (n up(n, v) + 1) / (n + down(n, v)),  down(n, v) = 1 / up(n, v - 1),
     * with up(n, n) = 0 and down(n, 1) = 0: sums, products and quotients of positive
     * numbers only, so each entry is exact to a few ulps per row above it. */
    double *up = r->up, *down = r->down;
    for (int64_t n = 2; n < size; n++) {
        double *row = up + n * (n + 1) / 2;
        const double *previous = up + (n - 1) * n / 2;
        for (int64_t v = 1; v < n; v++) {
            double above = v < n - 1 ? previous[v] : 0.0, left = v > 1 ? 1.0 / previous[v - 1] : 0.0;
            row[v] = ((double)(n - 1) * above + 1.0) / ((double)(n - 1) + left);
        }
        for (int64_t t = 2; t <= n; t++) down[r->down_start[t] + n] = 1.0 / row[t - 1];
    }
    current_ratios = r;
    return r;
}

typedef struct {
    int64_t *n, *t, *total;
    const int64_t *off, *parent, *conc;
    double *c;
    const Ratios *ratios;
    int64_t n_max, window;
} Chain;

/* One draw of slot ``slot``'s table count (node j, parent node p). */
static inline void sample_slot(const Chain *ch, Rng *rng, int64_t j, int64_t p, int64_t k, double cj, double cp) {
    int64_t slot = ch->off[j] + k, ps = ch->off[p] + k;
    int64_t count = ch->n[slot];
    if (count < 2 || count > ch->n_max) return; /* t = n when n <= 1; beyond the table t keeps its start */
    int64_t old = ch->t[slot], tp = ch->t[ps];
    if (tp < 1) return;
    int64_t par_rest = ch->n[ps] - old, total_rest = ch->total[p] - old;
    int64_t lo = old - ch->window, hi = old + ch->window;
    if (lo < 1) lo = 1;
    if (lo < tp - par_rest) lo = tp - par_rest;
    if (hi > count) hi = count;
    if (hi > ch->n_max - par_rest) hi = ch->n_max - par_rest;
    if (lo > hi) return;
    int64_t v = lo;
    if (hi > lo) {
        /* cum[i]: the weights of candidates lo .. lo + i summed, relative to lo's */
        double cum[2 * MAX_WINDOW + 1], ratio[2 * MAX_WINDOW + 1];
        const double *up = ch->ratios->up + count * (count + 1) / 2;
        const double *down = ch->ratios->down + (tp >= 2 ? ch->ratios->down_start[tp] : 0);
        int64_t width = hi - lo + 1;
        double w = 1.0, denominator = cp + (double)total_rest + (double)lo, m = (double)(par_rest + lo);
        double largest = 1.0, smallest = 1.0;
        cum[0] = 1.0;
        for (int64_t i = 1; i < width; i++, denominator += 1.0, m += 1.0) {
            int64_t prev = lo + i - 1;
            double grow = tp >= 2 ? m + down[par_rest + prev] : m;
            ratio[i] = up[prev] * cj * grow / denominator;
            w *= ratio[i];
            largest = w > largest ? w : largest;
            smallest = w < smallest ? w : smallest;
            cum[i] = cum[i - 1] + w;
        }
        /* an overflow or underflow shows in the extremes (a NaN could only follow an inf or a 0) */
        if (!(largest < 1e280 && smallest > 1e-280)) { /* the same weights from the logs of the same ratios */
            double log_w = 0.0, top = 0.0;
            cum[0] = 0.0;
            for (int64_t i = 1; i < width; i++) {
                log_w += log(ratio[i]);
                cum[i] = log_w;
                if (log_w > top) top = log_w;
            }
            double sum = 0.0;
            for (int64_t i = 0; i < width; i++) {
                sum += exp(cum[i] - top);
                cum[i] = sum;
            }
        }
        /* the first candidate whose cumulative weight exceeds u, counted without branches */
        double u = rng_uniform(rng) * cum[width - 1];
        int64_t pick = 0;
        for (int64_t i = 0; i < width - 1; i++) pick += cum[i] <= u;
        v = lo + pick;
    }
    if (v != old) {
        ch->t[slot] = v;
        ch->n[ps] += v - old;
        ch->total[p] += v - old;
    }
}

/* -log(q), q ~ Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b), capped as the
 * numpy sampler caps it (-log max(q, 1e-75); X may underflow for tiny a). */
static double neg_log_beta(Rng *rng, double a, double b) {
    double x = rng_gamma(rng, a), y = rng_gamma(rng, b);
    double value = x > 0.0 ? log1p(y / x) : MAX_NEG_LOG_Q;
    return value < MAX_NEG_LOG_Q ? value : MAX_NEG_LOG_Q;
}

/* sum_j -log q_j, q_j ~ Beta(c, N_j) independent, over the nodes' totals N_j > 0.
 *
 * For an integer b, Beta(a, b) is the product of independent Beta(a + i, 1), i < b, and
 * -log Beta(a + i, 1) is Exp(1) / (a + i); so the nodes with N_j <= GROUPED contribute
 * sum_i Gamma(m_i) / (c + i), m_i the number of those nodes with N_j > i: one draw per
 * i instead of two per node, the same distribution. The numpy sampler caps each -log q
 * at 172.7; for c >= 0.25 a node reaches the cap with probability below e^-43, so the
 * grouping is used from there, and node by node (capped) below. */
#define GROUPED 64

/* Gamma(m) for a whole m >= 1: below SMALL_SHAPE the sum of m exponentials, -log of the
 * product of m uniforms on (0, 1) (no underflow: each is at least 2^-54), cheaper than
 * the general draw's normal, uniform and logs; the general draw above. */
#define SMALL_SHAPE 12
static inline double gamma_of_integer(Rng *rng, int64_t m) {
    if (m >= SMALL_SHAPE) return rng_gamma(rng, (double)m);
    double product = rng_uniform_open(rng);
    for (int64_t i = 1; i < m; i++) product *= rng_uniform_open(rng);
    return -log(product);
}
static double level_rate(Rng *rng, double c, const int64_t *total, Py_ssize_t n_nodes) {
    double rate = 0.0;
    int64_t above[GROUPED + 1] = {0};
    int grouped = c >= 0.25;
    for (Py_ssize_t j = 0; j < n_nodes; j++) {
        int64_t n = total[j];
        if (n <= 0) continue;
        if (grouped && n <= GROUPED) above[n]++;
        else rate += neg_log_beta(rng, c, (double)n);
    }
    if (grouped) {
        int64_t m = 0; /* nodes with N_j > i, i from the top down */
        for (int64_t i = GROUPED - 1; i >= 0; i--) {
            m += above[i + 1];
            if (m) rate += gamma_of_integer(rng, m) / (c + (double)i);
        }
    }
    return rate;
}

/* The slots a chain ever samples (a customer count that can reach 2: the data below
 * allow it), in the order of the sweep: deepest level first. */
static Py_ssize_t sampled_slots(const Chain *ch, const int64_t *fam_first, const int64_t *fam_count, int64_t depth,
                                int64_t *capacity, int64_t *visit_slot, int64_t *visit_node) {
    const int64_t *off = ch->off, *parent = ch->parent;
    int64_t leaves = depth - 1;
    for (int64_t level = 0; level < depth; level++)
        for (int64_t s = off[fam_first[level]]; s < off[fam_first[level] + fam_count[level]]; s++)
            capacity[s] = level == leaves ? ch->n[s] : 0;
    for (int64_t level = leaves; level >= 1; level--)
        for (int64_t j = fam_first[level]; j < fam_first[level] + fam_count[level]; j++)
            for (int64_t k = 0; k < off[j + 1] - off[j]; k++) capacity[off[parent[j]] + k] += capacity[off[j] + k];
    Py_ssize_t n_visits = 0;
    for (int64_t level = leaves; level >= 1; level--)
        for (int64_t j = fam_first[level]; j < fam_first[level] + fam_count[level]; j++)
            for (int64_t s = off[j]; s < off[j + 1]; s++)
                if (capacity[s] >= 2) {
                    visit_slot[n_visits] = s;
                    visit_node[n_visits++] = j;
                }
    return n_visits;
}

/* p of every slot of levels [from, to): p_k = (n_k + c p_parent_k) / (N + c). */
static void estimates(const Chain *ch, const int64_t *fam_first, const int64_t *fam_count, int64_t from, int64_t to,
                      double *p) {
    const int64_t *off = ch->off, *parent = ch->parent;
    for (int64_t level = from; level < to; level++) {
        for (int64_t j = fam_first[level]; j < fam_first[level] + fam_count[level]; j++) {
            int64_t r = off[j + 1] - off[j];
            double c = level ? ch->c[ch->conc[j]] : ROOT_CONCENTRATION, scale = 1.0 / ((double)ch->total[j] + c);
            const int64_t *n = ch->n + off[j];
            double *out = p + off[j];
            if (level) {
                const double *prior = p + off[parent[j]];
                for (int64_t k = 0; k < r; k++) out[k] = ((double)n[k] + c * prior[k]) * scale;
            } else {
                for (int64_t k = 0; k < r; k++) out[k] = ((double)n[k] + c / (double)r) * scale;
            }
        }
    }
}

/* Adds to ``mean`` the leaves' estimates of the ``pending`` iterations since the last
 * flush, from the sums of their parents' estimates over those iterations: a leaf's
 * customers and total are data, and its level's concentration did not change between
 * flushes, so sum_it (n + c p_par,it) / (N + c) = (pending n + c sum_it p_par,it) / (N + c). */
static void flush_leaves(const Chain *ch, const int64_t *fam_first, const int64_t *fam_count, int64_t leaves,
                         int64_t pending, double *parent_sums, double *mean) {
    const int64_t *off = ch->off, *parent = ch->parent;
    if (!pending) return;
    for (int64_t j = fam_first[leaves]; j < fam_first[leaves] + fam_count[leaves]; j++) {
        int64_t r = off[j + 1] - off[j];
        double c = ch->c[ch->conc[j]], scale = 1.0 / ((double)ch->total[j] + c);
        const double *sums = parent_sums + off[parent[j]];
        const int64_t *n = ch->n + off[j];
        double *out = mean + off[j];
        for (int64_t k = 0; k < r; k++) out[k] += ((double)pending * (double)n[k] + c * sums[k]) * scale;
    }
    for (int64_t s = off[fam_first[leaves - 1]]; s < off[fam_first[leaves - 1] + fam_count[leaves - 1]]; s++)
        parent_sums[s] = 0.0;
}

/* One family's chain: n_iterations sweeps, a concentration draw every SAMPLE_EVERY, and
 * the estimates of the iterations from burn_in on added to ``mean`` and averaged (the
 * last state's estimates when none is kept). ``p``, ``parent_sums``, ``capacity`` and
 * the visit arrays are scratch of the trees' size. */
static void run_family(Chain *ch, Rng *rng, const int64_t *fam_first, const int64_t *fam_count, int64_t depth,
                       Py_ssize_t n_iterations, Py_ssize_t burn_in, int sample_c, double *mean, double *p,
                       double *parent_sums, int64_t *capacity, int64_t *visit_slot, int64_t *visit_node) {
    const int64_t *off = ch->off, *parent = ch->parent, *conc = ch->conc;
    Py_ssize_t n_visits = sampled_slots(ch, fam_first, fam_count, depth, capacity, visit_slot, visit_node);
    int64_t leaves = depth - 1, kept = 0, pending = 0;
    int block_leaves = depth >= 2; /* the leaves' estimates summed per stretch of constant c */
    int64_t internal = block_leaves ? leaves : depth;
    int64_t sums_from = block_leaves ? off[fam_first[leaves - 1]] : 0;
    int64_t sums_to = block_leaves ? off[fam_first[leaves - 1] + fam_count[leaves - 1]] : 0;
    for (int64_t s = sums_from; s < sums_to; s++) parent_sums[s] = 0.0;
    for (Py_ssize_t it = 0; it < n_iterations; it++) {
        for (Py_ssize_t v = 0; v < n_visits; v++) {
            int64_t j = visit_node[v], par = parent[j];
            sample_slot(ch, rng, j, par, visit_slot[v] - off[j], ch->c[conc[j]], ch->c[conc[par]]);
        }
        /* each level's concentration: q_j ~ Beta(c, N_j), c ~ Gamma(2 + tables, 1 + sum log 1/q) */
        if (sample_c && (it + SAMPLE_EVERY / 2) % SAMPLE_EVERY == 0) {
            if (block_leaves) flush_leaves(ch, fam_first, fam_count, leaves, pending, parent_sums, mean);
            pending = 0;
            for (int64_t level = 1; level < depth; level++) {
                int64_t j0 = fam_first[level], j1 = j0 + fam_count[level];
                double shape = PRIOR_SHAPE;
                int used = 0;
                for (int64_t j = j0; j < j1; j++) {
                    if (ch->total[j] <= 0) continue;
                    used = 1;
                    for (int64_t s = off[j]; s < off[j + 1]; s++) shape += (double)ch->t[s];
                }
                if (!used) continue;
                double rate = PRIOR_RATE + level_rate(rng, ch->c[conc[j0]], ch->total + j0, j1 - j0);
                double drawn = rng_gamma(rng, shape) / rate;
                ch->c[conc[j0]] = drawn < MAX_CONCENTRATION ? drawn : MAX_CONCENTRATION;
            }
        }
        if (it < burn_in) continue;
        estimates(ch, fam_first, fam_count, 0, internal, p);
        kept++;
        for (int64_t level = 0; level < internal; level++)
            for (int64_t s = off[fam_first[level]]; s < off[fam_first[level] + fam_count[level]]; s++) mean[s] += p[s];
        if (block_leaves) {
            pending++;
            for (int64_t s = sums_from; s < sums_to; s++) parent_sums[s] += p[s];
        }
    }
    if (block_leaves) flush_leaves(ch, fam_first, fam_count, leaves, pending, parent_sums, mean);
    if (!kept) estimates(ch, fam_first, fam_count, 0, depth, p);
    for (int64_t level = 0; level < depth; level++)
        for (int64_t s = off[fam_first[level]]; s < off[fam_first[level] + fam_count[level]]; s++)
            mean[s] = kept ? mean[s] / (double)kept : p[s];
}

/* chains(n, t, total, off, parent, conc, c, first, count, n_levels, families, seeds,
 *        n_iterations, burn_in, sample_concentrations, window, n_max, mean)
 * Runs the chain of each family in ``families`` (indices into the rows of ``first`` /
 * ``count``: the first node and the number of nodes of each level) and writes the
 * average of its estimates over the iterations after burn-in into ``mean``. */
static PyObject *chains(PyObject *self, PyObject *args) {
    PyObject *o[13];
    Py_ssize_t n_iterations, burn_in, window, n_max;
    int sample_c;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOnnpnnO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10], &o[11], &n_iterations, &burn_in, &sample_c, &window, &n_max, &o[12]))
        return NULL;
    static const char *names[13] = {"n", "t", "total", "off", "parent", "conc", "c", "first", "count",
                                    "n_levels", "families", "seeds", "mean"};
    static const char wants[13] = {'L', 'L', 'L', 'L', 'L', 'L', 'F', 'L', 'L', 'L', 'L', 'L', 'F'};
    Arr a[13] = {0};
    PyObject *result = NULL;
    double *p = NULL;
    int64_t *scratch = NULL;
    for (int i = 0; i < 13; i++)
        if (arr_get(o[i], &a[i], wants[i], names[i])) goto done;
    if (window < 0 || window > MAX_WINDOW || n_max < 1) {
        PyErr_SetString(PyExc_ValueError, "window must be in 0..64 and n_max >= 1");
        goto done;
    }
    Py_ssize_t n_nodes = a[4].size, n_slots = a[0].size, n_conc = a[6].size, n_fam = a[9].size;
    Py_ssize_t L = n_fam ? a[7].size / n_fam : 0;
    const int64_t *off = I64(a[3]), *parent = I64(a[4]), *conc = I64(a[5]), *first = I64(a[7]), *count = I64(a[8]),
                  *n_levels = I64(a[9]), *families = I64(a[10]), *seeds = I64(a[11]);
    if (a[1].size != n_slots || a[2].size != n_nodes || a[3].size != n_nodes + 1 || a[5].size != n_nodes ||
        a[8].size != a[7].size || a[7].size != n_fam * L || a[12].size != n_slots || a[11].size < a[10].size ||
        off[n_nodes] != n_slots) {
        PyErr_SetString(PyExc_ValueError, "chains: inconsistent tree arrays");
        goto done;
    }
    /* the trees come from _Trees; still, no index may point outside an array: each
     * requested family's nodes are checked (a cost proportional to one iteration) */
    for (Py_ssize_t i = 0; i < a[10].size; i++) {
        int64_t f = families[i];
        int ok = f >= 0 && f < n_fam && n_levels[f] >= 1 && n_levels[f] <= L;
        for (int64_t level = 0; ok && level < n_levels[f]; level++) {
            int64_t j0 = first[f * L + level], j1 = j0 + count[f * L + level];
            int64_t p0 = level ? first[f * L + level - 1] : -1, p1 = level ? p0 + count[f * L + level - 1] : 0;
            ok = j0 >= 0 && j1 <= n_nodes && j1 >= j0;
            for (int64_t j = j0; ok && j < j1; j++)
                ok = off[j] >= 0 && off[j + 1] >= off[j] && off[j + 1] <= n_slots && conc[j] >= 0 && conc[j] < n_conc &&
                     (level ? parent[j] >= p0 && parent[j] < p1 &&
                                  off[j + 1] - off[j] == off[parent[j] + 1] - off[parent[j]]
                            : parent[j] == -1);
        }
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "chains: inconsistent tree arrays");
            goto done;
        }
    }
    /* no slot ever holds more customers than its family has rows (the leaves' counts),
     * and none beyond n_max is sampled: the ratio tables need no more rows */
    int64_t data = 1;
    for (Py_ssize_t i = 0; i < a[10].size; i++) {
        int64_t f = families[i], leaves = first[f * L + n_levels[f] - 1], rows = 0;
        for (int64_t s = off[leaves]; s < off[leaves + count[f * L + n_levels[f] - 1]]; s++) rows += I64(a[0])[s];
        if (rows > data) data = rows;
    }
    Chain ch = {I64(a[0]), I64(a[1]), I64(a[2]), off, parent, conc, F64(a[6]), NULL, n_max, window};
    ch.ratios = ratios_for((data < n_max ? data : n_max) + 1, n_max + 1);
    if (!ch.ratios) goto done;
    p = PyMem_RawMalloc(2 * n_slots * sizeof(double) + 1);
    scratch = PyMem_RawMalloc(3 * n_slots * sizeof(int64_t) + 1);
    if (!p || !scratch) { PyErr_NoMemory(); goto done; }
    double *mean = F64(a[12]);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < a[10].size; i++) {
        int64_t f = families[i];
        Rng rng;
        rng_seed(&rng, (uint64_t)seeds[i]);
        run_family(&ch, &rng, first + f * L, count + f * L, n_levels[f], n_iterations, burn_in, sample_c, mean, p,
                   p + n_slots, scratch, scratch + n_slots, scratch + 2 * n_slots);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyMem_RawFree(p);
    PyMem_RawFree(scratch);
    arr_release(a, 13);
    return result;
}

/* Draws for the tests: ``kind`` 0 uniform, 1 normal, 2 Gamma(a), 3 -log Beta(a, b);
 * 4 and 5: sum_j -log q_j, q_j ~ Beta(a, N_j) for the totals ``N`` (4 grouped where
 * allowed, as the chains draw it; 5 node by node); 6 Gamma(a) for a whole a, as the
 * grouped draws take it. */
static PyObject *draws(PyObject *self, PyObject *args) {
    unsigned long long seed;
    int kind;
    double a, b;
    PyObject *o, *o_totals;
    if (!PyArg_ParseTuple(args, "KiddOO", &seed, &kind, &a, &b, &o_totals, &o)) return NULL;
    Arr arrays[2] = {0};
    if (arr_get(o, &arrays[0], 'F', "out") || arr_get(o_totals, &arrays[1], 'L', "totals")) {
        arr_release(arrays, 2);
        return NULL;
    }
    Rng rng;
    rng_seed(&rng, seed);
    double *x = F64(arrays[0]);
    const int64_t *totals = I64(arrays[1]);
    Py_ssize_t n_totals = arrays[1].size;
    for (Py_ssize_t i = 0; i < arrays[0].size; i++) {
        if (kind == 0) x[i] = rng_uniform(&rng);
        else if (kind == 1) x[i] = rng_normal(&rng);
        else if (kind == 2) x[i] = rng_gamma(&rng, a);
        else if (kind == 3) x[i] = neg_log_beta(&rng, a, b);
        else if (kind == 4) x[i] = level_rate(&rng, a, totals, n_totals);
        else if (kind == 6) x[i] = gamma_of_integer(&rng, (int64_t)a);
        else {
            x[i] = 0.0;
            for (Py_ssize_t j = 0; j < n_totals; j++)
                if (totals[j] > 0) x[i] += neg_log_beta(&rng, a, (double)totals[j]);
        }
    }
    arr_release(arrays, 2);
    Py_RETURN_NONE;
}

/* S(n, v + 1) / S(n, v) and S(n, v - 1) / S(n, v) as the chains read them (for the tests). */
static PyObject *stirling_ratios(PyObject *self, PyObject *args) {
    Py_ssize_t n, v;
    if (!PyArg_ParseTuple(args, "nn", &n, &v)) return NULL;
    if (n < 2 || v < 1 || v >= n) {
        PyErr_SetString(PyExc_ValueError, "need 1 <= v < n");
        return NULL;
    }
    const Ratios *r = ratios_for(n + 1, n + 1);
    if (!r) return NULL;
    double down = v >= 2 ? r->down[r->down_start[v] + n] : 0.0;
    return Py_BuildValue("dd", r->up[n * (n + 1) / 2 + v], down);
}

static PyMethodDef methods[] = {
    {"chains", chains, METH_VARARGS, "Each family's Gibbs chain and its average estimates."},
    {"draws", draws, METH_VARARGS, "Random draws of the samplers' distributions (for tests)."},
    {"stirling_ratios", stirling_ratios, METH_VARARGS, "The Stirling ratios the chains read (for tests)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_hdp_c", "pybnc.parameters.hdp's Gibbs chains in C.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__hdp_c(void) { return PyModule_Create(&module); }
