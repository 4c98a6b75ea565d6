# engine/tactics/andortree.pyx: an explicit AND/OR tree for the solver (contract in andortree.pxd).
from libc.stdint cimport int8_t, int32_t

from engine.tactics.types cimport AND_NODE, MAX_MOVES, OR_NODE, V_FALSE, V_TRUE, V_UNKNOWN

import numpy as np


cdef class AndOrTree:
    """Node i has children first[i] .. first[i] + count[i] - 1 and value value[i] (0 FALSE, 1 TRUE: a
    terminal; 2 UNKNOWN: developed into its children, none = no moves); prior[i] is its leaf log-odds
    for PP. Node 0 is the root, of kind "or" or "and"."""

    def __init__(self, first, count, value, prior, root_kind: str = "or"):
        f = np.ascontiguousarray(first, dtype=np.int32)
        c = np.ascontiguousarray(count, dtype=np.int32)
        v = np.ascontiguousarray(value, dtype=np.int8)
        pr = np.ascontiguousarray(prior, dtype=np.float64)
        n = f.shape[0]
        if n == 0 or not (c.shape[0] == v.shape[0] == pr.shape[0] == n):
            raise ValueError("first, count, value and prior must be non-empty and of one length")
        if (c < 0).any() or ((c > 0) & ((f < 1) | (f + c > n))).any() or (c > MAX_MOVES).any():
            raise ValueError("children out of range")
        if not np.isin(v, (V_FALSE, V_TRUE, V_UNKNOWN)).all():
            raise ValueError("values must be 0, 1 or 2")
        if not np.isfinite(pr[v == V_UNKNOWN]).all():
            raise ValueError("priors of UNKNOWN nodes must be finite")
        if root_kind not in ("or", "and"):
            raise ValueError("root_kind must be 'or' or 'and'")
        cdef int32_t[::1] fv = f
        cdef int32_t[::1] cv = c
        cdef int8_t[::1] vv = v
        cdef double[::1] pv = pr
        self.arrays = (f, c, v, pr)
        self.a.first = &fv[0]
        self.a.count = &cv[0]
        self.a.value = &vv[0]
        self.a.prior = &pv[0]
        self.a.size = n
        self.root_kind = OR_NODE if root_kind == "or" else AND_NODE


cdef int tree_children(const TreeArrays* t, int32_t node, int32_t* cand, int8_t* cvalue) noexcept nogil:
    cdef int32_t k
    cdef int count = t.count[node]
    for k in range(count):
        cand[k] = t.first[node] + k
        cvalue[k] = t.value[t.first[node] + k]
    return count
