"""Absolute-error (L1) split search: ``criterion="absolute_error"``, medians instead of means.

A node's value is the weighted median ``m`` of its targets and its
``W * impurity`` is its absolute error ``AE = sum_i w_i |y_i - m|``
(Breiman, Friedman, Olshen & Stone 1984, "Classification and Regression
Trees", Sec. 8.11, least absolute deviation regression).  A split costs the
sum of its children's absolute errors.  The sufficient statistics of the
other criteria do not give a child's median, so the search works on the
node's rows themselves:

* the node's targets are ranked once (:func:`rank_node`);
* for one ordering of the rows (by feature value, or by bin code), a forward
  pass inserts the rows one by one into a Fenwick tree (Fenwick 1994, "A new
  data structure for cumulative frequency tables") indexed by target rank,
  which holds prefix sums of ``w`` and ``w * y``.  After each insertion the
  prefix's weighted median is found by a descent of the tree and its absolute
  error follows from the sums below and above the median:
  ``AE = (wy_above - m * w_above) + (m * w_below - wy_below)``.  A backward
  pass gives every suffix's error, and the split after position ``p`` costs
  ``prefix[p] + suffix[p + 1]``: ``O(n log n)`` per feature
  (:func:`prefix_errors`);
* a random threshold (Extra Trees) is one candidate: its two children's
  errors are found in one pass over the rows in rank order
  (:func:`_two_side_errors`).

The statistics vector ``total`` of the node is the squared-error one (rows,
weights, ...): it is read for ``min_samples_leaf`` / ``min_weight_leaf``
only.  A NaN value (missing) is tried on both sides of every candidate, as
the other criteria's searches do; monotonic constraints are not supported.
"""

import numpy as np

from ..._jit import njit
from ..binning import MISSING_BIN
from ..data import value
from ..rng import mix_randint, mix_uniform
from . import EXACT, HIST
from ._common import REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, same_value
from .exact import midpoint


@njit
def rank_node(yr, w, start, end, ranks, inv, sorted_y):
    """Rank the targets of the node positions ``start:end`` (node-ordered ``yr``, ``w``).

    Fills, for the node offsets ``0 .. n-1``: ``ranks[k]`` the rank of the
    row at offset ``k`` (ties broken by position), ``inv[r]`` the offset of
    rank ``r`` and ``sorted_y[r]`` its target.  Returns ``(AE, median)`` of
    the node (:func:`weighted_median`).
    """
    n = end - start
    order = np.argsort(yr[start:end], kind="mergesort")
    for r in range(n):
        k = order[r]
        ranks[k] = r
        inv[r] = k
        sorted_y[r] = yr[start + k]
    med = weighted_median(sorted_y, inv, w, start, n)
    ae = 0.0
    for p in range(start, end):
        ae += w[p] * abs(yr[p] - med)
    return ae, med


@njit
def weighted_median(sorted_y, inv, w, start, n):
    """Weighted median of the ranked targets: the first target at which the cumulative weight
    exceeds half the total; where it equals half exactly, the midpoint of that target and the next."""
    total = 0.0
    for r in range(n):
        total += w[start + inv[r]]
    half = 0.5 * total
    acc = 0.0
    for r in range(n):
        acc += w[start + inv[r]]
        if acc > half:
            return sorted_y[r]
        if acc == half and r + 1 < n:
            return 0.5 * (sorted_y[r] + sorted_y[r + 1])
    return sorted_y[n - 1]


@njit
def prefix_errors(order, m, ranks, sorted_y, w, yr, start, n, fw, fwy, out, backward):
    """Absolute error of every prefix (or, ``backward``, every suffix) of the rows ``order[:m]``.

    ``order`` holds node offsets; ``ranks`` and ``sorted_y`` come from
    :func:`rank_node` over the node's ``n`` rows.  Forward, ``out[k]`` is
    the error of ``order[0..k]``; backward, of ``order[k..m-1]``.  ``fw``
    and ``fwy`` (length ``n + 1``) are the Fenwick trees' storage.
    """
    for j in range(n + 1):
        fw[j] = 0.0
        fwy[j] = 0.0
    top = 1
    while 2 * top <= n:
        top *= 2
    tw = 0.0
    twy = 0.0
    for t in range(m):
        k = m - 1 - t if backward else t
        off = order[k]
        wi = w[start + off]
        wyi = wi * yr[start + off]
        tw += wi
        twy += wyi
        j = ranks[off] + 1
        while j <= n:
            fw[j] += wi
            fwy[j] += wyi
            j += j & -j
        # descend to the last rank whose prefix weight stays below half: the next rank is the median
        half = 0.5 * tw
        pos = 0
        below_w = 0.0
        below_wy = 0.0
        step = top
        while step > 0:
            nxt = pos + step
            if nxt <= n and below_w + fw[nxt] < half:
                pos = nxt
                below_w += fw[nxt]
                below_wy += fwy[nxt]
            step >>= 1
        med = sorted_y[pos if pos < n else n - 1]
        ae = (twy - below_wy) - med * (tw - below_w) + med * below_w - below_wy
        out[k] = ae if ae > 0.0 else 0.0


@njit
def _two_side_errors(go_left, inv, sorted_y, w, start, n, w_left, w_right):
    """Absolute errors of the two children of a split (``go_left[offset]``), in two passes over the ranks."""
    med_l = 0.0
    med_r = 0.0
    acc_l = 0.0
    acc_r = 0.0
    found_l = w_left <= 0.0
    found_r = w_right <= 0.0
    for r in range(n):
        k = inv[r]
        wi = w[start + k]
        if go_left[k]:
            if not found_l:
                acc_l += wi
                if acc_l >= 0.5 * w_left:
                    med_l = sorted_y[r]
                    found_l = True
        elif not found_r:
            acc_r += wi
            if acc_r >= 0.5 * w_right:
                med_r = sorted_y[r]
                found_r = True
        if found_l and found_r:
            break
    ae = 0.0
    for r in range(n):
        k = inv[r]
        ae += w[start + k] * abs(sorted_y[r] - (med_l if go_left[k] else med_r))
    return ae


@njit
def _scan_groups(groups, m, last, order, offset, w_left, pre, suf, w, start, total, min_samples_leaf,
                 min_weight_leaf, tol):
    """Best boundary after a position ``p < last`` between groups of equal ``groups`` (sorted values, ``m``).

    The values' rows are ``order[offset:offset + m]``; the ``offset`` rows
    before them (NaN rows sent left) and their weight ``w_left`` are on the
    left of every candidate.  ``p = m - 1`` (with ``last = m``) puts every
    value left.  Returns ``(cost, p)``; ``p = -1`` when no candidate is
    feasible.  A later boundary must beat the best by more than ``tol``
    (:func:`split_absolute`).
    """
    best = np.inf
    best_pos = -1
    for p in range(last):
        w_left += w[start + order[offset + p]]
        if p + 1 < m and groups[p + 1] <= groups[p]:
            continue
        n_left = offset + p + 1
        n_right = total[0] - n_left
        w_right = total[1] - w_left
        if (n_left < min_samples_leaf or n_right < min_samples_leaf or w_left <= 0.0 or w_right <= 0.0
                or w_left < min_weight_leaf or w_right < min_weight_leaf):
            continue
        c = pre[offset + p] + suf[offset + p + 1]
        if c < best - tol:
            best = c
            best_pos = p
    return best, best_pos


@njit
def _random_cost(keys, thr, nan_left, go_left, inv, sorted_y, w, start, n, total, min_samples_leaf,
                 min_weight_leaf):
    """Cost of the threshold ``thr`` (NaN rows, keyed +inf, left when ``nan_left``); ``(cost, n_left)``."""
    n_left = 0
    w_left = 0.0
    for k in range(n):
        v = keys[k]
        g = (v <= thr and v < np.inf) or (nan_left and v == np.inf)
        go_left[k] = g
        n_left += g
        w_left += w[start + k] if g else 0.0
    n_right = n - n_left
    w_right = total[1] - w_left
    if (n_left < min_samples_leaf or n_right < min_samples_leaf or w_left <= 0.0 or w_right <= 0.0
            or w_left < min_weight_leaf or w_right < min_weight_leaf):
        return np.inf, n_left
    return _two_side_errors(go_left, inv, sorted_y, w, start, n, w_left, w_right), n_left


@njit(inline="always")
def _draw_feature(state, feats, j):
    """Swap a feature drawn uniformly from ``feats[j:]`` into ``feats[j]``: ``(new_state, feature)``."""
    state, r = mix_randint(state, feats.shape[0] - j)
    f = feats[j + r]
    feats[j + r] = feats[j]
    feats[j] = f
    return state, f


@njit
def split_absolute(kernel, Xb, Xf, edges, idx, start, end, w, yr, total, min_samples_leaf, min_weight_leaf,
                   max_features, feats, rng, ranks, inv, sorted_y, keys, fw, fwy, pre, suf, go_left, rec, n_evals):
    """Best absolute-error split of the node ``idx[start:end]`` for the split kernel ``kernel``; fills ``rec``.

    Call :func:`rank_node` on the node first.  Features are drawn in a
    random order, ``max_features`` of them, then more while every one drawn
    was constant in the node (scikit-learn's rule, the same draws as the
    kernels of the other criteria).  ``kernel`` is the splitter's code:

    * ``EXACT``: every midpoint between distinct values of the feature (values
      within :func:`._common.same_value` of each other are one value);
    * ``HIST``: every boundary between the bin codes ``Xb`` present in the
      node, stored as the bin and its edge;
    * ``RANDOM``: one threshold drawn uniformly in ``[min, max)`` of the
      node's values (Geurts, Ernst & Wehenkel 2006, "Extremely randomized
      trees").

    The values of a feature in the node are read through ``idx`` from ``Xf``
    (a layout of :mod:`..data`) or ``Xb``.  Rows whose value is NaN (the
    missing bin) are tried on the right and on the left of every candidate,
    and alone against the others; with none, ``missing_left`` records the
    larger side.  ``n_evals[0]`` grows by the
    (row, feature) pairs read.
    """
    n = end - start
    n_features = feats.shape[0]
    n_valid = 0
    state = rng[0]
    # The absolute error is piecewise linear in the targets, so distinct splits often cost exactly the same;
    # the search keeps the first of them (in candidate order), as exact arithmetic would, and a candidate
    # must beat the best by more than the rounding of the sums (relative to sum |w y| of the node).
    scale = 0.0
    for p in range(start, end):
        scale += w[p] * abs(yr[p])
    tol = 1e-12 * scale
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        state, f = _draw_feature(state, feats, j)
        n_evals[0] += n
        # the feature's values in node order; a NaN (or the missing bin) is keyed +inf, so it sorts last
        lo = np.inf
        hi = -np.inf
        n_nan = 0
        w_nan = 0.0
        for k in range(n):
            if kernel == HIST:
                code = Xb[f, idx[start + k]]
                v = np.nan if code == MISSING_BIN else float(code)
            else:
                v = float(value(Xf, f, idx[start + k]))
            if v != v:
                keys[k] = np.inf
                n_nan += 1
                w_nan += w[start + k]
            else:
                keys[k] = v
                lo = min(lo, v)
                hi = max(hi, v)
        m = n - n_nan
        if m == 0:
            continue
        constant = hi <= lo if kernel == HIST else same_value(lo, hi)
        if constant and n_nan == 0:
            continue
        n_valid += 1
        if kernel != HIST and kernel != EXACT:  # random threshold; NaN rows go to the cheaper side
            if constant:
                thr = np.inf  # the only split: values vs NaN
            else:
                state, u = mix_uniform(state)
                thr = lo + u * (hi - lo)
                if thr >= hi:
                    thr = lo
            c, n_left = _random_cost(keys, thr, False, go_left, inv, sorted_y, w, start, n, total,
                                     min_samples_leaf, min_weight_leaf)
            ml = 1.0 if n_nan == 0 and n_left > n - n_left else 0.0
            if n_nan > 0 and thr < np.inf:
                c2, _ = _random_cost(keys, thr, True, go_left, inv, sorted_y, w, start, n, total,
                                     min_samples_leaf, min_weight_leaf)
                if c2 < c - tol:
                    c = c2
                    ml = 1.0
            if c < rec[REC_COST] - tol:
                rec[REC_COST] = c
                rec[REC_FEATURE] = f
                rec[REC_MISSING_LEFT] = ml
                rec[REC_BIN] = -1.0
                rec[REC_THRESHOLD] = thr
            continue
        order = np.argsort(keys[:n], kind="mergesort")
        vals = keys[:n][order]
        groups = vals.copy()
        if kernel == EXACT:
            # scikit-learn's rule (see split_exact): a value within FEATURE_THRESHOLD of the one before it
            # joins its group, so no threshold falls between them
            for p in range(1, m):
                if same_value(vals[p - 1], vals[p]):
                    groups[p] = groups[p - 1]
        # NaN rows right (and, with NaN rows, every value left of them), then NaN rows left
        prefix_errors(order, n, ranks, sorted_y, w, yr, start, n, fw, fwy, pre, False)
        prefix_errors(order, n, ranks, sorted_y, w, yr, start, n, fw, fwy, suf, True)
        c, pos = _scan_groups(groups, m, m if n_nan > 0 else m - 1, order, 0, 0.0, pre, suf, w, start, total,
                              min_samples_leaf, min_weight_leaf, tol)
        ml = 1.0 if n_nan == 0 and pos + 1 > n - pos - 1 else 0.0
        if n_nan > 0 and m > 1:
            order_l = np.concatenate((order[m:], order[:m]))
            prefix_errors(order_l, n, ranks, sorted_y, w, yr, start, n, fw, fwy, pre, False)
            prefix_errors(order_l, n, ranks, sorted_y, w, yr, start, n, fw, fwy, suf, True)
            c2, pos2 = _scan_groups(groups, m, m - 1, order_l, n_nan, w_nan, pre, suf, w, start, total,
                                    min_samples_leaf, min_weight_leaf, tol)
            if pos2 >= 0 and c2 < c - tol:
                c = c2
                pos = pos2
                ml = 1.0
        if pos >= 0 and c < rec[REC_COST] - tol:
            rec[REC_COST] = c
            rec[REC_FEATURE] = f
            rec[REC_MISSING_LEFT] = ml
            if pos == m - 1:  # every value left, NaN rows right
                rec[REC_BIN] = MISSING_BIN - 1 if kernel == HIST else -1.0
                rec[REC_THRESHOLD] = np.inf
            elif kernel == HIST:
                b = int(vals[pos])
                rec[REC_BIN] = b
                rec[REC_THRESHOLD] = edges[f, b]
            else:
                rec[REC_BIN] = -1.0
                rec[REC_THRESHOLD] = midpoint(vals[pos], vals[pos + 1])
    rng[0] = state
