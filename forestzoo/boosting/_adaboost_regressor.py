"""Boosted regression trees: least-squares boosting (LSBoost) and AdaBoost.R2."""

from numbers import Integral

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _libm as libm
from .._base import EngineEstimator, forest_importances
from .._engine.api import TreeTarget, draw_seeds, prepare_data
from .._validation import check_fit_data, check_predict_data
from ._adaboost import draw_round_weights
from ._base import BASE_LEARNER_CONSTRAINTS, LEARNING_RATE, BaseLearners, accumulate, drop_unweighted

REGRESSION_ALGORITHMS = ("LSBoost", "R2")


def weighted_median_rows(P, weights):
    """Weighted median of every row of ``P`` (n_samples, n_rounds) with round ``weights``.

    Drucker (1997), Eq. (2): the smallest prediction ``y_t`` such that the
    rounds predicting at most ``y_t`` hold at least half of ``sum_t log(1/beta_t)``.
    """
    order = np.argsort(P, axis=1, kind="stable")
    cum = np.cumsum(weights[order], axis=1)
    k = np.argmax(cum >= 0.5 * cum[:, -1:], axis=1)
    return np.take_along_axis(P, order[np.arange(P.shape[0]), k][:, None], axis=1)[:, 0]


class AdaBoostRegressor(RegressorMixin, EngineEstimator):
    """Boosted regression trees: LSBoost (least-squares boosting) or AdaBoost.R2.

    Parameters
    ----------
    n_estimators : int, default=50
        Number of boosting rounds.
    learning_rate : float > 0, default=1.0
        LSBoost: shrinkage ``nu`` of every tree (``F <- F + nu T``);
        R2: exponent applied to the weight update and the tree weights.
    algorithm : {"LSBoost", "R2"}, default="LSBoost"
        * "LSBoost": stagewise least squares (Friedman 2001, LS_Boost; ESL
          Algorithm 10.3 with squared-error loss): ``F_0`` is the weighted
          mean and every tree is fitted to the current residuals ``y - F``.
        * "R2": AdaBoost.R2 (Drucker 1997): trees fitted with the boosting
          weights, each row's loss relative to the largest error, tree weight
          ``log(1/beta)``, weighted-median prediction.
    loss : {"linear", "square", "exponential"}, default="linear"
        AdaBoost.R2's per-row loss (Drucker 1997, Eqs. (3a)-(3c)); ignored by LSBoost.
    splitter : {"exact", "hist", "random"}, default="hist"
        Split search of the base trees (see :class:`DecisionTreeRegressor`).
    max_depth : int or None, default=3
        Depth of the base trees.
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
        Value bins per feature for ``splitter="hist"`` (NaN has its own bin).
    resample : bool, default=False
        R2: grow each tree on a weighted bootstrap sample (Drucker's
        original procedure) instead of passing the weights to the tree.
    random_state : int, RandomState or None, default=None
        Seed of the base trees' random draws and of the resampling.

    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
        One tree per round.  LSBoost trees predict the residual step before
        shrinkage.
    estimator_weights_ : ndarray of shape (n_rounds,)
        LSBoost: the learning rate; R2: ``learning_rate * log(1 / beta_t)``.
    estimator_errors_ : ndarray of shape (n_rounds,)
        LSBoost: weighted mean squared training residual after the round;
        R2: the tree's average loss ``L_bar`` (Drucker 1997, step 5).
    init_ : float
        LSBoost's constant start, the weighted mean of ``y`` (0 for R2).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity decrease (MDI) of the trees, averaged with the tree weights.

    See Also
    --------
    AdaBoostClassifier : Boosted classification trees.
    GradientBoostingRegressor : Gradient boosting of other losses.
    sklearn.ensemble.AdaBoostRegressor : The AdaBoost.R2 of scikit-learn.

    Notes
    -----
    LSBoost stops early when the residuals are all zero.  R2 stops when a
    tree's average loss reaches 1/2 (that tree is discarded, unless it is the
    first one, which is kept alone); a tree that predicts every training row
    exactly is kept with a weight larger than all others together (it decides
    the weighted median alone) and boosting stops.

    References
    ----------
    Drucker, H. (1997). Improving regressors using boosting techniques. ICML, 107-115.
    Friedman, J. (2001). Greedy function approximation: a gradient boosting machine. Annals of
    Statistics 29(5), 1189-1232.
    Hastie, T., Tibshirani, R. and Friedman, J. (2009). The Elements of Statistical Learning, 2nd ed.,
    Algorithm 10.3.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from forestzoo import AdaBoostRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = AdaBoostRegressor(algorithm="LSBoost", learning_rate=0.1, random_state=0).fit(X, y)
    >>> len(reg.estimators_), round(reg.score(X, y), 2)
    (50, 0.73)
    """

    _parameter_constraints = {
        **BASE_LEARNER_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": LEARNING_RATE,
        "algorithm": [StrOptions(set(REGRESSION_ALGORITHMS))],
        "loss": [StrOptions({"linear", "square", "exponential"})],
        "resample": ["boolean"],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"n_estimators": 5}

    def __init__(self, *, n_estimators=50, learning_rate=1.0, algorithm="LSBoost", loss="linear",
                 splitter="hist", max_depth=3, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features=None,
                 max_leaf_nodes=None, max_bins=255, resample=False, random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.algorithm = algorithm
        self.loss = loss
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.resample = resample
        self.random_state = random_state

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=False)
        X, sample_weight, y = drop_unweighted(X, sample_weight, y.astype(np.float64))
        seeds = draw_seeds(check_random_state(self.random_state), self.n_estimators)
        data = prepare_data(X, self.splitter, self.max_bins, seed=int(seeds[0] & 0x7FFFFFFF))
        learners = BaseLearners(self, data, X.shape[0])
        fit = self._fit_lsboost if self.algorithm == "LSBoost" else self._fit_r2
        init, rounds, weights, errors = fit(X, y, sample_weight, learners, seeds)
        self.init_ = init
        self.estimators_ = rounds
        self.estimator_weights_ = np.asarray(weights, dtype=np.float64)
        self.estimator_errors_ = np.asarray(errors, dtype=np.float64)
        self.n_outputs_ = 1
        return self

    def _fit_lsboost(self, X, y, sw, learners, seeds):
        """ESL Algorithm 10.3 with squared error: the tree's leaf means are the optimal gammas."""
        init = float(np.average(y, weights=sw))
        F = np.full(y.shape[0], init)
        zeros_k = np.zeros(y.shape[0], np.int32)
        total = sw.sum()
        rounds, weights, errors = [], [], []
        for seed in seeds:
            r = y - F  # negative gradient of (y - F)^2 / 2, ESL Table 10.2
            if not np.any(r[sw > 0]):
                break
            tree = learners.grow(TreeTarget.regression(r, zeros_k), sw, "squared_error", seed)
            F += self.learning_rate * tree.values[tree.apply(X), 0]
            rounds.append(learners.wrap(tree, seed))
            weights.append(self.learning_rate)
            errors.append(float(np.sum(sw * (y - F) ** 2) / total))
        return init, rounds, weights, errors

    def _fit_r2(self, X, y, sw, learners, seeds):
        """AdaBoost.R2 (Drucker 1997), with the boosting weights passed to the trees."""
        w = sw / sw.sum()
        target = TreeTarget.regression(y)
        rounds, weights, errors = [], [], []
        for m, seed in enumerate(seeds):
            rng = np.random.RandomState(int(seed) & 0xFFFFFFFF)
            tree = learners.grow(target, draw_round_weights(w, None, 1, rng, None, self.resample), "squared_error",
                                 seed)
            err_abs = np.abs(tree.values[tree.apply(X), 0] - y)
            D = err_abs[w > 0].max()  # step 3, the largest error on the rows in play
            if D <= 0.0:
                # a perfect tree: infinite weight in the limit; kept above all others together
                rounds.append(learners.wrap(tree, seed))
                weights.append(1.0 + float(np.sum(weights)))
                errors.append(0.0)
                break
            L = err_abs / D  # Eq. (3a)
            if self.loss == "square":
                L = L**2  # Eq. (3b)
            elif self.loss == "exponential":
                L = 1.0 - libm.exp(-L)  # Eq. (3c)
            L_bar = float(np.sum(w * L))  # step 5
            if L_bar >= 0.5:
                if m == 0:  # nothing to fall back on: the first tree alone
                    rounds.append(learners.wrap(tree, seed))
                    weights.append(1.0)
                    errors.append(L_bar)
                break
            beta = L_bar / (1.0 - L_bar)  # step 6
            w = w * beta ** (self.learning_rate * (1.0 - L))  # step 7
            w /= w.sum()
            rounds.append(learners.wrap(tree, seed))
            weights.append(self.learning_rate * libm.log(1.0 / beta))
            errors.append(L_bar)
        return 0.0, rounds, weights, errors

    # -- prediction ----------------------------------------------------------
    def _tree_predictions(self, X):
        """(n_samples, n_rounds) predictions of the individual trees."""
        P = np.zeros((X.shape[0], len(self.estimators_)))
        accumulate(X, [(e.tree_, e.tree_.values, m) for m, e in enumerate(self.estimators_)], P)
        return P

    def _staged(self, X):
        P = self._tree_predictions(X)
        if self.algorithm == "LSBoost":
            yield from (self.init_ + self.learning_rate * np.cumsum(P, axis=1)).T
            return
        for m in range(1, P.shape[1] + 1):
            yield weighted_median_rows(P[:, :m], self.estimator_weights_[:m])

    def predict(self, X):
        """LSBoost: ``F_0 + nu sum_m T_m(x)``; R2: the weighted median of the trees (Drucker 1997, Eq. (2)).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        X = check_predict_data(self, X)
        P = self._tree_predictions(X)
        if self.algorithm == "LSBoost":
            return self.init_ + self.learning_rate * P.sum(axis=1)
        return weighted_median_rows(P, self.estimator_weights_)

    def staged_predict(self, X):
        """Prediction after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Yields
        ------
        ndarray of shape (n_samples,)
            The predicted values after rounds 1, 2, ...
        """
        yield from self._staged(check_predict_data(self, X))

    def staged_score(self, X, y, sample_weight=None):
        """R^2 after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        y : array-like of shape (n_samples,)
            The true targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample; None weighs them equally.

        Yields
        ------
        float
            The R^2 after rounds 1, 2, ...
        """
        from sklearn.metrics import r2_score

        for pred in self.staged_predict(X):
            yield r2_score(y, pred, sample_weight=sample_weight)

    @property
    def feature_importances_(self):
        """Impurity decrease (MDI) of the trees averaged with the round weights; sums to one."""
        check_is_fitted(self)
        trees = [e.tree_ for e, _ in zip(self.estimators_, self.estimator_weights_)]
        return forest_importances(trees, self.n_features_in_, self.estimator_weights_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

