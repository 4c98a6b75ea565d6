# priors/pbn/_kernels.pyx: the lambda-message pass of a region's pyramids, behind priors/pbn/model.py.
#
# For each view a (points[a] in {0 empty, 1 own, 2 opponent}, s = stones[a] picks the pyramid):
#     log lambda_j(z) = sum_{i in F_j} log theta_{j,i}(x_i | z)                  (level 2)
#     log lambda_k(y) = sum_{j in F_k} log sum_z phi_{k,j}(z | y) lambda_j(z)     (level 3)
#     log P(m | x)    = log P(m) + sum_k log sum_y psi_k(y | m) lambda_k(y) + const
# Each lambda is scaled to a maximum of 1 before it is passed up (the scale cancels in P(m | x)).
# Layouts (s first): log_cpt2 (S, J2, C2, 3, K2), cpt3 (S, J3, C3, K2, K3), psi (S, J3, K3, R),
# log_move_prior (S, R); children l2 (J2, C2) and l3 (J3, C3) end a cut field with -1. The caller
# checks the shapes (model.RegionModel); s must index a fitted pyramid.
from libc.math cimport exp, log
from libc.stdint cimport int64_t, uint8_t

import numpy as np


def predict(const uint8_t[:, ::1] points, const int64_t[::1] stones, const float[:, :, :, :, ::1] log_cpt2,
            const int64_t[:, ::1] l2, const float[:, :, :, :, ::1] cpt3, const int64_t[:, ::1] l3,
            const float[:, :, :, ::1] psi, const float[:, ::1] log_move_prior, double[:, ::1] out):
    """P(m | x) of every view into out (A, R)."""
    cdef Py_ssize_t n_views = points.shape[0], n_moves = out.shape[1]
    cdef Py_ssize_t j2 = l2.shape[0], c2 = l2.shape[1], k2 = log_cpt2.shape[4]
    cdef Py_ssize_t j3 = l3.shape[0], c3 = l3.shape[1], k3 = cpt3.shape[4]
    cdef double[:, ::1] lam2 = np.empty((j2, k2))
    cdef double[:, ::1] lam3 = np.empty((j3, k3))
    cdef double[:, ::1] top = np.empty((j3, n_moves))
    cdef Py_ssize_t a, j, k, c, z, y, m, i
    cdef int64_t s
    cdef double t, best, total
    with nogil:
        for a in range(n_views):
            s = stones[a]
            lam2[:, :] = 0.0
            lam3[:, :] = 0.0
            top[:, :] = 0.0
            for j in range(j2):
                for c in range(c2):
                    i = l2[j, c]
                    if i < 0:
                        break
                    for z in range(k2):
                        lam2[j, z] += log_cpt2[s, j, c, points[a, i], z]
                _scale(lam2, j, k2)
            for k in range(j3):
                for c in range(c3):
                    j = l3[k, c]
                    if j < 0:
                        break
                    for y in range(k3):
                        t = 0.0
                        for z in range(k2):
                            t += cpt3[s, k, c, z, y] * lam2[j, z]
                        lam3[k, y] += log(t)
                _scale(lam3, k, k3)
            for k in range(j3):
                for y in range(k3):
                    for m in range(n_moves):
                        top[k, m] += psi[s, k, y, m] * lam3[k, y]
            best = -1e300
            for m in range(n_moves):
                t = log_move_prior[s, m]
                for k in range(j3):
                    t += log(top[k, m])
                out[a, m] = t
                if t > best:
                    best = t
            total = 0.0
            for m in range(n_moves):
                out[a, m] = exp(out[a, m] - best)
                total += out[a, m]
            for m in range(n_moves):
                out[a, m] /= total


cdef inline void _scale(double[:, ::1] lam, Py_ssize_t row, Py_ssize_t n) noexcept nogil:
    """Log-messages of one node to messages with a maximum of 1."""
    cdef double best = lam[row, 0]
    cdef Py_ssize_t z
    for z in range(1, n):
        if lam[row, z] > best:
            best = lam[row, z]
    for z in range(n):
        lam[row, z] = exp(lam[row, z] - best)
