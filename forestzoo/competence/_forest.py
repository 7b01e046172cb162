"""Competence-area decision forest (Donskoy 2016)."""

import warnings
from numbers import Integral, Real

import numpy as np
from joblib import delayed
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import CLASSIFICATION_CRITERIA, EngineEstimator, forest_importances, tree_params
from .._engine.api import MAX_BINS, SPLITTERS, draw_seeds
from .._parallel import Parallel
from .._validation import check_fit_data, check_predict_data
from ._chain import build_chain, combine, tree_answers
from ._selective import selective_scores

#: Values of ``gamma`` tried by ``gamma="auto"``.  With ``n`` features and a
#: branch of ``l_t`` rows the MDL threshold is ``gamma * log2(n) / log2(l_t)``
#: errors, so this range goes from "any error reduction continues the branch"
#: to "only large reductions do" on the datasets of the lecture-uci suite.
GAMMA_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


class CompetenceForestClassifier(ClassifierMixin, EngineEstimator):
    """Decision forest of smart trees with areas of incompetence (Donskoy 2016).

    Every tree is grown with the best split at each node and cut by the MDL
    rule of Section 4: a branch keeps growing while the split it would add
    reduces its training errors by at least ``C_p / C_E = gamma * d *
    log2(n) / log2(l_t)`` (Eq. 3-6; ``n`` features, ``d = 1`` feature per
    predicate, ``l_t`` rows in the branch).  A pure branch ends in a class
    leaf; a branch stopped by the rule ends in an *incompetence* leaf that
    points to the next tree.  The next tree is grown on the training rows
    that fell into the incompetence areas of all previous trees, until no
    competent tree can be built or ``max_estimators`` trees exist.

    Parameters
    ----------
    strategy : {"first_competent", "weighted_vote"}, default="weighted_vote"
        "first_competent": the first tree, in order of synthesis, that is
        competent for the object answers (strategy 1 of Section 5).
        "weighted_vote": the competent trees vote, tree ``j`` (1-based rank)
        with weight ``W_j = N_o / (j * lambda_j(x))``, ``N_o`` the number of
        trees and ``lambda_j(x)`` the length of the object's branch
        (strategy 2; a one-leaf tree counts as length 1).
    gamma : float > 0 or "auto", default="auto"
        Coefficient of the MDL threshold.  "auto" picks it from
        :data:`GAMMA_GRID` by ``cv``-fold cross-validation on the training
        data, maximising the accuracy of ``predict`` (rejections count as
        errors with ``reject="label"``; ties go to the larger gamma).  With
        fewer than two rows there is nothing to cross-validate and
        ``gamma_`` is 1.0.
    reject : {"fallback", "label", "nan"}, default="fallback"
        What the forest answers for an object every tree is incompetent for.
        "label" is the paper's own behaviour: such an object lies outside
        every competence area and is *rejected*; ``predict`` returns
        ``reject_label`` and ``predict_proba`` a row of NaN, so the forest is
        a selective classifier (see :meth:`selective_report`).  "nan" is the
        same as "label".  "fallback" (an addition to the paper, so that
        ``predict`` always answers with a class): the class frequencies of
        the incompetence leaf the object reaches in the last tree (the
        training rows that fell through every tree to that area), i.e. a
        shallow tree answers the objects the forest is not competent for.
    reject_label : int, float or str, default=-1
        Label ``predict`` returns for a rejected object when
        ``reject="label"`` or ``"nan"``; it must not be one of the classes.
    max_estimators : int, default=50
        Most trees built.
    patience : int, default=1
        Candidate trees without any competent leaf tolerated in a row before
        construction stops.  1 is the paper's rule (stop when the next tree
        cannot be made competent).  Larger values only matter for randomised
        trees (``max_features`` below the number of features, or
        ``splitter="random"``): a deterministic tree grown on the same rows as
        a failed candidate is that candidate again.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        How the best predicate of a node is chosen.
    splitter : {"exact", "hist", "random"}, default="exact"
    max_depth : int or None, default=None
        Depth at which the engine stops growing; a branch cut there that is
        not pure is an incompetence area too.
    min_samples_leaf : int, default=1
        Least number of samples in a leaf of the fully grown trees.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features evaluated per node; None (all) gives the paper's best split.
    max_bins : int, default=255
        Bins per feature for ``splitter="hist"``.
    cv : int, cross-validation generator or iterable, default=3
        Folds of the cross-validation of ``gamma="auto"``; an int gives
        shuffled stratified folds (plain folds when a class is too small).
    n_jobs : int or None, default=None
        Threads for the cross-validation of ``gamma="auto"`` (the trees of
        one forest depend on each other and are grown one after the other).
    random_state : int, RandomState or None, default=None
        Seeds the trees (tie-breaking among equally good splits) and the
        cross-validation folds.

    Attributes
    ----------
    trees_ : list of forestzoo._engine.api.Tree
        The smart trees, in order of synthesis.
    incompetent_ : list of ndarray of bool
        For every tree, True at its incompetence leaves.
    gamma_ : float
        The coefficient used (the one chosen when ``gamma="auto"``).
    cv_scores_ : dict or None
        Mean cross-validated accuracy of every ``gamma`` tried ("auto" only).
    n_estimators_ : int
        Number of trees built.
    n_nodes_ : int
        Total number of nodes over all trees.
    coverage_ : float
        Fraction of the training rows (by weight) some tree is competent for.
    reject_rate_ : float
        ``1 - coverage_``.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    forestzoo.RandomForestClassifier : A forest whose every tree votes everywhere.
    forestzoo.DecisionTreeClassifier : The CART tree the smart trees are cut from.

    Notes
    -----
    The MDL rule is applied top-down to a tree the engine grew in full, which
    gives the tree that stopping during growth would give (the test at a node
    reads only that node and its best split); see
    :mod:`forestzoo.competence._smart_tree` for the argument and its limit
    (ties between equally good splits).  Sample weights are read as counts by
    the rule (``q_t`` and ``l_t`` are weighted counts).

    References
    ----------
    V. I. Donskoy, "On the smart trees and competence areas based decision
    forest", 2016.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import CompetenceForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = CompetenceForestClassifier(strategy="first_competent", reject="nan", gamma=1.0)
    >>> clf = clf.fit(X[::2], y[::2])
    >>> clf.n_estimators_, clf.n_nodes_, round(clf.coverage_, 2)
    (1, 7, 0.67)
    >>> pred = clf.predict(X[1::2])
    >>> covered = pred != -1
    >>> round(float(covered.mean()), 2), round(float((pred[covered] == y[1::2][covered]).mean()), 2)
    (0.69, 0.96)
    """

    _parameter_constraints = {
        "strategy": [StrOptions({"first_competent", "weighted_vote"})],
        "gamma": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "reject": [StrOptions({"fallback", "label", "nan"})],
        "reject_label": [Integral, Real, str],
        "max_estimators": [Interval(Integral, 1, None, closed="left")],
        "patience": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
        "splitter": [StrOptions(set(SPLITTERS))],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "max_bins": [Interval(Integral, 2, MAX_BINS, closed="both")],
        "cv": ["cv_object"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"gamma": 1.0, "max_estimators": 5}

    def __init__(self, *, strategy="weighted_vote", gamma="auto", reject="fallback", reject_label=-1,
                 max_estimators=50, patience=1, criterion="gini", splitter="exact", max_depth=None, min_samples_leaf=1,
                 max_features=None, max_bins=255, cv=3, n_jobs=None, random_state=None):
        self.strategy = strategy
        self.gamma = gamma
        self.reject = reject
        self.reject_label = reject_label
        self.max_estimators = max_estimators
        self.patience = patience
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_bins = max_bins
        self.cv = cv
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting -----------------------------------------------------------
    def _tree_params(self, X, n_classes):
        """The :class:`~forestzoo._engine.api.TreeParams` of the chain's trees on ``X`` (a node of two rows may split)."""
        return tree_params(self, X.shape[0], X.shape[1], n_classes, min_samples_split=2)

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=True)
        yk, _, n_classes, classes = self._encode_target(y)
        if self.reject != "fallback" and np.isin(np.asarray([self.reject_label], dtype=object), classes.astype(object)).any():
            raise ValueError(
                f"reject_label={self.reject_label!r} is one of the classes {classes.tolist()}; "
                "choose a reject_label that is not a class label."
            )
        rng = check_random_state(self.random_state)
        # one seed per candidate tree: a chain never grows more than this many
        seeds = draw_seeds(rng, self.max_estimators * self.patience)
        if self.gamma == "auto":
            gamma, scores = self._select_gamma(X, yk, sample_weight, n_classes, seeds, rng)
        else:
            gamma, scores = float(self.gamma), None
        trees, incompetent, remaining = build_chain(
            X, yk, sample_weight, n_classes, gamma, seeds, self._tree_params(X, n_classes),
            self.max_estimators, self.patience, self.splitter, self.max_bins,
        )
        covered = sample_weight[~remaining].sum() / sample_weight.sum()
        # a list, not a generator that any() abandons: an interrupt raised while such a generator is
        # finalised is printed and dropped by Python instead of stopping the fit
        if not any([(t.nodes["left"] == -1)[~inc].any() for t, inc in zip(trees, incompetent)]):
            warnings.warn(
                f"No tree of the forest is competent anywhere: with gamma={gamma:g} the MDL rule stops "
                "every branch before it is pure, so every object is rejected (answered by the fallback "
                "with reject='fallback'). A smaller gamma lets branches grow further.", UserWarning,
            )
        self.classes_ = classes
        self.n_classes_ = int(n_classes)
        self.gamma_ = gamma
        self.cv_scores_ = scores
        self.trees_ = trees
        self.incompetent_ = incompetent
        self.n_estimators_ = len(trees)
        self.n_nodes_ = int(sum(t.node_count for t in trees))
        self.coverage_ = float(covered)
        self.reject_rate_ = 1.0 - float(covered)
        return self

    def _select_gamma(self, X, yk, sample_weight, n_classes, seeds, rng):
        """Cross-validated accuracy of every gamma of :data:`GAMMA_GRID`; returns the best."""
        from sklearn.model_selection import KFold, StratifiedKFold, check_cv

        n = X.shape[0]
        if isinstance(self.cv, Integral):
            folds = min(self.cv, n)
            if folds < 2:
                return 1.0, None
            counts = np.bincount(yk, minlength=n_classes)
            fold_seed = rng.randint(np.iinfo(np.int32).max)
            if counts[counts > 0].min() >= folds:
                splitter = StratifiedKFold(folds, shuffle=True, random_state=fold_seed)
            else:
                splitter = KFold(folds, shuffle=True, random_state=fold_seed)
        else:
            splitter = check_cv(self.cv, yk, classifier=True)
        splits = list(splitter.split(X, yk))

        def score(gamma, train, test):
            X_train = np.ascontiguousarray(X[train])
            trees, inc, _ = build_chain(
                X_train, yk[train], sample_weight[train], n_classes, gamma, seeds,
                self._tree_params(X_train, n_classes), self.max_estimators, self.patience, self.splitter,
                self.max_bins,
            )
            proba, rejected = combine(trees, inc, X[test], self.strategy, n_classes)
            correct = (np.argmax(proba, axis=1) == yk[test])
            if self.reject != "fallback":
                correct &= ~rejected
            return np.average(correct, weights=sample_weight[test])

        jobs = [(g, np.asarray(tr), np.asarray(te)) for g in GAMMA_GRID for tr, te in splits]
        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(score)(*job) for job in jobs)
        results = np.asarray(results).reshape(len(GAMMA_GRID), len(splits)).mean(axis=1)
        scores = dict(zip(GAMMA_GRID, results.tolist()))
        # ties go to the larger gamma: the smaller forest
        best = max(GAMMA_GRID, key=lambda g: (round(scores[g], 12), g))
        return float(best), scores

    # -- prediction --------------------------------------------------------
    def competence(self, X):
        """Whether each tree is competent for each object.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The objects.

        Returns
        -------
        ndarray of bool of shape ``(n_samples, n_estimators_)``
            True where the tree is competent for the object.
        """
        X = check_predict_data(self, X)
        return tree_answers(self.trees_, self.incompetent_, X)[1]

    def _proba(self, X):
        X = check_predict_data(self, X)
        return combine(self.trees_, self.incompetent_, X, self.strategy, self.n_classes_)

    def predict_proba(self, X):
        """Class probabilities; rows every tree is incompetent for follow ``reject``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The objects.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            One-hot rows for "first_competent" (class leaves are pure), the
            normalised weighted vote for "weighted_vote"; rejected rows hold
            the fallback frequencies, or NaN with ``reject="nan"``.
        """
        proba, rejected = self._proba(X)
        if self.reject != "fallback":
            proba[rejected] = np.nan
        return proba

    def predict(self, X):
        """Class of each object; ``reject_label`` for rejected objects when ``reject="label"`` (or "nan").

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The objects.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels (``reject_label`` for rejected objects).
        """
        proba, rejected = self._proba(X)
        labels = self.classes_[np.argmax(proba, axis=1)]
        if self.reject != "fallback" and rejected.any():
            reject = np.asarray(self.reject_label)
            same_kind = (reject.dtype.kind in "iuf") == (labels.dtype.kind in "iuf")
            dtype = np.result_type(labels.dtype, reject.dtype) if same_kind else object
            labels = labels.astype(dtype)
            labels[rejected] = self.reject_label
        return labels

    def selective_report(self, X, y, sample_weight=None):
        """The forest as a selective classifier on ``(X, y)``: coverage and the accuracy on what it covers.

        An object is covered when some tree is competent for it; the others
        are rejected by the paper's method (``reject="label"``) or answered
        by the fallback (``reject="fallback"``).  The report is the same
        for every ``reject`` setting.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The objects.
        y : array-like of shape (n_samples,)
            Their true classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each object; None weighs them equally.

        Returns
        -------
        dict
            ``coverage`` (weighted share of covered objects),
            ``selective_accuracy`` (accuracy on the covered objects; NaN when
            none is covered), ``selective_risk`` (``1 -
            selective_accuracy``), ``fallback_accuracy`` (accuracy of the
            fallback on the rejected objects; NaN when none is rejected),
            ``accuracy_with_fallback`` (accuracy of the answers with
            ``reject="fallback"``), ``fallback_share`` (``1 - coverage``:
            the share of answers the fallback gives) and ``n_covered``.
        """
        proba, rejected = self._proba(X)
        y = np.asarray(y)
        if y.shape[0] != proba.shape[0]:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                             f"[{proba.shape[0]}, {y.shape[0]}]")
        w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w.shape != y.shape or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("sample_weight must be finite, non-negative, of shape (n_samples,) and not all zero.")
        correct = self.classes_[np.argmax(proba, axis=1)] == y
        covered = ~rejected
        return selective_scores(correct, covered, w)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @property
    def feature_importances_(self):
        """Impurity decrease (MDI) of the trees' splits, normalised to sum to one."""
        check_is_fitted(self)
        return forest_importances(self.trees_, self.n_features_in_, normalize_trees=False)
