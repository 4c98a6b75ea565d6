# priors/features.pyx: move features for every candidate of a position, in one nogil pass.
"""Move features shared by training and play.

`extract(board, color, patterns)` returns, for every candidate move of `color` (each legal point in
row-major order from row 0, then pass), its row-major index (N*N for pass) and one level per feature
group (`GROUPS`); level 0 means that no level of the group applies. Colours are own/opponent relative
to `color`. The groups and their levels are those of the decision-forests spec (Table 5.1, Coulom
2007) and the FBT spec section 2:

- distances: circular distance d(dx, dy) = |dx| + |dy| + max(|dx|, |dy|) (adjacent 2, diagonal 3),
  and the common-fate-graph distance (Friedenbach 1980: a chain is one node, each step costs 1);
  not set when the move referred to is a pass or absent.
- 3x3 shapes: the board's 16-bit neighbourhood code, with colours made own/opponent, reduced to its
  minimum over the 8 symmetries and numbered densely over the shapes that can occur.
- large circular patterns: every point at d <= s for s = 2..14 (size 2 is the cross, 3 the 3x3
  block, 14 has 140 points), each in one of 4 states (empty, own, opponent, off-board), hashed with
  Zobrist keys in a fixed point order (by distance, then angle) and reduced to the minimum over the 8
  symmetries. The level is the largest size whose key is in the harvested set (a harvested pattern's
  sub-patterns were seen at least as often, so the search stops at the first miss).
- ladders: read by `engine.ladder`'s reader (atari-only attacker, bounded; unproven means "not caught").
- opening knowledge (Fuego's GoOpeningKnowledge; boards of 15 and more, as Fuego): a side extension
  is an empty line-3 point (not a 3-3 point) whose 3x3 box is empty; scanning along its side both
  ways while Pos >= 3 and the boxes stay empty gives L and R, both >= 1, and the level is
  min(L + R + min(L, R), 20) - 2 (SIDE_EXTENSION_3..20). Corner openings: in each corner the points
  (x, y) in {3,4,5}^2 but 5-5 with an empty 3x3 box, and, when the 4-4 point holds a stone with 8
  empty neighbours, the knight's moves 3-6 and 6-3 with an empty box. Line is the distance to the
  nearest edge and Pos to the second nearest, both 1-based.
- playout-policy flags (Fuego's GoUctPlayoutPolicy, one binary group per rule, as its move features
  ask each rule for its moves): NAKADE, ATARI_CAPTURE, ATARI_DEFEND, LOWLIB and PATTERN need a last
  move that left a stone; CAPTURE takes every opponent block in atari; RANDOM_PRUNED marks legal
  points the random rule skips (completely surrounded). The rules' definitions are at the functions
  below; where ours depart from Fuego's (exact liberty counts, the 3x3 shape table of
  `engine.playout`) their docstrings say so. The correction flags (REPLACE_CAPTURE, SELFATARI and
  CLUMP FROM/TO) are not computed.

Models written before the last nine groups existed hold the first 12 (`LEGACY_GROUPS`); the loaders
of `priors.mm` and `priors.fbt` give them neutral parameters for the others.
"""
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

from engine cimport board
from engine.board cimport BLACK, EDGE, EMPTY, PASS, WHITE, Board, BoardState, color_t, point_t
from engine.playout cimport shape_move
from engine.ladder cimport is_attack_working, is_caught, ladder_free, ladder_init

GROUPS = ("pass", "capture", "extension", "self_atari", "atari", "border", "dist_last", "dist_last2",
          "cfg_last", "cfg_last2", "pat3", "pattern", "side_extension", "corner_opening", "playout_nakade",
          "playout_atari_capture", "playout_atari_defend", "playout_lowlib", "playout_pattern",
          "playout_capture", "playout_random_pruned")
LEGACY_GROUPS = GROUPS[:N_LEGACY_GROUPS]   # the feature set of older model files (a prefix of GROUPS)
PATTERN_SIZES = tuple(range(PATTERN_MIN_SIZE, PATTERN_MAX_SIZE + 1))
# Levels per group, level 0 included; pat3 and pattern are filled in below / by the pattern set.
_FIXED_LEVELS = (3, 7, 3, 3, 4, 5, 17, 18, 11, 12, 0, 0, MAX_SIDE_BONUS - 1, 2, 2, 2, 2, 2, 2, 2, 2)
ZOBRIST_SEED = 0x7E5A1D5EED


# --- 3x3 shapes --------------------------------------------------------------------------------

# The board's pat3 code: bits 2k..2k+1 hold the k-th 8-neighbour in this (row, col) offset order.
_PAT3_CELLS = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))

cdef extern from *:
    """
    #define tesuji_prefetch(p) __builtin_prefetch(p)
    """
    void prefetch "tesuji_prefetch"(const void* p) noexcept nogil


cdef int16_t PAT3_CLASS[2][65536]     # [color - 1][code] -> class, -1 for codes that cannot occur


def _symmetry(int t, int dr, int dc):
    """The t-th of the 8 symmetries of the square (t in 0..7) applied to an offset."""
    if t & 4:
        dr, dc = dc, dr
    if t & 1:
        dr = -dr
    if t & 2:
        dc = -dc
    return dr, dc


def _pat3_permutations():
    index = {cell: k for k, cell in enumerate(_PAT3_CELLS)}
    return [[index[_symmetry(t, *cell)] for cell in _PAT3_CELLS] for t in range(8)]


def _edge_masks():
    """Sets of off-board cells a point can have: none, one side, or two adjacent sides (a corner)."""
    sides = {"top": {0, 1, 2}, "bottom": {5, 6, 7}, "left": {0, 3, 5}, "right": {2, 4, 7}}
    masks = [frozenset()] + [frozenset(s) for s in sides.values()]
    for a, b in (("top", "left"), ("top", "right"), ("bottom", "left"), ("bottom", "right")):
        masks.append(frozenset(sides[a] | sides[b]))
    return masks


def _init_pat3():
    perms = _pat3_permutations()
    codes = np.arange(65536, dtype=np.int64)
    cells = (codes[:, None] >> (2 * np.arange(8))) & 3                  # (65536, 8)
    valid = np.zeros(65536, dtype=bool)
    for mask in _edge_masks():
        edge = np.zeros(8, dtype=bool)
        edge[list(mask)] = True
        valid |= np.all((cells == EDGE) == edge, axis=1)
    canonical = np.full(65536, np.iinfo(np.int64).max, dtype=np.int64)
    for perm in perms:
        moved = np.zeros(65536, dtype=np.int64)
        for k in range(8):
            moved |= cells[:, k] << (2 * perm[k])
        np.minimum(canonical, moved, out=canonical)
    classes = np.unique(canonical[valid])
    cls = np.full(65536, -1, dtype=np.int64)
    cls[valid] = np.searchsorted(classes, canonical[valid])
    swapped_cells = np.where(cells == BLACK, WHITE, np.where(cells == WHITE, BLACK, cells))
    swapped = (swapped_cells << (2 * np.arange(8))).sum(axis=1)
    cdef int code
    for code in range(65536):
        PAT3_CLASS[0][code] = cls[code]
        PAT3_CLASS[1][code] = cls[swapped[code]]
    return len(classes)


N_PAT3 = _init_pat3()


def pat3_class(int code, int color) -> int:
    """Canonical 3x3 class of a board pat3 code seen by `color` to move (-1 if it cannot occur)."""
    if not 0 <= code < 65536 or color not in (BLACK, WHITE):
        raise ValueError("code must be in 0..65535 and color BLACK or WHITE")
    return PAT3_CLASS[color - 1][code]


# --- large circular patterns -------------------------------------------------------------------

cdef int32_t SYM_OFFSET[PATTERN_POINTS][8]   # grid offset of the k-th pattern point, per symmetry
cdef int PREFIX_END[N_PATTERN_SIZES]         # points of the size-s pattern: 0 .. PREFIX_END[s - 2] - 1
cdef uint64_t ZOBRIST[PATTERN_POINTS][4]
cdef uint64_t SIZE_KEY[N_PATTERN_SIZES]


def circular_distance(int dr, int dc) -> int:
    """d(dx, dy) = |dx| + |dy| + max(|dx|, |dy|)."""
    dr, dc = abs(dr), abs(dc)
    return dr + dc + max(dr, dc)


def _pattern_points():
    """Offsets at circular distance 2..14 around the centre, by distance then angle."""
    import math
    pts = [(dr, dc) for dr in range(-7, 8) for dc in range(-7, 8)
           if 2 <= circular_distance(dr, dc) <= PATTERN_MAX_SIZE]
    return sorted(pts, key=lambda o: (circular_distance(*o), math.atan2(o[0], o[1]) % (2 * math.pi)))


def _splitmix64(state):
    mask = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def _init_patterns():
    points = _pattern_points()
    assert len(points) == PATTERN_POINTS, len(points)
    cdef int t, k, s
    for t in range(8):
        for k, (dr, dc) in enumerate(points):
            dr, dc = _symmetry(t, dr, dc)
            SYM_OFFSET[k][t] = dr * GRID_STRIDE + dc
    for s in range(N_PATTERN_SIZES):
        PREFIX_END[s] = sum(1 for o in points if circular_distance(*o) <= s + PATTERN_MIN_SIZE)
    keys = _splitmix64(ZOBRIST_SEED)
    for k in range(PATTERN_POINTS):
        for t in range(4):
            ZOBRIST[k][t] = next(keys)
    for s in range(N_PATTERN_SIZES):
        SIZE_KEY[s] = next(keys)
    return tuple(PREFIX_END[s] for s in range(N_PATTERN_SIZES))


PATTERN_SIZE_POINTS = _init_patterns()   # points per size 2..14: 4, 8, 12, 20, ..., 140


cdef inline int grid_cell(int row, int col) noexcept nogil:
    """The pattern grid's cell of board point (row, col)."""
    return (row + GRID_MARGIN) * GRID_STRIDE + col + GRID_MARGIN


cdef void build_grid(Workspace* w, const BoardState* b, color_t c) noexcept nogil:
    cdef int r, col, n = b.size
    cdef color_t x
    memset(w.grid, 3, GRID_POINTS)
    for r in range(n):
        for col in range(n):
            x = b.color[(r + 1) * b.stride + col + 1]
            w.grid[grid_cell(r, col)] = 0 if x == EMPTY else (1 if x == c else 2)


cdef inline void hash_ring(const uint8_t* grid, int q, int start, int end, uint64_t* h) noexcept nogil:
    """XOR the keys of pattern points start..end-1 around grid cell q into h[t], per symmetry t."""
    cdef int t, k
    cdef uint64_t x[8]      # the eight running hashes side by side, for the compiler to keep in registers
    for t in range(8):
        x[t] = h[t]
    for k in range(start, end):
        for t in range(8):
            x[t] ^= ZOBRIST[k][grid[q + SYM_OFFSET[k][t]]]
    for t in range(8):
        h[t] = x[t]


cdef inline uint64_t min8(const uint64_t* h) noexcept nogil:
    cdef uint64_t m = h[0]
    cdef int t
    for t in range(1, 8):
        if h[t] < m:
            m = h[t]
    return m


cdef void pattern_keys(const Workspace* w, int row, int col, uint64_t* out) noexcept nogil:
    cdef uint64_t h[8]
    cdef int s, start = 0, q = grid_cell(row, col)
    memset(h, 0, sizeof(h))
    for s in range(N_PATTERN_SIZES):
        hash_ring(w.grid, q, start, PREFIX_END[s], h)
        start = PREFIX_END[s]
        out[s] = min8(h) ^ SIZE_KEY[s]


cdef inline int64_t table_find(const PatternTable* pt, uint64_t key) noexcept nogil:
    cdef int64_t i = <int64_t>(key & <uint64_t>pt.mask)
    while pt.values[i] >= 0:
        if pt.keys[i] == key:
            return pt.values[i]
        i = (i + 1) & pt.mask
    return -1


cdef void pattern_levels(Workspace* w, const PatternTable* pt, int n, const int32_t* index, int size,
                         int32_t* levels) noexcept nogil:
    """levels[i * N_GROUPS + G_PATTERN] = 1 + index of the largest harvested pattern around candidate
    i < n (row-major index[i]), 0 if none, after build_grid. The table is large and its probes miss the
    cache, so the candidates go size by size, all of a size's keys fetched before any is looked up;
    a candidate drops out at its first size not in the table."""
    cdef int i, j, s, start = 0, n_active = n, q
    cdef uint64_t key
    cdef int64_t found
    for i in range(n):
        memset(w.hashes[i], 0, sizeof(w.hashes[i]))
        levels[i * N_GROUPS + G_PATTERN] = 0
        w.active[i] = i
    for s in range(N_PATTERN_SIZES):
        for j in range(n_active):
            i = w.active[j]
            q = grid_cell(index[i] // size, index[i] % size)
            hash_ring(w.grid, q, start, PREFIX_END[s], w.hashes[i])
            key = min8(w.hashes[i]) ^ SIZE_KEY[s]
            w.keys[j] = key
            prefetch(&pt.values[<int64_t>(key & <uint64_t>pt.mask)])
            prefetch(&pt.keys[<int64_t>(key & <uint64_t>pt.mask)])
        start = PREFIX_END[s]
        i = n_active
        n_active = 0
        for j in range(i):
            found = table_find(pt, w.keys[j])
            if found >= 0:
                levels[w.active[j] * N_GROUPS + G_PATTERN] = <int32_t>found + 1
                w.active[n_active] = w.active[j]
                n_active += 1


# --- tactical features -------------------------------------------------------------------------

cdef void cfg_distances(const BoardState* b, point_t start, int16_t* dist, point_t* queue) noexcept nogil:
    """Common-fate-graph distance from `start` (its whole chain, if a stone, is at 0), up to CFG_CAP."""
    cdef int head = 0, tail = 0, k, n_points = b.stride * b.stride
    cdef point_t u, v, x
    cdef int16_t du
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for k in range(n_points):
        dist[k] = CFG_CAP
    if b.color[start] == BLACK or b.color[start] == WHITE:
        x = b.group[start]
        while x != 0:
            dist[x] = 0
            queue[tail] = x
            tail += 1
            x = b.next_stone[x]
    else:
        dist[start] = 0
        queue[tail] = start
        tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        if du >= CFG_CAP:
            continue
        for k in range(4):
            v = u + d[k]
            if b.color[v] == EDGE or dist[v] <= du:
                continue
            if b.color[v] == EMPTY:
                dist[v] = du
                queue[tail] = v
                tail += 1
            else:
                x = b.group[v]
                while x != 0:
                    dist[x] = du
                    queue[tail] = x
                    tail += 1
                    x = b.next_stone[x]


cdef inline int circ(int r1, int c1, int r2, int c2) noexcept nogil:
    cdef int dr = r1 - r2 if r1 > r2 else r2 - r1
    cdef int dc = c1 - c2 if c1 > c2 else c2 - c1
    return dr + dc + (dr if dr > dc else dc)


cdef bint touches_own_atari(const BoardState* b, point_t g, color_t c) noexcept nogil:
    """Does a stone of chain g touch a chain of colour c in atari?"""
    cdef point_t x = g, y
    cdef int d[4]
    cdef int k
    board.nbrs4(b.stride, d)
    while x != 0:
        for k in range(4):
            y = x + d[k]
            if b.color[y] == c and b.groups[b.group[y]].n_libs == 1:
                return True
        x = b.next_stone[x]
    return False


cdef int capture_level(Workspace* w, const BoardState* b, point_t p, point_t g, color_t c) noexcept nogil:
    """Level of capturing chain g (in atari, liberty p) by c: the highest of Table 5.1 that applies."""
    cdef point_t last = b.last_move, q
    cdef int d[4]
    cdef int k
    board.nbrs4(b.stride, d)
    if touches_own_atari(b, g, c):
        return 6 if b.groups[g].n_stones >= 10 else 5
    if last > 0 and b.color[last] == 3 - c:
        if b.group[last] == g:
            return 4
        for k in range(4):
            q = p + d[k]
            if b.group[q] == b.group[last] and b.color[q] == 3 - c:
                return 3
    if is_caught(&w.ladder, b, g):
        return 2
    return 1


cdef void tactical_levels(Workspace* w, const BoardState* b, point_t p, color_t c, int32_t* lv) noexcept nogil:
    cdef color_t o = 3 - c
    cdef int d[4]
    cdef point_t seen[4]
    cdef point_t g, y
    cdef int k, n_seen = 0, level, n, size
    cdef bint played = False
    board.nbrs4(b.stride, d)
    for k in range(4):
        y = p + d[k]
        if b.color[y] != BLACK and b.color[y] != WHITE:
            continue
        g = b.group[y]
        if board.in_list(seen, n_seen, g):
            continue
        seen[n_seen] = g
        n_seen += 1
        n = b.groups[g].n_libs
        if b.color[y] == o and n == 1:
            level = capture_level(w, b, p, g, c)
            if level > lv[G_CAPTURE]:
                lv[G_CAPTURE] = level
        elif b.color[y] == o and n == 2:
            level = 2 if b.ko_point != 0 else 1
            if lv[G_ATARI] < 3:
                if not played:
                    w.after = b[0]
                    board.play(&w.after, p, c)
                    played = True
                if w.after.group[y] != 0 and w.after.groups[w.after.group[y]].n_libs == 1 \
                        and is_caught(&w.ladder, &w.after, y):
                    level = 3
            if level > lv[G_ATARI]:
                lv[G_ATARI] = level
        elif b.color[y] == c and n == 1 and lv[G_EXTENSION] == 0:
            n = board.libs_after(b, p, c, 3)
            if n >= 3:
                lv[G_EXTENSION] = 1
            elif n <= 1:
                lv[G_EXTENSION] = 2
            else:
                if not played:
                    w.after = b[0]
                    board.play(&w.after, p, c)
                    played = True
                lv[G_EXTENSION] = 2 if is_attack_working(&w.ladder, &w.after, p) else 1
    size = board.self_atari_size(b, p, c)
    if size > 0:
        lv[G_SELF_ATARI] = 1 if size <= 5 else 2


# --- opening knowledge (boards of OPENING_MIN_SIZE and more) --------------------------------------

cdef inline int edge_dist(int i, int n) noexcept nogil:
    """1-based distance of row or column i (0-based) to the nearer edge."""
    return i + 1 if i < n - 1 - i else n - i


cdef inline bint empty_box(const BoardState* b, point_t p) noexcept nogil:
    """p and its 8 neighbours are empty (off-board cells are not)."""
    return b.color[p] == EMPTY and b.pat3[p] == 0


cdef int scan_side(const BoardState* b, point_t p, int step) noexcept nogil:
    """Empty-box points met from p (excluded) in direction step while Pos >= 3."""
    cdef int count = 0, n = b.size, r, col
    p += step
    while b.color[p] != EDGE:
        r = p // b.stride - 1
        col = p % b.stride - 1
        if max(edge_dist(r, n), edge_dist(col, n)) < 3 or not empty_box(b, p):
            break
        count += 1
        p += step
    return count


cdef void mark_side_extensions(const BoardState* b, uint8_t* side) noexcept nogil:
    """side[p] = min(bonus, MAX_SIDE_BONUS) - 2 at every line-3 point p (3-3 points excluded) with
    an empty 3x3 box and L, R >= 1 empty boxes along the side: bonus = L + R + min(L, R)."""
    cdef int n = b.size, r, col, lr, lc, left, right, bonus, step
    cdef point_t p
    for r in range(n):
        for col in range(n):
            lr = edge_dist(r, n)
            lc = edge_dist(col, n)
            if min(lr, lc) != 3 or lr == lc:
                continue
            p = (r + 1) * b.stride + col + 1
            if not empty_box(b, p):
                continue
            step = 1 if lr == 3 else b.stride          # along the side the point stands on
            left = scan_side(b, p, -step)
            right = scan_side(b, p, step)
            if left >= 1 and right >= 1:
                bonus = left + right + min(left, right)
                side[p] = <uint8_t>(min(bonus, MAX_SIDE_BONUS) - 2)


cdef inline void mark(uint8_t* marks, point_t p, int group) noexcept nogil:
    marks[p] |= <uint8_t>(1 << (group - G_CORNER_OPENING))


cdef inline point_t corner_point(const BoardState* b, int corner, int x, int y) noexcept nogil:
    """The point at 1-based distances x (column) and y (row) from corner 0..3."""
    cdef int col = x - 1 if corner & 1 == 0 else b.size - x
    cdef int r = y - 1 if corner & 2 == 0 else b.size - y
    return (r + 1) * b.stride + col + 1


cdef void mark_corner_openings(const BoardState* b, uint8_t* marks) noexcept nogil:
    """In each corner: the points (x, y) in {3,4,5}^2 except 5-5 with an empty 3x3 box; and when the
    4-4 point holds a stone with 8 empty neighbours, the knight's moves 3-6 and 6-3 with empty boxes."""
    cdef int corner, x, y
    cdef point_t p, star
    for corner in range(4):
        for x in range(3, 6):
            for y in range(3, 6):
                p = corner_point(b, corner, x, y)
                if (x != 5 or y != 5) and empty_box(b, p):
                    mark(marks, p, G_CORNER_OPENING)
        star = corner_point(b, corner, 4, 4)
        if b.color[star] != EMPTY and b.pat3[star] == 0:
            for x in range(2):
                p = corner_point(b, corner, 3, 6) if x == 0 else corner_point(b, corner, 6, 3)
                if empty_box(b, p):
                    mark(marks, p, G_CORNER_OPENING)


# --- flags of the playout policy -----------------------------------------------------------------

cdef bint self_atari(const BoardState* b, point_t p, color_t c) noexcept nogil:
    """Fuego's self-atari test of an empty point: c's block at p would have one liberty, except that
    a stone capturing without touching an own block (a ko-type capture) never counts. Liberties are
    counted exactly (Fuego estimates them when an own block and a capture meet)."""
    cdef int k
    cdef int d[4]
    cdef point_t q
    cdef bint own = False, capture = False
    if b.n_nbr[p][EMPTY] >= 2 or board.self_atari_size(b, p, c) == 0:
        return False
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = p + d[k]
        if b.color[q] == c:
            own = True
        elif b.color[q] == 3 - c and b.groups[b.group[q]].n_libs == 1:
            capture = True
    return own or not capture


cdef inline bint is_liberty_of(const BoardState* b, point_t q, point_t g) noexcept nogil:
    """Is the empty point q a liberty of the 2-liberty block g?"""
    return b.groups[g].libs[0] == q or b.groups[g].libs[1] == q


cdef inline int add_new_liberty(const BoardState* b, point_t g, point_t x, point_t* fresh, int n) noexcept nogil:
    """Add x to the first n entries of fresh unless it is a liberty of g or there already."""
    if is_liberty_of(b, x, g) or board.in_list(fresh, n, x):
        return n
    fresh[n] = x
    return n + 1


cdef bint gains_liberties(const BoardState* b, point_t g, point_t lib) noexcept nogil:
    """Would the 2-liberty block g, extended at its liberty lib, gain at least two new liberties
    (empty neighbours of lib and liberties of own blocks it joins, other than g's own)? Counted
    without repeats (Fuego counts a liberty twice when it reaches it both ways)."""
    cdef color_t c = b.color[g]
    cdef point_t fresh[2]
    cdef int n_new = 0, k, i
    cdef int d[4]
    cdef point_t q, h
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = lib + d[k]
        if b.color[q] == EMPTY:
            n_new = add_new_liberty(b, g, q, fresh, n_new)
        elif b.color[q] == c and b.group[q] != g:
            h = b.group[q]
            for i in range(min(b.groups[h].n_libs, board.MAX_LIBS)):
                n_new = add_new_liberty(b, g, b.groups[h].libs[i], fresh, n_new)
                if n_new == 2:
                    return True
        if n_new == 2:
            return True
    return False


cdef bint is_simple_chain(const BoardState* b, point_t g) noexcept nogil:
    """Does another block of g's colour touch both liberties of the 2-liberty block g?"""
    cdef color_t c = b.color[g]
    cdef point_t lib1 = b.groups[g].libs[0], lib2 = b.groups[g].libs[1], q, r
    cdef int k, j
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = lib1 + d[k]
        if b.color[q] != c or b.group[q] == g:
            continue
        for j in range(4):
            r = lib2 + d[j]
            if b.color[r] == c and b.group[r] == b.group[q]:
                return True
    return False


cdef void play_good_liberties(const BoardState* b, point_t g, color_t c, uint8_t* marks) noexcept nogil:
    """LOWLIB on the 2-liberty block g (of either colour): each liberty where g would gain liberties
    and c's stone is no self-atari, unless g is a simple chain."""
    cdef int i
    cdef point_t lib
    if is_simple_chain(b, g):
        return
    for i in range(2):
        lib = b.groups[g].libs[i]
        if gains_liberties(b, g, lib) and not self_atari(b, lib, c):
            mark(marks, lib, G_PLAYOUT_LOWLIB)


cdef bint nakade_empty(const BoardState* b, point_t q, color_t c, int n_empty) noexcept nogil:
    return b.color[q] == EMPTY and b.n_nbr[q][EMPTY] == n_empty and b.n_nbr[q][c] == 0


cdef void mark_nakade(const BoardState* b, point_t p, color_t c, uint8_t* marks) noexcept nogil:
    """NAKADE next to the last move: p (empty, no c neighbour) ends or centres a three-point line of
    empty points without c neighbours whose ends have one empty neighbour: mark the centre."""
    cdef int k, j
    cdef int d[4]
    cdef point_t q, r
    if b.color[p] != EMPTY or b.n_nbr[p][c] != 0:
        return
    board.nbrs4(b.stride, d)
    if b.n_nbr[p][EMPTY] == 2:                 # p is the centre
        for k in range(4):
            q = p + d[k]
            if b.color[q] == EMPTY and not nakade_empty(b, q, c, 1):
                return
        mark(marks, p, G_PLAYOUT_NAKADE)
    elif b.n_nbr[p][EMPTY] == 1:               # p is an end: its empty neighbour q is the centre
        for k in range(4):
            q = p + d[k]
            if b.color[q] != EMPTY:
                continue
            if not nakade_empty(b, q, c, 2):
                return
            for j in range(4):
                r = q + d[j]
                if r != p and b.color[r] == EMPTY:
                    if nakade_empty(b, r, c, 1):
                        mark(marks, q, G_PLAYOUT_NAKADE)
                    return
            return


cdef void mark_atari_defence(const BoardState* b, point_t last, color_t c, uint8_t* marks) noexcept nogil:
    """ATARI_DEFEND: for each c block in atari next to the last move, its liberty unless that is a
    self-atari, and the liberty of every opponent block in atari touching it."""
    cdef int i, j, n, n_around
    cdef point_t blocks[4]
    cdef point_t around[board.MAX_POINTS]
    cdef point_t lib, h
    n = board.blocks_next_to(b, last, c, 1, blocks)
    for i in range(n):
        lib = b.groups[blocks[i]].libs[0]
        if not self_atari(b, lib, c):
            mark(marks, lib, G_PLAYOUT_ATARI_DEFEND)
        n_around = board.neighbour_blocks(b, blocks[i], 3 - c, around)
        for j in range(n_around):
            h = around[j]
            if b.groups[h].n_libs == 1 and b.groups[h].libs[0] != lib:
                mark(marks, b.groups[h].libs[0], G_PLAYOUT_ATARI_DEFEND)


cdef void mark_lowlib(const BoardState* b, point_t last, color_t c, uint8_t* marks) noexcept nogil:
    """LOWLIB: good liberties of the last move's block and of c's blocks next to it, each with two
    liberties."""
    cdef int i, n
    cdef point_t blocks[4]
    if b.groups[b.group[last]].n_libs == 2:
        play_good_liberties(b, b.group[last], c, marks)
    n = board.blocks_next_to(b, last, c, 2, blocks)
    for i in range(n):
        play_good_liberties(b, blocks[i], c, marks)


cdef void mark_shape_moves(const BoardState* b, point_t m, color_t c, uint8_t* marks) noexcept nogil:
    """PATTERN: empty 8-neighbours of m that are a 3x3 shape move for c and no self-atari. The shapes
    are those of our own playout policy (`engine.playout`: the MoGo hane, cut and edge patterns as
    drawn by Gelly et al. 2006), which Fuego's GoUctPatterns also follow; small differences in the
    drawings are possible."""
    cdef int dr, dc
    cdef point_t q
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            q = m + dr * b.stride + dc
            if (dr or dc) and b.color[q] == EMPTY and shape_move(b.pat3[q], c) and not self_atari(b, q, c):
                mark(marks, q, G_PLAYOUT_PATTERN)


cdef void mark_policy_moves(const BoardState* b, color_t c, uint8_t* marks) noexcept nogil:
    """The moves each rule of Fuego's playout policy proposes (GoUctPlayoutPolicy::GetPolicyMoves);
    the rules reading the last move need one that left a stone on the board."""
    cdef point_t last = b.last_move, last2 = b.last_move2, p, g
    cdef int k, n = b.size, r, col
    cdef int d[4]
    board.nbrs4(b.stride, d)
    if last > 0 and (b.color[last] == BLACK or b.color[last] == WHITE):
        for k in range(4):
            mark_nakade(b, last + d[k], c, marks)
        g = b.group[last]
        if b.groups[g].n_libs == 1:
            mark(marks, b.groups[g].libs[0], G_PLAYOUT_ATARI_CAPTURE)
        if b.n_nbr[last][c] > 0:
            mark_atari_defence(b, last, c, marks)
        mark_lowlib(b, last, c, marks)
        mark_shape_moves(b, last, c, marks)
        if last2 > 0 and b.color[last2] != EDGE:
            mark_shape_moves(b, last2, c, marks)
    for r in range(n):                         # CAPTURE: every opponent block in atari
        for col in range(n):
            p = (r + 1) * b.stride + col + 1
            if b.color[p] == 3 - c and b.group[p] == p and b.groups[p].n_libs == 1:
                mark(marks, b.groups[p].libs[0], G_PLAYOUT_CAPTURE)


cdef bint is_completely_surrounded(const BoardState* b, point_t p) noexcept nogil:
    """No empty neighbour, neighbours of one colour only, none of their blocks in atari: the points
    the policy's random moves skip (Coulom 2006)."""
    cdef int k
    cdef int d[4]
    cdef point_t q
    if b.n_nbr[p][EMPTY] > 0 or (b.n_nbr[p][BLACK] > 0 and b.n_nbr[p][WHITE] > 0):
        return False
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = p + d[k]
        if b.color[q] != EDGE and b.groups[b.group[q]].n_libs == 1:
            return False
    return True


cdef int workspace_init(Workspace* w) noexcept nogil:
    return ladder_init(&w.ladder)


cdef void workspace_free(Workspace* w) noexcept nogil:
    ladder_free(&w.ladder)


cdef int extract(Workspace* w, const BoardState* b, color_t c, const PatternTable* pt,
                 int32_t* index, int32_t* levels) noexcept nogil:
    cdef int n = b.size, r, col, k, i = 0, d, line
    cdef point_t p, last = b.last_move, last2 = b.last_move2
    cdef bint has_last = last > 0 and b.color[last] != EDGE
    cdef bint has_last2 = last2 > 0 and b.color[last2] != EDGE
    cdef int rl = 0, cl = 0, rl2 = 0, cl2 = 0
    cdef int32_t* lv
    cdef bint use_patterns = pt != NULL and pt.n > 0
    cdef uint8_t m
    if has_last:
        rl = last // b.stride - 1
        cl = last % b.stride - 1
        cfg_distances(b, last, w.cfg_last, w.queue)
    if has_last2:
        rl2 = last2 // b.stride - 1
        cl2 = last2 % b.stride - 1
        cfg_distances(b, last2, w.cfg_last2, w.queue)
    if use_patterns:
        build_grid(w, b, c)
    memset(w.side, 0, b.stride * b.stride)
    memset(w.marks, 0, b.stride * b.stride)
    if n >= OPENING_MIN_SIZE:
        mark_side_extensions(b, w.side)
        mark_corner_openings(b, w.marks)
    mark_policy_moves(b, c, w.marks)
    for r in range(n):
        for col in range(n):
            p = (r + 1) * b.stride + col + 1
            if b.color[p] != EMPTY or not board.is_legal(b, p, c):
                continue
            index[i] = r * n + col
            lv = levels + i * N_GROUPS
            for k in range(N_GROUPS):
                lv[k] = 0
            tactical_levels(w, b, p, c, lv)
            line = min(min(r, col), min(n - 1 - r, n - 1 - col)) + 1
            if line <= 4:
                lv[G_BORDER] = line
            if has_last:
                d = circ(r, col, rl, cl)
                lv[G_DIST_LAST] = (d if d < 17 else 17) - 1 if d >= 2 else 1
                d = w.cfg_last[p]
                lv[G_CFG_LAST] = d
            if has_last2:
                d = circ(r, col, rl2, cl2)
                lv[G_DIST_LAST2] = 1 if d == 0 else (d if d < 17 else 17)
                lv[G_CFG_LAST2] = w.cfg_last2[p] + 1
            lv[G_PAT3] = PAT3_CLASS[c - 1][b.pat3[p]] + 1
            lv[G_SIDE_EXTENSION] = w.side[p]
            m = w.marks[p]
            for k in range(G_CORNER_OPENING, G_PLAYOUT_RANDOM_PRUNED):
                lv[k] = (m >> (k - G_CORNER_OPENING)) & 1
            lv[G_PLAYOUT_RANDOM_PRUNED] = is_completely_surrounded(b, p)
            i += 1
    if use_patterns:
        pattern_levels(w, pt, i, index, n, levels)
    index[i] = n * n
    lv = levels + i * N_GROUPS
    for k in range(N_GROUPS):
        lv[k] = 0
    lv[G_PASS] = 2 if last == PASS else 1
    return i + 1


# --- Python face -------------------------------------------------------------------------------

def level_counts(n_patterns: int = 0) -> np.ndarray:
    """Levels of each group (level 0 included), in GROUPS order, for a set of n_patterns patterns."""
    counts = np.array(_FIXED_LEVELS, dtype=np.int64)
    counts[G_PAT3] = N_PAT3 + 1
    counts[G_PATTERN] = n_patterns + 1
    return counts


cdef class Extractor:
    """Scratch memory for feature extraction; one per thread (the module keeps one for callers
    holding the GIL)."""
    cdef Workspace* w

    def __cinit__(self):
        self.w = <Workspace*>malloc(sizeof(Workspace))
        if self.w == NULL or workspace_init(self.w) != 0:
            raise MemoryError("feature workspace")

    def __dealloc__(self):
        if self.w != NULL:
            workspace_free(self.w)
            free(self.w)

    def extract(self, Board board, int color, patterns=None):
        """(index int32 (n,), levels int32 (n, N_GROUPS)) for every candidate move of `color`."""
        cdef PatternTable pt
        cdef const uint64_t[::1] keys
        cdef const int32_t[::1] values
        cdef int size = board.s.size, n
        if color != BLACK and color != WHITE:
            raise ValueError(f"color must be BLACK (1) or WHITE (2), got {color}")
        pt.n = 0
        if patterns is not None and len(patterns) > 0:
            keys = patterns.table_keys
            values = patterns.table_values
            pt.keys = &keys[0]
            pt.values = &values[0]
            pt.mask = keys.shape[0] - 1
            pt.n = len(patterns)
        index = np.empty(size * size + 1, dtype=np.int32)
        levels = np.empty((size * size + 1, N_GROUPS), dtype=np.int32)
        cdef int32_t[::1] iv = index
        cdef int32_t[:, ::1] lv = levels
        n = extract(self.w, &board.s, <color_t>color, &pt, &iv[0], &lv[0, 0])
        return index[:n], levels[:n]

    def pattern_keys(self, Board board, int point, int color):
        """Canonical keys (uint64, sizes 2..14) of the circular patterns around `point` for `color`."""
        cdef int stride = board.s.stride
        if color != BLACK and color != WHITE:
            raise ValueError(f"color must be BLACK (1) or WHITE (2), got {color}")
        if not (0 < point < stride * stride) or board.s.color[point] == EDGE:
            raise ValueError(f"point {point} is not on the board")
        out = np.empty(N_PATTERN_SIZES, dtype=np.uint64)
        cdef uint64_t[::1] ov = out
        build_grid(self.w, &board.s, <color_t>color)
        pattern_keys(self.w, point // stride - 1, point % stride - 1, &ov[0])
        return out


_default = Extractor()


def extract_features(Board board, int color, patterns=None):
    """Features of every candidate move of `color`: (index (n,), levels (n, N_GROUPS)), int32.

    index[i] is the row-major index of candidate i (N*N for pass, always last); levels[i, g] its
    level in group GROUPS[g]. Not thread-safe: threads make their own `Extractor`.
    """
    return _default.extract(board, color, patterns)


def pattern_keys_at(Board board, int point, int color):
    """Canonical circular-pattern keys at `point` for `color`, sizes 2..14 (see Extractor)."""
    return _default.pattern_keys(board, point, color)


def build_table(const uint64_t[::1] keys):
    """Open-addressing table of `keys` for PatternTable: (table_keys uint64, table_values int32).

    Capacity is a power of two at least twice the number of keys, so probes stay short and every
    search ends at an empty slot; values hold the key's index in `keys` (-1 in empty slots).
    """
    cdef int64_t n = keys.shape[0], cap = 2, i, j
    while cap < 2 * n + 2:
        cap *= 2
    table_keys = np.zeros(cap, dtype=np.uint64)
    table_values = np.full(cap, -1, dtype=np.int32)
    cdef uint64_t[::1] tk = table_keys
    cdef int32_t[::1] tv = table_values
    with nogil:
        for j in range(n):
            i = <int64_t>(keys[j] & <uint64_t>(cap - 1))
            while tv[i] >= 0:
                if tk[i] == keys[j]:
                    break
                i = (i + 1) & (cap - 1)
            if tv[i] < 0:
                tk[i] = keys[j]
                tv[i] = <int32_t>j
    return table_keys, table_values
