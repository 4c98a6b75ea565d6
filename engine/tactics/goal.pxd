# engine/tactics/goal.pxd: the capture goal, its move generators and its ko rules (bodies in goal.pyx).
#
# The goal is capture: TRUE once the goal vertex is empty, FALSE once the goal block has at least
# `libs_false` liberties, UNKNOWN otherwise. Ko: simple ko binds both sides, except that `ko_side` may
# retake a ko at once (GnuGo's conditional ko capture), which makes it the komaster of that line: the
# other side may not take that ko back, and the komaster may take another ko only if it is nested (the
# captured stone diagonal to its last one). Positions are not stored in nodes: Develop replays the
# moves from the root on a scratch board (one memcpy plus one play per ply).
from libc.stdint cimport int32_t

from engine cimport board
from engine.board cimport EDGE, EMPTY, BoardState, color_t, point_t
from engine.tactics.types cimport V_FALSE, V_TRUE, V_UNKNOWN, CaptureGoal, Komaster

cdef enum:                   # playable's answer, bits
    PLAYABLE = 1             # the move may be searched
    KO_RETAKE = 2            # it retakes a ko at once: legal only as a conditional ko capture


cdef inline bint is_ko_banned(const BoardState* b, point_t m, color_t c) noexcept nogil:
    """c at m would retake a ko at once (legal but for the simple-ko ban; is_legal's ko test)."""
    return m > 0 and m == b.ko_point and b.color[m] == EMPTY and c != b.color[b.last_move]


cdef inline bint is_diagonal(const BoardState* b, point_t p, point_t q) noexcept nogil:
    cdef int dr = p // b.stride - q // b.stride, dc = p % b.stride - q % b.stride
    return (dr == 1 or dr == -1) and (dc == 1 or dc == -1)


cdef inline int playable(const CaptureGoal* g, const BoardState* b, point_t m, color_t mover,
                         const Komaster* k) noexcept nogil:
    """Whether mover may play the generated move m here (PLAYABLE), and whether it is a ko retake that
    simple ko bans (KO_RETAKE, counted by the solver whether or not ko_side may make it)."""
    if board.is_legal(b, m, mover):
        if k.color == 3 - mover and m == k.point and captures_ko_stone(b, m, mover):
            return 0                    # the komaster's ko may not be taken back
        return PLAYABLE
    if not is_ko_banned(b, m, mover):
        return 0
    if mover != g.ko_side or k.color == 3 - mover:
        return KO_RETAKE
    if k.color == mover and not is_diagonal(b, b.last_move, k.point):
        return KO_RETAKE                # the komaster may only take a nested ko
    return KO_RETAKE | PLAYABLE


cdef inline bint is_retakable_capture(const BoardState* b, point_t gid, point_t m, color_t c) noexcept nogil:
    """c at m captures the block gid by a ko capture that the other side could retake after a threat."""
    return b.groups[gid].n_libs == 1 and goal_ko_capture(b, gid, m, c) and board.libs_after(b, m, c, 2) == 1


cdef inline int child_value(CaptureGoal* g, const BoardState* b, point_t m, color_t mover) noexcept nogil:
    """V_* of the position after the legal move m, from b without playing it unless a capture forces an
    exact count. Called on an UNKNOWN node, so the goal block stands with fewer than libs_false liberties."""
    cdef point_t gid = b.group[g.goal], q
    cdef int k, n
    cdef bint adjacent = False, captures = False
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] != EMPTY and b.color[q] != EDGE:
            if b.group[q] == gid:
                adjacent = True
            elif b.color[q] != mover and b.groups[b.group[q]].n_libs == 1:
                captures = True
    if mover == g.attacker:
        # An attacker move only removes goal liberties (captured defender stones never touch the
        # goal block, or they would belong to it): TRUE if it fills the last one, else still UNKNOWN.
        # A capture by a ko capture is no capture when the defender may retake at once (GnuGo's KO_A).
        if adjacent and b.groups[gid].n_libs == 1:
            if g.ko_side == 3 - g.attacker and goal_ko_capture(b, gid, m, mover):
                return V_UNKNOWN
            return V_TRUE
        return V_UNKNOWN
    if adjacent:
        n = board.libs_after(b, m, mover, g.libs_false)
        return V_FALSE if n >= g.libs_false else V_UNKNOWN
    if not captures:
        return V_UNKNOWN                # the goal block keeps its liberties
    board.copy_state(&g.scratch, b)        # a capture elsewhere may free goal liberties: count exactly
    board.play(&g.scratch, m, mover)
    return goal_value(&g.scratch, g)


cdef void set_region(CaptureGoal* g, int margin) noexcept nogil
    # GEN_REGION's points: the bounding box of the root's stones plus margin, clipped to the board.
cdef int goal_value(const BoardState* b, const CaptureGoal* g) noexcept nogil   # V_* of a position
cdef int generate(CaptureGoal* g, const BoardState* b, color_t mover, point_t* out) noexcept nogil
    # Candidate moves of `mover` at b (legal or not; the caller checks), goal liberties first, the rest
    # in ascending point order, no duplicates. Returns the count.
cdef void replay(CaptureGoal* g, const int32_t* path, int depth, Komaster* k) noexcept nogil
    # g.work = the root after the moves path[depth - 1] .. path[0] (a node's moves, read from it up to
    # the root), and k = the komaster of that line.
cdef bint may_retake_goal(const CaptureGoal* g, const BoardState* b, color_t mover, const Komaster* k) noexcept nogil
    # The goal stone was taken by a ko capture and mover, the defender, may retake it at once.
cdef bint captures_ko_stone(const BoardState* b, point_t m, color_t c) noexcept nogil
    # c at m captures a lone stone in atari (retakes a ko).
cdef bint goal_ko_capture(const BoardState* b, point_t gid, point_t m, color_t c) noexcept nogil
    # c at m, a liberty of the block gid in atari, captures it by a ko capture.
