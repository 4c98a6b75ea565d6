# engine/tactics/store.pyx: the node store, the memos' growth and the spares (contract in store.pxd).
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from engine.tactics.types cimport MEMO_START_BITS, N_SIZES, LeafMemo, PatternMemo, ProofNode, Store


cdef int store_reserve(Store* st, int32_t need) noexcept nogil:
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


cdef void* grow_table(void* table, int* bits, int max_bits, size_t entry, int64_t developed) noexcept nogil:
    # a memo of 2^bits entries is quadrupled once the search has developed 1/16 as many nodes as it
    # holds entries (a node has tens of children), up to 2^max_bits; kept when memory is short
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
cdef void* SPARE_MEMO[2]                 # by LEAF_MEMO, PATTERN_MEMO (C statics: NULL, 0 at first)
cdef int SPARE_MEMO_BITS[2]
cdef size_t MEMO_ENTRY[2]
MEMO_ENTRY[LEAF_MEMO] = sizeof(LeafMemo)
MEMO_ENTRY[PATTERN_MEMO] = sizeof(PatternMemo)
cdef uint32_t MEMO_EPOCH = 0             # the last epoch given to a fetch


cdef void memo_give(int which, void* table, int bits) noexcept:
    if table == NULL:
        return
    if bits > SPARE_MEMO_BITS[which]:
        free(SPARE_MEMO[which])
        SPARE_MEMO[which] = table
        SPARE_MEMO_BITS[which] = bits
    else:
        free(table)


cdef void* memo_take(int which, int* bits) except? NULL:
    cdef void* table = SPARE_MEMO[which]
    if table != NULL:
        bits[0] = SPARE_MEMO_BITS[which]
        SPARE_MEMO[which] = NULL
        SPARE_MEMO_BITS[which] = 0
        return table
    table = calloc(1 << MEMO_START_BITS, MEMO_ENTRY[which])
    if table == NULL:
        raise MemoryError()
    bits[0] = MEMO_START_BITS
    return table


cdef uint32_t next_epoch(LeafMemo* memo, int bits) noexcept:
    global MEMO_EPOCH
    MEMO_EPOCH += 1
    if MEMO_EPOCH == 0:              # wrapped around (after 2^32 fetches): forget every entry
        memset(memo, 0, (1 << bits) * sizeof(LeafMemo))
        if SPARE_MEMO[LEAF_MEMO] != NULL:
            memset(SPARE_MEMO[LEAF_MEMO], 0, (1 << SPARE_MEMO_BITS[LEAF_MEMO]) * sizeof(LeafMemo))
        MEMO_EPOCH = 1
    return MEMO_EPOCH
