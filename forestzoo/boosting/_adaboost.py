"""AdaBoost-family classifiers on forestzoo's shallow trees.

One estimator, :class:`AdaBoostClassifier`, with the variants the lecture
lists as ``algorithm``: AdaBoost.M1, SAMME, SAMME.R, LogitBoost, GentleBoost
and RUSBoost.  The training matrix is prepared once; every round grows a tree
on it with the boosting weights as the engine's sample weights (no
resampling unless ``resample=True``).  The round updates themselves live in
:mod:`._rounds`.
"""

from numbers import Integral, Real

import numpy as np
from .._threads import ThreadBatches
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import _libm as libm
from .._base import CLASSIFICATION_CRITERIA, EngineEstimator, forest_importances
from .._engine.api import TreeTarget, draw_seeds, prepare_data
from .._validation import check_fit_data, check_predict_data
from ._base import BASE_LEARNER_CONSTRAINTS, LEARNING_RATE, BaseLearners, accumulate, drop_unweighted
from ._rounds import (
    discrete_round, gentle_targets, leaf_classes, logit_targets, logit_update, m2_round, real_leaf_scores,
    real_round, softmax,
)

DISCRETE = ("M1", "SAMME")
ADDITIVE = ("LogitBoost", "GentleBoost")  # regression trees fitted per class
ALGORITHMS = DISCRETE + ("SAMME.R", "RUSBoost") + ADDITIVE


def draw_round_weights(w, yk, n_classes, rng, rus_ratio=None, resample=False):
    """The sample weights one round's tree is grown with.

    ``rus_ratio`` (RUSBoost, Seiffert et al. 2010, Algorithm 1 step 1): every
    class keeps at most ``ratio x (size of the smallest class)`` of its rows,
    drawn uniformly without replacement; the other rows get weight zero and
    the kept rows their boosting weight (the paper's ``D'_t``).
    ``resample``: instead of weighting, draw ``n`` rows with probabilities
    ``w`` and use the draw counts as weights (Freund & Schapire 1997).
    """
    out = w
    if rus_ratio is not None:
        mask = np.zeros(w.shape[0], dtype=bool)
        counts = np.bincount(yk[w > 0], minlength=n_classes)
        keep = max(1, int(round(rus_ratio * counts[counts > 0].min())))
        for k in np.flatnonzero(counts):
            rows = np.flatnonzero((yk == k) & (w > 0))
            mask[rng.choice(rows, min(keep, rows.size), replace=False) if keep < rows.size else rows] = True
        out = w * mask
    if resample:
        n = w.shape[0]
        out = rng.multinomial(n, out / out.sum()).astype(np.float64)
    return out


class AdaBoostClassifier(ClassifierMixin, EngineEstimator):
    """AdaBoost and its variants over forestzoo's shallow trees.

    Parameters
    ----------
    n_estimators : int, default=50
        Number of boosting rounds (fewer are kept when boosting stops early).
    learning_rate : float > 0, default=1.0
        Shrinkage of every round's contribution.
    algorithm : {"SAMME", "M1", "SAMME.R", "LogitBoost", "GentleBoost", "RUSBoost"}, default="SAMME"
        * "M1": the lecture's AdaBoost.M1 (Freund & Schapire 1997; ESL
          Algorithm 10.1), ``alpha = log((1 - err) / err)``; stops when a
          tree's weighted error reaches 1/2.
        * "SAMME": multi-class AdaBoost (Zhu et al. 2009),
          ``alpha = log((1 - err) / err) + log(K - 1)``; equal to M1 for two
          classes; stops when the error reaches ``1 - 1/K``.
        * "SAMME.R": the real-valued variant using the trees' leaf class
          probabilities (Zhu et al. 2009, Algorithm 4).
        * "LogitBoost": Newton steps on the binomial / multinomial
          log-likelihood with regression trees (Friedman, Hastie & Tibshirani
          2000, Algorithms 3 and 6).
        * "GentleBoost": Gentle AdaBoost, weighted least-squares regression
          trees on +-1 responses (FHT 2000, Algorithm 4), one-vs-rest for
          more than two classes.
        * "RUSBoost": SAMME whose every tree is grown on a random
          under-sample of the classes (Seiffert et al. 2010), for imbalanced
          data; errors and weights are still computed on all rows.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Split criterion of the classification trees (M1, SAMME, SAMME.R,
        RUSBoost); LogitBoost and GentleBoost grow squared-error trees.
    splitter : {"exact", "hist", "random"}, default="hist"
        Split search of the base trees (see :class:`DecisionTreeClassifier`).
    max_depth : int or None, default=1
        Depth of the base trees; 1 gives stumps.
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
    ratio_to_smallest : float > 0, default=1.0
        RUSBoost only: each class keeps at most this many times the number
        of rows of the smallest class in every round's sample.
    resample : bool, default=False
        M1 / SAMME / SAMME.R / RUSBoost: grow each tree on a weighted
        bootstrap sample drawn from the boosting weights instead of passing
        the weights to the tree (LogitBoost and GentleBoost always weight).
    n_jobs : int or None, default=None
        Threads for the per-class trees of LogitBoost / GentleBoost and for
        prediction; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the base trees' random draws and of the resampling.

    Attributes
    ----------
    estimators_ : list
        The fitted base learners: one :class:`DecisionTreeClassifier` per
        round for M1 / SAMME / SAMME.R / RUSBoost; for LogitBoost and
        GentleBoost one list per round of :class:`DecisionTreeRegressor`
        (one for two classes, ``K`` otherwise).
    estimator_weights_ : ndarray of shape (n_rounds,)
        ``alpha_m`` for M1 / SAMME, ``log(1 / beta_m)`` for RUSBoost; the
        learning rate otherwise.
    estimator_errors_ : ndarray of shape (n_rounds,)
        Weighted training error of each round's tree under that round's
        weights (M1 / SAMME / SAMME.R), the M2 pseudo-loss (RUSBoost); for
        LogitBoost and GentleBoost the weighted least-squares error of the
        round's fit, averaged over its trees.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity decrease (MDI) of the base trees, averaged with the round
        weights; sums to one.

    See Also
    --------
    AdaBoostRegressor : Boosted regression trees.
    GradientBoostingClassifier : Gradient boosting of the deviance.
    sklearn.ensemble.AdaBoostClassifier : The SAMME AdaBoost of scikit-learn.

    Notes
    -----
    **Stopping.** M1, SAMME and RUSBoost stop when a tree is no better than
    chance (error >= 1/2, resp. ``1 - 1/K``; pseudo-loss >= 1/2): that tree
    is discarded, unless it is the first, in which case ``fit`` raises a
    ValueError.  A tree with
    zero weighted training error (e.g. at round 1 on separable data) would
    have an infinite weight: it is kept with a weight larger than all the
    previous ones together, so it decides alone, and boosting stops.
    SAMME.R stops after a tree with zero error too.  LogitBoost and
    GentleBoost have no error test; their weights stay positive and finite
    (FHT 2000, Sec. 4.4), so they always run ``n_estimators`` rounds.

    **Probabilities.** ``predict_proba`` is ``softmax`` of the additive
    scores where the method's population minimiser gives it: the votes for
    M1 / SAMME and ``f / (K - 1)`` for SAMME.R (Zhu et al. 2009, Sec. 2.1),
    ``F`` for LogitBoost; GentleBoost's one-vs-rest scores estimate half
    log-odds, ``p_k`` is proportional to ``sigmoid(2 F_k)``; RUSBoost's is
    the ``log(1/beta)``-weighted mean of its trees' class proportions.

    References
    ----------
    Freund, Y. and Schapire, R. (1997). A decision-theoretic generalization of on-line learning and
    an application to boosting. J. Computer and System Sciences 55, 119-139.
    Friedman, J., Hastie, T. and Tibshirani, R. (2000). Additive logistic regression: a statistical
    view of boosting. Annals of Statistics 28(2), 337-407.
    Zhu, J., Zou, H., Rosset, S. and Hastie, T. (2009). Multi-class AdaBoost. Statistics and its
    Interface 2, 349-360.
    Seiffert, C., Khoshgoftaar, T., Van Hulse, J. and Napolitano, A. (2010). RUSBoost: a hybrid
    approach to alleviating class imbalance. IEEE Trans. SMC-A 40(1), 185-197.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import AdaBoostClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = AdaBoostClassifier(n_estimators=20, algorithm="SAMME", random_state=0).fit(X, y)
    >>> len(clf.estimators_), round(clf.score(X, y), 2)
    (20, 0.98)
    """

    _parameter_constraints = {
        **BASE_LEARNER_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": LEARNING_RATE,
        "algorithm": [StrOptions(set(ALGORITHMS))],
        "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
        "ratio_to_smallest": [Interval(Real, 0.0, None, closed="neither")],
        "resample": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"n_estimators": 5}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "on the check's tiny data a stump leaf holds two classes with exactly equal weight; "
            "which one wins depends on floating-point rounding of the weight sums, which differs "
            "between weighted and repeated rows, and later rounds diverge from there; "
            "scikit-learn marks the same check on its AdaBoostClassifier"
        ),
    }

    def __init__(self, *, n_estimators=50, learning_rate=1.0, algorithm="SAMME", criterion="gini",
                 splitter="hist", max_depth=1, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features=None,
                 max_leaf_nodes=None, max_bins=255, ratio_to_smallest=1.0, resample=False, n_jobs=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.algorithm = algorithm
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
        self.ratio_to_smallest = ratio_to_smallest
        self.resample = resample
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting -------------------------------------------------------------
    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=True)
        yk, _, K, classes = self._encode_target(y)
        weighted = np.bincount(yk, weights=sample_weight, minlength=K) > 0
        if weighted.sum() < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least two classes with positive sample weight in y; "
                f"got {int(weighted.sum())} class: {classes[weighted].tolist()}."
            )
        X, sample_weight, yk = drop_unweighted(X, sample_weight, yk)
        rs = check_random_state(self.random_state)
        n_trees = (1 if K == 2 else K) if self.algorithm in ADDITIVE else 1
        seeds = draw_seeds(rs, self.n_estimators * n_trees).reshape(self.n_estimators, n_trees)
        data = prepare_data(X, self.splitter, self.max_bins, seed=int(seeds[0, 0] & 0x7FFFFFFF))
        learners = BaseLearners(self, data, X.shape[0])
        w = sample_weight / sample_weight.sum()
        if self.algorithm in ADDITIVE:
            rounds, weights, errors = self._fit_additive(X, yk, w, K, learners, seeds, classes)
        else:
            rounds, weights, errors = self._fit_adaboost(X, yk, w, K, learners, seeds[:, 0], classes)
        # state is assigned only now: a failed fit leaves the previous model intact
        self.classes_ = classes
        self.n_classes_ = int(K)
        self.n_outputs_ = 1
        self.estimators_ = rounds
        self.estimator_weights_ = np.asarray(weights, dtype=np.float64)
        self.estimator_errors_ = np.asarray(errors, dtype=np.float64)
        return self

    def _fit_adaboost(self, X, yk, w, K, learners, seeds, classes):
        """M1 / SAMME / SAMME.R / RUSBoost: one classification tree per round."""
        rus = self.algorithm == "RUSBoost"
        target = TreeTarget(yk, np.zeros(yk.shape[0]), K)
        if rus:  # AdaBoost.M2 mislabel weights w_{i,y} = D(i) / (K - 1) for y != y_i (F&S 1997, Sec. 4.2)
            Wm = np.repeat((w / (K - 1))[:, None], K, axis=1)
            Wm[np.arange(yk.shape[0]), yk] = 0.0
        rounds, weights, errors = [], [], []
        for m, seed in enumerate(seeds):
            rng = np.random.RandomState(int(seed) & 0xFFFFFFFF)
            if rus:
                w = Wm.sum(axis=1)
                w /= w.sum()
            fit_w = draw_round_weights(w, yk, K, rng, self.ratio_to_smallest if rus else None, self.resample)
            tree = learners.grow(target, fit_w, self.criterion, seed)
            if self.algorithm == "SAMME.R":
                err, w = real_round(tree, X, yk, w, self.learning_rate)
                alpha, stop = self.learning_rate, err <= 0.0
            else:
                if rus:
                    alpha, err, Wm, stop = m2_round(tree, X, yk, Wm, self.learning_rate, float(np.sum(weights)))
                    limit = 0.5
                else:
                    alpha, err, w, stop = discrete_round(
                        tree, X, yk, w, K, self.learning_rate, self.algorithm, float(np.sum(weights)))
                    limit = 0.5 if self.algorithm == "M1" else 1.0 - 1.0 / K
                if alpha is None:
                    if m == 0:
                        raise ValueError(
                            f"The first base learner of {type(self).__name__}(algorithm={self.algorithm!r}) "
                            f"has weighted {'pseudo-loss' if rus else 'error'} {err:.4f}, no better than "
                            f"chance ({limit:.4f}); the ensemble cannot be fitted. Use deeper trees, or SAMME "
                            "for more than two classes."
                        )
                    break  # the tree is discarded (Freund & Schapire 1997, AdaBoost.M1 step 3)
            rounds.append(learners.wrap(tree, seed, classes, self.criterion))
            weights.append(alpha)
            errors.append(err)
            if stop:
                break
        return rounds, weights, errors

    def _fit_additive(self, X, yk, w, K, learners, seeds, classes):
        """LogitBoost / GentleBoost: per round one regression tree per class (one when binary)."""
        n = yk.shape[0]
        targets = [1] if K == 2 else list(range(K))
        F = np.zeros((n, K))  # LogitBoost scores, p = softmax(F)
        W = np.repeat(w[:, None], len(targets), axis=1)  # GentleBoost one-vs-rest weights
        Y = np.column_stack([gentle_targets(yk, j) for j in targets])
        zeros_k = np.zeros(n, np.int32)
        logit = self.algorithm == "LogitBoost"
        rounds, weights, errors = [], [], []

        def fit_one(col, seed, P):
            j = targets[col]
            if logit:
                z, h = logit_targets(P, yk, j)
                fit_w = w * h
            else:
                z, fit_w = Y[:, col], W[:, col]
            tree = learners.grow(TreeTarget.regression(z, zeros_k), fit_w, "squared_error", seed)
            f = tree.values[tree.apply(X), 0]
            err = float(np.sum(fit_w * (z - f) ** 2) / fit_w.sum())
            return tree, f, err

        # per-class trees of one round: milliseconds each, on threads of this process (see _gradient.py)
        with ThreadBatches(self.n_jobs) as threads:
            for round_seeds in seeds:
                P = softmax(F) if logit else None
                out = threads.map(lambda c, s: fit_one(c, s, P), range(len(round_seeds)), round_seeds)
                f = np.column_stack([o[1] for o in out])
                if logit:
                    logit_update(F, f, self.learning_rate)
                else:
                    # FHT 2000, Algorithm 4: F <- F + f_m, w_i <- w_i exp(-y_i f_m(x_i)), renormalised
                    W *= libm.exp(-self.learning_rate * Y * f)
                    W /= W.sum(axis=0, keepdims=True)
                rounds.append([learners.wrap(o[0], s) for o, s in zip(out, round_seeds)])
                weights.append(self.learning_rate)
                errors.append(float(np.mean([o[2] for o in out])))
        return rounds, weights, errors

    # -- prediction ----------------------------------------------------------
    def _round_items(self, m):
        """``(tree, values, column)`` whose leaf sums make round ``m``'s additive scores."""
        est = self.estimators_[m]
        K = self.n_classes_
        alg = self.algorithm
        if alg in ADDITIVE:
            targets = [1] if K == 2 else range(K)
            return [(e.tree_, e.tree_.values, j) for e, j in zip(est, targets)]
        tree = est.tree_
        if alg == "SAMME.R":
            return [(tree, self.learning_rate * real_leaf_scores(tree, K), 0)]
        if alg == "RUSBoost":  # AdaBoost.M2: sum_t log(1/beta_t) h_t(x, y)
            return [(tree, self.estimator_weights_[m] * tree.values, 0)]
        votes = np.zeros((tree.node_count, K))
        votes[np.arange(tree.node_count), leaf_classes(tree)] = self.estimator_weights_[m]
        return [(tree, votes, 0)]

    def _link(self, S, n_rounds):
        """Scores ``G`` from the leaf sums ``S`` of the first ``n_rounds`` rounds.

        ``proba = softmax(G)``, except for GentleBoost with K > 2 (one-vs-rest
        half log-odds) and RUSBoost, whose ``G`` is already the weighted mean
        of the trees' class proportions.
        """
        K = self.n_classes_
        lr = self.learning_rate
        if self.algorithm == "RUSBoost":
            return S / self.estimator_weights_[:n_rounds].sum()
        if self.algorithm == "LogitBoost":
            if K == 2:
                S[:, 1] *= 0.5 * lr
                S[:, 0] = -S[:, 1]
                return S
            return lr * (K - 1.0) / K * (S - S.mean(axis=1, keepdims=True))
        if self.algorithm == "GentleBoost":
            S *= lr
            if K == 2:
                S[:, 0] = -S[:, 1]
            return S
        return S  # the votes; for SAMME.R the sum of lr * h / (K - 1)

    def _round_sums(self, X, rounds):
        """Leaf sums ``S`` (before :meth:`_link`) of the given rounds, added to a zero matrix."""
        S = np.zeros((X.shape[0], self.n_classes_))
        items = [it for m in rounds for it in self._round_items(m)]
        return accumulate(X, items, S, self.n_jobs)

    def _staged_scores(self, X):
        S = np.zeros((X.shape[0], self.n_classes_))
        for m in range(len(self.estimators_)):
            accumulate(X, self._round_items(m), S, self.n_jobs)
            yield self._link(S.copy(), m + 1)

    def _scores(self, X):
        n_rounds = len(self.estimators_)
        return self._link(self._round_sums(X, range(n_rounds)), n_rounds)

    def _proba_from_scores(self, G):
        if self.algorithm == "RUSBoost":
            return G
        if self.algorithm == "GentleBoost" and self.n_classes_ > 2:
            P = 1.0 / (1.0 + libm.exp(-2.0 * G))
            return P / P.sum(axis=1, keepdims=True)
        return softmax(G)

    def _decision_from_scores(self, G):
        if self.n_classes_ == 2:
            return G[:, 1] - G[:, 0]
        return G - G.mean(axis=1, keepdims=True)

    def decision_function(self, X):
        """Additive scores: the log-odds-like ``G_1 - G_0`` for two classes, centred ``G`` otherwise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores.
        """
        return self._decision_from_scores(self._scores(check_predict_data(self, X)))

    def predict_proba(self, X):
        """Class probabilities from the additive scores (see Notes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._proba_from_scores(self._scores(check_predict_data(self, X)))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Class with the largest additive score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        G = self._scores(check_predict_data(self, X))
        return self.classes_[np.argmax(G, axis=1)]

    def staged_predict(self, X):
        """Prediction after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Yields
        ------
        ndarray of shape (n_samples,)
            The predicted class labels after rounds 1, 2, ...
        """
        for G in self._staged_scores(check_predict_data(self, X)):
            yield self.classes_[np.argmax(G, axis=1)]

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
            The class probabilities after rounds 1, 2, ...
        """
        for G in self._staged_scores(check_predict_data(self, X)):
            yield self._proba_from_scores(G)

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Yields
        ------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The scores after rounds 1, 2, ...
        """
        for G in self._staged_scores(check_predict_data(self, X)):
            yield self._decision_from_scores(G)

    def staged_score(self, X, y, sample_weight=None):
        """Accuracy after each round (a generator).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        y : array-like of shape (n_samples,)
            The true class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample; None weighs them equally.

        Yields
        ------
        float
            The accuracy after rounds 1, 2, ...
        """
        from sklearn.metrics import accuracy_score

        for pred in self.staged_predict(X):
            yield accuracy_score(y, pred, sample_weight=sample_weight)

    @property
    def feature_importances_(self):
        """Impurity decrease (MDI) of the base trees, averaged with the round weights; sums to one."""
        check_is_fitted(self)
        trees, weights = [], []
        for est, weight in zip(self.estimators_, self.estimator_weights_):
            for e in (est if isinstance(est, list) else [est]):
                trees.append(e.tree_)
                weights.append(weight)
        return forest_importances(trees, self.n_features_in_, weights)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
