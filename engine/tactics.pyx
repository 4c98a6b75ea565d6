# engine/tactics.pyx: Bayesian proof search and proof-number search for capture goals (contract in
# tactics.pxd).
#
# Sections: log-odds arithmetic; the leaf-prior kernel; the capture goal (value, move generator,
# pattern keys); the node store; the Solver (Develop, selection and backup of PP and PNS on the same
# store, nogil); the Python API (parameters, the liberty loop of the paper's section 5, GnuGo-style
# attack/defend).
#
# Paper gaps and our choices follow ../shared/specs/bayes-proof.md (G1-G6): the search loops while the
# root is UNKNOWN (never on a float probability), a leaf with no moves is TRUE at an AND node and
# FALSE at an OR node (empty product), and the goal is "goal vertex empty" (TRUE) against "goal block
# has >= L liberties" (FALSE), with L raised after every FALSE.
from engine.rng cimport splitmix64
cimport cython
from libc.math cimport INFINITY, exp, expm1, isfinite, log, log1p, sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from engine cimport board
from engine.board cimport (BLACK, EDGE, EMPTY, LIBS_EXACT, MAX_POINTS, MAX_SIZE, NO_POINT, PASS, WHITE, Board,
                           BoardState, color_t, point_t)

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from engine.params import TacticsParams

cdef double LN2 = 0.6931471805599453
cdef int DEPTH_CUTOFF = -2                   # develop_capture's answer at max_depth
cdef int NODE_DOUBLES = sizeof(ProofNode) // sizeof(double)   # stride between siblings' `a` fields


cdef inline double share(double L, int kind) noexcept nogil:
    """A node's term in its parent's sum: -ln P(TRUE) under an AND parent (the node is an OR node),
    -ln P(FALSE) under an OR parent (an AND node)."""
    return softplus(-L) if kind == OR_NODE else softplus(L)
cdef double BIG = 1.7976931348623157e308     # an unsolved node's log-odds is clamped to +-BIG


# --- log-odds arithmetic ---

cdef double softplus(double x) noexcept nogil:
    if x > 0.0:
        return x + log1p(exp(-x))
    return log1p(exp(x))


cdef double log1mexp(double x) noexcept nogil:
    # ln(1 - e^x), accurate on both sides of -ln 2 (Maechler 2012)
    if x > -LN2:
        return log(-expm1(x))
    return log1p(-exp(x))


cdef double combine_and(const double* L, int n, int stride) noexcept nogil:
    """Eq. (1) in log-odds: s = ln P = sum ln p_c, then L = s - ln(1 - e^s).

    A TRUE child (+inf) adds nothing and a FALSE one (-inf) makes s = -inf. When s underflows to ~0
    (every child within ~1e-290 of 1), ln(1 - P) is taken as ln sum(1 - p_c) instead, whose relative
    error is below sum(1 - p_c)."""
    cdef double s = 0.0, t, m, acc, x
    cdef int i
    for i in range(n):
        s -= softplus(-L[i * stride])
    if s == -INFINITY:
        return -INFINITY
    if s < -1e-290:
        return s - log1mexp(s)
    m = -INFINITY                       # t = ln sum_c (1 - p_c) = logsumexp(-softplus(L_c))
    for i in range(n):
        x = -softplus(L[i * stride])
        if x > m:
            m = x
    if m == -INFINITY:
        return INFINITY                 # every child TRUE
    acc = 0.0
    for i in range(n):
        acc += exp(-softplus(L[i * stride]) - m)
    t = m + log(acc)
    return s - t


cdef double combine_or(const double* L, int n, int stride) noexcept nogil:
    """Eq. (2): P = 1 - prod(1 - p_c), i.e. L(OR) = -L(AND of the negated children), as L(1-p) = -L(p)."""
    cdef double s = 0.0, t, m, acc, x
    cdef int i
    for i in range(n):
        s -= softplus(L[i * stride])
    if s == -INFINITY:
        return INFINITY
    if s < -1e-290:
        return -(s - log1mexp(s))
    m = -INFINITY
    for i in range(n):
        x = -softplus(-L[i * stride])
        if x > m:
            m = x
    if m == -INFINITY:
        return -INFINITY
    acc = 0.0
    for i in range(n):
        acc += exp(-softplus(-L[i * stride]) - m)
    t = m + log(acc)
    return -(s - t)


def and_logodds(values) -> float:
    """Log-odds of an AND node whose children have these log-odds (eq. 1)."""
    cdef double[::1] v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if v.shape[0] == 0:
        return math.inf
    return combine_and(&v[0], v.shape[0], 1)


def or_logodds(values) -> float:
    """Log-odds of an OR node whose children have these log-odds (eq. 2)."""
    cdef double[::1] v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if v.shape[0] == 0:
        return -math.inf
    return combine_or(&v[0], v.shape[0], 1)


# --- the leaf-prior kernel: a learned model's table, searched without the GIL ---
#
# The Python models (engine/tactics_priors.py) export their pattern tables once per query; the
# search then prices every new leaf in C. The arithmetic below repeats the models' Python
# expressions operation for operation, and is compiled without fused multiply-adds, so that both
# paths give the same doubles (libm serves Python's math module as well).

cdef extern from *:
    """
    #include <math.h>
    #pragma GCC push_options
    #pragma GCC optimize ("fp-contract=off")
    static double tk_erfcx(double x) {
        double inv;
        if (x < 26.0) return exp(x * x) * erfc(x);
        inv = 1.0 / (x * x);
        return (1.0 - 0.5 * inv + 0.75 * inv * inv - 1.875 * pow(inv, 3.0)) / (x * sqrt(3.141592653589793));
    }
    static double tk_log_ndtr(double t) {
        if (t > -5.0) return log(0.5 * erfc(-t / sqrt(2.0)));
        return log(0.5 * tk_erfcx(-t / sqrt(2.0))) - 0.5 * t * t;
    }
    /* the message a Gaussian (tau, rho) on x_{i+1} sends x_i through N(x_{i+1}; x_i, beta_sq) */
    static double tk_affine(double a, double x, double b) { return a * x + b; }
    static void tk_up(double tau, double rho, double beta_sq, double* out) {
        double d = 1.0 + beta_sq * tau;
        out[0] = tau / d;
        out[1] = rho / d;
    }
    #pragma GCC pop_options
    """
    double tk_log_ndtr(double t) noexcept nogil
    void tk_up(double tau, double rho, double beta_sq, double* out) noexcept nogil
    double tk_affine(double a, double x, double b) noexcept nogil
    void prefetch "__builtin_prefetch"(const void* p) noexcept nogil


cdef inline double clip_logodds(double x, double c) noexcept nogil:
    # min(c, max(-c, x)), as the Python models clip
    if x < -c:
        x = -c
    return c if c < x else x


cdef inline double calibrate(const LeafTable* t, double x) noexcept nogil:
    # the models' _calibrate: clipped, then scale * x + shift
    return tk_affine(t.scale, clip_logodds(x, t.clip), t.shift)


cdef inline uint64_t slot_of(uint64_t key) noexcept nogil:
    return (key * 0x9E3779B97F4A7C15ULL) >> 17


cdef inline const double* table_find(const LeafTable* t, uint64_t key) noexcept nogil:
    """The values of key, or NULL when it is not in the table."""
    cdef int64_t i
    if key == 0:
        return t.zero.v if t.zero_used else NULL
    if t.mask < 0:
        return NULL
    i = <int64_t>(slot_of(key) & <uint64_t>t.mask)
    while t.slots[i].key != 0:
        if t.slots[i].key == key:
            return t.slots[i].v
        i = (i + 1) & t.mask
    return NULL


cdef double leaf_logodds(const LeafTable* t, const uint64_t* stack) noexcept nogil:
    cdef const double* v
    cdef const double* child
    cdef double tau, rho, mt, mr, var, mu
    cdef int i
    if t.kind == KERNEL_CONST:
        return t.base
    if t.kind == KERNEL_BETA:
        for i in range(N_SIZES - 1, -1, -1):
            v = table_find(t, stack[i])
            if v != NULL:
                return v[0]
        return t.base
    if t.mask >= 0:                     # the probes below miss the cache: start them all at once
        for i in range(N_SIZES):
            prefetch(&t.slots[slot_of(stack[i]) & <uint64_t>t.mask])
    # HierGaussPrior.belief: marginal of x_i, then the cavity (minus the child's message) sent down
    tau = t.tau0
    rho = t.rho0
    v = table_find(t, stack[0])
    for i in range(N_SIZES):
        if v != NULL:
            tau = tau + v[0]
            rho = rho + v[1]
        if i == N_SIZES - 1:
            break
        # every stored pattern's parent is stored (HierGaussPrior._add), so past the first unseen
        # pattern no larger one is in the table: only the variance grows from there
        child = table_find(t, stack[i + 1]) if v != NULL else NULL
        mt = child[2] if child != NULL else 0.0
        mr = child[3] if child != NULL else 0.0
        tau = tau - mt
        rho = rho - mr
        var = 1.0 / tau + t.beta_sq[i]
        rho = (rho / tau) / var
        tau = 1.0 / var
        v = child
    mu = rho / tau
    var = 1.0 / tau + 1.0
    mu = mu / sqrt(var)
    return calibrate(t, tk_log_ndtr(mu) - tk_log_ndtr(-mu))


@cython.final
cdef class PriorKernel:
    """A learned leaf prior's table in C, for `Solver` (see `leaf_logodds`). Build one with
    `constant`, `beta` or `hier` from the model's arrays; `logodds` prices stacks as the model does."""
    cdef LeafTable t

    def __cinit__(self):
        memset(&self.t, 0, sizeof(LeafTable))
        self.t.mask = -1
        self.t.clip = INFINITY
        self.t.scale = 1.0

    def __dealloc__(self):
        free(self.t.slots)

    cdef int _alloc(self, int64_t n) except -1:
        cdef int64_t slots = 16
        while slots < 2 * n:
            slots *= 2
        self.t.slots = <TableSlot*>malloc(slots * sizeof(TableSlot))
        if self.t.slots == NULL:
            raise MemoryError()
        memset(self.t.slots, 0, slots * sizeof(TableSlot))
        self.t.mask = slots - 1
        return 0

    cdef double* _insert(self, uint64_t key) noexcept nogil:
        cdef int64_t i
        if key == 0:
            self.t.zero_used = True
            return self.t.zero.v
        i = <int64_t>(slot_of(key) & <uint64_t>self.t.mask)
        while self.t.slots[i].key != 0 and self.t.slots[i].key != key:
            i = (i + 1) & self.t.mask
        self.t.slots[i].key = key
        return self.t.slots[i].v

    cdef int _calibration(self, clip, double scale, double shift) except -1:
        if clip is not None and not clip > 0:
            raise ValueError("clip must be positive")
        if not (isfinite(scale) and scale >= 0 and isfinite(shift)):
            raise ValueError("scale must be finite and >= 0, shift finite")
        self.t.clip = math.inf if clip is None else float(clip)
        self.t.scale = scale
        self.t.shift = shift
        return 0

    @staticmethod
    def constant(double logodds) -> PriorKernel:
        """The same log-odds for every leaf."""
        if not isfinite(logodds):
            raise ValueError("leaf log-odds must be finite")
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        k.t.kind = KERNEL_CONST
        k.t.base = logodds
        return k

    @staticmethod
    def beta(keys, counts, double alpha0, double beta0, clip=None, double scale=1.0,
             double shift=0.0) -> PriorKernel:
        """BetaPrior: keys (n,) uint64 with counts (n, 2) of TRUE and FALSE; a stack's log-odds is
        ln((alpha0 + TRUE) / (beta0 + FALSE)) of its largest pattern with a count, clipped, then
        scale * x + shift."""
        cdef uint64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
        cdef double[:, ::1] cv = np.ascontiguousarray(counts, dtype=np.float64).reshape(-1, 2)
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        cdef int64_t i
        cdef double* slot
        if cv.shape[0] != kv.shape[0]:
            raise ValueError("keys and counts do not match")
        if not (alpha0 > 0 and beta0 > 0):
            raise ValueError("alpha0 and beta0 must be positive")
        k.t.kind = KERNEL_BETA
        k._calibration(clip, scale, shift)
        k.t.base = calibrate(&k.t, log(alpha0 / beta0))
        k._alloc(kv.shape[0])
        for i in range(kv.shape[0]):
            if cv[i, 0] + cv[i, 1] > 0:
                slot = k._insert(kv[i])
                slot[0] = calibrate(&k.t, log((alpha0 + cv[i, 0]) / (beta0 + cv[i, 1])))
        return k

    @staticmethod
    def hier(keys, b, level, double mu0, double sigma0_sq, beta_sq, clip=None, double scale=1.0,
             double shift=0.0) -> PriorKernel:
        """HierGaussPrior: keys (n,) uint64 with b (n, 2) = (tau, rho) from below and level (n,). The keys
        hold every stored pattern's parent, as HierGaussPrior's do: a query stops probing at the first
        pattern of its stack not among them."""
        cdef uint64_t[::1] kv = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
        cdef double[:, ::1] bv = np.ascontiguousarray(b, dtype=np.float64).reshape(-1, 2)
        cdef int64_t[::1] lv = np.ascontiguousarray(level, dtype=np.int64).reshape(-1)
        cdef PriorKernel k = PriorKernel.__new__(PriorKernel)
        cdef int64_t i
        cdef double* slot
        bs = [float(x) for x in beta_sq]
        if bv.shape[0] != kv.shape[0] or lv.shape[0] != kv.shape[0]:
            raise ValueError("keys, b and level do not match")
        if len(bs) != N_SIZES - 1 or not min(bs) > 0 or not sigma0_sq > 0:
            raise ValueError("bad hierarchical prior parameters")
        if kv.shape[0] and (np.min(level) < 0 or np.max(level) >= N_SIZES):
            raise ValueError("levels out of range")
        k.t.kind = KERNEL_HIER
        k._calibration(clip, scale, shift)
        k.t.tau0 = 1.0 / sigma0_sq
        k.t.rho0 = mu0 / sigma0_sq
        for i in range(N_SIZES - 1):
            k.t.beta_sq[i] = bs[i]
        k._alloc(kv.shape[0])
        for i in range(kv.shape[0]):
            slot = k._insert(kv[i])
            slot[0] = bv[i, 0]
            slot[1] = bv[i, 1]
            slot[2] = 0.0
            slot[3] = 0.0
            if lv[i] > 0:
                tk_up(bv[i, 0], bv[i, 1], k.t.beta_sq[lv[i] - 1], &slot[2])
        return k

    @property
    def kind(self) -> str:
        return ("constant", "beta", "hier")[self.t.kind]

    def __len__(self) -> int:
        cdef int64_t i, n = 1 if self.t.zero_used else 0
        for i in range(self.t.mask + 1):
            n += self.t.slots[i].key != 0
        return n

    def logodds(self, keys) -> np.ndarray:
        """The leaf log-odds of each (n, 8) uint64 stack."""
        cdef uint64_t[:, ::1] kv
        keys = np.asarray(keys)
        if keys.ndim != 2 or keys.shape[1] != N_SIZES or keys.dtype != np.uint64:
            raise ValueError(f"keys must be a (n, {N_SIZES}) uint64 array, got {keys.dtype} {keys.shape}")
        kv = np.ascontiguousarray(keys)
        out = np.empty(kv.shape[0], dtype=np.float64)
        cdef double[::1] ov = out
        cdef int64_t i
        for i in range(kv.shape[0]):
            ov[i] = leaf_logodds(&self.t, &kv[i, 0])
        return out


# --- pattern templates (paper section 4.1, Fig. 5) ---

cdef int OFF_X[N_OFFSETS]
cdef int OFF_Y[N_OFFSETS]
cdef int SIZE_END[N_SIZES]
cdef uint64_t PZ[N_OFFSETS][5]           # Zobrist key of state s at template position k
cdef uint64_t SIZE_SALT[N_SIZES]
cdef uint64_t ROLE_SALT[2]
cdef int SYM_PERM[8][N_OFFSETS]          # the template point symmetry s maps template point k to

# Offsets added at each size, in template order: T_i is every offset of sizes 0..i.
TEMPLATE_RINGS = (
    ((0, 0),),
    ((1, 0), (-1, 0), (0, 1), (0, -1)),
    ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    ((2, 0), (-2, 0), (0, 2), (0, -2)),
    ((2, 1), (2, -1), (-2, 1), (-2, -1), (1, 2), (1, -2), (-1, 2), (-1, -2)),
    ((3, 0), (-3, 0), (0, 3), (0, -3)),
    ((2, 2), (2, -2), (-2, 2), (-2, -2)),
    ((3, 1), (3, -1), (-3, 1), (-3, -1), (1, 3), (1, -3), (-1, 3), (-1, -3)),
)




def _init_patterns() -> None:
    cdef uint64_t state = 0x7AC71C5ULL
    cdef int k = 0, i, s
    for i, ring in enumerate(TEMPLATE_RINGS):
        for dx, dy in ring:
            OFF_X[k] = dx
            OFF_Y[k] = dy
            k += 1
        SIZE_END[i] = k
    for k in range(N_OFFSETS):
        for s in range(5):
            PZ[k][s] = splitmix64(&state)
    for i in range(N_SIZES):
        SIZE_SALT[i] = splitmix64(&state)
    ROLE_SALT[0] = splitmix64(&state)
    ROLE_SALT[1] = splitmix64(&state)
    where = {(OFF_X[j], OFF_Y[j]): j for j in range(N_OFFSETS)}
    for s in range(8):                   # bit 0: mirror x, bit 1: mirror y, bit 2: swap x and y
        for k in range(N_OFFSETS):
            x = -OFF_X[k] if s & 1 else OFF_X[k]
            y = -OFF_Y[k] if s & 2 else OFF_Y[k]
            if s & 4:
                x, y = y, x
            SYM_PERM[s][k] = where[(x, y)]


_init_patterns()


cdef void pattern_stack(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                        int role, bint mark_block, uint64_t* out) noexcept nogil:
    cdef uint8_t state[N_OFFSETS]
    pattern_states(b, m, goal_group, goal, attacker, mark_block, state)
    stack_of_states(state, role, out)


# A solver's memo of pattern stacks by the states of the 37 template points, as seen unrotated (a 64-bit
# Zobrist hash of them and the role): the same local shape recurs at many nodes of one search, and its
# 8 oriented hashes per size then need not be recomputed.
cdef struct PatternMemo:
    uint64_t key
    uint64_t stack[N_SIZES]
    bint used

cdef enum:
    PATTERN_MEMO_BITS = 15           # the most entries (2^bits) of a solver's pattern memo


cdef inline uint8_t point_state(const BoardState* b, point_t q, point_t goal_group, point_t goal, color_t attacker,
                                bint mark_block) noexcept nogil:
    """The template state of the board point q: empty, goal (the goal stone, or its block with
    mark_block), attacker or defender."""
    cdef color_t col = b.color[q]
    if col == EMPTY:
        return S_EMPTY
    if (mark_block and goal_group != 0 and b.group[q] == goal_group) or q == goal:
        return S_GOAL
    return S_ATTACKER if col == attacker else S_DEFENDER


cdef void pattern_states(const BoardState* b, point_t m, point_t goal_group, point_t goal, color_t attacker,
                         bint mark_block, uint8_t* state) noexcept nogil:
    """The state (off-board, empty, goal, attacker, defender) of each template point around m."""
    cdef int r = m // b.stride - 1, c = m % b.stride - 1
    cdef int k, rr, cc
    for k in range(N_OFFSETS):
        rr = r + OFF_Y[k]
        cc = c + OFF_X[k]
        if rr < 0 or cc < 0 or rr >= b.size or cc >= b.size:
            state[k] = S_OFF
        else:
            state[k] = point_state(b, <point_t>((rr + 1) * b.stride + cc + 1), goal_group, goal, attacker,
                                   mark_block)


cdef enum:
    GRID_MARGIN = 3                  # the template's reach
    GRID_WIDTH = MAX_SIZE + 2 * GRID_MARGIN


cdef inline int grid_at(int row, int col) noexcept nogil:
    """The cell of board (row, col) in a state grid: the board with a margin of GRID_MARGIN off-board
    cells, so that every template point of a board point is a cell."""
    return (row + GRID_MARGIN) * GRID_WIDTH + col + GRID_MARGIN


cdef inline int point_cell(point_t p, int stride) noexcept nogil:
    """The state-grid cell of the board point p."""
    return grid_at(p // stride - 1, p % stride - 1)


cdef void grid_states(const BoardState* b, point_t goal_group, point_t goal, color_t attacker, bint mark_block,
                      int r0, int r1, int c0, int c1, uint8_t* grid) noexcept nogil:
    """pattern_states' state of every board point in rows r0..r1, columns c0..c1 (clipped to the board)
    into the grid; the grid's other cells are left as they are (off-board cells stay S_OFF)."""
    cdef int r, c
    r0 = max(r0, 0)
    c0 = max(c0, 0)
    r1 = min(r1, b.size - 1)
    c1 = min(c1, b.size - 1)
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            grid[grid_at(r, c)] = point_state(b, <point_t>((r + 1) * b.stride + c + 1), goal_group, goal,
                                              attacker, mark_block)


cdef int GRID_OFF[N_OFFSETS]             # template point k's cell relative to the centre's, in a state grid
for _k in range(N_OFFSETS):
    GRID_OFF[_k] = OFF_Y[_k] * GRID_WIDTH + OFF_X[_k]


cdef inline uint64_t grid_raw_key(const uint8_t* grid, int centre, int role) noexcept nogil:
    """The pattern memo's key of the template around a grid cell: a Zobrist hash of its 37 states,
    unrotated, and the role."""
    cdef uint64_t raw = ROLE_SALT[role]
    cdef int k
    for k in range(N_OFFSETS):
        raw ^= PZ[k][grid[centre + GRID_OFF[k]]]
    return raw


cdef void pattern_stack_grid(PatternMemo* memo, int bits, const uint8_t* grid, int centre, int role,
                             uint64_t raw, uint64_t* out) noexcept nogil:
    """The stack of the template around a grid cell (raw: its grid_raw_key), from the memo when there."""
    cdef uint8_t state[N_OFFSETS]
    cdef int k
    cdef PatternMemo* e
    e = &memo[raw >> (64 - bits)]
    if e.used and e.key == raw:
        memcpy(out, e.stack, N_SIZES * sizeof(uint64_t))
        return
    for k in range(N_OFFSETS):
        state[k] = grid[centre + GRID_OFF[k]]
    stack_of_states(state, role, out)
    e.key = raw
    e.used = True
    memcpy(e.stack, out, N_SIZES * sizeof(uint64_t))


cdef uint64_t PASS_SALT = 0x5A55C0FFEE1234F1ULL


cdef void pass_stack(int role, uint64_t* out) noexcept nogil:
    # a pass has no neighbourhood: one fixed key per size and role
    cdef int size
    for size in range(N_SIZES):
        out[size] = PASS_SALT ^ SIZE_SALT[size] ^ ROLE_SALT[role]


cdef void stack_of_states(const uint8_t* state, int role, uint64_t* out) noexcept nogil:
    # symmetry s sees at template position k the state of point SYM_PERM[s][k] (the template is closed
    # under the 8 symmetries); each size's key is the least of its 8 oriented hashes
    cdef uint64_t h[8]
    cdef uint64_t best
    cdef int size, k, s
    memset(h, 0, sizeof(h))
    k = 0
    for size in range(N_SIZES):
        while k < SIZE_END[size]:
            for s in range(8):
                h[s] ^= PZ[k][state[SYM_PERM[s][k]]]
            k += 1
        best = h[0]
        for s in range(1, 8):
            if h[s] < best:
                best = h[s]
        out[size] = best ^ SIZE_SALT[size] ^ ROLE_SALT[role]


# --- the capture goal ---

cdef int block_libs(const BoardState* b, point_t gid, point_t* out, uint8_t* seen) noexcept nogil:
    """Every liberty of the block gid (seen: a zeroed MAX_POINTS mask, left marked). Returns the count."""
    cdef int n = 0, k
    cdef point_t s = gid, q
    cdef int d[4]
    board.nbrs4(b.stride, d)
    while s != 0:
        for k in range(4):
            q = s + d[k]
            if b.color[q] == EMPTY and not seen[q]:
                seen[q] = 1
                out[n] = q
                n += 1
        s = b.next_stone[s]
    return n


cdef inline int count_libs(const BoardState* b, point_t gid, int limit) noexcept nogil:
    """Liberties of the block gid, exact below limit (n_libs is exact up to LIBS_EXACT, a bound above)."""
    cdef int n = b.groups[gid].n_libs
    if n <= LIBS_EXACT or n >= limit:
        return n
    return board.exact_libs(b, gid)


cdef int goal_value(const BoardState* b, const CaptureGoal* g) noexcept nogil:
    if b.color[g.goal] == EMPTY:
        return V_TRUE
    if count_libs(b, b.group[g.goal], g.libs_false) >= g.libs_false:
        return V_FALSE
    return V_UNKNOWN


cdef int REACH2_DR[12]
cdef int REACH2_DC[12]
for _k, (_dr, _dc) in enumerate([(0, 1), (0, -1), (1, 0), (-1, 0), (0, 2), (0, -2), (2, 0), (-2, 0),
                                 (1, 1), (1, -1), (-1, 1), (-1, -1)]):
    REACH2_DR[_k] = _dr
    REACH2_DC[_k] = _dc


cdef int SUPERSTRING_LIBS = 3                # GEN_LOCAL: defender blocks next to a goal liberty with at most
                                             # this many liberties join the goal's move set (the defender's:
                                             # one more, as it may fill their outside liberties to win a race)


cdef int atari_neighbour_libs(const BoardState* b, point_t gid, color_t other, point_t skip, point_t* out,
                              uint8_t* seen) noexcept nogil:
    """The liberty of every block of colour `other` in atari next to the block gid (but the block
    `skip`), unseen ones only (marked in seen): captures that save gid. Returns the count."""
    cdef point_t around[MAX_POINTS]
    cdef int i, n = 0, n_around = board.neighbour_blocks(b, gid, other, around)
    cdef point_t og, lib
    for i in range(n_around):
        og = around[i]
        if og != skip and b.groups[og].n_libs == 1:
            lib = b.groups[og].libs[0]
            if not seen[lib]:
                seen[lib] = 1
                out[n] = lib
                n += 1
    return n


cdef int weak_neighbour_libs(const BoardState* b, point_t gid, color_t other, int max_libs, point_t* out,
                             uint8_t* seen) noexcept nogil:
    """The liberties of every block of colour `other` next to the block gid with at most max_libs
    liberties, unseen ones only (points marked 1 in seen, blocks 5): the defender's counter-attacks in
    a capturing race of the goal's superstring. Returns the count."""
    cdef point_t around[MAX_POINTS]
    cdef int i, n = 0, n_around = board.neighbour_blocks(b, gid, other, around)
    cdef point_t og
    for i in range(n_around):
        og = around[i]
        if seen[og] != 2 and seen[og] != 5 and count_libs(b, og, max_libs + 1) <= max_libs:
            seen[og] = 5
            n += block_libs(b, og, out + n, seen)
    return n


cdef int unfillable_libs(const BoardState* b, const point_t* libs, int n_libs, color_t attacker) noexcept nogil:
    """Goal liberties the attacker cannot fill at once: suicide or a self-atari there (a stone the
    defender captures) without capturing. Each costs the attacker a move more in a capturing race."""
    cdef int i, n = 0
    for i in range(n_libs):
        if board.libs_after(b, libs[i], attacker, 2) <= 1:
            n += 1
    return n


cdef int shared_libs(const BoardState* b, point_t og, const point_t* libs, int n_libs) noexcept nogil:
    """Liberties of the goal that are liberties of the block og as well."""
    cdef int i, k, n = 0
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for i in range(n_libs):
        for k in range(4):
            if b.group[libs[i] + d[k]] == og and b.color[libs[i] + d[k]] != EMPTY:
                n += 1
                break
    return n


cdef void sort_points(point_t* a, int n) noexcept nogil:
    cdef int i, j
    cdef point_t x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int generate(CaptureGoal* g, const BoardState* b, color_t mover, point_t* out) noexcept nogil:
    cdef uint8_t seen[MAX_POINTS]
    cdef point_t libs[MAX_POINTS]
    cdef point_t more[MAX_POINTS]
    cdef int n_libs, n = 0, n_more = 0, i, j, k, lg, sh, ss_libs
    cdef point_t gid = b.group[g.goal], q, p, og
    cdef color_t defender = 3 - g.attacker
    cdef int d[4]
    board.nbrs4(b.stride, d)
    memset(seen, 0, sizeof(seen))
    n_libs = block_libs(b, gid, libs, seen)
    sort_points(libs, n_libs)
    for i in range(n_libs):
        out[n] = libs[i]
        n += 1
    if g.gen == GEN_REGION:
        for i in range(g.n_region):
            p = g.region[i]
            if b.color[p] == EMPTY and not seen[p]:
                out[n] = p
                n += 1
        return n
    # GEN_LOCAL: second-order liberties, then liberties of attacker blocks next to the goal that are
    # no stronger than it (captures and counter-ataris for the defender, backfilling for the attacker);
    # the defender also counter-attacks blocks in a capturing race with it (see lg below)
    for i in range(n_libs):
        for k in range(4):
            q = libs[i] + d[k]
            if b.color[q] == EMPTY and not seen[q]:
                seen[q] = 1
                more[n_more] = q
                n_more += 1
    if mover != g.attacker and g.defender_reach >= 2:
        # every empty point within Manhattan distance 2 of the block (behind attacker stones too)
        p = gid
        while p != 0:
            for k in range(12):
                q = p + REACH2_DR[k] * b.stride + REACH2_DC[k]
                if 0 < q < b.stride * b.stride and b.color[q] == EMPTY and not seen[q]:
                    seen[q] = 1
                    more[n_more] = q
                    n_more += 1
            p = b.next_stone[p]
    # The defender's counter-attacks are a capturing race: it may fill the liberties of an adjacent
    # attacker block whose own liberties (those it does not share with the goal) are no more than the
    # goal's, counting a goal liberty the attacker cannot fill at once as one more (+ counter_slack).
    lg = n_libs
    if mover != g.attacker:
        lg += g.counter_slack + unfillable_libs(b, libs, n_libs, g.attacker)
    p = gid
    while p != 0:
        for k in range(4):
            q = p + d[k]
            if b.color[q] == g.attacker:
                og = b.group[q]
                if seen[og]:
                    continue            # judged already, next to another goal stone
                sh = shared_libs(b, og, libs, n_libs) if mover != g.attacker else 0
                if count_libs(b, og, lg + sh + 1) - sh > lg:
                    seen[og] = 4        # too strong (stone-point marks cannot clash with a liberty's)
                    continue
                seen[og] = 2
                n_more += block_libs(b, og, more + n_more, seen)
                if mover == g.attacker:
                    n_more += atari_neighbour_libs(b, og, defender, gid, more + n_more, seen)
        p = b.next_stone[p]
    # the superstring: weak defender blocks next to a goal liberty (the goal joins them by playing
    # there); their liberties extend the goal (defender) or are filled from behind (attacker). The
    # defender also counter-attacks the attacker blocks next to them that it could outrace (at most lg
    # liberties, as for the blocks next to the goal)
    ss_libs = SUPERSTRING_LIBS + (1 if mover != g.attacker else 0)
    for i in range(n_libs):
        for k in range(4):
            q = libs[i] + d[k]
            if b.color[q] == defender and b.group[q] != gid:
                og = b.group[q]
                if seen[og] != 3 and count_libs(b, og, ss_libs + 1) <= ss_libs:
                    seen[og] = 3
                    n_more += block_libs(b, og, more + n_more, seen)
                    if mover != g.attacker:
                        n_more += weak_neighbour_libs(b, og, g.attacker, lg, more + n_more, seen)
    sort_points(more, n_more)
    for i in range(n_more):
        out[n] = more[i]
        n += 1
    return n


cdef inline bint is_ko_banned(const BoardState* b, point_t m, color_t c) noexcept nogil:
    """c at m would retake a ko at once (legal but for the simple-ko ban; is_legal's ko test)."""
    return m > 0 and m == b.ko_point and b.color[m] == EMPTY and c != b.color[b.last_move]


cdef inline bint diagonal(const BoardState* b, point_t p, point_t q) noexcept nogil:
    cdef int dr = p // b.stride - q // b.stride, dc = p % b.stride - q % b.stride
    return (dr == 1 or dr == -1) and (dc == 1 or dc == -1)


cdef bint captures_ko_stone(const BoardState* b, point_t m, color_t c) noexcept nogil:
    """c at m captures a lone stone in atari (retakes a ko)."""
    cdef int d[4]
    cdef int k
    cdef point_t q
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] == 3 - c and b.groups[b.group[q]].n_libs == 1 and b.groups[b.group[q]].n_stones == 1:
            return True
    return False


cdef bint goal_ko_capture(const BoardState* b, point_t gid, point_t m, color_t c) noexcept nogil:
    """c at m, a liberty of the block gid in atari, captures it by a ko capture: gid is one stone, and
    the capturing stone is alone with one liberty (the point of the captured stone) after it."""
    cdef int d[4]
    cdef int k
    cdef point_t q
    if b.groups[gid].n_stones != 1 or b.groups[gid].n_libs != 1:
        return False
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] == EMPTY or b.color[q] == c:
            return False
        if b.color[q] == 3 - c and b.group[q] != gid and b.groups[b.group[q]].n_libs == 1:
            return False                # captures more than the goal stone
    return True


cdef int child_value(CaptureGoal* g, const BoardState* b, point_t m, color_t mover) noexcept nogil:
    # Called on an UNKNOWN node, so the goal block stands with fewer than libs_false liberties.
    cdef point_t gid = b.group[g.goal], q
    cdef int lg, k, n
    cdef bint adjacent = False, captures = False
    cdef int d[4]
    board.nbrs4(b.stride, d)
    for k in range(4):
        q = m + d[k]
        if b.color[q] != EMPTY and b.color[q] != EDGE:
            if b.group[q] == gid:
                adjacent = True
            elif b.color[q] != mover and b.groups[b.group[q]].n_libs == 1:
                captures = True
    if mover == g.attacker:
        # An attacker move only removes goal liberties (captured defender stones never touch the
        # goal block, or they would belong to it): TRUE if it fills the last one, else still UNKNOWN.
        # A capture by a ko capture is no capture when the defender may retake at once (GnuGo's KO_A).
        if adjacent and b.groups[gid].n_libs == 1:
            if g.ko_side == 3 - g.attacker and goal_ko_capture(b, gid, m, mover):
                return V_UNKNOWN
            return V_TRUE
        return V_UNKNOWN
    if adjacent:
        n = board.libs_after(b, m, mover, g.libs_false)
        return V_FALSE if n >= g.libs_false else V_UNKNOWN
    if not captures:
        return V_UNKNOWN                # the goal block keeps its liberties
    board.copy_state(&g.scratch, b)        # a capture elsewhere may free goal liberties: count exactly
    board.play(&g.scratch, m, mover)
    return goal_value(&g.scratch, g)


# --- the node store ---

cdef int store_reserve(Store* st, int32_t need) noexcept nogil:
    """Room for `need` more nodes: 0, or -1 when memory runs out."""
    cdef int32_t cap = st.capacity
    cdef ProofNode* nodes
    cdef uint64_t* keys
    if st.n + need <= cap:
        return 0
    while cap < st.n + need:
        cap = cap * 2 if cap > 0 else 4096
    nodes = <ProofNode*>realloc(st.nodes, cap * sizeof(ProofNode))
    if nodes == NULL:
        return -1
    st.nodes = nodes
    if st.keep_keys:
        keys = <uint64_t*>realloc(st.keys, cap * N_SIZES * sizeof(uint64_t))
        if keys == NULL:
            return -1
        st.keys = keys
    st.capacity = cap
    return 0


# The node array of the last solver freed, kept (up to SPARE_MAX_NODES nodes) for the next solver: a
# search writes each node once, so fresh memory would cost a page fault (and the kernel's zeroing) per
# 85 nodes, and the array's regrowth a copy. Only touched with the GIL held.
cdef ProofNode* SPARE_NODES = NULL
cdef int32_t SPARE_CAP = 0
cdef int32_t SPARE_MAX_NODES = 1 << 20


cdef void store_release(Store* st) noexcept:
    """Free the store's arrays (its node array becomes the spare if it is the larger one and not too
    large) and empty it."""
    global SPARE_NODES, SPARE_CAP
    if st.nodes != NULL and SPARE_CAP < st.capacity <= SPARE_MAX_NODES:
        free(SPARE_NODES)
        SPARE_NODES = st.nodes
        SPARE_CAP = st.capacity
    else:
        free(st.nodes)
    free(st.keys)
    cdef bint keep = st.keep_keys
    memset(st, 0, sizeof(Store))
    st.keep_keys = keep


cdef void store_adopt(Store* st) noexcept:
    """Give an empty store the spare node array, if there is one (and room for the keys it keeps)."""
    global SPARE_NODES, SPARE_CAP
    if st.capacity > 0 or SPARE_NODES == NULL:
        return
    if st.keep_keys:
        st.keys = <uint64_t*>malloc(SPARE_CAP * N_SIZES * sizeof(uint64_t))
        if st.keys == NULL:
            return
    st.nodes = SPARE_NODES
    st.capacity = SPARE_CAP
    SPARE_NODES = NULL
    SPARE_CAP = 0


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


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
    MEMO_BITS = 16                   # the most entries (2^bits) of a solver's leaf memo
    MEMO_START_BITS = 10             # both memos start this small (a short search pays little for them)


cdef inline void memo_logodds(LeafMemo* memo, int bits, uint32_t epoch, const LeafTable* t,
                              const uint64_t* stack, double offset, ProofNode* c) noexcept nogil:
    """c.a = the leaf log-odds of this stack plus offset and c.t its share (both memoised: a node's
    offset is its siblings' too, and often its cousins')."""
    cdef uint64_t top = stack[N_SIZES - 1]
    cdef LeafMemo* m = &memo[slot_of(top) >> (47 - bits)]
    if m.epoch != epoch or m.key != top:
        m.key = top
        m.value = leaf_logodds(t, stack)
        m.epoch = epoch
        m.kind = c.kind
        m.offset = offset
        m.share = share(m.value + offset, c.kind)
    elif m.kind != c.kind or m.offset != offset:
        m.kind = c.kind
        m.offset = offset
        m.share = share(m.value + offset, c.kind)
    c.a = m.value + offset
    c.t = m.share


cdef void* grow_table(void* table, int* bits, int max_bits, size_t entry, int64_t developed) noexcept nogil:
    """A memo of 2^bits entries quadrupled (and emptied) once the search has developed 1/16 as many nodes
    as it holds entries (a node has tens of children), up to 2^max_bits; the same memo when that is not
    due, or when memory is short."""
    cdef int grown
    cdef void* bigger
    if table == NULL or bits[0] >= max_bits or developed < (1 << (bits[0] - 4)):
        return table
    grown = min(bits[0] + 2, max_bits)
    bigger = calloc(1 << grown, entry)
    if bigger == NULL:
        return table
    free(table)
    bits[0] = grown
    return bigger


# The memos of the last solver freed, kept for the next one (as the spare node array): a search fills
# them a page at a time, so fresh ones would cost a page fault and the kernel's zeroing per 50-80 entries.
# A pattern memo's entries hold for any solver (a key's stack depends on its template states alone); a
# leaf memo's entries carry the epoch of the fetch that made them, and epochs are drawn from one counter
# for all solvers, so another solver's entries never match. Only touched with the GIL held.
cdef LeafMemo* SPARE_MEMO = NULL
cdef int SPARE_MEMO_BITS = 0
cdef PatternMemo* SPARE_PMEMO = NULL
cdef int SPARE_PMEMO_BITS = 0
cdef uint32_t MEMO_EPOCH = 0             # the last epoch given to a fetch


cdef void spare_give(void** spare, int* spare_bits, void* table, int bits) noexcept:
    """Keep the larger of a released memo and the spare one as the spare; free the other."""
    if table == NULL:
        return
    if bits > spare_bits[0]:
        free(spare[0])
        spare[0] = table
        spare_bits[0] = bits
    else:
        free(table)


cdef void* spare_take(void** spare, int* spare_bits, size_t entry, int* bits) except? NULL:
    """A memo for a solver: the spare one, else a new one of 2^MEMO_START_BITS entries (bits: its size)."""
    cdef void* table = spare[0]
    if table != NULL:
        bits[0] = spare_bits[0]
        spare[0] = NULL
        spare_bits[0] = 0
        return table
    table = calloc(1 << MEMO_START_BITS, entry)
    if table == NULL:
        raise MemoryError()
    bits[0] = MEMO_START_BITS
    return table


def branching_logodds(m: int) -> float:
    """The log-odds of an AND leaf with m moves below it at the fixed point of P(AND) = P(OR)^m,
    P(OR) = 1 - (1 - P(AND))^m (an OR leaf's is the negative: the recursion is symmetric). A leaf that
    starts there keeps, in expectation, the belief that developing it gives, where the fixed leaf
    prior 0.5 makes a developed AND node near 0.5^m and PP dive into the last node it developed."""
    if m <= 1:
        return 0.0
    lo, hi = 1e-300, 0.5
    for _ in range(200):                # bisection on x = P(AND); (1 - (1 - x)^m)^m - x < 0 below the root
        mid = math.sqrt(lo * hi) if hi < 1e-3 else 0.5 * (lo + hi)
        if (-math.expm1(m * math.log1p(-mid))) ** m < mid:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    return math.log(x) - math.log1p(-x)


cdef double BRANCHING_L[MAX_MOVES + 1]   # branching_logodds(m) for every count of children, once a
cdef bint BRANCHING_READY = False         # solver asks for them (30 ms: not at import)


cdef void fill_branching_table():
    global BRANCHING_READY
    if not BRANCHING_READY:
        for m in range(MAX_MOVES + 1):
            BRANCHING_L[m] = branching_logodds(m)
        BRANCHING_READY = True


_VALUE_NAMES = {V_FALSE: "F", V_TRUE: "T", V_UNKNOWN: "U"}
_METHODS = {"pp": METHOD_PP, "pns": METHOD_PNS}
_GENERATORS = {"region": GEN_REGION, "local": GEN_LOCAL}
KO_MODES = ("none", "attacker", "defender")


cdef double pp_scan(const ProofNode* ch, int k, bint is_or, int* best, int* seen) noexcept nogil:
    """PP's pass over a node's k children: s = -(sum of their shares), i.e. ln P (AND) or ln(1 - P) (OR);
    best = the child select descends into (the highest log-odds under an OR node, the lowest under an AND
    node, the first among equals); seen |= bit v for each child's value v. Even and odd children go in
    two lanes so that the additions and comparisons do not each wait for the last one."""
    cdef double sign = 1.0 if is_or else -1.0     # compare sign * a: exact, and one loop for both kinds
    cdef double s0 = ch[0].t, s1 = 0.0, b0 = sign * ch[0].a, b1 = -INFINITY, x
    cdef int i = 2, i0 = 0, i1 = -1, bits = 1 << ch[0].value
    if k > 1:
        s1 = ch[1].t
        b1 = sign * ch[1].a
        i1 = 1
        bits |= 1 << ch[1].value
    while i + 1 < k:
        x = sign * ch[i].a
        if x > b0:
            b0 = x
            i0 = i
        x = sign * ch[i + 1].a
        if x > b1:
            b1 = x
            i1 = i + 1
        s0 += ch[i].t
        s1 += ch[i + 1].t
        bits |= (1 << ch[i].value) | (1 << ch[i + 1].value)
        i += 2
    if i < k:
        x = sign * ch[i].a
        if x > b0:
            b0 = x
            i0 = i
        s0 += ch[i].t
        bits |= 1 << ch[i].value
    best[0] = i1 if i1 >= 0 and (b1 > b0 or (b1 == b0 and i1 < i0)) else i0
    seen[0] |= bits
    return -(s0 + s1)


@cython.final
@cython.annotation_typing(False)
cdef class Solver:
    """One proof tree: Develop, selection and backup of PP or PNS, without the GIL.

    Set a problem with `set_capture` (a Go position) or `set_tree` (an explicit AND/OR tree), then
    `run` until the root is solved or the budget of developed nodes is spent. `prior` is None (a
    uniform leaf prior `prior_p`) or an object with `logodds(keys, role) -> float64 array`, given the
    (n, 8) uint64 pattern stacks of the new UNKNOWN children of one node. A prior that also has
    `kernel() -> PriorKernel` (the models of engine.tactics_priors) is priced in C without the GIL: its
    table is fetched once per `run` (the model caches it until it learns). Otherwise, or with
    kernel=False, `logodds` is called under the GIL once per developed node. `keep_keys` stores every
    node's stack so that `observations` can feed a learner after the search (a prior alone prices the
    children from Develop's scratch copy and keeps none). Each solver memoises
    pattern stacks and the kernel's leaf log-odds (the same numbers, computed less often); both memos
    start small and grow with the search, so that short searches stay cheap.
    """
    cdef Store st
    cdef CaptureGoal* cap
    cdef int domain
    cdef int method
    cdef int max_depth
    cdef bint empty_and_true
    cdef double prior_logodds
    cdef double branching_weight    # PP adds this times branching_logodds of the node's count to a leaf's log-odds
    cdef double depth_decay         # PP subtracts this times a leaf's depth (plies) from its log-odds
    cdef double leaf_init[2][3][3]  # [kind][value]: (a, b, t) of init_belief(node, prior_logodds)
    cdef object prior
    cdef object error
    cdef int64_t developed
    cdef int64_t n_ko_banned[2]     # ko-banned retakes met while developing, attacker's [0] and defender's [1]
    cdef double elapsed
    cdef bint ready
    cdef bint has_prior
    cdef bint use_kernel
    cdef bint want_keys             # Develop computes the children's pattern stacks (a prior prices them, or keep_keys)
    cdef PriorKernel kernel         # the prior's table during a run (kept alive here)
    cdef const LeafTable* table     # &kernel.t, or NULL: price leaves through prior.logodds
    cdef LeafMemo* memo             # 2^MEMO_BITS leaf log-odds of `table` (see memo_logodds), or NULL
    cdef uint32_t memo_epoch        # new (MEMO_EPOCH) whenever `table` is fetched: older entries are stale
    cdef PatternMemo* pmemo         # 2^pmemo_bits pattern stacks (see pattern_stack_grid), or NULL
    cdef int memo_bits, pmemo_bits  # the memos grow with the search (grow_memos)
    # DOMAIN_TREE arrays (kept alive by the Python references below)
    cdef object tree_arrays
    cdef const int32_t* t_first
    cdef const int32_t* t_count
    cdef const int8_t* t_value
    cdef const double* t_prior
    cdef int32_t t_size
    # scratch for one Develop
    cdef int32_t cand[MAX_MOVES]
    cdef int8_t cvalue[MAX_MOVES]
    cdef uint64_t ckeys[MAX_MOVES * N_SIZES]
    cdef uint64_t craw[MAX_MOVES]               # the pattern memo's keys of the children (children_stacks)
    cdef int32_t path[MAX_PLIES]
    cdef uint8_t sgrid[GRID_WIDTH * GRID_WIDTH]   # pattern states of one Develop's position (grid_states)
    # the root position's states and memo keys (without the role's salt) of every board point: a child's
    # key is its root key changed by the points whose state differs from the root's (children_stacks)
    cdef uint8_t rgrid[GRID_WIDTH * GRID_WIDTH]
    cdef uint64_t rraw[GRID_WIDTH * GRID_WIDTH]
    cdef uint64_t delta[GRID_WIDTH * GRID_WIDTH]  # zero between Develops
    cdef int32_t changed[GRID_WIDTH * GRID_WIDTH]

    def __cinit__(self):
        memset(&self.st, 0, sizeof(Store))
        self.cap = NULL
        self.memo = NULL
        self.memo_epoch = 0
        self.pmemo = NULL
        self.memo_bits = self.pmemo_bits = 0

    def __init__(self, method: str = "pp", *, prior=None, prior_p: float = 0.5, max_depth: int = 100,
                 empty_and_true: bool = True, keep_keys: bool = False, kernel: bool = True,
                 branching_weight: float = 0.0, depth_decay: float = 0.0):
        if method not in _METHODS:
            raise ValueError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
        if not 0.0 < prior_p < 1.0:
            raise ValueError(f"prior_p must be in (0, 1), got {prior_p!r}")
        if not 1 <= max_depth < MAX_PLIES:
            raise ValueError(f"max_depth must be 1..{MAX_PLIES - 1}, got {max_depth!r}")
        if prior is not None and not callable(getattr(prior, "logodds", None)):
            raise TypeError("prior must have a logodds(keys, role) method")
        self.method = _METHODS[method]
        self.prior = prior
        self.has_prior = prior is not None
        self.use_kernel = kernel and callable(getattr(prior, "kernel", None))
        self.kernel = None
        self.table = NULL
        self.prior_logodds = math.log(prior_p / (1.0 - prior_p))
        if not (math.isfinite(branching_weight) and branching_weight >= 0.0):
            raise ValueError(f"branching_weight must be finite and >= 0, got {branching_weight!r}")
        self.branching_weight = branching_weight
        if not (math.isfinite(depth_decay) and depth_decay >= 0.0):
            raise ValueError(f"depth_decay must be finite and >= 0, got {depth_decay!r}")
        self.depth_decay = depth_decay
        if branching_weight > 0.0:
            fill_branching_table()
        cdef ProofNode leaf
        for kind in (OR_NODE, AND_NODE):
            for value in (V_FALSE, V_TRUE, V_UNKNOWN):
                leaf.kind = kind
                leaf.value = value
                self.init_belief(&leaf, self.prior_logodds)
                self.leaf_init[kind][value][0] = leaf.a
                self.leaf_init[kind][value][1] = leaf.b
                self.leaf_init[kind][value][2] = leaf.t
        self.max_depth = max_depth
        self.empty_and_true = empty_and_true
        store_release(&self.st)          # a second __init__ starts from an empty store
        self.st.keep_keys = keep_keys
        self.want_keys = keep_keys or prior is not None
        self.ready = False

    def __dealloc__(self):
        store_release(&self.st)
        free(self.cap)
        spare_give(<void**>&SPARE_MEMO, &SPARE_MEMO_BITS, self.memo, self.memo_bits)
        spare_give(<void**>&SPARE_PMEMO, &SPARE_PMEMO_BITS, self.pmemo, self.pmemo_bits)
        self.memo = NULL
        self.pmemo = NULL

    # --- problems ---

    @staticmethod
    def for_params(params, prior=None, *, keep_keys: bool = False, kernel: bool = True):
        """A solver with the search settings of a TacticsParams (method, leaf prior, depth, empty nodes)."""
        return Solver(params.method, prior=prior, prior_p=params.prior_p, max_depth=params.max_depth,
                      empty_and_true=params.empty_and_true, keep_keys=keep_keys, kernel=kernel,
                      branching_weight=params.branching_weight, depth_decay=params.depth_decay)

    def set_capture_params(self, Board position not None, goal: int, params, *, attack: bool = True,
                           libs_false: int = 0, ko: str = "none") -> None:
        """set_capture with the move-generator settings of a TacticsParams: one search of solve's loop."""
        self.set_capture(position, goal, attack=attack, libs_false=libs_false, move_gen=params.move_gen,
                         margin=params.margin, mark_block=params.mark_block, counter_slack=params.counter_slack,
                         defender_reach=params.defender_reach, ko=ko, defender_pass=params.defender_pass)

    def set_capture(self, Board position not None, goal: int, *, attack: bool = True, libs_false: int = 0,
                    move_gen: str = "region", margin: int = 1, mark_block: bool = True,
                    counter_slack: int = 0, defender_reach: int = 1, ko: str = "none",
                    defender_pass: bool = False) -> None:
        """Capture the block at `goal` (attacker = the other colour). attack=True: the attacker moves
        first (an OR root), else the defender does (an AND root). libs_false = L (0: libs + 1).
        The region generator uses the bounding box of all stones plus `margin`, clipped to the board.
        ko: "none" (simple ko binds both sides), "attacker" or "defender" (that side may retake a ko at
        once, as if it had made a ko threat that was answered; GnuGo's conditional ko capture).
        defender_pass: the defender may also pass (play elsewhere), its last child at every AND node, so
        that a block in seki is not "captured" because every local move of the defender loses."""
        cdef BoardState* b = &position.s
        cdef CaptureGoal* g
        cdef int row, col, r0, r1, c0, c1, size = b.size
        cdef point_t p
        p = position.point(*position.coords(goal))          # validates the point
        if b.color[p] not in (BLACK, WHITE):
            raise ValueError("the goal vertex must hold a stone")
        if move_gen not in _GENERATORS:
            raise ValueError(f"move_gen must be one of {sorted(_GENERATORS)}, got {move_gen!r}")
        if margin < 0:
            raise ValueError("margin must be >= 0")
        if counter_slack < 0:
            raise ValueError("counter_slack must be >= 0")
        if defender_reach not in (1, 2):
            raise ValueError("defender_reach must be 1 or 2")
        if ko not in KO_MODES:
            raise ValueError(f"ko must be one of {KO_MODES}, got {ko!r}")
        if self.cap == NULL:
            self.cap = <CaptureGoal*>malloc(sizeof(CaptureGoal))
            if self.cap == NULL:
                raise MemoryError()
        if self.want_keys and self.pmemo == NULL:
            self.pmemo = <PatternMemo*>spare_take(<void**>&SPARE_PMEMO, &SPARE_PMEMO_BITS, sizeof(PatternMemo),
                                                  &self.pmemo_bits)
        g = self.cap
        memset(self.sgrid, S_OFF, sizeof(self.sgrid))
        memset(self.delta, 0, sizeof(self.delta))
        g.goal = p
        g.attacker = 3 - b.color[p]
        g.gen = _GENERATORS[move_gen]
        g.mark_block = mark_block
        g.counter_slack = counter_slack
        g.defender_reach = defender_reach
        g.defender_pass = defender_pass
        g.ko_side = EMPTY if ko == "none" else (g.attacker if ko == "attacker" else 3 - g.attacker)
        g.root = b[0]
        first = g.attacker if attack else 3 - g.attacker
        if g.root.to_play != first:
            g.root.to_play = first
            g.root.ko_point = NO_POINT       # the ko ban was the other side's
        libs = position.liberties(p)
        g.libs_false = libs + 1 if libs_false <= 0 else libs_false
        r0, r1, c0, c1 = size, -1, size, -1
        for row in range(size):
            for col in range(size):
                if b.color[(row + 1) * b.stride + col + 1] != EMPTY:
                    r0, r1, c0, c1 = min(r0, row), max(r1, row), min(c0, col), max(c1, col)
        r0, c0 = max(0, r0 - margin), max(0, c0 - margin)
        r1, c1 = min(size - 1, r1 + margin), min(size - 1, c1 + margin)
        g.n_region = 0
        for row in range(r0, r1 + 1):
            for col in range(c0, c1 + 1):
                g.region[g.n_region] = <point_t>((row + 1) * b.stride + col + 1)
                g.n_region += 1
        if self.want_keys:
            self.root_keys()
        self.domain = DOMAIN_CAPTURE
        self.tree_arrays = None
        self._reset(OR_NODE if attack else AND_NODE, goal_value(&g.root, g))

    def set_tree(self, first, count, value, prior, root_kind: str = "or") -> None:
        """An explicit AND/OR tree: node i has children first[i] .. first[i] + count[i] - 1 and value
        value[i] (0 FALSE, 1 TRUE: a terminal; 2 UNKNOWN: developed into its children, none = no
        moves); prior[i] is its leaf log-odds for PP. Node 0 is the root, of kind "or" or "and"."""
        f = np.ascontiguousarray(first, dtype=np.int32)
        c = np.ascontiguousarray(count, dtype=np.int32)
        v = np.ascontiguousarray(value, dtype=np.int8)
        pr = np.ascontiguousarray(prior, dtype=np.float64)
        n = f.shape[0]
        if n == 0 or not (c.shape[0] == v.shape[0] == pr.shape[0] == n):
            raise ValueError("first, count, value and prior must be non-empty and of one length")
        if (c < 0).any() or ((c > 0) & ((f < 1) | (f + c > n))).any() or (c > MAX_MOVES).any():
            raise ValueError("children out of range")
        if not np.isin(v, (V_FALSE, V_TRUE, V_UNKNOWN)).all():
            raise ValueError("values must be 0, 1 or 2")
        if not np.isfinite(pr[v == V_UNKNOWN]).all():
            raise ValueError("priors of UNKNOWN nodes must be finite")
        if root_kind not in ("or", "and"):
            raise ValueError("root_kind must be 'or' or 'and'")
        cdef int32_t[::1] fv = f
        cdef int32_t[::1] cv = c
        cdef int8_t[::1] vv = v
        cdef double[::1] pv = pr
        self.tree_arrays = (f, c, v, pr)
        self.t_first = &fv[0]
        self.t_count = &cv[0]
        self.t_value = &vv[0]
        self.t_prior = &pv[0]
        self.t_size = n
        self.domain = DOMAIN_TREE
        self._reset(OR_NODE if root_kind == "or" else AND_NODE, v[0])

    cdef int _reset(self, int kind, int value) except -1:
        cdef ProofNode* r
        store_adopt(&self.st)
        if store_reserve(&self.st, 1) != 0:
            raise MemoryError()
        self.st.n = 1
        r = &self.st.nodes[0]
        r.parent = -1
        r.first_child = -1
        r.n_children = 0
        r.move = 0
        r.kind = kind
        r.value = value
        r.developed = 0
        self.init_belief(r, self.prior_logodds)
        if self.st.keep_keys:
            memset(self.st.keys, 0, N_SIZES * sizeof(uint64_t))
        self.developed = 0
        self.n_ko_banned[0] = 0
        self.n_ko_banned[1] = 0
        self.elapsed = 0.0
        self.error = None
        self.ready = True
        return 0

    cdef inline void init_belief(self, ProofNode* c, double prior) noexcept nogil:
        if c.value == V_TRUE:
            c.a = INFINITY if self.method == METHOD_PP else 0.0
            c.b = INFINITY
        elif c.value == V_FALSE:
            c.a = -INFINITY if self.method == METHOD_PP else INFINITY
            c.b = 0.0
        else:
            c.a = prior if self.method == METHOD_PP else 1.0
            c.b = 1.0
        c.t = share(c.a, c.kind)

    # --- Develop (Alg. 3) ---

    cdef int develop(self, int32_t n) noexcept nogil:
        """Give n its children with their goal values and leaf beliefs. 0, or -1 on an error."""
        cdef int count, k, i, role = 0, depth = 0
        cdef int32_t first
        cdef ProofNode* c
        cdef ProofNode* node
        cdef double init[9]             # (a, b, t) of a new capture-domain child by value (capture_leaf_init)
        cdef double offset = 0.0        # PP's branching term and depth decay of the new children's log-odds
        self.developed += 1
        if (self.developed & 63) == 0:
            self.grow_memos()
        if self.domain == DOMAIN_TREE:
            count = self.develop_tree(n)
        else:
            count = self.develop_capture(n, &depth)
        node = &self.st.nodes[n]
        node.developed = 1
        if count == DEPTH_CUTOFF:       # too deep: the attacker has failed on this line
            node.value = V_FALSE
            self.init_belief(node, 0.0)
            return 0
        if count == 0:                  # no moves: an empty AND is TRUE, an empty OR is FALSE (G2)
            if node.value == V_UNKNOWN:
                node.value = V_TRUE if (node.kind == AND_NODE) == self.empty_and_true else V_FALSE
            self.init_belief(node, 0.0)
            return 0
        if store_reserve(&self.st, count) != 0:
            return -1
        node = &self.st.nodes[n]
        first = self.st.n
        if self.domain == DOMAIN_CAPTURE:
            offset = self.capture_leaf_init(AND_NODE if node.kind == OR_NODE else OR_NODE, count, depth + 1, init)
        for k in range(count):
            c = &self.st.nodes[first + k]
            c.parent = n
            c.first_child = -1
            c.n_children = 0
            c.move = self.cand[k]
            c.kind = AND_NODE if node.kind == OR_NODE else OR_NODE
            c.value = self.cvalue[k]
            c.developed = 0
            if self.domain == DOMAIN_TREE:
                self.init_belief(c, self.t_prior[c.move])
            else:
                c.a = init[3 * c.value]
                c.b = init[3 * c.value + 1]
                c.t = init[3 * c.value + 2]
            if self.st.keep_keys:
                memcpy(&self.st.keys[(first + k) * N_SIZES], &self.ckeys[k * N_SIZES], N_SIZES * sizeof(uint64_t))
        node.first_child = first
        node.n_children = count
        self.st.n += count
        if self.has_prior and self.domain == DOMAIN_CAPTURE and self.method == METHOD_PP:
            if self.table != NULL:
                for k in range(count):      # fetch the memo entries all at once
                    prefetch(&self.memo[slot_of(self.ckeys[k * N_SIZES + N_SIZES - 1]) >> (47 - self.memo_bits)])
                for k in range(count):
                    c = &self.st.nodes[first + k]
                    if c.value == V_UNKNOWN:
                        memo_logodds(self.memo, self.memo_bits, self.memo_epoch, self.table,
                                     &self.ckeys[k * N_SIZES], offset, c)
                return 0
            role = 0 if node.kind == OR_NODE else 1
            with gil:
                if not self.query_prior(first, count, role, offset):
                    return -1
        return 0

    cdef double capture_leaf_init(self, int kind, int count, int depth, double* init) noexcept nogil:
        """init[3 * value ..] = (a, b, t) of a new child of this kind with that value: init_belief with the
        uniform prior (leaf_init, precomputed), its UNKNOWN log-odds shifted by the returned offset. The
        offset is PP's: the branching weight times the branching log-odds of the number of UNKNOWN children
        among cvalue[0 .. count - 1] (see branching_logodds), less the depth decay times the children's
        depth (plies below the root); 0 without either. Develop adds it to a learned prior's log-odds too."""
        cdef int k, m = 0
        cdef double offset = 0.0, L
        memcpy(init, self.leaf_init[kind], 9 * sizeof(double))
        if self.method != METHOD_PP:
            return 0.0
        if self.branching_weight > 0.0:
            for k in range(count):
                if self.cvalue[k] == V_UNKNOWN:
                    m += 1
            offset = self.branching_weight * (BRANCHING_L[m] if kind == AND_NODE else -BRANCHING_L[m])
        offset -= self.depth_decay * depth
        if offset == 0.0:
            return 0.0
        L = init[3 * V_UNKNOWN] + offset
        init[3 * V_UNKNOWN] = L
        init[3 * V_UNKNOWN + 2] = share(L, kind)
        return offset

    cdef void grow_memos(self) noexcept nogil:
        """Let both memos grow with the search (see grow_table)."""
        self.pmemo = <PatternMemo*>grow_table(self.pmemo, &self.pmemo_bits, PATTERN_MEMO_BITS,
                                              sizeof(PatternMemo), self.developed)
        self.memo = <LeafMemo*>grow_table(self.memo, &self.memo_bits, MEMO_BITS, sizeof(LeafMemo), self.developed)

    cdef int develop_tree(self, int32_t n) noexcept nogil:
        cdef int32_t t = self.st.nodes[n].move, k
        cdef int count = self.t_count[t]
        for k in range(count):
            self.cand[k] = self.t_first[t] + k
            self.cvalue[k] = self.t_value[self.t_first[t] + k]
        return count

    cdef int develop_capture(self, int32_t n, int* n_depth) noexcept nogil:
        """n's moves into cand/cvalue (their pattern stacks into ckeys when wanted): their count, or
        DEPTH_CUTOFF at max_depth. n_depth = n's depth (plies below the root)."""
        cdef CaptureGoal* g = self.cap
        cdef BoardState* b = &g.work
        cdef int depth = 0, i, count, k = 0, role
        cdef int32_t x = n
        cdef color_t mover, color
        cdef point_t m
        cdef point_t gid
        cdef point_t moves[MAX_MOVES]
        cdef color_t kom = EMPTY            # the komaster: who made a conditional ko capture on this line
        cdef point_t kom_pos = NO_POINT     # where its last one captured a stone (the opponent's retake point)
        cdef bint conditional
        while self.st.nodes[x].parent >= 0:
            self.path[depth] = self.st.nodes[x].move
            depth += 1
            x = self.st.nodes[x].parent
        n_depth[0] = depth
        if depth >= self.max_depth:
            return DEPTH_CUTOFF
        board.copy_state(b, &g.root)
        color = g.root.to_play
        for i in range(depth - 1, -1, -1):
            m = <point_t>self.path[i]
            conditional = is_ko_banned(b, m, color)
            board.play(b, m, color)
            if conditional:
                kom = color
                kom_pos = b.ko_point
            elif kom == color and b.color[kom_pos] != EMPTY:
                kom = EMPTY                 # the komaster filled its ko: it is over
                kom_pos = NO_POINT
            color = 3 - color
        mover = g.attacker if self.st.nodes[n].kind == OR_NODE else 3 - g.attacker
        role = 0 if mover == g.attacker else 1
        if b.color[g.goal] == EMPTY:
            # the goal stone was taken by a ko capture and the defender may retake it at once: that is
            # its only move (no retake allowed: captured)
            if (is_ko_banned(b, g.goal, mover) and mover == g.ko_side and kom != 3 - mover
                    and (kom != mover or diagonal(b, b.last_move, kom_pos))):
                self.n_ko_banned[role] += 1
                self.cand[0] = g.goal
                self.cvalue[0] = V_UNKNOWN      # one stone in atari again (L >= 2)
                if self.want_keys:
                    pattern_stack(b, g.goal, 0, g.goal, g.attacker, role, g.mark_block, &self.ckeys[0])
                return 1
            return 0
        count = generate(g, b, mover, moves)
        gid = b.group[g.goal]
        for i in range(count):
            m = moves[i]
            if board.is_legal(b, m, mover):
                if kom == 3 - mover and m == kom_pos and captures_ko_stone(b, m, mover):
                    continue                # the komaster's ko may not be taken back
            elif is_ko_banned(b, m, mover):
                self.n_ko_banned[role] += 1
                if mover != g.ko_side or kom == 3 - mover:
                    continue
                if kom == mover and not diagonal(b, b.last_move, kom_pos):
                    continue                # the komaster may only take a nested ko
            else:
                continue
            self.cand[k] = m
            self.cvalue[k] = child_value(g, b, m, mover)
            if role == 0 and self.cvalue[k] != V_FALSE and b.groups[gid].n_libs == 1 \
                    and goal_ko_capture(b, gid, m, mover) and board.libs_after(b, m, mover, 2) == 1:
                self.n_ko_banned[1] += 1        # the defender could retake the goal stone after a threat
            k += 1
        if self.want_keys and k > 0:
            self.children_stacks(b, gid, role, k)
        if g.defender_pass and role == 1 and k < MAX_MOVES:
            # the defender may pass (play elsewhere): in a seki every local move of its loses
            self.cand[k] = PASS
            self.cvalue[k] = V_UNKNOWN
            if self.want_keys:
                pass_stack(role, &self.ckeys[k * N_SIZES])
            k += 1
        return k

    cdef void root_keys(self) noexcept:
        """rgrid and rraw of the root position (set_capture)."""
        cdef CaptureGoal* g = self.cap
        cdef const BoardState* b = &g.root
        cdef int r, c
        memset(self.rgrid, S_OFF, sizeof(self.rgrid))
        grid_states(b, b.group[g.goal], g.goal, g.attacker, g.mark_block, 0, b.size - 1, 0, b.size - 1, self.rgrid)
        for r in range(b.size):
            for c in range(b.size):
                self.rraw[grid_at(r, c)] = grid_raw_key(self.rgrid, grid_at(r, c), 0) ^ ROLE_SALT[0]

    cdef void children_stacks(self, const BoardState* b, point_t gid, int role, int count) noexcept nogil:
        """The pattern stacks of the moves cand[0 .. count - 1] (points of b) into ckeys: the states of
        their templates' points are found once for all of them (grid_states). When few points differ from
        the root position, each memo key is the root's with those points' changes (the same key as
        grid_raw_key, with far fewer table reads when a node has many children)."""
        cdef CaptureGoal* g = self.cap
        cdef int i, k, r, c, cell, n_changed = 0, r0 = MAX_SIZE, r1 = -1, c0 = MAX_SIZE, c1 = -1
        cdef uint64_t salt = ROLE_SALT[role]
        for i in range(count):
            r = self.cand[i] // b.stride - 1
            c = self.cand[i] % b.stride - 1
            r0 = min(r0, r)
            r1 = max(r1, r)
            c0 = min(c0, c)
            c1 = max(c1, c)
        r0 = max(r0 - GRID_MARGIN, 0)
        c0 = max(c0 - GRID_MARGIN, 0)
        r1 = min(r1 + GRID_MARGIN, b.size - 1)
        c1 = min(c1 + GRID_MARGIN, b.size - 1)
        grid_states(b, gid, g.goal, g.attacker, g.mark_block, r0, r1, c0, c1, self.sgrid)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = grid_at(r, c)
                if self.sgrid[cell] != self.rgrid[cell]:
                    self.changed[n_changed] = cell
                    n_changed += 1
        if 2 * n_changed < count:
            for i in range(n_changed):
                cell = self.changed[i]
                for k in range(N_OFFSETS):
                    self.delta[cell - GRID_OFF[k]] ^= PZ[k][self.sgrid[cell]] ^ PZ[k][self.rgrid[cell]]
            for i in range(count):
                cell = point_cell(self.cand[i], b.stride)
                self.craw[i] = self.rraw[cell] ^ self.delta[cell] ^ salt
                prefetch(&self.pmemo[self.craw[i] >> (64 - self.pmemo_bits)])
            for i in range(n_changed):
                cell = self.changed[i]
                for k in range(N_OFFSETS):
                    self.delta[cell - GRID_OFF[k]] = 0
        else:
            for i in range(count):      # every memo key first, fetching their entries all at once
                self.craw[i] = grid_raw_key(self.sgrid, point_cell(self.cand[i], b.stride), role)
                prefetch(&self.pmemo[self.craw[i] >> (64 - self.pmemo_bits)])
        for i in range(count):
            pattern_stack_grid(self.pmemo, self.pmemo_bits, self.sgrid, point_cell(self.cand[i], b.stride), role,
                               self.craw[i], &self.ckeys[i * N_SIZES])

    cdef bint query_prior(self, int32_t first, int count, int role, double offset) noexcept:
        """Leaf log-odds from the prior, plus offset, for the UNKNOWN children first .. first + count - 1."""
        cdef int k, j = 0
        cdef double x
        cdef ProofNode* c
        cdef uint64_t[:, ::1] kv
        cdef double[::1] out
        try:
            unknown = [k for k in range(count) if self.st.nodes[first + k].value == V_UNKNOWN]
            if not unknown:
                return True
            keys = np.empty((len(unknown), N_SIZES), dtype=np.uint64)
            kv = keys
            for j, k in enumerate(unknown):
                memcpy(&kv[j, 0], &self.ckeys[k * N_SIZES], N_SIZES * sizeof(uint64_t))
            arr = np.ascontiguousarray(self.prior.logodds(keys, role), dtype=np.float64).reshape(-1)
            if arr.shape[0] != len(unknown):
                raise ValueError(f"prior.logodds returned {arr.shape[0]} values for {len(unknown)} moves")
            out = arr
            for j, k in enumerate(unknown):
                x = out[j]
                if not isfinite(x):
                    raise ValueError(f"prior.logodds returned {x} (leaf log-odds must be finite)")
                x += offset
                self.st.nodes[first + k].a = x
                self.st.nodes[first + k].t = share(x, self.st.nodes[first + k].kind)
            return True
        except BaseException as e:
            self.error = e
            return False

    # --- selection (Alg. 1; PNS: most-proving node) ---

    cdef int32_t select(self) noexcept nogil:
        # every developed node with children keeps its best child (recompute), found as below: PP, the
        # highest log-odds at an OR node and the lowest at an AND node; PNS, the lowest proof number at
        # an OR node and the lowest disproof number at an AND node; the first child among equals
        cdef int32_t n = 0
        cdef ProofNode* nodes = self.st.nodes
        while nodes[n].developed and nodes[n].n_children > 0:
            n = nodes[n].best
        return n

    # --- backup (Alg. 2; PNS numbers) ---

    cdef void backup(self, int32_t n) noexcept nogil:
        cdef ProofNode* nodes = self.st.nodes
        cdef ProofNode* node
        cdef int8_t old_v
        cdef double old_a, old_b
        cdef bint first = True
        while n >= 0:
            node = &nodes[n]
            old_v, old_a, old_b = node.value, node.a, node.b
            if node.n_children > 0:
                self.recompute(node)
            if not first and node.value == old_v and node.a == old_a and node.b == old_b:
                return
            first = False
            n = node.parent

    cdef void recompute(self, ProofNode* node) noexcept nogil:
        cdef ProofNode* ch = &self.st.nodes[node.first_child]
        cdef int i, k = node.n_children
        cdef bint any_t, any_f, any_u
        cdef bint is_or = node.kind == OR_NODE, pp = self.method == METHOD_PP
        cdef int best = 0, seen = 0
        cdef double s, m, v, bv
        # one pass: the values, the best child (as select wants it) and PP's sum of the cached shares
        if pp:
            s = pp_scan(ch, k, is_or, &best, &seen)
        else:
            bv = ch[0].a if is_or else ch[0].b
            for i in range(k):
                seen |= 1 << ch[i].value
                v = ch[i].a if is_or else ch[i].b
                if v < bv:
                    bv = v
                    best = i
        any_t = (seen >> V_TRUE) & 1
        any_f = (seen >> V_FALSE) & 1
        any_u = (seen >> V_UNKNOWN) & 1
        node.best = node.first_child + best
        if node.kind == AND_NODE:
            node.value = V_FALSE if any_f else (V_UNKNOWN if any_u else V_TRUE)
        else:
            node.value = V_TRUE if any_t else (V_UNKNOWN if any_u else V_FALSE)
        if node.value != V_UNKNOWN:
            self.init_belief(node, 0.0)
            return
        if self.method == METHOD_PP:
            # s = ln P (AND) or ln(1 - P) (OR) from the children's cached shares: additions only. The
            # rare s ~ 0 goes through combine_*, which sums them again and takes ln(1 - P) another way.
            if s < -1e-290:
                # the node's own share is -ln(1 - e^s) (-ln P(FALSE) of an AND node, -ln P(TRUE) of an
                # OR node): one log1mexp gives both it and the log-odds
                m = log1mexp(s)
                v = s - m if node.kind == AND_NODE else m - s
                node.a = BIG if v > BIG else (-BIG if v < -BIG else v)
                node.t = -m
                return
            if node.kind == AND_NODE:
                s = combine_and(&ch[0].a, k, NODE_DOUBLES)
            else:
                s = combine_or(&ch[0].a, k, NODE_DOUBLES)
            node.a = BIG if s > BIG else (-BIG if s < -BIG else s)
            node.t = share(node.a, node.kind)
            return
        s = 0.0                          # the summed number
        m = INFINITY                     # the minimum number
        for i in range(k):
            if node.kind == OR_NODE:
                s += ch[i].b
                if ch[i].a < m:
                    m = ch[i].a
            else:
                s += ch[i].a
                if ch[i].b < m:
                    m = ch[i].b
        if node.kind == OR_NODE:
            node.a = m
            node.b = s
        else:
            node.a = s
            node.b = m

    # --- Alg. 4 ---

    cdef int search(self, int64_t budget, int64_t max_store) noexcept nogil:
        """Develop until the root is solved, `budget` nodes were developed or the store is full.
        1 when solved, 0 when stopped, -1 on an error."""
        cdef int32_t leaf
        while self.st.nodes[0].value == V_UNKNOWN:
            if self.developed >= budget or self.st.n + MAX_MOVES > max_store:
                return 0
            leaf = self.select()
            if self.develop(leaf) != 0:
                return -1
            self.backup(leaf)
        return 1

    def run(self, max_nodes: int = 100_000, max_store: int = 50_000_000) -> str:
        """Search until solved or `max_nodes` developed (counted since the problem was set).
        Returns "T", "F" or "U"."""
        cdef int64_t budget = max_nodes, cap_nodes = max_store
        cdef int rc
        cdef double t0
        self._check_ready()
        if cap_nodes > 2_000_000_000:
            raise ValueError("max_store must be below 2e9 nodes")
        t0 = now()
        self._fetch_kernel()
        if not self.has_prior or self.table != NULL:
            with nogil:
                rc = self.search(budget, cap_nodes)
        else:
            rc = self.search(budget, cap_nodes)
        self.elapsed += now() - t0
        if rc < 0:
            err, self.error = self.error, None
            self.ready = False
            if err is not None:
                raise err
            raise MemoryError("the proof tree does not fit in memory")
        return _VALUE_NAMES[self.st.nodes[0].value]

    cdef int _fetch_kernel(self) except -1:
        """Point `table` at the prior's current kernel (the model rebuilds it only after learning)."""
        if not self.use_kernel:
            return 0
        k = self.prior.kernel()
        if not isinstance(k, PriorKernel):
            raise TypeError(f"prior.kernel() must return a PriorKernel, got {type(k).__name__}")
        self.kernel = k
        self.table = &self.kernel.t
        global MEMO_EPOCH
        if self.memo == NULL:
            self.memo = <LeafMemo*>spare_take(<void**>&SPARE_MEMO, &SPARE_MEMO_BITS, sizeof(LeafMemo), &self.memo_bits)
        MEMO_EPOCH += 1
        if MEMO_EPOCH == 0:              # wrapped around (after 2^32 fetches): forget every entry
            memset(self.memo, 0, (1 << self.memo_bits) * sizeof(LeafMemo))
            if SPARE_MEMO != NULL:
                memset(SPARE_MEMO, 0, (1 << SPARE_MEMO_BITS) * sizeof(LeafMemo))
            MEMO_EPOCH = 1
        self.memo_epoch = MEMO_EPOCH
        return 0

    # --- stepwise access (tests) ---

    def select_leaf(self) -> int:
        """The node the next iteration would develop (FindBestNode from the root)."""
        self._check_ready()
        return self.select()

    def develop_node(self, int n) -> None:
        """Develop one leaf and back up from it (one iteration at a chosen node)."""
        self._check_ready()
        if not 0 <= n < self.st.n:
            raise ValueError(f"no node {n}")
        if self.st.nodes[n].developed:
            raise ValueError(f"node {n} is already developed")
        if self.st.nodes[n].value != V_UNKNOWN:
            raise ValueError(f"node {n} is terminal")
        self._fetch_kernel()
        if self.develop(n) != 0:
            err, self.error = self.error, None
            self.ready = False
            raise err if err is not None else MemoryError()
        self.backup(n)

    def step(self) -> int:
        """One iteration of Alg. 4; returns the developed node (-1 when the root is solved)."""
        cdef int32_t leaf
        self._check_ready()
        if self.st.nodes[0].value != V_UNKNOWN:
            return -1
        leaf = self.select()
        self.develop_node(leaf)
        return leaf

    def _check_ready(self) -> None:
        if not self.ready:
            raise ValueError("no problem set (call set_capture or set_tree)")

    # --- results ---

    @property
    def value(self) -> str:
        self._check_ready()
        return _VALUE_NAMES[self.st.nodes[0].value]

    @property
    def n_developed(self) -> int:
        """Nodes developed since the problem was set (a leaf without moves counts)."""
        return self.developed

    @property
    def n_nodes(self) -> int:
        return self.st.n

    @property
    def seconds(self) -> float:
        return self.elapsed

    @property
    def ko_banned(self) -> tuple:
        """(attacker, defender): ko retakes met that simple ko banned, since the problem was set. When
        the side that may not retake met none, a search with ko=that side would be the same search."""
        return (self.n_ko_banned[0], self.n_ko_banned[1])

    @property
    def libs_false(self) -> int:
        return self.cap.libs_false if self.cap != NULL and self.domain == DOMAIN_CAPTURE else 0

    @property
    def root_logodds(self) -> float:
        """PP: log-odds that the root is TRUE. PNS: +-inf when solved, else ln(DN / PN) as a stand-in."""
        self._check_ready()
        cdef ProofNode* r = &self.st.nodes[0]
        if self.method == METHOD_PP or r.value != V_UNKNOWN:
            return r.a if self.method == METHOD_PP else (math.inf if r.value == V_TRUE else -math.inf)
        return math.log(r.b / r.a)

    @property
    def root_belief(self) -> float:
        """P(root TRUE) (PP); 1 or 0 when solved."""
        return _sigmoid(self.root_logodds)

    def node(self, int n) -> dict:
        """Every field of node n (kind "or"/"and", value "T"/"F"/"U", belief p for PP)."""
        if not 0 <= n < self.st.n:
            raise ValueError(f"no node {n}")
        cdef ProofNode* x = &self.st.nodes[n]
        out = {"parent": x.parent, "first_child": x.first_child, "n_children": x.n_children,
               "move": x.move, "kind": "or" if x.kind == OR_NODE else "and",
               "value": _VALUE_NAMES[x.value], "developed": bool(x.developed)}
        if self.method == METHOD_PP:
            out["logodds"] = x.a
            out["p"] = _sigmoid(x.a)
        else:
            out["pn"] = x.a
            out["dn"] = x.b
        return out

    def children(self, int n = 0) -> list:
        """The children of node n as `node` dicts, in move-generation order, with their index."""
        d = self.node(n)
        return [dict(self.node(i), index=i) for i in range(d["first_child"], d["first_child"] + d["n_children"])]

    def best_child(self) -> int:
        """The root child to play: a proving (OR) / refuting (AND) child when solved, else the one the
        search would descend into. -1 without children."""
        self._check_ready()
        cdef ProofNode* r = &self.st.nodes[0]
        cdef int i
        if r.n_children == 0:
            return -1
        want = V_TRUE if r.kind == OR_NODE else V_FALSE
        if r.value == want:
            for i in range(r.first_child, r.first_child + r.n_children):
                if self.st.nodes[i].value == want:
                    return i
        if r.value != V_UNKNOWN:
            return r.first_child
        return self._descend_choice(0)

    cdef int32_t _descend_choice(self, int32_t n):
        cdef ProofNode* nodes = self.st.nodes
        cdef int32_t first = nodes[n].first_child, best = first, i
        cdef double v, bv = 0.0
        kind = nodes[n].kind
        for i in range(first, first + nodes[n].n_children):
            if self.method == METHOD_PP:
                v = nodes[i].a if kind == OR_NODE else -nodes[i].a
            else:
                v = -nodes[i].a if kind == OR_NODE else -nodes[i].b
            if i == first or v > bv:
                bv = v
                best = i
        return best

    def observations(self, priced_only: bool = False):
        """Solved non-root nodes as (keys (n, 8) uint64, roles (n,) int8, values (n,) bool): role 0 for
        an attacker move (the node is an AND node), 1 for a defender move; value TRUE or FALSE.
        priced_only: only the nodes that were UNKNOWN when generated (those the leaf prior priced: they
        were developed), not the ones the goal decided at once."""
        self._check_ready()
        if not self.st.keep_keys:
            raise ValueError("observations need keep_keys=True")
        cdef int32_t i, j = 0, n = 0
        cdef bint all_nodes = not priced_only
        for i in range(1, self.st.n):
            if self.st.nodes[i].value != V_UNKNOWN and (all_nodes or self.st.nodes[i].developed):
                n += 1
        keys = np.empty((n, N_SIZES), dtype=np.uint64)
        roles = np.empty(n, dtype=np.int8)
        values = np.empty(n, dtype=bool)
        cdef uint64_t[:, ::1] kv = keys
        for i in range(1, self.st.n):
            if self.st.nodes[i].value != V_UNKNOWN and (all_nodes or self.st.nodes[i].developed):
                if n:
                    memcpy(&kv[j, 0], &self.st.keys[i * N_SIZES], N_SIZES * sizeof(uint64_t))
                roles[j] = 0 if self.st.nodes[i].kind == AND_NODE else 1
                values[j] = self.st.nodes[i].value == V_TRUE
                j += 1
        return keys, roles, values

    def check(self) -> None:
        """Raise AssertionError unless every developed node's value and belief equal their recomputation
        from its children, and (PP) value != UNKNOWN exactly when the log-odds are infinite."""
        cdef ProofNode saved
        cdef ProofNode* x
        cdef int32_t i
        self._check_ready()
        for i in range(self.st.n):
            x = &self.st.nodes[i]
            if self.method == METHOD_PP:
                solved = x.value != V_UNKNOWN
                if solved != (not isfinite(x.a)):
                    raise AssertionError(f"node {i}: value {_VALUE_NAMES[x.value]} with log-odds {x.a}")
                if solved and (x.a > 0) != (x.value == V_TRUE):
                    raise AssertionError(f"node {i}: value {_VALUE_NAMES[x.value]} with log-odds {x.a}")
            else:
                if (x.value == V_TRUE) != (x.a == 0) or (x.value == V_FALSE) != (x.b == 0):
                    raise AssertionError(f"node {i}: value {_VALUE_NAMES[x.value]} with pn {x.a}, dn {x.b}")
            if x.n_children > 0:
                saved = x[0]
                self.recompute(&saved)
                if (saved.value, saved.a, saved.b) != (x.value, x.a, x.b):
                    raise AssertionError(f"node {i}: stored ({x.value}, {x.a}, {x.b}) but children give "
                                         f"({saved.value}, {saved.a}, {saved.b})")


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def pattern_keys(Board position not None, move: int, goal: int, *, role: int = 0,
                 mark_block: bool = True) -> np.ndarray:
    """The (8,) uint64 pattern stack of `move` (an empty point) with the block at `goal` as the goal
    and its opponent as the attacker; role 0 for an attacker move, 1 for a defender move. A pass (PASS)
    has one fixed stack per role."""
    cdef BoardState* b = &position.s
    cdef uint64_t out[N_SIZES]
    if role not in (0, 1):
        raise ValueError("role must be 0 (attacker) or 1 (defender)")
    if move == PASS:
        pass_stack(role, out)
        return np.array([out[i] for i in range(N_SIZES)], dtype=np.uint64)
    m = position.point(*position.coords(move))
    p = position.point(*position.coords(goal))
    if b.color[m] != EMPTY:
        raise ValueError("the move must be an empty point")
    if b.color[p] not in (BLACK, WHITE):
        raise ValueError("the goal vertex must hold a stone")
    if role not in (0, 1):
        raise ValueError("role must be 0 (attacker) or 1 (defender)")
    pattern_stack(b, m, b.group[p], p, 3 - b.color[p], role, mark_block, out)
    return np.array([out[i] for i in range(N_SIZES)], dtype=np.uint64)


# --- the Python API: parameters, the liberty loop, attack and defend ---

@dataclass
class Result:
    value: str                   # "T" captured, "F" safe at every L tried, "U" budget spent
    move: int                    # first move of the proof (or the search's choice), PASS if none
    developed: int               # developed nodes, summed over the liberty loop (paper's Fig. 4 count)
    developed_last: int          # ... in the last search alone
    generated: int               # nodes in the last tree
    logodds: float               # root log-odds of TRUE in the last search (PP)
    libs_false: int              # L of the last search
    seconds: float
    runs: list = field(default_factory=list)   # (L, value, developed) per search
    code: int = 0                # GnuGo's answer for the side asked: 1 WIN, 2 KO_A, 3 KO_B, 0 LOSE (solve:
                                 # 1 or 0 only; a spent budget counts as "not captured")
    ko: str = "none"             # the game whose search gave `move`: who could retake a ko at once
    ko_banned: tuple = (0, 0)    # ko retakes banned by simple ko, attacker's and defender's (last search)
    games: list = field(default_factory=list)  # solve_ko: (ko, value, developed) per game searched, and
                                               # ("board move", value, developed) for a pass's replacement


# GnuGo's reading results (engine/liberty.h), as its GTP `attack` / `defend` print them
WIN = 1                          # success, whatever happens in any ko
KO_A = 2                         # success if the side wins a ko in which the other side must make the first threat
KO_B = 3                         # success if the side wins a ko in which it must make the first threat
LOSE = 0

_LEARN_MODES = (False, True, "all", "consistent", "priced", "consistent_priced")


def solve(Board position not None, goal: int, *, attack: bool = True, params: TacticsParams = TacticsParams(),
          prior=None, learn=False, ko: str = "none", kernel: bool = True,
          learn_unsolved: bool = False) -> Result:
    """Can the block at `goal` be captured? attack=True: the attacker moves first; else the defender.
    ko: who may retake a ko at once ("none": simple ko binds both; see Solver.set_capture).

    Runs the paper's liberty loop: L starts at libs + 1 (or params.l_start) and grows by one after each
    FALSE, until TRUE, L > l_max, or the node budget is spent (then the value is "U", also after a
    FALSE at an L below l_max: the block reached L liberties, which does not make it safe). With
    learn=True (or "all") the prior's
    `observe(keys, roles, values)` is called with every solved node after each search that ends solved
    (the paper). learn="consistent" (ours) keeps a FALSE only from the last search: FALSE at L means
    "the defender reaches L liberties" and may turn TRUE at L + 1, while a TRUE (a capture) holds at
    every L. learn="priced" (ours) learns only from the nodes the prior priced (UNKNOWN when generated),
    the population it is asked about, not from moves the goal decided at once; "consistent_priced"
    does both. learn_unsolved=True (ours) also learns from a search that spent the budget (UNKNOWN):
    the nodes it did solve are facts as well; in the consistent modes only its TRUE nodes, since it
    did not end the loop solved. kernel=False prices the leaves through prior.logodds even if the prior
    has a C kernel (the same numbers, slower)."""
    if learn not in _LEARN_MODES:
        raise ValueError(f"learn must be one of {_LEARN_MODES}, got {learn!r}")
    if learn and (prior is None or not callable(getattr(prior, "observe", None))):
        raise ValueError("learn=True needs a prior with an observe(keys, roles, values) method")
    solver = Solver.for_params(params, prior, keep_keys=bool(learn), kernel=kernel)
    libs = position.liberties(goal) if position.color_at(goal) in (BLACK, WHITE) else 0
    L = params.l_start if params.l_start > 0 else libs + 1
    L = max(L, 1)
    runs = []
    total = 0
    seconds = 0.0
    value = "U"
    while True:
        solver.set_capture_params(position, goal, params, attack=attack, libs_false=L, ko=ko)
        value = solver.run(params.max_nodes - total, params.max_store)
        total += solver.n_developed
        seconds += solver.seconds
        runs.append((L, value, solver.n_developed))
        last = value != "F" or L >= params.l_max or total >= params.max_nodes
        if learn and (value != "U" or learn_unsolved):
            keys, roles, values = solver.observations(priced_only=learn in ("priced", "consistent_priced"))
            if learn in ("consistent", "consistent_priced") and (not last or value == "U"):
                keys, roles, values = keys[values], roles[values], values[values]
            if len(keys):
                prior.observe(keys, roles, values)
        if last:
            break
        L += 1
    if value == "F" and L < params.l_max:
        value = "U"                     # the budget ended the loop: the block reached L liberties, no more
    child = solver.best_child()
    move = solver.node(child)["move"] if child >= 0 else PASS
    code = WIN if (value == "T") == attack else LOSE
    return Result(value=value, move=move, developed=total, developed_last=solver.n_developed,
                  generated=solver.n_nodes, logodds=solver.root_logodds, libs_false=L, seconds=seconds,
                  runs=runs, code=code, ko=ko, ko_banned=solver.ko_banned)


def last_search(Board position not None, goal: int, result: Result, params: TacticsParams = TacticsParams(), *,
                attack: bool = True, prior=None) -> Solver:
    """The last search of the liberty loop that gave `result` (solve's, with the same arguments), run
    again to the same node count, for its tree: solve keeps only the result."""
    solver = Solver.for_params(params, prior)
    solver.set_capture_params(position, goal, params, attack=attack, libs_false=result.libs_false, ko=result.ko)
    solver.run(max(1, result.developed_last), params.max_store)
    return solver


def solve_ko(Board position not None, goal: int, *, attack: bool = True,
             params: TacticsParams = TacticsParams(), prior=None) -> Result:
    """GnuGo's four-valued reading result for the side asked (the attacker when attack=True, moving
    first, else the defender, moving first): WIN, KO_A, KO_B or LOSE in `code`.

    Two binary searches (`solve`) with at most params.max_nodes nodes between them. The first is the
    game where simple ko binds both sides (no ko threats). Success there is worth KO_A at least: the
    side has taken the ko first, the other side must find the first threat. Then:
    - success: WIN if the side still succeeds when the other side may retake kos at once (has
      threats enough), else KO_A;
    - failure: KO_B if the side succeeds when it may retake kos at once itself (it must make the first
      threat), else LOSE.
    A retake made that way (GnuGo's conditional ko capture) makes its side the "komaster": the other
    side may not take that ko back, and the komaster may take another ko only if it is nested (the
    captured stone diagonal to the last one). The second search is skipped when the first one met no
    ko retake of that side (it would be the same search). A spent budget counts as "not captured",
    except that KO_B, a success claimed through a ko, needs the second search to prove it. When the
    game that proved a success did so with a pass (the defender may pass; GnuGo's reading names the
    move that fights the ko), the rest of the budget looks for a board move that succeeds there too
    (`_board_move_instead_of_pass`); the pass stays when none is proved."""
    first = solve(position, goal, attack=attack, params=params, prior=prior)
    captured = first.value == "T"
    succeeded = captured == attack
    other = "defender" if captured else "attacker"      # the side whose ko retakes could change it
    games = [("none", first.value, first.developed)]
    second = first
    if first.ko_banned[0 if other == "attacker" else 1] > 0 and first.developed < params.max_nodes:
        rest = dataclasses.replace(params, max_nodes=params.max_nodes - first.developed)
        second = solve(position, goal, attack=attack, params=rest, prior=prior, ko=other)
        games.append((other, second.value, second.developed))
    again = (second.value == "T") == captured            # the second game has the first one's outcome
    if succeeded:
        code = WIN if again else KO_A
    else:
        # KO_B claims a success through a ko, so it needs the second game's proof: a defence that
        # spent the budget there (UNKNOWN) is no defence
        code = KO_B if second.value == ("T" if attack else "F") else LOSE
    # the move comes from the game that proved the code (a defence proved only against simple ko, or
    # the favourite of a search that ran out of nodes, comes from the first game)
    if code == LOSE:
        source, move = first, PASS
    elif code == KO_A or (code == WIN and not attack and second.value != "F"):
        source, move = first, first.move
    else:
        source, move = second, second.move
    spent = sum(n for _, _, n in games)
    if move == PASS and code != LOSE and spent < params.max_nodes:
        move, extra = _board_move_instead_of_pass(position, goal, attack, source, params, prior,
                                                  params.max_nodes - spent)
        games.append(("board move", ("T" if attack else "F") if move != PASS else "U", extra))
    return dataclasses.replace(first, move=move, developed=sum(n for _, _, n in games), code=code,
                               ko=source.ko, games=games,
                               seconds=first.seconds + (second.seconds if second is not first else 0.0))


def _board_move_instead_of_pass(Board position, goal: int, attack: bool, source: Result, params: TacticsParams,
                                prior, budget: int, tries: int = 3) -> tuple:
    """(move, nodes): a board move that succeeds in the game where `source` succeeded with a pass (a
    side that may pass proves its first proof with it, while GnuGo's reading names the move that fights
    the ko). The search's root children other than the pass (its last search run again: solve keeps no
    tree), the side's favourites first, each checked from the position after it with the other side to
    move, `tries` at most, sharing what the budget has left. PASS when none is proved; the nodes count
    the search run again."""
    solver = last_search(position, goal, source, params, attack=attack, prior=prior)   # its tree, again
    mover = (BLACK + WHITE - position.color_at(goal)) if attack else position.color_at(goal)
    sign = -1.0 if attack else 1.0      # the attacker wants a high belief in the capture, the defender a low one
    children = [c for c in solver.children(0) if c["move"] != PASS and c["value"] != ("F" if attack else "T")]
    children.sort(key=lambda c: sign * c.get("p", 0.5))
    spent = solver.n_developed
    candidates = children[:tries]
    for k, c in enumerate(candidates):
        share = (budget - spent) // (len(candidates) - k)
        if share < 1:
            break
        after = position.copy()
        try:
            after.play(c["move"], mover)
        except ValueError:
            continue
        if after.color_at(goal) not in (BLACK, WHITE):
            return c["move"], spent     # the move itself captured the string
        r = solve(after, goal, attack=not attack, params=dataclasses.replace(params, max_nodes=share), prior=prior,
                  ko=source.ko)
        spent += r.developed
        if r.value == ("T" if attack else "F"):
            return c["move"], spent
    return PASS, spent


def attack(Board position not None, goal: int, params: TacticsParams = TacticsParams(), prior=None):
    """GnuGo's `attack`: (code, move, result) with code 1 (WIN) if the attacker, moving first, captures
    the block at goal whatever happens in any ko, 2 (KO_A) or 3 (KO_B) if only through a ko (see
    solve_ko), else (0, PASS, result); a budget that runs out counts as no capture. With
    params.ko_results off, simple ko binds both sides and the code is 1 or 0."""
    r = solve_ko(position, goal, attack=True, params=params, prior=prior) if params.ko_results else \
        solve(position, goal, attack=True, params=params, prior=prior)
    return (r.code, r.move if r.code else PASS, r)


def defend(Board position not None, goal: int, params: TacticsParams = TacticsParams(), prior=None):
    """GnuGo's `defend`: (0, PASS, result) if the attacker captures the block at goal even when the
    defender moves first (and wins every ko), else (code, move, result): code 1 (WIN), 2 (KO_A) or 3
    (KO_B, the defender must win a ko in which it makes the first threat), with the defender's move (a
    proved one when the search ended FALSE, the search's favourite when the budget ran out; PASS when
    the block needs no move: it already has l_max liberties, or passing is its proved defence, as in a
    seki)."""
    r = solve_ko(position, goal, attack=False, params=params, prior=prior) if params.ko_results else \
        solve(position, goal, attack=False, params=params, prior=prior)
    return (r.code, r.move if r.code else PASS, r)
