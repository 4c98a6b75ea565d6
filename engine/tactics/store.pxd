# engine/tactics/store.pxd: the node store and a solver's memos, with the spares that the next solver
# reuses (bodies in store.pyx).
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from engine.tactics.leafkernel cimport leaf_logodds, slot_of
from engine.tactics.logodds cimport share
from engine.tactics.types cimport N_SIZES, LeafMemo, LeafTable, ProofNode, Store

cdef enum:                   # a solver's memos (memo_take, memo_give)
    LEAF_MEMO = 0            # LeafMemo: leaf log-odds by the largest pattern of the stack
    PATTERN_MEMO = 1         # PatternMemo: pattern stacks by the template's states


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


cdef int store_reserve(Store* st, int32_t need) noexcept nogil
    # Room for `need` more nodes: 0, or -1 when memory runs out.
cdef void store_release(Store* st) noexcept
    # Free the store's arrays (its node array becomes the spare if it is the larger one and not too
    # large) and empty it. With the GIL held, as store_adopt.
cdef void store_adopt(Store* st) noexcept
    # Give an empty store the spare node array, if there is one (and room for the keys it keeps).
cdef void* memo_take(int which, int* bits) except? NULL
    # A memo for a solver: the spare one, else a new one of 2^MEMO_START_BITS entries (bits: its size).
cdef void memo_give(int which, void* table, int bits) noexcept
    # Keep the larger of a released memo and the spare one as the spare; free the other.
cdef void* grow_table(void* table, int* bits, int max_bits, size_t entry, int64_t developed) noexcept nogil
    # The memo quadrupled (and emptied) when due (see store.pyx), or the same memo.
cdef uint32_t next_epoch(LeafMemo* memo, int bits) noexcept
    # A new epoch for a fetch of a kernel: the entries of every earlier one become stale.
