"""Rotation Forest (Rodriguez, Kuncheva & Alonso 2006) and Random Rotation Forest.

Every tree gets its own rotation ``R`` (Suganthan's lecture "Random Forest and
Variants", "Rotation Forest algorithm"):

1. the features are split at random into ``K`` subsets of (about)
   ``M = n_features_per_subset`` features;
2. for each subset, a random non-empty subset of the classes is kept (the
   others are eliminated), and a bootstrap sample of ``sample_fraction``
   (75 %) of the remaining objects is drawn;
3. PCA on that sample, keeping *all* components, gives one block of ``R``;
4. the blocks are arranged in the original feature order, and the tree is
   grown by the forestzoo engine on ``X R``.

The rotated tree is then stored as an *oblique* tree over the original
features: a node that split rotated feature ``k`` projects ``x`` on column
``k`` of ``R`` (at most ``M`` non-zero weights), so prediction runs the
engine's one predictor on ``X`` with no transform (engine seam 4).  ``X R``
is computed with the predictor's own arithmetic (float64 sums of float32
values, in the column's feature order) and then stored as float32, so the
predictor routes training rows where the grower sent them.

Random Rotation Forest (RRoF, Zhang & Suganthan 2015) is the same forest
with a random feature subspace at every node: ``max_features="sqrt"``
instead of ``None``.  It is a parameter, not a class.

:class:`RotationForestMixin` holds the per-tree pipeline (weights, optional
rotation, optional node model, growth, mapping back); the oblique forests
of :mod:`forestzoo.oblique` (MPRoF, MPRRoF, and MPRaF with the identity
rotation) reuse it through the ``_rotates`` and ``_make_node_model`` hooks.

Missing values: a NaN makes the rotated features of its subset NaN (the
sum propagates it), and each split learns the side NaN goes to, as in the
other forests; the PCA of a subset uses only the sampled rows with no NaN
in that subset.

Monotonic constraints: a tree split on rotated features cannot be held
monotonic in an original feature that several rotated features mix.  A
feature with a constraint is therefore left out of the rotation (a column of
``R`` of its own, with weight 1) and the tree is constrained on that column;
the other features are rotated as above.
"""

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._engine.api import TREE_LEAF, Tree, grow, prepare_data, project
from .._jit import njit
from .._parallel import single_threaded_blas
from ._forest import ForestClassifier, ForestRegressor

__all__ = ["RotationForestClassifier", "RotationForestRegressor", "RotationForestMixin",
           "fit_rotation", "rotate", "rotated_constraints", "to_original_space"]


# -- the rotation ------------------------------------------------------------
def _pca_block(Xs):
    """All principal axes (rows, by decreasing variance) of the sample ``Xs``.

    The eigenvectors of the ``m x m`` scatter matrix form a complete
    orthonormal basis even when the sample has fewer rows than columns or
    constant columns, so ``R`` is always a rotation.  Signs are fixed
    (largest entry positive) for reproducibility.
    """
    m = Xs.shape[1]
    if Xs.shape[0] < 2:
        return np.eye(m)
    centred = Xs - Xs.mean(axis=0)
    _, vecs = np.linalg.eigh(centred.T @ centred)
    vt = vecs[:, ::-1].T
    flip = np.sign(vt[np.arange(m), np.argmax(np.abs(vt), axis=1)])
    flip[flip == 0] = 1.0
    return vt * flip[:, None]


def fit_rotation(X, yk, weights, rng, n_features_per_subset=3, sample_fraction=0.75, n_classes=0, unrotated=None):
    """One tree's rotation, as CSR columns ``(ptr, feature, weight)``.

    Rotated feature ``k`` is ``sum_q weight[q] * X[:, feature[q]]`` for ``q``
    in ``ptr[k]:ptr[k + 1]`` (the features of one subset, in increasing
    order).  ``n_classes > 0`` eliminates a random subset of classes per
    feature subset (classification); rows are drawn with probability
    proportional to ``weights`` (rows of weight 0 are never drawn).
    ``unrotated`` (feature indices) are left out of the subsets: each
    becomes a column of its own with weight 1, after the rotated columns.
    """
    n_samples, n_features = X.shape
    if unrotated is None or len(unrotated) == 0:
        unrotated = np.zeros(0, np.intp)
        order = rng.permutation(n_features)
    else:
        unrotated = np.unique(unrotated)
        free = np.setdiff1d(np.arange(n_features), unrotated)
        order = free[rng.permutation(free.size)]
    n_groups = -(-order.size // n_features_per_subset)
    groups = [np.sort(g) for g in np.array_split(order, n_groups)] if n_groups else []
    rows_all = np.flatnonzero(weights > 0)
    ptr = [0]
    feats = []
    wts = []
    for g in groups:
        rows = rows_all
        if n_classes > 1:
            present = np.unique(yk[rows])
            keep = present[rng.random(present.size) < 0.5]
            if keep.size == 0:  # the subset of classes kept is never empty
                keep = present[rng.integers(present.size)][None]
            rows = rows[np.isin(yk[rows], keep)]
        block = X[np.ix_(rows, g)].astype(np.float64)
        complete = ~np.isnan(block).any(axis=1)
        rows, block = rows[complete], block[complete]
        n_draw = max(1, int(round(sample_fraction * rows.size))) if rows.size else 0
        if n_draw:
            p = weights[rows] / weights[rows].sum()
            block = block[rng.choice(rows.size, size=n_draw, replace=True, p=p)]
        comps = _pca_block(block)  # PCA of the covariance matrix (Rodriguez et al. 2006)
        for c in comps:
            feats.append(g)
            wts.append(c)
            ptr.append(ptr[-1] + g.size)
    for j in unrotated:
        feats.append(np.array([j]))
        wts.append(np.ones(1))
        ptr.append(ptr[-1] + 1)
    return (np.asarray(ptr, np.int64), np.concatenate(feats).astype(np.int32),
            np.concatenate(wts).astype(np.float64))


def rotated_constraints(basis, monotonic_cst):
    """Monotonic constraints of the rotated features, for constraints on the original ones.

    A rotated feature that is one original feature alone (a column of
    :func:`fit_rotation`'s ``unrotated``) carries that feature's constraint,
    times the sign of its weight; every other rotated feature is free.  A
    tree monotonic in those columns is monotonic in the original features,
    since no other column reads them.
    """
    ptr, feat, wts = basis
    single = np.diff(ptr) == 1
    first = ptr[:-1]
    cst = np.where(single, np.asarray(monotonic_cst, dtype=np.float64)[feat[first]] * np.sign(wts[first]), 0.0)
    return tuple(float(c) + 0.0 for c in cst)


@njit
def _rotate(X, ptr, feat, wts, out):
    rows = np.arange(X.shape[0])
    col = np.empty(X.shape[0])
    for k in range(ptr.shape[0] - 1):
        # the predictor's arithmetic: float64 sum of weight * float32 value, in feature order
        project(X, rows, feat[ptr[k]:ptr[k + 1]].astype(np.int64), wts[ptr[k]:ptr[k + 1]], col)
        for i in range(X.shape[0]):
            out[i, k] = np.float32(col[i])


def rotate(X, basis):
    """``X R`` as a C-ordered float32 matrix, ``basis`` from :func:`fit_rotation`."""
    ptr, feat, wts = basis
    out = np.empty((X.shape[0], ptr.shape[0] - 1), dtype=np.float32)
    _rotate(X, ptr, feat, wts, out)
    return out


def to_original_space(tree, basis, n_features):
    """The tree grown on ``X R`` as an oblique tree over the original features.

    Axis-aligned nodes on rotated feature ``k`` become oblique nodes on
    column ``k`` of ``R``; projections a node model already recorded (in the
    original space) keep their ids.
    """
    ptr, feat, wts = basis
    nodes = tree.nodes.copy()
    axis = (nodes["left"] != TREE_LEAF) & (nodes["feature"] >= 0)
    used, inverse = np.unique(nodes["feature"][axis], return_inverse=True)
    n_old = tree.obl_ptr.shape[0] - 1
    sizes = ptr[used + 1] - ptr[used]
    new_ptr = np.concatenate([tree.obl_ptr, tree.obl_ptr[-1] + np.cumsum(sizes)]).astype(np.int64)
    pieces = [np.arange(ptr[k], ptr[k + 1]) for k in used]
    take = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
    new_feat = np.concatenate([tree.obl_feature, feat[take]]).astype(np.int32)
    new_w = np.concatenate([tree.obl_weight, wts[take]]).astype(np.float64)
    nodes["oblique"][axis] = n_old + inverse
    nodes["feature"][axis] = -1
    out = Tree(nodes, tree.values, n_features, new_ptr, new_feat, new_w)
    out.n_split_evaluations = getattr(tree, "n_split_evaluations", 0)
    return out


# -- the forest --------------------------------------------------------------
#: The rotation's PCA samples are random draws (75 % bootstrap, weighted by sample_weight): a draw
#: over n weighted rows is not the draw over the rows repeated, so the fitted forests differ.
ROTATION_XFAIL_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": (
        "each rotation is fitted on a random (weight-proportional) bootstrap sample; a draw over "
        "weighted rows is not the draw over repeated rows (scikit-learn marks the same check on "
        "its bagged forests)"
    ),
}

ROTATION_PARAMETER_CONSTRAINTS = {
    "n_features_per_subset": [Interval(Integral, 1, None, closed="left")],
    "sample_fraction": [Interval(Real, 0.0, 1.0, closed="right")],
}
#: Parameters of Rotation Forest's trees that the oblique forests built on the mixin do not expose.
_ROTATION_TREE_CONSTRAINTS = {
    "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
    "monotonic_cst": ["array-like", None],
}


class RotationForestMixin:
    """Per-tree pipeline shared by rotation and oblique forests; put it before
    :class:`ForestClassifier` / :class:`ForestRegressor` in the bases.

    The bagging loop is :meth:`BaseForest._fit`'s; this mixin overrides
    its hooks ``_prepare_fit_data``, ``_grow_tree`` and ``_growing_context``.
    Hooks for subclasses: ``_rotates()`` (default True) and
    ``_make_node_model(X, X_fit, basis, seed, params, min_weight_leaf)``
    (default None), where ``X`` is the float32 matrix the predictor sees,
    ``X_fit`` the matrix the tree is grown on (``X R`` or ``X``),
    ``basis`` the rotation (None for the identity), ``params`` the tree's
    :class:`~forestzoo._engine.api.TreeParams` and ``min_weight_leaf``
    the least weight of a leaf of this tree.  A node model must record its
    projections over the original features; its oblique splits are not
    held to ``monotonic_cst`` (the forests with node models do not take it).
    """

    def _rotates(self):
        return True

    def _make_node_model(self, X, X_fit, basis, seed, params, min_weight_leaf):
        return None

    def _prepare_fit_data(self, X, sample_weight, seeds):
        """``(X, shared)``: a rotating forest prepares each tree's ``X R`` in :meth:`_grow_tree`;
        the identity rotation shares one :class:`TrainingData` (``shared``, else None)."""
        shared = None if self._rotates() else prepare_data(X, self.splitter, self.max_bins,
                                                           seed=int(seeds[0] & 0x7FFFFFFF))
        return X, shared

    def _grow_tree(self, data, target, weights, params, seed):
        """Rotation (when the forest rotates), node model, growth on ``X R``, and the tree mapped back to ``X``.

        The rotation's PCA samples are drawn with probabilities proportional
        to ``weights`` (the tree's bootstrap and class weights).  Features
        with a monotonic constraint are left out of the rotation (each is
        its own column of ``R``, with weight 1), so the tree is constrained
        on those columns and is monotonic in the original features.
        """
        X, shared = data
        n_features = X.shape[1]
        basis, X_fit, tree_data = None, X, shared
        if shared is None:
            rng = np.random.default_rng(seed)
            cst = params.monotonic_cst
            unrotated = None if cst is None else np.flatnonzero(np.asarray(cst))
            n_classes = target.n_values if self._is_classifier() else 0
            basis = fit_rotation(X, target.yk, weights, rng, self.n_features_per_subset, self.sample_fraction,
                                 n_classes, unrotated=unrotated)
            X_fit = rotate(X, basis)
            tree_data = prepare_data(X_fit, self.splitter, self.max_bins, seed=seed & 0x7FFFFFFF)
            if cst is not None:
                params = replace(params, monotonic_cst=rotated_constraints(basis, cst))
        model = self._make_node_model(X, X_fit, basis, seed, params, params.min_weight_leaf(weights))
        tree = grow(tree_data, target, weights, params, seed, node_model=model)
        return tree if basis is None else to_original_space(tree, basis, n_features)

    def _growing_context(self):
        # each tree's PCA blocks and node models call LAPACK on small matrices: one BLAS thread per tree
        # thread (BLAS's own threads would oversubscribe the cores), and for any n_jobs, so that a tree's
        # floating-point sums, hence its splits, do not depend on n_jobs
        return single_threaded_blas()


_PARAMS_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees (the lecture's experiments use 50).
    criterion : {crit}
    splitter : {{"exact", "hist", "random"}}, default="exact"
        Split search on the rotated features: "exact" is CART (the lecture's
        base tree), "hist" bins ``X R`` per tree, "random" draws thresholds.
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
    max_features : {{"sqrt", "log2"}}, int, float or None, default=None
        Rotated features drawn at every node.  None (all of them) is Rotation
        Forest; "sqrt" is Random Rotation Forest (RRoF).
    max_leaf_nodes : int or None, default=None
        When set, every tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Bins per rotated feature for ``splitter="hist"``.
    n_features_per_subset : int, default=3
        ``M``, the size of the feature subsets rotated together; the
        features are split at random into ``ceil(n_features / M)`` subsets
        whose sizes differ by at most one.
    sample_fraction : float in (0, 1], default=0.75
        Size of the bootstrap sample each subset's PCA is fitted on, as a
        fraction of the rows left after the classes were eliminated.
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample (Rotation Forest uses all rows).
    max_samples : int, float or None, default=None
        Bootstrap sample size (int) or its ratio to ``n_samples`` (float), as
        in :class:`forestzoo.RandomForestClassifier`; needs ``bootstrap=True``.
    oob_score : bool, default=False
        Compute the out-of-bag score; needs ``bootstrap=True``.
{class_weight}    warm_start : bool, default=False
        Keep the fitted trees and add ``n_estimators - len(estimators_)`` new ones.
    n_jobs : int or None, default=None
        Threads fitting the trees (and predicting); results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the rotations, the samples and the trees' random draws.
    verbose : int, default=0
        Verbosity of the fit.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning of every grown tree (Breiman et al.
        1984), as in :class:`forestzoo.RandomForestClassifier`; 0 prunes
        nothing.
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Monotonicity constraint per original feature, as in scikit-learn: 1
        non-decreasing, -1 non-increasing, 0 free, on the predicted value
        (regression) or the probability of ``classes_[1]`` (binary
        classification only).  A constrained feature is left out of every
        rotation (it is a rotated feature of its own, with weight 1) and the
        trees are constrained on it, so every tree, and the forest, is
        monotonic in it; the unconstrained features are rotated as usual.
"""


class RotationForestClassifier(RotationForestMixin, ForestClassifier):
    _parameter_constraints = {
        **ForestClassifier._parameter_constraints,
        **ROTATION_PARAMETER_CONSTRAINTS,
        **_ROTATION_TREE_CONSTRAINTS,
        "splitter": [StrOptions({"exact", "hist", "random"})],
    }
    _fast_check_params = {"n_estimators": 5}
    _xfail_checks = ROTATION_XFAIL_CHECKS

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="exact", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_features=None, max_leaf_nodes=None, max_bins=255,
                 n_features_per_subset=3, sample_fraction=0.75, bootstrap=False, max_samples=None,
                 oob_score=False, class_weight=None, warm_start=False, n_jobs=None, random_state=None,
                 verbose=0, ccp_alpha=0.0, monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.n_features_per_subset = n_features_per_subset
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst


class RotationForestRegressor(RotationForestMixin, ForestRegressor):
    _parameter_constraints = {
        **ForestRegressor._parameter_constraints,
        **ROTATION_PARAMETER_CONSTRAINTS,
        **_ROTATION_TREE_CONSTRAINTS,
        "splitter": [StrOptions({"exact", "hist", "random"})],
    }
    _fast_check_params = {"n_estimators": 5}
    _xfail_checks = ROTATION_XFAIL_CHECKS

    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter="exact", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_features=None, max_leaf_nodes=None, max_bins=255,
                 n_features_per_subset=3, sample_fraction=0.75, bootstrap=False, max_samples=None,
                 oob_score=False, warm_start=False, n_jobs=None, random_state=None, verbose=0, ccp_alpha=0.0,
                 monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.n_features_per_subset = n_features_per_subset
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst


_REFS = """
    References
    ----------
    J. J. Rodriguez, L. I. Kuncheva, C. J. Alonso, "Rotation Forest: A New Classifier
    Ensemble Method", IEEE TPAMI 28(10), 2006.
    L. Zhang, P. N. Suganthan, "Oblique decision tree ensemble via multisurface proximal
    support vector machine", IEEE T-Cybernetics 45(10), 2015 (Random Rotation Forest).
    P. N. Suganthan, lecture "Random Forest and Variants" (Rotation Forest algorithm, Eq. 1.4).
"""

RotationForestClassifier.__doc__ = (
    """Rotation Forest (RoF) and Random Rotation Forest (RRoF) classifier.

    Each tree is grown on ``X R`` for its own block rotation ``R`` (PCA of
    random feature subsets, on a random subset of classes and a 75 %
    bootstrap sample); the forest averages the trees' class probabilities
    (lecture Eq. 1.4).  Fitted trees are stored as oblique trees over the
    original features, so prediction applies no transform.  With
    ``max_features="sqrt"`` every node also draws a random subspace of the
    rotated features: Random Rotation Forest.
"""
    + _PARAMS_DOC.format(crit='{"gini", "entropy", "log_loss"}, default="gini"\n        Impurity measure of the trees.', class_weight="""\
    class_weight : dict, "balanced", "balanced_subsample" or None, default=None
        Weights of the classes, multiplied into the sample weights;
        "balanced_subsample" recomputes the balanced weights on every
        bootstrap sample (with ``bootstrap=False``, the same as "balanced").
        The class weights also weight the rows each rotation's PCA samples
        are drawn from.
""")
    + """
    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        Trees whose ``tree_`` nodes project on columns of their rotation.
    classes_, n_classes_, n_features_in_, feature_names_in_, feature_importances_
        As in :class:`RandomForestClassifier`; an oblique node's impurity
        decrease is shared among its features in proportion to ``|weight|``.
    oob_score_, oob_decision_function_
        With ``oob_score=True``.

    See Also
    --------
    forestzoo.RandomForestClassifier : Axis-aligned trees on the original features.
    forestzoo.oblique.MPSVMForestClassifier : Oblique trees with MPSVM node splits.
"""
    + _REFS
    + """
    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo.ensemble import RotationForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> rof = RotationForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> rof.score(X, y)
    1.0
    >>> rrof = RotationForestClassifier(n_estimators=10, max_features="sqrt", random_state=0)
    >>> rrof.fit(X, y).predict_proba(X[:1]).shape
    (1, 3)
    """
)

RotationForestRegressor.__doc__ = (
    """Rotation Forest for regression (squared error).

    As :class:`RotationForestClassifier` without the elimination of classes:
    each feature subset's PCA is fitted on a 75 % bootstrap sample of the
    rows; the forest averages the trees' leaf means.
"""
    + _PARAMS_DOC.format(crit='{"squared_error"}, default="squared_error"\n        Impurity measure of the trees.', class_weight="")
    + """
    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
    n_features_in_, feature_names_in_, feature_importances_
    oob_score_, oob_prediction_
        With ``oob_score=True``.

    See Also
    --------
    RotationForestClassifier : The classifier.
    forestzoo.RandomForestRegressor : Axis-aligned trees on the original features.
"""
    + _REFS
    + """
    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from forestzoo.ensemble import RotationForestRegressor
    >>> X, y = make_regression(n_samples=200, n_features=6, random_state=0)
    >>> reg = RotationForestRegressor(n_estimators=10, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.95
    True
    """
)
