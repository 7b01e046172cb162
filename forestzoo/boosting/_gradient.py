"""Gradient tree boosting on the engine's histogram grower (Friedman 2001; ESL Algorithms 10.3 and 10.4).

The training matrix is binned once; every round grows, per output column,
one regression tree on the negative gradients with ``splitter="hist"`` and
the squared-error criterion, then replaces the tree's leaf values by the
loss's optimal (or Newton) ``gamma_j`` computed from the rows each leaf holds
(:meth:`Tree.apply`), multiplied by the shrinkage ``nu``.  The engine's
predictor then serves the stored values directly: the raw prediction is
``f_0 + sum_m tree_m(x)``.
"""

from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _libm as libm
from .._base import MAX_SEED, EngineEstimator, forest_importances
from .._engine.api import TreeTarget, draw_seeds, prepare_data
from .._threads import ThreadBatches
from .._validation import check_fit_data, check_predict_data
from ._base import BASE_LEARNER_CONSTRAINTS, LEARNING_RATE, BaseLearners, accumulate, drop_unweighted
from ._losses import make_loss
from ._rounds import softmax

#: Newton-style trees are fitted to ``r / h`` with weights ``w h``; ``h`` is floored here so
#: that a saturated row cannot make the working response overflow.
_H_FLOOR = 1e-10

_GB_CONSTRAINTS = {
    **{k: v for k, v in BASE_LEARNER_CONSTRAINTS.items() if k != "splitter"},
    "learning_rate": LEARNING_RATE,
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
    "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
    "tol": [Interval(Real, 0.0, None, closed="left")],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}


class BaseGradientBoosting(EngineEstimator):
    """Shared fit / predict of gradient-boosted trees; not for direct use."""

    _fast_check_params = {"n_estimators": 5}

    # -- fitting -------------------------------------------------------------
    def _fit(self, X, y, sample_weight):
        classification = self._is_classifier()
        X, y, sw = check_fit_data(self, X, y, sample_weight, classification)
        yk, yr, K, classes = self._encode_target(y)
        if classification:
            weighted = np.bincount(yk, weights=sw, minlength=K) > 0
            if weighted.sum() < 2:
                raise ValueError(
                    f"{type(self).__name__} needs at least two classes with positive sample weight in y; "
                    f"got {int(weighted.sum())} class: {classes[weighted].tolist()}."
                )
            target = yk
            loss = make_loss("log_loss", n_classes=K)
        else:
            target = yr
            loss = make_loss(self.loss, alpha=self.alpha)
        X, sw, target = drop_unweighted(X, sw, target)
        n_cols = 1 if K <= 2 else K
        rs = check_random_state(self.random_state)

        val = None
        if self.n_iter_no_change is not None:
            rows = np.arange(X.shape[0])
            tr, va = train_test_split(rows, test_size=self.validation_fraction, random_state=rs.randint(MAX_SEED),
                                      stratify=target if classification else None)
            tr, va = np.sort(tr), np.sort(va)
            val = (X[va], target[va], sw[va])
            X, target, sw = X[tr], target[tr], sw[tr]
            if not sw.sum() > 0 or not val[2].sum() > 0:
                raise ValueError("The training or the validation part has zero total sample weight; "
                                 "change validation_fraction or random_state.")

        seeds = draw_seeds(rs, self.n_estimators * n_cols).reshape(self.n_estimators, n_cols)
        data = prepare_data(X, "hist", self.max_bins, seed=int(seeds[0, 0] & 0x7FFFFFFF),
                            n_threads=effective_n_jobs(self.n_jobs))
        learners = BaseLearners(self, data, X.shape[0], X=X, splitter="hist")
        loss.n_threads = effective_n_jobs(self.n_jobs)
        init = loss.init_raw(target, sw)
        trees, train_score, val_score = self._boost(X, target, sw, val, loss, init, learners, seeds)

        # state is assigned only now: a failed fit leaves the previous model intact
        if classification:
            self.classes_ = classes
            self.n_classes_ = int(K)
        self.n_outputs_ = 1
        self.n_trees_per_iteration_ = n_cols
        self.init_raw_prediction_ = init
        self.estimators_ = np.array(trees, dtype=object).reshape(len(trees), n_cols)
        self.n_estimators_ = len(trees)
        self.train_score_ = np.asarray(train_score)
        if val is not None:
            self.validation_score_ = np.asarray(val_score)
        return self

    def _split_with_hessian(self, loss):
        return loss.newton and getattr(self, "split_gain", "gradient") == "newton"

    def _boost(self, X, y, sw, val, loss, init, learners, seeds):
        """The boosting loop (ESL Algorithm 10.3 / 10.4, step 2), with subsampling and early stopping."""
        n = X.shape[0]
        n_cols = init.shape[0]
        F = np.tile(init, (n, 1))
        F_val = np.tile(init, (val[0].shape[0], 1)) if val is not None else None
        zeros_k = np.zeros(n, np.int32)
        newton = self._split_with_hessian(loss)
        n_sub = max(1, int(round(self.subsample * n)))
        history = np.full(self.n_iter_no_change or 1, np.inf)
        trees, train_score, val_score = [], [], []
        # one tree per round: its large nodes' histograms are built on n_jobs threads;
        # K trees per round: the trees run side by side instead
        hist_threads = effective_n_jobs(self.n_jobs) if n_cols == 1 else 1

        def fit_column(k, seed, r, h, w):
            if newton:  # Newton step as a weighted least-squares fit (FHT 2000; Chen & Guestrin 2016)
                hk = np.maximum(h[:, k], _H_FLOOR)
                tree, leaf = learners.grow(TreeTarget.regression(r[:, k] / hk, zeros_k), w * hk, "squared_error",
                                           seed, return_leaves=True, hist_threads=hist_threads)
            else:  # least-squares fit of the negative gradient (ESL Algorithm 10.3, step 2b)
                tree, leaf = learners.grow(TreeTarget.regression(r[:, k], zeros_k), w, "squared_error", seed,
                                           return_leaves=True, hist_threads=hist_threads)
            gamma = loss.leaf_values(k, leaf, tree.node_count, y, F, r, w)  # step 2c
            tree.values[:, 0] = self.learning_rate * gamma  # shrinkage nu (ESL Sec. 10.12.1)
            return tree, leaf

        # The K trees of a round share r, h and F and take milliseconds each: they run on threads of
        # this process (forestzoo._threads), also under a Dask joblib backend, where a task per
        # tree and round would cost more than the tree.
        with ThreadBatches(self.n_jobs) as threads:
            for m, round_seeds in enumerate(seeds):
                w = sw
                if n_sub < n:  # stochastic gradient boosting: a subsample without replacement (Friedman 2002)
                    mask = np.zeros(n, dtype=bool)
                    mask[np.random.RandomState(int(round_seeds[0]) & 0xFFFFFFFF).choice(n, n_sub, replace=False)] = True
                    w = sw * mask
                    if not w.sum() > 0:
                        w = sw
                r, h, current = loss.gradients(y, F, w)  # step 2a
                if m > 0:
                    train_score.append(loss.loss(y, F, sw) if n_sub < n else current)
                if n_cols == 1:
                    out = [fit_column(0, round_seeds[0], r, h, w)]
                else:
                    out = threads.map(lambda k, s: fit_column(k, s, r, h, w), range(len(round_seeds)), round_seeds)
                for k, (tree, leaf) in enumerate(out):
                    F[:, k] += tree.values[leaf, 0]  # step 2d
                trees.append([learners.wrap(t, s) for (t, _), s in zip(out, round_seeds)])
                if val is not None:
                    for k, (tree, _) in enumerate(out):
                        F_val[:, k] += tree.predict(val[0])[:, 0]
                    score = loss.loss(val[1], F_val, val[2])
                    val_score.append(score)
                    # stop when none of the last n_iter_no_change scores was beaten by tol
                    if np.any(score + self.tol < history):
                        history[m % history.shape[0]] = score
                    else:
                        break
        train_score.append(loss.loss(y, F, sw))
        return trees, train_score, val_score

    # -- prediction ----------------------------------------------------------
    def _items(self, rounds):
        return [(e.tree_, e.tree_.values, k) for m in rounds for k, e in enumerate(self.estimators_[m])]

    def _raw_predict(self, X):
        F = np.tile(self.init_raw_prediction_, (X.shape[0], 1))
        return accumulate(X, self._items(range(self.n_estimators_)), F, self.n_jobs)

    def _staged_raw_predict(self, X):
        F = np.tile(self.init_raw_prediction_, (X.shape[0], 1))
        for m in range(self.n_estimators_):
            accumulate(X, self._items([m]), F, self.n_jobs)
            yield F.copy()

    def apply(self, X):
        """Leaf index of every sample in every tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape ``(n_samples, n_estimators_, n_trees_per_iteration_)``
            The leaf each sample reaches in every tree.
        """
        X = check_predict_data(self, X)
        out = np.empty((X.shape[0],) + self.estimators_.shape, dtype=np.intp)
        for m in range(self.n_estimators_):
            for k, e in enumerate(self.estimators_[m]):
                out[:, m, k] = e.tree_.apply(X)
        return out

    @property
    def feature_importances_(self):
        """Impurity decrease (MDI) summed over all trees, normalised to sum to one."""
        check_is_fitted(self)
        return forest_importances([e.tree_ for e in self.estimators_.ravel()], self.n_features_in_,
                                  normalize_trees=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


_COMMON_DOC = """
    learning_rate : float > 0, default=0.1
        Shrinkage ``nu`` of every tree (ESL Sec. 10.12.1).
    n_estimators : int, default=100
        Number of boosting rounds ``M``.
    subsample : float in (0, 1], default=1.0
        Fraction of the rows drawn (without replacement) for every round:
        stochastic gradient boosting (Friedman 2002) when below 1."""

_TREE_DOC = """
    max_depth : int or None, default=3
        Depth of every tree; ``max_leaf_nodes`` instead (or as well) grows
        the trees best-first up to that many leaves.
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
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features drawn at every node of a base tree; None: all of them.
    max_leaf_nodes : int or None, default=None
        When set, the base trees grow best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Quantile bins per feature; the data are binned once per fit, NaN has
        its own bin and each split learns the side NaN goes to.
    validation_fraction : float in (0, 1), default=0.1
        Share of the training rows held out (stratified for classification)
        to decide early stopping; used only with ``n_iter_no_change``.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` for this
        many rounds (the rounds fitted so far are kept).  None: no early stopping.
    tol : float >= 0, default=1e-4
        Least decrease of the validation loss that counts as an improvement.
    n_jobs : int or None, default=None
        Threads for the K trees of a round (K classes); with one tree per
        round (binary, regression) for the histograms of its large nodes
        instead; also for binning, the binomial gradients and prediction.
        Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the subsamples, the validation split, the feature order of
        the trees and the binning subsample."""

_ATTRIBUTES_DOC = """
    estimators_ : ndarray of DecisionTreeRegressor, shape ``(n_estimators_, n_trees_per_iteration_)``
        The trees; their leaf values are already multiplied by ``learning_rate``.
    n_estimators_ : int
        Rounds fitted (fewer than ``n_estimators`` after early stopping).
    n_trees_per_iteration_ : int
        1 for regression and binary classification, K for K classes.
    init_raw_prediction_ : ndarray of shape ``(n_trees_per_iteration_,)``
        ``f_0``, the constant that minimises the training loss.
    train_score_ : ndarray of shape ``(n_estimators_,)``
        Training loss (weighted mean, all training rows) after every round.
    validation_score_ : ndarray
        Validation loss after every round (only with ``n_iter_no_change``).
    n_features_in_, feature_names_in_, feature_importances_"""


class GradientBoostingClassifier(ClassifierMixin, BaseGradientBoosting):
    __doc__ = f"""Gradient-boosted trees for classification (binomial / multinomial deviance).

    Two classes: one tree per round on the log-odds, Newton leaf values
    ``sum r / sum p (1 - p)``.  K classes: K trees per round, one per class,
    with the leaf values of ESL Algorithm 10.4,
    ``gamma = (K - 1)/K sum r / sum |r| (1 - |r|)``, ``r = y_k - p_k``.

    Parameters
    ----------{_COMMON_DOC}
    split_gain : {{"newton", "gradient"}}, default="newton"
        How the tree structure is chosen.  "gradient": a least-squares fit
        of the residuals ``r`` (ESL Algorithm 10.4, step (b)ii, Friedman
        2001).  "newton": a least-squares fit of ``r / h`` weighted by
        ``h = p (1 - p)`` (LogitBoost's working response, FHT 2000), whose
        split gain is ``(sum r)^2 / sum h`` per child -- the second-order
        gain of XGBoost / LightGBM / scikit-learn's HistGradientBoosting.
        The leaf values are the same Newton steps either way.{_TREE_DOC}

    Attributes
    ----------
    classes_, n_classes_{_ATTRIBUTES_DOC}

    See Also
    --------
    GradientBoostingRegressor : Gradient boosting for regression.
    AdaBoostClassifier : AdaBoost and its variants.
    sklearn.ensemble.HistGradientBoostingClassifier : The histogram gradient boosting of scikit-learn.

    References
    ----------
    Friedman, J. (2001). Greedy function approximation: a gradient boosting machine. Annals of
    Statistics 29(5), 1189-1232.
    Friedman, J. (2002). Stochastic gradient boosting. Computational Statistics & Data Analysis 38(4).
    Hastie, T., Tibshirani, R. and Friedman, J. (2009). The Elements of Statistical Learning, 2nd ed.,
    Algorithms 10.3 and 10.4.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import GradientBoostingClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> clf.estimators_.shape, round(clf.score(X, y), 2)
    ((20, 3), 1.0)
    """

    _parameter_constraints = {
        **_GB_CONSTRAINTS,
        "split_gain": [StrOptions({"newton", "gradient"})],
    }
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "a node whose rows share one class is recognised by an impurity at rounding level, and "
            "that rounding differs between weighted and repeated rows (a split with gain ~1e-15 is "
            "made in one fit and not the other); scikit-learn marks the same check on its "
            "GradientBoostingClassifier"
        ),
    }

    def __init__(self, *, learning_rate=0.1, n_estimators=100, subsample=1.0, split_gain="newton", max_depth=3,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0,
                 max_features=None, max_leaf_nodes=None, max_bins=255, validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, n_jobs=None, random_state=None):
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.split_gain = split_gain
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _proba(self, F):
        if F.shape[1] == 1:
            # scikit-learn's expit, the C library's exp: the same on every CPU
            p = 1.0 / (1.0 + libm.exp(-np.clip(F[:, 0], -700, 700)))
            return np.column_stack([1.0 - p, p])
        # numpy's exp, as scikit-learn's softmax: equal to its probabilities on every CPU, which
        # may differ in the last bit from one CPU to another (numpy's AVX-512 exp rounds differently)
        return softmax(F, exp=np.exp)

    def decision_function(self, X):
        """Raw scores: the log-odds for two classes, the K scores otherwise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The raw scores.
        """
        F = self._raw_predict(check_predict_data(self, X))
        return F[:, 0] if F.shape[1] == 1 else F

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Yields
        ------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The raw scores after rounds 1, 2, ...
        """
        for F in self._staged_raw_predict(check_predict_data(self, X)):
            yield F[:, 0] if F.shape[1] == 1 else F

    def predict_proba(self, X):
        """Class probabilities: the logistic of the log-odds, or the softmax of the K scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._proba(self._raw_predict(check_predict_data(self, X)))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
            The class probabilities after rounds 1, 2, ...
        """
        for F in self._staged_raw_predict(check_predict_data(self, X)):
            yield self._proba(F)

    def predict(self, X):
        """Most probable class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]

    def staged_predict(self, X):
        """:meth:`predict` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Yields
        ------
        ndarray of shape (n_samples,)
            The predicted class labels after rounds 1, 2, ...
        """
        for P in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(P, axis=1)]


class GradientBoostingRegressor(RegressorMixin, BaseGradientBoosting):
    __doc__ = f"""Gradient-boosted regression trees (squared error, absolute error, Huber).

    ESL Algorithm 10.3 with the leaf values of ESL Table 10.2: the mean
    residual (squared error), the median residual (absolute error), and
    Friedman's (2001) Huber step.

    Parameters
    ----------
    loss : {{"squared_error", "absolute_error", "huber"}}, default="squared_error"
        The loss minimised.
    alpha : float in (0, 1), default=0.9
        Huber: ``delta`` is the ``alpha``-quantile of ``|y - F|`` at every round.{_COMMON_DOC}{_TREE_DOC}

    Attributes
    ----------{_ATTRIBUTES_DOC}

    See Also
    --------
    GradientBoostingClassifier : Gradient boosting of the deviance.
    AdaBoostRegressor : LSBoost and AdaBoost.R2.
    sklearn.ensemble.HistGradientBoostingRegressor : The histogram gradient boosting of scikit-learn.

    References
    ----------
    Friedman, J. (2001). Greedy function approximation: a gradient boosting machine. Annals of
    Statistics 29(5), 1189-1232.
    Hastie, T., Tibshirani, R. and Friedman, J. (2009). The Elements of Statistical Learning, 2nd ed.,
    Algorithm 10.3 and Table 10.2.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from forestzoo import GradientBoostingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = GradientBoostingRegressor(loss="huber", n_estimators=50, random_state=0).fit(X, y)
    >>> reg.n_estimators_, round(reg.score(X, y), 2)
    (50, 0.7)
    """

    _parameter_constraints = {
        **_GB_CONSTRAINTS,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber"})],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
    }

    def __init__(self, *, loss="squared_error", alpha=0.9, learning_rate=0.1, n_estimators=100, subsample=1.0,
                 max_depth=3, min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_impurity_decrease=0.0, max_features=None, max_leaf_nodes=None, max_bins=255,
                 validation_fraction=0.1, n_iter_no_change=None, tol=1e-4, n_jobs=None, random_state=None):
        self.loss = loss
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.n_jobs = n_jobs
        self.random_state = random_state

    def predict(self, X):
        """``f_0 + sum_m tree_m(x)`` (leaf values include the shrinkage).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._raw_predict(check_predict_data(self, X))[:, 0]

    def staged_predict(self, X):
        """:meth:`predict` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Yields
        ------
        ndarray of shape (n_samples,)
            The predicted values after rounds 1, 2, ...
        """
        for F in self._staged_raw_predict(check_predict_data(self, X)):
            yield F[:, 0]
