# engine/move_kernel.pxd: the face a prior may offer the search to be evaluated without the GIL.
from engine.board cimport BoardState, color_t


cdef class MoveKernel:
    cdef int evaluate(self, int slot, const BoardState* b, color_t c, float* out) noexcept nogil
        # out[0 .. N*N] = the prior's probability of every point for `c` (row-major, pass last, 0 on
        # illegal points), exactly as the prior's `evaluate` gives it. `slot` (0 .. n_slots - 1) names
        # the caller's scratch space: threads with distinct slots may evaluate at the same time.
        # Returns 0, or an error code that `error` turns into an exception.
