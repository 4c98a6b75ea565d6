# priors/dtree/_kernels.pyx: the graphs around a candidate move, tree descents and online growth.
"""Decision trees over the stone graph (SG) and the intersection graph (IG) of a position
(van Niekerk 2014, ch. 3), in the uncompressed variants SG0 (a node per stone, plus the 4 sides) and
IG0 (a node per intersection).

A descent walks one tree for one candidate move. It starts with the discovered graph {node 0}, node 0
being the move's point; a NEW query adds a node, EDGE and ATTR queries compare a value of known nodes
with a threshold (`<` or `=`). Colours are the mover's: "own" is black in the thesis's words.

- SG: `NEW mask <= d` takes the undiscovered node of an allowed status (own, opponent, side) nearest to
  node 0 if its weight (Manhattan distance; a side is the line of points along that edge) is at most d.
  EDGE compares the weight of two nodes. ATTR compares the size or liberties of a stone's chain.
- IG: `NEW mask adjacent to x` takes an undiscovered neighbour point of node x, own before opponent
  before empty. EDGE compares the graph distance (Manhattan: every point is a node) or the
  connectivity (1 for adjacent points) of two nodes; ATTR the size of the chain or empty region holding
  a node, or the chain's liberties.

Liberties are modified pseudo-liberties: adjacent empty points summed over the chain's stones, 1 for
a chain in atari. Ties of NEW are broken by the thesis's filters (colour, weight or distance to the
discovered nodes newest first, connectivity likewise (IG), size, liberties); nodes still tied branch
the descent, and the result is the smallest leaf level reached (levels number leaves in pre-order, so
this is the left-most leaf). Growth updates the statistics of every leaf reached.

Each leaf being grown keeps a histogram per candidate query: descents and wins per value. A leaf
splits after `split_descents` descents (retrying every 10) on the query and threshold of best
quality that passes the criterion's suitability conditions; its children start empty.
"""
from libc.math cimport fabs, log2
from libc.stdint cimport int32_t, uint8_t, uint32_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memset

import numpy as np

from engine.board cimport EDGE, EMPTY, MAX_POINTS, Board, BoardState, in_list, is_legal, point_t

cdef enum:
    MAXN = 10              # discovered nodes at most (node 0 included)
    VCAP = 32              # values are clamped to 0..VCAP-1 (distances, sizes, liberties, NEW d)
    SIDE = 1000            # node ids: a point p, or SIDE + k for side k (0 row 0, 1 top row, 2 col 0, 3 last col)
    MAX_BRANCH = 32        # leaves reached per descent at most (ties that keep branching are cut here)
    RETRY = 10             # descents between split attempts once a leaf is due
    NODE_FIELDS = 8
    PATHS = 320            # MAX_BRANCH * MAXN
    MAX_TIES = 64          # nodes a NEW keeps at its status and weight (more are left out)

cdef enum:                 # tree node kinds
    K_LEAF = 0
    K_NEW = 1
    K_DIST = 2             # SG weight / IG graph distance of nodes a, b
    K_CONN = 3             # IG connectivity of nodes a, b
    K_SIZE = 4
    K_LIBS = 5

SYSTEMS = ("sg", "ig")
CRITERIA = ("wwls", "wls", "wss", "ss", "we", "wwe", "wrs", "nds", "ds", "ws", "ls", "eds", "ews", "els")
KINDS = ("leaf", "new", "dist", "conn", "size", "libs")

cdef struct TNode:         # one tree node; NODE_FIELDS int32 fields, the columns of the model's array
    int32_t kind
    int32_t a              # NEW: status mask (bit 0 own, 1 opponent, 2 side/empty); else node x
    int32_t b              # NEW (IG): anchor node; pair queries: node y
    int32_t rel            # 0 '<', 1 '='
    int32_t val            # threshold, or NEW's d (SG)
    int32_t n_nodes        # discovered nodes when the descent is here
    int32_t child          # internal: first child (children are contiguous); leaf: its level
    int32_t slot           # leaf being grown: its statistics slot; query of finished trees: its
                           # left-most leaf level; else -1

cdef struct Graph:         # one position seen by the side to move
    int n                  # board size
    int stride
    uint8_t col[MAX_POINTS]      # 0 empty, 1 own, 2 opponent, 3 off-board
    int32_t row_of[MAX_POINTS]   # board row and column of each point (no divisions in the queries)
    int32_t col_of[MAX_POINTS]
    int32_t size[MAX_POINTS]     # size of the chain or empty region holding the point
    int32_t libs[MAX_POINTS]     # modified pseudo-liberties of the chain (0 for empty points)
    int32_t n_stones
    int32_t stones[MAX_POINTS]
    int32_t stone_row[MAX_POINTS]  # row and column of stones[i]
    int32_t stone_col[MAX_POINTS]

cdef struct Ctx:           # one descent
    Graph* g
    int32_t move           # node 0's point
    int32_t system
    int32_t n_sorted       # SG: stones and sides by weight to node 0
    int32_t sorted_id[MAX_POINTS + 4]
    int32_t sorted_w[MAX_POINTS + 4]
    int32_t n_reached      # leaves reached by this descent
    int32_t reached[MAX_BRANCH]


# --- the graphs ----------------------------------------------------------------------------------

cdef void build_graph(Graph* g, const BoardState* b, int color) noexcept nogil:
    """Statuses relative to `color`, chain and empty-region sizes, pseudo-liberties."""
    cdef int n = b.size, stride = b.stride, p, q, k, head, tail, region
    cdef int d[4]
    cdef int32_t queue[MAX_POINTS]
    cdef int32_t seen[MAX_POINTS]
    cdef point_t s, gid
    d[0] = -1
    d[1] = 1
    d[2] = -stride
    d[3] = stride
    g.n = n
    g.stride = stride
    g.n_stones = 0
    for p in range(stride * stride):
        g.size[p] = 0
        g.libs[p] = 0
        seen[p] = 0
        g.row_of[p] = p // stride - 1
        g.col_of[p] = p % stride - 1
        if b.color[p] == EDGE:
            g.col[p] = 3
        elif b.color[p] == EMPTY:
            g.col[p] = 0
        else:
            g.col[p] = 1 if b.color[p] == color else 2
            g.stones[g.n_stones] = p
            g.stone_row[g.n_stones] = g.row_of[p]
            g.stone_col[g.n_stones] = g.col_of[p]
            g.n_stones += 1
    for k in range(g.n_stones):          # chains: size and pseudo-liberties, stored at every stone
        p = g.stones[k]
        gid = b.group[p]
        if gid != p:
            continue
        head = 0
        tail = 0
        s = gid
        while s != 0:
            head += 1
            for q in range(4):
                if b.color[s + d[q]] == EMPTY:
                    tail += 1
            s = b.next_stone[s]
        if b.groups[gid].n_libs == 1:
            tail = 1
        s = gid
        while s != 0:
            g.size[s] = head
            g.libs[s] = tail
            s = b.next_stone[s]
    region = 0
    for p in range(stride * stride):     # empty regions: flood fill
        if g.col[p] != 0 or seen[p]:
            continue
        region += 1
        head = 0
        tail = 1
        queue[0] = p
        seen[p] = region
        while head < tail:
            q = queue[head]
            head += 1
            for k in range(4):
                if g.col[q + d[k]] == 0 and not seen[q + d[k]]:
                    seen[q + d[k]] = region
                    queue[tail] = q + d[k]
                    tail += 1
        for k in range(tail):
            g.size[queue[k]] = tail


cdef inline int iabs(int x) noexcept nogil:
    return x if x >= 0 else -x


cdef inline int side_dist(const Graph* g, int p, int k) noexcept nogil:
    cdef int r = g.row_of[p], c = g.col_of[p]
    if k == 0:
        return r
    if k == 1:
        return g.n - 1 - r
    if k == 2:
        return c
    return g.n - 1 - c


cdef inline int weight(const Graph* g, int a, int b) noexcept nogil:
    """SG weight (Manhattan distance between points, a point's distance to a side's line, 0 between
    adjacent sides and N between opposite ones); for two points also the IG graph distance."""
    if a >= SIDE and b >= SIDE:
        return g.n if (a - SIDE) // 2 == (b - SIDE) // 2 else 0
    if a >= SIDE:
        return side_dist(g, b, a - SIDE)
    if b >= SIDE:
        return side_dist(g, a, b - SIDE)
    return iabs(g.row_of[a] - g.row_of[b]) + iabs(g.col_of[a] - g.col_of[b])


cdef inline int clamp(int v) noexcept nogil:
    return v if v < VCAP else VCAP - 1


cdef inline int status(const Graph* g, int node) noexcept nogil:
    """0 own, 1 opponent, 2 side (SG) or empty (IG): the NEW outcome a node gives."""
    if node >= SIDE or g.col[node] == 0:
        return 2
    return g.col[node] - 1


cdef inline int node_size(const Graph* g, int node) noexcept nogil:
    return 0 if node >= SIDE else g.size[node]


cdef inline int node_libs(const Graph* g, int node) noexcept nogil:
    return 0 if node >= SIDE else g.libs[node]


cdef inline int conn(const Graph* g, int a, int b) noexcept nogil:
    return 1 if weight(g, a, b) == 1 else 0


cdef void sort_by_weight(Ctx* ctx) noexcept nogil:
    """SG: every stone and side by weight to node 0 (counting sort)."""
    cdef Graph* g = ctx.g
    cdef int count[2 * VCAP + 2]
    cdef int i, w, k, m = g.n_stones + 4, r0 = g.row_of[ctx.move], c0 = g.col_of[ctx.move]
    cdef int32_t ws[MAX_POINTS + 4]
    memset(count, 0, sizeof(count))
    for i in range(g.n_stones):
        ws[i] = iabs(g.stone_row[i] - r0) + iabs(g.stone_col[i] - c0)
        count[ws[i] + 1] += 1
    for k in range(4):
        ws[g.n_stones + k] = side_dist(g, ctx.move, k)
        count[ws[g.n_stones + k] + 1] += 1
    for w in range(1, 2 * VCAP + 2):
        count[w] += count[w - 1]
    for i in range(m):
        k = count[ws[i]]
        count[ws[i]] += 1
        ctx.sorted_id[k] = g.stones[i] if i < g.n_stones else SIDE + i - g.n_stones
        ctx.sorted_w[k] = ws[i]
    ctx.n_sorted = m


# --- NEW ---------------------------------------------------------------------------------------------

cdef inline int tie_value(Ctx* ctx, int rule, int node, int other) noexcept nogil:
    if rule == 0:
        return -weight(ctx.g, node, other)
    if rule == 1:
        return conn(ctx.g, node, other)
    if rule == 2:
        return node_size(ctx.g, node)
    return node_libs(ctx.g, node)


cdef int keep_best(Ctx* ctx, int rule, int other, point_t* cand, int m) noexcept nogil:
    """Keep the candidates of the highest tie_value; how many are left."""
    cdef int i, v, kept = 0, best = tie_value(ctx, rule, cand[0], other)
    for i in range(1, m):
        v = tie_value(ctx, rule, cand[i], other)
        if v > best:
            best = v
    for i in range(m):
        if tie_value(ctx, rule, cand[i], other) == best:
            cand[kept] = cand[i]
            kept += 1
    return kept


cdef int break_ties(Ctx* ctx, const point_t* disc, int n, point_t* cand, int m) noexcept nogil:
    """The thesis's filters after status: the lowest weight (distance) to the discovered nodes newest
    first, the highest connectivity likewise (IG), the largest size, the most liberties. Returns how
    many candidates are left (moved to the front of cand)."""
    cdef int k
    for k in range(n - 1, -1, -1):
        if m == 1:
            return 1
        m = keep_best(ctx, 0, disc[k], cand, m)
    if ctx.system == 1:
        for k in range(n - 1, -1, -1):
            if m == 1:
                return 1
            m = keep_best(ctx, 1, disc[k], cand, m)
    if m > 1:
        m = keep_best(ctx, 2, 0, cand, m)
    if m > 1:
        m = keep_best(ctx, 3, 0, cand, m)
    return m


cdef inline bint offer(Ctx* ctx, const point_t* disc, int n, int mask, int node, int* best, point_t* cand,
                       int* m) noexcept nogil:
    """A NEW candidate: kept in cand[0:m] when undiscovered, of an allowed status and of the best status
    offered so far (own < opponent < side/empty), the list restarting at a better status."""
    cdef int st = status(ctx.g, node)
    if not (mask >> st) & 1 or in_list(disc, n, node):
        return False
    if st < best[0]:
        best[0] = st
        m[0] = 0
    if st == best[0] and m[0] < MAX_TIES:
        cand[m[0]] = node
        m[0] += 1
    return True


cdef int new_sg(Ctx* ctx, const point_t* disc, int n, int mask, int d, point_t* cand, int* m) noexcept nogil:
    """SG NEW: the outcome (0..2, 3 = none) and the tied nodes it found, in cand[0:m]."""
    cdef int i, s = -1, best = 3
    m[0] = 0
    for i in range(ctx.n_sorted):
        if s >= 0 and ctx.sorted_w[i] != s:
            break
        if clamp(ctx.sorted_w[i]) > d:
            break
        if offer(ctx, disc, n, mask, ctx.sorted_id[i], &best, cand, m):
            s = ctx.sorted_w[i]
    if best < 3:
        m[0] = break_ties(ctx, disc, n, cand, m[0])
    return best


cdef int new_ig(Ctx* ctx, const point_t* disc, int n, int mask, int anchor, point_t* cand, int* m) noexcept nogil:
    """IG NEW: a neighbour point of node `anchor`, own before opponent before empty."""
    cdef Graph* g = ctx.g
    cdef int k, q, best = 3
    cdef int d[4]
    d[0] = -1
    d[1] = 1
    d[2] = -g.stride
    d[3] = g.stride
    m[0] = 0
    if disc[anchor] >= SIDE:
        return 3
    for k in range(4):
        q = disc[anchor] + d[k]
        if g.col[q] != 3:
            offer(ctx, disc, n, mask, q, &best, cand, m)
    if best < 3:
        m[0] = break_ties(ctx, disc, n, cand, m[0])
    return best


cdef inline int leftmost(const TNode* tn) noexcept nogil:
    """The level of the left-most leaf below a node of finished trees (-1 while growing)."""
    return tn.child if tn.kind == K_LEAF else tn.slot


cdef inline int child_of_outcome(int mask, int outcome) noexcept nogil:
    """Children of NEW: one per allowed status (own, opponent, side/empty), then none."""
    cdef int k, i = 0
    for k in range(3):
        if k == outcome:
            return i
        if (mask >> k) & 1:
            i += 1
    return i


cdef inline int n_new_children(int mask) noexcept nogil:
    return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + 1


cdef inline int pair_value(Ctx* ctx, int kind, int a, int b) noexcept nogil:
    if kind == K_CONN:
        return conn(ctx.g, a, b)
    return clamp(weight(ctx.g, a, b))


cdef inline int attr_value(Ctx* ctx, int kind, int a) noexcept nogil:
    return clamp(node_size(ctx.g, a) if kind == K_SIZE else node_libs(ctx.g, a))


# --- statistics layout ---------------------------------------------------------------------------------
# A leaf's block: [descents, wins, then per bin (descents, wins)] over the candidate queries in this
# order. SG: NEW per mask (3 statuses x VCAP nearest weights, then one bin for "none"), DIST per pair,
# SIZE and LIBS per node >= 1. IG: NEW per mask and anchor (4 outcomes), DIST (VCAP) and CONN (2) per
# pair, SIZE and LIBS per node. A leaf with MAXN nodes has no NEW queries.

cdef int n_bins(int system, int n) noexcept nogil:
    cdef int total = 0, pairs = n * (n - 1) // 2
    if system == 0:
        if n < MAXN:
            total += 7 * (3 * VCAP + 1)
        return total + pairs * VCAP + 2 * (n - 1) * VCAP
    if n < MAXN:
        total += 7 * n * 4
    return total + pairs * (VCAP + 2) + 2 * n * VCAP


cdef inline void bump(uint32_t* block, int bin, bint win) noexcept nogil:
    block[2 + 2 * bin] += 1
    if win:
        block[3 + 2 * bin] += 1


cdef void update_stats(Ctx* ctx, uint32_t* block, const point_t* disc, int n, bint win) noexcept nogil:
    cdef Graph* g = ctx.g
    cdef int off = 0, mask, i, j, x, st, s, best
    cdef int nearest[3]
    cdef bint has[3]
    cdef int d[4]
    cdef int q, k
    block[0] += 1
    if win:
        block[1] += 1
    if ctx.system == 0:
        if n < MAXN:
            nearest[0] = nearest[1] = nearest[2] = -1
            for i in range(ctx.n_sorted):
                st = status(g, ctx.sorted_id[i])
                if nearest[st] < 0 and not in_list(disc, n, ctx.sorted_id[i]):
                    nearest[st] = clamp(ctx.sorted_w[i])
                    if nearest[0] >= 0 and nearest[1] >= 0 and nearest[2] >= 0:
                        break
            for mask in range(1, 8):
                s = VCAP
                best = 3
                for st in range(3):
                    if (mask >> st) & 1 and nearest[st] >= 0 and nearest[st] < s:
                        s = nearest[st]
                        best = st
                bump(block, off + (best * VCAP + s if best < 3 else 3 * VCAP), win)
                off += 3 * VCAP + 1
        for i in range(n):
            for j in range(i + 1, n):
                bump(block, off + pair_value(ctx, K_DIST, disc[i], disc[j]), win)
                off += VCAP
        for x in range(1, n):
            bump(block, off + attr_value(ctx, K_SIZE, disc[x]), win)
            bump(block, off + VCAP + attr_value(ctx, K_LIBS, disc[x]), win)
            off += 2 * VCAP
        return
    d[0] = -1
    d[1] = 1
    d[2] = -g.stride
    d[3] = g.stride
    if n < MAXN:
        for x in range(n):
            has[0] = has[1] = has[2] = False
            for k in range(4):
                q = disc[x] + d[k]
                if g.col[q] != 3 and not in_list(disc, n, q):
                    has[status(g, q)] = True
            for mask in range(1, 8):
                best = 3
                for st in range(3):
                    if (mask >> st) & 1 and has[st]:
                        best = st
                        break
                bump(block, off + 4 * ((mask - 1) * n + x) + best, win)
        off += 7 * n * 4
    for i in range(n):
        for j in range(i + 1, n):
            bump(block, off + pair_value(ctx, K_DIST, disc[i], disc[j]), win)
            bump(block, off + VCAP + pair_value(ctx, K_CONN, disc[i], disc[j]), win)
            off += VCAP + 2
    for x in range(n):
        bump(block, off + attr_value(ctx, K_SIZE, disc[x]), win)
        bump(block, off + VCAP + attr_value(ctx, K_LIBS, disc[x]), win)
        off += 2 * VCAP


# --- split criteria -----------------------------------------------------------------------------------

cdef double spread(const double* x, int k, double total) noexcept nogil:
    """-sum_c |1/|C| - x_c/total| (DS, WS, LS)."""
    cdef double q = 0.0
    cdef int c
    for c in range(k):
        q -= fabs(1.0 / k - x[c] / total)
    return q


cdef double entropy(const double* x, int k, double total) noexcept nogil:
    """-sum_c p log2 p with p = x_c / total (EDS, EWS, ELS)."""
    cdef double q = 0.0, p
    cdef int c
    for c in range(k):
        p = x[c] / total
        if p > 0:
            q -= p * log2(p)
    return q


cdef double quality(int criterion, const double* dc, const double* wc, int k, double D, double W,
                    int none_child, bint* ok) noexcept nogil:
    """Quality Q of a split into k children (descents dc, wins wc) of a leaf with D descents and W wins,
    by the criterion's number in CRITERIA; ok is cleared when the suitability conditions fail
    (S1 for all, S2 for the separate criteria and WRS, S3 for WS/EWS, S4 for LS/ELS)."""
    cdef double L = D - W, r = W / D, q = 0.0, rc, t, best_w = -1e300, best_l = -1e300
    cdef double lc[4]
    cdef const double* x
    cdef double total
    cdef int c
    ok[0] = True
    for c in range(k):
        lc[c] = dc[c] - wc[c]
        if dc[c] >= D:
            ok[0] = False
        if (criterion == 9 or criterion == 12) and wc[c] >= W:
            ok[0] = False
        if (criterion == 10 or criterion == 13) and lc[c] >= L:
            ok[0] = False
    if criterion <= 6 and not (W > 1 and L > 1):
        ok[0] = False
    if not ok[0]:
        return 0.0
    if criterion == 7:
        return -fabs(0.5 - dc[none_child] / D)
    if criterion >= 8:                 # DS, WS, LS, EDS, EWS, ELS: over descents, wins or losses
        x = dc if criterion % 3 == 2 else (wc if criterion % 3 == 0 else lc)
        total = D if criterion % 3 == 2 else (W if criterion % 3 == 0 else L)
        return spread(x, k, total) if criterion <= 10 else entropy(x, k, total)
    for c in range(k):
        if dc[c] <= 0:
            continue
        rc = wc[c] / dc[c]
        if criterion == 0:
            q += dc[c] * fabs(rc - r)
        elif criterion == 1:
            q += fabs(rc - r)
        elif criterion == 2 or criterion == 3:
            t = rc / r if rc / r < (1 - rc) / (1 - r) else (1 - rc) / (1 - r)
            q -= dc[c] * t if criterion == 2 else t
        elif criterion == 6:
            q -= fabs(rc - r)
        else:
            t = dc[c] if criterion == 5 else 1.0
            if rc > 0 and t * log2(rc) > best_w:
                best_w = t * log2(rc)
            if rc < 1 and t * log2(1 - rc) > best_l:
                best_l = t * log2(1 - rc)
    if criterion == 4 or criterion == 5:
        return best_w + best_l
    return q


def split_quality(str criterion, descents, wins, int none_child=-1):
    """The quality of one split from children's descents and wins (for tests and reports); None when
    the criterion's suitability conditions reject it."""
    cdef double dc[4]
    cdef double wc[4]
    cdef bint ok
    cdef int c, k = len(descents)
    if not 1 <= k <= 4 or len(wins) != k:
        raise ValueError("1 to 4 children, with as many win counts")
    for c in range(k):
        dc[c] = descents[c]
        wc[c] = wins[c]
    q = quality(CRITERIA.index(criterion), dc, wc, k, sum(descents), sum(wins),
                k - 1 if none_child < 0 else none_child, &ok)
    return q if ok else None


# --- the forest ---------------------------------------------------------------------------------------

cdef struct Best:
    double q
    int kind, a, b, rel, val, found


cdef inline void consider(Best* best, int criterion, const double* dc, const double* wc, int k, double D,
                          double W, int kind, int a, int b, int rel, int val) noexcept nogil:
    cdef bint ok
    cdef double q = quality(criterion, dc, wc, k, D, W, k - 1, &ok)
    if ok and (not best.found or q > best.q):
        best.q = q
        best.kind = kind
        best.a = a
        best.b = b
        best.rel = rel
        best.val = val
        best.found = 1


cdef inline void consider_yes_no(Best* best, int criterion, double yes_d, double yes_w, double D, double W,
                                 int kind, int a, int b, int rel, int val) noexcept nogil:
    """A split into Y (yes_d descents, yes_w wins) and N (the rest)."""
    cdef double dc[2]
    cdef double wc[2]
    dc[0] = yes_d
    wc[0] = yes_w
    dc[1] = D - yes_d
    wc[1] = W - yes_w
    consider(best, criterion, dc, wc, 2, D, W, kind, a, b, rel, val)


cdef void best_value_split(Best* best, int criterion, const uint32_t* block, int off, int nb, double D,
                           double W, int kind, int a, int b) noexcept nogil:
    """A value query's best threshold: `value < val` and `value = val` for every val."""
    cdef double below_d = 0, below_w = 0, hd, hw
    cdef int v
    for v in range(nb):
        hd = block[2 + 2 * (off + v)]
        hw = block[3 + 2 * (off + v)]
        if below_d > 0:
            consider_yes_no(best, criterion, below_d, below_w, D, W, kind, a, b, 0, v)
        if hd > 0:
            consider_yes_no(best, criterion, hd, hw, D, W, kind, a, b, 1, v)
        below_d += hd
        below_w += hw


cdef Best best_split(int system, int n, const uint32_t* block, int criterion) noexcept nogil:
    cdef Best best
    cdef double D = block[0], W = block[1], nd, nw
    cdef double dc[4]
    cdef double wc[4]
    cdef double cum_d[3]
    cdef double cum_w[3]
    cdef int off = 0, mask, s, st, k, i, j, x, o
    best.found = 0
    best.q = 0
    if system == 0:
        if n < MAXN:
            for mask in range(1, 8):
                cum_d[0] = cum_d[1] = cum_d[2] = 0
                cum_w[0] = cum_w[1] = cum_w[2] = 0
                for s in range(VCAP):
                    for st in range(3):
                        cum_d[st] += block[2 + 2 * (off + st * VCAP + s)]
                        cum_w[st] += block[3 + 2 * (off + st * VCAP + s)]
                    k = 0
                    nd = D
                    nw = W
                    for st in range(3):
                        if (mask >> st) & 1:
                            dc[k] = cum_d[st]
                            wc[k] = cum_w[st]
                            nd -= cum_d[st]
                            nw -= cum_w[st]
                            k += 1
                    dc[k] = nd
                    wc[k] = nw
                    consider(&best, criterion, dc, wc, k + 1, D, W, K_NEW, mask, 0, 0, s)
                off += 3 * VCAP + 1
        for i in range(n):
            for j in range(i + 1, n):
                best_value_split(&best, criterion, block, off, VCAP, D, W, K_DIST, i, j)
                off += VCAP
        for x in range(1, n):
            best_value_split(&best, criterion, block, off, VCAP, D, W, K_SIZE, x, 0)
            best_value_split(&best, criterion, block, off + VCAP, VCAP, D, W, K_LIBS, x, 0)
            off += 2 * VCAP
        return best
    if n < MAXN:
        for mask in range(1, 8):
            for x in range(n):
                k = 0
                for o in range(4):
                    if o == 3 or (mask >> o) & 1:
                        dc[k] = block[2 + 2 * (off + 4 * ((mask - 1) * n + x) + o)]
                        wc[k] = block[3 + 2 * (off + 4 * ((mask - 1) * n + x) + o)]
                        k += 1
                consider(&best, criterion, dc, wc, k, D, W, K_NEW, mask, x, 0, 0)
        off += 7 * n * 4
    for i in range(n):
        for j in range(i + 1, n):
            best_value_split(&best, criterion, block, off, VCAP, D, W, K_DIST, i, j)
            best_value_split(&best, criterion, block, off + VCAP, 2, D, W, K_CONN, i, j)
            off += VCAP + 2
    for x in range(n):
        best_value_split(&best, criterion, block, off, VCAP, D, W, K_SIZE, x, 0)
        best_value_split(&best, criterion, block, off + VCAP, VCAP, D, W, K_LIBS, x, 0)
        off += 2 * VCAP
    return best


cdef class Forest:
    """Trees over SG0 or IG0 (`systems[t]` is 0 or 1), stored as one array of nodes; leaves are
    numbered 1..n_leaves[t] in pre-order by `finish()` (level 0 is left to pass)."""

    cdef TNode* nodes
    cdef int n_nodes, cap
    cdef uint32_t** blocks
    cdef int n_blocks, block_cap
    cdef public object roots, systems, n_leaves
    cdef int criterion, split_descents
    cdef Graph graph
    cdef Ctx ctx

    def __cinit__(self):
        self.nodes = NULL
        self.blocks = NULL
        self.n_nodes = self.cap = self.n_blocks = self.block_cap = 0

    def __dealloc__(self):
        self._free_blocks()
        free(self.nodes)

    def __init__(self, systems, str criterion="wwls", int split_descents=1000):
        """New trees of a single leaf each, one per entry of `systems` ("sg" or "ig")."""
        self.systems = np.array([SYSTEMS.index(s) if isinstance(s, str) else int(s) for s in systems],
                                dtype=np.int32)
        self.roots = np.zeros(len(self.systems), dtype=np.int32)
        self.n_leaves = np.ones(len(self.systems), dtype=np.int32)
        self.criterion = CRITERIA.index(criterion)
        self.split_descents = split_descents
        for t in range(len(self.systems)):
            self.roots[t] = self._add_leaves(1, 1)

    def _free_blocks(self):
        cdef int i
        if self.blocks != NULL:
            for i in range(self.n_blocks):
                free(self.blocks[i])
            free(self.blocks)
        self.blocks = NULL
        self.n_blocks = self.block_cap = 0

    cdef int _add_leaves(self, int k, int n_nodes) except -1:
        """k new leaves with n_nodes discovered nodes, contiguous; the index of the first."""
        cdef int i, first = self.n_nodes
        if self.n_nodes + k > self.cap:
            self.cap = max(2 * self.cap, self.n_nodes + k, 64)
            self.nodes = <TNode*>realloc(self.nodes, self.cap * sizeof(TNode))
            if self.nodes == NULL:
                raise MemoryError()
        for i in range(first, first + k):
            memset(&self.nodes[i], 0, sizeof(TNode))
            self.nodes[i].n_nodes = n_nodes
            self.nodes[i].slot = -1
            self.nodes[i].child = -1
        self.n_nodes += k
        return first

    @property
    def n_trees(self):
        return len(self.systems)

    def arrays(self) -> dict:
        """The trees as arrays: `nodes` (n, NODE_FIELDS) int32, `roots`, `systems`, `n_leaves`."""
        out = np.zeros((self.n_nodes, NODE_FIELDS), dtype=np.int32)
        cdef int32_t[:, ::1] v = out
        cdef int i
        for i in range(self.n_nodes):
            v[i, 0] = self.nodes[i].kind
            v[i, 1] = self.nodes[i].a
            v[i, 2] = self.nodes[i].b
            v[i, 3] = self.nodes[i].rel
            v[i, 4] = self.nodes[i].val
            v[i, 5] = self.nodes[i].n_nodes
            v[i, 6] = self.nodes[i].child
            v[i, 7] = -1
        return {"nodes": out, "roots": self.roots.copy(), "systems": self.systems.copy(),
                "n_leaves": self.n_leaves.copy()}

    @classmethod
    def from_arrays(cls, nodes, roots, systems, n_leaves, str criterion="wwls", int split_descents=1000):
        """Trees written by `arrays()` (finished ones evaluate; growth resumes on unfinished ones)."""
        cdef Forest f = cls([], criterion, split_descents)
        cdef const int32_t[:, ::1] v = np.ascontiguousarray(nodes, dtype=np.int32)
        cdef int i
        if v.shape[1] != NODE_FIELDS:
            raise ValueError(f"nodes must have {NODE_FIELDS} columns")
        f.systems = np.asarray(systems, dtype=np.int32).copy()
        f.roots = np.asarray(roots, dtype=np.int32).copy()
        f.n_leaves = np.asarray(n_leaves, dtype=np.int32).copy()
        if len(f.roots) != len(f.systems) or len(f.n_leaves) != len(f.systems):
            raise ValueError("roots, systems and n_leaves differ in length")
        f._add_leaves(v.shape[0], 1)
        for i in range(v.shape[0]):
            f.nodes[i].kind = v[i, 0]
            f.nodes[i].a = v[i, 1]
            f.nodes[i].b = v[i, 2]
            f.nodes[i].rel = v[i, 3]
            f.nodes[i].val = v[i, 4]
            f.nodes[i].n_nodes = v[i, 5]
            f.nodes[i].child = v[i, 6]
            f.nodes[i].slot = -1
        f._check()
        f.finish()
        return f

    def _check(self):
        cdef int i, k
        for i in range(self.n_nodes):
            k = self.nodes[i].kind
            if not 0 <= k <= K_LIBS or not 1 <= self.nodes[i].n_nodes <= MAXN:
                raise ValueError(f"tree node {i} is damaged")
            if k != K_LEAF and not i < self.nodes[i].child < self.n_nodes:
                raise ValueError(f"tree node {i} has no valid children")
        if np.any(self.roots < 0) or np.any(self.roots >= max(self.n_nodes, 1)) or \
                np.any((self.systems != 0) & (self.systems != 1)):
            raise ValueError("roots or systems out of range")

    # --- descents ---

    cdef int descend(self, int node, point_t* disc, int n, point_t* paths) noexcept nogil:
        """The smallest leaf level (during growth, leaf index) reachable from `node`. The leaves reached
        go to ctx.reached and, when `paths` is not NULL, their discovered nodes to paths (MAXN per
        leaf); after MAX_BRANCH leaves, ties stop branching."""
        cdef TNode* tn = &self.nodes[node]
        cdef point_t cand[MAX_TIES]
        cdef int m = 0, outcome, i, r, best = 2147483647, v
        cdef Ctx* ctx = &self.ctx
        if tn.kind == K_LEAF:
            if ctx.n_reached < MAX_BRANCH:
                if paths != NULL:
                    for i in range(n):
                        paths[ctx.n_reached * MAXN + i] = disc[i]
                ctx.reached[ctx.n_reached] = node
            ctx.n_reached += 1
            return tn.child if tn.child >= 0 else node
        if tn.kind == K_NEW:
            if ctx.system == 0:
                outcome = new_sg(ctx, disc, n, tn.a, tn.val, cand, &m)
            else:
                outcome = new_ig(ctx, disc, n, tn.a, tn.b, cand, &m)
            r = tn.child + child_of_outcome(tn.a, outcome)
            if outcome == 3:
                return self.descend(r, disc, n, paths)
            for i in range(m):
                if i > 0 and (ctx.n_reached >= MAX_BRANCH or best <= leftmost(&self.nodes[r])):
                    break             # no branch can reach a leaf left of the one found
                disc[n] = cand[i]
                v = self.descend(r, disc, n + 1, paths)
                if v < best:
                    best = v
            return best
        if tn.kind == K_DIST or tn.kind == K_CONN:
            v = pair_value(ctx, tn.kind, disc[tn.a], disc[tn.b])
        else:
            v = attr_value(ctx, tn.kind, disc[tn.a])
        if (tn.rel == 0 and v < tn.val) or (tn.rel == 1 and v == tn.val):
            return self.descend(tn.child, disc, n, paths)
        return self.descend(tn.child + 1, disc, n, paths)

    def levels(self, Board board, int color, const int32_t[::1] index, int32_t[:, ::1] out, int column=0):
        """out[i, column + t] = the level of tree t for candidate index[i] (row-major; pass, N*N, gets 0)."""
        cdef int n = board.s.size, i, t, p, n_trees = len(self.systems)
        cdef bint any_sg = bool(np.any(self.systems == 0))
        cdef const int32_t[::1] systems = self.systems
        cdef const int32_t[::1] roots = self.roots
        cdef point_t disc[MAXN]
        if out.shape[0] < index.shape[0] or out.shape[1] < column + n_trees:
            raise ValueError("out is too small")
        build_graph(&self.graph, &board.s, color)
        self.ctx.g = &self.graph
        for i in range(index.shape[0]):
            if index[i] >= n * n or index[i] < 0:
                for t in range(n_trees):
                    out[i, column + t] = 0
                continue
            p = (index[i] // n + 1) * board.s.stride + index[i] % n + 1
            self.ctx.move = p
            if any_sg:
                sort_by_weight(&self.ctx)
            for t in range(n_trees):
                disc[0] = p
                self.ctx.system = systems[t]
                self.ctx.n_reached = 0
                out[i, column + t] = self.descend(roots[t], disc, 1, NULL)

    def leaves_reached(self, Board board, int color, int row, int col, int tree):
        """Every leaf index one descent reaches (pre-order of the branches) and the discovered nodes
        of the first; for tests."""
        cdef point_t disc[MAXN]
        build_graph(&self.graph, &board.s, color)
        self.ctx.g = &self.graph
        self.ctx.move = (row + 1) * board.s.stride + col + 1
        sort_by_weight(&self.ctx)
        disc[0] = self.ctx.move
        self.ctx.system = self.systems[tree]
        self.ctx.n_reached = 0
        self.descend(self.roots[tree], disc, 1, NULL)
        return [self.ctx.reached[i] for i in range(min(self.ctx.n_reached, MAX_BRANCH))]

    # --- growth ---

    def grow(self, Board board, int color, int move_row, int move_col, const uint8_t[::1] take):
        """One position: every legal move of `color` descends each tree with take[t] set, as a win for
        (move_row, move_col) and a loss otherwise; leaves due split. Returns the splits made."""
        cdef BoardState* b = &board.s
        cdef int n = b.size, r, c, p, t, i, splits = 0, n_trees = len(self.systems)
        cdef int win_point = (move_row + 1) * b.stride + move_col + 1 if move_row >= 0 else -1
        cdef const int32_t[::1] systems = self.systems
        cdef const int32_t[::1] roots = self.roots
        cdef bint any_sg = False
        cdef point_t disc[MAXN]
        cdef int32_t due[MAX_BRANCH]
        cdef int n_due
        if take.shape[0] != n_trees:
            raise ValueError("take needs one flag per tree")
        for t in range(n_trees):
            if take[t] and systems[t] == 0:
                any_sg = True
        build_graph(&self.graph, b, color)
        self.ctx.g = &self.graph
        for r in range(n):
            for c in range(n):
                p = (r + 1) * b.stride + c + 1
                if not is_legal(b, p, color):
                    continue
                self.ctx.move = p
                if any_sg:
                    sort_by_weight(&self.ctx)
                for t in range(n_trees):
                    if not take[t]:
                        continue
                    disc[0] = p
                    self.ctx.system = systems[t]
                    self.ctx.n_reached = 0
                    n_due = self._grow_descent(roots[t], disc, p == win_point, due)
                    for i in range(n_due):
                        splits += self._try_split(due[i])
        return splits

    cdef int _grow_descent(self, int root, point_t* disc, bint win, int32_t* due) except -1:
        """Descend (updating every leaf reached) and list the leaves due for a split attempt."""
        cdef int i, k, leaf, n_due = 0
        cdef point_t paths[PATHS]
        self.descend(root, disc, 1, paths)
        for i in range(min(self.ctx.n_reached, MAX_BRANCH)):
            leaf = self.ctx.reached[i]
            k = self._block(leaf)
            update_stats(&self.ctx, self.blocks[k], &paths[i * MAXN], self.nodes[leaf].n_nodes, win)
            if self.blocks[k][0] >= <uint32_t>self.split_descents and self.blocks[k][0] % RETRY == 0:
                due[n_due] = leaf
                n_due += 1
        return n_due

    cdef int _block(self, int leaf) except -1:
        """The statistics slot of a leaf being grown, allocated on its first descent."""
        cdef int k = self.nodes[leaf].slot, size, t
        if k >= 0:
            return k
        if self.n_blocks == self.block_cap:
            self.block_cap = max(64, 2 * self.block_cap)
            self.blocks = <uint32_t**>realloc(self.blocks, self.block_cap * sizeof(uint32_t*))
            if self.blocks == NULL:
                raise MemoryError()
        size = 2 + 2 * n_bins(self.ctx.system, self.nodes[leaf].n_nodes)
        self.blocks[self.n_blocks] = <uint32_t*>calloc(size, sizeof(uint32_t))
        if self.blocks[self.n_blocks] == NULL:
            raise MemoryError()
        self.nodes[leaf].slot = self.n_blocks
        self.n_blocks += 1
        return self.n_blocks - 1

    cdef int _try_split(self, int leaf) except -1:
        cdef int k = self.nodes[leaf].slot, n = self.nodes[leaf].n_nodes, n_children, first, i
        cdef Best best
        if k < 0 or self.nodes[leaf].kind != K_LEAF:
            return 0
        if self.criterion <= 6 and (self.blocks[k][1] <= 1 or self.blocks[k][0] - self.blocks[k][1] <= 1):
            return 0                  # S2 fails for every query: skip the search (most leaves, most times)
        best = best_split(self.ctx.system, n, self.blocks[k], self.criterion)
        if not best.found:
            return 0
        if best.kind == K_NEW:
            n_children = n_new_children(best.a)
        else:
            n_children = 2
        first = self._add_leaves(n_children, n)
        for i in range(n_children - 1 if best.kind == K_NEW else 0):
            self.nodes[first + i].n_nodes = n + 1
        free(self.blocks[k])
        self.blocks[k] = NULL
        self.nodes[leaf].slot = -1
        self.nodes[leaf].kind = best.kind
        self.nodes[leaf].a = best.a
        self.nodes[leaf].b = best.b
        self.nodes[leaf].rel = best.rel
        self.nodes[leaf].val = best.val
        self.nodes[leaf].child = first
        return 1

    def finish(self):
        """Number the leaves of each tree 1.. in pre-order and drop the growth statistics."""
        cdef int t
        self._free_blocks()
        for t in range(len(self.systems)):
            self.n_leaves[t] = self._number(self.roots[t], 0)

    cdef int _number(self, int node, int count) except -1:
        cdef int i, k
        if self.nodes[node].kind == K_LEAF:
            self.nodes[node].slot = -1
            self.nodes[node].child = count + 1
            return count + 1
        k = n_new_children(self.nodes[node].a) if self.nodes[node].kind == K_NEW else 2
        self.nodes[node].slot = count + 1     # a finished query's slot: its left-most leaf level
        for i in range(k):
            count = self._number(self.nodes[node].child + i, count)
        return count

    def describe(self, int node):
        """(kind, a, b, rel, val, n_nodes, child) of one tree node, for tests and reports."""
        cdef TNode* tn = &self.nodes[node]
        return KINDS[tn.kind], tn.a, tn.b, "<=" [tn.rel], tn.val, tn.n_nodes, tn.child

    def set_node(self, int node, str kind, int a=0, int b=0, str rel="<", int val=0):
        """Turn a leaf into a query with fresh leaf children (hand-built trees in tests); returns the
        first child."""
        cdef int k = KINDS.index(kind), n = self.nodes[node].n_nodes, n_children, first, i
        cdef TNode* tn
        if self.nodes[node].kind != K_LEAF:
            raise ValueError("only a leaf can become a query")
        n_children = n_new_children(a) if k == K_NEW else 2
        first = self._add_leaves(n_children, n)
        if k == K_NEW:
            for i in range(n_children - 1):
                self.nodes[first + i].n_nodes = n + 1
        tn = &self.nodes[node]
        tn.kind = k
        tn.a = a
        tn.b = b
        tn.rel = "<=".index(rel)
        tn.val = val
        tn.child = first
        return first


def graph_arrays(Board board, int color):
    """(status per point, 0 empty 1 own 2 opponent; size; pseudo-liberties), each (N, N), for tests."""
    cdef Graph* g = <Graph*>calloc(1, sizeof(Graph))
    if g == NULL:
        raise MemoryError()
    n = board.s.size
    out = np.zeros((3, n, n), dtype=np.int32)
    try:
        build_graph(g, &board.s, color)
        for r in range(n):
            for c in range(n):
                p = (r + 1) * g.stride + c + 1
                out[0, r, c] = g.col[p]
                out[1, r, c] = g.size[p]
                out[2, r, c] = g.libs[p]
    finally:
        free(g)
    return out


def sg_weight(Board board, a, b):
    """SG weight between two nodes given as (row, col) points or "side0".."side3", for tests."""
    cdef Graph g
    build_graph(&g, &board.s, 1)
    ids = [SIDE + int(x[4:]) if isinstance(x, str) else (x[0] + 1) * g.stride + x[1] + 1 for x in (a, b)]
    return weight(&g, ids[0], ids[1])
