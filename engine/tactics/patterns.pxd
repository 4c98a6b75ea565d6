# engine/tactics/patterns.pxd: pattern keys of a move's neighbourhood (paper section 4.1, Fig. 5), the
# keys a leaf prior prices (bodies in patterns.pyx). A point's 8 nested templates T_0 .. T_7 are read as
# vertex states (types.pxd's S_*: roles, not colours); each size's key is the least, over the 8 board
# symmetries, of a Zobrist hash of its states, salted by size and role (0: attacker moves, 1: defender).
#
# Develop reads the states of many points at once from a state grid (the board with an off-board margin
# as wide as the template's reach), and memoises stacks by a hash of the 37 states as seen unrotated.
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy

from engine.board cimport MAX_SIZE, BoardState, color_t, point_t
from engine.tactics.types cimport N_OFFSETS, N_SIZES, PatternMemo

cdef enum:
    GRID_MARGIN = 3                  # the template's reach
    GRID_WIDTH = MAX_SIZE + 2 * GRID_MARGIN

cdef uint64_t PZ[N_OFFSETS][5]       # Zobrist key of state s at template point k
cdef uint64_t ROLE_SALT[2]           # salt of a role's keys
cdef int GRID_OFF[N_OFFSETS]         # template point k's cell relative to the centre's, in a state grid


cdef inline int grid_at(int row, int col) noexcept nogil:
    """The cell of board (row, col) in a state grid: the board with a margin of GRID_MARGIN off-board
    cells, so that every template point of a board point is a cell."""
    return (row + GRID_MARGIN) * GRID_WIDTH + col + GRID_MARGIN


cdef inline int point_cell(point_t p, int stride) noexcept nogil:
    """The state-grid cell of the board point p."""
    return grid_at(p // stride - 1, p % stride - 1)


cdef inline uint64_t grid_raw_key(const uint8_t* grid, int centre, int role) noexcept nogil:
    """The pattern memo's key of the template around a grid cell: a Zobrist hash of its 37 states,
    unrotated, and the role."""
    cdef uint64_t raw = ROLE_SALT[role]
    cdef int k
    for k in range(N_OFFSETS):
        raw ^= PZ[k][grid[centre + GRID_OFF[k]]]
    return raw


cdef inline void pattern_stack_grid(PatternMemo* memo, int bits, const uint8_t* grid, int centre, int role,
                                    uint64_t raw, uint64_t* out) noexcept nogil:
    """The stack of the template around a grid cell (raw: its grid_raw_key), from the memo when there."""
    cdef uint8_t state[N_OFFSETS]
    cdef int k
    cdef PatternMemo* e
    e = &memo[raw >> (64 - bits)]
    if e.used and e.key == raw:
        memcpy(out, e.stack, N_SIZES * sizeof(uint64_t))
        return
    for k in range(N_OFFSETS):
        state[k] = grid[centre + GRID_OFF[k]]
    stack_of_states(state, role, out)
    e.key = raw
    e.used = True
    memcpy(e.stack, out, N_SIZES * sizeof(uint64_t))


cdef void stack_of_states(const uint8_t* state, int role, uint64_t* out) noexcept nogil
    # The N_SIZES keys of the template whose point k has the state state[k].
cdef void pattern_stack(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                        int role, bint mark_block, uint64_t* out) noexcept nogil
    # The 8 nested pattern keys around the empty point m (role 0: attacker moves, 1: defender moves).
cdef void pass_stack(int role, uint64_t* out) noexcept nogil
    # A pass has no neighbourhood: one fixed key per size and role.
cdef void grid_states(const BoardState* b, point_t goal_group, point_t goal, color_t attacker, bint mark_block,
                      int r0, int r1, int c0, int c1, uint8_t* grid) noexcept nogil
    # The state of every board point in rows r0..r1, columns c0..c1 (clipped to the board) into the grid;
    # the grid's other cells are left as they are (off-board cells stay S_OFF).
