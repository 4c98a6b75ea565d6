# engine/ladder.pyx: the ladder reader declared in ladder.pxd, and its Python face for tests and benches.
from libc.stdlib cimport free, malloc

from engine cimport board
from engine.board cimport BLACK, WHITE, Board, BoardState, color_t, point_t


cdef int ladder_init(Ladder* r) noexcept nogil:
    r.stack = <BoardState*>malloc(LADDER_MAX_DEPTH * sizeof(BoardState))
    r.nodes = 0
    r.bounded = False
    return 0 if r.stack != NULL else -1


cdef void ladder_free(Ladder* r) noexcept nogil:
    free(r.stack)
    r.stack = NULL


cdef bint attacker_catches(Ladder* r, const BoardState* b, point_t stone, int depth) noexcept nogil:
    """The defender has just moved; the attacker moves next. True if the group at `stone` is caught."""
    cdef point_t g = b.group[stone], lib
    cdef color_t a
    cdef BoardState* nb
    cdef int i, n
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
    nb = &r.stack[depth]
    for i in range(2):
        lib = b.groups[g].libs[i]
        if not board.is_legal(b, lib, a):
            continue
        board.copy_state(nb, b)
        board.play(nb, lib, a)
        if nb.groups[nb.group[stone]].n_libs == 1 and defender_caught(r, nb, stone, depth + 1):
            return True
    return False


cdef bint defender_caught(Ladder* r, const BoardState* b, point_t stone, int depth) noexcept nogil:
    """The group at `stone` is in atari and moves next. True if every escape fails."""
    cdef point_t g = b.group[stone], x, y, cap
    cdef color_t d = b.color[stone]
    cdef color_t a = 3 - d
    cdef point_t tried[16]
    cdef int off[4]
    cdef int n_tried = 0, k
    cdef BoardState* nb
    r.nodes += 1
    if depth >= LADDER_MAX_DEPTH or r.nodes > LADDER_MAX_NODES:
        r.bounded = True
        return False
    nb = &r.stack[depth]
    board.nbrs4(b.stride, off)
    # Capture an attacking group in atari that touches ours (this also gains liberties).
    x = g
    while x != 0:
        for k in range(4):
            y = x + off[k]
            if b.color[y] != a or b.groups[b.group[y]].n_libs != 1:
                continue
            cap = b.groups[b.group[y]].libs[0]
            if n_tried == 16 or board.in_list(tried, n_tried, cap):
                continue
            tried[n_tried] = cap
            n_tried += 1
            if board.is_legal(b, cap, d):
                board.copy_state(nb, b)
                board.play(nb, cap, d)
                if not attacker_catches(r, nb, stone, depth + 1):
                    return False
        x = b.next_stone[x]
    # Extend from atari.
    cap = b.groups[g].libs[0]
    if not board.in_list(tried, n_tried, cap) and board.is_legal(b, cap, d):
        board.copy_state(nb, b)
        board.play(nb, cap, d)
        if not attacker_catches(r, nb, stone, depth + 1):
            return False
    return True


cdef bint is_caught(Ladder* r, const BoardState* b, point_t stone) noexcept nogil:
    cdef point_t g = b.group[stone]
    r.nodes = 0
    r.bounded = False
    if g == 0 or b.groups[g].n_libs != 1:
        return False
    return defender_caught(r, b, stone, 0)


cdef bint is_attack_working(Ladder* r, const BoardState* b, point_t stone) noexcept nogil:
    cdef point_t g = b.group[stone]
    r.nodes = 0
    r.bounded = False
    if g == 0 or b.groups[g].n_libs != 2:
        return False
    return attacker_catches(r, b, stone, 0)


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
