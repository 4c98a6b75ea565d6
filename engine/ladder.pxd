# engine/ladder.pxd: the ladder reader, for the move features and for the playout policy (bodies in
# ladder.pyx).
#
# A ladder is the fight where the attacker plays only ataris and the defender only extends from atari
# or captures an attacking block that is itself in atari. The reader searches depth-first over both
# ataris and every escape (extension, or capture of an attacker in atari), on boards kept in a
# preallocated stack (`Ladder`), so it runs without the GIL and allocates nothing; a plain ladder is
# read on one copy of the board. When a bound is hit the answer is "not caught": a caller acts only on
# proven ladders.
#
# The move features (priors.features) read once per candidate at expansion, on their own stack. The
# playout policy asks on nearly every move when its ladder rule is on; each search thread owns a stack,
# and is_ladder_atari below first answers what a liberty count settles. Blocks of more than
# LADDER_MAX_STONES stones are left unread in the playouts.
from engine cimport board
from engine.board cimport BoardState, point_t, color_t

cdef enum:
    LADDER_MAX_DEPTH = 80      # plies one reading may stack (a corner-to-corner ladder is ~70)
    LADDER_MAX_NODES = 400     # defender positions visited per reading
    LADDER_MAX_STONES = 3      # the playout policy reads no larger block: most ladders start from one or
                               # two stones, and reading every contact fight's blocks halves the playout rate


cdef struct Ladder:
    BoardState* stack          # LADDER_MAX_DEPTH + 1 boards: the position read, then one per ply at most
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
cdef bint is_caught_after(Ladder* r, const BoardState* b, point_t p, color_t c, point_t stone) noexcept nogil
    # After c plays p (legal), the block at stone (either colour) is caught in a ladder, the other colour
    # to move: the move is a working ladder atari (the block then in atari), or an extension to two
    # liberties that runs into one. False without reading for a block of more than LADDER_MAX_STONES
    # stones.


cdef class LadderReader:
    """Owns one Ladder stack, for callers that read from Python-level code."""
    cdef Ladder r


cdef inline bint escapes_on_extension(const BoardState* b, point_t e, color_t d) noexcept nogil:
    """After the attacker's atari on the other liberty of d's two-liberty block, d's extension at its
    liberty e gets three liberties or more (the atari's point, counted now, is then the attacker's; what
    the atari may capture only adds): the atari fails without reading."""
    return board.libs_after(b, e, d, 4) - 1 >= 3


# --- the playout policy's question --------------------------------------------------------------------

cdef inline bint is_ladder_atari(Ladder* r, const BoardState* b, point_t x, color_t a, point_t g) noexcept nogil:
    """a's atari at x on the other colour's block g of two liberties catches it in a ladder. The policy
    starts no ladder with a stone the defender can take at once; an atari whose extension gets three
    liberties is not read."""
    cdef point_t e = b.groups[g].libs[0] if b.groups[g].libs[1] == x else b.groups[g].libs[1]
    if not board.is_legal(b, x, a) or board.libs_after(b, x, a, 2) < 2:
        return False
    return not escapes_on_extension(b, e, 3 - a) and is_caught_after(r, b, x, a, g)
