"""Numba kernels of the online random forest (lecture Algorithm 1, Eq. 5-9).

A forest is a set of arrays with the trees along axis 0 (a common capacity,
doubled by the caller when a batch might not fit); for tree ``t``:

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

from .._atomics import atomic_load
from .._engine.api import ENTROPY, GINI, SQUARED_ERROR, TREE_LEAF, accumulate_tree, rng_randint, rng_uniform
from .._jit import borrow, njit

# The engine's criterion codes (forestzoo._engine.api); the online statistics of squared error
# are the variance's, hence the name here.
VARIANCE = SQUARED_ERROR


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


#: ``x log2 x`` of the counts 0..4095 (0 at 0): class counts are whole numbers, so
#: the entropy of a leaf and the gain of a candidate split are table look-ups, not logarithms
_XLOG2X_N = 4096
_XLOG2X = np.concatenate(([0.0], np.arange(1, _XLOG2X_N) * np.log2(np.arange(1, _XLOG2X_N))))


@njit(inline="always")
def _xlog2x(v):
    """``v log2 v`` (0 at 0); from the table for whole counts below its size."""
    if v < _XLOG2X_N:
        i = int(v)
        if i == v:
            return _XLOG2X[i]
    if v <= 0.0:
        return 0.0
    return v * np.log2(v)


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
    # n H = f(n) - sum_c f(n_c), f(x) = x log2 x (see _gain)
    for c in range(stats.shape[0]):
        acc += _xlog2x(stats[c])
    return (_xlog2x(n) - acc) / n


@njit(inline="always")
def _gain(left, right, criterion):
    """Lecture's Delta E: impurity of the union minus the size-weighted impurities of the sides.

    A leaf past ``min_samples_split`` whose samples are not all of one class
    scores every candidate at each sample until one gains enough, so this is
    an inner loop of the learner.  For class counts it is written over the
    counts ``l``, ``r``, ``u = l + r`` (``n = |u|``) so that no division or
    logarithm is needed per class:

    * entropy: ``n Delta E = f(n) - f(n_l) - f(n_r) - sum_c [f(u_c) - f(l_c) - f(r_c)]``
      with ``f(x) = x log2 x``, since ``n H(S) = f(n) - sum_c f(s_c)``;
    * Gini: ``n Delta E = sum_c l_c^2 / n_l + sum_c r_c^2 / n_r - sum_c u_c^2 / n``.
    """
    nl = _count(left, criterion)
    nr = _count(right, criterion)
    n = nl + nr
    if nl <= 0.0 or nr <= 0.0:
        return 0.0
    if criterion == VARIANCE:
        mu = (nl * left[1] + nr * right[1]) / n
        # pooled mean squared deviation of the union
        e = (nl * (left[2] + (left[1] - mu) ** 2) + nr * (right[2] + (right[1] - mu) ** 2)) / n
        return e - nl / n * left[2] - nr / n * right[2]
    if criterion == GINI:
        sl = 0.0
        sr = 0.0
        su = 0.0
        for c in range(left.shape[0]):
            a = left[c]
            b = right[c]
            sl += a * a
            sr += b * b
            su += (a + b) * (a + b)
        return (sl / nl + sr / nr - su / n) / n
    acc = 0.0
    mixed = False
    for c in range(left.shape[0]):
        a = left[c]
        b = right[c]
        if a + b > 0.0:
            if a + b < n:
                mixed = True
            acc += _xlog2x(a + b) - _xlog2x(a) - _xlog2x(b)
    if not mixed:
        return 0.0  # one class on both sides: exactly no gain
    return (_xlog2x(n) - _xlog2x(nl) - _xlog2x(nr) - acc) / n


@njit(inline="always")
def _one_class(stats):
    """Whether at most one class has a count: true of a leaf whose samples are all of one class."""
    k = 0
    for c in range(stats.shape[0]):
        if stats[c] > 0.0:
            k += 1
    return k <= 1


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


#: the most uses of one sample by one tree (``_poisson1`` caps its draw)
MAX_REPS = 20


@njit
def _train_rows(
    X, yk, yr, i0, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    criterion, n_split, min_gain, max_depth, max_nodes, lo, hi,
):
    """Algorithm 1 for one tree over rows ``i0..`` of a batch, in place; returns the next row to learn.

    ``counts`` holds the tree's ``[n_nodes, n_slots, n_samples_seen]``.  The
    tree's arrays are never reallocated here: before each row the free
    capacity must hold the most splits one row can cause (its first use may
    split the leaf it reaches; each further split needs ``n_split + 1`` more
    uses of the new leaves), else the row is left for the caller to grow the
    arrays and call again.  The check comes before the row draws anything, so
    where the arrays grow does not change the model.
    """
    # Uncounted aliases (see forestzoo._jit.borrow): every per-row view below (``stats[s]``,
    # ``tstats[s, j, side]`` for each of the n_tests candidates) would otherwise cost two atomic
    # reference-count updates.  The caller holds the arrays for the whole call.
    X = borrow(X)
    yk = borrow(yk)
    yr = borrow(yr)
    nodes = borrow(nodes)
    values = borrow(values)
    parent_of = borrow(parent_of)
    slot = borrow(slot)
    seen = borrow(seen)
    stats = borrow(stats)
    tfeat = borrow(tfeat)
    tthr = borrow(tthr)
    tstats = borrow(tstats)
    counts = borrow(counts)
    gmin = borrow(gmin)
    gmax = borrow(gmax)
    rng = borrow(rng)
    lo = borrow(lo)
    hi = borrow(hi)
    n_tests = tfeat.shape[1]
    d = X.shape[1]
    row_splits = 1 + (MAX_REPS - 1) // (int(n_split) + 1)
    n_nodes = counts[0]
    n_slots = counts[1]
    for i in range(i0, X.shape[0]):
        if n_nodes + 2 * row_splits > nodes.shape[0] or n_slots + row_splits > seen.shape[0]:
            counts[0] = n_nodes
            counts[1] = n_slots
            return i
        counts[2] += 1
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
            if criterion != VARIANCE and min_gain >= 0.0 and _one_class(stats[s]):
                # every candidate's two sides then hold one class: all gains are exactly 0 (_gain)
                continue
            best = -1
            best_gain = min_gain
            for j in range(n_tests):
                g = _gain(tstats[s, j, 0], tstats[s, j, 1], criterion)
                if g > best_gain:
                    best_gain = g
                    best = j
            if best < 0:
                continue
            # lines 07-08: split with the best candidate; two new leaves
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
    counts[0] = n_nodes
    counts[1] = n_slots
    return X.shape[0]


@njit
def train_trees(
    X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1,
):
    """Trees ``t0..t1-1`` of a forest (arrays stacked along axis 0) learn the batch from their ``next_row`` on.

    One compiled call learns the whole batch for all of its trees: a
    ``partial_fit`` of one row costs one call, not one per tree, and nothing
    can interrupt it half-way.  ``next_row[t]`` is left below ``len(X)`` for a
    tree whose capacity ran out (see :func:`_train_rows`).
    """
    d = X.shape[1]
    lo = np.empty(d)
    hi = np.empty(d)
    n = X.shape[0]
    for t in range(t0, t1):
        if next_row[t] < n:
            next_row[t] = _train_rows(
                X, yk, yr, next_row[t], nodes[t], values[t], parent_of[t], slot[t], seen[t], stats[t], tfeat[t],
                tthr[t], tstats[t], counts[t], gmin[t], gmax[t], rng[t], criterion, n_split, min_gain, max_depth,
                max_nodes, lo, hi,
            )


#: ``go[0]`` of :func:`train_trees_when_told`: wait, learn, or return without learning
WAIT, LEARN, ABORT = 0, 1, 2


@njit
def train_trees_when_told(
    go, X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1,
):
    """:func:`train_trees` on a worker thread, once ``go[0]`` (read atomically) leaves ``WAIT``.

    ``LEARN``: learn; ``ABORT``: return without touching the trees.  The
    caller starts every block first and then flips ``go`` in one compiled
    call, so an interrupt leaves either no tree or every tree with the batch.
    """
    state = atomic_load(go, 0)
    while state == WAIT:
        state = atomic_load(go, 0)
    if state != LEARN:
        return
    train_trees(X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax,
                rng, next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1)


@njit
def predict_trees(X, nodes, values, counts, slot, seen, out):
    """Add every trained tree's leaf values to ``out`` (the engine's predictor); returns how many trees.

    Online bagging gives each tree Poisson(1) copies of a sample, so on a short
    stream a tree may have seen nothing yet: such a tree has no estimate and is
    left out.
    """
    empty_ptr = np.zeros(1, np.int64)
    empty_f = np.zeros(0, np.int32)
    empty_w = np.zeros(0)
    n_trained = 0
    for t in range(nodes.shape[0]):
        if nodes[t, 0].left == TREE_LEAF and seen[t, slot[t, 0]] <= 0.0:
            continue
        n = counts[t, 0]
        accumulate_tree(X, nodes[t, :n], values[t, :n], empty_ptr, empty_f, empty_w, out)
        n_trained += 1
    return n_trained


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
