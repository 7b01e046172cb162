"""Structure Transfer (STRUT), Segev et al. 2017, Algorithm 2 and Eq. (1)-(2).

The source tree keeps its structure and split features; every numeric
threshold is discarded and re-selected top-down on the target rows ``S`` that
reach the node:

* the new threshold maximises the divergence gain (Eq. 1)
  ``DG = 1 - |S_L|/|S| JSD(Q'_L, Q_L) - |S_R|/|S| JSD(Q'_R, Q_R)``, where
  ``Q_L, Q_R`` are the source label distributions of the two children,
  ``Q'_L, Q'_R`` the target ones, and ``JSD`` the Jensen-Shannon divergence
  (Eq. 2, in bits), subject to the threshold being a local maximum of the
  information gain on ``S``;
* the selection is repeated with the children's source distributions swapped;
  if that order gives a larger DG the two subtrees are swapped;
* a node no target row reaches becomes a leaf (its subtree is pruned) and a
  reached leaf takes the target label distribution.

Candidate thresholds are midpoints between consecutive distinct values of the
feature among ``S``; a node whose ``S`` has a single distinct value keeps the
source threshold.  Rows with a missing value follow the node's NaN side.

Regression (an extension; the paper is about classification): the label
distributions are taken as normal, the source ones from the children's mean
and variance (``values`` and ``impurity`` of the source tree), IG is the
variance reduction and the divergence is the squared Hellinger distance,
which is bounded in [0, 1] like the JSD in bits and, unlike it, has a closed
form between normal distributions.
"""

import numpy as np

from .._engine.api import TREE_LEAF
from .._engine.api import oblique_side as _oblique_side
from .._jit import njit

_LN2 = np.log(2.0)


@njit(inline="always")
def _kl_to_mid(p, q, wp, wq, n):
    """KL(P || (P+Q)/2) in bits; ``p``/``q`` unnormalised with totals ``wp``/``wq``."""
    acc = 0.0
    for c in range(n):
        pc = p[c] / wp
        if pc > 0.0:
            qc = q[c] / wq
            acc += pc * np.log(2.0 * pc / (pc + qc))
    return acc / _LN2


@njit(inline="always")
def _jsd(p, wp, q, wq, n):
    """Jensen-Shannon divergence in bits (Eq. 2: 2 JSD = KL(P||M) + KL(Q||M))."""
    return 0.5 * (_kl_to_mid(p, q, wp, wq, n) + _kl_to_mid(q, p, wq, wp, n))


@njit(inline="always")
def _entropy_cost(c, w, n):
    """``w * H(c / w)`` in nats (the information gain needs only its differences)."""
    acc = 0.0
    for k in range(n):
        if c[k] > 0.0:
            acc += c[k] * np.log(w / c[k])
    return acc


@njit(inline="always")
def _hellinger2(m1, v1, m2, v2):
    """Squared Hellinger distance between N(m1, v1) and N(m2, v2)."""
    s = v1 + v2
    d = m1 - m2
    return 1.0 - np.sqrt(2.0 * np.sqrt(v1 * v2) / s) * np.exp(-d * d / (4.0 * s))


@njit
def _select(X, idx, start, end, w, yk, yr, f, missing_left, classification, qv_l, qv_r, qi_l, qi_r,
            n_classes, var_floor, keys, rows, cand_thr, cand_ig1, cand_ig2, cand_dg1, cand_dg2):
    """Threshold selection for both child orders; returns ``(found, threshold, swap)``."""
    m = 0
    nan_c = np.zeros(n_classes + 2)
    tot_c = np.zeros(n_classes + 2)  # class weights, or [sum w y, sum w y^2]
    w_nan = 0.0
    w_tot = 0.0
    for p in range(start, end):
        i = idx[p]
        x = X[i, f]
        if x != x:
            w_nan += w[i]
            if classification:
                nan_c[yk[i]] += w[i]
            else:
                nan_c[0] += w[i] * yr[i]
                nan_c[1] += w[i] * yr[i] * yr[i]
        else:
            keys[m] = x
            rows[m] = i
            m += 1
    if m < 2:
        return False, 0.0, False
    order = np.argsort(keys[:m], kind="mergesort")
    n_stat = n_classes if classification else 2
    for q in range(m):
        i = rows[order[q]]
        w_tot += w[i]
        if classification:
            tot_c[yk[i]] += w[i]
        else:
            tot_c[0] += w[i] * yr[i]
            tot_c[1] += w[i] * yr[i] * yr[i]
    left = np.zeros(n_classes + 2)
    a = np.zeros(n_classes + 2)  # the x <= t side, NaN included per orientation
    b = np.zeros(n_classes + 2)
    w_all = w_tot + w_nan
    qs_l = qv_l.sum() if classification else 1.0
    qs_r = qv_r.sum() if classification else 1.0
    n_cand = 0
    w_left = 0.0
    for q in range(m - 1):
        i = rows[order[q]]
        w_left += w[i]
        if classification:
            left[yk[i]] += w[i]
        else:
            left[0] += w[i] * yr[i]
            left[1] += w[i] * yr[i] * yr[i]
        x0 = keys[order[q]]
        x1 = keys[order[q + 1]]
        if not x0 < x1:
            continue
        for o in range(2):
            # orientation 0 keeps the children; 1 swaps them, and NaN stays with its subtree
            nan_on_a = missing_left if o == 0 else not missing_left
            wa = w_left + (w_nan if nan_on_a else 0.0)
            wb = w_all - wa
            for k in range(n_stat):
                a[k] = left[k] + (nan_c[k] if nan_on_a else 0.0)
                b[k] = tot_c[k] + nan_c[k] - a[k]
            if classification:
                ig = -(_entropy_cost(a, wa, n_stat) + _entropy_cost(b, wb, n_stat)) / w_all
                if o == 0:
                    dg = 1.0 - wa / w_all * _jsd(a, wa, qv_l, qs_l, n_stat) - wb / w_all * _jsd(b, wb, qv_r, qs_r, n_stat)
                else:
                    dg = 1.0 - wa / w_all * _jsd(a, wa, qv_r, qs_r, n_stat) - wb / w_all * _jsd(b, wb, qv_l, qs_l, n_stat)
            else:
                ma = a[0] / wa if wa > 0.0 else 0.0
                mb = b[0] / wb if wb > 0.0 else 0.0
                va = max(a[1] / wa - ma * ma, 0.0) + var_floor if wa > 0.0 else var_floor
                vb = max(b[1] / wb - mb * mb, 0.0) + var_floor if wb > 0.0 else var_floor
                ig = -(wa * (va - var_floor) + wb * (vb - var_floor)) / w_all
                ml, vl = qv_l[0], qi_l + var_floor
                mr, vr = qv_r[0], qi_r + var_floor
                if o == 0:
                    dg = 1.0 - wa / w_all * _hellinger2(ma, va, ml, vl) - wb / w_all * _hellinger2(mb, vb, mr, vr)
                else:
                    dg = 1.0 - wa / w_all * _hellinger2(ma, va, mr, vr) - wb / w_all * _hellinger2(mb, vb, ml, vl)
            if o == 0:
                cand_ig1[n_cand] = ig
                cand_dg1[n_cand] = dg
            else:
                cand_ig2[n_cand] = ig
                cand_dg2[n_cand] = dg
        cand_thr[n_cand] = 0.5 * (np.float64(x0) + np.float64(x1))
        n_cand += 1
    if n_cand == 0:
        return False, 0.0, False
    t1, d1 = _best_local_max(cand_ig1, cand_dg1, n_cand)
    t2, d2 = _best_local_max(cand_ig2, cand_dg2, n_cand)
    # Algorithm 2: keep the order when DG_1 >= DG_2, else swap the children
    if d1 >= d2:
        return True, cand_thr[t1], False
    return True, cand_thr[t2], True


@njit
def _best_local_max(ig, dg, n):
    """Candidate of largest DG among the local maxima of IG (ties with a neighbour count)."""
    best = -1
    best_dg = -np.inf
    for j in range(n):
        tol = 1e-12 * max(1.0, abs(ig[j]))
        if j > 0 and ig[j] < ig[j - 1] - tol:
            continue
        if j < n - 1 and ig[j] < ig[j + 1] - tol:
            continue
        if dg[j] > best_dg:
            best_dg = dg[j]
            best = j
    return best, best_dg


@njit
def strut_tree(X, nodes, values, idx, w, yk, yr, classification, n_classes, var_floor,
               obl_ptr, obl_feature, obl_weight):
    """Algorithm 2 on one tree, editing ``nodes`` in place (``values`` are read only).

    ``idx`` lists the target rows (positive weight); it is permuted in place.
    Returns nothing; the caller compacts the tree and refits node values.
    """
    n_rows = idx.shape[0]
    keys = np.empty(n_rows, np.float32)
    rows = np.empty(n_rows, np.int64)
    cand_thr = np.empty(n_rows)
    cand_ig1 = np.empty(n_rows)
    cand_ig2 = np.empty(n_rows)
    cand_dg1 = np.empty(n_rows)
    cand_dg2 = np.empty(n_rows)
    buf = np.empty(n_rows, idx.dtype)
    stack = np.empty((nodes.shape[0] + 1, 3), np.int64)
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n_rows
    top = 1
    while top > 0:
        top -= 1
        k = stack[top, 0]
        start = stack[top, 1]
        end = stack[top, 2]
        nd = nodes[k]
        if end == start:
            # Algorithm 2: |S| = 0 -> d(v) <- 0 (unreachable subtree pruned)
            nodes[k].left = TREE_LEAF
            nodes[k].right = TREE_LEAF
            nodes[k].feature = -1
            nodes[k].oblique = -1
            nodes[k].threshold = 0.0
            nodes[k].improvement = 0.0
            continue
        if nd.left == TREE_LEAF:
            continue  # the leaf's value is refitted on S by the caller
        f = nd.feature
        if f >= 0:
            lc = nd.left
            rc = nd.right
            found, thr, swap = _select(
                X, idx, start, end, w, yk, yr, f, nd.missing_left == 1, classification,
                values[lc], values[rc], nodes[lc].impurity, nodes[rc].impurity, n_classes, var_floor,
                keys, rows, cand_thr, cand_ig1, cand_ig2, cand_dg1, cand_dg2,
            )
            if found:
                nodes[k].threshold = thr
                if swap:
                    nodes[k].left = rc
                    nodes[k].right = lc
                    nodes[k].missing_left = 1 - nodes[k].missing_left
        # stable partition of S by the (new) split
        nd = nodes[k]
        n_left = 0
        n_right = 0
        for p in range(start, end):
            i = idx[p]
            if nd.feature >= 0:
                v = X[i, nd.feature]
                go_left = v <= nd.threshold or (v != v and nd.missing_left == 1)
            else:
                go_left = _oblique_side(X, i, nd.oblique, nd.missing_left, nd.threshold, obl_ptr, obl_feature, obl_weight)
            if go_left:
                idx[start + n_left] = i
                n_left += 1
            else:
                buf[n_right] = i
                n_right += 1
        for q in range(n_right):
            idx[start + n_left + q] = buf[q]
        mid = start + n_left
        stack[top, 0] = nd.right
        stack[top, 1] = mid
        stack[top, 2] = end
        stack[top + 1, 0] = nd.left
        stack[top + 1, 1] = start
        stack[top + 1, 2] = mid
        top += 2
