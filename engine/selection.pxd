# engine/selection.pxd: the selection formula and the prior's shaping (inline: search.pyx's walk calls
# them per tree step without a call across modules).
#
# MC-RAVE (Gelly & Silver 2011), as Pachi and Fuego use it; the prior's terms and their settings are
# measured in bench/studies/search-settings.md and virtual-wins.md:
#
#     V_a = (1 - beta) Q_a + beta Q~_a,   beta = n~ / (n~ + n + n n~ / K)
#     score_a = V_a + ucb_c sqrt(ln N / n) - sqrt(d / (N + d)) K_a
#
# n and Q include the even prior (even_visits virtual visits at 0.5 for every child), with a prior
# virtual_wins * sqrt(p_a) virtual wins set at expansion (Pachi's pattern prior: knowledge that fades as
# the child's own visits grow, where the additive term fades with the parent's), and the virtual losses
# of descents in flight; N counts real visits of the parent. K_a is the additive prior term (zero
# without a prior). Children with no data at all get the first-play urgency FPU. Ties are broken at
# random and pass never wins a tie. Under progressive widening (Oakfoam) only the first n_open
# children, ordered by prior, are candidates.
from libc.math cimport sqrt, log, pow
from libc.stdint cimport int32_t
from libc.stdlib cimport qsort

from engine.board cimport point_t, PASS, MAX_POINTS
from engine.rng cimport Rng, rng_below
from engine.tree cimport Node, NO_NODE, NODE_INVALID

cdef enum:
    FPU = 10                # first-play urgency of a child with no data at all: explore it first (Pachi: infinity)

cdef enum:                  # additive prior shapes (SearchParams.additive_shape)
    SHAPE_INV_SQRT = 0      # K_a = s sqrt(sum p / p_a)         (Fuego, probability-type)
    SHAPE_INV = 1           # K_a = s sqrt(sum p max p) / p_a   (Rosin's PUCB shape)


cdef struct Config:         # SearchParams resolved for one board size (Search.configure)
    int expand_visits
    double ucb_c
    double inv_rave_k       # 1 / K
    bint rave_distance_weight
    double even_visits      # virtual visits at value 0.5 per child
    double virtual_loss     # losses per descent in flight
    double score_weight     # share of a simulation's value given by its margin
    double inv_score_span   # 1 / the margin at which that share is full
    double extra_komi       # points taken off Black's score before it is valued (dynamic komi)
    bint has_prior
    bint additive
    int additive_shape
    double additive_scale
    double additive_decay
    double virtual_wins     # a child starts with virtual_wins * sqrt(p) won simulations
    double temperature
    double floor
    bint pw
    int pw_init
    double pw_a
    double pw_b
    double pw_c


cdef struct Candidate:      # a child being created, for ordering by prior
    float p
    int32_t index


cdef inline double outcome(double score, const Config* cfg) noexcept nogil:
    """Black's value of a finished simulation with this area score (komi included): 1 a win, 0 a loss,
    0.5 jigo. With a score weight w a win is worth 1 - w + w m and a loss w (1 + m), m the margin over
    the span clipped to [-1, 1]: a bigger win is worth more, and any win more than any loss."""
    cdef double m
    if score == 0:
        return 0.5
    m = min(1.0, max(-1.0, score * cfg.inv_score_span))
    return 1.0 - cfg.score_weight * (1.0 - m) if score > 0 else cfg.score_weight * (1.0 + m)


cdef inline void widen(Node* p, const Config* cfg) noexcept nogil:
    """Progressive widening (Oakfoam): open the next child by prior when the counter passes
    pw_next. The counter is the wins stored in p, i.e. the chooser's losses through p."""
    cdef int k = p.n_open
    cdef double r
    if k >= p.n_children or p.wins < p.pw_next:
        return
    r = p.wins / p.visits if p.visits > 0 else 0.5
    p.pw_next = p.wins + cfg.pw_a * pow(cfg.pw_b, k) * (1.0 - cfg.pw_c * r)
    p.n_open = k + 1


cdef inline int32_t select(Node* nodes, int32_t parent, const Config* cfg, Rng* rng) noexcept nogil:
    """The child of parent with the highest score (see above), or NO_NODE."""
    cdef Node* p = &nodes[parent]
    cdef Node* ch
    cdef int32_t i, first = p.first_child, best_i = NO_NODE
    cdef int n_open, ties = 0
    cdef double n, q, an, beta, v, best = -1e300
    cdef double ucb = 0.0, add_w = 0.0
    if cfg.pw:
        widen(p, cfg)
    n_open = p.n_open
    if cfg.ucb_c > 0 and p.visits > 1:
        ucb = cfg.ucb_c * sqrt(log(<double>p.visits))
    if cfg.additive:
        add_w = sqrt(cfg.additive_decay / (p.visits + cfg.additive_decay))
    for i in range(first, first + n_open):
        ch = &nodes[i]
        if ch.flags & NODE_INVALID:
            continue
        n = ch.visits + cfg.even_visits + ch.prior_wins + ch.vloss * cfg.virtual_loss
        an = ch.amaf_visits
        if n > 0:
            q = (ch.wins + 0.5 * cfg.even_visits + ch.prior_wins) / n
            if an > 0:
                beta = an / (an + n + n * an * cfg.inv_rave_k)
                v = q + beta * (ch.amaf_wins / an - q)
            else:
                v = q
            if ucb > 0:
                v += ucb / sqrt(n)
        elif an > 0:
            v = ch.amaf_wins / an
        else:
            v = FPU
        v -= add_w * ch.bias
        if v > best:
            best = v
            best_i = i
            ties = 1
        elif v == best and ch.move != PASS:
            if nodes[best_i].move == PASS:
                best_i = i
                ties = 1
            else:
                ties += 1
                if rng_below(rng, ties) == 0:
                    best_i = i
    return best_i


cdef inline void shape_prior(float* p, float* bias, int count, const Config* cfg) noexcept nogil:
    """Temperature, floor and renormalisation of the children's p; the additive coefficients K_a."""
    cdef double total = 0.0, top = 0.0, x
    cdef int k
    for k in range(count):
        x = p[k] if p[k] > 0 else 0.0          # also maps NaN to 0
        if cfg.temperature != 1.0 and x > 0:
            x = pow(x, 1.0 / cfg.temperature)
        p[k] = x
        total += x
    if not (total > 0) or total > 1e300:
        for k in range(count):
            p[k] = 1.0
        total = count
    x = 0.0
    for k in range(count):
        p[k] = max(p[k] / total, cfg.floor)
        x += p[k]
    for k in range(count):
        p[k] = p[k] / x
        top = max(top, p[k])
    for k in range(count):
        if not cfg.additive:
            bias[k] = 0.0
        elif cfg.additive_shape == SHAPE_INV:
            bias[k] = cfg.additive_scale * sqrt(top) / p[k]
        else:
            bias[k] = cfg.additive_scale / sqrt(p[k])


cdef inline int by_prior_desc(const void* a, const void* b) noexcept nogil:
    cdef const Candidate* x = <const Candidate*>a
    cdef const Candidate* y = <const Candidate*>b
    if x.p > y.p:
        return -1
    if x.p < y.p:
        return 1
    return x.index - y.index


cdef inline void set_children(Node* nodes, Node* n, int32_t first, const point_t* moves, const float* probs,
                              const float* bias, int count, const Config* cfg) noexcept nogil:
    """Fill n's children first .. first + count - 1 with the moves and their shaped prior (ordered by
    prior under progressive widening, which opens pw_init of them), give each its virtual wins."""
    cdef Candidate order[MAX_POINTS]
    cdef int k, n_open
    cdef double r
    for k in range(count):
        order[k].p = probs[k]
        order[k].index = k
    if cfg.pw:
        qsort(order, count, sizeof(Candidate), by_prior_desc)
    for k in range(count):
        nodes[first + k].move = moves[order[k].index]
        nodes[first + k].prior = probs[order[k].index]
        nodes[first + k].bias = bias[order[k].index]
        nodes[first + k].prior_wins = cfg.virtual_wins * sqrt(probs[order[k].index])
    n.first_child = first
    if cfg.pw:
        n_open = min(cfg.pw_init, count)
        r = n.wins / n.visits if n.visits > 0 else 0.5
        n.pw_next = n.wins + cfg.pw_a * pow(cfg.pw_b, n_open - 1) * (1.0 - cfg.pw_c * r)
    else:
        n_open = count
    n.n_open = n_open
