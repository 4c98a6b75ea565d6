# priors/spt/_kernels.pyx: the hot loops of the spatial probability trees, behind priors/spt/model.py.
#
# A position is a grid of cell codes (row-major, row 0 at the bottom as `Board.point(row, col)`), from
# the side to move's view. Each question type (Tidwell 2012 §4.1, §4.5; spec §4 item 3) is a predicate
# over codes, so "the number of objects of type t in the w_q x w_q window at f" is a window count over
# the cells where the predicate holds. Off-board cells are EDGE, as far out as any window reaches (the
# board "surrounded by edge stones", §2). Counts come from one summed-area table per type over the
# board padded by PAD edge cells, four reads per question whatever its window.
#
# A forest is flat arrays: node n asks "count(type[n], focus, half[n]) >= threshold[n]?" (window
# 2 * half + 1) and goes to yes[n] or no[n]; leaf[n] >= 0 marks a leaf, whose w_p x w_p table is row
# leaf[n] of `tables` (the evaluation reads the nodes as `pack_forest` packs them for one board size) (cell (dr + r) * w_p + (dc + r) is P(move at focus + (dr, dc)), Alg 4.5).
# Tree evaluation (Alg 4.2-4.4 with the §4.3 coverage division): every focus adds its leaf's table
# into G, G(p) /= C(p), the number of foci whose window covers p, and G is normalised; a forest is the
# mean of its trees' tables (§4.6).
from libc.math cimport log
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t

import numpy as np

from engine.board cimport BLACK, EDGE, EMPTY, MAX_SIZE, WHITE, Board, BoardState, nbrs4, point_at

cdef enum:
    PAD = 4                  # off-board cells around the board: windows up to MAX_WINDOW
    MAX_WINDOW = 9
    MAX_SIDE = 34            # MAX_SIZE + 2 * PAD + 1: side of a summed-area table
    N_TYPES = 16
    N_CODES = 21
    N_CAT_MAX = 82           # MAX_WINDOW^2 cells and NULL: the outcomes of a leaf

# Cell codes: EDGE off the board; an empty point with its capture flags; a stone by owner and liberties.
cdef enum:
    C_EDGE = 0
    C_EMPTY = 1              # + 1 if the side to move captures by playing here, + 2 if the opponent does
    C_OWN = 5                # + min(liberties, 4) - 1
    C_OPP = 9
    C_LAST = 13              # + min(liberties, 4) - 1: the opponent's stone played last
    C_LAST2 = 17             # ... the own stone played before it

# The thesis's types come first; a model that draws its questions from the first k types reads them alone.
TYPES = ("edge", "empty", "own", "opponent",
         "own_lib1", "own_lib2", "own_lib3", "own_lib4+",
         "opp_lib1", "opp_lib2", "opp_lib3", "opp_lib4+",
         "capture", "opp_capture",
         "last", "last2")
N_THESIS_TYPES = 14

cdef uint16_t TYPE_BITS[N_CODES]   # bit t set when code c satisfies type t


cdef void init_types():
    cdef int c, k
    TYPE_BITS[C_EDGE] = 1 << 0
    for c in range(4):
        TYPE_BITS[C_EMPTY + c] = 1 << 1
    TYPE_BITS[C_EMPTY + 1] |= 1 << 12
    TYPE_BITS[C_EMPTY + 2] |= 1 << 13
    TYPE_BITS[C_EMPTY + 3] |= (1 << 12) | (1 << 13)
    for k in range(4):
        TYPE_BITS[C_OWN + k] = (1 << 2) | (1 << (4 + k))
        TYPE_BITS[C_OPP + k] = (1 << 3) | (1 << (8 + k))
        TYPE_BITS[C_LAST + k] = TYPE_BITS[C_OPP + k] | (1 << 14)
        TYPE_BITS[C_LAST2 + k] = TYPE_BITS[C_OWN + k] | (1 << 15)


init_types()
MAX_HALF = PAD


cdef inline bint in_atari_next_to(const BoardState* b, int p, uint8_t c) noexcept nogil:
    """Does a c block with exactly one liberty touch p?"""
    cdef int k, q
    cdef int d[4]
    nbrs4(b.stride, d)
    for k in range(4):
        q = p + d[k]
        if b.color[q] == c and b.groups[b.group[q]].n_libs == 1:
            return True
    return False


cdef void board_codes(const BoardState* b, uint8_t to_play, uint8_t* out) noexcept nogil:
    """The cell code of every point of b (N*N, row-major) for the side to_play."""
    cdef int n = b.size, row, col, p, libs
    cdef uint8_t other = 3 - to_play, c, code
    for row in range(n):
        for col in range(n):
            p = point_at(b, row, col)
            c = b.color[p]
            if c == EMPTY:
                out[row * n + col] = C_EMPTY + in_atari_next_to(b, p, other) + 2 * in_atari_next_to(b, p, to_play)
            else:
                libs = b.groups[b.group[p]].n_libs
                if c == to_play:
                    code = C_LAST2 if p == b.last_move2 else C_OWN
                else:
                    code = C_LAST if p == b.last_move else C_OPP
                out[row * n + col] = code + (libs if libs < 4 else 4) - 1


cdef void build_tables(const uint8_t* codes, int n, int16_t* sat) noexcept nogil:
    """Summed-area tables of every type over the board padded by PAD edge cells: sat[t * S * S + i * S + j]
    counts type t in padded rows < i and columns < j, S = n + 2 PAD + 1."""
    cdef int side = n + 2 * PAD, s = side + 1, i, j, t, r, c
    cdef uint16_t bits
    cdef int16_t* tab
    for t in range(N_TYPES):
        tab = sat + t * s * s
        for j in range(s):
            tab[j] = 0
    for i in range(side):
        r = i - PAD
        for t in range(N_TYPES):
            sat[t * s * s + (i + 1) * s] = 0
        for j in range(side):
            c = j - PAD
            bits = TYPE_BITS[codes[r * n + c]] if 0 <= r < n and 0 <= c < n else TYPE_BITS[C_EDGE]
            for t in range(N_TYPES):
                tab = sat + t * s * s
                tab[(i + 1) * s + j + 1] = ((bits >> t) & 1) + tab[i * s + j + 1] + tab[(i + 1) * s + j] - tab[i * s + j]


cdef inline int window_count(const int16_t* sat, int s, int t, int row, int col, int half) noexcept nogil:
    """Cells of type t in the (2 half + 1)^2 window centred on (row, col) of the board."""
    cdef const int16_t* tab = sat + t * s * s
    cdef int r0 = row + PAD - half, r1 = row + PAD + half + 1
    cdef int c0 = col + PAD - half, c1 = col + PAD + half + 1
    return tab[r1 * s + c1] - tab[r0 * s + c1] - tab[r1 * s + c0] + tab[r0 * s + c0]


def cell_codes(Board board, int color):
    """The cell codes (uint8, N*N, row-major) of `board` seen by `color`, the side to move."""
    if color != BLACK and color != WHITE:
        raise ValueError(f"color must be BLACK (1) or WHITE (2), got {color}")
    out = np.empty(board.s.size * board.s.size, dtype=np.uint8)
    cdef uint8_t[::1] ov = out
    board_codes(&board.s, <uint8_t>color, &ov[0])
    return out


def example_counts(const uint8_t[:, ::1] codes, int size, const int32_t[::1] position, const int32_t[::1] focus,
                   const int8_t[::1] col_type, const int8_t[::1] col_half, uint8_t[:, ::1] out):
    """out[e, q] = count of type col_type[q] in the window of half width col_half[q] at focus[e]
    (row-major) of position position[e] (a row of `codes`); examples of one position must be adjacent."""
    cdef int16_t sat[N_TYPES * MAX_SIDE * MAX_SIDE]
    cdef int s = size + 2 * PAD + 1, e, q, last = -1
    cdef int n_cols = col_type.shape[0]
    _check_columns(col_type, col_half)
    if codes.shape[1] != size * size or size > MAX_SIZE or out.shape[0] != focus.shape[0] \
            or position.shape[0] != focus.shape[0] or out.shape[1] != n_cols:
        raise ValueError("example_counts: inconsistent shapes")
    for e in range(focus.shape[0]):
        if not (0 <= position[e] < codes.shape[0] and 0 <= focus[e] < size * size):
            raise ValueError(f"example {e}: position or focus out of range")
    with nogil:
        for e in range(focus.shape[0]):
            if position[e] != last:
                last = position[e]
                build_tables(&codes[last, 0], size, sat)
            for q in range(n_cols):
                out[e, q] = <uint8_t>window_count(sat, s, col_type[q], focus[e] // size, focus[e] % size,
                                                  col_half[q])


cdef _check_columns(const int8_t[::1] col_type, const int8_t[::1] col_half):
    cdef int q
    if col_type.shape[0] != col_half.shape[0]:
        raise ValueError("question columns: type and half arrays differ in length")
    for q in range(col_type.shape[0]):
        if not (0 <= col_type[q] < N_TYPES and 0 <= col_half[q] <= PAD):
            raise ValueError(f"question column {q}: type or window out of range")


cdef inline double log_likelihood(const int32_t* hist, int n_cat, int total) noexcept nogil:
    """sum_k n_k ln(n_k / M) (0 ln 0 = 0): the log-likelihood of a set under its own MLE leaf (Alg 4.8)."""
    cdef double ll = 0.0
    cdef int k
    if total == 0:
        return 0.0
    for k in range(n_cat):
        if hist[k] > 0:
            ll += hist[k] * log(<double>hist[k])
    return ll - total * log(<double>total)


def split_scores(const uint8_t[:, ::1] columns, const int32_t[::1] outcome, const int32_t[::1] idx,
                 const int32_t[::1] cols, const uint8_t[::1] thresholds, int n_cat, double[::1] out):
    """out[j] = LR of question j, "columns[cols[j], e] >= thresholds[j]?", on the examples e in idx
    (Alg 4.7 in closed form): LL(yes) + LL(no) - LL(parent); -1 where the yes or the no set is empty.
    `columns` is the feature matrix by column (one row per question column), so that a question reads
    its examples in order when idx is sorted."""
    cdef int32_t parent[N_CAT_MAX]
    cdef int32_t yes[N_CAT_MAX]
    cdef int32_t no[N_CAT_MAX]
    cdef int i, j, k, n_yes, m = idx.shape[0]
    cdef double ll_parent
    cdef const uint8_t* row
    if not (1 <= n_cat <= N_CAT_MAX) or out.shape[0] != cols.shape[0] or thresholds.shape[0] != cols.shape[0]:
        raise ValueError("split_scores: inconsistent shapes")
    for i in range(m):
        if not (0 <= idx[i] < columns.shape[1] and 0 <= outcome[idx[i]] < n_cat):
            raise ValueError(f"split_scores: example {idx[i]} or its outcome out of range")
    for j in range(cols.shape[0]):
        if not 0 <= cols[j] < columns.shape[0]:
            raise ValueError(f"split_scores: column {cols[j]} out of range")
    with nogil:
        for k in range(n_cat):
            parent[k] = 0
        for i in range(m):
            parent[outcome[idx[i]]] += 1
        ll_parent = log_likelihood(parent, n_cat, m)
        for j in range(cols.shape[0]):
            row = &columns[cols[j], 0]
            for k in range(n_cat):
                yes[k] = 0
            n_yes = 0
            for i in range(m):
                if row[idx[i]] >= thresholds[j]:
                    yes[outcome[idx[i]]] += 1
                    n_yes += 1
            if n_yes == 0 or n_yes == m:
                out[j] = -1.0
                continue
            for k in range(n_cat):
                no[k] = parent[k] - yes[k]
            out[j] = log_likelihood(yes, n_cat, n_yes) + log_likelihood(no, n_cat, m - n_yes) - ll_parent


cdef enum:
    NODE_FIELDS = 4          # a packed node (see pack_forest)


def pack_forest(const int8_t[::1] type, const int8_t[::1] half, const int16_t[::1] threshold,
                const int32_t[::1] yes, const int32_t[::1] no, const int32_t[::1] leaf, int size):
    """The nodes as the descent reads them on a size x size board, one row of NODE_FIELDS int32 each:
    an internal node holds the offset of its window's corner in the summed-area tables from the focus,
    (threshold << 8) | window side, yes and no; a leaf holds its table's row and 0. One record per node
    keeps a descent step on one cache line, where the flat arrays took six."""
    cdef int s = size + 2 * PAD + 1, n = leaf.shape[0], i, h
    if size < 1 or size > MAX_SIZE or type.shape[0] != n or half.shape[0] != n or threshold.shape[0] != n \
            or yes.shape[0] != n or no.shape[0] != n:
        raise ValueError("pack_forest: a board size in 1..MAX_SIZE and one entry per node in every array")
    out = np.zeros((n, NODE_FIELDS), dtype=np.int32)
    cdef int32_t[:, ::1] o = out
    for i in range(n):
        if leaf[i] >= 0:
            o[i, 0] = leaf[i]
        else:
            if not (0 <= half[i] <= PAD and 0 <= threshold[i] <= MAX_WINDOW * MAX_WINDOW):
                raise ValueError("pack_forest: a window or threshold out of range")
            h = half[i]
            o[i, 0] = type[i] * s * s - h * s - h
            o[i, 1] = (threshold[i] << 8) | (2 * h + 1)
            o[i, 2] = yes[i]
            o[i, 3] = no[i]
    return out


cdef struct Forest:
    const int32_t* nodes       # (n_nodes, NODE_FIELDS), from pack_forest for this board size
    const float* tables        # (n_leaves, w_p * w_p)
    const int32_t* roots
    int n_trees
    int w_p


cdef void forest_table(const Forest* f, const uint8_t* codes, int n, const double* coverage,
                       double* out) noexcept nogil:
    """out (N*N) = the mean over the trees of their normalised, coverage-divided tables G. Each focus
    adds its leaf's table into a grid padded by r on every side, so no cell needs a bounds check."""
    cdef int16_t sat[N_TYPES * MAX_SIDE * MAX_SIDE]
    cdef double grid[(MAX_SIZE + MAX_WINDOW) * (MAX_SIZE + MAX_WINDOW)]
    cdef double value[MAX_SIZE * MAX_SIZE]
    cdef int s = n + 2 * PAD + 1, w_p = f.w_p, r = (w_p - 1) // 2, g = n + 2 * r
    cdef int k, row, col, dr, dc, i, pos, base, w, field
    cdef const int32_t* rec
    cdef const float* table
    cdef double* cell
    cdef double total
    build_tables(codes, n, sat)
    for i in range(n * n):
        out[i] = 0.0
    for k in range(f.n_trees):
        for i in range(g * g):
            grid[i] = 0.0
        for row in range(n):
            for col in range(n):
                pos = (row + PAD) * s + col + PAD
                rec = f.nodes + NODE_FIELDS * f.roots[k]
                field = rec[1]
                while field != 0:
                    w = field & 0xFF
                    base = pos + rec[0]
                    if sat[base + w * s + w] - sat[base + w] - sat[base + w * s] + sat[base] >= (field >> 8):
                        rec = f.nodes + NODE_FIELDS * rec[2]
                    else:
                        rec = f.nodes + NODE_FIELDS * rec[3]
                    field = rec[1]
                table = f.tables + rec[0] * w_p * w_p
                cell = grid + row * g + col        # the window's corner: (row - r, col - r) shifted by r
                for dr in range(w_p):
                    for dc in range(w_p):
                        cell[dr * g + dc] += table[dr * w_p + dc]
        total = 0.0
        for row in range(n):
            for col in range(n):
                i = row * n + col
                value[i] = grid[(row + r) * g + col + r] / coverage[i]
                total += value[i]
        if total > 0:              # a tree whose leaves put every mass on null has no say
            for i in range(n * n):
                out[i] += value[i] / total
    for i in range(n * n):
        out[i] /= f.n_trees


cdef Forest pack(const int32_t[:, ::1] nodes, const float[:, ::1] tables, const int32_t[::1] roots,
                 int w_p) except *:
    """Pointers into the packed forest's arrays, which the caller keeps alive."""
    cdef Forest f
    if roots.shape[0] == 0 or nodes.shape[1] != NODE_FIELDS or tables.shape[1] != w_p * w_p:
        raise ValueError("a forest needs a tree, packed nodes and w_p x w_p leaf tables")
    f.nodes, f.tables, f.roots = &nodes[0, 0], &tables[0, 0], &roots[0]
    f.n_trees, f.w_p = roots.shape[0], w_p
    return f


def forest_on_board(Board board, int color, tuple forest, int w_p, const double[::1] coverage, double[::1] out):
    """The table (N*N, before any legal-move mask) of `forest`, (nodes packed for this board size,
    tables, roots) from a forest checked by `model.check_forest`, for `color` to move."""
    cdef int n = board.s.size
    cdef uint8_t codes[MAX_SIZE * MAX_SIZE]
    cdef Forest f = pack(forest[0], forest[1], forest[2], w_p)
    if color != BLACK and color != WHITE:
        raise ValueError(f"color must be BLACK (1) or WHITE (2), got {color}")
    if out.shape[0] != n * n or coverage.shape[0] != n * n:
        raise ValueError("forest_on_board: out and coverage need N*N cells")
    with nogil:
        board_codes(&board.s, <uint8_t>color, codes)
        forest_table(&f, codes, n, &coverage[0], &out[0])


def forest_on_codes(const uint8_t[:, ::1] codes, int size, tuple forest, int w_p, const double[::1] coverage,
                    double[:, ::1] out):
    """out[i] = the forest's table of the position whose cell codes are codes[i] (for batch scoring)."""
    cdef Forest f = pack(forest[0], forest[1], forest[2], w_p)
    cdef int i
    if size > MAX_SIZE or codes.shape[1] != size * size or out.shape[1] != size * size \
            or out.shape[0] != codes.shape[0] or coverage.shape[0] != size * size:
        raise ValueError("forest_on_codes: inconsistent shapes")
    with nogil:
        for i in range(codes.shape[0]):
            forest_table(&f, &codes[i, 0], size, &coverage[0], &out[i, 0])
