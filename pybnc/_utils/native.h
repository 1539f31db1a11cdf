/* Shared by pybnc's C kernels (built at install time, see setup.py): numpy arrays read
 * through the buffer protocol (so no numpy headers are needed to build), and a small
 * random number generator for the samplers.
 *
 * Every kernel receives C-contiguous arrays whose dtypes the Python wrapper has fixed;
 * the helpers here check the element kind and the length anyway, so that a wrong call
 * raises instead of reading past an array. Integer code arrays may be of any signed
 * width (the encoder's int8..int64 codes) or bool. */
#ifndef PYBNC_NATIVE_H
#define PYBNC_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { KIND_F64 = 1, KIND_I8, KIND_I16, KIND_I32, KIND_I64, KIND_U8 };

typedef struct {
    Py_buffer view;
    int held;
    int kind;
    Py_ssize_t size; /* elements */
} Arr;

static inline int arr_kind(const Py_buffer *view) {
    const char *f = view->format ? view->format : "B";
    while (*f == '<' || *f == '=' || *f == '@' || *f == '!') f++;
    switch (*f) {
    case 'd': return view->itemsize == 8 ? KIND_F64 : 0;
    case 'b': return KIND_I8;
    case '?': case 'B': return view->itemsize == 1 ? KIND_U8 : 0;
    case 'h': return view->itemsize == 2 ? KIND_I16 : 0;
    case 'i': case 'l': case 'q':
        return view->itemsize == 4 ? KIND_I32 : (view->itemsize == 8 ? KIND_I64 : 0);
    default: return 0;
    }
}

/* Acquire ``obj`` as a contiguous array. ``want``: 'f' float64, 'F' writable float64,
 * 'i' any integer (read), 'L' writable int64. */
static inline int arr_get(PyObject *obj, Arr *a, char want, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    if (want == 'F' || want == 'L') flags |= PyBUF_WRITABLE;
    a->held = 0;
    if (PyObject_GetBuffer(obj, &a->view, flags) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous%s array", name,
                     (flags & PyBUF_WRITABLE) ? " writable" : "");
        return -1;
    }
    a->held = 1;
    a->kind = arr_kind(&a->view);
    a->size = a->view.itemsize ? a->view.len / a->view.itemsize : 0;
    int ok = (want == 'f' || want == 'F') ? a->kind == KIND_F64
           : want == 'L' ? a->kind == KIND_I64
           : (a->kind != 0 && a->kind != KIND_F64);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: wrong dtype (format '%s')", name, a->view.format ? a->view.format : "?");
        return -1;
    }
    return 0;
}

static inline void arr_release(Arr *arrays, int n) {
    for (int i = 0; i < n; i++)
        if (arrays[i].held) {
            PyBuffer_Release(&arrays[i].view);
            arrays[i].held = 0;
        }
}

static inline int arr_check_size(const Arr *a, Py_ssize_t size, const char *name) {
    if (a->size < size) {
        PyErr_Format(PyExc_ValueError, "%s: %zd elements, at least %zd needed", name, a->size, size);
        return -1;
    }
    return 0;
}

#define F64(a) ((double *)(a).view.buf)
#define I64(a) ((int64_t *)(a).view.buf)

/* Element ``i`` of an integer array of any width. */
static inline int64_t iget(const Arr *a, Py_ssize_t i) {
    switch (a->kind) {
    case KIND_I8: return ((const int8_t *)a->view.buf)[i];
    case KIND_I16: return ((const int16_t *)a->view.buf)[i];
    case KIND_I32: return ((const int32_t *)a->view.buf)[i];
    case KIND_U8: return ((const uint8_t *)a->view.buf)[i];
    default: return ((const int64_t *)a->view.buf)[i];
    }
}

/* Rows ``start .. start + len`` of an integer array as int64: the array itself when it
 * is int64, else converted into ``buffer`` (at least ``len`` long). Kernels walk rows in
 * blocks of NATIVE_BLOCK so that their loops run on one integer type. */
#define NATIVE_BLOCK 4096
static inline const int64_t *iblock(const Arr *a, Py_ssize_t start, Py_ssize_t len, int64_t *buffer) {
    switch (a->kind) {
    case KIND_I8: { const int8_t *s = (const int8_t *)a->view.buf + start; for (Py_ssize_t i = 0; i < len; i++) buffer[i] = s[i]; return buffer; }
    case KIND_I16: { const int16_t *s = (const int16_t *)a->view.buf + start; for (Py_ssize_t i = 0; i < len; i++) buffer[i] = s[i]; return buffer; }
    case KIND_I32: { const int32_t *s = (const int32_t *)a->view.buf + start; for (Py_ssize_t i = 0; i < len; i++) buffer[i] = s[i]; return buffer; }
    case KIND_U8: { const uint8_t *s = (const uint8_t *)a->view.buf + start; for (Py_ssize_t i = 0; i < len; i++) buffer[i] = s[i]; return buffer; }
    default: return (const int64_t *)a->view.buf + start;
    }
}

/* Vector loops: an AVX2 copy chosen at load time where the processor has it (GCC on
 * x86-64 Linux), the baseline (SSE2) elsewhere. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define NATIVE_VECTOR __attribute__((target_clones("avx2", "default")))
#else
#define NATIVE_VECTOR
#endif

/* xoshiro256++ (Blackman & Vigna), seeded through splitmix64. */
typedef struct {
    uint64_t s[4];
    int has_normal;
    double normal;
} Rng;

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(Rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

static inline void rng_seed(Rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        r->s[i] = z ^ (z >> 31);
    }
    r->has_normal = 0;
}

/* Uniform on [0, 1) with 53 random bits. */
static inline double rng_uniform(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Uniform on (0, 1): never 0, so that its log is finite. */
static inline double rng_uniform_open(Rng *r) { return ((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53; }

/* Standard normal (Marsaglia's polar method, the second value kept). */
static inline double rng_normal(Rng *r) {
    if (r->has_normal) {
        r->has_normal = 0;
        return r->normal;
    }
    double u, v, s;
    do {
        u = 2.0 * rng_uniform(r) - 1.0;
        v = 2.0 * rng_uniform(r) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    double f = sqrt(-2.0 * log(s) / s);
    r->normal = v * f;
    r->has_normal = 1;
    return u * f;
}

/* A Gamma(shape, 1) draw (Marsaglia & Tsang 2000; shape < 1 through
 * Gamma(shape + 1) U^(1 / shape), which may underflow to 0 for tiny shapes). */
static inline double rng_gamma(Rng *r, double shape) {
    double boost = 1.0;
    if (shape < 1.0) {
        boost = pow(rng_uniform_open(r), 1.0 / shape);
        shape += 1.0;
    }
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = rng_normal(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = rng_uniform_open(r);
        double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) return d * v * boost;
    }
}

#endif
