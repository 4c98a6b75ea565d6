# engine/board.pxd: the board's Cython contract (bodies in board.pyx).
#
# A padded 1-D board: point = (row + 1) * stride + (col + 1), stride = size + 2, with row 0 at the
# bottom (GTP row 1, sgfmill row 0) and col 0 at the left (GTP column A). A ring of EDGE cells means
# neighbour loops never check bounds. Point 0 is always an EDGE cell, so 0 ends stone lists and means
# "no point". The 4 neighbours of p are p - 1, p + 1, p - stride, p + stride.
#
# Groups keep at most MAX_LIBS liberties; n_libs is exact while it is <= LIBS_EXACT and a lower bound
# above (the list is refilled by a rescan when it falls to LIBS_EXACT). So atari is n_libs == 1 and the
# capturing point is libs[0]; nothing floods on the hot path.
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

cdef enum:
    MAX_SIZE = 25
    MAX_STRIDE = 27        # MAX_SIZE + 2
    MAX_POINTS = 729       # MAX_STRIDE * MAX_STRIDE
    MAX_LIBS = 10          # liberties stored per group
    LIBS_EXACT = 5         # n_libs is exact up to here
    HASH_RING = 32         # recent position hashes kept for superko checks in the tree

cdef enum:                 # color_t values; the other color is 3 - c
    EMPTY = 0
    BLACK = 1
    WHITE = 2
    EDGE = 3

cdef enum:                 # special point_t values
    NO_POINT = 0           # an edge cell: "none" and the end of a stone list
    PASS = -1
    RESIGN = -2

ctypedef int16_t point_t   # flat index on the padded board, or PASS / RESIGN
ctypedef uint8_t color_t   # EMPTY, BLACK, WHITE, EDGE

cdef struct Group:         # kept at the index of the group's id (its first stone)
    int16_t n_libs         # exact up to LIBS_EXACT, a lower bound above
    int16_t n_stones
    point_t libs[MAX_LIBS] # the first n_libs (at most MAX_LIBS) are liberties; unused slots are 0

cdef struct BoardState:    # fixed-size arrays only: a copy is one memcpy (struct assignment)
    int size               # 2..25
    int stride             # size + 2
    float komi
    color_t to_play        # side to move
    color_t color[MAX_POINTS]
    uint8_t n_nbr[MAX_POINTS][4]   # per point, how many 4-neighbours are EMPTY/BLACK/WHITE/EDGE
    uint16_t pat3[MAX_POINTS]      # 3x3 code, kept up to date: bits 2k..2k+1 hold the color of the k-th
                                   # 8-neighbour in reading order from the top left (row+1,col-1), (row+1,col),
                                   # (row+1,col+1), (row,col-1), (row,col+1), (row-1,col-1), (row-1,col), (row-1,col+1)
    point_t group[MAX_POINTS]      # group id of the stone on p (its first stone), 0 if empty/edge
    point_t next_stone[MAX_POINTS] # next stone of the same group, 0 ends the list
    Group groups[MAX_POINTS]       # indexed by group id
    point_t free_pts[MAX_POINTS]   # the empty points, in no order (eyes included)
    int16_t free_index[MAX_POINTS] # position of p in free_pts, -1 if p is not empty
    int n_free
    point_t ko_point       # the point to_play may not take back now (simple ko), or NO_POINT
    point_t last_move      # last move played (PASS after a pass, NO_POINT at the start)
    point_t last_move2     # the move before it
    int n_passes           # consecutive passes ending the move list
    int move_number        # moves played since the position was set up (passes count)
    int captures[3]        # stones captured by BLACK / WHITE (index by color)
    uint64_t hash          # Zobrist hash of the stones (positional, no side to move)
    uint64_t hash_ring[HASH_RING]  # hashes after each of the last HASH_RING moves
                                   # (passes add none; init/rebuild enter the set-up position; 0 = unused)
    int hash_pos           # next slot in hash_ring

# --- setup ---
cdef void init(BoardState* b, int size, float komi) noexcept nogil
cdef void rebuild(BoardState* b) noexcept nogil    # recompute groups, counts, lists, hash from color[]

cdef inline void copy_state(BoardState* d, const BoardState* s) noexcept nogil:
    """d = s for every point of s's board: the per-point arrays (color .. free_index, in this order, as
    board.pyx checks at import) only up to stride^2, the rest whole. The same board as `d[0] = s[0]`
    for a fraction of the copy on boards smaller than MAX_SIZE (60% of it on 19x19)."""
    cdef size_t n = <size_t>(s.stride * s.stride)
    cdef size_t head = <size_t>(<const char*>&s.color[0] - <const char*>s)
    cdef size_t tail = <size_t>(<const char*>&s.n_free - <const char*>s)
    memcpy(d, s, head)
    memcpy(d.color, s.color, n * sizeof(s.color[0]))
    memcpy(d.n_nbr, s.n_nbr, n * sizeof(s.n_nbr[0]))
    memcpy(d.pat3, s.pat3, n * sizeof(s.pat3[0]))
    memcpy(d.group, s.group, n * sizeof(s.group[0]))
    memcpy(d.next_stone, s.next_stone, n * sizeof(s.next_stone[0]))
    memcpy(d.groups, s.groups, n * sizeof(s.groups[0]))
    memcpy(d.free_pts, s.free_pts, n * sizeof(s.free_pts[0]))
    memcpy(d.free_index, s.free_index, n * sizeof(s.free_index[0]))
    memcpy(<char*>d + tail, <const char*>s + tail, sizeof(BoardState) - tail)

# --- coordinates ---
cdef inline point_t point_at(const BoardState* b, int row, int col) noexcept nogil:
    return <point_t>((row + 1) * b.stride + col + 1)

cdef inline void nbrs4(int stride, int* d) noexcept nogil:
    """The offsets of the 4 neighbours on a board of this stride: left, right, down, up."""
    d[0] = -1
    d[1] = 1
    d[2] = -stride
    d[3] = stride

cdef inline bint in_list(const point_t* a, int n, point_t p) noexcept nogil:
    """Is p among the first n entries of a (the short lists of groups and points met in a walk)?"""
    cdef int i
    for i in range(n):
        if a[i] == p:
            return True
    return False

cdef inline int blocks_next_to(const BoardState* b, point_t p, color_t c, int n_libs, point_t* out) noexcept nogil:
    """The distinct c blocks next to p with exactly n_libs liberties, into out (at most 4); their count."""
    cdef int k, n = 0
    cdef int d[4]
    cdef point_t q, g
    nbrs4(b.stride, d)
    for k in range(4):
        q = p + d[k]
        if b.color[q] == c:
            g = b.group[q]
            if b.groups[g].n_libs == n_libs and not in_list(out, n, g):
                out[n] = g
                n += 1
    return n

cdef inline int neighbour_blocks(const BoardState* b, point_t g, color_t c, point_t* out) noexcept nogil:
    """The distinct c blocks touching the block g, in the order g's stone list meets them, into out
    (room for MAX_POINTS); their count."""
    cdef int k, n = 0
    cdef int d[4]
    cdef point_t s = g, q, h
    nbrs4(b.stride, d)
    while s != NO_POINT:
        for k in range(4):
            q = s + d[k]
            if b.color[q] == c:
                h = b.group[q]
                if not in_list(out, n, h):
                    out[n] = h
                    n += 1
        s = b.next_stone[s]
    return n

# --- queries (O(1) unless noted) ---
cdef bint is_eyelike(const BoardState* b, point_t p, color_t c) noexcept nogil   # empty, 4 nbrs c or edge
cdef bint is_false_eye(const BoardState* b, point_t p, color_t c) noexcept nogil # by the diagonals
cdef bint is_one_point_eye(const BoardState* b, point_t p, color_t c) noexcept nogil
cdef bint is_legal(const BoardState* b, point_t p, color_t c) noexcept nogil     # occupancy, simple ko, suicide; PASS legal; no superko
cdef int libs_after(const BoardState* b, point_t p, color_t c, int limit) noexcept nogil  # liberties of c's group after c plays p (counted up to limit; 0 = suicide)
cdef int self_atari_size(const BoardState* b, point_t p, color_t c) noexcept nogil # stones left in atari if c plays p (0 = not a self-atari)
    # libs_after and self_atari_size read stored liberties (no flood), count captures, ignore ko, and
    # return 0 for an occupied p; self_atari_size is 0 for a suicide and O(1) when p has 2 empty neighbours.
cdef uint64_t hash_after(const BoardState* b, point_t p, color_t c) noexcept nogil # hash of the position after a legal move
cdef bint is_repetition(const BoardState* b) noexcept nogil   # current hash equals an earlier one in hash_ring
cdef int exact_libs(const BoardState* b, point_t g) noexcept nogil                # flood count, for tests and rare paths

# --- changes ---
cdef int play(BoardState* b, point_t p, color_t c) noexcept nogil
    # Play a move the caller knows is legal (is_legal); PASS allowed. Sets to_play to the other color.
    # Returns the number of stones captured.
    # Any p < 0 counts as a pass. A multi-stone suicide (never legal) removes the group, so the board
    # stays consistent even when the caller skipped is_legal. ko_point binds the colour whose stone was
    # just captured (the opponent of the stone on last_move), which is to_play when moves alternate.
cdef int play_checked(BoardState* b, point_t p, color_t c) noexcept nogil  # -1 (and no change) if illegal

# --- scoring ---
cdef color_t owner(const BoardState* b, point_t p) noexcept nogil  # stone color, or the color an eyelike empty point belongs to, else EMPTY
cdef float playout_score(const BoardState* b) noexcept nogil     # black - white - komi: stones + eyelike points (end of playout)
cdef float area_score(const BoardState* b) noexcept nogil        # black - white - komi: stones + empty regions reaching only one color (flood fill)
cdef void area_owner(const BoardState* b, uint8_t* out) noexcept nogil  # out[p] (MAX_POINTS cells) = the area owner of each point, as area_score counts it

cdef class Board:
    cdef BoardState s      # the position this Python object owns
