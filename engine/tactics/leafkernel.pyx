# engine/tactics/leafkernel.pyx: the leaf-prior kernel, a learned model's table searched without the GIL
# (contract in leafkernel.pxd).
#
# The learned leaf priors (Python models) export their pattern tables once per query; the
# search then prices every new leaf in C. The arithmetic below repeats the models' Python
# expressions operation for operation, and is compiled without fused multiply-adds, so that both
# paths give the same doubles (libm serves Python's math module as well).
from libc.math cimport INFINITY, isfinite, log, sqrt
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from engine.tactics.types cimport (KERNEL_BETA, KERNEL_CONST, KERNEL_HIER, N_SIZES, LeafTable, TableSlot,
                                   prefetch)

import math

import numpy as np


cdef extern from *:
    """
    #include <math.h>
    #pragma GCC push_options
    #pragma GCC optimize ("fp-contract=off")
    static double tk_erfcx(double x) {
        double inv;
        if (x < 26.0) return exp(x * x) * erfc(x);
        inv = 1.0 / (x * x);
        return (1.0 - 0.5 * inv + 0.75 * inv * inv - 1.875 * pow(inv, 3.0)) / (x * sqrt(3.141592653589793));
    }
    static double tk_log_ndtr(double t) {
        if (t > -5.0) return log(0.5 * erfc(-t / sqrt(2.0)));
        return log(0.5 * tk_erfcx(-t / sqrt(2.0))) - 0.5 * t * t;
    }
    /* the message a Gaussian (tau, rho) on x_{i+1} sends x_i through N(x_{i+1}; x_i, beta_sq) */
    static double tk_affine(double a, double x, double b) { return a * x + b; }
    static void tk_up(double tau, double rho, double beta_sq, double* out) {
        double d = 1.0 + beta_sq * tau;
        out[0] = tau / d;
        out[1] = rho / d;
    }
    #pragma GCC pop_options
    """
    double tk_log_ndtr(double t) noexcept nogil
    void tk_up(double tau, double rho, double beta_sq, double* out) noexcept nogil
    double tk_affine(double a, double x, double b) noexcept nogil


cdef inline double clip_logodds(double x, double c) noexcept nogil:
    # min(c, max(-c, x)), as the Python models clip
    if x < -c:
        x = -c
    return c if c < x else x


cdef inline double calibrate(const LeafTable* t, double x) noexcept nogil:
    # the models' _calibrate: clipped, then scale * x + shift
    return tk_affine(t.scale, clip_logodds(x, t.clip), t.shift)


cdef inline const double* table_find(const LeafTable* t, uint64_t key) noexcept nogil:
    """The values of key, or NULL when it is not in the table."""
    cdef int64_t i
    if key == 0:
        return t.zero.v if t.zero_used else NULL
    if t.mask < 0:
        return NULL
    i = <int64_t>(slot_of(key) & <uint64_t>t.mask)
    while t.slots[i].key != 0:
        if t.slots[i].key == key:
            return t.slots[i].v
        i = (i + 1) & t.mask
    return NULL


cdef double leaf_logodds(const LeafTable* t, const uint64_t* stack) noexcept nogil:
    cdef const double* v
    cdef const double* child
    cdef double tau, rho, mt, mr, var, mu
    cdef int i
    if t.kind == KERNEL_CONST:
        return t.base
    if t.kind == KERNEL_BETA:
        for i in range(N_SIZES - 1, -1, -1):
            v = table_find(t, stack[i])
            if v != NULL:
                return v[0]
        return t.base
    if t.mask >= 0:                     # the probes below miss the cache: start them all at once
        for i in range(N_SIZES):
            prefetch(&t.slots[slot_of(stack[i]) & <uint64_t>t.mask])
    # HierGaussPrior.belief: marginal of x_i, then the cavity (minus the child's message) sent down
    tau = t.tau0
    rho = t.rho0
    v = table_find(t, stack[0])
    for i in range(N_SIZES):
        if v != NULL:
            tau = tau + v[0]
            rho = rho + v[1]
        if i == N_SIZES - 1:
            break
        # every stored pattern's parent is stored (HierGaussPrior._add), so past the first unseen
        # pattern no larger one is in the table: only the variance grows from there
        child = table_find(t, stack[i + 1]) if v != NULL else NULL
        mt = child[2] if child != NULL else 0.0
        mr = child[3] if child != NULL else 0.0
        tau = tau - mt
        rho = rho - mr
        var = 1.0 / tau + t.beta_sq[i]
        rho = (rho / tau) / var
        tau = 1.0 / var
        v = child
    mu = rho / tau
    var = 1.0 / tau + 1.0
    mu = mu / sqrt(var)
    return calibrate(t, tk_log_ndtr(mu) - tk_log_ndtr(-mu))


cdef class PriorKernel:
    """A learned leaf prior's table in C, for `Solver` (see `leaf_logodds`). Build one with
    `constant`, `beta` or `hier` from the model's arrays; `logodds` prices stacks as the model does."""

    def __cinit__(self):
        memset(&self.t, 0, sizeof(LeafTable))
        self.t.mask = -1
        self.t.clip = INFINITY
        self.t.scale = 1.0

    def __dealloc__(self):
        free(self.t.slots)

    cdef int _alloc(self, int64_t n) except -1:
        cdef int64_t slots = 16
        while slots < 2 * n:
            slots *= 2
        self.t.slots = <TableSlot*>malloc(slots * sizeof(TableSlot))
        if self.t.slots == NULL:
            raise MemoryError()
        memset(self.t.slots, 0, slots * sizeof(TableSlot))
        self.t.mask = slots - 1
        return 0

    cdef double* _insert(self, uint64_t key) noexcept nogil:
        cdef int64_t i
        if key == 0:
            self.t.zero_used = True
            return self.t.zero.v
        i = <int64_t>(slot_of(key) & <uint64_t>self.t.mask)
        while self.t.slots[i].key != 0 and self.t.slots[i].key != key:
            i = (i + 1) & self.t.mask
        self.t.slots[i].key = key
        return self.t.slots[i].v

    cdef int _calibration(self, clip, double scale, double shift) except -1:
        if clip is not None and not clip > 0:
            raise ValueError("clip must be positive")
        if not (isfinite(scale) and scale >= 0 and isfinite(shift)):
            raise ValueError("scale must be finite and >= 0, shift finite")
        self.t.clip = math.inf if clip is None else float(clip)
        self.t.scale = scale
        self.t.shift = shift
        return 0

    @staticmethod
    def constant(double logodds) -> PriorKernel:
        """The same log-odds for every leaf."""
        if not isfinite(logodds):
            raise ValueError("leaf log-odds must be finite")
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        k.t.kind = KERNEL_CONST
        k.t.base = logodds
        return k

    @staticmethod
    def beta(keys, counts, double alpha0, double beta0, clip=None, double scale=1.0,
             double shift=0.0) -> PriorKernel:
        """BetaPrior: keys (n,) uint64 with counts (n, 2) of TRUE and FALSE; a stack's log-odds is
        ln((alpha0 + TRUE) / (beta0 + FALSE)) of its largest pattern with a count, clipped, then
        scale * x + shift."""
        cdef uint64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
        cdef double[:, ::1] cv = np.ascontiguousarray(counts, dtype=np.float64).reshape(-1, 2)
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        cdef int64_t i
        cdef double* slot
        if cv.shape[0] != kv.shape[0]:
            raise ValueError("keys and counts do not match")
        if not (alpha0 > 0 and beta0 > 0):
            raise ValueError("alpha0 and beta0 must be positive")
        k.t.kind = KERNEL_BETA
        k._calibration(clip, scale, shift)
        k.t.base = calibrate(&k.t, log(alpha0 / beta0))
        k._alloc(kv.shape[0])
        for i in range(kv.shape[0]):
            if cv[i, 0] + cv[i, 1] > 0:
                slot = k._insert(kv[i])
                slot[0] = calibrate(&k.t, log((alpha0 + cv[i, 0]) / (beta0 + cv[i, 1])))
        return k

    @staticmethod
    def hier(keys, b, level, double mu0, double sigma0_sq, beta_sq, clip=None, double scale=1.0,
             double shift=0.0) -> PriorKernel:
        """HierGaussPrior: keys (n,) uint64 with b (n, 2) = (tau, rho) from below and level (n,). The keys
        hold every stored pattern's parent, as HierGaussPrior's do: a query stops probing at the first
        pattern of its stack not among them."""
        cdef uint64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
        cdef double[:, ::1] bv = np.ascontiguousarray(b, dtype=np.float64).reshape(-1, 2)
        cdef int64_t[::1] lv = np.ascontiguousarray(level, dtype=np.int64).reshape(-1)
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        cdef int64_t i
        cdef double* slot
        bs = [float(x) for x in beta_sq]
        if bv.shape[0] != kv.shape[0] or lv.shape[0] != kv.shape[0]:
            raise ValueError("keys, b and level do not match")
        if len(bs) != N_SIZES - 1 or not min(bs) > 0 or not sigma0_sq > 0:
            raise ValueError("bad hierarchical prior parameters")
        if kv.shape[0] and (np.min(level) < 0 or np.max(level) >= N_SIZES):
            raise ValueError("levels out of range")
        k.t.kind = KERNEL_HIER
        k._calibration(clip, scale, shift)
        k.t.tau0 = 1.0 / sigma0_sq
        k.t.rho0 = mu0 / sigma0_sq
        for i in range(N_SIZES - 1):
            k.t.beta_sq[i] = bs[i]
        k._alloc(kv.shape[0])
        for i in range(kv.shape[0]):
            slot = k._insert(kv[i])
            slot[0] = bv[i, 0]
            slot[1] = bv[i, 1]
            slot[2] = 0.0
            slot[3] = 0.0
            if lv[i] > 0:
                tk_up(bv[i, 0], bv[i, 1], k.t.beta_sq[lv[i] - 1], &slot[2])
        return k

    @property
    def kind(self) -> str:
        return ("constant", "beta", "hier")[self.t.kind]

    def __len__(self) -> int:
        cdef int64_t i, n = 1 if self.t.zero_used else 0
        for i in range(self.t.mask + 1):
            n += self.t.slots[i].key != 0
        return n

    def logodds(self, keys) -> np.ndarray:
        """The leaf log-odds of each (n, 8) uint64 stack."""
        cdef uint64_t[:, ::1] kv
        keys = np.asarray(keys)
        if keys.ndim != 2 or keys.shape[1] != N_SIZES or keys.dtype != np.uint64:
            raise ValueError(f"keys must be a (n, {N_SIZES}) uint64 array, got {keys.dtype} {keys.shape}")
        kv = np.ascontiguousarray(keys)
        out = np.empty(kv.shape[0], dtype=np.float64)
        cdef double[::1] ov = out
        cdef int64_t i
        for i in range(kv.shape[0]):
            ov[i] = leaf_logodds(&self.t, &kv[i, 0])
        return out
