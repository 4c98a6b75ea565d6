# engine/tree.pxd: the node store of the search tree (bodies in tree.pyx).
#
# One preallocated C array of Node structs addressed by int32 index; no pointers, no Python objects.
# All children of a node are allocated in one call and sit contiguously at first_child ..
# first_child + n_children - 1, pass last. Nodes are handed out by an atomic bump pointer and never
# freed one by one: the store is cleared as a whole, or compacted by copying the subtree that is kept
# (compact), which also makes room after tree reuse.
#
# Statistics in a node are those of its move, seen by the player who made that move: wins / visits is
# that player's mean result. They hold real simulations only; the search adds its even prior (virtual
# visits at 0.5) when it computes values, so they need no storage. Writers update them without locks
# (races lose at most an AMAF sample); visit counts and virtual losses use atomic adds.
from libc.stdint cimport int16_t, int32_t, uint8_t

cdef enum:
    NO_NODE = -1
    NODE_EXPANDING = 1     # flags: a thread is expanding (or has expanded) this node
    NODE_INVALID = 2       # never selected: the move repeats a position of the game (superko)

cdef struct Node:          # 48 bytes
    int32_t first_child    # index of the first child, NO_NODE while a leaf
    int32_t visits         # real simulations through this node
    float wins             # their summed results for the player who made this node's move
    float amaf_visits      # summed AMAF weights
    float amaf_wins        # summed AMAF weight x result
    float prior            # p of this move from the prior, renormalised over the siblings (uniform without one)
    float bias             # additive prior coefficient K_a (0 without a prior); selection subtracts w(N) * K_a
    float prior_wins       # virtual wins from the prior, virtual_wins * sqrt(p), counted in n and Q (0 when off)
    float pw_next          # progressive widening: the parent's counter value that opens the next child
    int16_t move           # point, or PASS
    int16_t n_children     # written last when expanding (release); 0 while a leaf
    int16_t n_open         # children open to selection: n_children, or fewer under progressive widening
    int16_t vloss          # descents in flight through this node (virtual loss)
    uint8_t flags          # NODE_EXPANDING | NODE_INVALID

cdef struct NodeStore:
    Node* nodes            # capacity nodes, malloc'd once
    int32_t capacity       # the memory bound: max_nodes
    int32_t n_used         # bump pointer; may run past capacity when allocations fail (read n_nodes)

# GCC builtins: atomic counters, expansion ownership and publication of the children.
cdef extern from *:
    """
    #include <stdint.h>
    static inline int32_t tesuji_add_i32(int32_t* p, int32_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static inline int16_t tesuji_add_i16(int16_t* p, int16_t v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
    static inline uint8_t tesuji_or_u8(uint8_t* p, uint8_t v) { return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL); }
    static inline uint8_t tesuji_and_u8(uint8_t* p, uint8_t v) { return __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL); }
    static inline int16_t tesuji_load_i16(const int16_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void tesuji_store_i16(int16_t* p, int16_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    static inline int32_t tesuji_load_i32(const int32_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void tesuji_add_float(float* p, float v) {
        float old, upd;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do { upd = old + v; } while (!__atomic_compare_exchange(p, &old, &upd, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
    """
    int32_t atomic_add_i32 "tesuji_add_i32"(int32_t* p, int32_t v) noexcept nogil
    int16_t atomic_add_i16 "tesuji_add_i16"(int16_t* p, int16_t v) noexcept nogil
    uint8_t atomic_or_u8 "tesuji_or_u8"(uint8_t* p, uint8_t v) noexcept nogil
    uint8_t atomic_and_u8 "tesuji_and_u8"(uint8_t* p, uint8_t v) noexcept nogil
    int16_t load_acquire_i16 "tesuji_load_i16"(const int16_t* p) noexcept nogil
    void store_release_i16 "tesuji_store_i16"(int16_t* p, int16_t v) noexcept nogil
    int32_t load_relaxed_i32 "tesuji_load_i32"(const int32_t* p) noexcept nogil
    void atomic_add_float "tesuji_add_float"(float* p, float v) noexcept nogil

# --- the store ---
cdef int store_init(NodeStore* s, int32_t capacity) except -1    # malloc; MemoryError or ValueError
cdef void store_free(NodeStore* s) noexcept nogil
cdef void store_clear(NodeStore* s) noexcept nogil              # forget every node (n_used = 0)
cdef int32_t store_alloc(NodeStore* s, int32_t n) noexcept nogil
    # n contiguous fresh nodes (move PASS, no stats): the index of the first, or NO_NODE when the
    # store cannot hold them. Lock-free: an atomic fetch-add on n_used.
cdef int32_t n_nodes(const NodeStore* s) noexcept nogil         # nodes handed out, at most capacity
cdef void node_reset(Node* n, int16_t move) noexcept nogil      # a fresh leaf for move
cdef int32_t subtree_size(const NodeStore* s, int32_t root) except -1
cdef int32_t compact(NodeStore* s, int32_t root) except -1
    # Keep only root's subtree: copy it breadth first to a scratch buffer and back to the front of the
    # store (children stay contiguous). Returns root's new index, 0. Not thread safe: no search running.

cdef class Tree:
    """Python view of a NodeStore, for tests and tools."""
    cdef NodeStore s
