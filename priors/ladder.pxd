# priors/ladder.pxd: a bounded, deterministic ladder reader (bodies in ladder.pyx).
#
# A ladder here is the fight where the attacker plays only ataris and the defender only extends from
# atari or captures an attacking group that is itself in atari. Reading is depth-first on board copies
# (one memcpy per ply) kept in a preallocated stack, so it runs without the GIL and allocates nothing.
# When a bound is hit the answer is "not caught": ladder features then fire only on proven ladders.
from engine.board cimport BoardState, point_t

cdef enum:
    LADDER_MAX_DEPTH = 80      # plies one reading may stack (a corner-to-corner ladder is ~70)
    LADDER_MAX_NODES = 400     # defender positions visited per reading

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
