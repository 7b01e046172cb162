"""Class partitions: how a node's classes become the two groups a linear model separates.

A *partition strategy* is a callable ``strategy(Z, yk, w) -> list of masks``:
``Z`` is the node's (standardised) candidate-feature block, ``yk`` the rows'
class codes, ``w`` their weights; each returned mask is a boolean vector over
the rows, ``True`` for the positive hyperclass.  Strategies return an empty
list when the node holds fewer than two classes.  :func:`multi2binary` is
the MPSVM forests' strategy; :func:`one_vs_all` is provided for the
one-vs-all forests.
"""

import numpy as np

from .._jit import njit
from ._small_linalg import forward_solve, logdet_factor, spd_factor

__all__ = ["class_moments", "bhattacharyya_distances", "bhattacharyya_distances_low_rank", "multi2binary",
           "one_vs_all"]

#: Ridge added to every class covariance (the node's features are standardised, so this is
#: 0.1 % of a feature's variance): a class with fewer rows than features has a singular
#: covariance, for which the Bhattacharyya distance is not defined.
COVARIANCE_RIDGE = 1e-3


@njit
def class_means(Z, codes, w, n_groups):
    """``(W, means, count)``: each group's weight, weighted mean and number of rows of positive weight."""
    n, q = Z.shape
    W = np.zeros(n_groups)
    means = np.zeros((n_groups, q))
    count = np.zeros(n_groups, np.int64)
    for i in range(n):
        if w[i] > 0.0:
            g = codes[i]
            W[g] += w[i]
            count[g] += 1
            for a in range(q):
                means[g, a] += w[i] * Z[i, a]
    for g in range(n_groups):
        means[g] /= W[g]
    return W, means, count


@njit
def class_moments(Z, codes, w, n_groups, ridge):
    """Weighted mean and covariance (plus ``ridge * I``) of each group ``0..n_groups-1``.

    ``codes[i]`` is row ``i``'s group.  Returns ``(means (c, q), covariances (c, q, q))``.
    """
    n, q = Z.shape
    W, means, _ = class_means(Z, codes, w, n_groups)
    covs = np.zeros((n_groups, q, q))
    for i in range(n):
        g = codes[i]
        for a in range(q):
            da = w[i] * (Z[i, a] - means[g, a])
            for b in range(a, q):
                covs[g, a, b] += da * (Z[i, b] - means[g, b])
    for g in range(n_groups):
        for a in range(q):
            for b in range(a, q):
                covs[g, a, b] /= W[g]
                covs[g, b, a] = covs[g, a, b]
            covs[g, a, a] += ridge
    return means, covs


@njit
def bhattacharyya_distances(means, covs):
    """Matrix of pairwise Bhattacharyya distances between Gaussian classes.

    ``B(1, 2) = 1/8 (mu2 - mu1)' S^-1 (mu2 - mu1) + 1/2 ln(|S| / sqrt(|S1| |S2|))``
    with ``S = (S1 + S2) / 2`` (lecture, multi2binary algorithm).  Each
    covariance is positive definite (it carries :data:`COVARIANCE_RIDGE`);
    its Cholesky factor ``S = L L'`` (:mod:`._small_linalg`, a fixed order
    of operations) gives ``ln|S| = 2 sum ln L_kk`` and ``d' S^-1 d =
    |L^-1 d|^2``.  A pair whose factorisation fails (non-finite moments) is
    at distance NaN.
    """
    c, q = means.shape
    L = np.empty((q, q))
    logdet = np.empty(c)
    for g in range(c):
        logdet[g] = logdet_factor(L) if spd_factor(covs[g], L) else np.nan
    S = np.empty((q, q))
    v = np.empty(q)
    out = np.zeros((c, c))
    for i in range(c):
        for j in range(i + 1, c):
            for a in range(q):
                v[a] = means[j, a] - means[i, a]
                for b in range(a, q):
                    S[a, b] = 0.5 * (covs[i, a, b] + covs[j, a, b])
            if spd_factor(S, L):
                forward_solve(L, v, v)
                maha = 0.0
                for a in range(q):
                    maha += v[a] * v[a]
                d = maha / 8.0 + 0.5 * (logdet_factor(L) - 0.5 * (logdet[i] + logdet[j]))
            else:
                d = np.nan
            out[i, j] = d
            out[j, i] = d
    return out


#: Number of features from which a node with fewer rows of positive weight
#: than features computes the Bhattacharyya distances in the span of its rows
#: (:func:`bhattacharyya_distances_low_rank`).  Below it the q x q covariances
#: are cheap and are used as they stand.
LOW_RANK_MIN_FEATURES = 128


@njit
def _logdet_ridge(K, ridge):
    """``log det(I + K / ridge)`` of a PSD Gram matrix ``K``, with its Cholesky factor of ``ridge I + K``."""
    k = K.shape[0]
    A = K.copy()
    for a in range(k):
        A[a, a] += ridge
    L = np.linalg.cholesky(A)
    out = 0.0
    for a in range(k):
        out += 2.0 * np.log(L[a, a]) - np.log(ridge)
    return out, L


@njit
def bhattacharyya_distances_low_rank(Z, codes, w, n_groups, ridge):
    """:func:`bhattacharyya_distances` of the groups' moments, computed in the span of the rows.

    Group ``g``'s covariance is ``C_g = ridge I + D_g' D_g``, the rows of
    ``D_g`` being ``sqrt(w_k / W_g) (z_k - mu_g)``; a pair's ``S = ridge I +
    E'E`` with ``E = [D_i; D_j] / sqrt(2)``.  The matrix determinant lemma
    gives ``log|ridge I + E'E| = q log(ridge) + log|I + EE' / ridge|`` and the
    Woodbury identity ``d' S^-1 d = (|d|^2 - (Ed)' (ridge I + EE')^-1 (Ed)) /
    ridge``, so every term is a matrix of the size of the pair's row count
    (the ``q log(ridge)`` terms cancel in the distance), built from the Gram
    matrix ``D D'`` of all rows.  Same distances as the q x q route, at a cost
    of ``O(n^2 q)`` instead of ``O(c^2 q^3)``: the route for nodes with fewer
    rows than features.
    """
    n, q = Z.shape
    W, means, count = class_means(Z, codes, w, n_groups)
    start = np.zeros(n_groups + 1, np.int64)
    for g in range(n_groups):
        start[g + 1] = start[g] + count[g]
    m = start[n_groups]
    D = np.empty((m, q))
    fill = start[:n_groups].copy()
    for i in range(n):
        if w[i] > 0.0:
            g = codes[i]
            s = np.sqrt(w[i] / W[g])
            for a in range(q):
                D[fill[g], a] = s * (Z[i, a] - means[g, a])
            fill[g] += 1
    K = D @ D.T
    P = D @ np.ascontiguousarray(means.T)  # P[r, g] = D[r] . mu_g
    logdet = np.empty(n_groups)
    for g in range(n_groups):
        logdet[g] = _logdet_ridge(np.ascontiguousarray(K[start[g]:start[g + 1], start[g]:start[g + 1]]), ridge)[0]
    out = np.zeros((n_groups, n_groups))
    for i in range(n_groups):
        for j in range(i + 1, n_groups):
            ni = count[i]
            k = ni + count[j]
            idx = np.empty(k, np.int64)
            for a in range(ni):
                idx[a] = start[i] + a
            for a in range(count[j]):
                idx[ni + a] = start[j] + a
            Ke = np.empty((k, k))
            u = np.empty(k)
            for a in range(k):
                u[a] = (P[idx[a], j] - P[idx[a], i]) / np.sqrt(2.0)
                for b in range(k):
                    Ke[a, b] = 0.5 * K[idx[a], idx[b]]
            ld, L = _logdet_ridge(Ke, ridge)
            v = np.linalg.solve(L, u)  # L v = E d, so (Ed)' (ridge I + EE')^-1 (Ed) = |v|^2
            dd = 0.0
            for a in range(q):
                diff = means[j, a] - means[i, a]
                dd += diff * diff
            maha = (dd - v @ v) / ridge
            d = maha / 8.0 + 0.5 * (ld - 0.5 * (logdet[i] + logdet[j]))
            out[i, j] = d
            out[j, i] = d
    return out


@njit
def class_codes(yk, w):
    """``(present, codes)``: the classes with positive weight (sorted) and each row's index among them."""
    n_classes = 0
    for i in range(yk.shape[0]):
        if yk[i] + 1 > n_classes:
            n_classes = yk[i] + 1
    weight = np.zeros(n_classes)
    for i in range(yk.shape[0]):
        weight[yk[i]] += w[i]
    index = np.full(n_classes, -1, np.int64)
    k = 0
    for c in range(n_classes):
        if weight[c] > 0.0:
            index[c] = k
            k += 1
    present = np.empty(k, np.int64)
    for c in range(n_classes):
        if index[c] >= 0:
            present[index[c]] = c
    codes = np.empty(yk.shape[0], np.int64)
    for i in range(yk.shape[0]):
        codes[i] = index[yk[i]]
    return present, codes


def multi2binary(Z, yk, w):
    """The lecture's multi2binary: two hyperclasses seeded by the farthest pair of classes.

    The two classes with the largest pairwise Bhattacharyya distance seed
    the groups ``W_p`` and ``W_n``; every other class joins the group whose
    seed is nearer (``B(w_k, w_p) < B(w_k, w_n)`` puts it in ``W_p``).
    Returns ``[mask of W_p]``, or ``[]`` with fewer than two classes.  With
    at least :data:`LOW_RANK_MIN_FEATURES` features and fewer rows than
    features the distances are computed in the span of the rows
    (:func:`bhattacharyya_distances_low_rank`).
    """
    present, codes = class_codes(yk, w)
    if present.size < 2:
        return []
    return [multi2binary_mask(np.ascontiguousarray(Z), codes, np.ascontiguousarray(w), present.size)]


@njit
def multi2binary_mask(Z, codes, w, n_present):
    """:func:`multi2binary`'s mask of ``W_p`` for ``n_present >= 2`` classes coded ``0..n_present-1``."""
    if n_present == 2:
        return codes == 0
    q = Z.shape[1]
    positive = 0
    for i in range(w.shape[0]):
        positive += w[i] > 0.0
    if q >= LOW_RANK_MIN_FEATURES and positive < q:
        dist = bhattacharyya_distances_low_rank(Z, codes, w, n_present, COVARIANCE_RIDGE)
    else:
        means, covs = class_moments(Z, codes, w, n_present, COVARIANCE_RIDGE)
        dist = bhattacharyya_distances(means, covs)
    return _hyperclass_mask(dist, codes)


@njit
def _hyperclass_mask(dist, codes):
    """Rows of ``W_p``: seeds are the farthest pair of classes, every other class joins the nearer seed.

    The pair is the first maximum over ``i < j`` in row-major order, a
    non-finite distance counting as -inf, so indistinguishable classes (all
    distances 0) or non-finite distances still give two different seeds.
    """
    c = dist.shape[0]
    p, n = 0, 1
    best = -np.inf
    first = True
    for i in range(c):
        for j in range(i + 1, c):
            d = dist[i, j]
            if not np.isfinite(d):
                d = -np.inf
            if first or d > best:
                best, p, n = d, i, j
                first = False
    positive = np.empty(c, np.bool_)
    for k in range(c):
        positive[k] = dist[k, p] < dist[k, n]
    positive[p] = True
    positive[n] = False
    out = np.empty(codes.shape[0], np.bool_)
    for r in range(codes.shape[0]):
        out[r] = positive[codes[r]]
    return out


def one_vs_all(Z, yk, w):
    """One mask per class present: that class against the others."""
    present, codes = class_codes(yk, w)
    if present.size < 2:
        return []
    if present.size == 2:
        return [codes == 0]
    return [codes == k for k in range(present.size)]
