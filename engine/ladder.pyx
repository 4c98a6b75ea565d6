# engine/ladder.pyx: the ladder reader declared in ladder.pxd, and its Python face for tests and benches.
from libc.stdlib cimport free, malloc

from engine cimport board
from engine.board cimport BLACK, WHITE, Board, BoardState, color_t, point_t


cdef int ladder_init(Ladder* r) noexcept nogil:
    r.stack = <BoardState*>malloc((LADDER_MAX_DEPTH + 1) * sizeof(BoardState))
    r.nodes = 0
    r.bounded = False
    return 0 if r.stack != NULL else -1


cdef void ladder_free(Ladder* r) noexcept nogil:
    free(r.stack)
    r.stack = NULL


# Each position of a reading lives in a slot of the stack, and a node may change its own slot: the node
# that created it copies afresh for each of its other moves. A node plays its last move in place (no
# copy) and its other moves on a copy in the next slot, so a plain ladder copies no board at all.

cdef inline int move_on(Ladder* r, int slot, bint last, point_t p, color_t c) noexcept nogil:
    """c plays p on the position in r.stack[slot]: in place when it is the node's last move, else on a
    copy in the next slot. The slot played in."""
    if not last:
        board.copy_state(&r.stack[slot + 1], &r.stack[slot])
        slot += 1
    board.play(&r.stack[slot], p, c)
    return slot


cdef bint attacker_catches(Ladder* r, int slot, point_t stone, int depth) noexcept nogil:
    """The defender has just moved in r.stack[slot]; the attacker moves next. True if the group at
    `stone` is caught."""
    cdef BoardState* b = &r.stack[slot]
    cdef point_t g = b.group[stone]
    cdef point_t tries[2]
    cdef color_t a
    cdef BoardState* nb
    cdef int i, n, s, n_tries = 0
    if g == 0:
        return True                       # the defender's move let its group be taken
    a = 3 - b.color[stone]
    n = b.groups[g].n_libs
    if n == 1:
        return board.is_legal(b, b.groups[g].libs[0], a)   # taken now, unless ko forbids it
    if n >= 3:
        return False
    if depth >= LADDER_MAX_DEPTH:
        r.bounded = True
        return False
    for i in range(2):
        if not board.is_legal(b, b.groups[g].libs[i], a):
            continue
        if escapes_on_extension(b, b.groups[g].libs[1 - i], b.color[stone]):
            r.nodes += 1                  # the defender's position, as if visited
            continue
        tries[n_tries] = b.groups[g].libs[i]
        n_tries += 1
    for i in range(n_tries):
        s = move_on(r, slot, i + 1 == n_tries, tries[i], a)
        nb = &r.stack[s]
        if nb.groups[nb.group[stone]].n_libs == 1 and defender_caught(r, s, stone, depth + 1):
            return True
    return False


cdef bint defender_caught(Ladder* r, int slot, point_t stone, int depth) noexcept nogil:
    """The group at `stone` is in atari in r.stack[slot] and moves next. True if every escape fails."""
    cdef BoardState* b = &r.stack[slot]
    cdef point_t g = b.group[stone], x, y, cap
    cdef color_t d = b.color[stone]
    cdef color_t a = 3 - d
    cdef point_t tried[16]
    cdef int off[4]
    cdef int n_tried = 0, k, i
    r.nodes += 1
    if depth >= LADDER_MAX_DEPTH or r.nodes > LADDER_MAX_NODES:
        r.bounded = True
        return False
    board.nbrs4(b.stride, off)
    # The escapes: capture an attacking group in atari that touches ours (this also gains liberties),
    # then extend from atari.
    x = g
    while x != 0:
        for k in range(4):
            y = x + off[k]
            if b.color[y] != a or b.groups[b.group[y]].n_libs != 1:
                continue
            cap = b.groups[b.group[y]].libs[0]
            if n_tried == 15 or board.in_list(tried, n_tried, cap) or not board.is_legal(b, cap, d):
                continue
            tried[n_tried] = cap
            n_tried += 1
        x = b.next_stone[x]
    cap = b.groups[g].libs[0]
    if not board.in_list(tried, n_tried, cap) and board.is_legal(b, cap, d):
        tried[n_tried] = cap
        n_tried += 1
    for i in range(n_tried):
        if not attacker_catches(r, move_on(r, slot, i + 1 == n_tried, tried[i], d), stone, depth + 1):
            return False
    return True


cdef inline void start(Ladder* r, const BoardState* b) noexcept nogil:
    r.nodes = 0
    r.bounded = False
    board.copy_state(&r.stack[0], b)


cdef bint is_caught(Ladder* r, const BoardState* b, point_t stone) noexcept nogil:
    cdef point_t g = b.group[stone]
    if g == 0 or b.groups[g].n_libs != 1:
        return False
    start(r, b)
    return defender_caught(r, 0, stone, 0)


cdef bint is_attack_working(Ladder* r, const BoardState* b, point_t stone) noexcept nogil:
    cdef point_t g = b.group[stone]
    if g == 0 or b.groups[g].n_libs != 2:
        return False
    start(r, b)
    return attacker_catches(r, 0, stone, 0)


cdef bint is_caught_after(Ladder* r, const BoardState* b, point_t p, color_t c, point_t stone) noexcept nogil:
    cdef BoardState* s
    if b.groups[b.group[stone]].n_stones > LADDER_MAX_STONES:
        return False
    start(r, b)
    s = &r.stack[0]
    board.play(s, p, c)
    if s.group[stone] == 0:
        return False
    if s.color[stone] != c:
        return s.groups[s.group[stone]].n_libs == 1 and defender_caught(r, 0, stone, 0)
    return s.groups[s.group[stone]].n_libs == 2 and attacker_catches(r, 0, stone, 0)


cdef class LadderReader:
    def __cinit__(self):
        if ladder_init(&self.r) != 0:
            raise MemoryError("ladder reader stack")

    def __dealloc__(self):
        ladder_free(&self.r)


cdef LadderReader _reader = LadderReader()


def _stone_group(Board b, int point, int n_libs):
    if not (0 < point < b.s.stride * b.s.stride) or b.s.color[point] not in (BLACK, WHITE):
        raise ValueError(f"no stone at point {point}")
    if b.s.groups[b.s.group[point]].n_libs != n_libs:
        raise ValueError(f"the group at point {point} does not have {n_libs} liberties")


def is_ladder_caught(Board b, int point) -> bool:
    """The group at `point` is in atari and its owner moves next: can it be captured in a ladder?"""
    _stone_group(b, point, 1)
    return is_caught(&_reader.r, &b.s, <point_t>point)


def is_ladder_attack(Board b, int point) -> bool:
    """The group at `point` has two liberties and the opponent moves next: does a ladder capture it?"""
    _stone_group(b, point, 2)
    return is_attack_working(&_reader.r, &b.s, <point_t>point)
