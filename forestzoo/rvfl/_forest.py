"""Ensembles of decision trees with RVFL networks: RFL and obRFL (Katuwal, Suganthan & Zhang 2018).

Lecture, "Ensemble of Decision Trees with RVFL for multi-class
classification": the RVFL makes a ``K``-way split at the root, and a
decision tree is grown below each branch.

Training, for each bag ``j = 1..M``:

(a) draw a bootstrap sample ``T_j``;
(b) fit an RVFL network on ``T_j``;
(c) send every sample of ``T_j`` to the partitions of the two classes with
    the highest RVFL scores;
(d) grow one unpruned tree on each partition: axis-parallel (RFL) or
    oblique (obRFL).

Testing: each bag's RVFL picks a sample's top-two classes, the sample goes
down the trees of those two partitions, and the class with most votes over
all bags' selected trees wins.

The trees are grown by the forestzoo engine on the forest's prepared data,
each with the weights of its partition (bootstrap counts on the partition,
zero elsewhere), so ``X`` is never copied per tree.
"""

from numbers import Integral, Real

import numpy as np
from joblib import delayed
from sklearn.base import ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import TREE_PARAMETER_CONSTRAINTS, EngineEstimator, forest_importances, tree_params
from .._engine.api import TreeTarget, draw_seeds, grow, prepare_data
from .._parallel import Parallel, single_threaded_blas
from .._validation import check_fit_data, check_predict_data
from ..ensemble._forest import bootstrap_weights
from ..oblique._linear_models import MODEL_NAMES
from ..oblique._node_model import THRESHOLDS
from ..oblique._ova import one_vs_all_plan
from ..oblique._planned import PlannedNodeModel
from ._cv import RVFLClassifierCV
from ._rvfl import ACTIVATIONS, _reject_nan, fit_rvfl, rvfl_scores

__all__ = ["RVFLForestClassifier", "top_classes"]

_NODE_MODEL_STREAM = 0x2545F491


def top_classes(scores, k=2):
    """Indices of the ``k`` highest scores of each row (ties: the lower class index first)."""
    k = min(k, scores.shape[1])
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


class RVFLForestClassifier(ClassifierMixin, EngineEstimator):
    """RVFL + decision-tree ensemble: RFL (``tree="axis"``) and obRFL (``tree="oblique"``).

    Every bag fits an RVFL network on a bootstrap sample; each sample of
    the bag joins the partitions of its two highest-scoring classes, and
    one tree is grown per partition.  A test sample goes, in every bag,
    down the trees of its RVFL's top-two classes; the majority vote of
    those trees is the prediction (lecture, "Ensemble of Decision Trees
    with RVFL").  With two classes every partition is the whole bag.  A
    class whose partition is empty in a bag (no training sample has it in
    its top two) has no tree there; a test sample routed to it votes for
    that class.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of bags ``M`` (each holds one RVFL and up to ``K`` trees).
    tree : {"axis", "oblique"}, default="axis"
        "axis": Random Forest trees (RFL); "oblique": one-vs-all oblique
        trees whose nodes are ``node_model`` hyperplanes (obRFL).
    node_model : {"lda", "rr", "svm", "lssvm", "lr", "mpsvm"}, default="mpsvm"
        Linear classifier of the oblique trees (one-vs-all MPSVM is the
        oblique forest of Katuwal & Suganthan 2018).
    n_hidden : int, default=100
        RVFL hidden units.
    activation : {"radbas", "sine", "tribas", "sigmoid", "relu"}, default="relu"
        RVFL activation.
    scale : float, default=1.0
        RVFL random weights in ``[-scale, scale]``, biases in ``[0, scale]``.
    rvfl_C : float, default=0.0
        RVFL ridge penalty ``lambda = (1/2)**rvfl_C``.
    tune_rvfl : bool or RVFLClassifierCV, default=False
        Choose the RVFL's ``n_hidden``, ``activation``, ``scale`` and
        ``rvfl_C`` by cross-validation on the training data before the bags
        are drawn, as the lecture tunes them per dataset: ``True`` searches
        the lecture's grid (:class:`RVFLClassifierCV` with 3 folds), an
        (unfitted) :class:`RVFLClassifierCV` searches its own grids (its
        ``random_state`` is replaced by one drawn from the forest's).  The
        four parameters above are then ignored; ``rvfl_params_`` holds the
        ones used.
    C : float, default=1.0
        Weight of the data term of the oblique trees' node models, as in
        :class:`forestzoo.oblique.OneVsAllObliqueForestClassifier`.
    delta : float, default=0.01
        Tikhonov term of the oblique trees' LDA and MPSVM node models.
    threshold : {"hyperplane", "best"}, default="hyperplane"
        Where an oblique node splits along its hyperplane's normal, as in
        :class:`forestzoo.oblique.OneVsAllObliqueForestClassifier`.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity measure of the trees.
    splitter : {"hist", "exact", "random"}, default="hist"
        Split kernel of the axis-parallel splits.
    max_depth : int or None, default=None
        Greatest depth of a leaf; None grows the trees until their leaves are pure.
    min_samples_split : int or float, default=2
        Least number of samples (a fraction of them when a float) a node
        needs to be split.
    min_samples_leaf : int or float, default=1
        The lecture's ``minleaf = 1``.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        ``mtry``, candidate features per node.
    max_bins : int, default=255
        Value bins per feature for ``splitter="hist"``.
    voting : {"hard", "soft"}, default="hard"
        "hard": majority vote of the selected trees (the lecture); "soft":
        their mean leaf class proportions.
    n_jobs : int or None, default=None
        Threads over bags; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the bootstrap samples, the RVFL weights and the trees.

    Attributes
    ----------
    rvfl_params_ : dict
        ``{"n_hidden", "activation", "scale", "C"}`` of every bag's RVFL.
    rvfl_cv_ : RVFLClassifierCV or None
        The fitted search when ``tune_rvfl`` is set.
    bags_ : list of (rvfl_model, trees)
        Per bag, the RVFL (see :func:`fit_rvfl`) and its ``K`` trees
        (:class:`forestzoo._engine.api.Tree`, or None for an empty partition).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    feature_importances_ : ndarray of shape ``(n_features_in_,)``
        Impurity-based (MDI) importances of the bags' trees (see the property).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    RVFLClassifier : The RVFL network alone.
    RVFLClassifierCV : The RVFL's hyper-parameter search.
    forestzoo.RandomForestClassifier : RF, the baseline of RFL.

    References
    ----------
    R. Katuwal, P. N. Suganthan, L. Zhang, "An ensemble of decision trees with random
    vector functional link networks for multi-class classification", Applied Soft
    Computing 70, 2018.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from forestzoo.rvfl import RVFLForestClassifier
    >>> X, y = load_wine(return_X_y=True)
    >>> rfl = RVFLForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> rfl.score(X, y) > 0.97
    True
    >>> len(rfl.bags_), len(rfl.bags_[0][1])  # 10 bags, one tree per class in each
    (10, 3)
    """

    _parameter_constraints = {
        **{k: TREE_PARAMETER_CONSTRAINTS[k] for k in (
            "splitter", "max_depth", "min_samples_split", "min_samples_leaf", "max_features", "max_bins",
            "random_state")},
        "splitter": [StrOptions({"hist", "exact", "random"})],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "tree": [StrOptions({"axis", "oblique"})],
        "node_model": [StrOptions(set(MODEL_NAMES))],
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "activation": [StrOptions(set(ACTIVATIONS))],
        "scale": [Interval(Real, 0.0, None, closed="neither")],
        "rvfl_C": [Interval(Real, None, None, closed="neither")],
        "tune_rvfl": ["boolean", RVFLClassifierCV],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "delta": [Interval(Real, 0.0, None, closed="neither")],
        "threshold": [StrOptions(set(THRESHOLDS))],
        "criterion": [StrOptions({"gini", "entropy", "log_loss"})],
        "voting": [StrOptions({"hard", "soft"})],
        "n_jobs": [Integral, None],
    }
    _fast_check_params = {"n_estimators": 3, "n_hidden": 20}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "every bag is a bootstrap sample (RVFL and trees): a draw over weighted rows is not the draw "
            "over repeated rows (scikit-learn marks the same check on its RandomForest*)"
        ),
    }

    def __init__(self, n_estimators=100, *, tree="axis", node_model="mpsvm", n_hidden=100, activation="relu",
                 scale=1.0, rvfl_C=0.0, tune_rvfl=False, C=1.0, delta=0.01, threshold="hyperplane",
                 criterion="gini", splitter="hist", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 max_features="sqrt", max_bins=255, voting="hard", n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.tree = tree
        self.node_model = node_model
        self.n_hidden = n_hidden
        self.activation = activation
        self.scale = scale
        self.rvfl_C = rvfl_C
        self.tune_rvfl = tune_rvfl
        self.C = C
        self.delta = delta
        self.threshold = threshold
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_bins = max_bins
        self.voting = voting
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, True)
        _reject_nan(X, type(self).__name__)
        yk, yr, n_classes, classes = self._encode_target(y)
        n_samples = X.shape[0]
        rs = check_random_state(self.random_state)
        seeds = draw_seeds(rs, self.n_estimators)
        search = None
        if isinstance(self.tune_rvfl, RVFLClassifierCV) or self.tune_rvfl:
            given = isinstance(self.tune_rvfl, RVFLClassifierCV)
            search = clone(self.tune_rvfl) if given else RVFLClassifierCV(n_jobs=self.n_jobs)
            # drawn after the bags' seeds, so that an untuned forest is unchanged by this option
            search.set_params(random_state=int(draw_seeds(rs, 1)[0] & 0x7FFFFFFF))
            search.fit(X, y, sample_weight)
            rvfl = dict(search.best_params_)
        else:
            rvfl = {"n_hidden": self.n_hidden, "activation": self.activation, "scale": self.scale, "C": self.rvfl_C}
        data = prepare_data(X, self.splitter, self.max_bins, seed=int(seeds[0] & 0x7FFFFFFF))
        params = tree_params(self, n_samples, X.shape[1], n_classes)
        target = TreeTarget(yk, yr, n_classes)
        targets = np.eye(n_classes)[yk]
        plan = one_vs_all_plan(self.node_model) if self.tree == "oblique" else None

        def fit_bag(seed):
            rng = np.random.default_rng(int(seed))
            w, _ = bootstrap_weights(sample_weight, seed, n_samples)  # every weighted row if the draw has none
            model = fit_rvfl(X, targets, w, rvfl["n_hidden"], rvfl["activation"], rvfl["scale"], rvfl["C"], True,
                             rng)
            rows = np.flatnonzero(w > 0)
            top = top_classes(rvfl_scores(model, X[rows]))  # (c): the two classes of highest score
            tree_seeds = rng.integers(0, 2**31 - 1, n_classes)
            trees = []
            for k in range(n_classes):  # (d): one tree per partition
                part = rows[(top == k).any(axis=1)]
                if part.size == 0:
                    trees.append(None)
                    continue
                wk = np.zeros(n_samples)
                wk[part] = w[part]
                node_model = None
                if plan is not None:
                    node_model = PlannedNodeModel(X, plan, params.max_features,
                                                  int(tree_seeds[k]) ^ _NODE_MODEL_STREAM, threshold=self.threshold,
                                                  criterion=self.criterion, min_samples_leaf=params.min_samples_leaf,
                                                  C=self.C, delta=self.delta)
                trees.append(grow(data, target, wk, params, int(tree_seeds[k]), node_model=node_model))
            return model, trees

        # bags run on threads: one BLAS thread each (nested BLAS threads oversubscribe the cores)
        with single_threaded_blas():
            bags = Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(fit_bag)(s) for s in seeds)
        # state is assigned only now: a failed fit leaves the previous model intact
        self.classes_ = classes
        self.n_classes_ = int(n_classes)
        self.bags_ = bags
        self.rvfl_params_ = rvfl
        self.rvfl_cv_ = search
        return self

    def _bag_votes(self, bag, X):
        model, trees = bag
        top = top_classes(rvfl_scores(model, X))
        votes = np.zeros((X.shape[0], self.n_classes_))
        for k, tree in enumerate(trees):
            rows = np.flatnonzero((top == k).any(axis=1))
            if rows.size == 0:
                continue
            if tree is None:  # empty partition in training: the branch votes for its class
                votes[rows, k] += 1.0
            elif self.voting == "soft":
                votes[rows] += tree.predict(X[rows])
            else:
                votes[rows, np.argmax(tree.predict(X[rows]), axis=1)] += 1.0
        return votes

    def predict_proba(self, X):
        """Fraction of the selected trees' votes (``voting="hard"``) or their mean class proportions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        X = check_predict_data(self, X)
        _reject_nan(X, type(self).__name__)
        with single_threaded_blas():
            parts = Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(self._bag_votes)(b, X)
                                                                   for b in self.bags_)
        votes = np.sum(parts, axis=0)  # summed in bag order: the same for any n_jobs
        return votes / votes.sum(axis=1, keepdims=True)

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) feature importances of the bags' trees, normalised to sum to one.

        The trees are engine trees grown on the input features (axis-parallel,
        or oblique nodes whose decrease is shared among their features in
        proportion to ``|weight|``), so the mean decrease in impurity is
        defined as for :class:`~forestzoo.RandomForestClassifier`: each tree's
        decreases, weighted by its nodes' sample weights and normalised to sum
        to one, are averaged over every tree of every bag and normalised again.
        The RVFL networks only choose which trees a row reaches (the
        ``K``-way split at the root); a ridge solve has no impurity decrease,
        so they add none.  All zeros when no tree has a split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
        """
        check_is_fitted(self)
        trees = [t for _, bag_trees in self.bags_ for t in bag_trees if t is not None]
        return forest_importances(trees, self.n_features_in_)

    def predict(self, X):
        """Majority vote of the trees the RVFLs select (ties: the lower class index).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (no missing values).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)  # checks the fit before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]
