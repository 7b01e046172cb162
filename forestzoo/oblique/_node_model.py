"""The generic oblique node model: candidate features -> class partition -> linear models -> best split.

:class:`LinearNodeModel` plugs into the engine's node-model seam
(:class:`forestzoo._engine.api.NodeModel`).  At every node it

1. draws ``max_features`` candidate features that are not constant in the
   node (random order, scikit-learn's rule for ``max_features``);
2. standardises them over the node's rows (weighted mean and standard
   deviation): an affine change of variables that leaves the split a
   linear model finds unchanged but makes its regularisation scale-free;
3. forms the binary partition(s) of the node's classes (a partition
   strategy of :mod:`._partition`);
4. asks each linear model for candidate hyperplanes ``w . z = b`` (its
   ``fit_hyperplanes``), maps them back to the features the predictor reads
   (through the tree's rotation, if any);
5. scores every candidate with the tree's criterion -- at the hyperplane's
   own offset (``threshold="hyperplane"``) or at the best threshold along
   its normal (``threshold="best"``) -- and returns the best as an oblique
   split.

A linear model raising :class:`SingularNodeError` (MPSVM "-P") sends the
node and its whole subtree to the tree's axis-parallel kernel.  A node with
no usable candidate (fewer than two classes among its complete rows, no
non-constant feature, or no candidate that splits it) is left to the
kernel for that node only.

Rows with a NaN in a candidate feature are left out of the partition and
the hyperplane fit; the split sends them to the side that scores better.
"""

import numpy as np

from .._engine.api import (
    NODE_AXIS, NODE_AXIS_SUBTREE, NODE_OBLIQUE, OUT_COST, OUT_MISSING_LEFT, OUT_OBLIQUE, OUT_THRESHOLD, NodeModel,
    add_sample, best_threshold, fill_go_left, project,
)
from .._engine.api import evaluate_split as evaluate
from .._jit import njit
from ._mpsvm import MPSVM, SingularNodeError, mpsvm_bisectors
from ._partition import class_codes, multi2binary, multi2binary_mask
from ._small_linalg import dot

__all__ = ["LinearNodeModel", "THRESHOLDS", "compose_basis", "fixed_threshold_cost"]

THRESHOLDS = ("hyperplane", "best")


@njit
def fixed_threshold_cost(proj, threshold, w, yk, yr, total, criterion, min_samples_leaf, min_weight_leaf):
    """Cost of the split ``proj <= threshold`` (NaN rows tried on both sides).

    Returns ``(cost, missing_left)``; ``cost`` is ``inf`` when a child would
    violate the leaf-size limits.
    """
    n_stats = total.shape[0]
    left = np.zeros(n_stats)
    miss = np.zeros(n_stats)
    tmp = np.empty(n_stats)
    for i in range(proj.shape[0]):
        v = proj[i]
        if v != v:
            add_sample(miss, 1.0, w[i], yk[i], yr[i], criterion)
        elif v <= threshold:
            add_sample(left, 1.0, w[i], yk[i], yr[i], criterion)
    return evaluate(left, miss, total, min_samples_leaf, min_weight_leaf, criterion, tmp, 0.0, -np.inf, np.inf)


@njit
def gather_candidates(X, rows, perm, max_features):
    """Columns ``perm[0], perm[1], ...`` of ``X`` that vary over ``rows``, until ``max_features`` are found.

    Returns ``(features, block)``, features sorted, with ``block[i, j] =
    X[rows[i], features[j]]`` (float64).  NaN values are ignored when
    testing for constancy.
    """
    n = rows.shape[0]
    k = min(max_features, perm.shape[0])
    feats = np.empty(k, np.int64)
    block = np.empty((n, k))
    m = 0
    for f in perm:
        if m == k:
            break
        lo = np.inf
        hi = -np.inf
        for i in range(n):
            v = np.float64(X[rows[i], f])
            block[i, m] = v
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        if hi > lo:
            feats[m] = f
            m += 1
    order = np.argsort(feats[:m])  # increasing feature order: the side arrays' order
    return feats[:m][order], np.ascontiguousarray(block[:, :m][:, order])


@njit
def _standardize(block, w):
    n, q = block.shape
    complete = np.ones(n, np.bool_)
    m = 0
    for i in range(n):
        for j in range(q):
            if np.isnan(block[i, j]):
                complete[i] = False
                break
        m += complete[i]
    mean = np.zeros(q)
    scale = np.ones(q)
    if m == 0:
        return np.empty((0, q)), mean, scale, complete, 0
    W = 0.0
    for i in range(n):
        if complete[i]:
            W += w[i]
            for j in range(q):
                mean[j] += w[i] * block[i, j]
    mean /= W
    var = np.zeros(q)
    for i in range(n):
        if complete[i]:
            for j in range(q):
                d = block[i, j] - mean[j]
                var[j] += w[i] * d * d
    for j in range(q):
        s = np.sqrt(var[j] / W)
        scale[j] = s if s > 0.0 else 1.0
    Z = np.empty((m, q))
    r = 0
    for i in range(n):
        if complete[i]:
            for j in range(q):
                Z[r, j] = (block[i, j] - mean[j]) / scale[j]
            r += 1
    return Z, mean, scale, complete, m


def standardize(block, w):
    """``(Z, mean, scale, complete)``: the rows without NaN, standardised with their weighted moments.

    ``complete`` is None when every row is complete.
    """
    Z, mean, scale, complete, m = _standardize(block, w)
    return Z, mean, scale, (None if m == block.shape[0] else complete)


@njit
def _weighted_on_both_sides(w, t):
    """Whether rows of positive weight lie both inside and outside the mask ``t`` (weights are >= 0)."""
    inside = False
    outside = False
    for i in range(w.shape[0]):
        if w[i] > 0.0:
            if t[i]:
                inside = True
            else:
                outside = True
            if inside and outside:
                return True
    return False


@njit
def score_hyperplane(X, rows, features, weights, threshold, best, w, yk, yr, total, criterion, min_samples_leaf,
                     min_weight_leaf, proj):
    """Project the node on ``weights`` and score the split: ``(cost, threshold, missing_left)``.

    ``best``: search the best threshold along the projection instead of
    using ``threshold``.  ``proj`` receives the projection.
    """
    project(X, rows, features, weights, proj)
    if best:
        return best_threshold(proj, w, yk, yr, total, criterion, min_samples_leaf, min_weight_leaf)
    cost, ml = fixed_threshold_cost(proj, threshold, w, yk, yr, total, criterion, min_samples_leaf, min_weight_leaf)
    return cost, threshold, ml


@njit
def compose_basis(ptr, bfeat, bw, feats, w_fit, n_features):
    """``sum_j w_fit[j] * column feats[j] of the basis`` as ``(features, weights)`` over the original columns.

    Column ``k`` of the basis is ``sum bw[p] * e_{bfeat[p]}`` over ``p`` in
    ``ptr[k]:ptr[k + 1]`` (CSR).  The features returned are every original
    column some chosen basis column reads, increasing (a weight that sums to
    exactly 0 is kept); each weight is accumulated in the order of ``feats``
    and, within a column, of ``p``.
    """
    dense = np.zeros(n_features)
    used = np.zeros(n_features, np.bool_)
    for j in range(feats.shape[0]):
        f = feats[j]
        for p in range(ptr[f], ptr[f + 1]):
            c = bfeat[p]
            dense[c] += w_fit[j] * bw[p]
            used[c] = True
    k = 0
    for c in range(n_features):
        k += used[c]
    out_feats = np.empty(k, np.int64)
    out_w = np.empty(k)
    k = 0
    for c in range(n_features):
        if used[c]:
            out_feats[k] = c
            out_w[k] = dense[c]
            k += 1
    return out_feats, out_w


@njit
def _offsets(W_fit, b, mean):
    """``b[j] + W_fit[j] . mean`` for every hyperplane ``j``, the dot products in a fixed order (:func:`dot`)."""
    out = np.empty(b.shape[0])
    for j in range(b.shape[0]):
        out[j] = b[j] + dot(W_fit[j], mean)
    return out


@njit
def mpsvm_split(X, X_fit, rows, perm, max_features, basis_ptr, basis_feature, basis_weight, w, yk, yr, total,
                criterion, min_samples_leaf, min_weight_leaf, search, regularization, delta, rcond, go_left):
    """:meth:`LinearNodeModel.split_node` for one :class:`MPSVM` and :func:`multi2binary`, compiled whole.

    The same steps in the same arithmetic as the Python route (which every
    other linear model takes), without its per-node interpreter work: that
    was about 40 % of an MPRaF node.  ``basis_ptr`` is empty for an
    unrotated tree.  Returns ``(status, cost, threshold, missing_left,
    features, weights)``; ``go_left`` is filled for ``NODE_OBLIQUE``.
    """
    no_f, no_w = np.empty(0, np.int64), np.empty(0)
    feats, block = gather_candidates(X_fit, rows, perm, max_features)
    if feats.size == 0:
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    Z, mean, scale, complete, m = _standardize(block, w)
    if m == rows.shape[0]:
        wc, ykc = np.ascontiguousarray(w), np.ascontiguousarray(yk)
    else:
        wc, ykc = w[complete], yk[complete]
    if wc.size < 2:
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    present, codes = class_codes(ykc, wc)
    if present.size < 2:
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    t = multi2binary_mask(Z, codes, wc, present.size)
    if not _weighted_on_both_sides(wc, t):
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    W, b, ok = mpsvm_bisectors(Z, t, wc, regularization, delta, rcond)
    if not ok:
        return NODE_AXIS_SUBTREE, np.inf, 0.0, 0.0, no_f, no_w
    if W.shape[0] == 0:
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    # w.(x - mean)/scale <= b  <=>  (w/scale).x <= b + w.(mean/scale)
    W_fit = W / scale
    offsets = _offsets(W_fit, b, mean)
    proj = np.empty(rows.shape[0])
    best_cost, best_thr, best_ml = np.inf, 0.0, 0.0
    best_f, best_w = no_f, no_w
    for j in range(offsets.shape[0]):
        if basis_ptr.shape[0] == 0:
            pf, pw = feats, W_fit[j].copy()
        else:
            pf, pw = compose_basis(basis_ptr, basis_feature, basis_weight, feats, W_fit[j], X.shape[1])
        cost, thr, ml = score_hyperplane(X, rows, pf, pw, offsets[j], search, w, yk, yr, total, criterion,
                                         min_samples_leaf, min_weight_leaf, proj)
        if cost < best_cost:
            best_cost, best_thr, best_ml, best_f, best_w = cost, thr, ml, pf, pw
    if best_f.shape[0] == 0:
        return NODE_AXIS, np.inf, 0.0, 0.0, no_f, no_w
    project(X, rows, best_f, best_w, proj)
    fill_go_left(proj, best_thr, best_ml, go_left)
    return NODE_OBLIQUE, best_cost, best_thr, best_ml, best_f, best_w


class LinearNodeModel(NodeModel):
    """Oblique splits from linear models fitted on a binary partition of the node's classes.

    Parameters
    ----------
    X : float32 C-ordered array (n_samples, n_features)
        The matrix the predictor will see; projections are recorded over its
        columns and computed with the predictor's arithmetic.
    models : list
        Linear node models, each with ``fit_hyperplanes(Z, t, sample_weight)
        -> (W (k, q), b (k,))`` (hyperplanes ``W[j] . z = b[j]``, left side
        ``<=``); may raise :class:`SingularNodeError`.
    max_features : int
        Candidate features drawn per node.
    seed : int
        Seed of the node model's random generator (one per tree).
    partition : callable, default=multi2binary
        ``partition(Z, yk, w) -> list of boolean masks``.
    X_fit : float32 array, optional
        The matrix the tree is grown on (``X R`` for a rotated tree); default ``X``.
    basis : tuple (ptr, feature, weight), optional
        CSR columns of the rotation: column ``k`` of ``X_fit`` is
        ``sum weight * X[:, feature]`` over ``ptr[k]:ptr[k + 1]``.
    threshold : {"hyperplane", "best"}, default="hyperplane"
    criterion, min_samples_leaf, min_weight_leaf
        The tree's, see :class:`forestzoo._engine.api.NodeModel`.
    """

    def __init__(self, X, models, max_features, seed, partition=multi2binary, X_fit=None, basis=None,
                 threshold="hyperplane", criterion="gini", min_samples_leaf=1, min_weight_leaf=0.0):
        super().__init__(criterion, min_samples_leaf, min_weight_leaf)
        if threshold not in THRESHOLDS:
            raise ValueError(f"threshold={threshold!r} is not one of {THRESHOLDS}.")
        self.X = X
        self.X_fit = X if X_fit is None else X_fit
        self.models = list(models)
        self.max_features = int(max_features)
        self.rng = np.random.default_rng(seed)
        self.partition = partition
        self.threshold = threshold
        self.n_singular = 0  # nodes handed to the axis-parallel kernel because of SingularNodeError
        self.n_oblique = 0
        # one MPSVM on multi2binary (the MPSVM forests): the node is one compiled call, mpsvm_split
        self._mpsvm = (self.models[0] if len(self.models) == 1 and type(self.models[0]) is MPSVM
                       and partition is multi2binary else None)
        # the rotation's CSR columns (empty for an unrotated tree), in the dtypes the kernels take
        if basis is None:
            self._basis = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        else:
            ptr, bfeat, bw = basis
            self._basis = (np.ascontiguousarray(ptr, np.int64), np.ascontiguousarray(bfeat, np.int64),
                           np.ascontiguousarray(bw, np.float64))

    # -- steps ---------------------------------------------------------------
    def candidate_block(self, rows):
        """``(features, block)``: up to ``max_features`` columns of ``X_fit`` not constant on ``rows``."""
        perm = self.rng.permutation(self.X_fit.shape[1])
        return gather_candidates(self.X_fit, rows, perm, self.max_features)

    def to_predictor_space(self, feats, w_fit):
        """Weights over ``X_fit`` columns ``feats`` as ``(features, weights)`` over ``X``'s columns."""
        ptr, bfeat, bw = self._basis
        if ptr.size == 0:
            return feats, w_fit  # candidate_block returns sorted features
        return compose_basis(ptr, bfeat, bw, feats, w_fit, self.X.shape[1])

    def split_node(self, rows, w, yk, yr, depth, total, go_left, out):
        if self._mpsvm is not None:
            return self._split_mpsvm(rows, w, yk, yr, total, go_left, out)
        feats, block = self.candidate_block(rows)
        if feats.size == 0:
            return NODE_AXIS
        Z, mean, scale, complete = standardize(block, w)
        wc, ykc = (w, yk) if complete is None else (w[complete], yk[complete])
        if wc.size < 2:
            return NODE_AXIS
        best_cost, best = np.inf, None
        proj = np.empty(rows.shape[0])
        search = self.threshold == "best"
        for t in self.partition(Z, ykc, wc):
            if not _weighted_on_both_sides(wc, t):
                continue  # a binary problem needs rows on both sides
            for model in self.models:
                try:
                    W, b = model.fit_hyperplanes(Z, t, wc)
                except SingularNodeError:
                    self.n_singular += 1
                    return NODE_AXIS_SUBTREE
                # w.(x - mean)/scale <= b  <=>  (w/scale).x <= b + w.(mean/scale)
                W_fit = np.ascontiguousarray(W / scale)
                offsets = _offsets(W_fit, np.ascontiguousarray(b, dtype=np.float64), mean)
                for j in range(offsets.shape[0]):
                    pf, pw = self.to_predictor_space(feats, W_fit[j])
                    cost, thr, ml = score_hyperplane(
                        self.X, rows, pf, pw, offsets[j], search, w, yk, yr, total,
                        self.criterion_code, self.min_samples_leaf, self.min_weight_leaf, proj)
                    if cost < best_cost:
                        best_cost, best = cost, (pf, pw, thr, ml)
        if best is None:
            return NODE_AXIS
        pf, pw, thr, ml = best
        project(self.X, rows, pf, pw, proj)
        out[OUT_COST] = best_cost
        out[OUT_THRESHOLD] = thr
        out[OUT_MISSING_LEFT] = ml
        out[OUT_OBLIQUE] = self.add_projection(pf, pw)
        fill_go_left(proj, thr, ml, go_left)
        self.n_oblique += 1
        return NODE_OBLIQUE

    def _split_mpsvm(self, rows, w, yk, yr, total, go_left, out):
        """:meth:`split_node` through :func:`mpsvm_split` (the same draws, the same split)."""
        model = self._mpsvm
        perm = self.rng.permutation(self.X_fit.shape[1])
        status, cost, thr, ml, pf, pw = mpsvm_split(
            self.X, self.X_fit, rows, perm, self.max_features, *self._basis, w, yk, yr, total, self.criterion_code,
            self.min_samples_leaf, self.min_weight_leaf, self.threshold == "best", model._code, model.delta,
            model.rcond, go_left)
        if status == NODE_AXIS_SUBTREE:
            self.n_singular += 1
        elif status == NODE_OBLIQUE:
            out[OUT_COST] = cost
            out[OUT_THRESHOLD] = thr
            out[OUT_MISSING_LEFT] = ml
            out[OUT_OBLIQUE] = self.add_projection(pf, pw)
            self.n_oblique += 1
        return status
