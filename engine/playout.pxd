# engine/playout.pxd: the playout policy's Cython contract (bodies in playout.pyx).
#
# A playout plays a position to the end with a fast policy in the spirit of MoGo/Pachi "moggy": retake
# kos, replay the search's last good replies, answer ataris, read ladders, take the vital point of
# small eye spaces, 3x3 shape moves near the last move, avoid bad self-ataris and own-eye fills, fill
# empty areas, otherwise uniform random among legal non-eye moves. Each rule can be switched off. No
# hashing/superko, only simple ko.
from engine.board cimport BoardState, point_t, color_t, MAX_POINTS
from engine.rng cimport Rng
from engine.policy_replies cimport Replies
from engine.ladder cimport Ladder

cdef enum:
    MAX_PLAYOUT_MOVES = 1000   # hard cap on the record; params.max_moves is the usual limit
    KO_AGE = 4                 # a ko taken fewer moves ago than this may be retaken (Pachi's koage)

cdef struct PlayoutParams:     # mirrors engine.params.PlayoutParams (see there for meanings)
    int capture_rate           # % of moves that try to capture the last move's group in atari
    int save_rate              # % that try to save own groups put in atari by the last move
    int pattern_rate           # % that try 3x3 shape moves around the last two moves
    int self_atari_rate        # % of checks that refuse self-atari of groups of >= 2 stones
    int ko_rate                # % of moves that retake a ko lost in the last KO_AGE moves
    int ko_threat_rate         # % of moves right after losing a ko that play a threat (an atari elsewhere)
    int ladder_rate            # % of moves that read ladders: no escape into one, atari into a working one
    int nakade_rate            # % that play the vital point of a 3- to 6-point eye space next to the last move
    int useful_self_atari_rate # % of checks that allow a self-atari only as a nakade or a throw-in
    int nakade_self_atari_rate # % of refused self-ataris of >= 2 stones allowed when they are a nakade
    int fill_board_rate        # % that try a point with 8 empty neighbours before the random move
    int reply_rate             # % of moves that try the last good reply (LGRF-2) of the search thread
    int max_moves              # playout length limit (moves beyond the starting position)

cdef struct PlayoutRecord:     # what the search needs for AMAF updates and ownership
    int n_moves
    point_t moves[MAX_PLAYOUT_MOVES]
    color_t colors[MAX_PLAYOUT_MOVES]

cdef bint shape_move(unsigned short code, color_t c) noexcept nogil
    # Playing the centre of the 3x3 neighbourhood with this pat3 code is a shape move for c (the
    # MoGo/Gelly patterns the policy plays near the last move).

cdef point_t choose_move(BoardState* b, const PlayoutParams* pp, Rng* rng, Ladder* ladder) noexcept nogil
    # The policy's move for b.to_play: a legal point, or PASS when no acceptable move is left. ladder: a
    # reader's stack for the ladder rules (NULL: they are off; give one when pp.ladder_rate > 0).

cdef float run(BoardState* b, const PlayoutParams* pp, Rng* rng, PlayoutRecord* rec,
               const Replies* replies, Ladder* ladder) noexcept nogil
    # Play b to the end (two passes, or pp.max_moves capped at MAX_PLAYOUT_MOVES; 0 means 3 * size * size)
    # and return playout_score (black - white - komi). b is changed in place (callers pass a copy); rec,
    # if not NULL, gets every move played (passes included) from rec.moves[0], and rec.n_moves is set.
    # replies: the search thread's last good replies for the reply rule (NULL: the rule is off); ladder:
    # the thread's ladder reader (NULL: the ladder rules are off).

cpdef PlayoutParams make_params(object p, int size) except *
    # The C parameters for an engine.params.PlayoutParams on a size x size board: max_moves 0 becomes
    # 3 * size * size, and every max_moves is capped at MAX_PLAYOUT_MOVES. ValueError on a bad value.
    # (From Python it returns a dict of the fields.)
