"""What the search's tree tells its readers: the most visited child, the principal variation, the root
children's statistics and the ownership map. Search's Python methods (best_move, pv, root_children,
ownership) return these; the player, the ponderer and the GTP analysis commands read them there."""
import numpy as np

from libc.stdint cimport int32_t, int64_t

from engine.board cimport BoardState, point_at, PASS
from engine.tree cimport Node, NO_NODE, NODE_INVALID


cdef int32_t most_visited(const Node* nodes, int32_t parent) noexcept nogil:
    cdef const Node* p = &nodes[parent]
    cdef int32_t i, best = NO_NODE
    for i in range(p.first_child, p.first_child + p.n_children):
        if nodes[i].flags & NODE_INVALID:
            continue
        if (best == NO_NODE or nodes[i].visits > nodes[best].visits
                or (nodes[i].visits == nodes[best].visits and nodes[i].wins > nodes[best].wins)
                or (nodes[i].visits == nodes[best].visits and nodes[i].wins == nodes[best].wins
                    and nodes[best].move == PASS)):
            best = i
    return best


cdef list principal_variation(const Node* nodes, int32_t node, int max_len):
    cdef int32_t nxt
    out = []
    while len(out) < max_len:
        nxt = most_visited(nodes, node)
        if nxt == NO_NODE or nodes[nxt].visits == 0:
            break
        out.append(nodes[nxt].move)
        node = nxt
    return out


cdef list children(const Node* nodes, int32_t parent):
    """move, visits, winrate (of the child's mover: parent's side to move), prior, amaf_visits,
    amaf_winrate and pv (the child's move and its principal variation, 20 moves at most)."""
    cdef const Node* p = &nodes[parent]
    cdef const Node* ch
    cdef int32_t i
    out = []
    for i in range(p.first_child, p.first_child + p.n_children):
        ch = &nodes[i]
        if ch.flags & NODE_INVALID:
            continue
        out.append(dict(move=ch.move, visits=ch.visits,
                        winrate=ch.wins / ch.visits if ch.visits else 0.5,
                        prior=ch.prior, amaf_visits=ch.amaf_visits,
                        amaf_winrate=ch.amaf_wins / ch.amaf_visits if ch.amaf_visits > 0 else 0.5,
                        pv=[ch.move] + principal_variation(nodes, i, 19)))
    out.sort(key=lambda d: -d["visits"])
    return out


cdef object ownership(const BoardState* b, const int64_t* total, int64_t n_sims):
    cdef int size = b.size, row, col
    out = np.zeros((size, size), dtype=np.float32)
    cdef float[:, ::1] o = out
    if n_sims == 0:
        return out
    for row in range(size):
        for col in range(size):
            o[row, col] = <float>(<double>total[point_at(b, row, col)] / n_sims)
    return out
