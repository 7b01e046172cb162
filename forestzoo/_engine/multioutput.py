"""Trees on a 2-D target: several outputs predicted by one tree (multi-output CART).

One tree predicts ``n_outputs`` targets at once: every split is chosen for all
of them, and a node's impurity is the mean over the outputs of each output's
impurity (Breiman et al. 1984 applied per output; the multi-output criterion
of scikit-learn's trees).  For classification the impurity of output ``o`` is
the Gini index or the entropy (bits) of its class distribution in the node;
for regression it is the variance of output ``o`` (squared error), its
half Poisson deviance (a split must leave both children a positive sum of
every output, as for one output) or its mean absolute deviation from its
weighted median (absolute error; the node predicts every output's weighted
median).

This module has its own grower (:func:`grow_multi_for`), compiled apart from the
single-output growers of :mod:`.grower`, so that single-output trees keep
their compiled code, their speed and their bits.  Its split kernels are the
exact, random and hist ones of the single-output engine (same candidate
thresholds, the same NaN handling: both sides tried, a node without NaN
sends NaN to its larger child), written on the statistics vector below.

Statistics vector of a node (``n_stats`` float64):

* ``s[0]`` the number of rows, ``s[1]`` the sum of weights;
* classification: ``s[2 + o * K + k]`` the weight of class ``k`` of output
  ``o``, ``K`` the largest number of classes of any output (outputs with fewer
  classes leave their last entries at 0): ``n_stats = 2 + n_outputs * K``;
* regression: ``s[2 + o] = sum w y_o`` and ``s[2 + n_outputs + o] = sum w
  q(y_o)``, ``q(y) = y**2`` for squared error and ``y log y`` for Poisson
  (:func:`.criteria.q_of`): ``n_stats = 2 + 2 * n_outputs``.

Histograms (hist splitter) carry the first ``2 + n_outputs * K`` (classification)
or ``2 + n_outputs`` (regression) statistics: a split's cost for squared
error needs ``sum w y_o**2`` of the node only.

A node's value row has ``n_outputs * K`` entries (class proportions of each
output, zero-padded) or ``n_outputs`` (means, or medians); a fitted
:class:`.tree.Tree` keeps it flat, and shows it as ``(n_nodes, n_outputs, K)``
in ``value``.

Absolute error has no sufficient statistics (a median needs the rows): its
nodes carry the squared-error vector above for their row counts and weights,
and :func:`_search_absolute` ranks every output's targets in the node and
runs the Fenwick-tree passes of :mod:`.splitters.absolute` once per output,
summing the outputs' prefix and suffix errors (``O(n_outputs n log n)`` per
candidate feature).
"""

import numpy as np

from .._jit import borrow, keep_alive, njit
from .binning import MISSING_BIN, split_threshold
from .criteria import ABSOLUTE_ERROR, GINI, POISSON, SQUARED_ERROR, poisson_zero_tol, q_of
from .data import borrow_data
from .data import n_features as data_n_features
from .data import value as data_value
from .grower import (
    COL_DEPTH, COL_FEATURE, COL_IMPROVEMENT, COL_IMPURITY, COL_LEFT, COL_MISSING_LEFT, COL_N_SAMPLES, COL_OBLIQUE,
    COL_RIGHT, COL_THRESHOLD, COL_WEIGHTED_N, N_COLS,
)
from .rng import rng_uniform
from .splitters import EXACT, HIST, RANDOM
from .splitters._common import (
    INF, REC_BIN, REC_COST, REC_FEATURE, REC_MISSING_LEFT, REC_SIZE, REC_THRESHOLD, draw_feature, insert_sorted,
    reset_record, same_value,
)
from .splitters.absolute import _scan_groups, _two_side_errors, prefix_errors, rank_node
from .splitters.exact import midpoint
from .splitters.hist import (
    _is_splittable, clear_node_entries, column_setup, entry_codes, gather_node_entries, node_codes,
)

_LOG2 = np.log(2.0)
_DBL_EPS = np.finfo(np.float64).eps
#: Nodes with fewer rows than this are searched by sorting their codes, not with histograms (hist splitter).
SMALL_NODE = 256
_INSERTION_MAX = 24
#: Most histogram buffers kept per tree for the sibling subtraction (each is ``n_features x 256 x n_hist``).
MAX_POOL_SLOTS = 32


@njit(inline="always")
def _add(s, sign, wi, Y, p, clf, n_out, K, criterion):
    """``s += sign * stats(row p)``: ``Y[p, o]`` is the class code (classification) or the target of output ``o``."""
    s[0] += sign
    s[1] += sign * wi
    if clf:
        for o in range(n_out):
            s[2 + o * K + int(Y[p, o])] += sign * wi
    else:
        for o in range(n_out):
            y = Y[p, o]
            s[2 + o] += sign * wi * y
            s[2 + n_out + o] += sign * wi * q_of(y, criterion)


@njit(inline="always")
def _add_split(s, wi, Y, p, clf, n_out, K):
    """``s += stats(row p)`` without squared error's ``sum w y**2`` (a split's cost does not read it)."""
    s[0] += 1.0
    s[1] += wi
    if clf:
        for o in range(n_out):
            s[2 + o * K + int(Y[p, o])] += wi
    else:
        for o in range(n_out):
            s[2 + o] += wi * Y[p, o]


@njit
def weighted_impurity_multi(s, criterion, n_out, K):
    """``W * impurity`` of the node with statistics ``s``: the mean over outputs of ``W * impurity_o``."""
    w = s[1]
    if w <= 0.0:
        return 0.0
    acc = 0.0
    if criterion == SQUARED_ERROR:
        for o in range(n_out):
            v = s[2 + n_out + o] - s[2 + o] * s[2 + o] / w
            acc += v if v > 0.0 else 0.0
    elif criterion == POISSON:
        # half Poisson deviance of output o: sum w y log y - S log(S / W)
        for o in range(n_out):
            sy = s[2 + o]
            if sy > 0.0:
                v = s[2 + n_out + o] - sy * np.log(sy / w)
                acc += v if v > 0.0 else 0.0
    elif criterion == GINI:
        for o in range(n_out):
            sq = 0.0
            for k in range(K):
                c = s[2 + o * K + k]
                sq += c * c
            v = w - sq / w
            acc += v if v > 0.0 else 0.0
    else:
        for o in range(n_out):
            for k in range(K):
                c = s[2 + o * K + k]
                if c > 0.0:
                    acc += c * np.log(w / c)
        acc /= _LOG2
    return acc / n_out


@njit(inline="always")
def _children_cost(left, total, criterion, n_out, K):
    """``W_l imp_l + W_r imp_r`` (means over outputs) of the split that puts ``left`` on the left.

    Squared error reads only ``left[:2 + n_outputs]`` (rows, weight, ``sum w
    y_o``): the children's ``sum w y_o**2`` add up to the node's.
    """
    wl = left[1]
    wr = total[1] - wl
    acc = 0.0
    if criterion == SQUARED_ERROR:
        il = 1.0 / wl
        ir = 1.0 / wr
        for o in range(n_out):
            sl = left[2 + o]
            sr = total[2 + o] - sl
            acc += total[2 + n_out + o] - sl * sl * il - sr * sr * ir
    elif criterion == POISSON:
        # a child whose sum of w y is (about) 0 for some output has no log of its mean: refused
        for o in range(n_out):
            sl = left[2 + o]
            sr = total[2 + o] - sl
            tol = poisson_zero_tol(total[0], total[2 + o])
            if sl <= tol or sr <= tol:
                return INF
            acc += total[2 + n_out + o] - sl * np.log(sl / wl) - sr * np.log(sr / wr)
    elif criterion == GINI:
        for o in range(n_out):
            ql = 0.0
            qr = 0.0
            for k in range(K):
                c = left[2 + o * K + k]
                d = total[2 + o * K + k] - c
                ql += c * c
                qr += d * d
            acc += (wl - ql / wl) + (wr - qr / wr)
    else:
        for o in range(n_out):
            for k in range(K):
                c = left[2 + o * K + k]
                d = total[2 + o * K + k] - c
                if c > 0.0:
                    acc += c * np.log(wl / c)
                if d > 0.0:
                    acc += d * np.log(wr / d)
        acc /= _LOG2
    return acc / n_out


@njit(inline="always")
def _feasible(n_left, w_left, total, min_samples_leaf, min_weight_leaf):
    n_right = total[0] - n_left
    w_right = total[1] - w_left
    return (n_left >= min_samples_leaf and n_right >= min_samples_leaf and w_left > 0.0 and w_right > 0.0
            and w_left >= min_weight_leaf and w_right >= min_weight_leaf)


@njit(inline="always")
def _evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, n_out, K, tmp):
    """Cost and NaN side of the best of the candidates with ``cum`` left (NaN rows right, then left)."""
    best = INF
    ml = 0.0
    if _feasible(cum[0], cum[1], total, min_samples_leaf, min_weight_leaf):
        best = _children_cost(cum, total, criterion, n_out, K)
        if miss[0] == 0.0 and cum[0] > total[0] - cum[0]:
            ml = 1.0
    if miss[0] > 0.0:
        for k in range(tmp.shape[0]):
            tmp[k] = cum[k] + miss[k]
        if _feasible(tmp[0], tmp[1], total, min_samples_leaf, min_weight_leaf):
            c = _children_cost(tmp, total, criterion, n_out, K)
            if c < best:
                best = c
                ml = 1.0
    return best, ml


@njit(inline="always")
def _scan_sorted_for(keys, pos, m, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf, min_weight_leaf,
                     cum, tmp):
    """Best boundary of the sorted ``keys[:m]`` (node positions ``pos``); ``(cost, last left index, missing_left)``.

    Inlined into the small-node search of the ``hist`` splitter
    (:func:`_split_small`, itself inlined into :func:`_search`), where one
    call per node and feature took about a sixth of a fully grown tree's fit;
    :func:`_scan_sorted` is the same scan compiled apart for the exact
    splitter, whose sort outweighs a call.
    """
    cum[:] = 0.0
    best = INF
    best_j = -1
    best_ml = 0.0
    for j in range(m):
        _add_split(cum, w[pos[j]], Y, pos[j], clf, n_out, K)
        if j + 1 < m and keys[j + 1] <= keys[j]:
            continue
        if j + 1 == m and miss[0] == 0.0:
            break
        c, ml = _evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, n_out, K, tmp)
        if c < best:
            best = c
            best_j = j
            best_ml = ml
    return best, best_j, best_ml


@njit
def _scan_sorted(keys, pos, m, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf, min_weight_leaf,
                 cum, tmp):
    """:func:`_scan_sorted_for`, compiled apart (the exact splitter's scan)."""
    return _scan_sorted_for(keys, pos, m, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf,
                            min_weight_leaf, cum, tmp)


@njit(inline="always")
def _sort_pairs(keys, pos, m):
    """Sort ``keys[:m]`` ascending, ``pos`` along (insertion sort for small ``m``, else argsort)."""
    if m <= _INSERTION_MAX:
        for j in range(1, m):
            insert_sorted(keys, pos, j, keys[j], pos[j])
        return
    order = np.argsort(keys[:m], kind="mergesort")
    sk = keys[:m][order]
    sp = pos[:m][order]
    for j in range(m):
        keys[j] = sk[j]
        pos[j] = sp[j]


@njit
def _split_exact(f, Xf, idx, start, end, w, Y, clf, n_out, K, criterion, total, min_samples_leaf, min_weight_leaf,
                 keys, raw, pos, miss, cum, tmp, rec):
    """Best midpoint threshold of feature ``f`` over the node; updates ``rec``; False when ``f`` is constant."""
    m = 0
    miss[:] = 0.0
    for p in range(start, end):
        v = data_value(Xf, f, idx[p])
        if v != v:
            _add_split(miss, w[p], Y, p, clf, n_out, K)
        else:
            keys[m] = v
            pos[m] = p
            m += 1
    if m == 0:
        return False
    _sort_pairs(keys, pos, m)
    if same_value(keys[0], keys[m - 1]) and miss[0] == 0.0:
        return False
    # scikit-learn's rule (see same_value): a value within 1e-7 of the one before it joins its group
    for j in range(m):
        raw[j] = keys[j]
    for j in range(1, m):
        if same_value(raw[j - 1], raw[j]):
            keys[j] = keys[j - 1]
    cost, j, ml = _scan_sorted(keys, pos, m, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf,
                               min_weight_leaf, cum, tmp)
    if cost < rec[REC_COST]:
        rec[REC_COST] = cost
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        rec[REC_BIN] = -1.0
        rec[REC_THRESHOLD] = np.inf if j == m - 1 else midpoint(raw[j], raw[j + 1])
    return True


@njit
def _split_random(f, Xf, idx, start, end, w, Y, clf, n_out, K, criterion, total, min_samples_leaf, min_weight_leaf,
                  rng, vals, miss, cum, tmp, rec):
    """One uniform threshold in ``[min, max)`` of feature ``f`` over the node (Extra Trees); updates ``rec``."""
    n = end - start
    lo = np.inf
    hi = -np.inf
    n_nan = 0
    for q in range(n):
        v = data_value(Xf, f, idx[start + q])
        vals[q] = v
        if v != v:
            n_nan += 1
        else:
            lo = min(lo, v)
            hi = max(hi, v)
    if n_nan == n:
        return False
    if same_value(lo, hi):
        if n_nan == 0:
            return False
        thr = np.inf
    else:
        thr = lo + rng_uniform(rng) * (hi - lo)
        if thr >= hi:
            thr = lo
    cum[:] = 0.0
    miss[:] = 0.0
    for q in range(n):
        v = vals[q]
        p = start + q
        if v <= thr:
            _add_split(cum, w[p], Y, p, clf, n_out, K)
        elif v != v:
            _add_split(miss, w[p], Y, p, clf, n_out, K)
    c, ml = _evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, n_out, K, tmp)
    if c < rec[REC_COST]:
        rec[REC_COST] = c
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        rec[REC_BIN] = -1.0
        rec[REC_THRESHOLD] = thr
    return True


@njit
def _build_histogram(codes, idx, start, end, w, Y, clf, n_out, K, n_bins, hist):
    """Statistics of every bin of one feature over the node (``hist``: ``(256, n_hist)``; NaN in MISSING_BIN)."""
    hist[:n_bins, :] = 0.0
    hist[MISSING_BIN, :] = 0.0
    for p in range(start, end):
        b = codes[idx[p]]
        wi = w[p]
        hist[b, 0] += 1.0
        hist[b, 1] += wi
        if clf:
            for o in range(n_out):
                hist[b, 2 + o * K + int(Y[p, o])] += wi
        else:
            for o in range(n_out):
                hist[b, 2 + o] += wi * Y[p, o]


@njit
def _subtract_histograms(parent, child, n_bins):
    """``parent -= child`` over the used bins of every feature (sibling subtraction)."""
    for f in range(parent.shape[0]):
        for b in range(n_bins[f]):
            for s in range(parent.shape[2]):
                parent[f, b, s] -= child[f, b, s]
        for s in range(parent.shape[2]):
            parent[f, MISSING_BIN, s] -= child[f, MISSING_BIN, s]


@njit
def _split_histogram(f, hist, n_bins, edges, total, criterion, n_out, K, min_samples_leaf, min_weight_leaf, cum,
                     miss, tmp, rec):
    """Best bin boundary of feature ``f`` from its histogram; updates ``rec``; False when ``f`` is constant."""
    nh = hist.shape[1]
    for k in range(nh):
        miss[k] = hist[MISSING_BIN, k]
    n_values = total[0] - miss[0]
    if n_values <= 0.0:
        return False
    cum[:] = 0.0
    n_nonempty = 0
    for b in range(n_bins):
        if hist[b, 0] == 0.0:
            continue
        n_nonempty += 1
        for k in range(nh):
            cum[k] += hist[b, k]
        last = cum[0] >= n_values
        if last and miss[0] == 0.0:
            break
        c, ml = _evaluate(cum, miss, total, min_samples_leaf, min_weight_leaf, criterion, n_out, K, tmp)
        if c < rec[REC_COST]:
            rec[REC_COST] = c
            rec[REC_FEATURE] = f
            rec[REC_MISSING_LEFT] = ml
            if last:
                rec[REC_BIN] = MISSING_BIN - 1
                rec[REC_THRESHOLD] = np.inf
            else:
                rec[REC_BIN] = b
                rec[REC_THRESHOLD] = edges[f, b]
        if last:
            break
    return n_nonempty > 1 or (n_nonempty == 1 and miss[0] > 0.0)


@njit(inline="always")
def _split_small(f, codes, idx, start, end, w, Y, clf, n_out, K, criterion, edges, total, min_samples_leaf,
                 min_weight_leaf, keys, pos, counts, miss, cum, tmp, rec):
    """:func:`_split_histogram`'s result for a small node, by sorting its codes.

    Inlined into :func:`_search`: a call per node and feature, a dozen arrays
    bound on each, was a measurable part of a fully grown tree's fit.
    """
    miss[:] = 0.0
    if end - start <= _INSERTION_MAX:  # tiny nodes: insertion sort (clearing 256 counts would cost more)
        m = 0
        for p in range(start, end):
            c = codes[idx[p]]
            if c == MISSING_BIN:
                _add_split(miss, w[p], Y, p, clf, n_out, K)
                continue
            insert_sorted(keys, pos, m, c, p)
            m += 1
    else:
        # counting sort over the 255 value codes (stable); NaN rows are summed into miss
        counts[:] = 0
        for p in range(start, end):
            counts[codes[idx[p]]] += 1
        m = 0
        for c in range(MISSING_BIN):
            k = counts[c]
            counts[c] = m
            m += k
        for p in range(start, end):
            c = codes[idx[p]]
            if c == MISSING_BIN:
                _add_split(miss, w[p], Y, p, clf, n_out, K)
            else:
                q = counts[c]
                counts[c] = q + 1
                keys[q] = c
                pos[q] = p
    return _finish_small(f, m, keys, pos, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf,
                         min_weight_leaf, edges, cum, tmp, rec)


@njit(inline="always")
def _finish_small(f, m, keys, pos, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf, min_weight_leaf,
                  edges, cum, tmp, rec):
    """The scan of :func:`_split_small` over its ``m`` sorted codes."""
    if not _is_splittable(m, keys, miss):
        return False
    cost, j, ml = _scan_sorted_for(keys, pos, m, miss, total, w, Y, clf, n_out, K, criterion, min_samples_leaf,
                                   min_weight_leaf, cum, tmp)
    if cost < rec[REC_COST]:
        rec[REC_COST] = cost
        rec[REC_FEATURE] = f
        rec[REC_MISSING_LEFT] = ml
        if j == m - 1:
            rec[REC_BIN] = MISSING_BIN - 1
            rec[REC_THRESHOLD] = np.inf
        else:
            b = int(keys[j])
            rec[REC_BIN] = b
            rec[REC_THRESHOLD] = edges[f, b]
    return True


@njit(inline="always")
def _search(Xb, Xf, n_bins, edges, idx, start, end, w, Y, clf, n_out, K, criterion, splitter, total,
            max_features, min_samples_leaf, min_weight_leaf, feats, rng, pool, slot, ready, scratch, bufs, rec,
            n_evals, indexed):
    """Best split of the node ``idx[start:end]`` into ``rec``.

    Features are drawn in a random order, ``max_features`` of them, then
    more while every one drawn was constant in the node (scikit-learn's
    rule); a classification search stops
    at a split whose children are pure in every output (cost 0), unless the
    node's histograms are being built into a pool slot (its children need
    every feature's).  ``bufs`` holds the work arrays ``(keys, raw, pos,
    counts, vals, miss, cum, tmp)``, then ``(dominant, marks, row_ptr,
    row_feat, colbufs)``: with the grower's constant ``indexed`` (codes kept
    in the column index alone, ``Xb`` without columns,
    :func:`.binning.sparse_code_index`; ``colbufs`` from
    :func:`.splitters.hist.column_setup`; pruned when 0), a node's codes of a feature are
    laid out by :func:`.splitters.hist.node_codes`, or, below
    ``SMALL_NODE`` rows, from the node's entries of the row index
    (:func:`.splitters.hist.entry_codes`), where a feature none of them
    lists is constant and is not read: the searches and the tree are those
    of the code matrix.

    Inlined into the grower of :func:`_make_grow_multi`, whose uncounted array aliases
    (:func:`forestzoo._jit.borrow`) then let LLVM drop the reference counting
    of every array an inlined helper binds; called as a function of its own,
    the node search made a call to Numba's counting functions for each of
    them, several per boundary of the small-node scan.  (Python passes more
    than 30 arguments as one tuple, which Numba cannot inline: hence ``bufs``.)
    """
    keys, raw, pos, counts, vals, miss, cum, tmp, dominant, marks, row_ptr, row_feat, colbufs = bufs
    reset_record(rec)
    n_features = feats.shape[0]
    n = end - start
    n_valid = 0
    gathered = False
    n_touched = 0
    if indexed:  # (the grower's constant: pruned before the rest is typed)
        if splitter == HIST and slot < 0 and n < SMALL_NODE:
            gathered = True
            n_touched = gather_node_entries(idx, start, end, row_ptr, row_feat, colbufs[4], marks, colbufs[5],
                                            colbufs[6], colbufs[7], colbufs[8], np.bool_(True))
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        f = draw_feature(feats, j, rng)
        n_evals[0] += n
        if splitter == HIST:
            codes = Xb[f]
            if indexed:
                if not gathered:
                    codes = node_codes(f, colbufs[0], colbufs[1], colbufs[2], colbufs[3], idx, start, end,
                                       dominant[f], colbufs[14], colbufs[15], colbufs[16])
            if slot >= 0:
                h = pool[slot, f]
                if not ready:
                    _build_histogram(codes, idx, start, end, w, Y, clf, n_out, K, n_bins[f], h)
                ok = _split_histogram(f, h, n_bins[f], edges, total, criterion, n_out, K, min_samples_leaf,
                                      min_weight_leaf, cum, miss, tmp, rec)
            elif n < SMALL_NODE:
                if indexed:
                    if marks[f] == 0 and dominant[f] >= 0:
                        continue  # every row of the node holds the dominant code: constant here
                    codes = entry_codes(f, idx, start, end, dominant[f], colbufs[7], colbufs[8],
                                        colbufs[6][f] - marks[f], colbufs[6][f], colbufs[14], colbufs[15], colbufs[16])
                ok = _split_small(f, codes, idx, start, end, w, Y, clf, n_out, K, criterion, edges, total,
                                  min_samples_leaf, min_weight_leaf, keys, pos, counts, miss, cum, tmp, rec)
            else:
                _build_histogram(codes, idx, start, end, w, Y, clf, n_out, K, n_bins[f], scratch[0])
                ok = _split_histogram(f, scratch[0], n_bins[f], edges, total, criterion, n_out, K,
                                      min_samples_leaf, min_weight_leaf, cum, miss, tmp, rec)
        elif splitter == EXACT:
            ok = _split_exact(f, Xf, idx, start, end, w, Y, clf, n_out, K, criterion, total, min_samples_leaf,
                              min_weight_leaf, keys, raw, pos, miss, cum, tmp, rec)
        else:
            ok = _split_random(f, Xf, idx, start, end, w, Y, clf, n_out, K, criterion, total, min_samples_leaf,
                               min_weight_leaf, rng, vals, miss, cum, tmp, rec)
        if ok:
            n_valid += 1
            if clf and slot < 0 and rec[REC_COST] <= 0.0:
                break
    if indexed:
        if gathered:
            clear_node_entries(marks, colbufs[5], n_touched)


@njit
def _rank_outputs(Y, w, start, end, n_out, ycol, ranks, inv, sorted_y, medians):
    """Rank every output's targets over the node ``start:end`` (absolute error); returns ``sum_o AE_o``.

    ``ycol[o, start:end]`` receives output ``o``'s targets in node order (the
    1-D layout of :mod:`.splitters.absolute`); ``ranks[o]``, ``inv[o]`` and
    ``sorted_y[o]`` are :func:`.splitters.absolute.rank_node`'s arrays of
    output ``o`` and ``medians[o]`` its weighted median.
    """
    acc = 0.0
    for o in range(n_out):
        yo = ycol[o]
        for p in range(start, end):
            yo[p] = Y[p, o]
        ae, med = rank_node(yo, w, start, end, ranks[o], inv[o], sorted_y[o])
        medians[o] = med
        acc += ae
    return acc


@njit
def _random_cost_multi(keys, thr, nan_left, go_left, inv, sorted_y, w, start, n, n_out, total, min_samples_leaf,
                       min_weight_leaf):
    """Summed absolute errors of the children of the threshold ``thr`` (NaN rows, keyed +inf, left when
    ``nan_left``) over the outputs; ``(cost, n_left)``, cost +inf when the split is not allowed."""
    n_left = 0
    w_left = 0.0
    for k in range(n):
        v = keys[k]
        g = (v <= thr and v < np.inf) or (nan_left and v == np.inf)
        go_left[k] = g
        n_left += g
        w_left += w[start + k] if g else 0.0
    if not _feasible(n_left, w_left, total, min_samples_leaf, min_weight_leaf):
        return INF, n_left
    w_right = total[1] - w_left
    acc = 0.0
    for o in range(n_out):
        acc += _two_side_errors(go_left, inv[o], sorted_y[o], w, start, n, w_left, w_right)
    return acc, n_left


@njit
def _ordered_errors(order, n, n_out, ranks, sorted_y, w, ycol, start, fw, fwy, buf, pre, suf):
    """``pre[k]`` / ``suf[k]``: summed over the outputs, the absolute error of ``order[:k + 1]`` / ``order[k:]``."""
    pre[:n] = 0.0
    suf[:n] = 0.0
    for o in range(n_out):
        prefix_errors(order, n, ranks[o], sorted_y[o], w, ycol[o], start, n, fw, fwy, buf, False)
        for k in range(n):
            pre[k] += buf[k]
        prefix_errors(order, n, ranks[o], sorted_y[o], w, ycol[o], start, n, fw, fwy, buf, True)
        for k in range(n):
            suf[k] += buf[k]


@njit
def _search_absolute(Xb, Xf, edges, idx, start, end, w, ycol, n_out, splitter, total, max_features,
                     min_samples_leaf, min_weight_leaf, feats, rng, ranks, inv, sorted_y, keys, fw, fwy, buf, pre,
                     suf, go_left, rec, n_evals):
    """Best absolute-error split of the node ``idx[start:end]`` over every output, into ``rec``.

    A split costs the sum over outputs of its children's absolute errors
    (scikit-learn's multi-output absolute error: the mean over outputs of
    each output's mean absolute deviation from its weighted median, times the
    node weight), which ``rec[REC_COST]`` holds divided by ``n_outputs``.
    Call :func:`_rank_outputs` on the node first.  The candidates are those
    of :func:`.splitters.absolute.split_absolute` for the same splitter
    (every midpoint, every bin boundary, or one uniform threshold; NaN rows
    tried on both sides), each output's prefix and suffix errors coming from
    its own Fenwick-tree pass, ``O(n_outputs n log n)`` per feature.
    Features are drawn as in :func:`_search` (the multi-output grower's
    random stream).
    """
    reset_record(rec)
    n = end - start
    n_features = feats.shape[0]
    n_valid = 0
    # distinct splits can cost exactly the same (the error is piecewise linear in the targets): the first in
    # candidate order is kept, and a later one must beat it by more than the rounding of the sums
    scale = 0.0
    for o in range(n_out):
        for p in range(start, end):
            scale += w[p] * abs(ycol[o, p])
    tol = 1e-12 * scale
    for j in range(n_features):
        if j >= max_features and n_valid > 0:
            break
        f = draw_feature(feats, j, rng)
        n_evals[0] += n
        # the feature's values in node order; a NaN (or the missing bin) is keyed +inf, so it sorts last
        lo = np.inf
        hi = -np.inf
        n_nan = 0
        w_nan = 0.0
        for k in range(n):
            if splitter == HIST:
                code = Xb[f, idx[start + k]]
                v = np.nan if code == MISSING_BIN else float(code)
            else:
                v = float(data_value(Xf, f, idx[start + k]))
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
        constant = hi <= lo if splitter == HIST else same_value(lo, hi)
        if constant and n_nan == 0:
            continue
        n_valid += 1
        if splitter == RANDOM:  # one threshold; NaN rows on the cheaper side
            if constant:
                thr = np.inf  # the only split: values vs NaN
            else:
                thr = lo + rng_uniform(rng) * (hi - lo)
                if thr >= hi:
                    thr = lo
            c, n_left = _random_cost_multi(keys, thr, False, go_left, inv, sorted_y, w, start, n, n_out, total,
                                           min_samples_leaf, min_weight_leaf)
            ml = 1.0 if n_nan == 0 and n_left > n - n_left else 0.0
            if n_nan > 0 and thr < np.inf:
                c2, _ = _random_cost_multi(keys, thr, True, go_left, inv, sorted_y, w, start, n, n_out, total,
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
        if splitter == EXACT:
            # scikit-learn's rule (see same_value): a value within 1e-7 of the one before it joins its group
            for p in range(1, m):
                if same_value(vals[p - 1], vals[p]):
                    groups[p] = groups[p - 1]
        # NaN rows right (and, with NaN rows, every value left of them), then NaN rows left
        _ordered_errors(order, n, n_out, ranks, sorted_y, w, ycol, start, fw, fwy, buf, pre, suf)
        c, pos = _scan_groups(groups, m, m if n_nan > 0 else m - 1, order, 0, 0.0, pre, suf, w, start, total,
                              min_samples_leaf, min_weight_leaf, tol)
        ml = 1.0 if n_nan == 0 and pos + 1 > n - pos - 1 else 0.0
        if n_nan > 0 and m > 1:
            order_l = np.concatenate((order[m:], order[:m]))
            _ordered_errors(order_l, n, n_out, ranks, sorted_y, w, ycol, start, fw, fwy, buf, pre, suf)
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
                rec[REC_BIN] = MISSING_BIN - 1 if splitter == HIST else -1.0
                rec[REC_THRESHOLD] = np.inf
            elif splitter == HIST:
                b = int(vals[pos])
                rec[REC_BIN] = b
                rec[REC_THRESHOLD] = edges[f, b]
            else:
                rec[REC_BIN] = -1.0
                rec[REC_THRESHOLD] = midpoint(vals[pos], vals[pos + 1])
    if rec[REC_COST] < INF:
        rec[REC_COST] /= n_out


@njit
def _partition(codes, Xf, splitter, idx, w, Y, start, end, feature, bin_, threshold, missing_left, ibuf, wbuf,
               ybuf, clf, n_out, K, criterion, tot_left, tot_right):
    """Stable in-place partition of ``idx[start:end]`` (``w`` and the rows of ``Y`` travel with it).

    ``codes[i]`` is row ``i``'s code of the split feature (hist).  Sums the children's statistics on the way;
    returns the left size and, for hist, the least code of a row of value going right (``MISSING_BIN``: none).
    """
    tot_left[:] = 0.0
    tot_right[:] = 0.0
    n_left = 0
    n_right = 0
    least_right = MISSING_BIN
    for p in range(start, end):
        i = idx[p]
        if splitter == HIST:
            c = codes[i]
            left = (c <= bin_) if c != MISSING_BIN else missing_left
            if c < least_right and c > bin_:
                least_right = c
        else:
            v = data_value(Xf, feature, i)
            left = (v <= threshold) or (missing_left and v != v)
        wp = w[p]
        if left:
            _add(tot_left, 1.0, wp, Y, p, clf, n_out, K, criterion)
            q = start + n_left
            idx[q] = i
            w[q] = wp
            for o in range(n_out):
                Y[q, o] = Y[p, o]
            n_left += 1
        else:
            _add(tot_right, 1.0, wp, Y, p, clf, n_out, K, criterion)
            ibuf[n_right] = i
            wbuf[n_right] = wp
            for o in range(n_out):
                ybuf[n_right, o] = Y[p, o]
            n_right += 1
    for q in range(n_right):
        idx[start + n_left + q] = ibuf[q]
        w[start + n_left + q] = wbuf[q]
        for o in range(n_out):
            Y[start + n_left + q, o] = ybuf[q, o]
    return n_left, least_right


@njit(inline="always")
def _node_value(s, clf, n_out, K, out):
    w = s[1]
    if clf:
        for k in range(n_out * K):
            out[k] = s[2 + k] / w if w > 0.0 else 0.0
    else:
        for o in range(n_out):
            out[o] = s[2 + o] / w if w > 0.0 else 0.0


def grow_multi_for(indexed):
    """The compiled multi-output grower (:func:`_make_grow_multi`) for codes kept in the column index alone
    (``indexed``) or the others, compiled on first use and cached on disk."""
    key = int(bool(indexed))
    grower = _GROW_MULTI.get(key)
    if grower is None:
        grower = _GROW_MULTI[key] = _make_grow_multi(key)
    return grower


_GROW_MULTI = {}


def _make_grow_multi(INDEXED):
    """The multi-output grower for the closure constant ``INDEXED``: 1 reads the codes of a sparse ``X``
    kept in the column index alone, 0 reads the code matrix (or raw values), and compiles none of the
    index's reading (the tests on ``INDEXED`` are pruned, as :func:`.grower._make_grower`'s on its
    constants)."""

    def grow_multi(Xb, Xf, n_bins, edges, bin_bounds, Y_all, w_all, idx, K, criterion, splitter, max_features, max_depth,
                   min_samples_split, min_samples_leaf, min_weight_leaf, min_impurity_decrease, max_leaf_nodes, rng,
                   pool_slots, n_evals, dominant, row_ptr, row_feat, columns):
        """Grow one multi-output tree; returns ``(node_table, values)`` (the layout of :mod:`.grower`).

        ``Y_all`` is float64 ``(n_samples, n_outputs)``: class codes (``K`` the
        largest number of classes) or targets (``K = 1``).  ``criterion`` is
        GINI, ENTROPY, SQUARED_ERROR, POISSON or ABSOLUTE_ERROR; ``splitter`` HIST,
        EXACT or RANDOM.
        Other arguments as in :func:`.grower._make_grower`'s ``grow_tree``
        (``max_depth`` and ``max_leaf_nodes`` -1 for none); ``pool_slots``
        histogram buffers are kept for the sibling subtraction (hist splitter
        with every feature a candidate, not absolute error; 0 disables).  Growth is depth-first, or
        best-first (largest impurity decrease first) with ``max_leaf_nodes``.
        ``Xb`` has no columns when the codes are kept in the column index alone: ``dominant``, ``row_ptr``,
        ``row_feat`` and ``columns`` are then those of :func:`.binning.sparse_code_index` (not with absolute
        error), else empty arrays and :data:`.builder._NO_COLUMNS`.
        """
        clf = criterion < SQUARED_ERROR
        absolute = criterion == ABSOLUTE_ERROR
        n_out = Y_all.shape[1]
        if not clf:
            K = 1
        n_stats = 2 + n_out * K if clf else 2 + 2 * n_out
        n_hist = 2 + n_out * K if clf else 2 + n_out
        n_values = n_out * K if clf else n_out
        is_hist = splitter == HIST
        n_features = Xb.shape[0] if is_hist else data_n_features(Xf)
        w = w_all[idx]
        n_rows = idx.shape[0]
        Y = np.empty((n_rows, n_out))
        for p in range(n_rows):
            for o in range(n_out):
                Y[p, o] = Y_all[idx[p], o]
        if max_depth < 0:
            max_depth = 1 << 30
        best_first = max_leaf_nodes > 0

        feats = np.arange(n_features)
        n_sort = n_rows if splitter == EXACT else (min(n_rows, SMALL_NODE) if is_hist else 0)
        keys = np.empty(n_sort)
        raw = np.empty(n_sort)
        pos = np.empty(n_sort, np.int64)
        vals = np.empty(n_rows if splitter == RANDOM else 0, np.float32)
        counts = np.empty(MISSING_BIN + 1, np.int64)
        ibuf = np.empty(n_rows, idx.dtype)
        wbuf = np.empty(n_rows)
        ybuf = np.empty((n_rows, n_out))
        tot = np.empty(n_stats)
        miss = np.zeros(n_stats)
        cum = np.zeros(n_stats)
        tmp = np.zeros(n_stats)
        rec = np.empty(REC_SIZE)
        # absolute error searches the rows themselves (per output ranks and Fenwick trees): no histograms
        use_pool = is_hist and pool_slots > 0 and max_features >= n_features and not absolute
        n_ae = n_rows if absolute else 0
        ycol = np.empty((n_out, n_ae))
        ae_ranks = np.empty((n_out, n_ae), np.int64)
        ae_inv = np.empty((n_out, n_ae), np.int64)
        ae_sorted = np.empty((n_out, n_ae))
        ae_keys = np.empty(n_ae)
        ae_fw = np.empty(n_ae + 1)
        ae_fwy = np.empty(n_ae + 1)
        ae_buf = np.empty(n_ae)
        ae_pre = np.empty(n_ae)
        ae_suf = np.empty(n_ae)
        ae_left = np.empty(n_ae, np.bool_)
        medians = np.empty(n_out)
        n_pool = pool_slots if use_pool else 0
        pool = np.empty((n_pool, n_features if use_pool else 0, MISSING_BIN + 1, n_hist))
        scratch = np.empty((n_features if use_pool else 1, MISSING_BIN + 1, n_hist) if is_hist else (0, 0, n_hist))
        free_slots = np.arange(n_pool)[::-1].copy()
        n_free = n_pool

        max_leaves = n_rows if max_leaf_nodes <= 0 else min(n_rows, max_leaf_nodes)
        if max_depth < 40:
            max_leaves = min(max_leaves, 1 << max_depth)
        cap = max(2 * max_leaves - 1, 1)
        table = np.empty((cap, N_COLS))
        values = np.empty((cap, n_values))
        n_nodes = 0
        n_leaves = 0
        # frontier: (node, start, end, slot), its split record, its gain
        fcap = 64
        fr_int = np.empty((fcap, 4), np.int64)
        fr_rec = np.empty((fcap, REC_SIZE))
        fr_gain = np.empty(fcap)
        n_front = 0
        # pending creations: (start, end, depth, parent, is_left, slot, ready)
        pend = np.empty((2, 7), np.int64)
        pend_tot = np.empty((2, n_stats))
        n_pend = 1
        pend[0, 0] = 0
        pend[0, 1] = n_rows
        pend[0, 2] = 0
        pend[0, 3] = -1
        pend[0, 4] = 0
        pend[0, 5] = -1
        pend[0, 6] = 0
        pend_tot[0, :] = 0.0
        for p in range(n_rows):
            _add(pend_tot[0], 1.0, w[p], Y, p, clf, n_out, K, criterion)
        root_weight = pend_tot[0, 1]

        # The node loop works on uncounted aliases (forestzoo._jit.borrow), as the single-output grower's
        # does: every array argument an inlined helper binds would otherwise cost an atomic increment and
        # decrement of its reference count, per node and feature in the small-node search.  The owners
        # stay in use until keep_alive() at the end.
        owners = (Xb, n_bins, edges, bin_bounds, idx, w, Y, rng, n_evals, feats, keys, raw, pos, vals, counts, ibuf,
                  wbuf, ybuf, tot, miss, cum, tmp, rec, ycol, ae_ranks, ae_inv, ae_sorted, ae_keys, ae_fw, ae_fwy,
                  ae_buf, ae_pre, ae_suf, ae_left, medians, pool, scratch, free_slots, table, values, pend, pend_tot)
        Xf_own = Xf
        Xb = borrow(Xb)
        Xf = borrow_data(Xf)
        n_bins = borrow(n_bins)
        edges = borrow(edges)
        bin_bounds = borrow(bin_bounds)
        idx = borrow(idx)
        w = borrow(w)
        Y = borrow(Y)
        rng = borrow(rng)
        n_evals = borrow(n_evals)
        feats = borrow(feats)
        keys = borrow(keys)
        raw = borrow(raw)
        pos = borrow(pos)
        vals = borrow(vals)
        counts = borrow(counts)
        ibuf = borrow(ibuf)
        wbuf = borrow(wbuf)
        ybuf = borrow(ybuf)
        tot = borrow(tot)
        miss = borrow(miss)
        cum = borrow(cum)
        tmp = borrow(tmp)
        rec = borrow(rec)
        ycol = borrow(ycol)
        ae_ranks = borrow(ae_ranks)
        ae_inv = borrow(ae_inv)
        ae_sorted = borrow(ae_sorted)
        ae_keys = borrow(ae_keys)
        ae_fw = borrow(ae_fw)
        ae_fwy = borrow(ae_fwy)
        ae_buf = borrow(ae_buf)
        ae_pre = borrow(ae_pre)
        ae_suf = borrow(ae_suf)
        ae_left = borrow(ae_left)
        medians = borrow(medians)
        pool = borrow(pool)
        scratch = borrow(scratch)
        free_slots = borrow(free_slots)
        table = borrow(table)
        values = borrow(values)
        pend = borrow(pend)
        pend_tot = borrow(pend_tot)
        # codes kept in the column index alone: each row's position in idx, kept up to date by every partition
        if INDEXED:
            if not is_hist or Xb.shape[1] != 0:
                raise ValueError("the indexed multi-output grower reads hist codes kept in the column index alone")
            colbufs_own = column_setup(True, columns, row_ptr, idx, n_stats, True)
            colbufs = (borrow(colbufs_own[0]), borrow(colbufs_own[1]), borrow(colbufs_own[2]),
                       borrow(colbufs_own[3]), borrow(colbufs_own[4]), borrow(colbufs_own[5]),
                       borrow(colbufs_own[6]), borrow(colbufs_own[7]), borrow(colbufs_own[8]),
                       borrow(colbufs_own[9]), borrow(colbufs_own[10]), borrow(colbufs_own[11]),
                       borrow(colbufs_own[12]), borrow(colbufs_own[13]), borrow(colbufs_own[14]),
                       borrow(colbufs_own[15]), borrow(colbufs_own[16]))
            row_pos = colbufs[3]
            marks_own = np.zeros(n_features, np.int32)
        else:
            colbufs_own = ()
            colbufs = ()
            row_pos = np.zeros(0, np.int64)
            marks_own = np.zeros(0, np.int32)
        index_own = (dominant, row_ptr, row_feat, marks_own)
        bufs = (keys, raw, pos, counts, vals, miss, cum, tmp, borrow(dominant), borrow(marks_own), borrow(row_ptr),
                borrow(row_feat), colbufs)
        no_codes = np.zeros(0, np.uint8)

        while True:
            for q in range(n_pend):
                start = pend[q, 0]
                end = pend[q, 1]
                depth = pend[q, 2]
                parent = pend[q, 3]
                slot = pend[q, 5]
                ready = pend[q, 6]
                n = end - start
                for k in range(n_stats):
                    tot[k] = pend_tot[q, k]
                node = n_nodes
                n_nodes += 1
                n_leaves += 1
                if parent >= 0:
                    table[parent, COL_LEFT if pend[q, 4] == 1 else COL_RIGHT] = node
                if absolute:
                    wimp = _rank_outputs(Y, w, start, end, n_out, ycol, ae_ranks, ae_inv, ae_sorted, medians) / n_out
                else:
                    wimp = weighted_impurity_multi(tot, criterion, n_out, K)
                table[node, COL_LEFT] = -1
                table[node, COL_RIGHT] = -1
                table[node, COL_FEATURE] = -1
                table[node, COL_THRESHOLD] = 0.0
                table[node, COL_MISSING_LEFT] = 0
                table[node, COL_DEPTH] = depth
                table[node, COL_N_SAMPLES] = n
                table[node, COL_WEIGHTED_N] = tot[1]
                table[node, COL_IMPURITY] = wimp / tot[1]
                table[node, COL_IMPROVEMENT] = 0.0
                table[node, COL_OBLIQUE] = -1
                if absolute:
                    for o in range(n_out):
                        values[node, o] = medians[o]
                else:
                    _node_value(tot, clf, n_out, K, values[node])
                leaf = (depth >= max_depth or n < min_samples_split or n < 2 * min_samples_leaf
                        or tot[1] < 2.0 * min_weight_leaf or wimp / tot[1] <= _DBL_EPS)
                gain = 0.0
                if not leaf:
                    if use_pool and slot < 0 and n >= SMALL_NODE and n_free > 0:
                        n_free -= 1
                        slot = free_slots[n_free]
                        ready = 0
                    if absolute:
                        _search_absolute(Xb, Xf, edges, idx, start, end, w, ycol, n_out, splitter, tot, max_features,
                                         min_samples_leaf, min_weight_leaf, feats, rng, ae_ranks, ae_inv, ae_sorted,
                                         ae_keys, ae_fw, ae_fwy, ae_buf, ae_pre, ae_suf, ae_left, rec, n_evals)
                    else:
                        _search(Xb, Xf, n_bins, edges, idx, start, end, w, Y, clf, n_out, K, criterion, splitter, tot,
                                max_features, min_samples_leaf, min_weight_leaf, feats, rng, pool, slot, ready == 1,
                                scratch, bufs, rec, n_evals, INDEXED)
                    gain = wimp - rec[REC_COST]
                    leaf = rec[REC_COST] == np.inf or gain / root_weight < min_impurity_decrease - 1e-12
                if leaf:
                    if slot >= 0:
                        free_slots[n_free] = slot
                        n_free += 1
                    continue
                if n_front == fcap:
                    fr_int2 = np.empty((2 * fcap, 4), np.int64)
                    fr_rec2 = np.empty((2 * fcap, REC_SIZE))
                    fr_gain2 = np.empty(2 * fcap)
                    fr_int2[:fcap] = fr_int
                    fr_rec2[:fcap] = fr_rec
                    fr_gain2[:fcap] = fr_gain
                    fr_int, fr_rec, fr_gain = fr_int2, fr_rec2, fr_gain2
                    fcap *= 2
                fr_int[n_front, 0] = node
                fr_int[n_front, 1] = start
                fr_int[n_front, 2] = end
                fr_int[n_front, 3] = slot
                for k in range(REC_SIZE):
                    fr_rec[n_front, k] = rec[k]
                fr_gain[n_front] = gain
                n_front += 1
            n_pend = 0
            if n_front == 0 or (best_first and n_leaves >= max_leaf_nodes):
                break
            e = n_front - 1
            if best_first:
                for q in range(n_front - 1):
                    if fr_gain[q] > fr_gain[e]:
                        e = q
            node = fr_int[e, 0]
            start = fr_int[e, 1]
            end = fr_int[e, 2]
            slot = fr_int[e, 3]
            for k in range(REC_SIZE):
                rec[k] = fr_rec[e, k]
            gain = fr_gain[e]
            if e != n_front - 1:
                for k in range(4):
                    fr_int[e, k] = fr_int[n_front - 1, k]
                for k in range(REC_SIZE):
                    fr_rec[e, k] = fr_rec[n_front - 1, k]
                fr_gain[e] = fr_gain[n_front - 1]
            n_front -= 1

            feature = int(rec[REC_FEATURE])
            ml = rec[REC_MISSING_LEFT] > 0.5
            codes = no_codes
            if splitter == HIST:
                codes = Xb[feature]
                if INDEXED:
                    codes = node_codes(feature, colbufs[0], colbufs[1], colbufs[2], row_pos, idx, start, end,
                                       dominant[feature], colbufs[14], colbufs[15], colbufs[16])
            n_left, least_right = _partition(codes, Xf, splitter, idx, w, Y, start, end, feature, int(rec[REC_BIN]),
                                             rec[REC_THRESHOLD], ml, ibuf, wbuf, ybuf, clf, n_out, K, criterion,
                                             pend_tot[0], pend_tot[1])
            if INDEXED:
                for p in range(start, end):
                    row_pos[idx[p]] = p
            mid = start + n_left
            table[node, COL_FEATURE] = feature
            threshold = rec[REC_THRESHOLD]
            if splitter == HIST:  # halfway between the values on the two sides (binning.split_threshold)
                threshold = split_threshold(bin_bounds, edges, feature, int(rec[REC_BIN]), least_right, threshold)
            table[node, COL_THRESHOLD] = threshold
            table[node, COL_MISSING_LEFT] = 1.0 if ml else 0.0
            table[node, COL_IMPROVEMENT] = gain
            n_leaves -= 1
            depth = int(table[node, COL_DEPTH]) + 1

            # sibling subtraction: the smaller child's histograms are built, the larger's are parent - smaller
            left_slot = -1
            right_slot = -1
            left_ready = 0
            right_ready = 0
            if slot >= 0:
                n_right = end - mid
                small_left = n_left <= n_right
                s_start, s_end = (start, mid) if small_left else (mid, end)
                n_small = s_end - s_start
                n_large = (end - start) - n_small
                if n_large >= SMALL_NODE and depth < max_depth and n_large >= min_samples_split:
                    s_slot = -1
                    if n_small >= SMALL_NODE and n_free > 0:
                        n_free -= 1
                        s_slot = free_slots[n_free]
                    target = pool[s_slot] if s_slot >= 0 else scratch
                    for f in range(n_features):
                        codes = Xb[f]
                        if INDEXED:
                            codes = node_codes(f, colbufs[0], colbufs[1], colbufs[2], row_pos, idx, s_start, s_end,
                                               dominant[f], colbufs[14], colbufs[15], colbufs[16])
                        _build_histogram(codes, idx, s_start, s_end, w, Y, clf, n_out, K, n_bins[f], target[f])
                    n_evals[0] += n_small * n_features
                    _subtract_histograms(pool[slot], target, n_bins)
                    if small_left:
                        left_slot, right_slot = s_slot, slot
                    else:
                        left_slot, right_slot = slot, s_slot
                    left_ready = 1 if left_slot >= 0 else 0
                    right_ready = 1 if right_slot >= 0 else 0
                else:
                    free_slots[n_free] = slot
                    n_free += 1
            pend[0, 0] = start
            pend[0, 1] = mid
            pend[0, 2] = depth
            pend[0, 3] = node
            pend[0, 4] = 1
            pend[0, 5] = left_slot
            pend[0, 6] = left_ready
            pend[1, 0] = mid
            pend[1, 1] = end
            pend[1, 2] = depth
            pend[1, 3] = node
            pend[1, 4] = 0
            pend[1, 5] = right_slot
            pend[1, 6] = right_ready
            n_pend = 2
        out_table = table[:n_nodes].copy()
        out_values = values[:n_nodes].copy()
        keep_alive((owners, Xf_own, colbufs_own, index_own))
        return out_table, out_values

    grow_multi.__qualname__ = "grow_multi" + ("_indexed" if INDEXED else "")
    return njit(grow_multi)
