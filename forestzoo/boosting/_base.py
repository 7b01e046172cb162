"""What the boosting estimators share: base-learner growth on the engine and tree sums.

A boosting fit prepares the training matrix once (:func:`prepare_data`: bins
for ``splitter="hist"``, the feature-major float matrix otherwise) and then
grows one shallow tree per round (per class and round for the K-class
algorithms) with that round's weights, through :func:`forestzoo._engine.api.grow`.
Nothing here copies the grower or the predictor: rows are routed with
:meth:`Tree.apply` and ensembles are summed with the engine's
:func:`accumulate_compact`.
"""

import threading
from dataclasses import replace
from numbers import Real

import numpy as np
from joblib import delayed, effective_n_jobs
from sklearn.utils._param_validation import Interval

from .._base import TREE_PARAMETER_CONSTRAINTS, tree_params
from .._engine.api import accumulate_compact, add_leaf_values, branch_walker, grow, walk_by_branch
from .._parallel import Parallel
from ..tree._classes import DecisionTreeClassifier, DecisionTreeRegressor

#: Constraints of the base-learner parameters every boosting estimator exposes.
BASE_LEARNER_CONSTRAINTS = {
    name: TREE_PARAMETER_CONSTRAINTS[name]
    for name in ("splitter", "max_depth", "min_samples_split", "min_samples_leaf", "min_weight_fraction_leaf",
                 "min_impurity_decrease", "max_features", "max_leaf_nodes", "max_bins")
}
_TREE_PARAMS = tuple(BASE_LEARNER_CONSTRAINTS)

#: ``learning_rate`` must be positive: a zero or negative shrinkage makes no progress.
LEARNING_RATE = [Interval(Real, 0.0, None, closed="neither")]


class BaseLearners:
    """Grows the shallow trees of one boosting fit from shared, prepared data.

    Parameters
    ----------
    estimator : the boosting estimator (its base-learner parameters are read).
    **fixed : values for base-learner parameters the estimator does not expose.
    data : :class:`forestzoo._engine.api.TrainingData`, prepared once.
    X : the float32 training matrix ``data`` was prepared from (needed by
        ``grow(..., return_leaves=True)``).
    n_samples : rows of the training matrix (fractions in the leaf-size
        parameters are taken of it).
    """

    def __init__(self, estimator, data, n_samples, X=None, **fixed):
        self.estimator = estimator
        self.data = data
        self.X = X  # the float32 training matrix, to route rows of weight 0 (return_leaves)
        self._local = threading.local()
        # ``fixed``: base-learner parameters the estimator does not expose (e.g. splitter="hist")
        self.params = {p: fixed[p] if p in fixed else getattr(estimator, p) for p in _TREE_PARAMS}
        # the trees' TreeParams, resolved once, for each criterion a round may grow with
        base = tree_params(estimator, n_samples, data.n_features, criterion="squared_error",
                                         **self.params)
        criteria = {"squared_error", getattr(estimator, "criterion", "squared_error")}
        self.tree_params = {c: replace(base, criterion=c) for c in criteria}

    def grow(self, target, weights, criterion, seed, return_leaves=False, hist_threads=1):
        """One tree on the rows with positive ``weights``; returns the engine :class:`Tree`.

        ``target`` is a :class:`forestzoo._engine.api.TreeTarget`,
        ``criterion`` "squared_error" or the estimator's own criterion.

        With ``return_leaves``, returns ``(tree, leaves)``, the leaf of every
        row (rows of weight 0 included) without a separate ``apply`` for the
        weighted ones.  Each thread keeps its own histogram pool across rounds.
        ``hist_threads``: threads that build a large node's histograms (for a
        round that grows one tree; the tree does not depend on it).
        """
        workspace = getattr(self._local, "workspace", None)
        if workspace is None:
            workspace = self._local.workspace = {}
        out = grow(self.data, target, weights, self.tree_params[criterion], int(seed), workspace=workspace,
                   return_leaves=return_leaves, hist_threads=hist_threads)
        if not return_leaves:
            return out
        tree, leaves = out
        unseen = leaves < 0  # rows of weight 0 (subsampled out): route them through the tree
        if unseen.any():
            leaves[unseen] = tree.apply(self.X[unseen])
        return tree, leaves.astype(np.intp)

    def wrap(self, tree, seed, classes=None, criterion="squared_error"):
        """A fitted forestzoo ``DecisionTree*`` around an engine tree, as ``estimators_`` holds it."""
        # the tree's own random_state must pass its validation (0 <= seed < 2**32): the low 32 bits
        random_state = int(seed) & 0xFFFFFFFF
        if classes is None:
            est = DecisionTreeRegressor(**self.params, random_state=random_state)
        else:
            est = DecisionTreeClassifier(**self.params, criterion=criterion, random_state=random_state)
            est.classes_ = classes
            est.n_classes_ = int(classes.shape[0])
        est.tree_ = tree
        est.n_features_in_ = tree.n_features
        est.n_outputs_ = 1
        est.max_features_ = self.tree_params["squared_error"].max_features
        return est


def drop_unweighted(X, sample_weight, *arrays):
    """Remove the rows of zero sample weight.

    Boosting weights are products with the sample weight, so such rows never
    count; dropping them up front also keeps them out of the bin edges, which
    makes a weight-2 row exactly a duplicated row.
    """
    keep = sample_weight > 0
    if keep.all():
        return (X, sample_weight) + arrays
    return (X[keep], sample_weight[keep]) + tuple(a[keep] for a in arrays)


def row_blocks(n_rows, n_jobs):
    """Row-block bounds for threaded prediction (one block per thread, >= 4096 rows each)."""
    n_blocks = max(1, min(effective_n_jobs(n_jobs), n_rows // 4096))
    return np.linspace(0, n_rows, n_blocks + 1).astype(np.intp)


def accumulate(X, items, out, n_jobs=None):
    """``out[:, col:col + w] += values[leaf(x)]`` for every ``(tree, values, col)`` of ``items``.

    ``values`` (``(n_nodes, w)``) replaces the tree's own leaf values, so a
    caller can sum votes or rescaled values without building new trees.  Rows
    are split into one block per thread and every block sums the items in
    order, so results are bit-identical for any ``n_jobs``.
    """
    bounds = row_blocks(X.shape[0], n_jobs)

    compact = [tree.compact for tree, _, _ in items]  # derived once, before the threads start
    by_branch = [branch_walker(tree) if walk_by_branch(tree, X) else None for tree, _, _ in items]

    def run(a, b):
        leaves = np.empty(b - a, dtype=np.intp)
        for (tree, values, col), c, br in zip(items, compact, by_branch):
            block = out[a:b, col:col + values.shape[1]]
            if br is not None:  # wide rows beyond the cache: one row at a time, by branches
                br(X[a:b], c, leaves)
                add_leaf_values(leaves, values, block)
            else:
                accumulate_compact(X[a:b], c, tree.nodes, values, tree.obl_ptr, tree.obl_feature, tree.obl_weight,
                                   leaves, block)

    if len(bounds) == 2:
        run(0, X.shape[0])
        return out
    Parallel(n_jobs=len(bounds) - 1, require="sharedmem")(
        delayed(run)(a, b) for a, b in zip(bounds[:-1], bounds[1:])
    )
    return out


def weighted_quantile(values, weights, q):
    """Smallest ``v`` of ``values`` whose cumulative weight reaches ``q`` of the total."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    if cum[-1] <= 0:
        return float(np.quantile(values, q))
    k = int(np.searchsorted(cum, q * cum[-1], side="left"))
    return float(values[order[min(k, values.size - 1)]])


def grouped_weighted_median(groups, values, weights, n_groups):
    """Weighted median of ``values`` within each group (0 for a group with no weight).

    One sort by ``(group, value)``; the median of a group is its first value
    whose cumulative weight reaches half the group's weight.
    """
    order = np.lexsort((values, groups))
    g = groups[order]
    w = weights[order]
    cum = np.cumsum(w)
    totals = np.bincount(groups, weights=weights, minlength=n_groups)
    before = np.concatenate(([0.0], np.cumsum(totals)[:-1]))
    # the first sorted position of every group
    starts = np.searchsorted(g, np.arange(n_groups), side="left")
    ends = np.searchsorted(g, np.arange(n_groups), side="right")
    pos = np.searchsorted(cum, before + 0.5 * totals, side="left")
    pos = np.clip(pos, starts, np.maximum(ends - 1, starts))
    out = np.zeros(n_groups)
    has = (ends > starts) & (totals > 0)
    out[has] = values[order][pos[has]]
    return out
