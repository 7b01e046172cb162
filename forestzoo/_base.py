"""What the estimators share, on the estimator side of the engine: parameters, seeds and the fit protocol.

* :class:`EngineEstimator` -- the base of the engine's estimators: the
  transactional ``fit`` and the encoding of ``y``;
* :data:`TREE_PARAMETER_CONSTRAINTS`, :data:`CLASSIFICATION_CRITERIA`,
  :data:`REGRESSION_CRITERIA` -- scikit-learn parameter validation of the
  tree parameters;
* :func:`tree_params` -- an estimator's tree parameters resolved for the
  training data, as the engine's :class:`~forestzoo._engine.api.TreeParams`,
  with its helpers :func:`min_counts`, :func:`check_monotonic_cst` and the
  ``sdt_*`` parameters (:data:`SDT_PARAMS`, :data:`SDT_DEFAULT_PARAMS`,
  :func:`sdt_values`);
* :data:`MAX_SEED` -- the exclusive upper bound of the seeds an estimator
  draws from its ``random_state`` for the trees and sub-estimators it fits;
* :func:`importance_sum` and :func:`forest_importances` -- impurity-based
  (MDI) feature importances of an ensemble of trees.

The engine is reached through :mod:`forestzoo._engine.api` only, and never
imports this module.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from ._engine.api import (
    MAX_BINS, SDT_DEFAULTS, SPLITTERS, MultiOutputTarget, TreeParams, check_multi_output, resolve_max_features,
)
from ._validation import keep_state_on_error

#: Seeds drawn from a ``random_state`` lie in ``[0, MAX_SEED)``.
MAX_SEED = np.iinfo(np.int32).max

TREE_PARAMETER_CONSTRAINTS = {
    "splitter": [StrOptions(set(SPLITTERS))],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [Interval(Integral, 2, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "max_bins": [Interval(Integral, 2, MAX_BINS, closed="both")],
    "random_state": ["random_state"],
    # SDT (splitter="stochastic"), Section 3 of the SDT paper: rows per round N_j / 2^C, at most alpha rounds
    "sdt_C": [Interval(Integral, 1, 31, closed="both")],
    "sdt_alpha": [Interval(Integral, 1, None, closed="left")],
    "sdt_min_features_fraction": [Interval(Real, 0.0, 1.0, closed="right")],
    "sdt_n0": [Interval(Integral, 1, None, closed="left")],
}
CLASSIFICATION_CRITERIA = {"gini", "entropy", "log_loss"}
REGRESSION_CRITERIA = {"squared_error", "friedman_mse", "poisson", "absolute_error"}

#: The stochastic splitter's estimator parameters, in the engine's order (C, alpha, min_features_fraction, N_0).
SDT_PARAMS = ("sdt_C", "sdt_alpha", "sdt_min_features_fraction", "sdt_n0")
SDT_DEFAULT_PARAMS = dict(zip(SDT_PARAMS, (int(SDT_DEFAULTS[0]), int(SDT_DEFAULTS[1]), SDT_DEFAULTS[2],
                                           int(SDT_DEFAULTS[3]))))


def min_counts(min_samples_split, min_samples_leaf, n_samples):
    """Integer ``(min_samples_split, min_samples_leaf)``; floats are fractions of ``n_samples``."""
    msl = min_samples_leaf
    if not isinstance(msl, Integral):
        msl = int(np.ceil(msl * n_samples))
    mss = min_samples_split
    if not isinstance(mss, Integral):
        mss = int(np.ceil(mss * n_samples))
    return max(2, mss, 2 * msl), max(1, msl)


def sdt_values(estimator):
    """``{name: value}`` of the SDT parameters of ``estimator``.

    An estimator class that does not expose them (a subclass with its own
    ``__init__``) gets the paper's defaults.
    """
    return {p: getattr(estimator, p, d) for p, d in SDT_DEFAULT_PARAMS.items()}


def check_monotonic_cst(estimator, n_features, n_values, cst=None):
    """``estimator.monotonic_cst`` (or ``cst`` when given) checked against the data, as float64; None when unset.

    The constraints are scikit-learn's: one of -1 (decreasing), 0 (none) or
    +1 (increasing) per feature, on the predicted value of a regressor or on
    the probability of the second class of a binary classifier.
    """
    if cst is None:
        cst = getattr(estimator, "monotonic_cst", None)
    if cst is None:
        return None
    arr = np.asarray(cst)
    if arr.ndim != 1 or arr.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {arr.shape} but the input data X has {n_features} features.")
    if not np.isin(arr, (-1, 0, 1)).all():
        raise ValueError(f"monotonic_cst must be None or an array-like of -1, 0 or 1, but got {np.unique(arr)}.")
    if isinstance(estimator, ClassifierMixin) and n_values > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass classification.")
    if estimator.splitter == "stochastic":
        raise ValueError('Monotonicity constraints are not supported with splitter="stochastic".')
    return arr.astype(np.float64)


def tree_params(estimator, n_samples, n_features, n_values=1, **overrides):
    """The :class:`~forestzoo._engine.api.TreeParams` of the trees ``estimator`` grows.

    Reads the scikit-learn-style parameters ``criterion``,
    ``max_features``, ``max_depth``, ``min_samples_split``,
    ``min_samples_leaf``, ``min_weight_fraction_leaf``,
    ``min_impurity_decrease``, ``max_leaf_nodes``, ``ccp_alpha``,
    ``monotonic_cst`` and ``sdt_*`` from ``estimator``; one it does not
    have takes the engine's default (every feature, no limit, no pruning,
    no constraint, the SDT paper's settings).  ``overrides`` (same names)
    replace the estimator's values, for parameters a model fixes.
    ``max_features`` is resolved for ``n_features``, fractional leaf
    sizes for ``n_samples`` (the training data's shape);
    ``monotonic_cst`` is checked against ``n_features`` and ``n_values``
    (the classes, for a classifier).
    """
    def get(name, default):
        return overrides[name] if name in overrides else getattr(estimator, name, default)

    mss, msl = min_counts(get("min_samples_split", 2), get("min_samples_leaf", 1), n_samples)
    mono = check_monotonic_cst(estimator, n_features, n_values, get("monotonic_cst", None))
    max_depth = get("max_depth", None)
    max_leaf_nodes = get("max_leaf_nodes", None)
    return TreeParams(
        criterion=get("criterion", None),
        max_features=resolve_max_features(get("max_features", None), n_features),
        max_depth=None if max_depth is None else int(max_depth),
        min_samples_split=mss,
        min_samples_leaf=msl,
        min_weight_fraction_leaf=float(get("min_weight_fraction_leaf", 0.0)),
        min_impurity_decrease=float(get("min_impurity_decrease", 0.0)),
        max_leaf_nodes=None if max_leaf_nodes is None else int(max_leaf_nodes),
        ccp_alpha=float(get("ccp_alpha", 0.0)),
        monotonic_cst=None if mono is None else tuple(float(c) for c in mono),
        sdt=tuple(float(get(p, d)) for p, d in SDT_DEFAULT_PARAMS.items()),
    )


def multi_output_params(estimator, shape):
    """The :class:`~forestzoo._engine.api.TreeParams` of ``estimator``'s trees on a multi-output ``y``.

    ``shape`` is ``X``'s.  Refuses (``ValueError``, scikit-learn's message)
    ``monotonic_cst``, and what multi-output trees do not support
    (:func:`~forestzoo._engine.api.check_multi_output`).
    """
    if getattr(estimator, "monotonic_cst", None) is not None:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    params = tree_params(estimator, shape[0], shape[1])
    check_multi_output(estimator.splitter, params)
    return params


def split_outputs(values, n_classes):
    """Flat value rows ``(n, n_outputs * K)`` as the list of each output's ``(n, n_classes[o])`` columns."""
    width = values.shape[1] // len(n_classes)
    return [values[:, o * width:o * width + int(k)].copy() for o, k in enumerate(n_classes)]


def predict_labels(proba, classes):
    """The most probable label of every output, ``(n, n_outputs)``, from the list ``proba`` of each output's."""
    out = np.empty((proba[0].shape[0], len(classes)), dtype=classes[0].dtype)
    for o, (p, labels) in enumerate(zip(proba, classes)):
        out[:, o] = labels[np.argmax(p, axis=1)]
    return out


class EngineEstimator(BaseEstimator):
    """What trees and forests share: the transactional ``fit`` and ``y`` encoding.

    Subclasses implement ``_fit(X, y, sample_weight)``.  ``_encode_target``
    returns ``(yk, yr, n_values, classes)``: int32 class codes, float64
    targets (one of the two is zeros), the width of the value array and the
    sorted class labels (None for a regressor).
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit on ``(X, y)``; a failed fit leaves a previously fitted model intact.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training samples; NaN marks a missing value.  Sparse ``X``
            where the estimator accepts it (see its class docstring).
        y : array-like of shape (n_samples,)
            The class labels (classifiers) or the targets (regressors).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each sample; None weighs them equally.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        with keep_state_on_error(self):
            return self._fit(X, y, sample_weight)

    def _encode_target_multi(self, y):
        """A 2-D ``y`` as a :class:`~forestzoo._engine.api.MultiOutputTarget`, and the classes of each output.

        Returns ``(target, classes)``: ``classes`` is the list of every
        output's sorted labels (None for a regressor).
        """
        if not self._is_classifier():
            return MultiOutputTarget(np.ascontiguousarray(y, dtype=np.float64)), None
        codes = np.empty(y.shape, dtype=np.float64)
        classes = []
        for o in range(y.shape[1]):
            labels, codes[:, o] = np.unique(y[:, o], return_inverse=True)
            classes.append(labels)
        return MultiOutputTarget(codes, tuple(int(c.shape[0]) for c in classes)), classes

    def _encode_target(self, y):
        n = y.shape[0]
        if self._is_classifier():
            classes, yk = np.unique(y, return_inverse=True)
            return yk.astype(np.int32), np.zeros(n), classes.shape[0], classes
        yr = y.astype(np.float64)
        return np.zeros(n, np.int32), yr, 1, None

    def _is_classifier(self):
        return isinstance(self, ClassifierMixin)


def importance_sum(trees, n_features, weights=None, normalize_trees=True):
    """The impurity-based (MDI) importances of ``trees`` summed in tree order, shape (n_features,).

    Each tree's importances are normalised to sum to one first when
    ``normalize_trees`` (scikit-learn's forests and AdaBoost), its raw
    impurity decreases otherwise (gradient boosting), and multiplied by
    ``weights[t]`` when ``weights`` is given.
    """
    imp = np.zeros(n_features)
    for t, tree in enumerate(trees):
        mdi = tree.compute_feature_importances(normalize=normalize_trees)
        imp += mdi if weights is None else weights[t] * mdi
    return imp


def forest_importances(trees, n_features, weights=None, normalize_trees=True):
    """:func:`importance_sum` normalised to sum to one; all zeros when no tree's splits decrease the impurity."""
    imp = importance_sum(trees, n_features, weights, normalize_trees)
    total = imp.sum()
    return imp / total if total > 0 else imp
