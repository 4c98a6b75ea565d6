# priors/_bradley_terry.pyx: the hot loops of Coulom's generalized Bradley-Terry model and its
# minorization-maximization, behind priors/bradley_terry.py (used by the mm and dtree priors).
#
# Data layout (see priors/training/competitions.py): team t has one level per feature group in levels[t, g]
# (0 = "no level applies", whose gamma is fixed at 1); its gamma index is offsets[g] + levels[t, g].
# A team stands for mult[t] identical candidate moves of its competition. Competition j owns the teams
# starts[j] .. starts[j+1] - 1 and was won by team winners[j].
from libc.math cimport log
from libc.stdint cimport int32_t, int64_t, uint16_t

ctypedef fused level_t:
    uint16_t
    int32_t


def team_strengths(const level_t[:, ::1] levels, const int64_t[::1] offsets, const double[::1] gammas,
                   double[::1] out):
    """out[t] = prod_g gamma[offsets[g] + levels[t, g]]: the team strength gamma_t of Coulom (2007), for the
    teams of stored competitions (uint16 levels) and the candidates of one position (int32 levels)."""
    cdef Py_ssize_t t, g, n_teams = levels.shape[0], n_groups = levels.shape[1]
    cdef double s
    with nogil:
        for t in range(n_teams):
            s = 1.0
            for g in range(n_groups):
                s *= gammas[offsets[g] + levels[t, g]]
            out[t] = s


def accumulate_group(const level_t[:, ::1] levels, const int32_t[::1] mult, const int64_t[::1] starts,
                     const int64_t[::1] winners, const double[::1] strengths, int group,
                     double[::1] denominators):
    """Add sum_j C_ij / E_j * gamma_i to denominators[level] for every level i of `group`.

    With team strengths gamma_t, E_j = sum_{t in j} mult_t gamma_t and, for a level i of the group,
    C_ij gamma_i = sum_{t in j, t contains i} mult_t gamma_t. Returns the log-likelihood
    sum_j (log gamma_winner(j) - log E_j) of the current strengths.
    """
    cdef Py_ssize_t j, t, n_comp = starts.shape[0] - 1
    cdef double e, loglik = 0.0
    with nogil:
        for j in range(n_comp):
            e = 0.0
            for t in range(starts[j], starts[j + 1]):
                e += mult[t] * strengths[t]
            loglik += log(strengths[winners[j]]) - log(e)
            for t in range(starts[j], starts[j + 1]):
                denominators[levels[t, group]] += mult[t] * strengths[t] / e
    return loglik


def rescale_group(const level_t[:, ::1] levels, int group, const double[::1] ratios, double[::1] strengths):
    """strengths[t] *= ratios[levels[t, group]]: apply one group's new gammas to the team strengths."""
    cdef Py_ssize_t t, n_teams = levels.shape[0]
    with nogil:
        for t in range(n_teams):
            strengths[t] *= ratios[levels[t, group]]


def competition_scores(const int32_t[::1] mult, const int64_t[::1] starts, const int64_t[::1] winners,
                       const double[::1] strengths, double[::1] loglik, int32_t[::1] rank):
    """Per competition: log P(winner) and the winner's pessimistic rank.

    The rank counts every candidate at least as strong as the winner, the winner included, so ties
    are broken against the expert move: rank = #{moves with gamma >= gamma_winner}.
    """
    cdef Py_ssize_t j, t, n_comp = starts.shape[0] - 1
    cdef double e, w
    cdef int32_t r
    with nogil:
        for j in range(n_comp):
            e = 0.0
            r = 0
            w = strengths[winners[j]]
            for t in range(starts[j], starts[j + 1]):
                e += mult[t] * strengths[t]
                if strengths[t] >= w:
                    r += mult[t]
            loglik[j] = log(w) - log(e)
            rank[j] = r


def scatter_probabilities(const int32_t[::1] index, const double[::1] strengths, float[::1] out):
    """out[index[i]] = strengths[i] / sum(strengths); out must be zeroed."""
    cdef Py_ssize_t i, n = index.shape[0]
    cdef double total = 0.0
    with nogil:
        for i in range(n):
            total += strengths[i]
        for i in range(n):
            out[index[i]] = <float>(strengths[i] / total)
