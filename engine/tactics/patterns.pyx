# engine/tactics/patterns.pyx: the pattern templates and the keys of a move's neighbourhood (contract in
# patterns.pxd).
from engine.rng cimport splitmix64
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memset

from engine.board cimport BLACK, EMPTY, PASS, WHITE, Board, BoardState, color_t, point_t
from engine.tactics.types cimport N_OFFSETS, N_SIZES, S_ATTACKER, S_DEFENDER, S_EMPTY, S_GOAL, S_OFF

import numpy as np


cdef int OFF_X[N_OFFSETS]
cdef int OFF_Y[N_OFFSETS]
cdef int SIZE_END[N_SIZES]
cdef uint64_t SIZE_SALT[N_SIZES]
cdef int SYM_PERM[8][N_OFFSETS]          # the template point symmetry s maps template point k to

# Offsets added at each size, in template order: T_i is every offset of sizes 0..i.
TEMPLATE_RINGS = (
    ((0, 0),),
    ((1, 0), (-1, 0), (0, 1), (0, -1)),
    ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    ((2, 0), (-2, 0), (0, 2), (0, -2)),
    ((2, 1), (2, -1), (-2, 1), (-2, -1), (1, 2), (1, -2), (-1, 2), (-1, -2)),
    ((3, 0), (-3, 0), (0, 3), (0, -3)),
    ((2, 2), (2, -2), (-2, 2), (-2, -2)),
    ((3, 1), (3, -1), (-3, 1), (-3, -1), (1, 3), (1, -3), (-1, 3), (-1, -3)),
)


def _init_patterns() -> None:
    cdef uint64_t state = 0x7AC71C5ULL
    cdef int k = 0, i, s
    for i, ring in enumerate(TEMPLATE_RINGS):
        for dx, dy in ring:
            OFF_X[k] = dx
            OFF_Y[k] = dy
            k += 1
        SIZE_END[i] = k
    for k in range(N_OFFSETS):
        GRID_OFF[k] = OFF_Y[k] * GRID_WIDTH + OFF_X[k]
        for s in range(5):
            PZ[k][s] = splitmix64(&state)
    for i in range(N_SIZES):
        SIZE_SALT[i] = splitmix64(&state)
    ROLE_SALT[0] = splitmix64(&state)
    ROLE_SALT[1] = splitmix64(&state)
    where = {(OFF_X[j], OFF_Y[j]): j for j in range(N_OFFSETS)}
    for s in range(8):                   # bit 0: mirror x, bit 1: mirror y, bit 2: swap x and y
        for k in range(N_OFFSETS):
            x = -OFF_X[k] if s & 1 else OFF_X[k]
            y = -OFF_Y[k] if s & 2 else OFF_Y[k]
            if s & 4:
                x, y = y, x
            SYM_PERM[s][k] = where[(x, y)]


_init_patterns()


cdef void pattern_stack(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                        int role, bint mark_block, uint64_t* out) noexcept nogil:
    cdef uint8_t state[N_OFFSETS]
    pattern_states(b, m, goal_group, goal, attacker, mark_block, state)
    stack_of_states(state, role, out)


cdef inline uint8_t point_state(const BoardState* b, point_t q, point_t goal_group, point_t goal, color_t attacker,
                                bint mark_block) noexcept nogil:
    """The template state of the board point q: empty, goal (the goal stone, or its block with
    mark_block), attacker or defender."""
    cdef color_t col = b.color[q]
    if col == EMPTY:
        return S_EMPTY
    if (mark_block and goal_group != 0 and b.group[q] == goal_group) or q == goal:
        return S_GOAL
    return S_ATTACKER if col == attacker else S_DEFENDER


cdef void pattern_states(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                         bint mark_block, uint8_t* state) noexcept nogil:
    """The state (off-board, empty, goal, attacker, defender) of each template point around m."""
    cdef int r = m // b.stride - 1, c = m % b.stride - 1
    cdef int k, rr, cc
    for k in range(N_OFFSETS):
        rr = r + OFF_Y[k]
        cc = c + OFF_X[k]
        if rr < 0 or cc < 0 or rr >= b.size or cc >= b.size:
            state[k] = S_OFF
        else:
            state[k] = point_state(b, <point_t>((rr + 1) * b.stride + cc + 1), goal_group, goal, attacker,
                                   mark_block)


cdef void grid_states(const BoardState* b, point_t goal_group, point_t goal, color_t attacker, bint mark_block,
                      int r0, int r1, int c0, int c1, uint8_t* grid) noexcept nogil:
    cdef int r, c
    r0 = max(r0, 0)
    c0 = max(c0, 0)
    r1 = min(r1, b.size - 1)
    c1 = min(c1, b.size - 1)
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            grid[grid_at(r, c)] = point_state(b, <point_t>((r + 1) * b.stride + c + 1), goal_group, goal,
                                              attacker, mark_block)


cdef uint64_t PASS_SALT = 0x5A55C0FFEE1234F1ULL


cdef void pass_stack(int role, uint64_t* out) noexcept nogil:
    cdef int size
    for size in range(N_SIZES):
        out[size] = PASS_SALT ^ SIZE_SALT[size] ^ ROLE_SALT[role]


cdef void stack_of_states(const uint8_t* state, int role, uint64_t* out) noexcept nogil:
    # symmetry s sees at template position k the state of point SYM_PERM[s][k] (the template is closed
    # under the 8 symmetries); each size's key is the least of its 8 oriented hashes
    cdef uint64_t h[8]
    cdef uint64_t best
    cdef int size, k, s
    memset(h, 0, sizeof(h))
    k = 0
    for size in range(N_SIZES):
        while k < SIZE_END[size]:
            for s in range(8):
                h[s] ^= PZ[k][state[SYM_PERM[s][k]]]
            k += 1
        best = h[0]
        for s in range(1, 8):
            if h[s] < best:
                best = h[s]
        out[size] = best ^ SIZE_SALT[size] ^ ROLE_SALT[role]


def pattern_keys(Board position not None, move: int, goal: int, *, role: int = 0,
                 mark_block: bool = True) -> np.ndarray:
    """The (8,) uint64 pattern stack of `move` (an empty point) with the block at `goal` as the goal
    and its opponent as the attacker; role 0 for an attacker move, 1 for a defender move. A pass (PASS)
    has one fixed stack per role."""
    cdef BoardState* b = &position.s
    cdef uint64_t out[N_SIZES]
    if role not in (0, 1):
        raise ValueError("role must be 0 (attacker) or 1 (defender)")
    if move == PASS:
        pass_stack(role, out)
        return np.array([out[i] for i in range(N_SIZES)], dtype=np.uint64)
    m = position.point(*position.coords(move))
    p = position.point(*position.coords(goal))
    if b.color[m] != EMPTY:
        raise ValueError("the move must be an empty point")
    if b.color[p] not in (BLACK, WHITE):
        raise ValueError("the goal vertex must hold a stone")
    pattern_stack(b, m, b.group[p], p, 3 - b.color[p], role, mark_block, out)
    return np.array([out[i] for i in range(N_SIZES)], dtype=np.uint64)
