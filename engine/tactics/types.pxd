# engine/tactics/types.pxd: the C types every module of the tactical solver shares (no bodies).
#
# An AND/OR proof tree over one node store (`Store` of `ProofNode`s). OR nodes have the attacker to move,
# AND nodes the defender. Values are three-valued (V_FALSE, V_TRUE, V_UNKNOWN) and kept apart from the
# belief: `value` decides solved-ness, the belief only ranks (see solver.pyx).
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t

from engine.board cimport MAX_POINTS, BoardState, color_t, point_t

cdef extern from *:
    void prefetch "__builtin_prefetch"(const void* p) noexcept nogil   # start a cache line's load

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
    DOMAIN_CAPTURE = 0       # a Go position and a capture goal (goal.pyx)
    DOMAIN_TREE = 1          # an explicit AND/OR tree given as arrays (andortree.pyx: tests, synthetic benchmarks)

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

cdef struct Store:
    ProofNode* nodes         # realloc'd as the tree grows
    uint64_t* keys           # N_SIZES pattern keys per node (its move's stack), NULL unless kept
    int32_t n                # nodes in use
    int32_t capacity         # nodes allocated
    bint keep_keys

cdef enum:                   # leaf-prior kernels (leafkernel.PriorKernel): a learned model's table, searched in C
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

# A solver's memo of pattern stacks by the states of the 37 template points, as seen unrotated (a 64-bit
# Zobrist hash of them and the role): the same local shape recurs at many nodes of one search, and its
# 8 oriented hashes per size then need not be recomputed.
cdef struct PatternMemo:
    uint64_t key
    uint64_t stack[N_SIZES]
    bint used

# A solver's memo of leaf log-odds by the largest pattern of the stack (which fixes the smaller ones, as
# the Python models' caches assume): most of a node's children keep the patterns they had when its
# ancestors were developed, so the kernel's 8 table probes and its Gaussian arithmetic run far less often.
cdef struct LeafMemo:
    uint64_t key
    double value
    double offset                # the leaf offset (branching log-odds) `share` was taken with
    double share                 # share(value + offset, kind): the leaf's term in its parent's sum
    uint32_t epoch               # valid when equal to the solver's memo_epoch (0: never)
    uint8_t kind                 # the node kind `share` was taken for

cdef enum:
    PATTERN_MEMO_BITS = 15       # the most entries (2^bits) of a solver's pattern memo
    MEMO_BITS = 16               # the most entries (2^bits) of a solver's leaf memo
    MEMO_START_BITS = 10         # both memos start this small (a short search pays little for them)

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
                             # ko threat that was answered), EMPTY for neither: see goal.pyx's komaster rules
    int n_region
    point_t region[MAX_POINTS]   # GEN_REGION: the region's points in ascending order

cdef struct Komaster:        # who made a conditional ko capture on the line being developed (goal.replay)
    color_t color            # EMPTY: nobody
    point_t point            # where its last one captured a stone (the opponent's retake point)

cdef struct TreeArrays:      # an explicit AND/OR tree (andortree.pyx): node i's children and values
    const int32_t* first     # its children are first[i] .. first[i] + count[i] - 1
    const int32_t* count
    const int8_t* value      # V_* (UNKNOWN: developed into its children)
    const double* prior      # its leaf log-odds for PP
    int32_t size
