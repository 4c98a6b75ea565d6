# engine/policy_replies.pxd: last good replies with forgetting (LGRF-2, Baier & Drake 2010).
#
# A search thread remembers, for each colour, the reply that won its last simulation after the previous
# move (one) and after the previous two moves (two). After every simulation each move of the winner is
# stored as the reply to what came before it, and each move of the loser that is the stored reply is
# forgotten: a reply stays only while it keeps winning. The playout tries the reply to the last two
# moves, then to the last move, after its capture and save rules (engine/playout.pyx). Points are the board's padded indices, so a
# table holds for one board size. Passes are neither replies nor context. Inline: no call cost.
from libc.string cimport memset

from engine.board cimport point_t, color_t, BLACK, WHITE, EMPTY, NO_POINT, MAX_POINTS


cdef struct Replies:
    point_t one[2][MAX_POINTS]                # [colour - 1][previous move]: the reply, or NO_POINT
    point_t two[2][MAX_POINTS][MAX_POINTS]    # [colour - 1][move before it][previous move]


cdef inline void replies_clear(Replies* r) noexcept nogil:
    memset(r, 0, sizeof(Replies))             # NO_POINT is 0


cdef inline void replies_learn(Replies* r, const point_t* seq, const color_t* colors, int n,
                               color_t winner) noexcept nogil:
    """Store the winner's replies in seq[0..n) (colors: who played each), forget the loser's."""
    cdef int i, side
    cdef point_t m, prev, prev2
    if winner != BLACK and winner != WHITE:
        return                                # a draw teaches nothing
    for i in range(1, n):
        m = seq[i]
        prev = seq[i - 1]
        if m <= 0 or prev <= 0:
            continue
        prev2 = seq[i - 2] if i >= 2 else NO_POINT
        side = colors[i] - 1
        if colors[i] == winner:
            r.one[side][prev] = m
            if prev2 > 0:
                r.two[side][prev2][prev] = m
        else:
            if r.one[side][prev] == m:
                r.one[side][prev] = NO_POINT
            if prev2 > 0 and r.two[side][prev2][prev] == m:
                r.two[side][prev2][prev] = NO_POINT


cdef inline int reply_candidates(const Replies* r, color_t c, point_t last, point_t last2,
                                 point_t* cand) noexcept nogil:
    """c's stored replies to (last2, last) then to last, the ones there are, into cand; their count."""
    cdef int n = 0
    cdef point_t p
    if last <= 0 or (c != BLACK and c != WHITE):
        return 0
    if last2 > 0:
        p = r.two[c - 1][last2][last]
        if p != NO_POINT:
            cand[n] = p
            n += 1
    p = r.one[c - 1][last]
    if p != NO_POINT and (n == 0 or cand[0] != p):
        cand[n] = p
        n += 1
    return n
