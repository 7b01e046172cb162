"""Pieces shared by the split kernels: the split record and candidate scoring."""

import numpy as np

from ..._jit import njit
from ..criteria import GINI, SQUARED_ERROR, children_cost_for, q_of
from ..rng import rng_randint, rng_rewind

# Fields of the split record (a float64 vector).
REC_FEATURE = 0  # best feature so far, -1 when none
REC_BIN = 1  # hist splitter: rows with code <= bin go left (254: all values left)
REC_THRESHOLD = 2  # raw threshold: rows with x <= threshold go left
REC_MISSING_LEFT = 3  # 1.0 when NaN rows go left
REC_COST = 4  # W_left * imp_left + W_right * imp_right; +inf when no split found
REC_OBLIQUE = 5  # id of the oblique projection chosen by a node model; -1 for an axis-aligned split
REC_SIZE = 6

INF = np.inf

#: Values of one feature closer than this are one value to the split search, as in scikit-learn
#: (its ``FEATURE_THRESHOLD``, added in float32; see :func:`same_value`).
FEATURE_THRESHOLD = 1e-7
_FEATURE_THRESHOLD32 = np.float32(FEATURE_THRESHOLD)


@njit(inline="always")
def same_value(lo, hi):
    """Whether ``hi >= lo`` is one value to the split search: ``hi <= lo + 1e-7``, the sum in float32.

    scikit-learn's rule: no threshold between the two, and a feature whose
    node values all lie within it is constant in the node.  The float32 sum
    rounds to the float32 grid, so below 2.0 in magnitude two neighbouring
    float32 values can be one value.
    """
    return hi <= np.float32(lo) + _FEATURE_THRESHOLD32


@njit(inline="always")
def reset_record(rec):
    rec[REC_FEATURE] = -1.0
    rec[REC_BIN] = -1.0
    rec[REC_THRESHOLD] = 0.0
    rec[REC_MISSING_LEFT] = 0.0
    rec[REC_COST] = INF
    rec[REC_OBLIQUE] = -1.0


@njit(inline="always")
def is_perfect_split_for(cost, reg):
    """Whether a split ends a node's search: a classification split whose two children are pure.

    Its cost is 0, which no other split can beat, and a full search keeps the
    first of equal costs, so the search may stop there.  Regression never
    stops: a zero variance is rarely computed as exactly 0, and weighted rows
    and repeated rows would then stop at different features.  ``reg`` is
    whether the criterion is a regression one (see
    :func:`..criteria.weighted_impurity_for` on passing it as a constant).
    """
    return cost <= 0.0 and not reg


@njit(inline="always")
def is_perfect_split(cost, criterion):
    """:func:`is_perfect_split_for` with the task decided at run time."""
    return is_perfect_split_for(cost, criterion >= SQUARED_ERROR)


@njit(inline="always")
def insert_sorted(keys, vals, m, key, val):
    """One step of an insertion sort: ``key`` (``val`` beside it) into the sorted ``keys[:m]``, after equal keys."""
    q = m
    while q > 0 and keys[q - 1] > key:
        keys[q] = keys[q - 1]
        vals[q] = vals[q - 1]
        q -= 1
    keys[q] = key
    vals[q] = val


@njit(inline="always")
def add_sample_for(s, sign, wi, yk_i, yr_i, criterion, reg):
    """``s += sign * stats(one sample)``; ``reg``: whether ``criterion`` is a regression one."""
    s[0] += sign
    s[1] += sign * wi
    if not reg:
        s[2 + yk_i] += sign * wi
    elif criterion == SQUARED_ERROR:
        s[2] += sign * wi * yr_i
        s[3] += sign * wi * yr_i * yr_i
    else:
        s[2] += sign * wi * yr_i
        s[3] += sign * wi * q_of(yr_i, criterion)


@njit(inline="always")
def add_sample(s, sign, wi, yk_i, yr_i, criterion):
    """``s += sign * stats(one sample)`` (:func:`add_sample_for`, task at run time)."""
    add_sample_for(s, sign, wi, yk_i, yr_i, criterion, criterion >= SQUARED_ERROR)


@njit(inline="always")
def feasible(n_left, w_left, total, min_samples_leaf, min_weight_leaf):
    """Whether both children respect the leaf-size constraints."""
    n_right = total[0] - n_left
    w_right = total[1] - w_left
    return (
        n_left >= min_samples_leaf
        and n_right >= min_samples_leaf
        and w_left > 0.0
        and w_right > 0.0
        and w_left >= min_weight_leaf
        and w_right >= min_weight_leaf
    )


@njit(inline="always")
def draw_feature(feats, j, rng):
    """The ``j``-th feature of a node's random order: a step of a partial Fisher-Yates shuffle of ``feats``."""
    r = j + rng_randint(rng, feats.shape[0] - j)
    f = feats[r]
    feats[r] = feats[j]
    feats[j] = f
    return f


@njit(inline="always")
def draw_features(feats, k, rng, partners):
    """The first ``k`` steps of :func:`draw_feature` at once: ``feats[:k]`` are then the node's first ``k`` draws.

    ``partners[j]`` keeps the position that step ``j`` swapped with, so that
    :func:`undraw_features` can take steps back.
    """
    for j in range(k):
        r = j + rng_randint(rng, feats.shape[0] - j)
        partners[j] = r
        f = feats[r]
        feats[r] = feats[j]
        feats[j] = f


@njit(inline="always")
def undraw_features(feats, j, k, rng, partners):
    """Undo steps ``j .. k - 1`` of :func:`draw_features` (swaps and random draws): as if only ``j`` were made."""
    for jj in range(k - 1, j - 1, -1):
        r = partners[jj]
        f = feats[r]
        feats[r] = feats[jj]
        feats[jj] = f
    rng_rewind(rng, k - j)


@njit(inline="always")
def mono_of(mono, f):
    """``(cst, lo, hi)`` of feature ``f`` from the grower's ``mono`` array.

    ``mono`` is ``[lo, hi, cst_0, cst_1, ...]`` -- the current node's value
    bounds, then every feature's constraint (+1 increasing, -1 decreasing,
    0 none) -- or empty when no feature is constrained.
    """
    if mono.shape[0] == 0:
        return 0.0, -INF, INF
    return mono[2 + f], mono[0], mono[1]


@njit(inline="always")
def mono_stat_for(reg):
    """Index of the statistic whose ratio to the weight a monotonic constraint orders:
    ``sum w y`` (the mean target) for regression, class 1's weight (its proportion) otherwise."""
    return 2 if reg else 3


@njit(inline="always")
def mono_stat(criterion):
    """:func:`mono_stat_for` of the task of ``criterion``."""
    return mono_stat_for(criterion >= SQUARED_ERROR)


@njit(inline="always")
def ratios_ok(w_left, s_left, w_total, s_total, cst, lo, hi):
    """scikit-learn's monotonic rule on the children's values ``s / w`` (left, and total - left).

    Both must lie in the node's bounds ``[lo, hi]`` and be ordered as ``cst``
    says: the left value at most the right one for ``cst = +1``
    (increasing), at least for ``-1``.
    """
    vl = s_left / w_left
    vr = (s_total - s_left) / (w_total - w_left)
    return lo <= vl <= hi and lo <= vr <= hi and (vl - vr) * cst <= 0.0


@njit(inline="always")
def monotone_ok(left, total, cst, lo, hi, reg):
    """:func:`ratios_ok` on statistics vectors: the mean target (``reg``), or for two classes the proportion of class 1."""
    k = mono_stat_for(reg)
    if k >= total.shape[0]:  # one class: nothing to order
        return True
    return ratios_ok(left[1], left[k], total[1], total[k], cst, lo, hi)


@njit(inline="always")
def evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi, reg):
    """Cost of the best of the two candidates that put ``cum`` on the left.

    Both children must hold at least ``min_samples_leaf`` rows and
    ``min_weight_leaf`` weight.  ``miss`` holds the node's rows whose value
    is NaN: they are tried on the right (left = ``cum``) and, when there are
    any, on the left (left = ``cum + miss``).  Returns ``(cost,
    missing_left)``; the cost is +inf when neither candidate is feasible.
    With no NaN in the node, ``missing_left`` records the side with more
    rows, where a NaN met only at prediction time will go (the right side
    on a tie, as in scikit-learn).  With ``cst != 0``
    a candidate must also pass :func:`monotone_ok` with bounds ``lo, hi``.
    ``reg``: whether ``criterion`` is a regression one (see
    :func:`..criteria.weighted_impurity_for`).
    """
    best = INF
    ml = 0.0
    if feasible(cum[0], cum[1], total, min_samples_leaf, min_weight_leaf) and (
            cst == 0.0 or monotone_ok(cum, total, cst, lo, hi, reg)):
        best = children_cost_for(cum, total, criterion, reg)
        if miss[0] == 0.0 and cum[0] > total[0] - cum[0]:
            ml = 1.0
    if miss[0] > 0.0:
        for k in range(tmp.shape[0]):
            tmp[k] = cum[k] + miss[k]
        if feasible(tmp[0], tmp[1], total, min_samples_leaf, min_weight_leaf) and (
                cst == 0.0 or monotone_ok(tmp, total, cst, lo, hi, reg)):
            c = children_cost_for(tmp, total, criterion, reg)
            if c < best:
                best = c
                ml = 1.0
    return best, ml


@njit(inline="always")
def evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi):
    """:func:`evaluate_for` with the task decided at run time."""
    return evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi,
                        criterion >= SQUARED_ERROR)


@njit(inline="always")
def scan_sorted_for(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                    cst, lo, hi, reg):
    """Best boundary in ``keys[:m]`` (sorted, no NaN) of one feature.

    ``samples[p]`` is the node position of ``keys[p]`` (``w``, ``yk``, ``yr``
    are node-ordered).  A candidate split lies after every position whose key
    differs from the next one; the all-values-left split (NaN rows right) is
    tried too when the node has NaN rows.  Returns ``(cost, position,
    missing_left)``; ``position`` is the last left position, ``m - 1`` for the
    all-values-left split.

    For gini and entropy a boundary between two groups of equal keys that
    hold the same single class is never better than the nearest boundary
    where the class changes: along a run of one class the children's weighted
    impurity is concave (Fayyad & Irani 1992, boundary points).  Those
    boundaries are skipped when no leaf-size constraint could make an
    interior cut the only feasible one.

    For gini with no NaN rows, the children's sums of squared class weights
    are updated per row (adding weight ``w`` to a class count ``c`` adds
    ``w * (2c + w)`` to its square), so a boundary costs O(1) instead of
    O(n_classes): the scan stays linear in the node size for many classes.

    ``cst, lo, hi``: the feature's monotonic constraint and the node's value
    bounds (see :func:`monotone_ok`); 0 (the default) leaves the scan
    unconstrained.  A constrained scan tries every boundary, because the
    nearest class change may be the one the constraint rejects.

    ``reg``: whether ``criterion`` is a regression one.  This is the body:
    :func:`scan_sorted` decides the task at run time, :func:`scan_sorted_cls`
    and :func:`scan_sorted_reg` are compiled for one task each.
    """
    cum[:] = 0.0
    incremental = criterion == GINI and miss[0] == 0.0
    sq_left = 0.0
    sq_right = 0.0
    if not reg and incremental:
        for k in range(2, total.shape[0]):
            sq_right += total[k] * total[k]
    best = INF
    best_pos = -1
    best_ml = 0.0
    prune = not reg and min_samples_leaf <= 1 and min_weight_leaf <= 0.0 and cst == 0.0
    group_class = -1  # class shared by every row of the current key group, -2 if mixed
    for p in range(m):
        i = samples[p]
        if not reg and incremental:
            wi = w[i]
            c_left = cum[2 + yk[i]]
            sq_left += wi * (2.0 * c_left + wi)
            sq_right += wi * (wi - 2.0 * (total[2 + yk[i]] - c_left))
        add_sample_for(cum, 1.0, w[i], yk[i], yr[i], criterion, reg)
        if not reg and prune:
            if p == 0 or keys[p] > keys[p - 1]:
                group_class = yk[i]
            elif yk[i] != group_class:
                group_class = -2
        if p + 1 < m and keys[p + 1] <= keys[p]:
            continue
        if p + 1 == m:
            if miss[0] == 0.0:
                break
        elif not reg and prune and group_class >= 0:
            # skip when the next key group holds only group_class too
            q = p + 1
            same = True
            while q < m and keys[q] == keys[p + 1]:
                if yk[samples[q]] != group_class:
                    same = False
                    break
                q += 1
            if same:
                continue
        if not reg and incremental:
            c = INF
            ml = 0.0
            if feasible(cum[0], cum[1], total, min_samples_leaf, min_weight_leaf) and (
                    cst == 0.0 or monotone_ok(cum, total, cst, lo, hi, reg)):
                w_left = cum[1]
                w_right = total[1] - w_left
                c = (w_left - sq_left / w_left) + (w_right - sq_right / w_right)
                ml = 1.0 if cum[0] > total[0] - cum[0] else 0.0
        else:
            c, ml = evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo, hi, reg)
        if c < best:
            best = c
            best_pos = p
            best_ml = ml
    return best, best_pos, best_ml


@njit
def scan_sorted(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                cst=0.0, lo=-INF, hi=INF):
    """Best boundary in ``keys[:m]`` (sorted, no NaN) of one feature: :func:`scan_sorted_for`, task at run time.

    Returns ``(cost, position, missing_left)``.
    """
    return scan_sorted_for(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion,
                           cum, tmp, cst, lo, hi, criterion >= SQUARED_ERROR)


@njit
def scan_sorted_cls(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                    cst, lo, hi):
    """:func:`scan_sorted_for` compiled for classification criteria only."""
    return scan_sorted_for(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion,
                           cum, tmp, cst, lo, hi, False)


@njit
def scan_sorted_reg(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion, cum, tmp,
                    cst, lo, hi):
    """:func:`scan_sorted_for` compiled for regression criteria only."""
    return scan_sorted_for(keys, samples, m, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf, criterion,
                           cum, tmp, cst, lo, hi, True)
