# engine/rng.pxd: PCG32 (O'Neill 2014), one state per thread; inline, no GIL, no division.
from libc.stdint cimport uint32_t, uint64_t

cdef struct Rng:
    uint64_t state
    uint64_t inc

cdef inline void rng_seed(Rng* r, uint64_t seed, uint64_t stream) noexcept nogil:
    r.state = 0
    r.inc = (stream << 1) | 1
    rng_next(r)
    r.state += seed
    rng_next(r)

cdef inline uint32_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t old = r.state
    r.state = old * 6364136223846793005ULL + r.inc
    cdef uint32_t xorshifted = <uint32_t>(((old >> 18) ^ old) >> 27)
    cdef uint32_t rot = <uint32_t>(old >> 59)
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31))

cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    """Uniform in [0, n) by Lemire's multiply-shift (no modulo; bias < n / 2**32)."""
    return <uint32_t>((<uint64_t>rng_next(r) * n) >> 32)

cdef inline bint rng_percent(Rng* r, int rate) noexcept nogil:
    """True with probability rate / 100."""
    return <int>rng_below(r, 100) < rate

cdef inline double rng_uniform(Rng* r) noexcept nogil:
    return rng_next(r) * (1.0 / 4294967296.0)


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    """Next value of Vigna's SplitMix64 sequence: fixed-seed keys (Zobrist, pattern hashes)."""
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)
