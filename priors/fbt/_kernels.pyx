# priors/fbt/_kernels.pyx: the hot loops of the factorization Bradley-Terry model, behind priors/fbt/model.py.
#
# Data layout (see priors/training/competitions.py): team t has one level per feature group in levels[t, g];
# level 0 means "inactive" and has no parameters. An active level is the feature with flat id
# f = offsets[g] + levels[t, g], holding a strength w[f] and a factor vector v[f * k : (f + 1) * k]
# (v is passed flat, row-major (F, k)). Only the groups listed in `groups` are read; counts[g] is the
# number of levels of group g, so a level >= counts[g] is an error (-1 from the kernels, never a crash).
#
# Team strength, Xiao & Mueller (2016) Eq. (1) by the factorization-machine identity:
#     E_t = sum_f w_f + 1/2 sum_q [ S_q^2 - sum_f v_fq^2 ],   S_q = sum_{f in t} v_fq.
# The derivative of E_t by v_fq is h = S_q - v_fq (the paper's h has a spurious factor 1/2: spec
# Erratum B). For one competition, dl/dE_t = c_t, so the gradient of feature s is
#     grad w_s = sum_{t ∋ s} c_t,    grad v_s = sum_{t ∋ s} c_t (S_t - v_s) = A_s - v_s grad w_s,
# with A_s = sum_{t ∋ s} c_t S_t. The losses differ only in c_t:
#     softmax (FBT, Eq. 8):   c_t = P_t - [t = winner],  P_t = mult_t exp(E_t) / sum_u mult_u exp(E_u)
#     sampled (Eq. 13):       c_t = (times t was drawn from P) / M - [t = winner]
#     binary (LFR):           c_t = mult_t sigma(b + E_t) - [t = winner]   (logistic loss per move)
from libc.math cimport exp, log, log1p, fabs
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from engine.board cimport Board, BoardState, color_t, BLACK, WHITE, MAX_POINTS
from engine.move_kernel cimport MoveKernel
from engine.rng cimport Rng, rng_next, rng_seed
from priors.features cimport N_GROUPS, PatternTable, Workspace, extract, workspace_free, workspace_init

import numpy as np

ctypedef fused level_t:
    uint16_t
    int32_t

cdef enum:
    LOSS_SOFTMAX = 0
    LOSS_BINARY = 1
    BAD_LEVEL = -1        # a level outside its group
    BAD_WINNER = -2       # a winner outside its competition, or a competition out of range
    NO_MEMORY = -3

ERRORS = {BAD_LEVEL: "a team has a level outside its feature group",
          BAD_WINNER: "a winner index lies outside its competition",
          NO_MEMORY: "out of memory for the training scratch space"}


cdef struct Model:
    const int64_t* offsets   # first flat id of each group's levels
    const int64_t* counts    # levels of each group, level 0 included
    const int64_t* groups    # the groups read (the others count as inactive)
    int n_used               # len(groups): at most this many active features per team
    int n_groups             # columns of the level matrix
    int k                    # factor dimension
    double* w                # (F,)
    double* v                # (F * k,)
    double bias              # global bias of the binary loss (cancels out of the softmax)


cdef struct Scratch:         # per-call buffers: one competition's teams, and sparse gradients
    int32_t* feat            # n_max * n_used active feature ids per team
    int32_t* nf              # n_max: number of active features per team
    double* S                # n_max * k: factor sums S_t
    double* E                # n_max: strengths E_t
    double* c                # n_max: dl/dE_t (or its sampled estimate)
    double* cum              # n_max: cumulative sums of mult_t exp(E_t) for sampling
    uint8_t* use             # n_max: team takes part in the backward pass
    double* gw               # F: gradient of w (valid where stamp == case)
    double* ga               # F * k: A_s = sum_{t ∋ s} c_t S_t
    int64_t* stamp           # F: last case that touched the feature
    int32_t* touched         # F: features touched by the current case
    double* vsq              # F: |v_f|^2, kept up to date by case_update
    int64_t n_touched
    int64_t case_id          # the current case's stamp
    Rng rng


cdef Model make_model(const int64_t[::1] offsets, const int64_t[::1] counts, const int64_t[::1] groups,
                      int n_groups, const double[::1] w, const double[::1] v, int k, double bias) noexcept:
    cdef Model m
    m.offsets = &offsets[0]
    m.counts = &counts[0]
    m.groups = &groups[0] if groups.shape[0] > 0 else NULL
    m.n_used = groups.shape[0]
    m.n_groups = n_groups
    m.k = k
    m.w = <double*>&w[0]
    m.v = <double*>&v[0] if v.shape[0] > 0 else NULL
    m.bias = bias
    return m


cdef int scratch_init(Scratch* s, int64_t n_max, int64_t n_features, const Model* m, uint64_t seed) noexcept nogil:
    cdef int64_t f, k = m.k, width = m.n_used if m.n_used > 0 else 1
    n_max = n_max if n_max > 0 else 1
    s.feat = <int32_t*>malloc(n_max * width * sizeof(int32_t))
    s.nf = <int32_t*>malloc(n_max * sizeof(int32_t))
    s.S = <double*>malloc(n_max * (k + 1) * sizeof(double))
    s.E = <double*>malloc(n_max * sizeof(double))
    s.c = <double*>malloc(n_max * sizeof(double))
    s.cum = <double*>malloc(n_max * sizeof(double))
    s.use = <uint8_t*>malloc(n_max * sizeof(uint8_t))
    s.gw = <double*>malloc(n_features * sizeof(double))
    s.ga = <double*>malloc(n_features * (k + 1) * sizeof(double))
    s.stamp = <int64_t*>calloc(n_features, sizeof(int64_t))
    s.touched = <int32_t*>malloc(n_features * sizeof(int32_t))
    s.vsq = <double*>malloc(n_features * sizeof(double))
    s.n_touched = 0
    s.case_id = 0
    rng_seed(&s.rng, seed, 0xFB7)
    if (s.feat == NULL or s.nf == NULL or s.S == NULL or s.E == NULL or s.c == NULL or s.cum == NULL
            or s.use == NULL or s.gw == NULL or s.ga == NULL or s.stamp == NULL or s.touched == NULL
            or s.vsq == NULL):
        scratch_free(s)
        return NO_MEMORY
    for f in range(n_features):
        s.vsq[f] = squared_norm(m.v + f * k, m.k) if m.v != NULL else 0.0
    return 0


cdef void scratch_free(Scratch* s) noexcept nogil:
    free(s.feat); free(s.nf); free(s.S); free(s.E); free(s.c); free(s.cum); free(s.use)
    free(s.gw); free(s.ga); free(s.stamp); free(s.touched); free(s.vsq)
    s.feat = NULL; s.nf = NULL; s.S = NULL; s.E = NULL; s.c = NULL; s.cum = NULL; s.use = NULL
    s.gw = NULL; s.ga = NULL; s.stamp = NULL; s.touched = NULL; s.vsq = NULL


cdef inline double uniform53(Rng* r) noexcept nogil:
    """Uniform in [0, 1) with 53 random bits (two PCG32 outputs)."""
    cdef uint64_t a = rng_next(r) >> 5, b = rng_next(r) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


# --- forward: active features and strengths ------------------------------------------------------

cdef inline int team_features(const level_t* lv, const Model* m, int32_t* feat) noexcept nogil:
    """Active feature ids of one team into feat; their number, or BAD_LEVEL."""
    cdef int i, n = 0
    cdef int64_t g, level
    for i in range(m.n_used):
        g = m.groups[i]
        level = lv[g]
        if level != 0:
            if level < 0 or level >= m.counts[g]:
                return BAD_LEVEL
            feat[n] = <int32_t>(m.offsets[g] + level)
            n += 1
    return n


cdef inline double team_energy(const int32_t* feat, int nf, const Model* m, double* S) noexcept nogil:
    """E of Eq. (1) by the FM identity, O(nf k); writes the factor sums S_q."""
    cdef int i, q, k = m.k
    cdef double e = 0.0, squares = 0.0, total = 0.0, x
    cdef const double* vf
    for q in range(k):
        S[q] = 0.0
    for i in range(nf):
        e += m.w[feat[i]]
        vf = m.v + <int64_t>feat[i] * k
        for q in range(k):
            x = vf[q]
            S[q] += x
            squares += x * x
    for q in range(k):
        total += S[q] * S[q]
    return e + 0.5 * (total - squares)


cdef inline double squared_norm(const double* x, int k) noexcept nogil:
    cdef double total = 0.0
    cdef int q
    for q in range(k):
        total += x[q] * x[q]
    return total


cdef int case_forward(const level_t* lv, int64_t n, const Model* m, Scratch* s) noexcept nogil:
    """Features, factor sums and strengths of the n teams starting at lv. Same E as team_energy, with
    the squares sum_f v_fq^2 taken from the cached norms so that the loop over q vectorizes."""
    cdef int64_t t
    cdef int i, q, nf, k = m.k
    cdef int32_t* feat
    cdef double* S
    cdef const double* vf
    cdef double e, squares
    for t in range(n):
        feat = s.feat + t * m.n_used
        nf = team_features(lv + t * m.n_groups, m, feat)
        if nf < 0:
            return nf
        s.nf[t] = nf
        S = s.S + t * k
        for q in range(k):
            S[q] = 0.0
        e = 0.0
        squares = 0.0
        for i in range(nf):
            e += m.w[feat[i]]
            squares += s.vsq[feat[i]]
            vf = m.v + <int64_t>feat[i] * k
            for q in range(k):
                S[q] += vf[q]
        s.E[t] = e + 0.5 * (squared_norm(S, k) - squares)
    return 0


# --- the loss and dl/dE_t of one competition -------------------------------------------------------

cdef double softmax_coefficients(int64_t n, const int32_t* mult, int64_t win, int n_samples,
                                 Scratch* s) noexcept nogil:
    """l_j of Eq. (4) (multiplicities counted); c_t exact (n_samples = 0) or sampled (Eq. 13)."""
    cdef int64_t t, lo, hi, mid
    cdef double top = s.E[0], z = 0.0, p, u, share
    cdef int i
    for t in range(1, n):
        if s.E[t] > top:
            top = s.E[t]
    for t in range(n):
        p = mult[t] * exp(s.E[t] - top)
        s.c[t] = p
        z += p
    if n_samples == 0:
        for t in range(n):
            s.c[t] /= z
            s.use[t] = 1
    else:
        # Draw M teams i.i.d. from P by inverting the cumulative sums; the expert may be drawn.
        share = 1.0 / n_samples
        z = 0.0
        for t in range(n):
            z += s.c[t]
            s.cum[t] = z
            s.c[t] = 0.0
            s.use[t] = 0
        for i in range(n_samples):
            u = uniform53(&s.rng) * z
            lo = 0
            hi = n - 1
            while lo < hi:                  # the first team whose cumulative sum exceeds u
                mid = (lo + hi) // 2
                if s.cum[mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            s.c[lo] += share
            s.use[lo] = 1
    s.c[win] -= 1.0
    s.use[win] = 1
    return top + log(z) - s.E[win]


cdef inline double softplus(double x) noexcept nogil:
    return (x if x > 0.0 else 0.0) + log1p(exp(-fabs(x)))


cdef double binary_coefficients(int64_t n, const int32_t* mult, int64_t win, double bias,
                                Scratch* s) noexcept nogil:
    """Logistic loss of LFR: the expert move is a positive, every other candidate a negative
    (the winner team of multiplicity m stands for 1 positive and m - 1 negatives)."""
    cdef int64_t t
    cdef double z, sigma, positive, loss = 0.0
    for t in range(n):
        z = bias + s.E[t]
        positive = 1.0 if t == win else 0.0
        sigma = 1.0 / (1.0 + exp(-z)) if z >= 0.0 else exp(z) / (1.0 + exp(z))
        loss += positive * softplus(-z) + (mult[t] - positive) * softplus(z)
        s.c[t] = mult[t] * sigma - positive
        s.use[t] = 1
    return loss


# --- backward and update -----------------------------------------------------------------------------

cdef void case_accumulate(int64_t n, const Model* m, Scratch* s) noexcept nogil:
    """gw[s] = sum c_t and ga[s] = sum c_t S_t over the teams t ∋ s taking part; lists the features."""
    cdef int64_t t, f
    cdef int i, q, k = m.k
    cdef double c
    cdef const double* St
    cdef double* a
    s.case_id += 1
    s.n_touched = 0
    for t in range(n):
        if not s.use[t]:
            continue
        c = s.c[t]
        St = s.S + t * k
        for i in range(s.nf[t]):
            f = s.feat[t * m.n_used + i]
            a = s.ga + f * k
            if s.stamp[f] != s.case_id:     # first touch: assign (zeroing first would stall the loads)
                s.stamp[f] = s.case_id
                s.touched[s.n_touched] = <int32_t>f
                s.n_touched += 1
                s.gw[f] = c
                for q in range(k):
                    a[q] = c * St[q]
            else:
                s.gw[f] += c
                for q in range(k):
                    a[q] += c * St[q]


cdef void case_update(Model* m, Scratch* s, double alpha, double lambda_w, double lambda_v) noexcept nogil:
    """theta -= alpha (grad + lambda theta) on the features this case touched (lazy L2)."""
    cdef int64_t i, f
    cdef int q, k = m.k
    cdef double g
    cdef double* vf
    cdef const double* a
    for i in range(s.n_touched):
        f = s.touched[i]
        g = s.gw[f]
        vf = m.v + f * k
        a = s.ga + f * k
        for q in range(k):
            vf[q] -= alpha * (a[q] - g * vf[q] + lambda_v * vf[q])
        s.vsq[f] = squared_norm(vf, k)
        m.w[f] -= alpha * (g + lambda_w * m.w[f])


cdef int64_t max_teams(const int64_t[::1] starts) noexcept nogil:
    cdef int64_t j, n = 0
    for j in range(starts.shape[0] - 1):
        if starts[j + 1] - starts[j] > n:
            n = starts[j + 1] - starts[j]
    return n


cdef double case_loss(const level_t[:, ::1] levels, const int32_t[::1] mult, const int64_t[::1] starts,
                      const int64_t[::1] winners, int64_t j, Model* m, Scratch* s, int loss,
                      int n_samples, int* error) noexcept nogil:
    """Forward pass and c_t of competition j; sets *error on bad input."""
    cdef int64_t a, n, win
    if j < 0 or j >= starts.shape[0] - 1:
        error[0] = BAD_WINNER
        return 0.0
    a = starts[j]
    n = starts[j + 1] - a
    win = winners[j] - a
    if n <= 0 or win < 0 or win >= n:
        error[0] = BAD_WINNER
        return 0.0
    error[0] = case_forward(&levels[a, 0], n, m, s)
    if error[0] != 0:
        return 0.0
    if loss == LOSS_BINARY:
        return binary_coefficients(n, &mult[a], win, m.bias, s)
    return softmax_coefficients(n, &mult[a], win, n_samples, s)


def sgd_epoch(const level_t[:, ::1] levels, const int32_t[::1] mult, const int64_t[::1] starts,
              const int64_t[::1] winners, const int64_t[::1] order, const int64_t[::1] offsets,
              const int64_t[::1] counts, const int64_t[::1] groups, double[::1] w, double[::1] v, int k,
              double[::1] bias, int loss, int n_samples, uint64_t seed, double alpha, double lambda_w,
              double lambda_v):
    """One SGD epoch: for each competition j in `order`, one step on its gradient (updates w, v and,
    for the binary loss, bias[0] in place). Returns (summed loss before each step, error code)."""
    cdef Model m = make_model(offsets, counts, groups, levels.shape[1], w, v, k, bias[0])
    cdef Scratch s
    cdef int64_t i, t, n
    cdef int error = 0
    cdef double total = 0.0, gb
    with nogil:
        error = scratch_init(&s, max_teams(starts), w.shape[0], &m, seed)
        if error == 0:
            for i in range(order.shape[0]):
                total += case_loss(levels, mult, starts, winners, order[i], &m, &s, loss, n_samples, &error)
                if error != 0:
                    break
                n = starts[order[i] + 1] - starts[order[i]]
                case_accumulate(n, &m, &s)
                case_update(&m, &s, alpha, lambda_w, lambda_v)
                if loss == LOSS_BINARY:    # the bias is not regularized (libFM's default)
                    gb = 0.0
                    for t in range(n):
                        gb += s.c[t]
                    m.bias -= alpha * gb
            scratch_free(&s)
    bias[0] = m.bias
    return total, error


def gradient(const level_t[:, ::1] levels, const int32_t[::1] mult, const int64_t[::1] starts,
             const int64_t[::1] winners, const int64_t[::1] offsets, const int64_t[::1] counts,
             const int64_t[::1] groups, const double[::1] w, const double[::1] v, int k, double bias,
             int loss, int n_samples, uint64_t seed, double[::1] gw, double[::1] gv):
    """The gradient that `sgd_epoch` steps on, summed over all competitions without updating:
    adds it to gw (F,) and gv (F * k,). Returns (summed loss, bias gradient, error code)."""
    cdef Model m = make_model(offsets, counts, groups, levels.shape[1], w, v, k, bias)
    cdef Scratch s
    cdef int64_t j, i, t, n, f
    cdef int q, error = 0
    cdef double total = 0.0, gb = 0.0
    with nogil:
        error = scratch_init(&s, max_teams(starts), w.shape[0], &m, seed)
        if error == 0:
            for j in range(starts.shape[0] - 1):
                total += case_loss(levels, mult, starts, winners, j, &m, &s, loss, n_samples, &error)
                if error != 0:
                    break
                n = starts[j + 1] - starts[j]
                case_accumulate(n, &m, &s)
                for i in range(s.n_touched):
                    f = s.touched[i]
                    gw[f] += s.gw[f]
                    for q in range(k):
                        gv[f * k + q] += s.ga[f * k + q] - s.gw[f] * v[f * k + q]
                for t in range(n):
                    gb += s.c[t]
            scratch_free(&s)
    return total, gb, error


# --- scoring and play --------------------------------------------------------------------------------

cdef int energies_into(const level_t* levels, int64_t n, const Model* m, int32_t* feat, double* out,
                       double* sums, int64_t sums_stride) noexcept nogil:
    """out[t] = E_t of Eq. (1) for each of the n rows of levels (m.n_groups wide), S_t left at
    sums + t * sums_stride (stride 0: one scratch row; sums may be NULL only when k = 0). Returns 0 or
    BAD_LEVEL."""
    cdef int64_t t
    cdef int nf
    for t in range(n):
        nf = team_features(levels + t * m.n_groups, m, feat)
        if nf < 0:
            return nf
        out[t] = team_energy(feat, nf, m, sums + t * sums_stride if sums != NULL else NULL)
    return 0


def team_energies(const level_t[:, ::1] levels, const int64_t[::1] offsets, const int64_t[::1] counts,
                  const int64_t[::1] groups, const double[::1] w, const double[::1] v, int k, double[::1] out):
    """out[t] = E_t of Eq. (1) for every row of levels (teams, or the candidates of one position).
    O(|G| k) per row. Returns 0 or BAD_LEVEL."""
    cdef Model m = make_model(offsets, counts, groups, levels.shape[1], w, v, k, 0.0)
    cdef int error
    if levels.shape[0] == 0:
        return 0
    cdef int32_t* feat = <int32_t*>malloc((m.n_used + 1) * sizeof(int32_t))
    cdef double* S = <double*>malloc((k + 1) * sizeof(double))
    if feat == NULL or S == NULL:
        free(feat); free(S)
        raise MemoryError()
    with nogil:
        error = energies_into(&levels[0, 0], levels.shape[0], &m, feat, &out[0], S, 0)
        free(feat); free(S)
    return error


def competition_scores(const level_t[:, ::1] levels, const int32_t[::1] mult, const int64_t[::1] starts,
                       const int64_t[::1] winners, const int64_t[::1] offsets, const int64_t[::1] counts,
                       const int64_t[::1] groups, const double[::1] w, const double[::1] v, int k,
                       double[::1] loglik, int32_t[::1] rank):
    """Per competition: ln P(expert) under the softmax with multiplicities, and the pessimistic rank
    sum_{t: E_t >= E_winner} mult_t (the expert and its team-mates included, as `priors._bradley_terry`
    counts). Returns 0 or an error code."""
    cdef Model m = make_model(offsets, counts, groups, levels.shape[1], w, v, k, 0.0)
    cdef Scratch s
    cdef int64_t j, t, a, n
    cdef int error = 0
    cdef int32_t r
    cdef double top, z, e
    with nogil:
        error = scratch_init(&s, max_teams(starts), w.shape[0], &m, 0)
        if error == 0:
            for j in range(starts.shape[0] - 1):
                a = starts[j]
                n = starts[j + 1] - a
                if n <= 0 or winners[j] < a or winners[j] >= a + n:
                    error = BAD_WINNER
                    break
                error = case_forward(&levels[a, 0], n, &m, &s)
                if error != 0:
                    break
                e = s.E[winners[j] - a]
                top = s.E[0]
                for t in range(1, n):
                    if s.E[t] > top:
                        top = s.E[t]
                z = 0.0
                r = 0
                for t in range(n):
                    z += mult[a + t] * exp(s.E[t] - top)
                    if s.E[t] >= e:
                        r += mult[a + t]
                loglik[j] = e - top - log(z)
                rank[j] = r
            scratch_free(&s)
    return error


cdef void softmax_into(const int32_t* index, const double* energies, int64_t n, float* out) noexcept nogil:
    """out[index[i]] = exp(E_i) / sum_u exp(E_u) (log-sum-exp), for n >= 1."""
    cdef int64_t i
    cdef double top = energies[0], z = 0.0
    for i in range(1, n):
        if energies[i] > top:
            top = energies[i]
    for i in range(n):
        z += exp(energies[i] - top)
    for i in range(n):
        out[index[i]] = <float>(exp(energies[i] - top) / z)


def scatter_softmax(const int32_t[::1] index, const double[::1] energies, float[::1] out):
    """out[index[i]] = exp(E_i) / sum_u exp(E_u) (log-sum-exp); out must be zeroed."""
    if index.shape[0] == 0:
        return
    with nogil:
        softmax_into(&index[0], &energies[0], index.shape[0], &out[0])


# --- the incremental strengths of Eqs. (10)-(12), corrected ---------------------------------------

def team_sums(const level_t[:, ::1] levels, const int64_t[::1] offsets, const int64_t[::1] counts,
              const int64_t[::1] groups, const double[::1] w, const double[::1] v, int k,
              double[::1] energies, double[::1] sums):
    """Fresh E_t (Eq. 1) and S_t (sums (T * k,), the cache of Eqs. 11-12) for every team."""
    cdef Model m = make_model(offsets, counts, groups, levels.shape[1], w, v, k, 0.0)
    cdef int error
    if levels.shape[0] == 0:
        return 0
    cdef int32_t* feat = <int32_t*>malloc((m.n_used + 1) * sizeof(int32_t))
    if feat == NULL:
        raise MemoryError()
    with nogil:
        error = energies_into(&levels[0, 0], levels.shape[0], &m, feat, &energies[0],
                              &sums[0] if k > 0 else NULL, k)
        free(feat)
    return error


def update_parameter(const level_t[:, ::1] levels, const int64_t[::1] offsets, const int64_t[::1] counts,
                     const int64_t[::1] groups, double[::1] w, double[::1] v, int k, double[::1] energies,
                     double[::1] sums, int64_t feature, int q, double value):
    """Set one parameter, w[feature] (q = -1) or v[feature, q], to `value` and bring the cached E_t and
    S_t of every team containing the feature up to date in O(1) per team: Eq. (10)
    E' = E + (theta' - theta) h with h = 1 for w and h = S_q - v_q for v (spec Erratum B), and
    S'_q = S_q + (theta' - theta). Returns 0, or BAD_LEVEL for a feature outside every used group."""
    cdef int64_t t, g = -1, level, i
    cdef double delta, old
    for i in range(groups.shape[0]):
        if offsets[groups[i]] < feature < offsets[groups[i]] + counts[groups[i]]:
            g = groups[i]
    if g < 0 or q >= k or q < -1:
        return BAD_LEVEL
    level = feature - offsets[g]
    old = w[feature] if q < 0 else v[feature * k + q]
    delta = value - old
    with nogil:
        for t in range(levels.shape[0]):
            if levels[t, g] != level:
                continue
            if q < 0:
                energies[t] += delta
            else:
                energies[t] += delta * (sums[t * k + q] - old)
                sums[t * k + q] += delta
        if q < 0:
            w[feature] = value
        else:
            v[feature * k + q] = value
    return 0


# --- play: one position's probabilities, without the GIL ---------------------------------------------

cdef struct Slot:            # one evaluating thread's scratch space
    Workspace ws
    int32_t index[MAX_POINTS]
    int32_t levels[MAX_POINTS * N_GROUPS]
    double energies[MAX_POINTS]
    int32_t feat[N_GROUPS + 1]
    double* S                # k + 1 factor sums


cdef class Evaluator(MoveKernel):
    """P(move) of the `fbt` prior (softmax of Eq. 1 over the candidates) from the board to the
    probabilities in C: `n_slots` threads may evaluate at once, each in its own slot. It reads the
    arrays it is given in place (the prior's parameters, the pattern table), never copying them."""
    cdef Model m
    cdef PatternTable pt
    cdef Slot* slots
    cdef int n_slots
    cdef object arrays           # keeps the arrays behind m and pt alive

    def __cinit__(self, const double[::1] w, const double[::1] v, int k, const int64_t[::1] offsets,
                  const int64_t[::1] counts, const int64_t[::1] groups, patterns, int n_slots):
        cdef int i
        cdef const uint64_t[::1] keys
        cdef const int32_t[::1] values
        self.slots = NULL
        self.n_slots = 0
        if offsets.shape[0] != N_GROUPS or counts.shape[0] != N_GROUPS or v.shape[0] != w.shape[0] * k:
            raise ValueError("the parameters do not match the feature groups")
        if n_slots < 1:
            raise ValueError(f"n_slots must be >= 1, got {n_slots}")
        self.m = make_model(offsets, counts, groups, N_GROUPS, w, v, k, 0.0)
        self.arrays = (w, v, offsets, counts, groups)
        self.pt.n = 0
        if patterns is not None and len(patterns) > 0:
            keys = patterns.table_keys
            values = patterns.table_values
            self.pt.keys = &keys[0]
            self.pt.values = &values[0]
            self.pt.mask = keys.shape[0] - 1
            self.pt.n = len(patterns)
            self.arrays += (keys, values)
        self.slots = <Slot*>calloc(n_slots, sizeof(Slot))
        if self.slots == NULL:
            raise MemoryError("prior evaluation slots")
        for i in range(n_slots):
            self.n_slots = i + 1
            self.slots[i].S = <double*>malloc((k + 1) * sizeof(double))
            if self.slots[i].S == NULL or workspace_init(&self.slots[i].ws) != 0:
                raise MemoryError("prior evaluation slots")

    def __dealloc__(self):
        cdef int i
        if self.slots != NULL:
            for i in range(self.n_slots):
                workspace_free(&self.slots[i].ws)
                free(self.slots[i].S)
            free(self.slots)

    cdef int evaluate(self, int slot, const BoardState* b, color_t c, float* out) noexcept nogil:
        cdef Slot* s = &self.slots[slot]
        cdef int n = extract(&s.ws, b, c, &self.pt, s.index, s.levels)
        cdef int error = energies_into(s.levels, n, &self.m, s.feat, s.energies, s.S, 0)
        if error != 0:
            return error
        memset(out, 0, (b.size * b.size + 1) * sizeof(float))
        softmax_into(s.index, s.energies, n, out)
        return 0

    def error(self, int code) -> Exception:
        return ValueError(ERRORS.get(code, f"error {code}"))

    def probabilities(self, Board board, int color) -> np.ndarray:
        """float32 N*N+1 for `color` in slot 0, holding the GIL (so Python callers never share a slot)."""
        if color != BLACK and color != WHITE:
            raise ValueError(f"color must be BLACK (1) or WHITE (2), got {color}")
        p = np.empty(board.s.size * board.s.size + 1, dtype=np.float32)
        cdef float[::1] pv = p
        cdef int error = self.evaluate(0, &board.s, <color_t>color, &pv[0])
        if error != 0:
            raise self.error(error)
        return p
