# engine/tactics/logodds.pyx: log-odds arithmetic (contract in logodds.pxd). PP keeps beliefs as log-odds
# L = ln(p / (1 - p)), +inf for a proved node and -inf for a disproved one.
from libc.math cimport INFINITY, exp, log

import math

import numpy as np


cdef double combine_and(const double* L, int n, int stride) noexcept nogil:
    """Eq. (1) in log-odds: s = ln P = sum ln p_c, then L = s - ln(1 - e^s).

    A TRUE child (+inf) adds nothing and a FALSE one (-inf) makes s = -inf. When s underflows to ~0
    (every child within ~1e-290 of 1), ln(1 - P) is taken as ln sum(1 - p_c) instead, whose relative
    error is below sum(1 - p_c)."""
    cdef double s = 0.0, t, m, acc, x
    cdef int i
    for i in range(n):
        s -= softplus(-L[i * stride])
    if s == -INFINITY:
        return -INFINITY
    if s < -1e-290:
        return s - log1mexp(s)
    m = -INFINITY                       # t = ln sum_c (1 - p_c) = logsumexp(-softplus(L_c))
    for i in range(n):
        x = -softplus(L[i * stride])
        if x > m:
            m = x
    if m == -INFINITY:
        return INFINITY                 # every child TRUE
    acc = 0.0
    for i in range(n):
        acc += exp(-softplus(L[i * stride]) - m)
    t = m + log(acc)
    return s - t


cdef double combine_or(const double* L, int n, int stride) noexcept nogil:
    """Eq. (2): P = 1 - prod(1 - p_c), i.e. L(OR) = -L(AND of the negated children), as L(1-p) = -L(p)."""
    cdef double s = 0.0, t, m, acc, x
    cdef int i
    for i in range(n):
        s -= softplus(L[i * stride])
    if s == -INFINITY:
        return INFINITY
    if s < -1e-290:
        return -(s - log1mexp(s))
    m = -INFINITY
    for i in range(n):
        x = -softplus(-L[i * stride])
        if x > m:
            m = x
    if m == -INFINITY:
        return -INFINITY
    acc = 0.0
    for i in range(n):
        acc += exp(-softplus(-L[i * stride]) - m)
    t = m + log(acc)
    return -(s - t)


def and_logodds(values) -> float:
    """Log-odds of an AND node whose children have these log-odds (eq. 1)."""
    cdef double[::1] v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if v.shape[0] == 0:
        return math.inf
    return combine_and(&v[0], v.shape[0], 1)


def or_logodds(values) -> float:
    """Log-odds of an OR node whose children have these log-odds (eq. 2)."""
    cdef double[::1] v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if v.shape[0] == 0:
        return -math.inf
    return combine_or(&v[0], v.shape[0], 1)


def branching_logodds(m: int) -> float:
    """The log-odds of an AND leaf with m moves below it at the fixed point of P(AND) = P(OR)^m,
    P(OR) = 1 - (1 - P(AND))^m (an OR leaf's is the negative: the recursion is symmetric). A leaf that
    starts there keeps, in expectation, the belief that developing it gives, where the fixed leaf
    prior 0.5 makes a developed AND node near 0.5^m and PP dive into the last node it developed."""
    if m <= 1:
        return 0.0
    lo, hi = 1e-300, 0.5
    for _ in range(200):                # bisection on x = P(AND); (1 - (1 - x)^m)^m - x < 0 below the root
        mid = math.sqrt(lo * hi) if hi < 1e-3 else 0.5 * (lo + hi)
        if (-math.expm1(m * math.log1p(-mid))) ** m < mid:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    return math.log(x) - math.log1p(-x)
