"""The face a prior may offer the search to be evaluated without the GIL (`Prior.move_kernel`).

A prior evaluated through Python holds the GIL for the whole evaluation, so search threads expanding
nodes wait for one another. A kernel does the same evaluation in C with one scratch space per search
thread (its `slot`), and the search calls it from its workers without the GIL.
"""
from engine.board cimport BoardState, color_t


cdef class MoveKernel:
    """Base class of the kernels: subclasses override `evaluate` (see move_kernel.pxd) and `error`."""

    cdef int evaluate(self, int slot, const BoardState* b, color_t c, float* out) noexcept nogil:
        return -1

    def error(self, int code) -> Exception:
        """The exception an error code of `evaluate` stands for."""
        return RuntimeError(f"prior kernel failed with code {code}")
