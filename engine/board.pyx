# engine/board.pyx: the rules of Go on a padded 1-D board (contract and layout in board.pxd).
#
# Every state change goes through place_stone / remove_stone (colour, neighbour counts, 3x3 codes,
# free list, hash), and groups keep at most MAX_LIBS liberties. The invariant on a group's liberty list,
# checked by Board.check():
#   - libs[0 .. n_libs-1] are distinct real liberties of the group, the other slots are 0, n_libs <= MAX_LIBS;
#   - if the group has at most LIBS_EXACT liberties, n_libs is exactly that number;
#   - otherwise LIBS_EXACT < n_libs <= min(true count, MAX_LIBS).
# It holds because a list is refilled by a rescan whenever a removal brings it down to LIBS_EXACT, and a
# union of lists (a merge) that is not exact already holds more than LIBS_EXACT distinct liberties.
#
# Simple ko: ko_point forbids the colour just captured (the opponent of the stone on last_move) from
# retaking at once; with alternating moves that is b.to_play. Suicide, of one stone or of many, is
# illegal. The hash is Zobrist over the stones plus a constant, so no position hashes to 0 (which marks
# unused hash_ring slots).
from engine.rng cimport splitmix64
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy, memset

import numpy as np

# --- Zobrist keys: 64-bit, from splitmix64 with a fixed seed, so hashes are reproducible across runs ---

cdef uint64_t ZOBRIST[MAX_POINTS][3]     # [point][color], colours BLACK and WHITE used
cdef uint64_t ZOBRIST_BASE               # hash of the empty board (non-zero: 0 marks unused ring slots)




cdef void init_zobrist() noexcept nogil:
    global ZOBRIST_BASE
    cdef uint64_t state = 0x7E5D71ULL
    cdef int p, c
    for p in range(MAX_POINTS):
        ZOBRIST[p][0] = 0
        for c in range(1, 3):
            ZOBRIST[p][c] = splitmix64(&state)
    ZOBRIST_BASE = splitmix64(&state)


init_zobrist()

# --- small helpers ---

cdef inline void nbrs8(int stride, int* d) noexcept nogil:
    # pat3 reading order: from the top left (row + 1, col - 1) to the bottom right (row - 1, col + 1)
    d[0] = stride - 1
    d[1] = stride
    d[2] = stride + 1
    d[3] = -1
    d[4] = 1
    d[5] = -stride - 1
    d[6] = -stride
    d[7] = -stride + 1


cdef inline bint has_lib(const Group* g, point_t p) noexcept nogil:
    cdef int i
    for i in range(MAX_LIBS):   # all slots: unused ones are 0 and p is never 0
        if g.libs[i] == p:
            return True
    return False


cdef inline void add_lib(Group* g, point_t p) noexcept nogil:
    if g.n_libs < MAX_LIBS and not has_lib(g, p):
        g.libs[g.n_libs] = p
        g.n_libs += 1


cdef void refill_libs(BoardState* b, point_t gid) noexcept nogil:
    """Rescan the group's stones and store its liberties (up to MAX_LIBS)."""
    cdef Group* g = &b.groups[gid]
    cdef int d[4]
    cdef int k
    cdef point_t s = gid, n
    nbrs4(b.stride, d)
    memset(g.libs, 0, sizeof(g.libs))
    g.n_libs = 0
    while s != 0:
        for k in range(4):
            n = s + d[k]
            if b.color[n] == EMPTY:
                add_lib(g, n)
                if g.n_libs == MAX_LIBS:
                    return
        s = b.next_stone[s]


cdef inline void remove_lib(BoardState* b, point_t gid, point_t p) noexcept nogil:
    cdef Group* g = &b.groups[gid]
    cdef int i
    for i in range(MAX_LIBS):
        if g.libs[i] == p:
            g.n_libs -= 1
            g.libs[i] = g.libs[g.n_libs]
            g.libs[g.n_libs] = 0
            if g.n_libs == LIBS_EXACT:
                refill_libs(b, gid)
            return


cdef inline void place_stone(BoardState* b, point_t p, color_t c) noexcept nogil:
    """Put a stone on p: colour, hash, free list, neighbour counts and 3x3 codes (no groups)."""
    cdef int d[8]
    cdef int k, i
    cdef point_t last
    b.color[p] = c
    b.hash ^= ZOBRIST[p][c]
    i = b.free_index[p]
    b.n_free -= 1
    last = b.free_pts[b.n_free]
    b.free_pts[i] = last
    b.free_index[last] = i
    b.free_index[p] = -1
    nbrs4(b.stride, d)
    for k in range(4):
        b.n_nbr[p + d[k]][EMPTY] -= 1
        b.n_nbr[p + d[k]][c] += 1
    nbrs8(b.stride, d)
    for k in range(8):   # p is the (7 - k)-th neighbour of p + d[k]
        b.pat3[p + d[k]] |= <uint16_t>(c << (2 * (7 - k)))


cdef inline void remove_stone(BoardState* b, point_t p) noexcept nogil:
    """Take the stone off p (the inverse of place_stone; groups are the caller's business)."""
    cdef int d[8]
    cdef int k
    cdef color_t c = b.color[p]
    b.color[p] = EMPTY
    b.hash ^= ZOBRIST[p][c]
    b.free_index[p] = b.n_free
    b.free_pts[b.n_free] = p
    b.n_free += 1
    nbrs4(b.stride, d)
    for k in range(4):
        b.n_nbr[p + d[k]][EMPTY] += 1
        b.n_nbr[p + d[k]][c] -= 1
    nbrs8(b.stride, d)
    for k in range(8):
        b.pat3[p + d[k]] &= <uint16_t>~(3 << (2 * (7 - k)))


cdef int remove_group(BoardState* b, point_t gid) noexcept nogil:
    """Capture a whole group; its points become liberties of the neighbouring groups. Returns its size."""
    cdef int d[4]
    cdef int k, n = 0
    cdef point_t s = gid, nxt, q, g
    nbrs4(b.stride, d)
    while s != 0:
        nxt = b.next_stone[s]
        remove_stone(b, s)
        b.group[s] = 0
        b.next_stone[s] = 0
        for k in range(4):
            q = s + d[k]
            g = b.group[q]
            if g != 0 and g != gid:
                add_lib(&b.groups[g], s)
        n += 1
        s = nxt
    memset(&b.groups[gid], 0, sizeof(Group))
    return n


cdef point_t merge_groups(BoardState* b, point_t ga, point_t gb) noexcept nogil:
    """Merge two groups of one colour; the larger keeps its id. Returns the id kept."""
    cdef point_t keep = ga, gone = gb, s, last = 0
    cdef int i
    if b.groups[gb].n_stones > b.groups[ga].n_stones:
        keep = gb
        gone = ga
    s = gone
    while s != 0:
        b.group[s] = keep
        last = s
        s = b.next_stone[s]
    b.next_stone[last] = b.next_stone[keep]    # splice the absorbed list in after the head
    b.next_stone[keep] = gone
    b.groups[keep].n_stones += b.groups[gone].n_stones
    for i in range(b.groups[gone].n_libs):
        add_lib(&b.groups[keep], b.groups[gone].libs[i])
    memset(&b.groups[gone], 0, sizeof(Group))
    return keep


cdef inline void push_hash(BoardState* b) noexcept nogil:
    b.hash_ring[b.hash_pos] = b.hash
    b.hash_pos = (b.hash_pos + 1) % HASH_RING


# --- setup ---

cdef void init(BoardState* b, int size, float komi) noexcept nogil:
    cdef int row, col
    memset(b, 0, sizeof(BoardState))
    b.size = size
    b.stride = size + 2
    b.komi = komi
    b.to_play = BLACK
    for row in range(MAX_POINTS):
        b.color[row] = EDGE
    for row in range(size):
        for col in range(size):
            b.color[point_at(b, row, col)] = EMPTY
    rebuild(b)


cdef void rebuild(BoardState* b) noexcept nogil:
    cdef int n_cells = b.stride * b.stride
    cdef int d4[4]
    cdef int d8[8]
    cdef int row, col, k, top
    cdef point_t p, q, s, tail
    cdef color_t c
    cdef point_t stack[MAX_POINTS]
    nbrs4(b.stride, d4)
    nbrs8(b.stride, d8)
    memset(b.n_nbr, 0, sizeof(b.n_nbr))
    memset(b.pat3, 0, sizeof(b.pat3))
    memset(b.group, 0, sizeof(b.group))
    memset(b.next_stone, 0, sizeof(b.next_stone))
    memset(b.groups, 0, sizeof(b.groups))
    memset(b.free_pts, 0, sizeof(b.free_pts))
    for p in range(MAX_POINTS):
        b.free_index[p] = -1
    b.n_free = 0
    b.hash = ZOBRIST_BASE
    for row in range(b.size):
        for col in range(b.size):
            p = point_at(b, row, col)
            c = b.color[p]
            for k in range(4):
                b.n_nbr[p][b.color[p + d4[k]]] += 1
            for k in range(8):
                b.pat3[p] |= <uint16_t>(b.color[p + d8[k]] << (2 * k))
            if c == EMPTY:
                b.free_index[p] = b.n_free
                b.free_pts[b.n_free] = p
                b.n_free += 1
            else:
                b.hash ^= ZOBRIST[p][c]
    # groups: flood each unlabelled stone; the flood's origin is the id, stones are listed in flood order
    for row in range(b.size):
        for col in range(b.size):
            p = point_at(b, row, col)
            c = b.color[p]
            if c == EMPTY or b.group[p] != 0:
                continue
            b.group[p] = p
            b.groups[p].n_stones = 1
            tail = p
            stack[0] = p
            top = 1
            while top > 0:
                top -= 1
                s = stack[top]
                for k in range(4):
                    q = s + d4[k]
                    if b.color[q] == c and b.group[q] == 0:
                        b.group[q] = p
                        b.next_stone[tail] = q
                        tail = q
                        b.groups[p].n_stones += 1
                        stack[top] = q
                        top += 1
            refill_libs(b, p)
    b.ko_point = NO_POINT
    memset(b.hash_ring, 0, sizeof(b.hash_ring))
    b.hash_pos = 0
    push_hash(b)       # the set-up position counts as an earlier position for is_repetition


# --- queries ---

cdef bint is_eyelike(const BoardState* b, point_t p, color_t c) noexcept nogil:
    return b.color[p] == EMPTY and b.n_nbr[p][c] + b.n_nbr[p][EDGE] == 4


cdef bint is_false_eye(const BoardState* b, point_t p, color_t c) noexcept nogil:
    cdef int s = b.stride
    cdef int n_opp = 0
    cdef bint edge = False
    cdef color_t o = 3 - c, x
    cdef point_t q
    cdef int d[4]
    cdef int k
    d[0] = -s - 1
    d[1] = -s + 1
    d[2] = s - 1
    d[3] = s + 1
    for k in range(4):
        x = b.color[p + d[k]]
        if x == o:
            n_opp += 1
        elif x == EDGE:
            edge = True
    return n_opp + edge >= 2


cdef bint is_one_point_eye(const BoardState* b, point_t p, color_t c) noexcept nogil:
    return is_eyelike(b, p, c) and not is_false_eye(b, p, c)


cdef bint is_legal(const BoardState* b, point_t p, color_t c) noexcept nogil:
    cdef int d[4]
    cdef int k
    cdef point_t n
    cdef color_t x
    if p < 0:
        return p == PASS
    if b.color[p] != EMPTY:
        return False
    if b.n_nbr[p][EMPTY] > 0:
        return True      # the ko point never has an empty neighbour
    if p == b.ko_point and c != b.color[b.last_move]:
        return False     # the stone just captured may not retake at once
    nbrs4(b.stride, d)
    for k in range(4):
        n = p + d[k]
        x = b.color[n]
        if x == c:
            if b.groups[b.group[n]].n_libs > 1:
                return True      # joins a group that keeps another liberty
        elif x == 3 - c:
            if b.groups[b.group[n]].n_libs == 1:
                return True      # captures
    return False


cdef int neighbour_groups(const BoardState* b, point_t p, color_t c, point_t* own, int* n_own,
                          point_t* caught, int* n_caught) noexcept nogil:
    """Distinct own groups next to p, and distinct enemy groups in atari next to p (captured by c at p).
    Returns the number of empty neighbours."""
    cdef int d[4]
    cdef int k, n_empty = 0
    cdef point_t n, g
    cdef color_t x
    nbrs4(b.stride, d)
    n_own[0] = 0
    n_caught[0] = 0
    for k in range(4):
        n = p + d[k]
        x = b.color[n]
        if x == EMPTY:
            n_empty += 1
        elif x == c:
            g = b.group[n]
            if not in_list(own, n_own[0], g):
                own[n_own[0]] = g
                n_own[0] += 1
        elif x == 3 - c:
            g = b.group[n]
            if b.groups[g].n_libs == 1 and not in_list(caught, n_caught[0], g):
                caught[n_caught[0]] = g
                n_caught[0] += 1
    return n_empty


cdef int libs_after(const BoardState* b, point_t p, color_t c, int limit) noexcept nogil:
    # Union of: p's empty neighbours, the own neighbour groups' liberties other than p, and the stones
    # of captured groups that touch p or those own groups. Stored lists are exact up to LIBS_EXACT; a
    # longer one may be partial, so its group is rescanned only if the count is still below limit.
    cdef point_t found[MAX_POINTS]
    cdef point_t own[4]
    cdef point_t caught[4]
    cdef int n_own, n_caught, n = 0, i, j, k
    cdef int d[4]
    cdef point_t q, s, x, g
    cdef const Group* gr
    if p < 0 or b.color[p] != EMPTY:
        return 0
    nbrs4(b.stride, d)
    neighbour_groups(b, p, c, own, &n_own, caught, &n_caught)
    for k in range(4):
        q = p + d[k]
        if b.color[q] == EMPTY:
            found[n] = q
            n += 1
    if n >= limit:
        return limit
    for i in range(n_own):
        gr = &b.groups[own[i]]
        for j in range(gr.n_libs):
            q = gr.libs[j]
            if q != p and not in_list(found, n, q):
                found[n] = q
                n += 1
                if n >= limit:
                    return limit
    for i in range(n_caught):
        s = caught[i]
        while s != 0:
            for k in range(4):
                x = s + d[k]
                if x == p or (b.color[x] == c and in_list(own, n_own, b.group[x])):
                    found[n] = s      # captured stones are distinct and were not liberties before
                    n += 1
                    if n >= limit:
                        return limit
                    break
            s = b.next_stone[s]
    for i in range(n_own):
        g = own[i]
        if b.groups[g].n_libs <= LIBS_EXACT:
            continue
        s = g
        while s != 0:
            for k in range(4):
                q = s + d[k]
                if b.color[q] == EMPTY and q != p and not in_list(found, n, q):
                    found[n] = q
                    n += 1
                    if n >= limit:
                        return limit
            s = b.next_stone[s]
    return n


cdef int self_atari_size(const BoardState* b, point_t p, color_t c) noexcept nogil:
    cdef point_t own[4]
    cdef point_t caught[4]
    cdef int n_own, n_caught, i, size
    if p < 0 or b.color[p] != EMPTY or b.n_nbr[p][EMPTY] >= 2:
        return 0          # two empty neighbours stay liberties
    if libs_after(b, p, c, 2) != 1:
        return 0
    neighbour_groups(b, p, c, own, &n_own, caught, &n_caught)
    size = 1
    for i in range(n_own):
        size += b.groups[own[i]].n_stones
    return size


cdef uint64_t hash_after(const BoardState* b, point_t p, color_t c) noexcept nogil:
    cdef point_t own[4]
    cdef point_t caught[4]
    cdef int n_own, n_caught, i
    cdef point_t s
    cdef color_t o = 3 - c
    cdef uint64_t h = b.hash
    if p < 0:
        return h
    h ^= ZOBRIST[p][c]
    neighbour_groups(b, p, c, own, &n_own, caught, &n_caught)
    for i in range(n_caught):
        s = caught[i]
        while s != 0:
            h ^= ZOBRIST[s][o]
            s = b.next_stone[s]
    return h


cdef bint is_repetition(const BoardState* b) noexcept nogil:
    cdef int latest = (b.hash_pos + HASH_RING - 1) % HASH_RING
    cdef int i
    for i in range(HASH_RING):
        if i != latest and b.hash_ring[i] == b.hash:
            return True
    return False


cdef int exact_libs(const BoardState* b, point_t g) noexcept nogil:
    cdef uint8_t seen[MAX_POINTS]
    cdef int d[4]
    cdef int k, n = 0
    cdef point_t s, q
    if g <= 0 or b.color[g] == EMPTY or b.color[g] == EDGE:
        return 0
    memset(seen, 0, sizeof(seen))
    nbrs4(b.stride, d)
    s = b.group[g]
    while s != 0:
        for k in range(4):
            q = s + d[k]
            if b.color[q] == EMPTY and not seen[q]:
                seen[q] = 1
                n += 1
        s = b.next_stone[s]
    return n


# --- changes ---

cdef int play(BoardState* b, point_t p, color_t c) noexcept nogil:
    cdef int d[4]
    cdef int k, n_captured = 0, n
    cdef point_t q, g, gid = 0, captured_at = 0
    cdef color_t o = 3 - c
    b.last_move2 = b.last_move
    b.last_move = p
    b.move_number += 1
    b.to_play = o
    b.ko_point = NO_POINT
    if p < 0:
        b.n_passes += 1
        return 0
    b.n_passes = 0
    place_stone(b, p, c)
    nbrs4(b.stride, d)
    for k in range(4):       # p is no longer a liberty of any neighbour group
        g = b.group[p + d[k]]
        if g != 0:
            remove_lib(b, g, p)
    for k in range(4):       # join the first own neighbour group, merge any others into it
        q = p + d[k]
        if b.color[q] != c:
            continue
        g = b.group[q]
        if gid == 0:
            gid = g
            b.group[p] = g
            b.next_stone[p] = b.next_stone[g]
            b.next_stone[g] = p
            b.groups[g].n_stones += 1
        elif g != gid:
            gid = merge_groups(b, gid, g)
    if gid == 0:
        gid = p
        b.group[p] = p
        b.next_stone[p] = 0
        b.groups[p].n_stones = 1
    for k in range(4):
        q = p + d[k]
        if b.color[q] == EMPTY:
            add_lib(&b.groups[gid], q)
    for k in range(4):
        q = p + d[k]
        if b.color[q] == o and b.groups[b.group[q]].n_libs == 0:
            n = remove_group(b, b.group[q])
            n_captured += n
            captured_at = q
    if n_captured == 0 and b.groups[gid].n_libs == 0:
        # suicide: is_legal refuses it, but a caller that skipped the check still gets a consistent board
        b.captures[o] += remove_group(b, gid)
    elif n_captured == 1 and b.groups[gid].n_stones == 1 and b.groups[gid].n_libs == 1:
        b.ko_point = captured_at
    b.captures[c] += n_captured
    push_hash(b)
    return n_captured


cdef int play_checked(BoardState* b, point_t p, color_t c) noexcept nogil:
    if not is_legal(b, p, c):
        return -1
    return play(b, p, c)


# --- scoring ---

cdef color_t owner(const BoardState* b, point_t p) noexcept nogil:
    cdef color_t x = b.color[p]
    if x != EMPTY:
        return x
    if b.n_nbr[p][BLACK] + b.n_nbr[p][EDGE] == 4:
        return BLACK
    if b.n_nbr[p][WHITE] + b.n_nbr[p][EDGE] == 4:
        return WHITE
    return EMPTY


cdef float playout_score(const BoardState* b) noexcept nogil:
    cdef int counts[4]
    cdef int row, col
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    for row in range(b.size):
        for col in range(b.size):
            counts[owner(b, point_at(b, row, col))] += 1
    return <float>(counts[BLACK] - counts[WHITE]) - b.komi


cdef void area_owner(const BoardState* b, uint8_t* out) noexcept nogil:
    cdef point_t stack[MAX_POINTS]
    cdef point_t region[MAX_POINTS]
    cdef uint8_t seen[MAX_POINTS]
    cdef int d[4]
    cdef int row, col, k, top, n, i, borders
    cdef point_t p, s, q
    cdef color_t x, o
    nbrs4(b.stride, d)
    memset(seen, 0, sizeof(seen))
    memset(out, 0, MAX_POINTS)
    for row in range(b.size):
        for col in range(b.size):
            p = point_at(b, row, col)
            x = b.color[p]
            if x != EMPTY:
                out[p] = x
                continue
            if seen[p]:
                continue
            seen[p] = 1
            stack[0] = p
            top = 1
            n = 0
            borders = 0       # bit BLACK, bit WHITE
            while top > 0:
                top -= 1
                s = stack[top]
                region[n] = s
                n += 1
                for k in range(4):
                    q = s + d[k]
                    x = b.color[q]
                    if x == EMPTY:
                        if not seen[q]:
                            seen[q] = 1
                            stack[top] = q
                            top += 1
                    elif x != EDGE:
                        borders |= x
            o = EMPTY
            if borders == BLACK or borders == WHITE:
                o = <color_t>borders
            for i in range(n):
                out[region[i]] = o


cdef float area_score(const BoardState* b) noexcept nogil:
    cdef uint8_t own[MAX_POINTS]
    cdef int counts[4]
    cdef int row, col
    area_owner(b, own)
    counts[0] = counts[1] = counts[2] = counts[3] = 0
    for row in range(b.size):
        for col in range(b.size):
            counts[own[point_at(b, row, col)]] += 1
    return <float>(counts[BLACK] - counts[WHITE]) - b.komi


# --- the Python API ---

globals().update(EMPTY=EMPTY, BLACK=BLACK, WHITE=WHITE, EDGE=EDGE, PASS=PASS, RESIGN=RESIGN,
                 MAX_SIZE=MAX_SIZE)

from engine.coords import COLUMNS   # vertex letters: A..Z without I
def _check_state_layout() -> None:
    """copy_state (board.pxd) knows BoardState's per-point arrays: they must run from `color` to
    `free_index`, in this order, with nothing but alignment padding between them, and `n_free` next."""
    cdef BoardState s
    cdef size_t base = <size_t>&s
    fields = [(<size_t>&s.color[0] - base, sizeof(s.color)), (<size_t>&s.n_nbr[0] - base, sizeof(s.n_nbr)),
              (<size_t>&s.pat3[0] - base, sizeof(s.pat3)), (<size_t>&s.group[0] - base, sizeof(s.group)),
              (<size_t>&s.next_stone[0] - base, sizeof(s.next_stone)),
              (<size_t>&s.groups[0] - base, sizeof(s.groups)), (<size_t>&s.free_pts[0] - base, sizeof(s.free_pts)),
              (<size_t>&s.free_index[0] - base, sizeof(s.free_index)), (<size_t>&s.n_free - base, 0)]
    for (off, size), (nxt, _) in zip(fields, fields[1:]):
        if not 0 <= nxt - (off + size) < 4:
            raise ImportError("engine.board.BoardState changed: update copy_state in engine/board.pxd")


_check_state_layout()


_SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_FROM_SYMBOL = {"X": BLACK, "O": WHITE, ".": EMPTY, "+": EMPTY}


class IllegalMove(ValueError):
    """A move the rules forbid; `reason` is "occupied", "suicide", "ko" or "off board"."""

    def __init__(self, reason: str, point: int | None = None):
        super().__init__(reason if point is None else f"{reason} (point {point})")
        self.reason = reason
        self.point = point


# The hints are for readers: without this, Cython turns `x: int` into a C long and silently truncates 2.5.
@cython.annotation_typing(False)
cdef class Board:
    """A Go position with the incremental structures of board.pxd; the Python face of BoardState."""

    def __init__(self, size: int = 19, komi: float = 7.5):
        size = _as_int(size, "size")
        if not 2 <= size <= MAX_SIZE:
            raise ValueError(f"board size must be 2..{MAX_SIZE}, got {size}")
        init(&self.s, size, float(komi))

    # --- properties ---
    @property
    def size(self) -> int:
        return self.s.size

    @property
    def komi(self) -> float:
        return self.s.komi

    @komi.setter
    def komi(self, value: float) -> None:
        self.s.komi = float(value)

    @property
    def to_play(self) -> int:
        return self.s.to_play

    @to_play.setter
    def to_play(self, value: int) -> None:
        self.s.to_play = _color(self, value)

    @property
    def ko_point(self) -> int:
        return self.s.ko_point

    @property
    def last_move(self) -> int:
        return self.s.last_move

    @property
    def move_number(self) -> int:
        return self.s.move_number

    @property
    def hash(self) -> int:
        return self.s.hash

    @property
    def captures(self) -> tuple:
        return (self.s.captures[BLACK], self.s.captures[WHITE])

    # --- coordinates ---
    def point(self, row: int, col: int) -> int:
        row = _as_int(row, "row")
        col = _as_int(col, "col")
        if not (0 <= row < self.s.size and 0 <= col < self.s.size):
            raise ValueError(f"({row}, {col}) is off the {self.s.size}x{self.s.size} board")
        return point_at(&self.s, row, col)

    def coords(self, point: int) -> tuple:
        p = _on_board(self, point)
        return (p // self.s.stride - 1, p % self.s.stride - 1)

    def points(self) -> list:
        n = self.s.size
        return [point_at(&self.s, r, c) for r in range(n) for c in range(n)]

    # --- stones ---
    def color_at(self, point: int) -> int:
        p = _as_int(point, "point")
        if not 0 <= p < self.s.stride * self.s.stride:
            raise ValueError(f"point {p} is outside the {self.s.size}x{self.s.size} board array")
        return self.s.color[p]

    def stones(self):
        cdef int n = self.s.size, r, c
        out = np.zeros((n, n), dtype=np.int8)
        cdef signed char[:, :] v = out
        for r in range(n):
            for c in range(n):
                v[r, c] = self.s.color[point_at(&self.s, r, c)]
        return out

    # --- moves ---
    def play(self, point: int, color: int | None = None) -> int:
        cdef color_t c = _color(self, color)
        p = _as_int(point, "point")
        if p == PASS:
            play(&self.s, PASS, c)
            return 0
        reason = self._illegal_reason(p, c)
        if reason is not None:
            raise IllegalMove(reason, p)
        return play(&self.s, <point_t>p, c)

    def _illegal_reason(self, p: int, c: int):
        if p == RESIGN:
            return "resign is not a board move"
        if not (0 < p < self.s.stride * self.s.stride) or self.s.color[p] == EDGE:
            return "off board"
        if self.s.color[p] != EMPTY:
            return "occupied"
        if is_legal(&self.s, <point_t>p, <color_t>c):
            return None
        if p == self.s.ko_point and c != self.s.color[self.s.last_move]:
            return "ko"
        return "suicide"

    def is_legal(self, point: int, color: int | None = None) -> bool:
        cdef color_t c = _color(self, color)
        p = _as_int(point, "point")
        if p == PASS:
            return True
        return self._illegal_reason(p, c) is None

    def legal_points(self, color: int | None = None, *, exclude_eyes: bool = False):
        cdef color_t c = _color(self, color)
        cdef int n = self.s.size, r, col
        cdef point_t p
        cdef bint eyes = exclude_eyes
        out = np.zeros(n * n, dtype=bool)
        cdef uint8_t[:] v = out.view(np.uint8)
        for r in range(n):
            for col in range(n):
                p = point_at(&self.s, r, col)
                v[r * n + col] = is_legal(&self.s, p, c) and not (eyes and is_one_point_eye(&self.s, p, c))
        return out

    def hash_after(self, point: int, color: int | None = None) -> int:
        cdef color_t c = _color(self, color)
        p = _as_int(point, "point")
        if p == PASS:
            return self.s.hash
        reason = self._illegal_reason(p, c)
        if reason is not None:
            raise IllegalMove(reason, p)
        return hash_after(&self.s, <point_t>p, c)

    # --- groups and local shape ---
    def group_stones(self, point: int) -> list:
        cdef point_t p = _on_board(self, point)
        out = []
        if self.s.color[p] == EMPTY:
            return out
        cdef point_t s = self.s.group[p]
        while s != 0:
            out.append(s)
            s = self.s.next_stone[s]
        return sorted(out)

    def liberties(self, point: int) -> int:
        return exact_libs(&self.s, _on_board(self, point))

    def is_eye(self, point: int, color: int) -> bool:
        cdef point_t p = _on_board(self, point)
        return is_one_point_eye(&self.s, p, _color(self, color))

    def self_atari_size(self, point: int, color: int) -> int:
        cdef point_t p = _on_board(self, point)
        return self_atari_size(&self.s, p, _color(self, color))

    def libs_after(self, point: int, color: int, limit: int = MAX_POINTS) -> int:
        """Liberties of color's group if it played point (0 = suicide or occupied), counted up to limit."""
        cdef point_t p = _on_board(self, point)
        return libs_after(&self.s, p, _color(self, color), _as_int(limit, "limit"))

    def is_repetition(self) -> bool:
        """The position equals one of the last HASH_RING positions (or the set-up one) in the ring."""
        return is_repetition(&self.s)

    def pat3(self, point: int) -> int:
        return self.s.pat3[_on_board(self, point)]

    # --- setup, copies, scoring ---
    def setup(self, black=(), white=(), empty=()) -> None:
        changes = [(_on_board(self, p), c) for pts, c in ((black, BLACK), (white, WHITE), (empty, EMPTY))
                   for p in pts]
        for p, c in changes:
            self.s.color[p] = c
        rebuild(&self.s)

    def copy(self) -> Board:
        cdef Board b = Board.__new__(Board)
        b.s = self.s
        return b

    def __copy__(self) -> Board:
        return self.copy()

    def __deepcopy__(self, memo) -> Board:
        return self.copy()

    def score(self) -> float:
        return area_score(&self.s)

    def playout_score(self) -> float:
        """Stones plus eye-like points, black - white - komi (the end-of-playout count)."""
        return playout_score(&self.s)

    def owner_map(self):
        cdef uint8_t own[MAX_POINTS]
        cdef int n = self.s.size, r, c
        area_owner(&self.s, own)
        out = np.zeros((n, n), dtype=np.int8)
        cdef signed char[:, :] v = out
        for r in range(n):
            for c in range(n):
                v[r, c] = own[point_at(&self.s, r, c)]
        return out

    @classmethod
    def from_ascii(cls, text: str, komi: float = 7.5, to_play: int = BLACK) -> Board:
        rows = [line.replace(" ", "").replace("\t", "") for line in text.strip().splitlines()]
        rows = [r for r in rows if r]
        n = len(rows)
        for i, r in enumerate(rows):
            if len(r) != n:
                raise ValueError(f"row {i + 1} from the top has {len(r)} points, expected {n} (square board)")
            bad = set(r) - set(_FROM_SYMBOL)
            if bad:
                raise ValueError(f"unknown symbol(s) {''.join(sorted(bad))!r} in row {i + 1}; use X O . +")
        board = cls(n, komi)
        black, white = [], []
        for i, r in enumerate(rows):
            for col, ch in enumerate(r):
                c = _FROM_SYMBOL[ch]
                if c == BLACK:
                    black.append(board.point(n - 1 - i, col))
                elif c == WHITE:
                    white.append(board.point(n - 1 - i, col))
        board.setup(black, white)
        board.to_play = to_play
        return board

    def __str__(self) -> str:
        n = self.s.size
        letters = "   " + " ".join(COLUMNS[:n])
        lines = [letters]
        for r in range(n - 1, -1, -1):
            cells = " ".join(_SYMBOLS[self.s.color[point_at(&self.s, r, c)]] for c in range(n))
            lines.append(f"{r + 1:2d} {cells} {r + 1:d}")
        lines.append(letters)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Board {self.s.size}x{self.s.size} move {self.s.move_number}, {'BW'[self.s.to_play - 1]} to play>"

    def __reduce__(self):
        return (_board_from_state, (self.s.size, self.s.komi, bytes(self._state_bytes())))

    def _state_bytes(self):
        cdef const unsigned char* raw = <const unsigned char*>&self.s
        return raw[:sizeof(BoardState)]

    # --- consistency ---
    def check(self) -> None:
        """Recompute every incremental structure from color[] and raise AssertionError on a difference.

        Checks the edge ring, neighbour counts, 3x3 codes, free list and index, hash, that the ko point is
        empty, and for every group: its id is one of its stones, every stone carries it, the stone list
        holds exactly the group, n_stones, and the liberty invariant at the top of this file (stored
        liberties distinct and real, unused slots 0, n_libs exact up to LIBS_EXACT, else above it).
        """
        cdef BoardState* b = &self.s
        cdef int n = b.size, stride = b.stride
        cdef int d8[8]
        nbrs8(stride, d8)
        d4 = (-1, 1, -stride, stride)
        on_board = set(self.points())
        for p in range(stride * stride):
            if p not in on_board:
                _expect(b.color[p] == EDGE, f"cell {p} off the board is {b.color[p]}, not EDGE")
            else:
                _expect(b.color[p] in (EMPTY, BLACK, WHITE), f"point {p} has color {b.color[p]}")
        empties = set()
        hash_ = ZOBRIST_BASE
        for p in on_board:
            counts = [0, 0, 0, 0]
            for dd in d4:
                counts[b.color[p + dd]] += 1
            got = [b.n_nbr[p][k] for k in range(4)]
            _expect(got == counts, f"n_nbr at {self._name(p)} is {got}, expected {counts}")
            code = sum(b.color[p + d8[k]] << (2 * k) for k in range(8))
            _expect(b.pat3[p] == code, f"pat3 at {self._name(p)} is {b.pat3[p]:#06x}, expected {code:#06x}")
            if b.color[p] == EMPTY:
                empties.add(p)
                _expect(b.group[p] == 0, f"empty {self._name(p)} has group {b.group[p]}")
            else:
                hash_ ^= ZOBRIST[p][b.color[p]]
        _expect(b.hash == hash_, f"hash is {b.hash:#x}, expected {hash_:#x}")
        _expect(b.n_free == len(empties), f"n_free is {b.n_free}, expected {len(empties)}")
        listed = [b.free_pts[i] for i in range(b.n_free)]
        _expect(set(listed) == empties and len(listed) == len(empties),
                f"free list {sorted(listed)} differs from the empty points {sorted(empties)}")
        for p in on_board:
            want = listed.index(p) if p in empties else -1
            _expect(b.free_index[p] == want, f"free_index at {self._name(p)} is {b.free_index[p]}, expected {want}")
        seen = set()
        for p in on_board:
            if b.color[p] == EMPTY or p in seen:
                continue
            self._check_group(p, d4, seen)
        if b.ko_point != NO_POINT:
            _expect(b.ko_point in empties, f"ko point {b.ko_point} is not an empty point")

    def _check_group(self, p: int, d4: tuple, seen: set) -> None:
        cdef BoardState* b = &self.s
        cdef Group* g
        c = b.color[p]
        stones, libs, todo = {p}, set(), [p]
        while todo:
            s = todo.pop()
            for dd in d4:
                q = s + dd
                if b.color[q] == c and q not in stones:
                    stones.add(q)
                    todo.append(q)
                elif b.color[q] == EMPTY:
                    libs.add(q)
        seen |= stones
        where = f"group at {self._name(p)}"
        gid = b.group[p]
        _expect(gid in stones, f"{where}: id {gid} is not one of its stones")
        for s in stones:
            _expect(b.group[s] == gid, f"{where}: stone {self._name(s)} has id {b.group[s]}, expected {gid}")
        walk, s = [], gid
        while s != 0 and len(walk) <= len(stones):
            walk.append(s)
            s = b.next_stone[s]
        _expect(len(walk) == len(stones) and set(walk) == stones,
                f"{where}: stone list {sorted(walk)} differs from {sorted(stones)}")
        g = &b.groups[<int>gid]
        _expect(g.n_stones == len(stones), f"{where}: n_stones {g.n_stones}, expected {len(stones)}")
        stored = [g.libs[i] for i in range(MAX_LIBS)]
        k = g.n_libs
        _expect(0 <= k <= MAX_LIBS, f"{where}: n_libs {k} outside 0..{MAX_LIBS}")
        used = stored[:k]
        _expect(all(x == 0 for x in stored[k:]), f"{where}: unused liberty slots not 0: {stored}")
        _expect(len(set(used)) == k and set(used) <= libs,
                f"{where}: stored liberties {used} are not distinct real liberties {sorted(libs)}")
        if len(libs) <= LIBS_EXACT:
            _expect(k == len(libs), f"{where}: n_libs {k}, expected exactly {len(libs)}")
        else:
            _expect(k > LIBS_EXACT, f"{where}: n_libs {k} <= {LIBS_EXACT} with {len(libs)} real liberties")

    def _name(self, p: int) -> str:
        if self.s.color[p] == EDGE:
            return f"edge {p}"
        r, c = self.coords(p)
        return f"{COLUMNS[c]}{r + 1}"


cdef int _on_board(Board self, object point) except -1:
    """The point as an int after checking it is on the board (ValueError otherwise)."""
    p = _as_int(point, "point")
    if not (0 < p < self.s.stride * self.s.stride) or self.s.color[p] == EDGE:
        raise ValueError(f"point {p} is not on the {self.s.size}x{self.s.size} board")
    return p


cdef int _color(Board self, object color) except -1:
    """BLACK or WHITE; None means the side to move."""
    if color is None:
        return self.s.to_play
    c = _as_int(color, "color")
    if c != BLACK and c != WHITE:
        raise ValueError(f"color must be BLACK (1) or WHITE (2), got {c}")
    return c


def _board_from_state(size, komi, state):
    cdef Board b = Board(size, komi)
    cdef const unsigned char[:] raw = state
    if raw.shape[0] != sizeof(BoardState):
        raise ValueError("board state of the wrong size")
    memcpy(&b.s, &raw[0], sizeof(BoardState))
    return b


def _expect(ok, message: str) -> None:
    if not ok:
        raise AssertionError(message)


def _as_int(value, name: str) -> int:
    try:
        return int(value.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
