# engine/tactics/leafkernel.pxd: a learned leaf prior's pattern table in C, for Develop without the GIL
# (bodies in leafkernel.pyx).
cimport cython
from libc.stdint cimport int64_t, uint64_t

from engine.tactics.types cimport LeafTable


cdef inline uint64_t slot_of(uint64_t key) noexcept nogil:
    """A pattern key's hash (its high bits pick a table slot or a memo entry)."""
    return (key * 0x9E3779B97F4A7C15ULL) >> 17


cdef double leaf_logodds(const LeafTable* t, const uint64_t* stack) noexcept nogil
    # The prior log-odds of a leaf whose move has this stack of N_SIZES pattern keys: the same double,
    # to the bit, as the Python model's logodds.


@cython.final
cdef class PriorKernel:
    cdef LeafTable t                 # the table Solver reads during a run
    cdef int _alloc(self, int64_t n) except -1
    cdef double* _insert(self, uint64_t key) noexcept nogil
    cdef int _calibration(self, clip, double scale, double shift) except -1
