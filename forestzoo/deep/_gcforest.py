"""gcForest (Zhou & Feng 2017): multi-grained scanning feeding a cascade of cascade forests."""

from numbers import Integral

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt

from .._base import MAX_SEED, EngineEstimator
from .._validation import check_fit_data, check_predict_data
from ._cascade import CASCADE_PARAMETER_CONSTRAINTS, cascade_templates, tree_count
from ._level import cascade_transform, grow_cascade, make_folds, mean_vector
from ._scanning import SCANNING_PARAMETER_CONSTRAINTS, make_grains, scanning_templates


class GCForestClassifier(ClassifierMixin, EngineEstimator):
    """The gcForest: multi-grained scanning, then a cascade of cascade forests (Zhou & Feng 2017).

    Each window size (*grain*) of :class:`MultiGrainedScanner` turns a
    sample into the class vectors of its windows.  The cascade then works
    grade by grade: within a level, grade ``g`` reads grain ``g``'s features
    plus the class vectors of the grade before it (the last grade of the
    previous level, for ``g = 0``; nothing for the very first grade), so a
    level is a cascade of one grade per grain -- a "cascade of cascades".
    Every grade is a cascade level of :class:`CascadeForestClassifier`
    (random forests and completely-random tree forests whose training class
    vectors come from out-of-fold predictions).  Levels are added until the
    out-of-fold accuracy of the last grade has not improved for
    ``n_tolerant_rounds`` levels; the prediction averages the class vectors
    of the last grade of the best level.

    The scanning forests' features of the training samples are out-of-fold
    too, over the same folds as the cascade, with all windows of a sample in
    the sample's fold.

    Parameters
    ----------
    window_sizes : list or tuple, default=(1/16, 1/9, 1/4)
        One grain per entry; see :class:`MultiGrainedScanner`.
    image_shape : (int, int) or None, default=None
        ``(height, width)`` of images flattened row by row; None: sequences.
    stride : int, default=1
        Window step.
    scan_n_estimators : int, default=100
        Trees per scanning forest and fold.
    max_window_samples : int or None, default=None
        Most window instances each scanning forest is trained on; None: all.
    scan_min_samples_leaf : int or float, default=10
        ``min_samples_leaf`` of the scanning forests.  Window instances are
        many and often repeat, so fully grown scanning trees get a leaf per
        instance: on 8x8 digits (3 windows, 100 trees) they took 18 GB.
    n_estimators : int, default=100
        Trees per cascade forest and fold.
    n_random_forests : int, default=2
        Random forests of each grade.
    n_completely_random_forests : int, default=2
        Completely-random tree forests of each grade.
    n_folds : int, default=3
        Folds of the cross-validation behind every forest's training class
        vectors, in the scanner and in the cascade; each fold forest is
        trained on ``(n_folds - 1) / n_folds`` of the rows, and a new sample
        gets the mean of the fold forests. With few samples per class more
        folds help: on ORL faces with 5 images per person and fully grown
        scanning trees, 5 folds gave 91.7 % against 89.9 % with 3 (five
        splits; docs/results/gcforest.md), at 5/3 of the fit time and size.
    max_levels : int, default=20
        Most levels (each with one grade per grain).
    n_tolerant_rounds : int, default=2
        Levels grown past the best one before growth stops.
    max_depth : int or None, default=None
        Depth limit of the cascade's trees.
    min_samples_leaf : int or float, default=1
        ``min_samples_leaf`` of the cascade's trees.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Features per node of every random forest (scanning and cascade).
    working_memory : int or None, default=None
        MiB of windows cut at once (see :class:`MultiGrainedScanner`).
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
    grains_ : list of Grain
        The fitted scanning, one per window size.
    window_shapes_ : list of (int, int)
    levels_ : list of list of CascadeLevel
        The kept levels, each a list of grades (one per grain).  As in
        :class:`CascadeForestClassifier`, the fold forests' trees keep only
        what prediction reads (no sample counts, impurities or importances).
    n_levels_ : int
    level_scores_ : ndarray
        Out-of-fold accuracy of the last grade of every grown level.
    oof_score_ : float
    oof_decision_function_ : ndarray of shape (n_samples, n_classes)
    n_trees_ : int
        Trees used at prediction: scanning and kept cascade levels.

    See Also
    --------
    MultiGrainedScanner : The multi-grained scanning on its own.
    CascadeForestClassifier : The cascade without scanning.

    References
    ----------
    Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep
    Neural Networks", IJCAI 2017.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from forestzoo import GCForestClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = GCForestClassifier(window_sizes=[4, 6], image_shape=(8, 8), stride=2,
    ...                          scan_n_estimators=10, n_estimators=10, max_levels=2,
    ...                          random_state=0).fit(X[:300], y[:300])
    >>> clf.window_shapes_
    [(4, 4), (6, 6)]
    >>> clf.predict_proba(X[300:302]).shape
    (2, 10)
    """

    _parameter_constraints = {
        **CASCADE_PARAMETER_CONSTRAINTS,
        **SCANNING_PARAMETER_CONSTRAINTS,
        "scan_n_estimators": [Interval(Integral, 1, None, closed="left")],
        "scan_min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                                  Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    }
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": "a repeated row may fall in another fold than its twin, "
                                                         "and the bootstrap of a weighted row is not that of "
                                                         "repeated rows (scikit-learn marks the same check on "
                                                         "its RandomForest*)",
    }
    _fast_check_params = {"scan_n_estimators": 3, "n_estimators": 3, "n_folds": 2, "max_levels": 2,
                          "n_tolerant_rounds": 1}

    def __init__(self, window_sizes=(1 / 16, 1 / 9, 1 / 4), *, image_shape=None, stride=1, scan_n_estimators=100,
                 max_window_samples=None, scan_min_samples_leaf=10, n_estimators=100, n_random_forests=2,
                 n_completely_random_forests=2, n_folds=3, max_levels=20, n_tolerant_rounds=2, max_depth=None,
                 min_samples_leaf=1, max_features="sqrt", working_memory=None, n_jobs=None, random_state=None,
                 verbose=0):
        self.window_sizes = window_sizes
        self.image_shape = image_shape
        self.stride = stride
        self.scan_n_estimators = scan_n_estimators
        self.max_window_samples = max_window_samples
        self.scan_min_samples_leaf = scan_min_samples_leaf
        self.n_estimators = n_estimators
        self.n_random_forests = n_random_forests
        self.n_completely_random_forests = n_completely_random_forests
        self.n_folds = n_folds
        self.max_levels = max_levels
        self.n_tolerant_rounds = n_tolerant_rounds
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.working_memory = working_memory
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=True)
        yk, _, n_classes, classes = self._encode_target(y)
        if n_classes < 2:
            raise ValueError(f"GCForestClassifier needs samples of at least 2 classes; got 1 class ({classes[0]!r}).")
        grains = make_grains(self, X.shape[1], n_classes, scanning_templates(
            self.scan_n_estimators, None, self.scan_min_samples_leaf, self.max_features, self.n_jobs))
        cascade = cascade_templates(self, classification=True)
        rng = check_random_state(self.random_state)
        folds = make_folds(yk, self.n_folds, True, int(rng.randint(MAX_SEED)), sample_weight)
        features = []
        for i, grain in enumerate(grains):
            out = np.empty((X.shape[0], grain.n_features_out), dtype=np.float32)
            features.append(grain.fit(X, yk, sample_weight, folds, rng, self.max_window_samples,
                                      self.working_memory, out=out))
            if self.verbose:
                print(f"scanning grain {i + 1}/{len(grains)}: window {grain.window}, {grain.n_windows} windows")
        del X
        levels, scores, vectors = grow_cascade(features, yk, sample_weight, folds, rng, cascade, n_classes, True,
                                               self.max_levels, self.n_tolerant_rounds, self.verbose)
        # state is assigned only now: a failed fit leaves the previous model intact
        self.classes_ = classes
        self.n_classes_ = int(n_classes)
        self.grains_ = grains
        self.window_shapes_ = [g.window for g in grains]
        self.levels_ = levels
        self.n_levels_ = len(levels)
        self.level_scores_ = np.asarray(scores)
        self.oof_score_ = float(np.max(scores))
        self.oof_decision_function_ = mean_vector(vectors, n_classes)
        self.n_trees_ = tree_count(levels) + sum(g.n_trees for g in grains)
        return self

    @property
    def feature_importances_(self):
        """Not available: gcForest's cascade splits on the class vectors of windows, not on the input features.

        Multi-grained scanning (Zhou & Feng 2017, Sec. 3.3) turns every
        window of the input into the class vector a scanning forest gives it,
        and every grade of the cascade reads those vectors (and the class
        vectors of the grade before it), never the input features.  An input
        feature lies in many windows, at a different position in each, and a
        window's class vector is the output of a whole forest, so no share of
        a split's impurity decrease belongs to one input feature.
        :class:`CascadeForestClassifier`, whose first level reads the features
        themselves, has ``feature_importances_``.

        Raises
        ------
        AttributeError
            Always, so that ``hasattr(clf, "feature_importances_")`` is False.
        """
        raise AttributeError(
            "GCForestClassifier has no feature_importances_: its cascade splits on the class vectors of "
            "multi-grained scanning windows, which do not map back to the input features. "
            "CascadeForestClassifier, whose trees split on the features themselves, has them.")

    def predict_proba(self, X):
        """Mean class vector of the last grade of the last kept level.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (flattened images or sequences).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        X = check_predict_data(self, X)
        features = [grain.transform(X, self.working_memory) for grain in self.grains_]
        return mean_vector(cascade_transform(self.levels_, features), self.n_classes_)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (flattened images or sequences).

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
            The samples (flattened images or sequences).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
