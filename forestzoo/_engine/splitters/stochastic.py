"""Stochastic split search (``splitter="stochastic"``): SDT, Steps 1-5 of
"Stochastic induction of decision trees with application to learning Haar
tree" (seed 004, Section 3).

At a node of ``N_j`` rows the search keeps a *working set* of rows and a set
of surviving features.  Each round moves ``N_j / 2^C`` random rows (at least
``N_0``) into the working set (Step 1), scores every surviving feature by its
best impurity over thresholds on the working set only (Step 2, Eq. 3), and
discards the worse half of the features (Step 3).  After ``alpha`` rounds
(Step 4), or once no more than ``min_features_fraction`` of the candidates
survive, the exact CART search runs on the whole node for the survivors only
(Step 5, Eq. 2).  Nodes too small for two rounds of sampling get the exact
search directly.

The working set of every surviving feature is kept sorted across rounds, as
the paper suggests: a round sorts only its newly drawn rows and merges them
into the feature's sorted run, so Step 2 costs ``O(|S_t|)`` per feature and
round plus the sort of the new rows.

``params`` is a float64 vector ``[C, alpha, min_features_fraction, N_0]``.
``n_evals[0]`` is increased by the number of (row, feature) evaluations made,
the complexity measure of the paper's Figures 1-2.
"""

import numpy as np

from ..._jit import njit
from ..rng import rng_randint
from ._common import add_sample, scan_sorted
from .exact import split_exact

P_C, P_ALPHA, P_MIN_FRACTION, P_N0 = 0, 1, 2, 3


@njit
def _merge_new(run_keys, run_pos, m_old, new_keys, new_pos, m_new, out_keys, out_pos):
    """Merge the sorted run ``[:m_old]`` with the sorted new rows (stable: old first on ties)."""
    a = 0
    b = 0
    q = 0
    while a < m_old and b < m_new:
        if new_keys[b] < run_keys[a]:
            out_keys[q] = new_keys[b]
            out_pos[q] = new_pos[b]
            b += 1
        else:
            out_keys[q] = run_keys[a]
            out_pos[q] = run_pos[a]
            a += 1
        q += 1
    while a < m_old:
        out_keys[q] = run_keys[a]
        out_pos[q] = run_pos[a]
        a += 1
        q += 1
    while b < m_new:
        out_keys[q] = new_keys[b]
        out_pos[q] = new_pos[b]
        b += 1
        q += 1
    return q


@njit
def split_stochastic(
    Xf, idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf, criterion, max_features,
    feats, rng, params, keys, samples, miss, cum, tmp, rec, n_evals,
):
    """Best split of the node ``idx[start:end]`` by the SDT search; updates ``rec``.

    ``feats`` is the tree's feature permutation buffer; ``max_features``
    candidates are drawn from it at random (all when it is the feature
    count).  ``keys``/``samples`` are sort buffers of the node's size.
    """
    n = end - start
    n_features = feats.shape[0]
    n_cand = min(max_features, n_features)
    for j in range(n_cand):
        r = j + rng_randint(rng, n_features - j)
        f = feats[r]
        feats[r] = feats[j]
        feats[j] = f
    batch = max(int(params[P_N0]), n >> int(params[P_C]))
    alpha = int(params[P_ALPHA])
    min_keep = max(1, int(np.ceil(params[P_MIN_FRACTION] * n_cand)))
    alive = n_cand

    if 2 * batch < n and alive > min_keep and alpha > 0:
        # positions of the node in random order: the first `ws` are the working set
        perm = np.arange(start, end)
        # per surviving feature: its working set sorted by value (NaN rows kept apart);
        # the working set never exceeds alpha rounds of `batch` rows
        cap = min(n, alpha * batch)
        run_keys = np.empty((n_cand, cap), np.float64)
        run_pos = np.empty((n_cand, cap), np.int64)
        run_len = np.zeros(n_cand, np.int64)
        run_miss = np.zeros((n_cand, total.shape[0]))
        new_keys = np.empty(batch, np.float64)
        new_pos = np.empty(batch, np.int64)
        out_keys = np.empty(cap, np.float64)
        out_pos = np.empty(cap, np.int64)
        score = np.empty(n_cand)
        slot = np.arange(n_cand)  # row of run_* that holds feature feats[a]
        ws_total = np.zeros(total.shape[0])
        ws = 0
        rounds = 0
        while rounds < alpha and alive > min_keep and ws + batch < n:
            # Step 1: draw `batch` new rows (partial Fisher-Yates over the rest of the node)
            for q in range(ws, ws + batch):
                r = q + rng_randint(rng, n - q)
                t = perm[q]
                perm[q] = perm[r]
                perm[r] = t
                p = perm[q]
                add_sample(ws_total, 1.0, w[p], yk[p], yr[p], criterion)
            # Step 2: score the surviving features on the working set (Eq. 3)
            for a in range(alive):
                f = feats[a]
                s = slot[a]
                m_new = 0
                for q in range(ws, ws + batch):
                    p = perm[q]
                    v = Xf[f, idx[p]]
                    if v != v:
                        add_sample(run_miss[s], 1.0, w[p], yk[p], yr[p], criterion)
                    else:
                        new_keys[m_new] = v
                        new_pos[m_new] = p
                        m_new += 1
                order = np.argsort(new_keys[:m_new], kind="mergesort")
                sk = new_keys[:m_new][order]
                sp = new_pos[:m_new][order]
                m = _merge_new(run_keys[s], run_pos[s], run_len[s], sk, sp, m_new, out_keys, out_pos)
                run_keys[s, :m] = out_keys[:m]
                run_pos[s, :m] = out_pos[:m]
                run_len[s] = m
                n_evals[0] += batch
                if m == 0 or not (out_keys[m - 1] > out_keys[0] or run_miss[s, 0] > 0.0):
                    score[a] = np.inf  # constant on the working set: ranked last
                    continue
                cost, _, _ = scan_sorted(out_keys, out_pos, m, run_miss[s], ws_total, w, yk, yr, 1, 0.0,
                                         criterion, cum, tmp)
                score[a] = cost / ws_total[1]
            ws += batch
            rounds += 1
            # Step 3: keep the better half (lower weighted impurity = higher importance)
            order = np.argsort(score[:alive], kind="mergesort")
            kept = max(min_keep, (alive + 1) // 2)
            new_feats = feats[:alive][order].copy()
            new_slot = slot[:alive][order].copy()
            feats[:alive] = new_feats
            slot[:alive] = new_slot
            alive = kept
    # Step 5: the exact search over the whole node for the survivors (Eq. 2)
    for a in range(alive):
        split_exact(feats[a], Xf[feats[a]], idx, start, end, w, yk, yr, total, min_samples_leaf, min_weight_leaf,
                    criterion, keys, samples, miss, cum, tmp, rec)
        n_evals[0] += n
