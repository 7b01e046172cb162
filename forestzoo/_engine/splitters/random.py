"""Random-threshold split (``splitter="random"``): Extra Trees, Geurts et al. 2006."""

import numpy as np

from ..._jit import njit
from ..criteria import SQUARED_ERROR
from ..data import value
from ..rng import mix_randint, mix_uniform
from ._common import (
    REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_THRESHOLD, add_sample_for, evaluate_for, is_perfect_split_for,
    mono_of, same_value,
)


@njit(inline="always")
def split_random(Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, max_features,
                 feats, rng, vals, unit_w, miss, cum, tmp, rec, n_evals, mono, reg):
    """Best of one random threshold per candidate feature of the node ``idx[start:end]``.

    Features are drawn in a random order (a partial shuffle of ``feats``),
    ``max_features`` of them, then more while every one drawn was constant
    in the node, scikit-learn's rule.  For each, one threshold is drawn uniformly in [min, max) of its
    values in the node (feature ``f`` of the layout ``Xf``, :mod:`..data`); NaN rows are
    tried on both sides and go where the cost is lower.  The best split is
    left in ``rec``; ``n_evals[0]`` grows by the (row, feature) pairs read.

    The node's values are gathered once (through ``idx``) into the contiguous
    buffer ``vals`` while their range is found; the statistics pass then reads
    ``vals``, ``w``, ``yk``, ``yr`` forward.  That pass adds each row with a
    0/1 factor instead of branching on ``x <= threshold`` (a random threshold
    makes the branch a coin flip), keeps the row count, the weight and the
    regression sums in scalars, and for two classes the class-1 weight too
    (class 0 is the rest), so only K > 2 classes update an array per row.
    With two classes and every weight 1 (``unit_w``: Extra Trees without
    bootstrap or sample weights) the counts are integers, a reduction the
    compiler vectorises.

    A classification search stops at the first split whose children are both
    pure (``_common.is_perfect_split``, which says why regression does not).  At
    the bottom of a fully grown tree most two- and three-row nodes split
    perfectly on their first feature, and the other ``max_features - 1`` were
    ~half of such a node's cost (10 classes, 80k rows: ~8 % of the fit).

    The whole node is one call with the feature loop inside: Numba binds a
    called function's array arguments with atomic reference-count updates,
    and one call per (node, feature) spent ~10% of the fit on them (perf).

    ``mono``: the grower's monotonic constraints (``[lo, hi, cst_0, ...]``,
    empty for none); a feature's threshold is rejected when its children
    break :func:`._common.monotone_ok`, as in scikit-learn.

    ``reg``: whether ``criterion`` is a regression one; the grower passes
    its compile-time constant, so it compiles one task's loops (see
    :func:`..criteria.weighted_impurity_for`).
    """
    n_features = feats.shape[0]
    n_valid = 0
    state = rng[0]  # in a register for the node; written back below
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        state, r = mix_randint(state, n_features - j)
        r += j
        f = feats[r]
        feats[r] = feats[j]
        feats[j] = f
        n_evals[0] += end - start
        # gather + range, four rows at a time into independent minima / maxima:
        # one running min/max would chain every row on the previous one
        lo0 = lo1 = lo2 = lo3 = np.float32(np.inf)
        hi0 = hi1 = hi2 = hi3 = np.float32(-np.inf)
        n_nan = 0
        n = end - start
        n4 = n - (n & 3)
        for q in range(0, n4, 4):
            v0 = value(Xf, f, idx[start + q])
            v1 = value(Xf, f, idx[start + q + 1])
            v2 = value(Xf, f, idx[start + q + 2])
            v3 = value(Xf, f, idx[start + q + 3])
            vals[q] = v0
            vals[q + 1] = v1
            vals[q + 2] = v2
            vals[q + 3] = v3
            lo0 = v0 if v0 < lo0 else lo0
            lo1 = v1 if v1 < lo1 else lo1
            lo2 = v2 if v2 < lo2 else lo2
            lo3 = v3 if v3 < lo3 else lo3
            hi0 = v0 if v0 > hi0 else hi0
            hi1 = v1 if v1 > hi1 else hi1
            hi2 = v2 if v2 > hi2 else hi2
            hi3 = v3 if v3 > hi3 else hi3
            n_nan += (v0 != v0) + (v1 != v1) + (v2 != v2) + (v3 != v3)
        for q in range(n4, n):
            v0 = value(Xf, f, idx[start + q])
            vals[q] = v0
            lo0 = v0 if v0 < lo0 else lo0
            hi0 = v0 if v0 > hi0 else hi0
            n_nan += v0 != v0
        lo = float(min(min(lo0, lo1), min(lo2, lo3)))
        hi = float(max(max(hi0, hi1), max(hi2, hi3)))
        if n_nan == n:
            continue
        if same_value(lo, hi):  # constant, as the exact search sees it
            if n_nan == 0:
                continue
            thr = np.inf  # constant values: the only split is values vs NaN
        else:
            state, u = mix_uniform(state)
            thr = lo + u * (hi - lo)
            if thr >= hi:
                thr = lo
        cum[:] = 0.0
        miss[:] = 0.0
        if n_nan == 0:
            n_left = 0.0
            w_left = 0.0
            if reg and criterion == SQUARED_ERROR:
                s1 = 0.0
                s2 = 0.0
                for p in range(start, end):
                    g = 1.0 if vals[p - start] <= thr else 0.0
                    gw = g * w[p]
                    n_left += g
                    w_left += gw
                    s1 += gw * yr[p]
                    s2 += gw * yr[p] * yr[p]
                cum[2] = s1
                cum[3] = s2
            elif reg:  # Poisson: its fourth statistic needs a log per row
                for p in range(start, end):
                    add_sample_for(cum, 1.0 if vals[p - start] <= thr else 0.0, w[p], yk[p], yr[p], criterion, reg)
                n_left = cum[0]
                w_left = cum[1]
            elif cum.shape[0] == 4 and unit_w:  # two classes, every weight 1: integer counts (vectorised)
                nl = 0
                n1 = 0
                for p in range(start, end):
                    g = np.int64(vals[p - start] <= thr)
                    nl += g
                    n1 += g & yk[p]
                n_left = float(nl)
                w_left = n_left
                cum[2] = float(nl - n1)
                cum[3] = float(n1)
            elif cum.shape[0] == 4:  # two classes
                w1 = 0.0
                for p in range(start, end):
                    g = 1.0 if vals[p - start] <= thr else 0.0
                    gw = g * w[p]
                    n_left += g
                    w_left += gw
                    w1 += gw * yk[p]
                cum[2] = w_left - w1
                cum[3] = w1
            else:
                for p in range(start, end):
                    g = 1.0 if vals[p - start] <= thr else 0.0
                    gw = g * w[p]
                    n_left += g
                    w_left += gw
                    cum[2 + yk[p]] += gw
            cum[0] = n_left
            cum[1] = w_left
        else:
            for p in range(start, end):
                v = vals[p - start]
                add_sample_for(cum, 1.0 if v <= thr else 0.0, w[p], yk[p], yr[p], criterion, reg)
                add_sample_for(miss, 1.0 if v != v else 0.0, w[p], yk[p], yr[p], criterion, reg)
        cst, lo_v, hi_v = mono_of(mono, f)
        c, ml = evaluate_for(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, cst, lo_v, hi_v, reg)
        if c < rec[REC_COST]:
            rec[REC_COST] = c
            rec[REC_FEATURE] = f
            rec[REC_MISSING_LEFT] = ml
            rec[REC_BIN] = -1.0
            rec[REC_THRESHOLD] = thr
        n_valid += 1
        if is_perfect_split_for(c, reg):
            # both children pure (cost 0): no later feature can do better, so the
            # search stops; the split found is the one a full search keeps (ties
            # keep the first), only the later features' draws are skipped
            break
    rng[0] = state
