"""SDT over the Haar bank: the node model that grows a Haar tree on the engine.

At every node the grower asks :class:`HaarNodeModel` for a split.  The
model runs Steps 1-5 of the SDT search (Section 3) over the whole
Haar bank with :func:`haar_sdt_search`, whose rounds are those of the
engine's stochastic splitter (:mod:`forestzoo._engine.splitters.stochastic`:
the same schedule and fallback, sorted runs merged across rounds, halving,
exact final search); only the feature values differ, computed here on demand
from the integral images of the node's rows, never materialised for the
dataset.  The winning feature goes back to the grower as an oblique
projection over integral-image entries (:meth:`NodeModel.propose`), so the
fitted tree is predicted by the engine's one predictor.

The bank is large (123,008 features on 28 x 28 images), so the features of a
round, and the survivors of Step 5, are scored in contiguous chunks on
threads (the kernels release the GIL).  The random draws (Step 1) and the
halving (Step 3) stay on the calling thread and chunks are combined in
feature order, so the tree does not depend on the number of threads.
"""

import numpy as np

from .._engine.api import (
    NODE_LEAF, NODE_OBLIQUE, NodeModel, add_sample, make_state, scan_sorted_cls, sdt_draw, sdt_keep_best, sdt_plan,
    sdt_score_feature_cls, sort_pairs,
)
from .._jit import borrow, keep_alive, njit
from ._haar_bank import haar_value

_CHUNK = 64  # survivors evaluated together in Step 5 (rows outer, features inner)
_SMALL = 256  # below this many rows Step 5 sorts without allocating


@njit
def _gather(II, rows, perm, ws, batch, w, yk, yr, criterion, batch_II, ws_total):
    """Step 1's new rows: their integral images side by side (they stay in cache), their statistics added."""
    for q in range(batch):
        p = perm[ws + q]
        add_sample(ws_total, 1.0, w[p], yk[p], yr[p], criterion)
        batch_II[q] = II[rows[p]]


@njit
def _score_range(batch_II, perm, ws, batch, feats, slot, a0, a1, ptr, index, coef, run_keys, run_pos, src, run_at,
                 run_len, ws_total, w, yk, yr, criterion, score, new_keys, new_pos, miss, cum, tmp):
    """Step 2 (Eq. 3) for the surviving features ``feats[a0:a1]``; fills ``score[a0:a1]``.

    Each feature's new values are merged into its sorted run (ping-pong
    buffers ``run_*[src]`` -> ``run_*[1 - src]``, run of ``feats[a]`` at
    ``a * (ws + batch)``); ranges of ``a`` never share memory.

    Works on uncounted aliases (:func:`forestzoo._jit.borrow`; the caller
    holds the arrays): each feature's call passes ~15 arrays and views, and
    their atomic reference counts were ~20 % of a Haar tree's fit (perf).
    """
    batch_II, perm, feats, slot, ptr, index, coef = (borrow(batch_II), borrow(perm), borrow(feats), borrow(slot),
                                                     borrow(ptr), borrow(index), borrow(coef))
    run_keys, run_pos, run_at, run_len, ws_total = (borrow(run_keys), borrow(run_pos), borrow(run_at),
                                                    borrow(run_len), borrow(ws_total))
    w, yk, yr, score = borrow(w), borrow(yk), borrow(yr), borrow(score)
    new_keys, new_pos = borrow(new_keys), borrow(new_pos)
    miss, cum, tmp = borrow(miss), borrow(cum), borrow(tmp)
    stride = ws + batch
    for a in range(a0, a1):
        f = feats[a]
        s = slot[a]
        for q in range(batch):
            new_keys[q] = haar_value(batch_II, q, f, ptr, index, coef)
            new_pos[q] = perm[ws + q]
        score[a], length = sdt_score_feature_cls(
            new_keys, new_pos, batch, run_keys[src], run_pos[src], run_at[s], run_len[s], run_keys[1 - src],
            run_pos[1 - src], a * stride, miss, ws_total, w, yk, yr, criterion, cum, tmp)
        run_at[s] = a * stride
        run_len[s] = length


@njit
def _exact_range(II, rows, w, yk, yr, total, feats, a0, a1, ptr, index, coef, min_samples_leaf, min_weight_leaf,
                 criterion):
    """Step 5 (Eq. 2): exact search over the node for ``feats[a0:a1]``; returns ``(cost, a)`` of the first best.

    Features are computed a chunk at a time, rows outer, so each row's
    integral image is read once per chunk.  ``a`` is -1 when no feature splits.
    """
    n = rows.shape[0]
    vals_own = np.empty((min(_CHUNK, max(a1 - a0, 1)), n))
    keys_own = np.empty(n)
    pos_own = np.empty(n, np.int64)
    miss_own = np.zeros(total.shape[0])
    cum_own = np.empty(total.shape[0])
    tmp_own = np.empty(total.shape[0])
    # uncounted aliases for the per-feature calls (see _score_range); the owners live until keep_alive
    vals, keys, pos, miss, cum, tmp = (borrow(vals_own), borrow(keys_own), borrow(pos_own), borrow(miss_own),
                                       borrow(cum_own), borrow(tmp_own))
    II, rows, w, yk, yr, total = borrow(II), borrow(rows), borrow(w), borrow(yk), borrow(yr), borrow(total)
    feats, ptr, index, coef = borrow(feats), borrow(ptr), borrow(index), borrow(coef)
    best = np.inf
    best_a = -1
    for c0 in range(a0, a1, _CHUNK):
        c1 = min(a1, c0 + _CHUNK)
        for p in range(n):
            r = rows[p]
            for a in range(c0, c1):
                vals[a - c0, p] = haar_value(II, r, feats[a], ptr, index, coef)
        for a in range(c0, c1):
            v = vals[a - c0]
            if n <= _SMALL:
                for p in range(n):
                    keys[p] = v[p]
                    pos[p] = p
                sort_pairs(keys, pos, n)
                sk = keys
                sp = pos
            else:
                order = np.argsort(v)
                sk = v[order]
                sp = order
            if not sk[n - 1] > sk[0]:
                continue  # constant on the node
            cost, _, _ = scan_sorted_cls(sk, sp, n, miss, total, w, yk, yr, min_samples_leaf, min_weight_leaf,
                                         criterion, cum, tmp, 0.0, -np.inf, np.inf)
            if cost < best:
                best = cost
                best_a = a
    keep_alive((vals_own, keys_own, pos_own, miss_own, cum_own, tmp_own))
    return best, best_a


def _ranges(n, k):
    bounds = np.linspace(0, n, k + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def haar_sdt_search(II, rows, w, yk, yr, total, bank, params, min_samples_leaf, min_weight_leaf, criterion, rng,
                    pool=None, n_threads=1):
    """Best Haar feature of a node by the SDT search.

    Returns ``(feature, cost, evaluations)``: the bank index (-1 when no
    feature splits the node), its cost (``W_l imp_l + W_r imp_r``) and the
    (row, feature) values computed.  ``II`` is the float32 integral-image
    matrix, ``rows`` the node's rows and ``w``/``yk``/``yr`` their weights,
    class codes and targets in the same order.  The schedule and the
    fallback to the exact search on small nodes are those of
    :func:`forestzoo._engine.api.sdt_plan`.  ``pool`` (an
    executor of ``n_threads`` threads) scores contiguous feature ranges in
    parallel; the result does not depend on it.
    """
    n = rows.shape[0]
    n_bank = bank.n_features
    ptr, index, coef = bank.ptr, bank.index, bank.coef
    feats = np.arange(n_bank)
    batch, n_rounds, min_keep, evals, cap = sdt_plan(n, n_bank, params)
    n_stats = total.shape[0]

    def run(fn, ranges, *args):
        if pool is None or len(ranges) == 1:
            return [fn(*args, a0, a1, k) for k, (a0, a1) in enumerate(ranges)]
        return list(pool.map(lambda job: fn(*args, *job), [(a0, a1, k) for k, (a0, a1) in enumerate(ranges)]))

    alive = n_bank
    if n_rounds > 0:
        perm = np.arange(n)
        run_keys = np.empty((2, cap))
        run_pos = np.empty((2, cap), np.int64)
        batch_II = np.empty((batch, II.shape[1]), np.float32)
        score = np.empty(n_bank)
        slot = np.arange(n_bank)
        run_at = np.zeros(n_bank, np.int64)
        run_len = np.zeros(n_bank, np.int64)
        ws_total = np.zeros(n_stats)
        # per-thread scratch
        new_keys = np.empty((n_threads, batch))
        new_pos = np.empty((n_threads, batch), np.int64)
        miss = np.zeros((n_threads, n_stats))  # integral images have no NaN: stays zero
        cum = np.empty((n_threads, n_stats))
        tmp = np.empty((n_threads, n_stats))
        ws = 0
        src = 0

        def score_range(a0, a1, k):
            _score_range(batch_II, perm, ws, batch, feats, slot, a0, a1, ptr, index, coef, run_keys, run_pos, src,
                         run_at, run_len, ws_total, w, yk, yr, criterion, score, new_keys[k], new_pos[k], miss[k],
                         cum[k], tmp[k])

        for _ in range(n_rounds):
            sdt_draw(perm, ws, batch, rng)  # Step 1
            _gather(II, rows, perm, ws, batch, w, yk, yr, criterion, batch_II, ws_total)
            run(score_range, _ranges(alive, n_threads))  # Step 2
            ws += batch
            src = 1 - src
            alive = sdt_keep_best(score, feats, slot, alive, min_keep)  # Step 3

    def exact_range(a0, a1, k):
        return _exact_range(II, rows, w, yk, yr, total, feats, a0, a1, ptr, index, coef, min_samples_leaf,
                            min_weight_leaf, criterion)

    best, best_a = np.inf, -1
    for cost, a in run(exact_range, _ranges(alive, n_threads)):  # Step 5, chunks in feature order
        if cost < best:
            best, best_a = cost, a
    return (int(feats[best_a]) if best_a >= 0 else -1), best, int(evals)


class HaarNodeModel(NodeModel):
    """Node model of one Haar tree: SDT over the Haar bank at every node.

    Parameters
    ----------
    II : float32 (n_samples, (H + 1) * (W + 1)) integral images (the matrix
        the predictor will see).
    bank : :class:`forestzoo.tree._haar_bank.HaarBank`
    sdt_params : (C, alpha, min_features_fraction, N_0)
    seed : int, seed of the search's random draws.
    criterion, min_samples_leaf, min_weight_leaf : the tree's.
    pool, n_threads : an executor of ``n_threads`` threads for the search, or None.

    Attributes
    ----------
    n_evaluations : int, (row, feature) values computed by the searches.
    chosen : list of the bank index of every projection recorded, in order.
    """

    def __init__(self, II, bank, sdt_params, seed, criterion="gini", min_samples_leaf=1, min_weight_leaf=0.0,
                 pool=None, n_threads=1):
        super().__init__(criterion, min_samples_leaf, min_weight_leaf)
        self.II = II
        self.bank = bank
        self.params = np.asarray(sdt_params, dtype=np.float64)
        self.rng = make_state(seed)
        self.pool = pool
        self.n_threads = int(n_threads) if pool is not None else 1
        self.n_evaluations = 0
        self.chosen = []

    def split_node(self, rows, w, yk, yr, depth, total, go_left, out):
        feature, _, evals = haar_sdt_search(
            self.II, rows, w, yk, yr, total, self.bank, self.params, self.min_samples_leaf, self.min_weight_leaf,
            self.criterion_code, self.rng, self.pool, self.n_threads)
        self.n_evaluations += evals
        if feature < 0:
            return NODE_LEAF
        index, coef = self.bank.feature(feature)
        # the threshold is searched again on the projection as the predictor computes it
        if self.propose(index, coef, self.II, rows, w, yk, yr, total, go_left, out) == np.inf:
            return NODE_LEAF
        self.chosen.append(feature)
        return NODE_OBLIQUE
