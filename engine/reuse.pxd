# engine/reuse.pxd: which positions the tree may keep or grow into (inline: expansion tests every move).
#
# Tree reuse: after a move (or two), set_root finds the new position among the old root's children and
# grandchildren by replaying their moves and comparing hashes, side to move, ko point and passes; that
# node becomes the root. Superko: a move that recreates a position of the board's hash ring (at the
# root also of the game history given to set_root) is never a child, and a kept root's children that do
# are marked NODE_INVALID.
from libc.stdint cimport int32_t, uint64_t

from engine.board cimport BoardState, point_t, color_t, PASS, HASH_RING, hash_after, play
from engine.tree cimport Node, NO_NODE, NODE_INVALID


cdef inline bint same_position(const BoardState* a, const BoardState* b) noexcept nogil:
    return (a.hash == b.hash and a.to_play == b.to_play and a.ko_point == b.ko_point
            and a.n_passes == b.n_passes)


cdef inline bint repeats(const BoardState* b, point_t p, color_t c, const uint64_t* history,
                         int n_history) noexcept nogil:
    """Does c playing p recreate a recent position, or one of the n_history earlier ones of the game
    (passed at the root only)?"""
    cdef uint64_t h = hash_after(b, p, c)
    cdef int i
    for i in range(HASH_RING):
        if b.hash_ring[i] == h:
            return True
    for i in range(n_history):
        if history[i] == h:
            return True
    return False


cdef inline int32_t find_descendant(const Node* nodes, int32_t root, const BoardState* old,
                                    const BoardState* new) noexcept nogil:
    """The node of the tree below root (position old) holding position new, within two moves of
    root, or NO_NODE."""
    cdef BoardState b1, b2
    cdef int32_t i, j
    cdef point_t m
    cdef uint64_t h
    if old.size != new.size or old.komi != new.komi:
        return NO_NODE
    if same_position(old, new):
        return root
    cdef const Node* r = &nodes[root]
    for i in range(r.first_child, r.first_child + r.n_children):
        m = nodes[i].move
        h = old.hash if m == PASS else hash_after(old, m, old.to_play)
        if h == new.hash and new.to_play != old.to_play:
            b1 = old[0]
            play(&b1, m, b1.to_play)
            if same_position(&b1, new):
                return i
        if nodes[i].n_children == 0 or new.to_play != old.to_play:
            continue
        b1 = old[0]
        play(&b1, m, b1.to_play)
        for j in range(nodes[i].first_child, nodes[i].first_child + nodes[i].n_children):
            m = nodes[j].move
            h = b1.hash if m == PASS else hash_after(&b1, m, b1.to_play)
            if h != new.hash:
                continue
            b2 = b1
            play(&b2, m, b2.to_play)
            if same_position(&b2, new):
                return j
    return NO_NODE


cdef inline void screen_root(Node* nodes, int32_t root, const BoardState* b, const uint64_t* history,
                             int n_history) noexcept nogil:
    """Mark the children of root (position b) that repeat a position of the game (after reuse)."""
    cdef const Node* r = &nodes[root]
    cdef int32_t i
    for i in range(r.first_child, r.first_child + r.n_children):
        if nodes[i].move != PASS and repeats(b, nodes[i].move, b.to_play, history, n_history):
            nodes[i].flags |= NODE_INVALID
        else:
            nodes[i].flags &= ~NODE_INVALID
