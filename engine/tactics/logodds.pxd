# engine/tactics/logodds.pxd: log-odds arithmetic of Bayesian proof search (paper eqs. 1 and 2, in stable
# form); bodies in logodds.pyx, the helpers of every backup inline here.
from libc.math cimport M_LN2, exp, expm1, log, log1p

from engine.tactics.types cimport OR_NODE


cdef inline double softplus(double x) noexcept nogil:
    """ln(1 + e^x)."""
    if x > 0.0:
        return x + log1p(exp(-x))
    return log1p(exp(x))


cdef inline double log1mexp(double x) noexcept nogil:
    """ln(1 - e^x) for x <= 0, accurate on both sides of -ln 2 (Maechler 2012)."""
    if x > -M_LN2:
        return log(-expm1(x))
    return log1p(-exp(x))


cdef inline double share(double L, int kind) noexcept nogil:
    """A node's term in its parent's sum: -ln P(TRUE) under an AND parent (the node is an OR node),
    -ln P(FALSE) under an OR parent (an AND node)."""
    return softplus(-L) if kind == OR_NODE else softplus(L)


cdef double combine_and(const double* L, int n, int stride) noexcept nogil   # L of an AND of n independent children
cdef double combine_or(const double* L, int n, int stride) noexcept nogil    # L of an OR: -AND(-L)
