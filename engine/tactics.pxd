# engine/tactics.pxd: the tactical solver's Cython contract (bodies in tactics.pyx).
#
# An AND/OR proof tree over one node store, searched best-first by either Bayesian proof search
# ("probability propagation", PP: Stern, Herbrich & Graepel 2007, Alg. 1-4) or proof-number search
# (PNS, Allis 1994). OR nodes have the attacker to move, AND nodes the defender. Both searchers share
# the store, the move generator, Develop and the tie-break (the lowest child index wins), and differ
# only in selection and backup, so their node counts compare like for like.
#
# Values are three-valued (V_FALSE, V_TRUE, V_UNKNOWN) and kept apart from the belief: `value`
# decides solved-ness, the belief only ranks. PP keeps beliefs as log-odds L = ln(p / (1 - p)),
# +inf for a proved node and -inf for a disproved one; an unsolved node always has a finite L.
#
# The Go goal is capture: TRUE once the goal vertex is empty, FALSE once the goal block has at least
# `libs_false` liberties, UNKNOWN otherwise. Ko: simple ko binds both sides, except that `ko_side` may
# retake a ko at once (GnuGo's conditional ko capture); three such binary searches give GnuGo's
# four-valued results (WIN, KO_A, KO_B, LOSE), see `solve_ko` in tactics.pyx. Positions are not stored in nodes: Develop replays the
# moves from the root on a scratch board (one memcpy plus one play per ply).
#
# Leaf priors: a learned model (engine/tactics_priors.py) hands the solver its pattern table once per
# search as a PriorKernel (a LeafTable in C); Develop prices each new leaf from its move's pattern stack
# with `leaf_logodds`, without the GIL and to the bit as the model's Python code does.
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t

from engine.board cimport MAX_POINTS, BoardState, color_t, point_t

cdef enum:                   # node values (three-valued logic, paper section 2.1)
    V_FALSE = 0
    V_TRUE = 1
    V_UNKNOWN = 2

cdef enum:                   # node kinds
    OR_NODE = 0              # attacker to move: one working move proves it
    AND_NODE = 1             # defender to move: every reply must be refuted

cdef enum:                   # searchers
    METHOD_PP = 0            # Bayesian proof search (probability propagation)
    METHOD_PNS = 1           # proof-number search

cdef enum:                   # move generators of the capture goal
    GEN_REGION = 0           # every empty point of the problem region (stones' bounding box + margin)
    GEN_LOCAL = 1            # goal liberties, second-order liberties, liberties of weak attacker blocks

cdef enum:                   # what Develop expands
    DOMAIN_CAPTURE = 0       # a Go position and a capture goal
    DOMAIN_TREE = 1          # an explicit AND/OR tree given as arrays (tests, synthetic benchmarks)

cdef enum:                   # pattern vertex states: roles, not colours (paper section 4.1)
    S_EMPTY = 0
    S_ATTACKER = 1
    S_DEFENDER = 2
    S_OFF = 3                # off the board
    S_GOAL = 4               # a stone of the goal block

cdef enum:
    N_SIZES = 8              # nested templates T_0 .. T_7
    N_OFFSETS = 37           # points of T_7
    MAX_MOVES = 1024         # children one node can have (>= MAX_SIZE ** 2; explicit trees may use all)
    MAX_PLIES = 1024         # hard bound on max_depth (the replay path buffer)

cdef struct ProofNode:       # 48 bytes
    int32_t parent           # -1 at the root
    int32_t first_child      # children are contiguous: first_child .. first_child + n_children - 1
    int32_t n_children
    int32_t move             # the point played to reach this node (0 at the root); a tree id in DOMAIN_TREE
    uint8_t kind             # OR_NODE or AND_NODE
    int8_t value             # V_FALSE, V_TRUE or V_UNKNOWN
    uint8_t developed        # 1 once Develop ran (a developed node with 0 children had no moves)
    int32_t best             # the child selection descends into (lowest index among equals), kept by the
                             # backup; valid while n_children > 0 (fits the padding: still 48 bytes)
    double a                 # PP: log-odds of TRUE; PNS: proof number
    double b                 # PNS: disproof number (unused by PP)
    double t                 # PP: cached share of the parent's sum, softplus(-L) (OR node) or softplus(L) (AND node)

cdef enum:                   # leaf-prior kernels (PriorKernel): a learned model's table, searched in C
    KERNEL_CONST = 0         # one log-odds for every leaf (UniformPrior)
    KERNEL_BETA = 1          # the largest pattern of the stack found in the table decides (BetaPrior)
    KERNEL_HIER = 2          # exact belief propagation along the stack (HierGaussPrior)
    KERNEL_VALS = 4          # doubles per table slot: BETA: log-odds; HIER: tau, rho and the message
                             # (tau, rho) the pattern sends its parent

cdef struct TableSlot:       # 40 bytes: a key and its values share a cache line or two
    uint64_t key             # 0: an empty slot (the key 0 itself lives in LeafTable.zero)
    double v[4]              # KERNEL_VALS values

cdef struct LeafTable:       # an open-addressing hash table of pattern keys (linear probing)
    int kind
    int64_t mask             # slots - 1, a power of two; -1 before allocation
    TableSlot* slots
    TableSlot zero           # the key 0, if zero_used
    bint zero_used
    double base              # CONST, BETA: the log-odds when no pattern of the stack is in the table
    double tau0              # HIER: the prior on x_0, natural parameters
    double rho0
    double beta_sq[7]        # HIER: the variances of x_{i+1} | x_i
    double clip              # |log-odds| limit, INFINITY for none
    double scale             # the search's log-odds: scale * clip(x) + shift (BETA, HIER)
    double shift

cdef struct Store:
    ProofNode* nodes         # realloc'd as the tree grows
    uint64_t* keys           # N_SIZES pattern keys per node (its move's stack), NULL unless kept
    int32_t n                # nodes in use
    int32_t capacity         # nodes allocated
    bint keep_keys

cdef struct CaptureGoal:
    BoardState root          # the problem position (the first mover's turn, ko point cleared if it was the other's)
    BoardState work          # scratch: the position of the node being developed
    BoardState scratch       # scratch for the rare exact liberty count after a capture
    point_t goal             # the goal vertex: TRUE once it is empty
    color_t attacker
    int libs_false           # L of the paper's goal function: FALSE once the goal block has >= L liberties
    int gen                  # GEN_REGION or GEN_LOCAL
    bint mark_block          # patterns mark the whole goal block (else the goal vertex only)
    int counter_slack        # GEN_LOCAL: the defender attacks adjacent blocks with <= libs(goal) + slack liberties
                             # (liberties shared with the goal not counted; a goal liberty the attacker cannot
                             # fill at once counts twice)
    int defender_reach       # GEN_LOCAL: 2 adds every empty point within distance 2 of the goal block for the defender
    bint defender_pass       # the defender may pass (its last child at every AND node)
    color_t ko_side          # the colour that may retake a ko at once (a conditional ko capture, as if after a
                             # ko threat that was answered), EMPTY for neither: see develop_capture's komaster rules
    int n_region
    point_t region[MAX_POINTS]   # GEN_REGION: the region's points in ascending order

# --- log-odds arithmetic (paper eqs. 1 and 2, in stable form) ---
cdef double softplus(double x) noexcept nogil           # ln(1 + e^x)
cdef double log1mexp(double x) noexcept nogil           # ln(1 - e^x) for x <= 0
cdef double combine_and(const double* L, int n, int stride) noexcept nogil   # L of an AND of n independent children
cdef double combine_or(const double* L, int n, int stride) noexcept nogil    # L of an OR: -AND(-L)

# --- the capture goal ---
cdef int goal_value(const BoardState* b, const CaptureGoal* g) noexcept nogil   # V_* of a position
cdef int generate(CaptureGoal* g, const BoardState* b, color_t mover, point_t* out) noexcept nogil
    # Candidate moves of `mover` at b (legal or not; the caller checks), goal liberties first, the rest
    # in ascending point order, no duplicates. Returns the count.
cdef int child_value(CaptureGoal* g, const BoardState* b, point_t m, color_t mover) noexcept nogil
    # V_* of the position after the legal move m, from b without playing it unless a capture forces an
    # exact count.
cdef double leaf_logodds(const LeafTable* t, const uint64_t* stack) noexcept nogil
    # The prior log-odds of a leaf whose move has this stack of N_SIZES pattern keys: the same double,
    # to the bit, as the Python model's logodds.
cdef void pattern_stack(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                        int role, bint mark_block, uint64_t* out) noexcept nogil
    # The 8 nested pattern keys around the empty point m (role 0: attacker moves, 1: defender moves),
    # each the minimum over the 8 board symmetries of a Zobrist hash of the template's vertex states.
