"""Numba kernels of the online random forest (lecture Algorithm 1, Eq. 5-9).

One tree is a set of arrays that grow in place (capacity doubling):

* ``nodes`` (:data:`NODE_DTYPE`) and ``values``: the engine's layout, so the
  engine's ``accumulate_tree`` predicts with ``nodes[:n_nodes]``; children
  are appended after their parent, the root is row 0;
* ``slot[node]``: the row of a leaf in the leaf-statistics pool (-1 for
  internal nodes);
* pool rows: ``seen`` (samples since the leaf was created), ``stats`` (the
  leaf's statistics), and for each of ``n_tests`` candidate splits its
  feature, threshold and the statistics of its two sides;
* ``gmin`` / ``gmax``: the feature ranges observed so far, updated sample by
  sample, where candidate thresholds are drawn (a candidate whose range is
  still empty is drawn when the data first spread).

Statistics of a sample set are class counts (classification) or the lecture's
triplet ``{n, mu, E}`` (regression), with ``E`` the mean squared deviation,
updated incrementally by Eq. (5) and Eq. (9).
"""

import numpy as np

from .._engine.rng import rng_randint, rng_uniform
from .._engine.tree import TREE_LEAF
from .._jit import njit

ENTROPY = 0
GINI = 1
VARIANCE = 2


@njit(inline="always")
def _poisson1(rng):
    """k ~ Poisson(1) by inversion (Oza & Russell's online bagging weight)."""
    u = rng_uniform(rng)
    k = 0
    p = np.exp(-1.0)
    cdf = p
    while u > cdf and k < 20:
        k += 1
        p /= k
        cdf += p
    return k


@njit(inline="always")
def _add(stats, yk, yr, criterion):
    """Add one sample to ``stats``: a class count, or Eq. (5) and Eq. (9) on ``{n, mu, E}``."""
    if criterion != VARIANCE:
        stats[yk] += 1.0
        return
    n = stats[0]
    mu = stats[1]
    mu_new = (n * mu + yr) / (n + 1.0)  # Eq. (5)
    dmu = mu_new - mu
    d = yr - mu_new
    # Eq. (9): E_{n+1} = (n E_n + n dmu^2 + (y_{n+1} - mu_{n+1})^2) / (n + 1)
    stats[2] = (n * stats[2] + n * dmu * dmu + d * d) / (n + 1.0)
    stats[1] = mu_new
    stats[0] = n + 1.0


@njit(inline="always")
def _count(stats, criterion):
    if criterion == VARIANCE:
        return stats[0]
    return stats.sum()


@njit(inline="always")
def _impurity(stats, criterion):
    """Entropy (bits), Gini index or the variance ``E`` of one side."""
    if criterion == VARIANCE:
        return stats[2]
    n = stats.sum()
    if n <= 0.0:
        return 0.0
    acc = 0.0
    if criterion == GINI:
        for c in range(stats.shape[0]):
            p = stats[c] / n
            acc += p * p
        return 1.0 - acc
    for c in range(stats.shape[0]):
        if stats[c] > 0.0:
            p = stats[c] / n
            acc -= p * np.log2(p)
    return acc


@njit(inline="always")
def _gain(left, right, tmp, criterion):
    """Lecture's Delta E: impurity of the union minus the size-weighted impurities of the sides."""
    nl = _count(left, criterion)
    nr = _count(right, criterion)
    n = nl + nr
    if nl <= 0.0 or nr <= 0.0:
        return 0.0
    if criterion == VARIANCE:
        mu = (nl * left[1] + nr * right[1]) / n
        # pooled mean squared deviation of the union
        e = (nl * (left[2] + (left[1] - mu) ** 2) + nr * (right[2] + (right[1] - mu) ** 2)) / n
    else:
        for c in range(left.shape[0]):
            tmp[c] = left[c] + right[c]
        e = _impurity(tmp, criterion)
    return e - nl / n * _impurity(left, criterion) - nr / n * _impurity(right, criterion)


@njit
def _grow1(a, n):
    out = np.zeros((n,) + a.shape[1:], a.dtype)
    out[: a.shape[0]] = a
    return out


@njit
def _draw_test(feat, thr, j, lo, hi, gmin, gmax, rng, max_tries):
    """Draw candidate split ``j``: a random feature and a uniform threshold inside the leaf's box."""
    d = gmin.shape[0]
    for _ in range(max_tries):
        f = rng_randint(rng, d)
        a = max(lo[f], gmin[f])
        b = min(hi[f], gmax[f])
        if a < b:
            feat[j] = f
            thr[j] = a + (b - a) * rng_uniform(rng)
            return
    feat[j] = rng_randint(rng, d)
    thr[j] = np.nan  # no usable range yet: drawn again once the data spread


@njit
def _leaf_box(nodes, leaf, parent_of, lo, hi):
    """Bounds of the region of ``leaf`` from the splits on its root path."""
    lo[:] = -np.inf
    hi[:] = np.inf
    k = leaf
    while parent_of[k] >= 0:
        p = parent_of[k]
        f = nodes[p].feature
        t = nodes[p].threshold
        if nodes[p].left == k:
            hi[f] = min(hi[f], t)
        else:
            lo[f] = max(lo[f], t)
        k = p


@njit
def train_tree(
    X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, n_nodes, n_slots,
    gmin, gmax, rng, criterion, n_split, min_gain, max_depth, max_nodes,
):
    """Algorithm 1 for one tree over a batch; returns the (possibly reallocated) arrays and counts."""
    n_tests = tfeat.shape[1]
    d = X.shape[1]
    lo = np.empty(d)
    hi = np.empty(d)
    tmp = np.empty(stats.shape[1])
    for i in range(X.shape[0]):
        # observed feature ranges, per tree and per sample: batching does not change the model
        for f in range(d):
            if X[i, f] < gmin[f]:
                gmin[f] = X[i, f]
            if X[i, f] > gmax[f]:
                gmax[f] = X[i, f]
        k_rep = _poisson1(rng)  # line 02: d = Poisson(1)
        for _ in range(k_rep):
            # line 04: drop x to its leaf
            k = 0
            while nodes[k].left != TREE_LEAF:
                if X[i, nodes[k].feature] <= nodes[k].threshold:
                    k = nodes[k].left
                else:
                    k = nodes[k].right
            s = slot[k]
            # line 05: update the leaf and every candidate split (Eq. 5-9)
            _add(stats[s], yk[i], yr[i], criterion)
            _refresh(values, nodes, k, stats[s], criterion)
            seen[s] += 1.0
            if nodes[k].depth >= max_depth or n_nodes + 2 > max_nodes:
                continue  # this leaf can no longer split: skip its tests
            for j in range(n_tests):
                if tthr[s, j] != tthr[s, j]:
                    _leaf_box(nodes, k, parent_of, lo, hi)
                    _draw_test(tfeat[s], tthr[s], j, lo, hi, gmin, gmax, rng, 1)
                    if tthr[s, j] != tthr[s, j]:
                        continue
                side = 0 if X[i, tfeat[s, j]] <= tthr[s, j] else 1
                _add(tstats[s, j, side], yk[i], yr[i], criterion)
            # line 06: split when enough samples were seen and the best gain is large enough
            if seen[s] <= n_split:
                continue
            best = -1
            best_gain = min_gain
            for j in range(n_tests):
                g = _gain(tstats[s, j, 0], tstats[s, j, 1], tmp, criterion)
                if g > best_gain:
                    best_gain = g
                    best = j
            if best < 0:
                continue
            # lines 07-08: split with the best candidate; two new leaves
            if n_nodes + 2 > nodes.shape[0]:
                cap = 2 * nodes.shape[0]
                nodes = _grow1(nodes, cap)
                values = _grow1(values, cap)
                parent_of = _grow1(parent_of, cap)
                slot = _grow1(slot, cap)
            if n_slots + 1 > seen.shape[0]:
                cap = 2 * seen.shape[0]
                seen = _grow1(seen, cap)
                stats = _grow1(stats, cap)
                tfeat = _grow1(tfeat, cap)
                tthr = _grow1(tthr, cap)
                tstats = _grow1(tstats, cap)
            left = n_nodes
            right = n_nodes + 1
            n_nodes += 2
            nodes[k].left = left
            nodes[k].right = right
            nodes[k].feature = tfeat[s, best]
            nodes[k].threshold = tthr[s, best]
            nodes[k].improvement = best_gain * seen[s]
            nodes[k].n_samples = int(seen[s])
            depth = nodes[k].depth + 1
            new_slots = (s, n_slots)
            n_slots += 1
            for c in range(2):
                child = left if c == 0 else right
                cs = new_slots[c]
                nodes[child].left = TREE_LEAF
                nodes[child].right = TREE_LEAF
                nodes[child].feature = -1
                nodes[child].oblique = -1
                nodes[child].threshold = 0.0
                nodes[child].depth = depth
                nodes[child].missing_left = 0
                parent_of[child] = k
                slot[child] = cs
                # the child starts from the statistics of its side of the chosen split
                stats[cs] = tstats[s, best, c]
            slot[k] = -1
            for c in range(2):
                child = left if c == 0 else right
                cs = new_slots[c]
                seen[cs] = 0.0
                tstats[cs] = 0.0
                _leaf_box(nodes, child, parent_of, lo, hi)
                for j in range(n_tests):
                    _draw_test(tfeat[cs], tthr[cs], j, lo, hi, gmin, gmax, rng, 8)
                _refresh(values, nodes, child, stats[cs], criterion)
    return nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, n_nodes, n_slots


@njit(inline="always")
def _refresh(values, nodes, k, st, criterion):
    """Leaf ``k``'s prediction (class proportions, or the mean) and statistics from ``st``."""
    if criterion == VARIANCE:
        values[k, 0] = st[1]
        nodes[k].weighted_n_samples = st[0]
        nodes[k].impurity = st[2]
        return
    n = st.sum()
    nodes[k].weighted_n_samples = n
    for c in range(st.shape[0]):
        values[k, c] = st[c] / n if n > 0.0 else 0.0
    nodes[k].impurity = _impurity(st, criterion)
