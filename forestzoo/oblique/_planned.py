"""A linear node model driven by a *plan*: which node models to train on which class partitions.

The one-vs-all forests train one model on each of the ``K`` one-vs-all
partitions of a node; the heterogeneous forest trains different models on
different subsets of a ranked list of partitions (lecture Algorithm 2).
Both are a *plan* -- a boolean matrix ``parts`` (partitions x classes,
``True`` = positive hyperclass) and a boolean matrix ``assign``
(partitions x models of :data:`._linear_models.MODEL_NAMES`) -- executed
by one compiled kernel, :func:`node_search`: it fits every planned model
(:func:`._linear_models.fit_model`), maps each hyperplane back to the
original features and scores it with the tree's criterion (lecture
Eq. (1)-(3) for Gini), keeping the best.  A node therefore costs one
kernel call instead of one Python round trip per (model, partition,
hyperplane), which keeps the per-node Python overhead a small, constant
part of the node's work.

:class:`PlannedNodeModel` is :class:`._node_model.LinearNodeModel` with
its per-node loop replaced by that kernel; candidate features,
standardisation, projection and side arrays are the parent's.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._engine.api import (
    NODE_AXIS, NODE_OBLIQUE, OUT_COST, OUT_MISSING_LEFT, OUT_OBLIQUE, OUT_THRESHOLD, fill_go_left, project,
    weighted_impurity,
)
from .._jit import njit
from ._forest import _NODE_MODEL_STREAM, LinearObliqueForestMixin
from ._linear_models import MODEL_NAMES, RR_GRID, fit_model, make_model
from ._node_model import THRESHOLDS, LinearNodeModel, score_hyperplane, standardize
from ._partition import class_codes
from ._small_linalg import dot

__all__ = ["PlannedNodeModel", "PlannedForestMixin", "node_search", "PLANNED_PARAMETER_CONSTRAINTS"]


@njit
def node_search(X, rows, feats, Z, mean, scale, codes, wc, parts, assign, C, delta, grid, search, w, yk, yr,
                total, criterion, min_samples_leaf, min_weight_leaf):
    """Fit the planned models and return the best hyperplane over the original features.

    ``Z`` / ``codes`` / ``wc`` are the node's complete rows (standardised
    candidate block, class index among the present classes, weights);
    ``X`` / ``rows`` / ``w`` / ``yk`` / ``yr`` all its rows (scoring sends
    NaN projections to the better side).  Returns ``(cost, weights,
    threshold, missing_left, partition, model, n_fits)``; ``partition`` is
    -1 when no hyperplane lowers the node's impurity.
    """
    q = Z.shape[1]
    proj = np.empty(rows.shape[0])
    t = np.empty(codes.shape[0], np.bool_)
    best_cost = np.inf
    best_w = np.zeros(q)
    best_thr = 0.0
    best_ml = 0.0
    best_p = -1
    best_m = -1
    n_fits = 0
    for p in range(parts.shape[0]):
        for i in range(codes.shape[0]):
            t[i] = parts[p, codes[i]]
        for m in range(assign.shape[1]):
            if not assign[p, m]:
                continue
            W, b = fit_model(m, Z, t, wc, C, delta, grid)
            n_fits += 1
            for j in range(b.shape[0]):
                # w.(x - mean)/scale <= b  <=>  (w/scale).x <= b + (w/scale).mean
                wf = W[j] / scale
                cost, thr, ml = score_hyperplane(X, rows, feats, wf, b[j] + dot(wf, mean), search, w, yk, yr,
                                                 total, criterion, min_samples_leaf, min_weight_leaf, proj)
                if cost < best_cost:
                    best_cost, best_thr, best_ml, best_p, best_m = cost, thr, ml, p, m
                    best_w[:] = wf
    # an oblique split must lower the impurity (Eq. (1): g > 0); otherwise the axis kernel decides
    if not best_cost < weighted_impurity(total, total, 0.0, criterion) * (1.0 - 1e-12):
        best_p = -1
    return best_cost, best_w, best_thr, best_ml, best_p, best_m, n_fits


class PlannedNodeModel(LinearNodeModel):
    """Oblique node splits from a plan of (partition, linear model) pairs.

    Parameters
    ----------
    X : float32 C-ordered array (n_samples, n_features)
        The matrix the predictor sees.
    plan : callable
        ``plan(Z, codes, w, n_classes, rng) -> (parts, assign)``: ``parts``
        a boolean (P, n_classes) matrix of positive hyperclasses over the
        node's present classes, ``assign`` a boolean (P, 6) matrix of the
        models (:data:`MODEL_NAMES` order) to train on each.
    max_features, seed, threshold, criterion, min_samples_leaf, min_weight_leaf
        As in :class:`LinearNodeModel`.
    C, delta : float
        The models' penalties (see :mod:`._linear_models`).

    Attributes
    ----------
    wins : int array (6,)
        How many of the tree's oblique splits each model produced.
    n_fits : int
        Linear models fitted over the tree.
    """

    def __init__(self, X, plan, max_features, seed, threshold="hyperplane", criterion="gini", min_samples_leaf=1,
                 min_weight_leaf=0.0, C=1.0, delta=0.01):
        models = [make_model(name, C, delta) for name in MODEL_NAMES]
        super().__init__(X, models, max_features, seed, partition=None, threshold=threshold, criterion=criterion,
                         min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)
        self.plan = plan
        self.C = float(C)
        self.delta = float(delta)
        self.wins = np.zeros(len(MODEL_NAMES), np.int64)
        self.n_fits = 0

    def split_node(self, rows, w, yk, yr, depth, total, go_left, out):
        feats, block = self.candidate_block(rows)
        if feats.size == 0:
            return NODE_AXIS
        Z, mean, scale, complete = standardize(block, w)
        wc, ykc = (w, yk) if complete is None else (w[complete], yk[complete])
        if wc.size < 2:
            return NODE_AXIS
        present, codes = class_codes(ykc, wc)
        if present.size < 2:
            return NODE_AXIS
        parts, assign = self.plan(Z, codes, wc, present.size, self.rng)
        cost, weights, thr, ml, p, m, n_fits = node_search(
            self.X, rows, feats, Z, mean, scale, codes, wc, parts, assign, self.C, self.delta, RR_GRID,
            self.threshold == "best", w, yk, yr, total, self.criterion_code, self.min_samples_leaf,
            self.min_weight_leaf)
        self.n_fits += n_fits
        if p < 0:
            return NODE_AXIS
        proj = np.empty(rows.shape[0])
        project(self.X, rows, feats, weights, proj)
        out[OUT_COST] = cost
        out[OUT_THRESHOLD] = thr
        out[OUT_MISSING_LEFT] = ml
        out[OUT_OBLIQUE] = self.add_projection(feats, weights)
        fill_go_left(proj, thr, ml, go_left)
        self.wins[m] += 1
        self.n_oblique += 1
        return NODE_OBLIQUE


class PlannedForestMixin(LinearObliqueForestMixin):
    """Forest hooks of the one-vs-all and heterogeneous forests; put it before ``ForestClassifier``.

    Subclasses define ``_plan()`` (the node's plan, see
    :class:`PlannedNodeModel`); the trees are grown on the original
    features (no rotation), with the estimator's ``C``, ``delta``,
    ``threshold`` and ``max_features``.
    """

    def _rotates(self):
        return False

    def _plan(self):
        raise TypeError(f"{type(self).__name__} must define _plan().")

    def _linear_models(self):
        return [make_model(name, self.C, self.delta) for name in MODEL_NAMES]

    def _make_node_model(self, X, X_fit, basis, seed, params, min_weight_leaf):
        return PlannedNodeModel(
            X, self._plan(), params.max_features, seed ^ _NODE_MODEL_STREAM,
            threshold=self.threshold, criterion=params.criterion, min_samples_leaf=params.min_samples_leaf,
            min_weight_leaf=min_weight_leaf, C=self.C, delta=self.delta,
        )


#: Parameter constraints shared by the planned forests (on top of ForestClassifier's).
PLANNED_PARAMETER_CONSTRAINTS = {
    "C": [Interval(Real, 0.0, None, closed="neither")],
    "delta": [Interval(Real, 0.0, None, closed="neither")],
    "threshold": [StrOptions(set(THRESHOLDS))],
    "splitter": [StrOptions({"exact", "hist", "random"})],
    "class_weight": [dict, StrOptions({"balanced"}), None],
}

#: Documentation of the parameters shared by the planned forests.
PLANNED_PARAMS_DOC = """    C : float, default=1.0
        Weight of the data term of LS-SVM, logistic regression and the
        linear SVM (``1/2 |w|^2 + C * loss``), on the node's standardised
        features.
    delta : float, default=0.01
        Tikhonov term added to LDA's within-class covariance and to MPSVM's
        ``G`` / ``H`` (a fraction of a standardised variance).
    threshold : {"hyperplane", "best"}, default="hyperplane"
        "hyperplane": a hyperplane splits at its own offset and is scored
        there (lecture Eq. (1)); "best": at the best threshold along its
        normal.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Scores the hyperplanes (Gini: lecture Eq. (1)-(3)).
    splitter : {"exact", "hist", "random"}, default="exact"
        Kernel of the nodes that get no oblique split (no hyperplane lowers
        the impurity, or no non-constant feature).
    max_depth : int or None, default=None
        Greatest depth of a leaf; None grows every tree until its leaves are
        pure or too small.
    min_samples_split : int or float, default=2
        Least number of samples (a fraction of them when a float) a node
        needs to be split.
    min_samples_leaf : int or float, default=1
        Least number of samples (a fraction of them when a float) in a leaf.
    min_weight_fraction_leaf : float in [0, 0.5], default=0.0
        Least fraction of the total sample weight in a leaf.
    min_impurity_decrease : float, default=0.0
        A node splits only if the weighted impurity decrease, relative to the
        root's weight, is at least this.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Candidate features per node (``mtry``), drawn among those not
        constant in the node.
    max_leaf_nodes : int or None, default=None
        When set, every tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Value bins per feature for ``splitter="hist"`` (NaN has its own bin).
    bootstrap : bool, default=True
        Grow every tree on a bootstrap sample.
    max_samples : int, float or None, default=None
        Bootstrap sample size (int) or its ratio to ``n_samples`` (float), as
        in :class:`forestzoo.RandomForestClassifier`; needs ``bootstrap=True``.
    oob_score : bool, default=False
        Compute the out-of-bag accuracy (needs ``bootstrap=True``).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights;
        "balanced" weighs each class inversely to its frequency.
    warm_start : bool, default=False
        Keep the fitted trees and add ``n_estimators - len(estimators_)`` new ones.
    n_jobs : int or None, default=None
        Threads fitting trees; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the samples, the feature draws and the node models.
    verbose : int, default=0
        Verbosity of the fit.
"""
