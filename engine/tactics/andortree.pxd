# engine/tactics/andortree.pxd: an explicit AND/OR tree given as arrays, the solver's other domain beside
# the capture goal: tests and synthetic benchmarks search it without a board (bodies in andortree.pyx).
cimport cython
from libc.stdint cimport int8_t, int32_t

from engine.tactics.types cimport TreeArrays


@cython.final
cdef class AndOrTree:
    cdef TreeArrays a                # points into `arrays`
    cdef object arrays               # the validated numpy arrays (first, count, value, prior)
    cdef int root_kind               # OR_NODE or AND_NODE


cdef int tree_children(const TreeArrays* t, int32_t node, int32_t* cand, int8_t* cvalue) noexcept nogil
    # The children of tree node `node` into cand (their tree ids) and cvalue (their values); their count.
