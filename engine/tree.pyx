"""The node store of the search tree: a preallocated array of nodes with int32 indices.

Nodes are never freed one at a time. `store_alloc` hands out contiguous runs by an atomic bump
pointer, so the children of a node are one run; `compact` keeps one subtree by copying it breadth
first to a scratch buffer and back to the front of the store (Pachi's copying collector).
"""
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy
from libc.stdint cimport int16_t, int32_t, uint8_t

from engine.board cimport PASS

# The store may take at most 1 GiB (1 million nodes use 44 MB); larger bounds are refused outright.
cdef int32_t MAX_CAPACITY = <int32_t>((1 << 30) // sizeof(Node))


cdef int store_init(NodeStore* s, int32_t capacity) except -1:
    if capacity < 1 or capacity > MAX_CAPACITY:
        raise ValueError(f"max_nodes must be in 1..{MAX_CAPACITY}, got {capacity}")
    # malloc, not calloc-and-touch: pages are committed only as the tree grows into them.
    s.nodes = <Node*>malloc(<size_t>capacity * sizeof(Node))
    if s.nodes == NULL:
        raise MemoryError(f"cannot allocate {capacity} tree nodes")
    s.capacity = capacity
    s.n_used = 0
    return 0


cdef void store_free(NodeStore* s) noexcept nogil:
    free(s.nodes)
    s.nodes = NULL
    s.capacity = 0
    s.n_used = 0


cdef void store_clear(NodeStore* s) noexcept nogil:
    s.n_used = 0


cdef void node_reset(Node* n, int16_t move) noexcept nogil:
    n.first_child = NO_NODE
    n.visits = 0
    n.wins = 0.0
    n.amaf_visits = 0.0
    n.amaf_wins = 0.0
    n.prior = 0.0
    n.bias = 0.0
    n.prior_wins = 0.0
    n.pw_next = 0.0
    n.move = move
    n.n_children = 0
    n.n_open = 0
    n.vloss = 0
    n.flags = 0


cdef int32_t store_alloc(NodeStore* s, int32_t n) noexcept nogil:
    cdef int32_t i
    if n <= 0 or load_relaxed_i32(&s.n_used) > s.capacity - n:
        return NO_NODE
    cdef int32_t first = atomic_add_i32(&s.n_used, n)
    if first > s.capacity - n:
        # Lost a race for the last slots: n_used stays past capacity, so the store reads as full.
        return NO_NODE
    for i in range(first, first + n):
        node_reset(&s.nodes[i], PASS)
    return first


cdef int32_t n_nodes(const NodeStore* s) noexcept nogil:
    cdef int32_t used = load_relaxed_i32(&s.n_used)
    return used if used < s.capacity else s.capacity


cdef int32_t subtree_size(const NodeStore* s, int32_t root) except -1:
    """Nodes reachable from root (root included), walking child runs with an explicit stack."""
    cdef int32_t cap = 64, top = 0, total = 1, i, first, count
    cdef int32_t* stack = <int32_t*>malloc(cap * sizeof(int32_t))
    if stack == NULL:
        raise MemoryError()
    stack[top] = root
    top += 1
    while top > 0:
        top -= 1
        i = stack[top]
        count = s.nodes[i].n_children
        first = s.nodes[i].first_child
        if count <= 0:
            continue
        total += count
        if top + count > cap:
            while top + count > cap:
                cap *= 2
            stack = <int32_t*>realloc(stack, cap * sizeof(int32_t))
            if stack == NULL:
                raise MemoryError()
        for i in range(first, first + count):
            if s.nodes[i].n_children > 0:
                stack[top] = i
                top += 1
    free(stack)
    return total


cdef int32_t compact(NodeStore* s, int32_t root) except -1:
    cdef int32_t size = subtree_size(s, root)
    cdef Node* scratch = <Node*>malloc(<size_t>size * sizeof(Node))
    if scratch == NULL:
        raise MemoryError(f"cannot compact {size} tree nodes")
    cdef int32_t head = 0, tail = 1, first, count
    scratch[0] = s.nodes[root]
    # Breadth first: scratch itself is the queue. Each copied node's run of children is appended
    # whole, so children stay contiguous, and its first_child is rewritten to the new index.
    while head < tail:
        count = scratch[head].n_children
        if count > 0:
            first = scratch[head].first_child
            memcpy(&scratch[tail], &s.nodes[first], <size_t>count * sizeof(Node))
            scratch[head].first_child = tail
            tail += count
        head += 1
    memcpy(s.nodes, scratch, <size_t>size * sizeof(Node))
    free(scratch)
    s.n_used = size
    return 0


cdef class Tree:
    """A node store for tests and tools: `Tree(max_nodes)`.

    The search owns its own NodeStore; this class exposes the same operations to Python.
    """

    def __cinit__(self, int max_nodes=1000):
        store_init(&self.s, max_nodes)

    def __dealloc__(self):
        store_free(&self.s)

    @property
    def max_nodes(self) -> int:
        return self.s.capacity

    @staticmethod
    def bytes_per_node() -> int:
        return sizeof(Node)

    def n_nodes(self) -> int:
        return n_nodes(&self.s)

    def alloc(self, int n) -> int:
        """n contiguous fresh nodes: the first index, or -1 when the store cannot hold them."""
        return store_alloc(&self.s, n)

    def clear(self) -> None:
        store_clear(&self.s)

    def _check(self, int i):
        if i < 0 or i >= n_nodes(&self.s):
            raise IndexError(f"no node {i}")

    def add_children(self, int parent, moves) -> int:
        """Give a leaf children for moves (a run of len(moves) nodes); returns the first index or -1."""
        self._check(parent)
        if self.s.nodes[parent].n_children:
            raise ValueError(f"node {parent} already has children")
        cdef int32_t first = store_alloc(&self.s, len(moves))
        if first == NO_NODE:
            return NO_NODE
        for k, m in enumerate(moves):
            self.s.nodes[first + k].move = m
        self.s.nodes[parent].first_child = first
        self.s.nodes[parent].n_open = len(moves)
        self.s.nodes[parent].n_children = len(moves)
        return first

    def set_stats(self, int i, int visits, float wins) -> None:
        self._check(i)
        self.s.nodes[i].visits = visits
        self.s.nodes[i].wins = wins

    def node(self, int i) -> dict:
        """The fields of node i as a dict."""
        self._check(i)
        cdef Node n = self.s.nodes[i]
        return dict(first_child=n.first_child, n_children=n.n_children, n_open=n.n_open,
                    visits=n.visits, wins=n.wins, amaf_visits=n.amaf_visits, amaf_wins=n.amaf_wins,
                    prior=n.prior, bias=n.bias, prior_wins=n.prior_wins, move=n.move, vloss=n.vloss, flags=n.flags)

    def children(self, int i) -> list:
        """Indices of node i's children."""
        self._check(i)
        cdef Node* n = &self.s.nodes[i]
        return list(range(n.first_child, n.first_child + n.n_children)) if n.n_children else []

    def subtree_size(self, int root) -> int:
        self._check(root)
        return subtree_size(&self.s, root)

    def compact(self, int root) -> int:
        """Keep only root's subtree, moved to the front; returns root's new index (0)."""
        self._check(root)
        return compact(&self.s, root)
