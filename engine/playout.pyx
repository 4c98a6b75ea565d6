"""The playout policy: plays a position to the end, fast, in the spirit of MoGo/Pachi "moggy".

Each move takes the first rule that yields an acceptable candidate (each rule fires with its rate in
`PlayoutParams`, 0 switches it off; the rules marked * are off by default):

1. ko*: the opponent took a ko fewer than KO_AGE moves ago and we may retake it now: retake (Pachi's
   moggy `korate`). A playout otherwise rarely comes back to a ko after the threat and its answer.
   ko threat*: the opponent took a ko with the last move, so its retake is banned now: put an opposing
   block of two liberties in atari, keeping two liberties ourselves (a threat it must answer, after
   which the ko rule retakes); uniform random moves seldom threaten, so a playout's ko ends at once.
2. capture: the opponent's last move left its group in atari: take it.
3. save: an own group next to the last move is in atari: capture an opponent group in atari next to
   it, or extend on its liberty when that leaves >= 2 liberties (with the ladder rule*: and when the
   extended group is not caught in a ladder, so the playout does not run out a dead ladder).
4. reply*: the search thread's last good reply to the last two moves, else to the last move
   (LGRF-2, Baier & Drake 2010; engine/policy_replies.pxd): a reply that won the thread's last
   simulation after the same moves and has not lost since. Only in the search's playouts; after
   the forced answers of rules 2 and 3 (tried first, before them, it lost more at equal playouts).
5. ladder*: the last move's group has two liberties and an atari catches it in a ladder: play that
   atari; an own group next to the last move has two liberties and the opponent's atari would
   catch it: extend (Pachi's 2-liberty check with its ladder test; the reader of engine/ladder.pxd).
6. nakade*: an empty region next to the last move is an eye space of 3 to 6 points with a vital
   point: take it, whichever side owns it (engine/policy_eyes.pxd).
7. 3x3 shapes: an empty 8-neighbour of the last two moves matches a MoGo pattern (Gelly et al. 2006:
   hane, cut1, cut2, edge); one table lookup on the board's `pat3` code.
8. fill board*: up to FILL_BOARD_TRIES random empty points; play the first whose 8 neighbours are
   all empty (Pachi's `fillboardtries`): a move in open space, away from every stone, is rarely a
   bad one, where a uniform random move often lands in contact with stones. It is the last rule
   before the random move, so it plays only where no local rule has a move.
9. random: scan the free list cyclically from a random index.

Every candidate must pass the same permit: legal, not filling an own one-point eye, and not a
self-atari that leaves >= 2 stones in atari (a lone stone may be a throw-in or a nakade). With the
useful-self-atari rule* the permit instead judges every self-atari, lone stones too, by its use: it
is allowed only as a nakade or a throw-in (Pachi's `is_bad_selfatari`). The nakade-self-atari rule*
only widens the plain permit: a self-atari of >= 2 stones it would refuse passes when it is a nakade
(the stones, once taken, leave a dead eye shape), such as the third stone in a square four; lone
stones stay allowed. No heap, no Python and no GIL on the hot path; the position is changed in place.
"""
import itertools
import time

import numpy as np

from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from engine cimport board
from engine.board cimport BoardState, Board, point_t, color_t, EMPTY, BLACK, WHITE, EDGE, PASS, MAX_POINTS
from engine.policy_eyes cimport is_useful_self_atari, vital_point
from engine.ladder cimport Ladder, LadderReader, is_caught_after, is_ladder_atari
from engine.policy_replies cimport Replies, replies_clear, replies_learn, reply_candidates
from engine.rng cimport Rng, rng_seed, rng_below, rng_percent

from engine.params import PlayoutParams as PyPlayoutParams

cdef enum:
    MAX_CANDIDATES = 32        # no rule proposes more (16 pattern points at most)
    RNG_STREAM = 54            # PCG32 stream of playouts run from Python
    FILL_BOARD_TRIES = 4       # random points the fill-board rule looks at per move


cdef struct KoMemory:          # the last ko taken in this playout
    point_t point              # where the captured stone stood (NO_POINT: none yet)
    int move_number            # b.move_number just after the capture
    color_t color              # the side whose stone was taken, which may retake


cdef struct Rolls:             # a move's permit rolls, drawn once per move when first needed (-1: not yet)
    int self_atari
    int useful_self_atari


# --- 3x3 pattern table -------------------------------------------------------------------------------

# Patterns as drawn in Gelly et al. 2006 (and Fuego's GoUctPatterns.h): the move is the centre, top row
# is (row + 1). X and O are the two colours, '.' empty, '?' any on-board point, 'x' X or empty, 'o' O or
# empty, '#' off the board. Edge patterns have the edge below the move. Every pattern is matched in all 8
# symmetries and with colours swapped; `to_play` says which colour may play it ("X", "O" or both).
# Cut1 matches its first diagram but not (in the same orientation) the two exceptions.
_PATTERNS = (
    # (name, diagram, exceptions, to_play)
    ("hane enclosing", ("XOX", "...", "???"), (), "XO"),
    ("hane non-cutting", ("XO.", "...", "?.?"), (), "XO"),
    ("hane magari", ("XO?", "X..", "?.?"), (), "XO"),
    ("hane thin", ("XOO", "...", "?.?"), (), "X"),
    ("cut1", ("XO?", "O.?", "???"), (("XO?", "O.O", "?.?"), ("XO?", "O..", "?O?")), "XO"),
    ("cut2", ("?X?", "O.O", "xxx"), (), "XO"),
    ("edge chase", ("X.?", "O.?", "###"), (), "XO"),
    ("edge block connection", ("?X?", "o.O", "###"), (), "XO"),
    ("edge sagari", ("?XO", "?.?", "###"), (), "X"),
    ("edge sagari, O to play", ("?XO", "?.o", "###"), (), "O"),
    ("edge cut", ("?XO", "O.X", "###"), (), "O"),
)

# bit per color_t value (EMPTY 1, BLACK 2, WHITE 4, EDGE 8) allowed in a cell, with X = BLACK
_CELL_MASK = {"X": 2, "O": 4, ".": 1, "?": 7, "x": 3, "o": 5, "#": 8}
# (dr, dc) of the 8 neighbours in the order of the board's pat3 bits (k-th neighbour in bits 2k, 2k+1)
_NEIGHBOURS = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))


def _symmetries():
    """The 8 maps (dr, dc) -> (dr', dc') of the square: 4 rotations, with and without a mirror."""
    maps = []
    for mirror in (False, True):
        for turns in range(4):
            def f(dr, dc, mirror=mirror, turns=turns):
                if mirror:
                    dc = -dc
                for _ in range(turns):
                    dr, dc = dc, -dr
                return dr, dc
            maps.append(f)
    return maps


def _cell_masks(diagram, sym, swap):
    """Allowed-colour masks of the 8 neighbours for one diagram under a symmetry and a colour swap."""
    masks = [0] * 8
    for k, (dr, dc) in enumerate(_NEIGHBOURS):
        m = _CELL_MASK[diagram[1 - dr][dc + 1]]
        if swap:
            m = (m & 9) | ((m & 2) << 1) | ((m & 4) >> 1)
        masks[_NEIGHBOURS.index(sym(dr, dc))] = m
    return masks


def _fits(masks, cells):
    """The 8 neighbour colours fit the allowed-colour masks."""
    for m, x in zip(masks, cells):
        if not (m >> x) & 1:
            return False
    return True


def _build_pat3_table():
    """uint8 per pat3 code: bit BLACK / WHITE set when the centre is a shape move for that colour.
    Enumerates the codes each diagram allows (a few hundred at most), so the import stays fast."""
    table = np.zeros(1 << 16, dtype=np.uint8)
    for _name, diagram, exceptions, to_play in _PATTERNS:
        for sym in _symmetries():
            for swap in (False, True):
                masks = _cell_masks(diagram, sym, swap)
                excluded = [_cell_masks(exc, sym, swap) for exc in exceptions]
                x_color, o_color = (WHITE, BLACK) if swap else (BLACK, WHITE)
                bits = (x_color if "X" in to_play else 0) | (o_color if "O" in to_play else 0)
                choices = [[x for x in range(4) if (m >> x) & 1] for m in masks]
                for cells in itertools.product(*choices):
                    if not any(_fits(e, cells) for e in excluded):
                        table[sum([x << (2 * k) for k, x in enumerate(cells)])] |= bits
    return table


# One bit per pat3 code and colour to play (8 KB per colour, so the lookups stay in L1 cache):
# bit (code & 63) of PAT3_BITS[c][code >> 6] is set when playing the centre is a shape move for c.
cdef uint64_t PAT3_BITS[3][1024]


def _install_pat3_table():
    cdef int code, c
    table = _build_pat3_table()
    for c in range(3):
        for code in range(1024):
            PAT3_BITS[c][code] = 0
    for code in range(1 << 16):
        for c in (BLACK, WHITE):
            if table[code] & c:
                PAT3_BITS[c][code >> 6] |= (<uint64_t>1) << (code & 63)


_install_pat3_table()


cdef inline bint is_shape_move(uint16_t code, color_t c) noexcept nogil:
    return (PAT3_BITS[c][code >> 6] >> (code & 63)) & 1


cdef bint shape_move(unsigned short code, color_t c) noexcept nogil:
    return is_shape_move(code, c)


def pat3_table() -> np.ndarray:
    """The pattern table as a (65536,) uint8 array indexed by the board's pat3 code: bit BLACK (1) /
    WHITE (2) set when playing the centre is a shape move for that colour (a copy)."""
    return np.array([is_shape_move(code, BLACK) | (is_shape_move(code, WHITE) << 1)
                     for code in range(1 << 16)], dtype=np.uint8)


# One bit per pat3 code: the empty region of the centre, as far as its 3x3 neighbourhood shows it, has
# at most 6 points and touches one colour only, so it may be a small eye space (the nakade rule floods
# only then; a point in open space is rejected by one lookup).
cdef uint64_t SMALL_SPACE_BITS[1024]    # zero at load (a C global)

# pat3 neighbour k (0 NW, 1 N, 2 NE, 3 W, 4 E, 5 SW, 6 S, 7 SE): the orthogonal ones, and for each the
# two diagonals next to it
cdef int ORTHOGONAL[4]
ORTHOGONAL[:] = [1, 3, 4, 6]
cdef int BESIDE[4][2]
BESIDE[0][:] = [0, 2]
BESIDE[1][:] = [0, 5]
BESIDE[2][:] = [2, 7]
BESIDE[3][:] = [5, 7]


cdef void _install_small_space_bits() noexcept nogil:
    cdef int code, i, j, x, size, touches
    cdef bint seen[8]
    for code in range(1 << 16):
        size = 1
        touches = 0
        for j in range(8):
            seen[j] = False
        for i in range(4):
            x = (code >> (2 * ORTHOGONAL[i])) & 3
            if x != EMPTY:
                touches |= 1 << x
                continue
            size += 1
            for j in range(2):
                x = (code >> (2 * BESIDE[i][j])) & 3
                if x == EMPTY:
                    if not seen[BESIDE[i][j]]:
                        seen[BESIDE[i][j]] = True
                        size += 1
                else:
                    touches |= 1 << x
        if size <= 6 and (touches & 6) != 6:
            SMALL_SPACE_BITS[code >> 6] |= (<uint64_t>1) << (code & 63)


_install_small_space_bits()


cdef inline bint may_be_small_space(uint16_t code) noexcept nogil:
    return (SMALL_SPACE_BITS[code >> 6] >> (code & 63)) & 1


# --- the policy (no GIL) ---------------------------------------------------------------------------

cdef inline bint fires(Rng* rng, int rate) noexcept nogil:
    """A rule's percent roll; 0 and 100 draw no random number."""
    if rate <= 0:
        return False
    return rate >= 100 or rng_percent(rng, rate)


cdef inline bint may_be_bad_self_atari(const BoardState* b, point_t p, color_t c, int n_empty,
                                       bint lone_ok) noexcept nogil:
    """False when c's stone at p (an empty point with at most one empty neighbour) surely keeps two
    liberties, or (lone_ok) is alone; True means only board.self_atari_size can tell."""
    cdef int stride = b.stride
    cdef point_t e = 0
    cdef point_t q, g, other
    cdef bint has_own = False
    cdef int k
    cdef int offsets[4]
    board.nbrs4(stride, offsets)
    if n_empty == 1:
        for k in range(4):
            if b.color[p + offsets[k]] == EMPTY:
                e = p + offsets[k]
    for k in range(4):
        q = p + offsets[k]
        if b.color[q] == c:
            has_own = True
            g = b.group[q]
            if b.groups[g].n_libs >= 3:
                return False         # at least two of its liberties remain
            if b.groups[g].n_libs == 2 and e != 0:
                other = b.groups[g].libs[0] if b.groups[g].libs[1] == p else b.groups[g].libs[1]
                if other != e:
                    return False     # its other liberty and e
        elif b.color[q] == 3 - c and e != 0 and b.groups[b.group[q]].n_libs == 1:
            return False             # a capture frees q, a liberty besides e
    return has_own or not lone_ok    # a lone stone in atari may be allowed


cdef inline bint is_permitted(BoardState* b, point_t p, color_t c, const PlayoutParams* pp,
                              Rolls* rolls, Rng* rng) noexcept nogil:
    """Legal, not an own one-point eye, not a self-atari of >= 2 stones (checked self_atari_rate % of
    moves) unless a nakade (nakade_self_atari_rate %), or with the useful-self-atari rule not a
    self-atari unless a nakade or a throw-in. rolls caches this move's rolls."""
    cdef int n_empty
    if b.color[p] != EMPTY:
        return False
    n_empty = b.n_nbr[p][EMPTY]
    if n_empty >= 2:
        return True                      # legal, no eye, and the stone keeps two liberties
    if n_empty == 0:
        if b.n_nbr[p][c] + b.n_nbr[p][EDGE] == 4 and board.is_one_point_eye(b, p, c):
            return False
        if not board.is_legal(b, p, c):
            return False
    if pp.useful_self_atari_rate > 0:
        if rolls.useful_self_atari < 0:
            rolls.useful_self_atari = fires(rng, pp.useful_self_atari_rate)
        if rolls.useful_self_atari:
            return (not may_be_bad_self_atari(b, p, c, n_empty, False) or board.self_atari_size(b, p, c) == 0
                    or is_useful_self_atari(b, p, c))
    if pp.self_atari_rate <= 0 or not may_be_bad_self_atari(b, p, c, n_empty, True):
        return True
    if rolls.self_atari < 0:
        rolls.self_atari = fires(rng, pp.self_atari_rate)
    return (rolls.self_atari == 0 or board.self_atari_size(b, p, c) < 2
            or (fires(rng, pp.nakade_self_atari_rate) and is_useful_self_atari(b, p, c)))


cdef inline point_t pick_permitted(BoardState* b, const point_t* cand, int n, color_t c,
                                   const PlayoutParams* pp, Rolls* rolls, Rng* rng) noexcept nogil:
    """A permitted candidate, scanning cyclically from a random one; NO_POINT if none."""
    cdef int i, start
    if n == 0:
        return board.NO_POINT
    start = 0 if n == 1 else <int>rng_below(rng, n)
    for i in range(start, n):
        if is_permitted(b, cand[i], c, pp, rolls, rng):
            return cand[i]
    for i in range(start):
        if is_permitted(b, cand[i], c, pp, rolls, rng):
            return cand[i]
    return board.NO_POINT


cdef inline int add_candidate(point_t* cand, int n, point_t p) noexcept nogil:
    """Append p unless present; returns the new count."""
    cdef int i
    for i in range(n):
        if cand[i] == p:
            return n
    if n < MAX_CANDIDATES:
        cand[n] = p
        n += 1
    return n


cdef inline point_t ko_retake(const BoardState* b, color_t c, const KoMemory* ko) noexcept nogil:
    """The point retaking the ko c lost fewer than KO_AGE moves ago, when it is legal and captures
    now; else NO_POINT."""
    cdef point_t blocks[4]
    if (ko.point == board.NO_POINT or ko.color != c or b.move_number - ko.move_number >= KO_AGE
            or not board.is_legal(b, ko.point, c)):
        return board.NO_POINT
    if board.blocks_next_to(b, ko.point, 3 - c, 1, blocks) == 0:
        return board.NO_POINT
    return ko.point


cdef int ko_threat_moves(const BoardState* b, color_t c, const KoMemory* ko, point_t* cand) noexcept nogil:
    """Right after the opponent took the ko from c (c's retake banned now): the points that put an
    opposing block of two liberties in atari and leave the new stone two liberties or more, into cand
    (at most MAX_CANDIDATES); their count. A scan of the board, as a ko is taken seldom."""
    cdef int n = 0, row, col, k
    cdef point_t p, lib
    cdef color_t other = 3 - c
    if (ko.point == board.NO_POINT or ko.color != c or ko.move_number != b.move_number
            or b.ko_point != ko.point):
        return 0
    for row in range(b.size):
        for col in range(b.size):
            p = board.point_at(b, row, col)
            if b.color[p] != other or b.group[p] != p or b.groups[p].n_libs != 2:
                continue
            for k in range(2):
                lib = b.groups[p].libs[k]
                if lib != ko.point and board.libs_after(b, lib, c, 2) >= 2:
                    n = add_candidate(cand, n, lib)
    return n


cdef inline void remember_ko(const BoardState* b, KoMemory* ko) noexcept nogil:
    """After a move: when it took a ko, remember where and for whom."""
    if b.ko_point != board.NO_POINT:
        ko.point = b.ko_point
        ko.move_number = b.move_number
        ko.color = b.to_play


cdef inline point_t capture_move(const BoardState* b, color_t c) noexcept nogil:
    """The point capturing the last move's group when it is in atari, else NO_POINT. (Opponent stones
    next to the last move belong to its group, so this covers them too.)"""
    cdef point_t last = b.last_move
    cdef point_t g
    if last <= 0 or b.color[last] != 3 - c:
        return board.NO_POINT
    g = b.group[last]
    if b.groups[g].n_libs == 1:
        return b.groups[g].libs[0]
    return board.NO_POINT


cdef inline int add_counter_captures(const BoardState* b, point_t g, color_t c, point_t* cand,
                                     int n) noexcept nogil:
    """Add the capturing points of opponent groups in atari next to c's group g."""
    cdef point_t around[board.MAX_POINTS]
    cdef int i, n_around = board.neighbour_blocks(b, g, 3 - c, around)
    for i in range(n_around):
        if b.groups[around[i]].n_libs == 1:
            n = add_candidate(cand, n, b.groups[around[i]].libs[0])
    return n


cdef inline bint is_escape(const BoardState* b, point_t lib, color_t c, point_t g, Ladder* ladder) noexcept nogil:
    """c's extension of the block g in atari on its liberty lib leaves >= 2 liberties (with a ladder
    reader: and, when exactly two, the block is not then caught in a ladder)."""
    cdef int libs
    if ladder == NULL:
        return board.libs_after(b, lib, c, 2) >= 2
    libs = board.libs_after(b, lib, c, 3)
    return libs >= 3 or (libs == 2 and not is_caught_after(ladder, b, lib, c, g))


cdef inline int save_moves(const BoardState* b, color_t c, point_t* cand, Ladder* ladder) noexcept nogil:
    """Candidates saving c's groups next to the last move that are in atari: counter-captures, and the
    extension when it escapes (is_escape; ladder NULL: without reading ladders)."""
    cdef point_t g, lib
    cdef point_t blocks[4]
    cdef int n = 0, i
    cdef int n_blocks = board.blocks_next_to(b, b.last_move, c, 1, blocks)
    for i in range(n_blocks):
        g = blocks[i]
        n = add_counter_captures(b, g, c, cand, n)
        lib = b.groups[g].libs[0]
        if is_escape(b, lib, c, g, ladder):
            n = add_candidate(cand, n, lib)
    return n


cdef inline int ladder_moves(Ladder* ladder, const BoardState* b, color_t c, point_t* cand) noexcept nogil:
    """The ataris catching the last move's block of two liberties in a ladder, and the extensions of
    c's blocks of two liberties next to the last move that the opponent's atari would catch."""
    cdef point_t last = b.last_move
    cdef point_t g = b.group[last]
    cdef point_t x, e
    cdef point_t blocks[4]
    cdef color_t o = 3 - c
    cdef int n = 0, i, k
    if b.color[last] == o and b.groups[g].n_libs == 2:
        for k in range(2):
            x = b.groups[g].libs[k]
            if is_ladder_atari(ladder, b, x, c, g):
                n = add_candidate(cand, n, x)
    for i in range(board.blocks_next_to(b, last, c, 2, blocks)):
        g = blocks[i]
        for k in range(2):
            x = b.groups[g].libs[k]
            e = b.groups[g].libs[1 - k]
            # extending on x now gives three liberties; the atari on e would catch the block
            if board.libs_after(b, x, c, 4) == 3 and is_ladder_atari(ladder, b, e, o, g):
                n = add_candidate(cand, n, x)
    return n


cdef inline int nakade_moves(const BoardState* b, point_t* cand) noexcept nogil:
    """The vital points of the eye spaces of 3 to 6 points next to the last move."""
    cdef point_t last = b.last_move
    cdef point_t q, v
    cdef int d[4]
    cdef int k, n = 0
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = last + d[k]
        if b.color[q] == EMPTY and may_be_small_space(b.pat3[q]):
            v = vital_point(b, q)
            if v != board.NO_POINT:
                n = add_candidate(cand, n, v)
    return n


cdef inline point_t fill_board_move(const BoardState* b, Rng* rng) noexcept nogil:
    """A random empty point whose 8 neighbours are empty (pat3 code 0), after FILL_BOARD_TRIES tries;
    else NO_POINT. Such a point is legal, no eye and no self-atari for either side."""
    cdef int i
    cdef point_t p
    if b.n_free == 0:
        return board.NO_POINT
    for i in range(FILL_BOARD_TRIES):
        p = b.free_pts[rng_below(rng, b.n_free)]
        if b.pat3[p] == 0:
            return p
    return board.NO_POINT


cdef inline int pattern_moves(const BoardState* b, color_t c, point_t* cand) noexcept nogil:
    """Empty 8-neighbours of the last two moves that are a 3x3 shape move for c."""
    cdef int n = 0
    cdef int i, k
    cdef point_t m, q
    cdef int stride = b.stride
    cdef int offsets[8]
    offsets[0] = -stride - 1
    offsets[1] = -stride
    offsets[2] = -stride + 1
    offsets[3] = -1
    offsets[4] = 1
    offsets[5] = stride - 1
    offsets[6] = stride
    offsets[7] = stride + 1
    for i in range(2):
        m = b.last_move if i == 0 else b.last_move2
        if m <= 0:
            continue
        for k in range(8):
            q = m + offsets[k]
            if (b.color[q] == EMPTY) & is_shape_move(b.pat3[q], c):   # & : one branch, taken rarely
                n = add_candidate(cand, n, q)
    return n


cdef inline point_t random_move(BoardState* b, color_t c, const PlayoutParams* pp, Rolls* rolls,
                                Rng* rng) noexcept nogil:
    """The first permitted point of the free list from a random index on; PASS if none."""
    cdef int n = b.n_free
    cdef int i, start
    cdef point_t p
    if n == 0:
        return PASS
    start = <int>rng_below(rng, n)
    for i in range(start, n):
        p = b.free_pts[i]
        if is_permitted(b, p, c, pp, rolls, rng):
            return p
    for i in range(start):
        p = b.free_pts[i]
        if is_permitted(b, p, c, pp, rolls, rng):
            return p
    return PASS


cdef enum:                     # the rules near the last moves, in the order they are tried (rule_move)
    RULE_SAVE
    RULE_REPLY
    RULE_LADDER
    RULE_NAKADE
    RULE_PATTERN


cdef inline int rule_rate(const PlayoutParams* pp, int rule) noexcept nogil:
    if rule == RULE_SAVE:
        return pp.save_rate
    if rule == RULE_REPLY:
        return pp.reply_rate
    if rule == RULE_LADDER:
        return pp.ladder_rate
    if rule == RULE_NAKADE:
        return pp.nakade_rate
    return pp.pattern_rate


cdef inline int rule_moves(int rule, const BoardState* b, color_t c, point_t* cand, const PlayoutParams* pp,
                           Ladder* ladder, Rng* rng) noexcept nogil:
    """The rule's candidates into cand; their count. The save rule reads ladders ladder_rate % of moves."""
    if rule == RULE_SAVE:
        return save_moves(b, c, cand, ladder if ladder != NULL and fires(rng, pp.ladder_rate) else NULL)
    if rule == RULE_LADDER:
        return ladder_moves(ladder, b, c, cand)
    if rule == RULE_NAKADE:
        return nakade_moves(b, cand)
    return pattern_moves(b, c, cand)


cdef inline point_t reply_move(BoardState* b, color_t c, const Replies* replies, const PlayoutParams* pp,
                              Rolls* rolls, Rng* rng) noexcept nogil:
    """c's permitted last good reply to the last two moves, else to the last move; NO_POINT if none."""
    cdef point_t cand[2]
    cdef int i, n = reply_candidates(replies, c, b.last_move, b.last_move2, cand)
    for i in range(n):
        if is_permitted(b, cand[i], c, pp, rolls, rng):
            return cand[i]
    return board.NO_POINT


cdef inline point_t rule_move(int rule, BoardState* b, color_t c, point_t* cand, const PlayoutParams* pp,
                              const Replies* replies, Ladder* ladder, Rolls* rolls, Rng* rng) noexcept nogil:
    """The rule's permitted move when it fires: the reply rule's in its order (two moves, then one), a
    random one of the other rules' candidates; NO_POINT otherwise (no replies: the reply rule is off; no
    ladder reader: the ladder rule is off)."""
    cdef int n
    if not (b.last_move > 0 or (rule == RULE_PATTERN and b.last_move2 > 0)):
        return board.NO_POINT
    if (rule == RULE_REPLY and replies == NULL) or (rule == RULE_LADDER and ladder == NULL):
        return board.NO_POINT
    if not fires(rng, rule_rate(pp, rule)):
        return board.NO_POINT
    if rule == RULE_REPLY:
        return reply_move(b, c, replies, pp, rolls, rng)
    n = rule_moves(rule, b, c, cand, pp, ladder, rng)
    return pick_permitted(b, cand, n, c, pp, rolls, rng)


cdef point_t choose(BoardState* b, const PlayoutParams* pp, Rng* rng, const KoMemory* ko,
                    const Replies* replies, Ladder* ladder) noexcept nogil:
    """choose_move with the playout's ko memory and the search thread's replies (NULL: none)."""
    cdef color_t c = b.to_play
    cdef Rolls rolls
    cdef point_t cand[MAX_CANDIDATES]
    cdef point_t p
    cdef int n, rule
    rolls.self_atari = -1
    rolls.useful_self_atari = -1
    if ko != NULL and ko.point != board.NO_POINT and fires(rng, pp.ko_rate):
        p = ko_retake(b, c, ko)
        if p != board.NO_POINT and is_permitted(b, p, c, pp, &rolls, rng):
            return p
    if ko != NULL and ko.point != board.NO_POINT and fires(rng, pp.ko_threat_rate):
        n = ko_threat_moves(b, c, ko, cand)
        p = pick_permitted(b, cand, n, c, pp, &rolls, rng)
        if p != board.NO_POINT:
            return p
    if b.last_move > 0:
        if fires(rng, pp.capture_rate):
            p = capture_move(b, c)
            if p != board.NO_POINT and is_permitted(b, p, c, pp, &rolls, rng):
                return p
    for rule in range(RULE_SAVE, RULE_PATTERN + 1):
        p = rule_move(rule, b, c, cand, pp, replies, ladder, &rolls, rng)
        if p != board.NO_POINT:
            return p
    if fires(rng, pp.fill_board_rate):
        p = fill_board_move(b, rng)
        if p != board.NO_POINT:
            return p
    return random_move(b, c, pp, &rolls, rng)


cdef point_t choose_move(BoardState* b, const PlayoutParams* pp, Rng* rng, Ladder* ladder) noexcept nogil:
    return choose(b, pp, rng, NULL, NULL, ladder)


cdef inline void start_ko_memory(const BoardState* b, KoMemory* ko) noexcept nogil:
    """Empty, or the ko of the starting position when it has one."""
    ko.point = board.NO_POINT
    ko.move_number = 0
    ko.color = EMPTY
    remember_ko(b, ko)


cdef float run(BoardState* b, const PlayoutParams* pp, Rng* rng, PlayoutRecord* rec,
               const Replies* replies, Ladder* ladder) noexcept nogil:
    cdef int max_moves = pp.max_moves
    cdef int i = 0
    cdef point_t p
    cdef color_t c
    cdef KoMemory ko
    start_ko_memory(b, &ko)
    if max_moves <= 0:
        max_moves = 3 * b.size * b.size
    if max_moves > MAX_PLAYOUT_MOVES:
        max_moves = MAX_PLAYOUT_MOVES
    while i < max_moves and b.n_passes < 2:
        c = b.to_play
        p = choose(b, pp, rng, &ko, replies, ladder)
        board.play(b, p, c)
        remember_ko(b, &ko)
        if rec != NULL:
            rec.moves[i] = p
            rec.colors[i] = c
        i += 1
    if rec != NULL:
        rec.n_moves = i
    return board.playout_score(b)


# --- Python API --------------------------------------------------------------------------------------

RATES = ("capture_rate", "save_rate", "pattern_rate", "self_atari_rate", "ko_rate", "ko_threat_rate",
         "ladder_rate", "nakade_rate", "useful_self_atari_rate", "nakade_self_atari_rate", "fill_board_rate",
         "reply_rate")

cpdef PlayoutParams make_params(object p, int size) except *:
    """The C parameters for engine.params.PlayoutParams p on a size x size board (max_moves 0 becomes
    3 * size * size, capped at MAX_PLAYOUT_MOVES). Raises ValueError on a bad value."""
    cdef PlayoutParams pp
    if not 2 <= size <= board.MAX_SIZE:
        raise ValueError(f"board size must be 2..{board.MAX_SIZE}, got {size}")
    for name in RATES + ("max_moves",):
        if not hasattr(p, name):
            raise TypeError(f"playout params need a '{name}' field, got {type(p).__name__}")
        value = getattr(p, name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"playout.{name} must be an integer, got {value!r}")
        if name.endswith("_rate") and not 0 <= value <= 100:
            raise ValueError(f"playout.{name} must be 0..100, got {value}")
        if name == "max_moves" and value < 0:
            raise ValueError(f"playout.max_moves must be >= 0, got {value}")
    pp.capture_rate = p.capture_rate
    pp.save_rate = p.save_rate
    pp.pattern_rate = p.pattern_rate
    pp.self_atari_rate = p.self_atari_rate
    pp.ko_rate = p.ko_rate
    pp.ko_threat_rate = p.ko_threat_rate
    pp.ladder_rate = p.ladder_rate
    pp.nakade_rate = p.nakade_rate
    pp.useful_self_atari_rate = p.useful_self_atari_rate
    pp.nakade_self_atari_rate = p.nakade_self_atari_rate
    pp.fill_board_rate = p.fill_board_rate
    pp.reply_rate = p.reply_rate
    pp.max_moves = min(p.max_moves or 3 * size * size, MAX_PLAYOUT_MOVES)
    return pp


cdef Board _check_board(object b):
    if not isinstance(b, Board):
        raise TypeError(f"expected an engine.board.Board, got {type(b).__name__}")
    return <Board>b


cdef LadderReader _reader_for(const PlayoutParams* pp):
    """A ladder reader when the policy reads ladders, else None."""
    return LadderReader() if pp.ladder_rate > 0 else None


cdef inline Ladder* _stack(LadderReader reader):
    return &reader.r if reader is not None else NULL


cdef uint64_t _check_seed(object seed) except? 0:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    return <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)


def run_playouts(board: Board, params: PyPlayoutParams, n: int, seed: int = 1) -> dict:
    """Play n playouts from copies of board with one RNG seeded by seed. Returns n, black_wins (the
    fraction won by Black), mean_score (black - white - komi), mean_length (moves) and seconds."""
    cdef Board bd = _check_board(board)
    cdef PlayoutParams pp = make_params(params, bd.s.size)
    cdef Rng rng
    cdef BoardState s
    cdef long long i, count, wins = 0, length = 0
    cdef double total = 0.0
    cdef float score
    cdef LadderReader reader = _reader_for(&pp)
    cdef Ladder* ladder = _stack(reader)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    count = n
    rng_seed(&rng, _check_seed(seed), RNG_STREAM)
    t0 = time.perf_counter()
    with nogil:
        for i in range(count):
            s = bd.s
            score = run(&s, &pp, &rng, NULL, NULL, ladder)
            total += score
            wins += score > 0
            length += s.move_number - bd.s.move_number
    seconds = time.perf_counter() - t0
    cdef double norm = 1.0 / count if count else 0.0
    return {"n": int(count), "black_wins": wins * norm, "mean_score": total * norm,
            "mean_length": length * norm, "seconds": seconds}


def mean_ownership(position: Board, params: PyPlayoutParams, n: int, seed: int = 1) -> np.ndarray:
    """The mean final area owner of each point over n playouts from copies of position, one RNG seeded
    by seed: float32 (N, N) indexed [row, col], +1 where Black always owns the point, -1 White."""
    cdef Board bd = _check_board(position)
    cdef PlayoutParams pp = make_params(params, bd.s.size)
    cdef Rng rng
    cdef BoardState s
    cdef uint8_t owner[MAX_POINTS]
    cdef int total[MAX_POINTS]
    cdef long long i, count
    cdef int p, r, c, size = bd.s.size
    cdef LadderReader reader = _reader_for(&pp)
    cdef Ladder* ladder = _stack(reader)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an integer >= 0, got {n!r}")
    count = n
    memset(total, 0, sizeof(total))
    rng_seed(&rng, _check_seed(seed), RNG_STREAM)
    with nogil:
        for i in range(count):
            s = bd.s
            run(&s, &pp, &rng, NULL, NULL, ladder)
            board.area_owner(&s, owner)
            for p in range(MAX_POINTS):
                if owner[p] == BLACK:
                    total[p] += 1
                elif owner[p] == WHITE:
                    total[p] -= 1
    out = np.zeros((size, size), dtype=np.float32)
    cdef float[:, :] v = out
    cdef float norm = 1.0 / count if count else 0.0
    for r in range(size):
        for c in range(size):
            v[r, c] = total[board.point_at(&bd.s, r, c)] * norm
    return out


def run_playout(board: Board, params: PyPlayoutParams, seed: int = 1) -> tuple:
    """One playout from a copy of board: (final Board, score, moves played as a list of points).
    With the same seed it matches run_playouts(board, params, 1, seed)."""
    cdef Board bd = _check_board(board)
    cdef PlayoutParams pp = make_params(params, bd.s.size)
    cdef Rng rng
    cdef PlayoutRecord rec
    cdef Board out = bd.copy()
    cdef float score
    cdef LadderReader reader = _reader_for(&pp)
    cdef Ladder* ladder = _stack(reader)
    rng_seed(&rng, _check_seed(seed), RNG_STREAM)
    with nogil:
        score = run(&out.s, &pp, &rng, &rec, NULL, ladder)
    return out, score, [rec.moves[i] for i in range(rec.n_moves)]


cdef int _play_moves(BoardState* s, KoMemory* ko, object moves) except -1:
    """Play moves (points) on s in turn, remembering kos as run does; ValueError on an illegal one."""
    start_ko_memory(s, ko)
    for m in moves:
        if board.play_checked(s, m, s.to_play) < 0:
            raise ValueError(f"illegal move {m} in moves")
        remember_ko(s, ko)
    return 0


cdef class ReplyTable:
    """Last good replies outside a search (the search keeps one per thread): learn them from a
    simulation's moves, read them, and hand them to playout_move."""
    cdef Replies* r

    def __cinit__(self):
        self.r = <Replies*>malloc(sizeof(Replies))
        if self.r == NULL:
            raise MemoryError("cannot allocate a reply table")
        replies_clear(self.r)

    def __dealloc__(self):
        free(self.r)

    def learn(self, moves, colors, int winner) -> None:
        """One simulation: moves (points or PASS) played by colors (BLACK/WHITE), won by winner."""
        cdef int n = len(moves)
        cdef point_t seq[MAX_PLAYOUT_MOVES]
        cdef color_t col[MAX_PLAYOUT_MOVES]
        if n != len(colors) or n > MAX_PLAYOUT_MOVES:
            raise ValueError(f"need as many colours as moves, at most {MAX_PLAYOUT_MOVES}")
        for i in range(n):
            if not -1 <= moves[i] < MAX_POINTS or colors[i] not in (BLACK, WHITE):
                raise ValueError(f"bad move {moves[i]!r} or colour {colors[i]!r} at {i}")
            seq[i] = moves[i]
            col[i] = colors[i]
        replies_learn(self.r, seq, col, n, <color_t>winner)

    def replies(self, int color, int last, int last2=0) -> list:
        """color's stored replies to (last2, last), then to last alone."""
        cdef point_t cand[2]
        if not (0 <= last < MAX_POINTS and 0 <= last2 < MAX_POINTS):
            raise ValueError("last and last2 must be points")
        n = reply_candidates(self.r, <color_t>color, last, last2, cand)
        return [cand[i] for i in range(n)]


def playout_move(board: Board, params: PyPlayoutParams, seed: int = 1, moves: tuple = (),
                 replies: ReplyTable | None = None) -> int:
    """The policy's move for board.to_play (a point, or PASS) after `moves` (points, played in turn
    from board.to_play and legal) are played on a copy as a playout plays them: the ko rule sees a ko
    taken among them, the reply rule reads `replies`. board is not changed."""
    cdef Board bd = _check_board(board)
    cdef PlayoutParams pp = make_params(params, bd.s.size)
    cdef Rng rng
    cdef BoardState s = bd.s
    cdef KoMemory ko
    cdef LadderReader reader = _reader_for(&pp)
    _play_moves(&s, &ko, moves)
    rng_seed(&rng, _check_seed(seed), RNG_STREAM)
    return choose(&s, &pp, &rng, &ko, replies.r if replies is not None else NULL, _stack(reader))
