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
from ._adwin import adwin_update

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


@njit(inline="always")
def _leaf_of(X, i, nodes):
    """The leaf row ``i`` of ``X`` falls into (left when ``x <= threshold``)."""
    k = 0
    while nodes[k].left != TREE_LEAF:
        if X[i, nodes[k].feature] <= nodes[k].threshold:
            k = nodes[k].left
        else:
            k = nodes[k].right
    return k


#: the most uses of one sample by one tree (``_poisson1`` caps its draw)
MAX_REPS = 20


@njit(inline="always")
def _observe(X, i, gmin, gmax):
    """Widen the observed feature ranges by row ``i`` (per tree and per sample: batching does not change the model)."""
    for f in range(X.shape[1]):
        if X[i, f] < gmin[f]:
            gmin[f] = X[i, f]
        if X[i, f] > gmax[f]:
            gmax[f] = X[i, f]


@njit(inline="always")
def _row_splits(n_split):
    """The most splits one row can cause in one tree (see :func:`_train_rows`)."""
    return 1 + (MAX_REPS - 1) // (int(n_split) + 1)


@njit(inline="always")
def _learn_row(
    X, yk, yr, i, k_rep, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, gmin, gmax, rng,
    criterion, n_split, min_gain, max_depth, max_nodes, lo, hi, n_nodes, n_slots,
):
    """Lines 03-08 of Algorithm 1: one tree uses row ``i`` ``k_rep`` times; returns the new node and slot counts."""
    n_tests = tfeat.shape[1]
    for _ in range(k_rep):
        k = _leaf_of(X, i, nodes)  # line 04: drop x to its leaf
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
    return n_nodes, n_slots


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
    row_splits = _row_splits(n_split)
    n_nodes = counts[0]
    n_slots = counts[1]
    for i in range(i0, X.shape[0]):
        if n_nodes + 2 * row_splits > nodes.shape[0] or n_slots + row_splits > seen.shape[0]:
            counts[0] = n_nodes
            counts[1] = n_slots
            return i
        counts[2] += 1
        _observe(X, i, gmin, gmax)
        k_rep = _poisson1(rng)  # line 02: d = Poisson(1)
        n_nodes, n_slots = _learn_row(
            X, yk, yr, i, k_rep, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, gmin, gmax, rng,
            criterion, n_split, min_gain, max_depth, max_nodes, lo, hi, n_nodes, n_slots,
        )
    counts[0] = n_nodes
    counts[1] = n_slots
    return X.shape[0]


@njit
def train_trees(
    X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    dstate, next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1,
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
            i0 = next_row[t]
            next_row[t] = _train_rows(
                X, yk, yr, i0, nodes[t], values[t], parent_of[t], slot[t], seen[t], stats[t], tfeat[t],
                tthr[t], tstats[t], counts[t], gmin[t], gmax[t], rng[t], criterion, n_split, min_gain, max_depth,
                max_nodes, lo, hi,
            )
            dstate[t, ROWS] += next_row[t] - i0


#: ``go[0]`` of :func:`train_trees_when_told`: wait, learn, or return without learning
WAIT, LEARN, ABORT = 0, 1, 2


@njit
def train_trees_when_told(
    go, X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    dstate, next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1,
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
                rng, dstate, next_row, criterion, n_split, min_gain, max_depth, max_nodes, t0, t1)


@njit
def predict_trees(X, nodes, values, counts, slot, seen, voters, out):
    """Add the leaf values of every trained tree in ``voters`` to ``out`` (the engine's predictor); returns how many.

    ``voters`` lists the trees that vote (a forest with drift handling keeps
    a background tree beside each of them).  Online bagging gives each tree
    Poisson(1) copies of a sample, so on a short stream a tree may have seen
    nothing yet: such a tree has no estimate and is left out.
    """
    empty_ptr = np.zeros(1, np.int64)
    empty_f = np.zeros(0, np.int32)
    empty_w = np.zeros(0)
    n_trained = 0
    for t in voters:
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


#: ``drift`` codes of :func:`train_pairs`
DRIFT_ADWIN, DRIFT_OOB = 1, 2
#: columns of a forest's ``dstate`` (one row per voting tree): the physical tree that votes, whether its
#: background tree is learning, drifts (tree replacements), the stream position of the last one (-1: none),
#: warnings (background trees started), rows of the stream seen, rows since the last out-of-bag check
FG, BG_ON, N_DRIFTS, LAST_DRIFT, N_WARNINGS, ROWS, AGE = 0, 1, 2, 3, 4, 5, 6
N_DSTATE = 7
#: ``detect[p, 0]``: out-of-bag sums of the ``oob`` mode over the current period
_OOB_N, _OOB_ERR, _OOB_Y, _OOB_YY = 0, 1, 2, 3


@njit
def _reset_tree(nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax):
    """Make a tree a single empty leaf again (a new tree, as if just created); its RNG state is kept."""
    n = counts[0]
    n_slots = counts[1]
    for k in range(n):
        nodes[k].left = TREE_LEAF
        nodes[k].right = TREE_LEAF
        nodes[k].feature = -1
        nodes[k].oblique = -1
        nodes[k].threshold = 0.0
        nodes[k].depth = 0
        nodes[k].n_samples = 0
        nodes[k].weighted_n_samples = 0.0
        nodes[k].impurity = 0.0
        nodes[k].improvement = 0.0
        nodes[k].missing_left = 0
        parent_of[k] = -1
        slot[k] = -1
        values[k] = 0.0
    slot[0] = 0
    seen[:n_slots] = 0.0
    stats[:n_slots] = 0.0
    tfeat[:n_slots] = 0
    tthr[:n_slots] = np.nan
    tstats[:n_slots] = 0.0
    counts[0] = 1
    counts[1] = 1
    counts[2] = 0
    gmin[:] = np.inf
    gmax[:] = -np.inf


@njit(inline="always")
def _row_error(X, i, yk, yr, nodes, values, criterion):
    """The tree's prequential error on row ``i`` before it learns it: 0/1 loss, or the absolute error."""
    k = _leaf_of(X, i, nodes)
    if criterion == VARIANCE:
        return abs(values[k, 0] - yr[i])
    best = 0
    for c in range(1, values.shape[1]):
        if values[k, c] > values[k, best]:
            best = c
    return 0.0 if best == yk[i] else 1.0


@njit
def train_pairs(
    X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    dstate, detect, next_row, criterion, n_split, min_gain, max_depth, max_nodes, drift, drift_delta,
    warning_delta, oob_period, p0, p1,
):
    """Voting trees ``p0..p1-1`` learn the batch from their ``next_row`` on, with drift handling.

    ``drift == DRIFT_ADWIN`` (Gomes et al. 2017, adaptive random forests):
    voting tree ``p`` is physical tree ``dstate[p, FG]``, its background tree
    the other of ``p`` and ``p + n_voting``.  For each row the voting tree's
    prequential error (before it learns the row) feeds two ADWIN detectors,
    ``detect[p, 0]`` (``warning_delta``) and ``detect[p, 1]``
    (``drift_delta``); both trees then learn the row.  A rise of the error
    at the warning level starts a new background tree; at the drift level
    the background tree replaces the voting one (or, with none, the voting
    tree restarts empty) and both detectors restart.

    ``drift == DRIFT_OOB`` (Saffari et al. 2009, temporal knowledge
    weighting): each tree scores the rows it does not use (Poisson weight
    0); every ``oob_period`` rows a tree whose out-of-bag error ``e`` over
    the period exceeds a uniform draw ``u`` is replaced by an empty tree.
    ``e`` is the 0/1 error, or for regression ``min(1, SSE / SST)`` of the
    out-of-bag targets.

    All of a row's updates of a tree pair happen after the capacity check of
    both trees, so as in :func:`train_trees` the arrays may grow between
    rows without changing the model.
    """
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
    dstate = borrow(dstate)
    detect = borrow(detect)
    d = X.shape[1]
    lo = np.empty(d)
    hi = np.empty(d)
    n = X.shape[0]
    n_voting = dstate.shape[0]
    row_splits = _row_splits(n_split)
    cap_nodes = nodes.shape[1]
    cap_slots = seen.shape[1]
    for p in range(p0, p1):
        for i in range(next_row[p], n):
            fg = dstate[p, FG]
            bg = p + n_voting if fg == p else p
            learn_bg = drift == DRIFT_ADWIN and dstate[p, BG_ON] != 0
            room = counts[fg, 0] + 2 * row_splits <= cap_nodes and counts[fg, 1] + row_splits <= cap_slots
            if learn_bg:
                room = room and counts[bg, 0] + 2 * row_splits <= cap_nodes and counts[bg, 1] + row_splits <= cap_slots
            if not room:
                break
            pos = dstate[p, ROWS]
            dstate[p, ROWS] = pos + 1
            err = _row_error(X, i, yk, yr, nodes[fg], values[fg], criterion)
            k_rep = 0
            for t in (fg, bg):
                if t == bg and not learn_bg:
                    continue
                counts[t, 2] += 1
                _observe(X, i, gmin[t], gmax[t])
                k = _poisson1(rng[t])
                if t == fg:
                    k_rep = k
                n_nodes, n_slots = _learn_row(
                    X, yk, yr, i, k, nodes[t], values[t], parent_of[t], slot[t], seen[t], stats[t], tfeat[t],
                    tthr[t], tstats[t], gmin[t], gmax[t], rng[t], criterion, n_split, min_gain, max_depth,
                    max_nodes, lo, hi, counts[t, 0], counts[t, 1],
                )
                counts[t, 0] = n_nodes
                counts[t, 1] = n_slots
            if drift == DRIFT_ADWIN:
                if adwin_update(detect[p, 0], err, warning_delta) > 0:
                    _reset_tree(nodes[bg], values[bg], parent_of[bg], slot[bg], seen[bg], stats[bg], tfeat[bg],
                                tthr[bg], tstats[bg], counts[bg], gmin[bg], gmax[bg])
                    dstate[p, BG_ON] = 1
                    dstate[p, N_WARNINGS] += 1
                    detect[p, 0] = 0.0
                if adwin_update(detect[p, 1], err, drift_delta) > 0:
                    if dstate[p, BG_ON] != 0:
                        dstate[p, FG] = bg
                        dstate[p, BG_ON] = 0
                    else:
                        _reset_tree(nodes[fg], values[fg], parent_of[fg], slot[fg], seen[fg], stats[fg], tfeat[fg],
                                    tthr[fg], tstats[fg], counts[fg], gmin[fg], gmax[fg])
                    dstate[p, N_DRIFTS] += 1
                    dstate[p, LAST_DRIFT] = pos
                    detect[p, 0] = 0.0
                    detect[p, 1] = 0.0
            elif drift == DRIFT_OOB:
                oob = detect[p, 0]
                if k_rep == 0:
                    oob[_OOB_N] += 1.0
                    oob[_OOB_ERR] += err * err if criterion == VARIANCE else err
                    oob[_OOB_Y] += yr[i]
                    oob[_OOB_YY] += yr[i] * yr[i]
                dstate[p, AGE] += 1
                if dstate[p, AGE] >= oob_period:
                    dstate[p, AGE] = 0
                    e = 0.0
                    if oob[_OOB_N] > 0.0:
                        if criterion == VARIANCE:
                            sst = oob[_OOB_YY] - oob[_OOB_Y] * oob[_OOB_Y] / oob[_OOB_N]
                            e = min(1.0, oob[_OOB_ERR] / sst) if sst > 0.0 else 0.0
                        else:
                            e = oob[_OOB_ERR] / oob[_OOB_N]
                    oob[:] = 0.0
                    if e > rng_uniform(rng[fg]):
                        _reset_tree(nodes[fg], values[fg], parent_of[fg], slot[fg], seen[fg], stats[fg], tfeat[fg],
                                    tthr[fg], tstats[fg], counts[fg], gmin[fg], gmax[fg])
                        dstate[p, N_DRIFTS] += 1
                        dstate[p, LAST_DRIFT] = pos
            next_row[p] = i + 1


@njit
def train_pairs_when_told(
    go, X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
    dstate, detect, next_row, criterion, n_split, min_gain, max_depth, max_nodes, drift, drift_delta,
    warning_delta, oob_period, p0, p1,
):
    """:func:`train_pairs` on a worker thread once ``go[0]`` leaves ``WAIT`` (see :func:`train_trees_when_told`)."""
    state = atomic_load(go, 0)
    while state == WAIT:
        state = atomic_load(go, 0)
    if state != LEARN:
        return
    train_pairs(X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax,
                rng, dstate, detect, next_row, criterion, n_split, min_gain, max_depth, max_nodes, drift, drift_delta,
                warning_delta, oob_period, p0, p1)


@njit
def seed_leaves(X, yk, yr, nodes, values, parent_of, slot, seen, stats, tfeat, tthr, tstats, counts, gmin, gmax, rng,
                criterion, t0, t1):
    """Trees ``t0..t1-1``, holding a batch tree's nodes with a pool row per leaf, take their leaves' statistics from rows.

    Every row of ``X`` is dropped to its leaf once (weight 1, the mean of
    online bagging's Poisson(1) weight): the leaf's statistics (class counts,
    or ``{n, mu, E}`` computed in two passes, ``mu`` the sum over ``n`` and
    ``E`` the mean squared deviation from it) and ``seen`` count the rows
    that reach it, and its prediction follows from them as after
    :func:`_learn_row`.  A leaf no row reaches keeps the batch tree's value
    and statistics of zero.  The feature ranges are those of ``X``; every
    leaf then draws its ``n_tests`` candidate splits inside its region
    (as a leaf created by a split does) and the two sides of each candidate
    count the leaf's rows.  ``counts[t, 2]`` becomes ``len(X)``.
    """
    d = X.shape[1]
    n_rows = X.shape[0]
    lo = np.empty(d)
    hi = np.empty(d)
    leaf_of = np.empty(n_rows, np.int64)
    n_tests = tfeat.shape[2]
    for t in range(t0, t1):
        nd = nodes[t]
        for i in range(n_rows):
            _observe(X, i, gmin[t], gmax[t])
            k = _leaf_of(X, i, nd)
            leaf_of[i] = k
            s = slot[t, k]
            seen[t, s] += 1.0
            if criterion == VARIANCE:
                stats[t, s, 0] += 1.0
                stats[t, s, 1] += yr[i]  # the sum; divided below
            else:
                stats[t, s, yk[i]] += 1.0
        if criterion == VARIANCE:
            for s in range(counts[t, 1]):
                if stats[t, s, 0] > 0.0:
                    stats[t, s, 1] /= stats[t, s, 0]
            for i in range(n_rows):
                s = slot[t, leaf_of[i]]
                dev = yr[i] - stats[t, s, 1]
                stats[t, s, 2] += dev * dev
            for s in range(counts[t, 1]):
                if stats[t, s, 0] > 0.0:
                    stats[t, s, 2] /= stats[t, s, 0]
        for k in range(counts[t, 0]):
            if nd[k].left != TREE_LEAF:
                continue
            s = slot[t, k]
            if seen[t, s] > 0.0:
                _refresh(values[t], nd, k, stats[t, s], criterion)
            _leaf_box(nd, k, parent_of[t], lo, hi)
            for j in range(n_tests):
                _draw_test(tfeat[t, s], tthr[t, s], j, lo, hi, gmin[t], gmax[t], rng[t], 8)
        for i in range(n_rows):
            s = slot[t, leaf_of[i]]
            for j in range(n_tests):
                if tthr[t, s, j] != tthr[t, s, j]:
                    continue
                side = 0 if X[i, tfeat[t, s, j]] <= tthr[t, s, j] else 1
                _add(tstats[t, s, j, side], yk[i], yr[i], criterion)
        counts[t, 2] = n_rows
