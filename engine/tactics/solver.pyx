# engine/tactics/solver.pyx: Bayesian proof search and proof-number search on one node store.
#
# An AND/OR proof tree searched best-first by either Bayesian proof search ("probability propagation",
# PP: Stern, Herbrich & Graepel 2007, Alg. 1-4) or proof-number search (PNS, Allis 1994). OR nodes have
# the attacker to move, AND nodes the defender. Both searchers share the store, the move generator,
# Develop and the tie-break (the lowest child index wins), and differ only in selection and backup, so
# their node counts compare like for like. Develop expands either domain: a capture goal (goal.pyx) or
# an explicit tree (andortree.pyx).
#
# Values are three-valued (V_FALSE, V_TRUE, V_UNKNOWN) and kept apart from the belief: `value` decides
# solved-ness, the belief only ranks. PP keeps beliefs as log-odds (logodds.pyx), +inf for a proved node
# and -inf for a disproved one; an unsolved node always has a finite L.
#
# Leaf priors: a learned model (a Python object) hands the solver its pattern table once per
# search as a PriorKernel (leafkernel.pyx); Develop prices each new leaf from its move's pattern stack
# (patterns.pyx) without the GIL and to the bit as the model's Python code does.
#
# Where the paper leaves a gap, these are our choices (the solver's study: bench/studies/tactics.md):
# the search loops while the root is UNKNOWN (never on a float probability), a leaf with no moves is
# TRUE at an AND node and FALSE at an OR node (empty product), and the goal is "goal vertex empty"
# (TRUE) against "goal block has >= L liberties" (FALSE), with L raised after every FALSE.
cimport cython
from libc.float cimport DBL_MAX
from libc.math cimport INFINITY, isfinite
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from engine.board cimport BLACK, EMPTY, MAX_SIZE, NO_POINT, PASS, WHITE, Board, BoardState, color_t, point_t
from engine.tactics.andortree cimport AndOrTree, tree_children
from engine.tactics.goal cimport (KO_RETAKE, PLAYABLE, child_value, generate, goal_value, is_retakable_capture,
                                  may_retake_goal, playable, replay, set_region)
from engine.tactics.leafkernel cimport PriorKernel, slot_of
from engine.tactics.logodds cimport combine_and, combine_or, log1mexp, share
from engine.tactics.patterns cimport (GRID_MARGIN, GRID_OFF, GRID_WIDTH, PZ, ROLE_SALT, grid_at, grid_raw_key,
                                      grid_states, pass_stack, pattern_stack, pattern_stack_grid, point_cell)
from engine.tactics.store cimport (LEAF_MEMO, PATTERN_MEMO, grow_table, memo_give, memo_logodds,
                                   memo_take, next_epoch, store_adopt, store_release,
                                   store_reserve)
from engine.tactics.types cimport (AND_NODE, DOMAIN_CAPTURE, DOMAIN_TREE, GEN_LOCAL, GEN_REGION, MAX_MOVES,
                                   MAX_PLIES, MEMO_BITS, METHOD_PNS, METHOD_PP, N_OFFSETS, N_SIZES, OR_NODE,
                                   PATTERN_MEMO_BITS, S_OFF, V_FALSE, V_TRUE, V_UNKNOWN, CaptureGoal, Komaster,
                                   LeafMemo, LeafTable, PatternMemo, ProofNode, Store, TreeArrays, prefetch)

import math

import numpy as np

from engine.tactics.logodds import branching_logodds

cdef int DEPTH_CUTOFF = -2                   # develop_capture's answer at max_depth
cdef int NODE_DOUBLES = sizeof(ProofNode) // sizeof(double)   # stride between siblings' `a` fields
cdef double BIG = DBL_MAX                    # an unsolved node's log-odds is clamped to +-BIG


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


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
    `kernel() -> PriorKernel` (the learned leaf priors) is priced in C without the GIL: its
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
    cdef uint32_t memo_epoch        # new (store.next_epoch) whenever `table` is fetched: older entries are stale
    cdef PatternMemo* pmemo         # 2^pmemo_bits pattern stacks (see pattern_stack_grid), or NULL
    cdef int memo_bits, pmemo_bits  # the memos grow with the search (grow_memos)
    cdef AndOrTree tree             # DOMAIN_TREE's tree (keeps `tree_arrays` alive), or None
    cdef TreeArrays tree_arrays
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
        memo_give(LEAF_MEMO, self.memo, self.memo_bits)
        memo_give(PATTERN_MEMO, self.pmemo, self.pmemo_bits)
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
            self.pmemo = <PatternMemo*>memo_take(PATTERN_MEMO, &self.pmemo_bits)
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
        set_region(g, margin)
        if self.want_keys:
            self.root_keys()
        self.domain = DOMAIN_CAPTURE
        self.tree = None
        self._reset(OR_NODE if attack else AND_NODE, goal_value(&g.root, g))

    def set_tree(self, first, count, value, prior, root_kind: str = "or") -> None:
        """An explicit AND/OR tree: node i has children first[i] .. first[i] + count[i] - 1 and value
        value[i] (0 FALSE, 1 TRUE: a terminal; 2 UNKNOWN: developed into its children, none = no
        moves); prior[i] is its leaf log-odds for PP. Node 0 is the root, of kind "or" or "and"."""
        self.tree = AndOrTree(first, count, value, prior, root_kind)
        self.tree_arrays = self.tree.a
        self.domain = DOMAIN_TREE
        self._reset(self.tree.root_kind, self.tree_arrays.value[0])

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
            count = tree_children(&self.tree_arrays, self.st.nodes[n].move, self.cand, self.cvalue)
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
                self.init_belief(c, self.tree_arrays.prior[c.move])
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

    cdef int develop_capture(self, int32_t n, int* n_depth) noexcept nogil:
        """n's moves into cand/cvalue (their pattern stacks into ckeys when wanted): their count, or
        DEPTH_CUTOFF at max_depth. n_depth = n's depth (plies below the root)."""
        cdef CaptureGoal* g = self.cap
        cdef BoardState* b = &g.work
        cdef int depth = 0, i, count, k = 0, role, status
        cdef int32_t x = n
        cdef color_t mover
        cdef point_t m
        cdef point_t gid
        cdef point_t moves[MAX_MOVES]
        cdef Komaster ko
        while self.st.nodes[x].parent >= 0:
            self.path[depth] = self.st.nodes[x].move
            depth += 1
            x = self.st.nodes[x].parent
        n_depth[0] = depth
        if depth >= self.max_depth:
            return DEPTH_CUTOFF
        replay(g, self.path, depth, &ko)
        mover = g.attacker if self.st.nodes[n].kind == OR_NODE else 3 - g.attacker
        role = 0 if mover == g.attacker else 1
        if b.color[g.goal] == EMPTY:
            # the goal stone was taken by a ko capture and the defender may retake it at once: that is
            # its only move (no retake allowed: captured)
            if may_retake_goal(g, b, mover, &ko):
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
            status = playable(g, b, m, mover, &ko)
            if status & KO_RETAKE:
                self.n_ko_banned[role] += 1
            if not status & PLAYABLE:
                continue
            self.cand[k] = m
            self.cvalue[k] = child_value(g, b, m, mover)
            if role == 0 and self.cvalue[k] != V_FALSE and is_retakable_capture(b, gid, m, mover):
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
        if self.memo == NULL:
            self.memo = <LeafMemo*>memo_take(LEAF_MEMO, &self.memo_bits)
        self.memo_epoch = next_epoch(self.memo, self.memo_bits)
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
