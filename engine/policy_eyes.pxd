# engine/policy_eyes.pxd: small eye spaces for the playout policy (nakade vital points and dead shapes).
#
# An eye space here is at most MAX_EYE_SPACE points, 4-connected. Its vital point is its one cut point:
# the point whose removal splits the rest. The owner playing there makes two eyes; the opponent playing
# there leaves one. A space with two or more cut points has miai (straight or bent four live), one with
# none is a square four (dead) or a rectangular six (alive). So a space of up to six points is a dead
# shape (nakade: one eye whoever moves first once the vital point is taken) when it has at most three
# points, exactly one cut point, or is the square four. That covers the straight and bent three, the
# pyramid four, the bulky and crossed five and the rabbity six. Every helper is inline: no call cost.
from engine cimport board
from engine.board cimport BoardState, point_t, color_t, EMPTY, BLACK, WHITE, NO_POINT

cdef enum:
    MAX_EYE_SPACE = 6


cdef inline bint is_adjacent(point_t p, point_t q, int stride) noexcept nogil:
    cdef int d = p - q
    return d == 1 or d == -1 or d == stride or d == -stride


cdef inline int n_parts(const point_t* pts, int n, int skip, int stride) noexcept nogil:
    """The 4-connected parts of pts[0..n) without pts[skip] (skip < 0 keeps every point); n <= 16."""
    cdef unsigned int seen = (1u << skip) if skip >= 0 else 0u
    cdef unsigned int frontier
    cdef int i, j, k, parts = 0
    for i in range(n):
        if (seen >> i) & 1:
            continue
        parts += 1
        seen |= 1u << i
        frontier = 1u << i
        while frontier:
            j = 0
            while not (frontier >> j) & 1:
                j += 1
            frontier &= ~(1u << j)
            for k in range(n):
                if not (seen >> k) & 1 and is_adjacent(pts[j], pts[k], stride):
                    seen |= 1u << k
                    frontier |= 1u << k
    return parts


cdef inline int cut_points(const point_t* pts, int n, int stride, point_t* first) noexcept nogil:
    """How many points of the connected pts[0..n) split the rest when removed; the first into *first."""
    cdef int v, count = 0
    first[0] = NO_POINT
    for v in range(n):
        if n_parts(pts, n, v, stride) > 1:
            if count == 0:
                first[0] = pts[v]
            count += 1
    return count


cdef inline bint is_square(const point_t* pts, int stride) noexcept nogil:
    """Four points forming a 2x2 block (each adjacent to exactly two others)."""
    cdef int i, k, deg
    for i in range(4):
        deg = 0
        for k in range(4):
            deg += is_adjacent(pts[i], pts[k], stride)
        if deg != 2:
            return False
    return True


cdef inline bint is_dead_shape(const point_t* pts, int n, int stride) noexcept nogil:
    """The connected space pts[0..n) gives its owner one eye at most once the opponent moves first."""
    cdef point_t v
    cdef int cuts
    if n <= 3:
        return True
    if n > MAX_EYE_SPACE:
        return False
    cuts = cut_points(pts, n, stride, &v)
    return cuts == 1 or (cuts == 0 and n == 4 and is_square(pts, stride))


cdef inline int eye_space(const BoardState* b, point_t start, point_t* pts, color_t* owner) noexcept nogil:
    """The empty region of start, when it has at most MAX_EYE_SPACE points and touches stones of one
    colour only: its points into pts (room for MAX_EYE_SPACE), that colour into *owner, the count
    returned. 0 for a larger region, one touching both colours or none."""
    cdef int d[4]
    cdef int i = 0, k, n = 1
    cdef point_t p, q
    cdef color_t x, own = EMPTY
    board.nbrs4(b.stride, d)
    pts[0] = start
    while i < n:
        p = pts[i]
        i += 1
        for k in range(4):
            q = p + d[k]
            x = b.color[q]
            if x == EMPTY:
                if not board.in_list(pts, n, q):
                    if n == MAX_EYE_SPACE:
                        return 0
                    pts[n] = q
                    n += 1
            elif x == BLACK or x == WHITE:
                if own == EMPTY:
                    own = x
                elif own != x:
                    return 0
    owner[0] = own
    return n if own != EMPTY else 0


cdef inline point_t vital_point(const BoardState* b, point_t start) noexcept nogil:
    """The vital point of the eye space of start when it has 3 to MAX_EYE_SPACE points and one cut
    point (a nakade shape the first player settles), else NO_POINT."""
    cdef point_t pts[MAX_EYE_SPACE]
    cdef point_t v
    cdef color_t owner
    cdef int n = eye_space(b, start, pts, &owner)
    if n < 3:
        return NO_POINT
    if cut_points(pts, n, b.stride, &v) != 1:
        return NO_POINT
    return v


cdef inline int stones_after(const BoardState* b, point_t p, color_t c, point_t* out, int room) noexcept nogil:
    """The stones of c's block after c plays p (p first) into out, up to room; room + 1 if more."""
    cdef int d[4]
    cdef int k, n = 1
    cdef point_t q, s
    board.nbrs4(b.stride, d)
    out[0] = p
    for k in range(4):
        q = p + d[k]
        if b.color[q] == c and not board.in_list(out, n, b.group[q]):
            s = b.group[q]
            if n + b.groups[s].n_stones > room:
                return room + 1
            while s != NO_POINT:
                out[n] = s
                n += 1
                s = b.next_stone[s]
    return n


cdef inline bint is_throw_in(const BoardState* b, point_t p, color_t c, point_t lib) noexcept nogil:
    """c's lone stone at p (one liberty, lib) takes a liberty of an opponent block that has at most two,
    and the opponent's capture at lib leaves the capturing block at most two liberties: the atari or
    the liberty fight goes on (a snapback when one)."""
    cdef point_t blocks[4]
    return (board.blocks_next_to(b, p, 3 - c, 2, blocks) + board.blocks_next_to(b, p, 3 - c, 1, blocks) > 0
            and board.libs_after(b, lib, 3 - c, 3) <= 2)


cdef inline bint is_useful_self_atari(const BoardState* b, point_t p, color_t c) noexcept nogil:
    """c's self-atari at p is worth playing: a nakade (the block, enclosed by the opponent together with
    its last liberty, leaves a dead eye shape once taken) or a throw-in (is_throw_in, lone stones only)."""
    cdef point_t stones[MAX_EYE_SPACE]
    cdef int d[4]
    cdef int i, k, n = stones_after(b, p, c, stones, MAX_EYE_SPACE)
    cdef point_t q, lib = NO_POINT
    board.nbrs4(b.stride, d)
    if n > MAX_EYE_SPACE:
        return False
    for i in range(n):                       # the block's one liberty (its other neighbours: opponent, edge)
        for k in range(4):
            q = stones[i] + d[k]
            if b.color[q] == EMPTY and q != p:
                if lib != NO_POINT and lib != q:
                    return False             # two liberties: not a self-atari after all
                lib = q
    if lib == NO_POINT:
        return False
    if n == 1 and is_throw_in(b, p, c, lib):
        return True
    for k in range(4):                       # nakade: the liberty itself is enclosed by the opponent
        q = lib + d[k]
        if b.color[q] == EMPTY and q != p:
            return False
    return is_dead_shape(stones, n, b.stride)
