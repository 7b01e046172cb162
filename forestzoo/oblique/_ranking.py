"""Scoring, enumerating and evolving the class partitions of the heterogeneous forest (GAOREXHSEARCH).

A partition of a node's ``K`` classes is a boolean row over the classes
(``True`` = positive hyperclass).  Lecture ("Generating several
partitions and their ranking") ranks partitions by two scores, both
higher-is-better:

* the *ideal Gini score* ``g_I``: the Gini gain ``Gini_p - Gini_c``
  (Eq. (1)-(3)) of the split that sends the two hyperclasses to the two
  children exactly;
* the *Dunn-type separability* ``DI``: Eq. (7) without its diameter term,
  with the Bhattacharyya distance (Eq. (8)) between classes as the
  dissimilarity, i.e. the distance between the two closest classes on
  opposite sides.

and orders them by the average of their two ranks.  The hyperclass
partitions come from exhaustive enumeration (``K < 8``) or a genetic
algorithm (``K >= 8``), both in :func:`hyperclass_partitions`.

Bhattacharyya distances need every class's covariance; a class with a
single row at the node has none.  Rule used here (documented in the
estimator): such a class borrows the pooled within-class covariance of the
node's classes that have at least two rows (plus the ridge of
:data:`._partition.COVARIANCE_RIDGE`), or the identity when no class has
two rows, so its distance to another class is driven by the difference of
the means.
"""

from functools import lru_cache

import numpy as np

from .._jit import njit
from ._partition import COVARIANCE_RIDGE, bhattacharyya_distances, class_moments

__all__ = ["class_distances", "ideal_gini", "separability", "rank_partitions", "all_partitions",
           "hyperclass_partitions", "GA_GENERATIONS"]

#: GA settings of the lecture: population 2K, 5 generations, 50 % of the middle classes at random.
GA_GENERATIONS = 5
GA_MIDDLE_FRACTION = 0.5


def class_distances(Z, codes, w, n_classes):
    """Pairwise Bhattacharyya distances (Eq. (8)) between the node's classes, singleton rule applied."""
    Z = np.ascontiguousarray(Z)
    means, covs = class_moments(Z, codes, w, n_classes, COVARIANCE_RIDGE)
    n_rows = np.bincount(codes, minlength=n_classes)
    single = n_rows < 2
    if single.any():
        weight = np.bincount(codes, weights=w, minlength=n_classes)
        rich = ~single
        if rich.any():
            pooled = _pooled_covariance(weight, covs, rich)
        else:
            pooled = np.eye(Z.shape[1])
        covs[single] = pooled
    return bhattacharyya_distances(means, covs)


@njit
def _pooled_covariance(weight, covs, rich):
    """``sum_k weight[k] covs[k] / sum_k weight[k]`` over the classes ``rich``, summed over ``k`` in order."""
    q = covs.shape[1]
    pooled = np.zeros((q, q))
    total = 0.0
    for k in range(weight.shape[0]):
        if rich[k]:
            total += weight[k]
            for a in range(q):
                for b in range(q):
                    pooled[a, b] += weight[k] * covs[k, a, b]
    for a in range(q):
        for b in range(q):
            pooled[a, b] /= total
    return pooled


@njit
def ideal_gini(parts, class_weight):
    """``g_I`` of each partition: Gini gain when the hyperclasses are separated perfectly (Eq. (1)-(3))."""
    P, K = parts.shape
    total = class_weight.sum()
    parent = 1.0
    for k in range(K):
        parent -= (class_weight[k] / total) ** 2
    gain = np.empty(P)
    for p in range(P):
        wp = 0.0
        sp = 0.0
        wn = 0.0
        sn = 0.0
        for k in range(K):
            c = class_weight[k]
            if parts[p, k]:
                wp += c
                sp += c * c
            else:
                wn += c
                sn += c * c
        child = 0.0
        if wp > 0.0:
            child += wp / total * (1.0 - sp / (wp * wp))
        if wn > 0.0:
            child += wn / total * (1.0 - sn / (wn * wn))
        gain[p] = parent - child
    return gain


@njit
def separability(parts, dist):
    """Dunn-type separability: the smallest distance between a positive and a negative class (Eq. (7))."""
    P, K = parts.shape
    out = np.full(P, np.inf)
    for p in range(P):
        for i in range(K):
            if parts[p, i]:
                for j in range(K):
                    if not parts[p, j] and dist[i, j] < out[p]:
                        out[p] = dist[i, j]
    return out


@njit
def _average_ranks(score):
    """Ranks of ``score`` in decreasing order (1 = highest), ties sharing their average rank."""
    n = score.shape[0]
    order = np.argsort(-score, kind="mergesort")
    ranks = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and score[order[j + 1]] == score[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = 0.5 * (i + j) + 1.0
        i = j + 1
    return ranks


@njit
def rank_partitions(parts, class_weight, dist):
    """Order of ``parts`` by the average of their ranks under ``g_I`` and ``DI`` (best first).

    Ties of the average rank are broken by ``g_I``, then by position.
    """
    g = ideal_gini(parts, class_weight)
    avg = 0.5 * (_average_ranks(g) + _average_ranks(separability(parts, dist)))
    by_gain = np.argsort(-g, kind="mergesort")
    return by_gain[np.argsort(avg[by_gain], kind="mergesort")]


@lru_cache(maxsize=64)
def _all_partitions(n_classes, exclude_one_vs_all):
    codes = np.arange(1, 2 ** (n_classes - 1))
    parts = np.zeros((codes.size, n_classes), np.bool_)
    parts[:, 1:] = (codes[:, None] >> np.arange(n_classes - 1)) & 1
    if exclude_one_vs_all:
        size = parts.sum(axis=1)
        parts = parts[(size > 1) & (size < n_classes - 1)]
    parts.flags.writeable = False  # shared by every node with this many classes
    return parts


def all_partitions(n_classes, exclude_one_vs_all=False):
    """Every two-hyperclass partition of ``n_classes`` classes (class 0 negative): ``2^(K-1) - 1`` rows.

    The enumeration is cached per ``K``; each call returns a fresh copy.
    """
    return _all_partitions(int(n_classes), bool(exclude_one_vs_all)).copy()


@njit
def _select(parts, class_weight, dist, size):
    """The ``size`` best distinct hyperclass partitions of ``parts`` (complements are the same split)."""
    P, K = parts.shape
    keep = np.zeros(P, np.bool_)
    canon = parts.copy()
    for p in range(P):
        if canon[p, 0]:
            for k in range(K):
                canon[p, k] = not canon[p, k]
        n_pos = 0
        for k in range(K):
            n_pos += canon[p, k]
        if n_pos <= 1 or n_pos >= K - 1:
            continue  # one-vs-all partitions are added separately
        keep[p] = True
        for r in range(p):
            if keep[r]:
                same = True
                for k in range(K):
                    if canon[r, k] != canon[p, k]:
                        same = False
                        break
                if same:
                    keep[p] = False
                    break
    pool = parts[keep]
    order = rank_partitions(pool, class_weight, dist)
    return pool[order[:size]]


@njit
def _genetic_kernel(base, middle, init, tournaments, take, flip, free, class_weight, dist, n_keep):
    K = base.shape[0]
    pop_size = 2 * K
    pop = np.empty((pop_size, K), np.bool_)
    for p in range(pop_size):
        pop[p] = base
    for p in range(1, pop_size):
        for j in range(middle.shape[0]):
            pop[p, middle[j]] = init[p - 1, j]
    pop = _select(pop, class_weight, dist, pop_size)
    for g in range(tournaments.shape[0]):
        n = pop.shape[0]
        if n < 2:
            break
        both = np.empty((n + pop_size, K), np.bool_)
        both[:n] = pop
        for c in range(pop_size):
            # binary tournaments: pop is sorted best first, so the smaller index wins
            a = min(tournaments[g, c, 0] % n, tournaments[g, c, 1] % n)
            b = min(tournaments[g, c, 2] % n, tournaments[g, c, 3] % n)
            for k in range(K):
                gene = pop[a, k] if take[g, c, k] else pop[b, k]
                both[n + c, k] = gene ^ (flip[g, c, k] and free[k])
        pop = _select(both, class_weight, dist, pop_size)
    return pop[:n_keep]


def _genetic(class_weight, dist, n_keep, rng):
    """GA of GAOREXHSEARCH (``K >= 8``): population ``2K``, :data:`GA_GENERATIONS` generations.

    The two classes farthest apart (``ext1``, ``ext2``) stay on opposite
    sides; every other class starts on the side of the nearer of the two
    (multi2binary), and in each initial individual but the first the middle
    :data:`GA_MIDDLE_FRACTION` of those classes -- the ones whose distances
    to ``ext1`` and ``ext2`` are the most alike -- are assigned at random.
    Each generation draws ``2K`` children (binary tournaments on the
    average rank, uniform crossover, each free gene flipped with
    probability ``1/K``) and keeps the ``2K`` best distinct hyperclass
    partitions of parents and children.  All random draws are made here,
    from ``rng``; the compiled kernel is deterministic.
    """
    K = class_weight.size
    pop_size = 2 * K
    e1, e2 = np.unravel_index(np.argmax(dist), dist.shape)
    base = dist[:, e1] < dist[:, e2]
    base[e1], base[e2] = True, False
    others = np.setdiff1d(np.arange(K), [e1, e2])
    ambiguity = np.abs(dist[others, e1] - dist[others, e2]) / (dist[others, e1] + dist[others, e2] + 1e-300)
    middle = others[np.argsort(ambiguity, kind="stable")[: int(np.ceil(GA_MIDDLE_FRACTION * others.size))]]
    free = np.ones(K, np.bool_)
    free[[e1, e2]] = False
    init = rng.random((pop_size - 1, middle.size)) < 0.5
    tournaments = rng.integers(0, 2**31 - 1, (GA_GENERATIONS, pop_size, 4))
    take = rng.random((GA_GENERATIONS, pop_size, K)) < 0.5
    flip = rng.random((GA_GENERATIONS, pop_size, K)) < 1.0 / K
    return _genetic_kernel(base, middle.astype(np.int64), init, tournaments, take, flip, free,
                           np.ascontiguousarray(class_weight, dtype=np.float64), dist, n_keep)


def hyperclass_partitions(Z, codes, w, n_classes, rng, class_weight=None, dist=None):
    """GAOREXHSEARCH: the top ``K`` hyperclass partitions (no one-vs-all), best first.

    ``K < 8``: every partition is ranked (exhaustive search); otherwise the
    genetic algorithm of :func:`_genetic`.  Returns ``(parts, class_weight,
    dist)`` so that the caller can re-rank with the one-vs-all partitions.
    """
    if class_weight is None:
        class_weight = np.bincount(codes, weights=w, minlength=n_classes)
    if dist is None:
        dist = class_distances(Z, codes, w, n_classes)
    if n_classes < 8:
        parts = all_partitions(n_classes, exclude_one_vs_all=True)
        parts = parts[rank_partitions(parts, class_weight, dist)][:n_classes]
    else:
        parts = _genetic(class_weight, dist, n_classes, rng)
    return parts, class_weight, dist
