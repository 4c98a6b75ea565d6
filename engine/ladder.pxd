# engine/ladder.pxd: ladder reading, for the playout policy and for the move features (deep reader's
# bodies in ladder.pyx).
#
# A ladder is the fight where the attacker plays only ataris and the defender only extends from atari
# or captures an attacking block that is itself in atari. Two readers of it live here, at two depths,
# because their callers pay for them differently; each keeps the answers its caller was built on.
#
# The line reader (inline, below) serves the playout policy, which asks on nearly every move and must
# stay cheap. It plays the ladder out on a scratch copy of the board, one line only: the defender in
# atari extends on its liberty unless it can capture an attacker block next to it (then it escapes);
# the attacker ataris on the liberty after which the defender's extension would have the fewest
# liberties, never with a stone the defender could take. A "caught" answer is a line the defender
# cannot leave by extending or counter-capturing; "escapes" may miss a ladder the greedy attacker
# reads wrong, so the rules that use it err towards the policy without it. Inline: no call cost.
#
# The deep reader (`is_caught`, `is_attack_working`) serves the move features (priors.features),
# read once per candidate at expansion. It searches depth-first over both ataris and every escape
# (extension or capture of an attacker in atari), on board copies kept in a preallocated stack
# (`Ladder`), so it runs without the GIL and allocates nothing. When a bound is hit the answer is
# "not caught": ladder features then fire only on proven ladders. The shipped models were trained on
# its answers, so it is not replaced by the line reader, nor the line reader by it.
from engine cimport board
from engine.board cimport BoardState, point_t, color_t, MAX_POINTS, NO_POINT

cdef enum:
    LADDER_MAX_PLIES = 120     # line reader: a ladder crosses a 25x25 board in under 100 moves
    LADDER_MAX_STONES = 3      # larger blocks are not read: most ladders start from one or two stones,
                               # and reading every contact fight's blocks would halve the playout rate
    LADDER_MAX_DEPTH = 80      # deep reader: plies one reading may stack (a corner-to-corner ladder is ~70)
    LADDER_MAX_NODES = 400     # deep reader: defender positions visited per reading


# --- the deep reader (move features) -----------------------------------------------------------------

cdef struct Ladder:
    BoardState* stack          # LADDER_MAX_DEPTH board copies, one per ply
    int nodes                  # defender positions visited by the current reading
    bint bounded               # the current reading hit a bound

cdef int ladder_init(Ladder* r) noexcept nogil     # 0, or -1 when out of memory
cdef void ladder_free(Ladder* r) noexcept nogil
cdef bint is_caught(Ladder* r, const BoardState* b, point_t stone) noexcept nogil
    # The group at `stone` has one liberty and its owner moves next: True if the opponent captures it
    # whatever it does (extend or capture an attacker in atari), attacking only with ataris.
cdef bint is_attack_working(Ladder* r, const BoardState* b, point_t stone) noexcept nogil
    # The group at `stone` has two liberties and the opponent moves next: True if an atari starts a
    # ladder that captures it.


# --- the line reader (playout policy) ----------------------------------------------------------------


cdef inline bint can_counter_capture(const BoardState* b, point_t g, color_t attacker) noexcept nogil:
    """An attacker block next to the block g is in atari."""
    cdef point_t around[MAX_POINTS]
    cdef int i, n = board.neighbour_blocks(b, g, attacker, around)
    for i in range(n):
        if b.groups[around[i]].n_libs == 1:
            return True
    return False


cdef inline point_t ladder_atari(const BoardState* b, point_t g, color_t attacker) noexcept nogil:
    """The attacker's atari on the 2-liberty block g after which the defender's extension keeps the
    fewest liberties (at most two), or NO_POINT when every extension gets three."""
    cdef point_t x, e, best = NO_POINT
    cdef int k, libs, best_libs = 3
    for k in range(2):
        x = b.groups[g].libs[k]
        e = b.groups[g].libs[1 - k]
        if not board.is_legal(b, x, attacker) or board.libs_after(b, x, attacker, 2) < 2:
            continue
        libs = board.libs_after(b, e, 3 - attacker, 4) - 1   # x, counted now, is then the attacker's
        if libs < best_libs:
            best, best_libs = x, libs
    return best


cdef inline bint is_caught_on_line(BoardState* s, point_t stone, bint defender_to_move) noexcept nogil:
    """The block at stone is caught in the line reader's ladder (see the file comment); s is a scratch
    board it plays on. With the defender to move the block must be in atari, with the attacker to move
    it has two liberties to be chased."""
    cdef color_t d = s.color[stone]
    cdef color_t a = 3 - d
    cdef point_t g, x
    cdef int ply, n
    for ply in range(LADDER_MAX_PLIES):
        g = s.group[stone]
        if g == NO_POINT:
            return True
        n = s.groups[g].n_libs
        if defender_to_move:
            if n >= 2 or can_counter_capture(s, g, a):
                return False
            x = s.groups[g].libs[0]
            if not board.is_legal(s, x, d):
                return True
            board.play(s, x, d)
        else:
            if n == 1:
                return board.is_legal(s, s.groups[g].libs[0], a)
            if n >= 3:
                return False
            x = ladder_atari(s, g, a)
            if x == NO_POINT:
                return False
            board.play(s, x, a)
        defender_to_move = not defender_to_move
    return False


cdef inline bint is_caught_after(const BoardState* b, point_t p, color_t c, point_t stone) noexcept nogil:
    """After c plays p (legal), the block at stone (either colour) is caught in a ladder, the other
    colour to move: the move is a working ladder atari, or an escape that runs into one. False without
    reading for a block of more than LADDER_MAX_STONES stones."""
    cdef BoardState s
    if b.groups[b.group[stone]].n_stones > LADDER_MAX_STONES:
        return False
    board.copy_state(&s, b)
    board.play(&s, p, c)
    return is_caught_on_line(&s, stone, s.color[stone] != c)


cdef inline bint is_ladder_atari(const BoardState* b, point_t x, color_t a, point_t g) noexcept nogil:
    """a's atari at x on the other colour's block g of two liberties catches it in a ladder. The cheap
    tests come first: x is legal and keeps a's stone two liberties, and the defender's extension on its
    other liberty keeps at most two; at most one, and no counter-capture, is caught without reading."""
    cdef point_t e = b.groups[g].libs[0] if b.groups[g].libs[1] == x else b.groups[g].libs[1]
    cdef int libs
    if not board.is_legal(b, x, a) or board.libs_after(b, x, a, 2) < 2:
        return False
    libs = board.libs_after(b, e, 3 - a, 4) - 1      # x, counted now, is then the attacker's
    if libs >= 3:
        return False
    if libs <= 1:
        return not can_counter_capture(b, g, a)
    return is_caught_after(b, x, a, g)
