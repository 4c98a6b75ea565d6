"""UCT search with RAVE: the walk (select, expand, play out, back up), threads and tree reuse.

One simulation copies the root position, descends the tree by the selection formula
(engine/selection.pxd: MC-RAVE, the prior's terms, progressive widening), grows a leaf's children
after `expand_visits` visits (`expand`), finishes the game with the playout policy and adds the
result (1 a win for Black, 0 a loss; with `score_weight` graded by the margin, see `outcome`)
to every node of the path (MC) and to the children of each path node whose move the same
colour played first later in the simulation (AMAF). Nodes live in `engine.tree`'s store; what the
tree tells its readers (best move, PV, root children, ownership) is read out by `engine.report`.

Threads: n_threads workers share one tree; each has its own board copy, RNG and (with the playout
reply rule) last good replies, learnt from its own simulations and kept until the game or board size
changes; each runs without the GIL. Visit counts and virtual losses are atomic, mean values are
updated without locks (small races tolerated, as in Pachi), one thread expands a node (atomic flag)
and publishes its children by a release store of n_children. A prior is evaluated once per expanded
node: through its kernel (`Prior.move_kernel`, engine/move_kernel.pxd) without the GIL, each thread in
its own slot, or else by its `evaluate` under the GIL.

Expansion: every legal move except own one-point eyes and moves recreating a position of the
board's hash ring (at the root also of the game history given to set_root), plus pass. A simulation
whose tree moves end in two passes is scored by area (no playout); paths stop growing at MAX_DEPTH.
When the store is full the tree stops growing and simulations play out from its leaves.

Dynamic komi: set_root's extra_komi is taken off every simulation's score before it is valued, so
that a search far ahead or behind on the board (a handicap game) still tells moves apart by their
win rates (Pachi's linear dynkomi; the player sets it, see engine.player).

Tree reuse: set_root finds the new position within two moves of the old root (engine/reuse.pxd);
that node becomes the root, unless the dynamic komi moved by more than a point (KOMI_JUMP). When the
store is more than half full the kept subtree is compacted to the front of the store (copying
collector); otherwise the rest of the old tree is left behind as garbage.
"""
import threading

import numpy as np

cimport cython
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint64_t, INT64_MAX
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from engine cimport report
from engine.board cimport (Board, BoardState, point_t, color_t, point_at, is_legal, is_one_point_eye,
                           play, owner, area_score, EMPTY, BLACK, WHITE, PASS, MAX_POINTS)
from engine.ladder cimport Ladder, ladder_free, ladder_init
from engine.move_kernel cimport MoveKernel
from engine.playout cimport PlayoutParams, PlayoutRecord, MAX_PLAYOUT_MOVES, choose_move, make_params
from engine.playout cimport run as play_out
from engine.policy_replies cimport Replies, replies_clear, replies_learn
from engine.reuse cimport find_descendant, screen_root, repeats
from engine.rng cimport Rng, rng_seed
from engine.selection cimport Config, SHAPE_INV, SHAPE_INV_SQRT, select, shape_prior, set_children, outcome
from engine.tree cimport (Node, NodeStore, NO_NODE, NODE_EXPANDING, NODE_INVALID, store_init, store_free,
                          store_clear, store_alloc, n_nodes, compact, atomic_add_i32, atomic_add_i16,
                          atomic_or_u8, atomic_and_u8, load_acquire_i16, store_release_i16,
                          atomic_add_float)


cdef extern from *:
    """
    #include <stdint.h>
    static inline int64_t tesuji_add_i64(int64_t* p, int64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static inline int tesuji_load_int(const int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void tesuji_store_int(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    """
    int64_t atomic_add_i64 "tesuji_add_i64"(int64_t* p, int64_t v) noexcept nogil
    int load_int "tesuji_load_int"(const int* p) noexcept nogil
    void store_int "tesuji_store_int"(int* p, int v) noexcept nogil

cdef enum:
    MAX_DEPTH = 400                             # tree moves per simulation (deeper paths play out)
    SEQ_LEN = MAX_DEPTH + MAX_PLAYOUT_MOVES     # tree moves + playout moves of one simulation

cdef double KOMI_JUMP = 1.0  # a change of the dynamic komi beyond this many points drops the old tree


cdef struct Worker:         # one search thread's private state
    Rng rng
    int64_t n_sims          # simulations since set_root (the ownership denominator)
    BoardState b            # the simulation's board, copied from the root each time
    PlayoutRecord rec
    int32_t path[MAX_DEPTH + 1]
    point_t seq[SEQ_LEN]
    color_t seq_color[SEQ_LEN]
    int16_t first[MAX_POINTS]   # AMAF: index in seq of a point's first play in the current suffix
    int32_t own[MAX_POINTS]     # final boards: black-owned minus white-owned, per point
    Replies* replies            # last good replies of this thread's simulations (NULL: reply rule off)
    Ladder ladder               # this thread's ladder reader (stack NULL: the ladder rules are off)


cdef inline Ladder* ladder_of(Worker* w) noexcept nogil:
    """The thread's ladder reader for the playout policy, NULL when its ladder rules are off."""
    return &w.ladder if w.ladder.stack != NULL else NULL


cdef struct Counters:       # written by every thread after every simulation: on cache lines of their own,
    char pad_before[64]     # so that these writes do not evict the read-mostly fields around them
    int64_t claimed         # simulations started in this run
    int64_t done            # simulations finished in this run
    char pad_after[64]


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline int point_index(const BoardState* b, point_t p) noexcept nogil:
    """Row-major index of p in an N*N array, N*N for PASS."""
    if p == PASS:
        return b.size * b.size
    return (p // b.stride - 1) * b.size + (p % b.stride - 1)


@cython.final
cdef class Search:
    """UCT-RAVE search over one root position: `Search(params, playout, prior=None)`.

    params: engine.params.SearchParams (the prior's shaping and its place in selection included);
    playout: engine.params.PlayoutParams; prior: None or an object with
    `evaluate(board, color) -> float32 (N*N+1,)`, called once per expanded node under the GIL unless
    the prior offers a kernel (`move_kernel(n_slots)`, a MoveKernel or None).
    """
    cdef NodeStore store
    cdef int32_t root
    cdef bint has_root
    cdef BoardState root_board
    cdef Config cfg
    cdef PlayoutParams pp
    cdef Worker* workers
    cdef int n_threads
    cdef uint64_t* history          # hashes of the game's earlier positions (superko at the root)
    cdef int n_history
    cdef int stop_flag
    cdef int full                   # the store refused an allocation: no more expansion until set_root
    cdef Counters count             # simulations started and finished in this run
    cdef int64_t target
    cdef double deadline            # monotonic seconds, 0 for none
    cdef bint running
    cdef readonly object params
    cdef readonly object playout_params
    cdef readonly object prior
    cdef MoveKernel kernel          # the prior's evaluation without the GIL (None: prior.evaluate)
    cdef object error               # an exception raised by the prior inside a worker

    def __cinit__(self, params, playout, prior=None):
        cdef int i
        self.workers = NULL
        self.history = NULL
        self.store.nodes = NULL
        if params.n_threads < 0:
            raise ValueError(f"search.n_threads must be >= 0, got {params.n_threads}")
        if params.expand_visits < 0:
            raise ValueError(f"search.expand_visits must be >= 0, got {params.expand_visits}")
        if params.virtual_loss < 0:
            raise ValueError(f"search.virtual_loss must be >= 0, got {params.virtual_loss}")
        if params.rave_equiv < 0:
            raise ValueError(f"search.rave_equiv must be >= 0, got {params.rave_equiv}")
        if prior is not None and not callable(getattr(prior, "evaluate", None)):
            raise TypeError("prior must be None or have an evaluate(board, color) method")
        if params.additive_shape not in ("inv_sqrt", "inv"):
            raise ValueError(f"search.additive_shape must be inv_sqrt or inv, got {params.additive_shape!r}")
        if params.temperature <= 0:
            raise ValueError(f"search.temperature must be > 0, got {params.temperature}")
        make_params(playout, 9)     # validates the playout parameters now rather than at set_root
        self.params = params
        self.playout_params = playout
        self.prior = prior
        self.n_threads = params.thread_count()
        kernel = getattr(prior, "move_kernel", None)
        self.kernel = kernel(self.n_threads) if callable(kernel) else None
        store_init(&self.store, params.max_nodes)
        self.workers = <Worker*>calloc(self.n_threads, sizeof(Worker))   # zeroed: replies NULL
        if self.workers == NULL:
            raise MemoryError("cannot allocate search workers")
        cdef uint64_t seed = <uint64_t>(int(params.seed) & 0xFFFFFFFFFFFFFFFF)
        for i in range(self.n_threads):
            rng_seed(&self.workers[i].rng, seed, <uint64_t>(i + 1))
            self.workers[i].n_sims = 0
            memset(self.workers[i].own, 0, sizeof(self.workers[i].own))
            if playout.reply_rate > 0:
                self.workers[i].replies = <Replies*>malloc(sizeof(Replies))
                if self.workers[i].replies == NULL:
                    raise MemoryError("cannot allocate the reply tables")
                replies_clear(self.workers[i].replies)
            if playout.ladder_rate > 0 and ladder_init(&self.workers[i].ladder) != 0:
                raise MemoryError("cannot allocate the ladder readers")
        self.has_root = False
        self.error = None

    def __dealloc__(self):
        store_free(&self.store)
        if self.workers != NULL:
            for i in range(self.n_threads):
                free(self.workers[i].replies)
                ladder_free(&self.workers[i].ladder)
        free(self.workers)
        free(self.history)

    # ------------------------------------------------------------------ configuration

    cdef int configure(self, int size) except -1:
        """Resolve the size-dependent defaults (K, even prior, playout length)."""
        p = self.params
        cdef Config* c = &self.cfg
        c.expand_visits = p.expand_visits
        c.ucb_c = p.ucb_c
        c.inv_rave_k = 1.0 / p.rave_equiv_for(size)
        c.rave_distance_weight = bool(p.rave_distance_weight)
        c.even_visits = p.even_visits_for(size)
        c.virtual_loss = p.virtual_loss
        c.score_weight = p.score_weight
        c.inv_score_span = 1.0 / (p.score_span if p.score_span > 0 else size * size / 9.0)
        c.has_prior = self.prior is not None
        c.additive = c.has_prior and bool(p.additive)
        c.additive_shape = SHAPE_INV if p.additive_shape == "inv" else SHAPE_INV_SQRT
        c.additive_scale = p.additive_scale
        c.additive_decay = p.additive_decay
        c.virtual_wins = p.virtual_wins_for(size) if c.has_prior else 0.0
        c.temperature = p.temperature
        c.floor = p.floor
        c.pw = c.has_prior and bool(p.pw)
        c.pw_init = max(1, p.pw_init)
        c.pw_a = p.pw_a
        c.pw_b = p.pw_b
        c.pw_c = p.pw_c
        self.pp = make_params(self.playout_params, size)
        return 0

    # ------------------------------------------------------------------ root

    def set_root(self, Board board not None, history=(), double extra_komi=0.0) -> None:
        """Search board (board.to_play moves next); history: hashes of the game's earlier positions;
        extra_komi: points the simulations' scores give White beyond the board's komi (dynamic komi:
        the search values positions as if White received them; a kept subtree keeps its values, so
        a change of more than KOMI_JUMP points starts afresh: its values are of another game)."""
        if self.running:
            raise RuntimeError("set_root while the search is running")
        self.configure(board.s.size)
        cdef bint same_komi = abs(extra_komi - self.cfg.extra_komi) <= KOMI_JUMP
        self.cfg.extra_komi = extra_komi
        cdef Py_ssize_t i
        hashes = [int(h) & 0xFFFFFFFFFFFFFFFF for h in history]
        cdef uint64_t* hist = <uint64_t*>malloc(max(1, len(hashes)) * sizeof(uint64_t))
        if hist == NULL:
            raise MemoryError()
        for i, h in enumerate(hashes):
            hist[i] = <uint64_t>h
        free(self.history)
        self.history = hist
        self.n_history = len(hashes)

        cdef int32_t kept = NO_NODE
        if self.has_root and self.params.reuse_tree and same_komi:
            kept = find_descendant(self.store.nodes, self.root, &self.root_board, &board.s)
        if kept != NO_NODE and n_nodes(&self.store) > self.store.capacity // 2:
            try:
                kept = compact(&self.store, kept)
            except MemoryError:         # no room for the scratch copy: start afresh instead
                kept = NO_NODE
        if kept != NO_NODE:
            self.root = kept
        else:
            store_clear(&self.store)
            self.root = store_alloc(&self.store, 1)
        if self.has_root and board.s.size != self.root_board.size:
            self.clear_replies()        # the tables hold padded points of one board size
        self.root_board = board.s
        self.has_root = True
        self.full = 0
        self.store.nodes[self.root].flags &= ~NODE_INVALID
        screen_root(self.store.nodes, self.root, &self.root_board, self.history, self.n_history)
        for i in range(self.n_threads):
            self.workers[i].n_sims = 0
            memset(self.workers[i].own, 0, sizeof(self.workers[i].own))

    def clear_replies(self) -> None:
        """Forget the last good replies (a new game); nothing when the reply rule is off."""
        if self.running:
            raise RuntimeError("clear_replies while the search is running")
        for i in range(self.n_threads):
            if self.workers[i].replies != NULL:
                replies_clear(self.workers[i].replies)

    def reply_count(self) -> int:
        """The last good replies stored over all threads (each table entry once; 0 with the rule off)."""
        cdef int64_t n = 0
        cdef int i, side, p, q
        cdef Replies* r
        for i in range(self.n_threads):
            r = self.workers[i].replies
            if r == NULL:
                continue
            for side in range(2):
                for p in range(MAX_POINTS):
                    n += r.one[side][p] != 0
                    for q in range(MAX_POINTS):
                        n += r.two[side][p][q] != 0
        return n

    # ------------------------------------------------------------------ running

    def run(self, int playouts=0, double seconds=0.0) -> int:
        """Search until `playouts` more simulations or `seconds` (0: no limit on that one; both 0:
        params.playouts) or stop(). Returns the simulations done in this call."""
        if not self.has_root:
            raise RuntimeError("set_root must be called before run")
        if playouts < 0 or seconds < 0:
            raise ValueError("playouts and seconds must be >= 0")
        if playouts == 0 and seconds == 0:
            playouts = self.params.playouts
            if playouts <= 0:
                raise ValueError("no playout or time budget: give playouts or seconds")
        if self.running:
            raise RuntimeError("the search is already running")
        self.running = True
        try:
            store_int(&self.stop_flag, 0)
            self.count.claimed = 0
            self.count.done = 0
            self.target = playouts if playouts > 0 else INT64_MAX
            self.deadline = now() + seconds if seconds > 0 else 0.0
            self.error = None
            if self.store.nodes[self.root].n_children == 0:
                self.expand(self.root, &self.root_board, True, 0)
            if self.error is None:
                if self.n_threads == 1:
                    with nogil:
                        self.work(&self.workers[0])
                else:
                    threads = [threading.Thread(target=self._thread_main, args=(i,), daemon=True)
                               for i in range(self.n_threads)]
                    try:
                        for t in threads:
                            t.start()
                        for t in threads:
                            t.join()
                    except BaseException:       # e.g. KeyboardInterrupt: stop the workers, then re-raise
                        self.stop()
                        for t in threads:
                            if t.is_alive():
                                t.join()
                        raise
            if self.error is not None:
                err, self.error = self.error, None
                raise err
            return self.count.done
        finally:
            self.running = False

    def _thread_main(self, int i):
        with nogil:
            self.work(&self.workers[i])

    def stop(self) -> None:
        """End a running `run` soon (thread-safe)."""
        store_int(&self.stop_flag, 1)

    cdef void work(self, Worker* w) noexcept nogil:
        while not load_int(&self.stop_flag):
            if atomic_add_i64(&self.count.claimed, 1) >= self.target:
                break
            if self.deadline > 0 and now() >= self.deadline:
                break
            self.simulate(w)
            atomic_add_i64(&self.count.done, 1)

    # ------------------------------------------------------------------ one simulation

    cdef void simulate(self, Worker* w) noexcept nogil:
        cdef Node* nodes = self.store.nodes
        cdef BoardState* b = &w.b
        cdef int32_t cur = self.root, child
        cdef int depth = 0, n_seq, i, n_moves = 0
        cdef point_t m
        cdef color_t c
        cdef float score
        b[0] = self.root_board
        w.path[0] = cur
        while depth < MAX_DEPTH:
            if load_acquire_i16(&nodes[cur].n_children) == 0:
                if b.n_passes >= 2 or self.full:
                    break
                if cur != self.root and nodes[cur].visits < self.cfg.expand_visits:
                    break
                if not self.expand(cur, b, cur == self.root, <int>(w - self.workers)):
                    break
            child = select(nodes, cur, &self.cfg, &w.rng)
            if child == NO_NODE:
                break
            atomic_add_i16(&nodes[child].vloss, 1)
            m = nodes[child].move
            c = b.to_play
            play(b, m, c)
            w.seq[depth] = m
            w.seq_color[depth] = c
            depth += 1
            w.path[depth] = child
            cur = child
        if b.n_passes >= 2:
            score = area_score(b)       # both passed in the tree: the game is over
        else:
            score = play_out(b, &self.pp, &w.rng, &w.rec, w.replies, ladder_of(w))
            n_moves = w.rec.n_moves
        score -= self.cfg.extra_komi
        n_seq = depth
        for i in range(n_moves):
            if n_seq >= SEQ_LEN:
                break
            w.seq[n_seq] = w.rec.moves[i]
            w.seq_color[n_seq] = w.rec.colors[i]
            n_seq += 1
        self.record_owner(w, b)
        self.backup(w, depth, n_seq, outcome(score, &self.cfg))
        if w.replies != NULL:
            replies_learn(w.replies, w.seq, w.seq_color, n_seq,
                          BLACK if score > 0 else (WHITE if score < 0 else EMPTY))

    cdef bint expand(self, int32_t leaf, BoardState* b, bint at_root, int slot) noexcept nogil:
        """Give leaf its children: legal moves except own one-point eyes and superko repeats, plus
        pass. False when another thread has it, the store is full, or the prior failed. `slot` is the
        calling worker's index (the prior kernel's scratch space)."""
        cdef Node* nodes = self.store.nodes
        cdef Node* n = &nodes[leaf]
        cdef point_t moves[MAX_POINTS]
        cdef float probs[MAX_POINTS]
        cdef float bias[MAX_POINTS]
        cdef int count = 0, k, row, col
        cdef int n_history = self.n_history if at_root else 0
        cdef int32_t first
        cdef point_t p
        cdef color_t c = b.to_play
        if self.full or atomic_or_u8(&n.flags, NODE_EXPANDING) & NODE_EXPANDING:
            return False
        for row in range(b.size):
            for col in range(b.size):
                p = point_at(b, row, col)
                if b.color[p] != EMPTY or not is_legal(b, p, c) or is_one_point_eye(b, p, c):
                    continue
                if repeats(b, p, c, self.history, n_history):
                    continue
                moves[count] = p
                count += 1
        moves[count] = PASS
        count += 1
        if self.cfg.has_prior:
            if not self.evaluate_prior(b, moves, count, probs, slot):
                atomic_and_u8(&n.flags, <uint8_t>~NODE_EXPANDING)
                return False
            shape_prior(probs, bias, count, &self.cfg)
        else:
            for k in range(count):
                probs[k] = 1.0 / count
                bias[k] = 0.0
        first = store_alloc(&self.store, count)
        if first == NO_NODE:
            self.full = 1
            atomic_and_u8(&n.flags, <uint8_t>~NODE_EXPANDING)
            return False
        set_children(nodes, n, first, moves, probs, bias, count, &self.cfg)
        store_release_i16(&n.n_children, count)
        return True

    cdef bint evaluate_prior(self, const BoardState* b, const point_t* moves, int count, float* out,
                             int slot) noexcept nogil:
        """out[k] = the prior's p of moves[k]. On error: record it, stop."""
        cdef float p[MAX_POINTS]
        cdef int k, error
        if self.kernel is None:
            with gil:
                return self.evaluate_prior_py(b, moves, count, out)
        error = self.kernel.evaluate(slot, b, b.to_play, p)
        if error != 0:
            with gil:
                self.error = self.kernel.error(error)
            store_int(&self.stop_flag, 1)
            return False
        for k in range(count):
            out[k] = p[point_index(b, moves[k])]
        return True

    cdef bint evaluate_prior_py(self, const BoardState* b, const point_t* moves, int count, float* out) noexcept:
        """prior.evaluate on a Board copy of b; out[k] = p of moves[k]. On error: record it, stop."""
        cdef Board board
        cdef float[::1] p
        cdef int k, size = b.size
        try:
            board = Board(size, b.komi)
            board.s = b[0]
            arr = np.ascontiguousarray(self.prior.evaluate(board, b.to_play), dtype=np.float32).reshape(-1)
            if arr.shape[0] != size * size + 1:
                raise ValueError(f"prior.evaluate returned {arr.shape[0]} values, expected {size * size + 1}")
            p = arr
            for k in range(count):
                out[k] = p[point_index(b, moves[k])]
            return True
        except BaseException as e:
            self.error = e
            store_int(&self.stop_flag, 1)
            return False

    cdef void record_owner(self, Worker* w, const BoardState* b) noexcept nogil:
        cdef int row, col
        cdef point_t p
        cdef color_t o
        for row in range(b.size):
            for col in range(b.size):
                p = point_at(b, row, col)
                o = owner(b, p)
                if o == BLACK:
                    w.own[p] += 1
                elif o == WHITE:
                    w.own[p] -= 1
        w.n_sims += 1

    cdef void backup(self, Worker* w, int depth, int n_seq, double z) noexcept nogil:
        """Add result z (1 = Black won) along the path (MC) and to AMAF statistics."""
        cdef Node* nodes = self.store.nodes
        cdef Node* n
        cdef int i, t, f
        cdef int32_t k, k_end
        cdef point_t m
        cdef color_t mover = 3 - self.root_board.to_play, c
        cdef double r, weight, inv
        cdef bint by_distance = self.cfg.rave_distance_weight
        for i in range(depth + 1):
            if i > 0:
                mover = w.seq_color[i - 1]
            n = &nodes[w.path[i]]
            atomic_add_float(&n.wins, <float>(z if mover == BLACK else 1.0 - z))
            atomic_add_i32(&n.visits, 1)
            if i > 0:
                atomic_add_i16(&n.vloss, -1)
        # AMAF: first[] maps a point to its first play in seq[t:], built from the end backwards.
        memset(w.first, 0xff, self.root_board.stride * self.root_board.stride * sizeof(int16_t))
        for i in range(n_seq - 1, depth - 1, -1):
            if w.seq[i] != PASS:
                w.first[w.seq[i]] = <int16_t>i
        for t in range(depth - 1, -1, -1):
            if w.seq[t] != PASS:
                w.first[w.seq[t]] = <int16_t>t
            n = &nodes[w.path[t]]
            c = w.seq_color[t]
            r = z if c == BLACK else 1.0 - z
            inv = 1.0 / (n_seq - t)
            k_end = n.first_child + n.n_children
            for k in range(n.first_child, k_end):
                m = nodes[k].move
                if m == PASS:
                    continue
                f = w.first[m]
                if f < 0 or w.seq_color[f] != c:
                    continue
                weight = 2.0 - (f - t) * inv if by_distance else 1.0
                nodes[k].amaf_wins += <float>(weight * r)
                nodes[k].amaf_visits += <float>weight

    # ------------------------------------------------------------------ results

    cdef Node* root_node(self) except NULL:
        if not self.has_root:
            raise RuntimeError("set_root must be called first")
        return &self.store.nodes[self.root]

    def best_move(self) -> int:
        """The most visited root child (PASS if none); never a move repeating a game position."""
        cdef Node* r = self.root_node()
        cdef int32_t best = report.most_visited(self.store.nodes, self.root)
        cdef BoardState b
        cdef point_t m
        if best != NO_NODE:
            return self.store.nodes[best].move
        # No tree (the store cannot hold the root's children): the playout policy's move.
        b = self.root_board
        m = choose_move(&b, &self.pp, &self.workers[0].rng, ladder_of(&self.workers[0]))
        if m != PASS and repeats(&self.root_board, m, self.root_board.to_play, self.history, self.n_history):
            return PASS
        return m

    @property
    def extra_komi(self) -> float:
        """The dynamic komi given at the last set_root."""
        return self.cfg.extra_komi if self.has_root else 0.0

    def winrate(self) -> float:
        """Root value for the side to move, in [0, 1] (0.5 before any simulation)."""
        cdef Node* r = self.root_node()
        if r.visits == 0:
            return 0.5
        return 1.0 - r.wins / r.visits

    def root_visits(self) -> int:
        return self.root_node().visits

    def pv(self, int max_len=20) -> list:
        """Principal variation: most visited children from the root while they have visits."""
        self.root_node()
        return report.principal_variation(self.store.nodes, self.root, max_len)

    def root_children(self) -> list:
        """The root's children, most visited first: move, visits, winrate (side to move), prior,
        amaf_visits, amaf_winrate, pv."""
        self.root_node()
        return report.children(self.store.nodes, self.root)

    def ownership(self) -> np.ndarray:
        """(N, N) float32 in [-1, 1], indexed [row, col]: + Black, - White, averaged over the final
        boards of the simulations since set_root (zeros before any)."""
        self.root_node()
        cdef int64_t total[MAX_POINTS]
        cdef int64_t sims = 0
        cdef int i, p
        memset(total, 0, sizeof(total))
        for i in range(self.n_threads):
            sims += self.workers[i].n_sims
            for p in range(MAX_POINTS):
                total[p] += self.workers[i].own[p]
        return report.ownership(&self.root_board, total, sims)

    def n_nodes(self) -> int:
        """Nodes taken from the store (unreachable ones included until the next compaction)."""
        return n_nodes(&self.store)

    @staticmethod
    def bytes_per_node() -> int:
        return sizeof(Node)

    @property
    def max_nodes(self) -> int:
        return self.store.capacity
