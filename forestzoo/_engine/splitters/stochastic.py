"""Stochastic split search (``splitter="stochastic"``): SDT, Steps 1-5 of
"Stochastic induction of decision trees with application to learning Haar
tree" (Section 3).

At a node of ``N_j`` rows the search keeps a *working set* ``S_t`` of rows
and a set ``D^t`` of surviving features.  Each round moves
``max(N_0, N_j / 2^C)`` random rows of the node into the working set
(Step 1), scores every surviving feature by its best weighted impurity over
thresholds on the working set only (Step 2, Eq. 3), and discards the worse
half of the features (Step 3).  After ``alpha`` rounds (Step 4), or once no
more than ``min_features_fraction`` of the candidates survive, the exact
CART search runs on the whole node for the survivors only (Step 5, Eq. 2).

The working set of every surviving feature is kept sorted across rounds, as
Section 3 suggests ("keep the samples in S_t sorted"): a round sorts only the
newly drawn rows of a feature and merges them into that feature's sorted run,
so Step 2 costs ``O(|S_t|)`` per feature plus the sort of the new rows.  The
runs of the survivors are compacted after every round into one of two
ping-pong buffers, so memory is ``O(max_k |D^t_k| |S_t^k|) <= O(D N_0)``.

Fallback (documented, not in the paper): the schedule of a node is planned
before it runs (:func:`sdt_plan`).  When the node is too small for a single
round (``N_j <= N_0``, the working set would be the whole node) or when the
planned (row, feature) evaluations of Steps 1-5 are not fewer than those of
the exact search, the exact search runs instead: on small nodes SDT would
read more values than CART and lose accuracy for nothing.

``params`` is a float64 vector ``[C, alpha, min_features_fraction, N_0]``.
``n_evals[0]`` is increased by the (row, feature) pairs read -- per round,
the size of the working set for every surviving feature; in Step 5, the
node's size for every survivor -- the complexity measure of the paper's
Figures 1-2.

The pieces (:func:`sdt_plan`, :func:`sdt_draw`, :func:`sdt_score_feature_cls`
and ``_reg``, :func:`sdt_keep_best`) are shared with other feature sources: the Haar-tree
search of :mod:`forestzoo.tree._haar_search` runs the same rounds over
features it computes on demand.
"""

import numpy as np

from ..._jit import borrow, keep_alive, njit
from ..data import value
from ..rng import rng_randint
from ._common import (
    REC_COST, add_sample_for, draw_feature, is_perfect_split_for, scan_sorted_cls, scan_sorted_reg,
)
from .exact import split_exact_cls, split_exact_reg

P_C, P_ALPHA, P_MIN_FRACTION, P_N0 = 0, 1, 2, 3
_INSERTION_MAX = 16


@njit
def sdt_plan(n, n_cand, params):
    """Schedule of the SDT search on a node of ``n`` rows and ``n_cand`` features.

    Returns ``(batch, n_rounds, min_keep, planned_evals, cap)``: rows drawn
    per round (Step 1), rounds to run (0: use the exact search), least number
    of features kept, (row, feature) evaluations Steps 1-5 will make, and
    the largest ``|D^t| * |S_t|`` of any round (size of a run buffer).
    """
    batch = max(int(params[P_N0]), n >> int(params[P_C]))
    alpha = int(params[P_ALPHA])
    min_keep = max(1, int(np.ceil(params[P_MIN_FRACTION] * n_cand)))
    alive = n_cand
    ws = 0
    rounds = 0
    evals = 0
    cap = 0
    while rounds < alpha and alive > min_keep and ws + batch < n:
        ws += batch
        evals += alive * ws
        cap = max(cap, alive * ws)
        alive = max(min_keep, (alive + 1) // 2)
        rounds += 1
    evals += alive * n
    if rounds == 0 or evals >= n_cand * n:
        return batch, 0, min_keep, n_cand * n, 0
    return batch, rounds, min_keep, evals, cap


@njit
def sdt_draw(perm, ws, batch, rng):
    """Step 1: move ``batch`` random rows of the rest of the node into the working set.

    ``perm`` holds the node's positions; ``perm[:ws]`` is the working set.
    A partial Fisher-Yates shuffle makes ``perm[ws:ws + batch]`` the new rows.
    """
    n = perm.shape[0]
    for q in range(ws, ws + batch):
        r = q + rng_randint(rng, n - q)
        t = perm[q]
        perm[q] = perm[r]
        perm[r] = t


@njit(inline="always")
def _swap(keys, pos, a, b):
    t = keys[a]
    keys[a] = keys[b]
    keys[b] = t
    u = pos[a]
    pos[a] = pos[b]
    pos[b] = u


@njit(inline="always")
def _insertion(keys, pos, lo, hi):
    for a in range(lo + 1, hi):
        k = keys[a]
        p = pos[a]
        b = a - 1
        while b >= lo and keys[b] > k:
            keys[b + 1] = keys[b]
            pos[b + 1] = pos[b]
            b -= 1
        keys[b + 1] = k
        pos[b + 1] = p


@njit
def _heapsort(keys, pos, lo, hi):
    m = hi - lo
    for root in range(m // 2 - 1, -1, -1):
        _sift(keys, pos, lo, root, m)
    for end in range(m - 1, 0, -1):
        _swap(keys, pos, lo, lo + end)
        _sift(keys, pos, lo, 0, end)


@njit(inline="always")
def _sift(keys, pos, lo, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and keys[lo + child + 1] > keys[lo + child]:
            child += 1
        if keys[lo + root] >= keys[lo + child]:
            return
        _swap(keys, pos, lo + root, lo + child)
        root = child


@njit
def sort_pairs(keys, pos, m):
    """Sort ``keys[:m]`` ascending, moving ``pos`` along; no allocation.

    Introsort: quicksort with a median-of-three pivot on an explicit stack,
    insertion sort below ``_INSERTION_MAX`` keys, heapsort for a range that
    recurses too deep.  Not stable: rows with equal keys are never separated
    by a split, so their order does not matter.
    """
    if m <= _INSERTION_MAX:
        _insertion(keys, pos, 0, m)
        return
    stack = np.empty((128, 3), np.int64)
    depth_limit = 2 * int(np.log2(m)) + 2
    n_stack = 1
    stack[0, 0] = 0
    stack[0, 1] = m
    stack[0, 2] = 0
    while n_stack > 0:
        n_stack -= 1
        lo = stack[n_stack, 0]
        hi = stack[n_stack, 1]
        depth = stack[n_stack, 2]
        while hi - lo > _INSERTION_MAX:
            if depth >= depth_limit:
                _heapsort(keys, pos, lo, hi)
                lo = hi
                break
            depth += 1
            mid = (lo + hi) >> 1
            if keys[mid] < keys[lo]:
                _swap(keys, pos, mid, lo)
            if keys[hi - 1] < keys[lo]:
                _swap(keys, pos, hi - 1, lo)
            if keys[hi - 1] < keys[mid]:
                _swap(keys, pos, hi - 1, mid)
            pivot = keys[mid]
            i = lo
            j = hi - 1
            while i <= j:  # Hoare partition
                while keys[i] < pivot:
                    i += 1
                while keys[j] > pivot:
                    j -= 1
                if i <= j:
                    _swap(keys, pos, i, j)
                    i += 1
                    j -= 1
            # push the larger part, loop on the smaller: the stack stays O(log m)
            if j + 1 - lo > hi - i:
                stack[n_stack, 0] = lo
                stack[n_stack, 1] = j + 1
                stack[n_stack, 2] = depth
                n_stack += 1
                lo = i
            else:
                stack[n_stack, 0] = i
                stack[n_stack, 1] = hi
                stack[n_stack, 2] = depth
                n_stack += 1
                hi = j + 1
        _insertion(keys, pos, lo, hi)


@njit(inline="always")
def _sdt_score_feature(new_keys, new_pos, m_batch, src_keys, src_pos, src_off, src_len, dst_keys, dst_pos, dst_off,
                       miss, ws_total, w, yk, yr, criterion, cum, tmp, reg):
    """Step 2 for one feature: merge its new rows into its sorted run and score it.

    ``new_keys[:m_batch]`` are the feature's values on the rows just drawn
    (node positions ``new_pos``), NaN included; they are sorted in place.
    The feature's run ``src_*[src_off:src_off + src_len]`` is merged with
    them into ``dst_*[dst_off:]``; NaN rows are added to ``miss`` (the
    feature's NaN statistics over the working set).  Returns ``(score,
    run_length)``, the score being the best weighted impurity over
    thresholds on the working set (Eq. 3, ``(FI_p^k)^-1`` up to the constant
    ``|S_t|``); +inf when the feature is constant on the working set.
    ``reg``: whether ``criterion`` is a regression one (a constant in
    :func:`sdt_score_feature_cls` and :func:`sdt_score_feature_reg`).
    """
    m = np.int64(0)  # not a literal: sort_pairs is then compiled for int64 alone (see splitters.exact)
    for q in range(m_batch):
        v = new_keys[q]
        p = new_pos[q]
        if v != v:
            add_sample_for(miss, 1.0, w[p], yk[p], yr[p], criterion, reg)
        else:
            new_keys[m] = v
            new_pos[m] = p
            m += 1
    sort_pairs(new_keys, new_pos, m)
    # merge: old run first on ties
    a = 0
    b = 0
    q = dst_off
    while a < src_len and b < m:
        if new_keys[b] < src_keys[src_off + a]:
            dst_keys[q] = new_keys[b]
            dst_pos[q] = new_pos[b]
            b += 1
        else:
            dst_keys[q] = src_keys[src_off + a]
            dst_pos[q] = src_pos[src_off + a]
            a += 1
        q += 1
    while a < src_len:
        dst_keys[q] = src_keys[src_off + a]
        dst_pos[q] = src_pos[src_off + a]
        a += 1
        q += 1
    while b < m:
        dst_keys[q] = new_keys[b]
        dst_pos[q] = new_pos[b]
        b += 1
        q += 1
    length = q - dst_off
    if length == 0 or not (dst_keys[q - 1] > dst_keys[dst_off] or miss[0] > 0.0):
        return np.inf, length
    if reg:
        cost, _, _ = scan_sorted_reg(dst_keys[dst_off:q], dst_pos[dst_off:q], length, miss, ws_total, w, yk, yr,
                                     np.int64(1), 0.0, criterion, cum, tmp, 0.0, -np.inf, np.inf)
    else:
        # min_samples_leaf as an int64, as the other callers pass it: a literal 1 would compile the scan once more
        cost, _, _ = scan_sorted_cls(dst_keys[dst_off:q], dst_pos[dst_off:q], length, miss, ws_total, w, yk, yr,
                                     np.int64(1), 0.0, criterion, cum, tmp, 0.0, -np.inf, np.inf)
    return cost, length


@njit
def sdt_score_feature_cls(new_keys, new_pos, m_batch, src_keys, src_pos, src_off, src_len, dst_keys, dst_pos, dst_off,
                          miss, ws_total, w, yk, yr, criterion, cum, tmp):
    """:func:`_sdt_score_feature` for a classification criterion."""
    return _sdt_score_feature(new_keys, new_pos, m_batch, src_keys, src_pos, src_off, src_len, dst_keys, dst_pos,
                              dst_off, miss, ws_total, w, yk, yr, criterion, cum, tmp, False)


@njit
def sdt_score_feature_reg(new_keys, new_pos, m_batch, src_keys, src_pos, src_off, src_len, dst_keys, dst_pos, dst_off,
                          miss, ws_total, w, yk, yr, criterion, cum, tmp):
    """:func:`_sdt_score_feature` for a regression criterion."""
    return _sdt_score_feature(new_keys, new_pos, m_batch, src_keys, src_pos, src_off, src_len, dst_keys, dst_pos,
                              dst_off, miss, ws_total, w, yk, yr, criterion, cum, tmp, True)


@njit
def sdt_keep_best(score, feats, slot, alive, min_keep):
    """Step 3: reorder ``feats[:alive]`` (and their ``slot``) by score, best first; returns how many survive.

    The better half survives (lower weighted impurity = higher importance
    ``FI``), never fewer than ``min_keep``.  Ties keep their order.
    """
    order = np.argsort(score[:alive], kind="mergesort")
    new_feats = feats[:alive][order]
    new_slot = slot[:alive][order]
    feats[:alive] = new_feats
    slot[:alive] = new_slot
    return max(min_keep, (alive + 1) // 2)


@njit(inline="always")
def _split_stochastic(
    Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, max_features,
    feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals, reg,
):
    """Best split of the node ``idx[start:end]`` by the SDT search; updates ``rec``.

    ``feats`` is the tree's feature permutation buffer; ``max_features``
    candidates are drawn from it at random (all when it is the feature
    count).  ``keys``/``samples`` are sort buffers of the node's size.
    ``reg``: whether ``criterion`` is a regression one (a constant in
    :func:`split_stochastic_cls` and :func:`split_stochastic_reg`).
    """
    n = end - start
    n_features = feats.shape[0]
    n_cand = min(max_features, n_features)
    for j in range(n_cand):
        draw_feature(feats, j, rng)
    batch, n_rounds, min_keep, _, cap = sdt_plan(n, n_cand, params)
    alive = n_cand
    if n_rounds > 0:
        perm = np.arange(start, end)  # node positions; perm[:ws] is the working set S_t
        run_keys = np.empty((2, cap), np.float64)  # ping-pong buffers of the sorted runs
        run_pos = np.empty((2, cap), np.int64)
        run_miss = np.zeros((n_cand, total.shape[0]))  # NaN statistics on S_t, per candidate
        new_keys = np.empty(batch, np.float64)
        new_pos = np.empty(batch, np.int64)
        score = np.empty(n_cand)
        slot = np.arange(n_cand)  # candidate index of feats[a]: its run and NaN statistics
        run_at = np.zeros(n_cand, np.int64)  # where candidate s's run starts in the source buffer
        run_len = np.zeros(n_cand, np.int64)
        ws_total = np.zeros(total.shape[0])
        owners = (perm, run_keys, run_pos, run_miss, new_keys, new_pos, score, slot, run_at, run_len, ws_total)
        # uncounted aliases for the per-feature calls (forestzoo._jit.borrow); owners live until keep_alive
        perm, run_keys, run_pos, run_miss, new_keys, new_pos = (borrow(perm), borrow(run_keys), borrow(run_pos),
                                                                borrow(run_miss), borrow(new_keys), borrow(new_pos))
        score, slot, run_at, run_len, ws_total = (borrow(score), borrow(slot), borrow(run_at), borrow(run_len),
                                                  borrow(ws_total))
        ws = 0
        src = 0
        for _ in range(n_rounds):
            sdt_draw(perm, ws, batch, rng)  # Step 1
            for q in range(ws, ws + batch):
                p = perm[q]
                add_sample_for(ws_total, 1.0, w[p], yk[p], yr[p], criterion, reg)
            stride = ws + batch
            for a in range(alive):  # Step 2 (Eq. 3)
                f = feats[a]
                s = slot[a]
                for q in range(batch):
                    p = perm[ws + q]
                    new_keys[q] = value(Xf, f, idx[p])
                    new_pos[q] = p
                if reg:
                    score[a], length = sdt_score_feature_reg(
                        new_keys, new_pos, batch, run_keys[src], run_pos[src], run_at[s], run_len[s],
                        run_keys[1 - src], run_pos[1 - src], a * stride, run_miss[s], ws_total, w, yk, yr, criterion,
                        cum, tmp)
                else:
                    score[a], length = sdt_score_feature_cls(
                        new_keys, new_pos, batch, run_keys[src], run_pos[src], run_at[s], run_len[s],
                        run_keys[1 - src], run_pos[1 - src], a * stride, run_miss[s], ws_total, w, yk, yr, criterion,
                        cum, tmp)
                run_at[s] = a * stride
                run_len[s] = length
                n_evals[0] += stride
            ws = stride
            src = 1 - src
            alive = sdt_keep_best(score, feats, slot, alive, min_keep)  # Step 3
        keep_alive(owners)
    # Step 5: the exact search over the whole node for the survivors (Eq. 2); like the exact
    # splitter's, it stops at a classification split with two pure children
    for a in range(alive):
        if reg:
            split_exact_reg(feats[a], Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf,
                            criterion, keys, samples, miss, cum, tmp, rec, 0.0, -np.inf, np.inf)
        else:
            split_exact_cls(feats[a], Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf,
                            criterion, keys, samples, miss, cum, tmp, rec, 0.0, -np.inf, np.inf)
        n_evals[0] += n
        if is_perfect_split_for(rec[REC_COST], reg):
            break


@njit
def split_stochastic_cls(
    Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, max_features,
    feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals,
):
    """:func:`_split_stochastic` for a classification criterion."""
    _split_stochastic(Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion,
                      max_features, feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals, False)


@njit
def split_stochastic_reg(
    Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, max_features,
    feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals,
):
    """:func:`_split_stochastic` for a regression criterion."""
    _split_stochastic(Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion,
                      max_features, feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals, True)
