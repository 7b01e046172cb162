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

__all__ = ["class_moments", "bhattacharyya_distances", "multi2binary", "one_vs_all"]

#: Ridge added to every class covariance (the node's features are standardised, so this is
#: 0.1 % of a feature's variance): a class with fewer rows than features has a singular
#: covariance, for which the Bhattacharyya distance is not defined.
COVARIANCE_RIDGE = 1e-3


@njit
def class_moments(Z, codes, w, n_groups, ridge):
    """Weighted mean and covariance (plus ``ridge * I``) of each group ``0..n_groups-1``.

    ``codes[i]`` is row ``i``'s group.  Returns ``(means (c, q), covariances (c, q, q))``.
    """
    n, q = Z.shape
    W = np.zeros(n_groups)
    means = np.zeros((n_groups, q))
    covs = np.zeros((n_groups, q, q))
    for i in range(n):
        g = codes[i]
        W[g] += w[i]
        for a in range(q):
            means[g, a] += w[i] * Z[i, a]
    for g in range(n_groups):
        means[g] /= W[g]
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
    with ``S = (S1 + S2) / 2`` (lecture, multi2binary algorithm).
    """
    c = means.shape[0]
    logdet = np.empty(c)
    for g in range(c):
        logdet[g] = np.linalg.slogdet(covs[g])[1]
    out = np.zeros((c, c))
    for i in range(c):
        for j in range(i + 1, c):
            S = 0.5 * (covs[i] + covs[j])
            diff = means[j] - means[i]
            maha = diff @ np.linalg.solve(S, diff)
            d = maha / 8.0 + 0.5 * (np.linalg.slogdet(S)[1] - 0.5 * (logdet[i] + logdet[j]))
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
    Returns ``[mask of W_p]``, or ``[]`` with fewer than two classes.
    """
    present, codes = class_codes(yk, w)
    if present.size < 2:
        return []
    if present.size == 2:
        return [codes == 0]
    means, covs = class_moments(np.ascontiguousarray(Z), codes, w, present.size, COVARIANCE_RIDGE)
    return [_hyperclass_mask(bhattacharyya_distances(means, covs), codes)]


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
