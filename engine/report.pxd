# engine/report.pxd: what the search's tree tells its readers (bodies in report.pyx): the move to play,
# the principal variation, the root children's statistics and the ownership map, which the player, the
# ponderer and the GTP analysis and GoGui commands read through Search's methods. No lock: read during
# a run, the figures are those of the moment (children are read as published by n_children).
from libc.stdint cimport int32_t, int64_t

from engine.board cimport BoardState
from engine.tree cimport Node

cdef int32_t most_visited(const Node* nodes, int32_t parent) noexcept nogil
    # the valid child with the most visits (ties: more wins, then non-pass), or NO_NODE
cdef list principal_variation(const Node* nodes, int32_t node, int max_len)
    # the moves of the most visited children from node while they have visits, at most max_len
cdef list children(const Node* nodes, int32_t parent)
    # parent's valid children as dicts, most visited first (see Search.root_children)
cdef object ownership(const BoardState* b, const int64_t* total, int64_t n_sims)
    # (N, N) float32 [row, col]: total[point] / n_sims, zeros when n_sims is 0
