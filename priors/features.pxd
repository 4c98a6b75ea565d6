# priors/features.pxd: the move features shared by training and play (bodies in features.pyx).
#
# Every candidate move (each legal point in row-major order from row 0, then pass) gets one level per
# feature group; level 0 means no level of the group applies. Colours are relative to the side to move
# (own/opponent), so one model serves both colours. Levels follow the decision-forests spec Table 5.1
# and the FBT spec section 2; the module docstring of features.pyx defines the distances and patterns.
# The Python wrappers hold the GIL (the Workspace is per Extractor); nogil callers bring their own.
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint64_t

from engine.board cimport MAX_POINTS, BoardState, color_t, point_t
from engine.ladder cimport Ladder

cdef enum:                 # feature groups, in the column order of the level matrix
    G_PASS = 0             # 1 pass after a move, 2 pass after a pass
    G_CAPTURE = 1          # 1 capture, 2 ... of a chain a ladder catches anyway, 3 ... preventing a
                           # connection to the last move, 4 re-capture of the last move, 5 ... of a chain
                           # touching an own chain in atari, 6 as 5 with >= 10 stones captured
    G_EXTENSION = 2        # 1 extend an own chain out of atari, 2 ... which a ladder still catches
    G_SELF_ATARI = 3       # 1 self-atari of <= 5 stones, 2 of > 5 stones
    G_ATARI = 4            # 1 atari, 2 atari while a ko exists, 3 atari on a chain a ladder catches
    G_BORDER = 5           # line 1..4 (distance to the border + 1); 0 from line 5 inwards
    G_DIST_LAST = 6        # circular distance d to the last move: d - 1 for d = 2..16, 16 for d >= 17
    G_DIST_LAST2 = 7       # ... to the second-last move: 1 for d = 0, d for d = 2..16, 17 for d >= 17
    G_CFG_LAST = 8         # common-fate-graph distance to the last move: 1..9, 10 for >= 10
    G_CFG_LAST2 = 9        # ... to the second-last move: distance + 1 for 0..9, 11 for >= 10
    G_PAT3 = 10            # 1 + canonical 3x3 class (own/opponent/empty/edge, 8 symmetries)
    G_PATTERN = 11         # 1 + index of the largest harvested circular pattern matching here
    G_SIDE_EXTENSION = 12  # bonus - 2 of a side extension on line 3 (bonus 3..20), boards >= 15 only
    G_CORNER_OPENING = 13  # 1 for a standard corner opening move, boards >= 15 only
    G_PLAYOUT_NAKADE = 14  # 14..20: 1 when that rule of the playout policy generates the move
    G_PLAYOUT_ATARI_CAPTURE = 15
    G_PLAYOUT_ATARI_DEFEND = 16
    G_PLAYOUT_LOWLIB = 17
    G_PLAYOUT_PATTERN = 18
    G_PLAYOUT_CAPTURE = 19
    G_PLAYOUT_RANDOM_PRUNED = 20   # legal, but left out of the policy's random moves
    N_GROUPS = 21

cdef enum:
    N_LEGACY_GROUPS = 12       # the groups of models written before G_SIDE_EXTENSION existed
    OPENING_MIN_SIZE = 15      # side extensions and corner openings are looked for from this size on
    MAX_SIDE_BONUS = 20        # side-extension bonuses above count as this

cdef enum:
    PATTERN_MIN_SIZE = 2       # circular pattern of size s: points at distance d(dx, dy) <= s
    PATTERN_MAX_SIZE = 14
    N_PATTERN_SIZES = 13
    PATTERN_POINTS = 140       # points at distance 2..14 around the centre (the centre is the move)
    GRID_MARGIN = 7            # d <= 14 reaches 7 lines out: the grid has that many off-board lines
    GRID_STRIDE = 39           # MAX_SIZE + 2 * GRID_MARGIN
    GRID_POINTS = 1521         # GRID_STRIDE ** 2
    CFG_CAP = 10               # common-fate-graph distances are counted up to here

cdef struct PatternTable:      # harvested pattern keys, open addressing with linear probing
    const uint64_t* keys
    const int32_t* values      # pattern index (level - 1), -1 in an empty slot
    int64_t mask               # capacity - 1, capacity a power of two
    int64_t n                  # patterns stored; 0 switches the pattern group off

cdef struct Workspace:         # scratch memory of one extracting thread
    Ladder ladder
    BoardState after           # the position after a candidate move (atari and extension ladders)
    int16_t cfg_last[MAX_POINTS]
    int16_t cfg_last2[MAX_POINTS]
    point_t queue[MAX_POINTS]
    uint8_t grid[GRID_POINTS]  # own/opponent/empty/off-board states for circular patterns
    uint8_t side[MAX_POINTS]   # G_SIDE_EXTENSION level per point
    uint8_t marks[MAX_POINTS]  # bit (g - G_CORNER_OPENING) set: group g (13..19) is on at the point
    uint64_t hashes[MAX_POINTS][8]   # per candidate: its circular pattern's hashes, per symmetry
    uint64_t keys[MAX_POINTS]        # the pattern keys looked up next, per candidate still in
    int16_t active[MAX_POINTS]       # the candidates still in (found at every size so far)

cdef int workspace_init(Workspace* w) noexcept nogil     # 0, or -1 when out of memory
cdef void workspace_free(Workspace* w) noexcept nogil

cdef int extract(Workspace* w, const BoardState* b, color_t c, const PatternTable* pt,
                 int32_t* index, int32_t* levels) noexcept nogil
    # Features of every candidate move of `c` (legal points, then pass). Writes the row-major index of
    # each candidate (N*N for pass) to index[i] and its levels to levels[i * N_GROUPS + g]; both need
    # room for N*N + 1 candidates. Returns the number of candidates.

cdef void build_grid(Workspace* w, const BoardState* b, color_t c) noexcept nogil
cdef void pattern_keys(const Workspace* w, int row, int col, uint64_t* out) noexcept nogil
    # Canonical keys of the circular patterns of sizes 2..14 around (row, col), after build_grid.
