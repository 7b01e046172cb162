"""The cascade forest of Zhou & Feng (2017): levels of forests stacked on out-of-fold class vectors."""

from numbers import Integral

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import MAX_SEED, EngineEstimator
from .._validation import check_fit_data, check_predict_data
from ._level import cascade_transform, forest_templates, grow_cascade, make_folds, mean_vector


#: Constraints of the cascade's forests, shared with :class:`GCForestClassifier`.
CASCADE_PARAMETER_CONSTRAINTS = {
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "n_random_forests": [Interval(Integral, 0, None, closed="left")],
    "n_completely_random_forests": [Interval(Integral, 0, None, closed="left")],
    "n_folds": [Interval(Integral, 2, None, closed="left")],
    "max_levels": [Interval(Integral, 1, None, closed="left")],
    "n_tolerant_rounds": [Interval(Integral, 1, None, closed="left")],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}
_FOREST_KEYS = ("n_estimators", "n_random_forests", "n_completely_random_forests", "max_depth",
                "min_samples_leaf", "max_features", "n_jobs")


def cascade_templates(estimator, classification):
    """The unfitted forests of one level, from the estimator's parameters."""
    params = {key: getattr(estimator, key) for key in _FOREST_KEYS}
    if params["n_random_forests"] + params["n_completely_random_forests"] < 1:
        raise ValueError(
            "n_random_forests + n_completely_random_forests must be at least 1; a level needs a forest."
        )
    return forest_templates(params, classification)


def tree_count(levels):
    """Trees used at prediction time: every fold forest of every kept grade."""
    return sum(grade.n_trees for grades in levels for grade in grades)


class BaseCascadeForest(EngineEstimator):
    """Fit / predict shared by the cascade forest classifier and regressor; not for direct use."""

    _parameter_constraints = dict(CASCADE_PARAMETER_CONSTRAINTS)
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": "a repeated row may fall in another fold than its twin, "
                                                         "and the bootstrap of a weighted row is not that of "
                                                         "repeated rows (scikit-learn marks the same check on "
                                                         "its RandomForest*)",
    }
    _fast_check_params = {"n_estimators": 3, "n_folds": 2, "max_levels": 2, "n_tolerant_rounds": 1}

    def __init__(self, n_estimators=100, *, n_random_forests=2, n_completely_random_forests=2, n_folds=3,
                 max_levels=20, n_tolerant_rounds=2, max_depth=None, min_samples_leaf=1, max_features="sqrt",
                 n_jobs=None, random_state=None, verbose=0):
        self.n_estimators = n_estimators
        self.n_random_forests = n_random_forests
        self.n_completely_random_forests = n_completely_random_forests
        self.n_folds = n_folds
        self.max_levels = max_levels
        self.n_tolerant_rounds = n_tolerant_rounds
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _fit(self, X, y, sample_weight):
        classification = self._is_classifier()
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification)
        yk, yr, n_outputs, classes = self._encode_target(y)
        if classification and n_outputs < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; got 1 class ({classes[0]!r})."
            )
        target = yk if classification else yr
        rng = check_random_state(self.random_state)
        templates = cascade_templates(self, classification)
        folds = make_folds(target, self.n_folds, classification, int(rng.randint(MAX_SEED)), sample_weight)
        levels, scores, vectors = grow_cascade(
            [X], target, sample_weight, folds, rng, templates, n_outputs, classification,
            self.max_levels, self.n_tolerant_rounds, self.verbose, keep_importances=True,
        )
        # state is assigned only now: a failed fit leaves the previous model intact
        if classification:
            self.classes_ = classes
            self.n_classes_ = int(n_outputs)
            self.oof_decision_function_ = mean_vector(vectors, n_outputs)
        else:
            self.oof_prediction_ = mean_vector(vectors, n_outputs)[:, 0]
        self.levels_ = [grades[0] for grades in levels]
        self.n_levels_ = len(levels)
        self.level_scores_ = np.asarray(scores)
        self.oof_score_ = float(np.max(scores))
        self.n_trees_ = tree_count(levels)
        self._n_outputs = n_outputs
        return self

    def _mean_vector(self, X):
        X = check_predict_data(self, X)
        vectors = cascade_transform([[level] for level in self.levels_], [X])
        return mean_vector(vectors, self._n_outputs)

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importances of the original features, over every tree of the kept levels.

        Every fold forest of every kept level is a forest of engine trees; a
        level after the first reads the original features followed by the
        class vectors (predictions) of the level before it.  Each tree's
        impurity decreases, weighted by its nodes' sample weights, are
        normalised to sum to one over all the features it read; the parts of
        the original features are summed over all trees of all kept levels
        and normalised to sum to one, as
        :class:`~forestzoo.RandomForestClassifier` averages its trees.  The
        share of the appended class vectors is left out rather than passed
        back to the features they were computed from: a class vector is the
        output of a whole forest of the level before, not a function of any
        one feature, so no share of it belongs to a feature.  A level whose
        trees split mostly on class vectors thus adds little; the first level
        reads the original features only.  The importances are recorded at
        fit, before the fold forests drop the node statistics they need.
        All zeros when no tree splits on an original feature.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``

        Raises
        ------
        AttributeError
            For a model fitted by a forestzoo version that did not record them.
        """
        check_is_fitted(self)
        d = self.n_features_in_
        total = np.zeros(d)
        for level in self.levels_:
            for forest in level.forests:
                imp = getattr(forest, "importance_sum_", None)
                if imp is None:
                    raise AttributeError(
                        f"This {type(self).__name__} was fitted without recording its trees' importances "
                        "(the fold forests keep only what prediction reads); refit it to get "
                        "feature_importances_.")
                total += imp[:d]
        s = total.sum()
        return total / s if s > 0 else total

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class CascadeForestClassifier(ClassifierMixin, BaseCascadeForest):
    """Cascade forest classifier (Zhou & Feng 2017): levels of forests fed by class vectors.

    Every level holds ``n_random_forests`` random forests and
    ``n_completely_random_forests`` completely-random tree forests (Extra
    Trees with one random feature per node).  Each forest's class vector for
    a training sample is its out-of-fold class distribution from
    ``n_folds``-fold stratified cross-validation, so it never comes from a
    forest that saw the sample.  A level reads the original features plus
    all class vectors of the level before it.  Levels are added until the
    out-of-fold accuracy of the level's averaged class vector has not
    improved for ``n_tolerant_rounds`` levels; the levels after the best one
    are dropped, and the prediction averages the class vectors of the last
    kept level.

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest and fold.
    n_random_forests : int, default=2
        Random forests per level (bootstrap, ``max_features`` features per node).
    n_completely_random_forests : int, default=2
        Completely-random tree forests per level.
    n_folds : int, default=3
        Folds of the cross-validation that produces the training class
        vectors; a new sample gets the mean of the ``n_folds`` fold forests.
    max_levels : int, default=20
        Most levels grown.
    n_tolerant_rounds : int, default=2
        Levels grown past the best one before growth stops.
    max_depth : int or None, default=None
        Depth limit of every tree; None grows leaves until pure.
    min_samples_leaf : int or float, default=1
        Least number of samples (a fraction of them when a float) in a leaf.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Features drawn per node in the random forests.
    n_jobs : int or None, default=None
        Threads of each forest's fit and predict; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the folds and of every forest.
    verbose : int, default=0
        Print each level's out-of-fold accuracy.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray, when X has string column names
    levels_ : list of CascadeLevel
        The kept levels; ``levels_[i].forests[j].estimators_`` are the fold forests.
        Their trees keep only what prediction reads (``PredictionTree``, about 20
        bytes a node): structure and float32 thresholds, but no sample counts or
        impurities, so a fold forest has no ``feature_importances_``.
    n_levels_ : int
    level_scores_ : ndarray
        Out-of-fold accuracy of every grown level, including the dropped ones.
    oof_score_ : float
        The best of ``level_scores_`` (that of the last kept level).
    oof_decision_function_ : ndarray of shape (n_samples, n_classes)
        Averaged out-of-fold class vectors of the training samples at the last kept level.
    n_trees_ : int
        Trees used at prediction (all fold forests of the kept levels).

    See Also
    --------
    GCForestClassifier : Multi-grained scanning in front of a cascade.
    CascadeForestRegressor : The cascade for regression.
    RandomForestClassifier : The random forests of every level.
    ExtraTreesClassifier : Completely-random forests are Extra Trees with one feature per node.

    References
    ----------
    Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep
    Neural Networks", IJCAI 2017.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import CascadeForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = CascadeForestClassifier(n_estimators=10, max_levels=3, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    >>> bool(clf.oof_score_ > 0.9)
    True
    """

    _parameter_constraints = dict(BaseCascadeForest._parameter_constraints)

    def predict_proba(self, X):
        """Mean of the last kept level's class vectors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._mean_vector(X)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class in :attr:`classes_` order.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Class with the highest mean class-vector entry.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class CascadeForestRegressor(RegressorMixin, BaseCascadeForest):
    """Cascade forest regressor: the cascade of :class:`CascadeForestClassifier` on predictions.

    Each forest hands the next level its out-of-fold prediction (a vector of
    length 1) instead of a class vector; levels stop when the out-of-fold
    R^2 of the level's mean prediction has not improved for
    ``n_tolerant_rounds`` levels.  Parameters are those of
    :class:`CascadeForestClassifier` (folds are plain shuffled k-fold).

    Parameters
    ----------
    n_estimators : int, default=100
        Trees per forest and fold.
    n_random_forests : int, default=2
        Random forests per level.
    n_completely_random_forests : int, default=2
        Completely-random tree forests per level.
    n_folds : int, default=3
        Folds of the cross-validation that produces the training predictions.
    max_levels : int, default=20
        Most levels grown.
    n_tolerant_rounds : int, default=2
        Levels grown past the best one before growth stops.
    max_depth : int or None, default=None
        Depth limit of every tree; None grows leaves until pure.
    min_samples_leaf : int or float, default=1
        Least number of samples (a fraction of them when a float) in a leaf.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Features drawn per node in the random forests.
    n_jobs : int or None, default=None
        Threads of each forest's fit and predict; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the folds and of every forest.
    verbose : int, default=0
        Print each level's out-of-fold R^2.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    levels_ : list of CascadeLevel
        The kept levels, as in :class:`CascadeForestClassifier`.
    n_levels_ : int
        Number of kept levels.
    n_trees_ : int
        Trees used at prediction.
    level_scores_ : ndarray
        Out-of-fold R^2 of every grown level.
    oof_score_ : float
        The best of ``level_scores_``.
    oof_prediction_ : ndarray of shape (n_samples,)
        Out-of-fold prediction of the training samples at the last kept level.

    See Also
    --------
    CascadeForestClassifier : The cascade for classification.
    RandomForestRegressor : The random forests of every level.

    References
    ----------
    Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep
    Neural Networks", IJCAI 2017.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from forestzoo import CascadeForestRegressor
    >>> X, y = make_regression(n_samples=200, n_features=5, random_state=0)
    >>> reg = CascadeForestRegressor(n_estimators=10, max_levels=3, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints = dict(BaseCascadeForest._parameter_constraints)

    def predict(self, X):
        """Mean of the last kept level's forest predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._mean_vector(X)[:, 0]
