# priors/pbn/_kernels.pyx: the lambda-message pass of a region's pyramids, behind priors/pbn/model.py.
#
# For each view a (points[a] in {0 empty, 1 own, 2 opponent}, s = stones[a] picks the pyramid):
#     lambda_j(z) = prod_{i in F_j} theta_{j,i}(x_i | z)                        (level 2)
#     lambda_k(y) = prod_{j in F_k} sum_z phi_{k,j}(z | y) lambda_j(z)           (level 3)
#     P(m | x)    = P(m) prod_k sum_y psi_k(y | m) lambda_k(y) / const
# Each lambda is scaled to a maximum of 1 before it is passed up (the scale cancels in P(m | x)). The
# products stay in probabilities, not logs: a field has at most 9 children and every table entry is
# smoothed away from 0, so no product comes near the smallest double, and the pass needs no log or exp.
# Layouts (s first): cpt2 (S, J2, C2, 3, K2), cpt3 (S, J3, C3, K2, K3), psi (S, J3, K3, R),
# move_prior (S, R); children l2 (J2, C2) and l3 (J3, C3) end a cut field with -1. The caller
# checks the shapes (model.RegionModel); s must index a fitted pyramid.
from libc.stdint cimport int64_t, uint8_t

import numpy as np


cdef struct Pyramid:
    const float* cpt2
    const int64_t* l2
    const float* cpt3
    const int64_t* l3
    const float* psi
    const float* move_prior
    Py_ssize_t j2, c2, k2, j3, c3, k3, r


cdef Pyramid _pyramid(const float[:, :, :, :, ::1] cpt2, const int64_t[:, ::1] l2,
                      const float[:, :, :, :, ::1] cpt3, const int64_t[:, ::1] l3,
                      const float[:, :, :, ::1] psi, const float[:, ::1] move_prior):
    cdef Pyramid p
    p.cpt2, p.l2, p.cpt3, p.l3 = &cpt2[0, 0, 0, 0, 0], &l2[0, 0], &cpt3[0, 0, 0, 0, 0], &l3[0, 0]
    p.psi, p.move_prior = &psi[0, 0, 0, 0], &move_prior[0, 0]
    p.j2, p.c2, p.k2 = l2.shape[0], l2.shape[1], cpt2.shape[4]
    p.j3, p.c3, p.k3 = l3.shape[0], l3.shape[1], cpt3.shape[4]
    p.r = move_prior.shape[1]
    return p


def predict(const uint8_t[:, ::1] points, const int64_t[::1] stones, const float[:, :, :, :, ::1] cpt2,
            const int64_t[:, ::1] l2, const float[:, :, :, :, ::1] cpt3, const int64_t[:, ::1] l3,
            const float[:, :, :, ::1] psi, const float[:, ::1] move_prior, double[:, ::1] out):
    """P(m | x) of every view into out (A, R)."""
    cdef Pyramid p = _pyramid(cpt2, l2, cpt3, l3, psi, move_prior)
    cdef double[::1] lam2 = np.empty(p.j2 * p.k2), lam3 = np.empty(p.j3 * p.k3)
    cdef Py_ssize_t a
    with nogil:
        for a in range(points.shape[0]):
            _view(&p, &points[a, 0], stones[a], &lam2[0], &lam3[0], &out[a, 0])


def board_scores(const uint8_t[::1] colors, const double[::1] legal, const int64_t[:, ::1] views,
                 const int64_t[::1] n_train, const double[::1] weight, const float[:, :, :, :, ::1] cpt2,
                 const int64_t[:, ::1] l2, const float[:, :, :, :, ::1] cpt3, const int64_t[:, ::1] l3,
                 const float[:, :, :, ::1] psi, const float[:, ::1] move_prior, double[::1] out):
    """Add to out (N*N,) each view's weight[s] / 2 * P(m | x), renormalised over its legal points, for the
    views of colors (N*N,) whose stone count s has a fitted pyramid (more than the last s: none)."""
    cdef Pyramid p = _pyramid(cpt2, l2, cpt3, l3, psi, move_prior)
    cdef Py_ssize_t n_points = views.shape[1], max_stones = n_train.shape[0] - 1, v, i
    cdef uint8_t[::1] x = np.empty(n_points, dtype=np.uint8)
    cdef double[::1] q = np.empty(n_points), lam2 = np.empty(p.j2 * p.k2), lam3 = np.empty(p.j3 * p.k3)
    cdef int64_t s
    cdef double total
    with nogil:
        for v in range(views.shape[0]):
            s = 0
            for i in range(n_points):
                x[i] = colors[views[v, i]]
                s += x[i] != 0
            if s > max_stones or n_train[s] == 0:
                continue
            _view(&p, &x[0], s, &lam2[0], &lam3[0], &q[0])
            total = 0.0
            for i in range(n_points):
                q[i] *= legal[views[v, i]]
                total += q[i]
            if total > 0.0:
                total = weight[s] / 2.0 / total
                for i in range(n_points):
                    out[views[v, i]] += q[i] * total


cdef void _view(const Pyramid* p, const uint8_t* x, int64_t s, double* lam2, double* lam3,
                double* out) noexcept nogil:
    """P(m | x) of one view into out (R,); lam2 (J2 * K2) and lam3 (J3 * K3) are scratch."""
    cdef Py_ssize_t j, k, c, z, y, m, i
    cdef const float* theta
    cdef const float* phi
    cdef const float* psi
    cdef double t, total
    for j in range(p.j2):
        for z in range(p.k2):
            lam2[j * p.k2 + z] = 1.0
        for c in range(p.c2):
            i = p.l2[j * p.c2 + c]
            if i < 0:
                break
            theta = p.cpt2 + (((s * p.j2 + j) * p.c2 + c) * 3 + x[i]) * p.k2
            for z in range(p.k2):
                lam2[j * p.k2 + z] *= theta[z]
        _scale(lam2 + j * p.k2, p.k2)
    for k in range(p.j3):
        for y in range(p.k3):
            lam3[k * p.k3 + y] = 1.0
        for c in range(p.c3):
            j = p.l3[k * p.c3 + c]
            if j < 0:
                break
            phi = p.cpt3 + ((s * p.j3 + k) * p.c3 + c) * p.k2 * p.k3
            for y in range(p.k3):
                t = 0.0
                for z in range(p.k2):
                    t += phi[z * p.k3 + y] * lam2[j * p.k2 + z]
                lam3[k * p.k3 + y] *= t
        _scale(lam3 + k * p.k3, p.k3)
    for m in range(p.r):
        out[m] = p.move_prior[s * p.r + m]
    for k in range(p.j3):
        psi = p.psi + (s * p.j3 + k) * p.k3 * p.r
        for m in range(p.r):
            t = 0.0
            for y in range(p.k3):
                t += psi[y * p.r + m] * lam3[k * p.k3 + y]
            out[m] *= t
    total = 0.0
    for m in range(p.r):
        total += out[m]
    for m in range(p.r):
        out[m] /= total


cdef inline void _scale(double* lam, Py_ssize_t n) noexcept nogil:
    """Messages of one node scaled to a maximum of 1."""
    cdef double best = lam[0]
    cdef Py_ssize_t z
    for z in range(1, n):
        if lam[z] > best:
            best = lam[z]
    for z in range(n):
        lam[z] /= best
