"""Single decision trees on the forestzoo engine."""

from numbers import Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import (
    CLASSIFICATION_CRITERIA, MAX_SEED, REGRESSION_CRITERIA, TREE_PARAMETER_CONSTRAINTS, EngineEstimator,
    multi_output_params, predict_labels, split_outputs, tree_params,
)
from .._engine.api import TreeTarget, cost_complexity_path, grow, prepare_data
from .._validation import apply_class_weight, check_fit_data, check_predict_data, regression_criterion


class BaseDecisionTree(EngineEstimator):
    """Common fit/predict of the single trees; not for direct use."""

    #: Whether fit and the predict-side methods take scipy sparse X (see the classes' docstrings).
    _sparse_X = True

    _parameter_constraints = {**TREE_PARAMETER_CONSTRAINTS, "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
                              "monotonic_cst": ["array-like", None]}

    def __init__(self, *, criterion, splitter, max_depth, min_samples_split, min_samples_leaf,
                 min_weight_fraction_leaf, min_impurity_decrease, max_features, max_leaf_nodes, max_bins, random_state,
                 sdt_C=10, sdt_alpha=8, sdt_min_features_fraction=0.005, sdt_n0=20, ccp_alpha=0.0, monotonic_cst=None):
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
        self.random_state = random_state
        self.sdt_C = sdt_C
        self.sdt_alpha = sdt_alpha
        self.sdt_min_features_fraction = sdt_min_features_fraction
        self.sdt_n0 = sdt_n0
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, self._is_classifier(),
                                             accept_sparse=self._sparse_X, multi_output=True)
        if y.ndim == 2:
            return self._fit_multi_output(X, y, sample_weight)
        yk, yr, n_values, classes = self._encode_target(y)
        params = tree_params(self, X.shape[0], X.shape[1], n_values)
        class_weight = getattr(self, "class_weight", None)
        if class_weight is not None:
            sample_weight = apply_class_weight(sample_weight, class_weight, y)
        seed = check_random_state(self.random_state).randint(MAX_SEED)
        data = prepare_data(X, self.splitter, self.max_bins, seed=seed, sample_weight=sample_weight)
        self.tree_ = grow(data, TreeTarget(yk, yr, n_values), sample_weight, params, seed)
        self.max_features_ = params.max_features
        self.n_outputs_ = 1
        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = int(classes.shape[0])
        return self

    def _fit_multi_output(self, X, y, sample_weight):
        """``fit`` on a 2-D ``y`` (``n_outputs > 1``): one tree predicts every output (see the class docstring)."""
        params = multi_output_params(self, X.shape)
        target, classes = self._encode_target_multi(y)
        class_weight = getattr(self, "class_weight", None)
        if class_weight is not None:
            sample_weight = apply_class_weight(sample_weight, class_weight, y)
        seed = check_random_state(self.random_state).randint(MAX_SEED)
        data = prepare_data(X, self.splitter, self.max_bins, seed=seed, sample_weight=sample_weight)
        self.tree_ = grow(data, target, sample_weight, params, seed)
        self.max_features_ = params.max_features
        self.n_outputs_ = target.n_outputs
        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = np.array(target.n_classes, dtype=np.intp)
        return self

    def _raw_predict(self, X):
        X = check_predict_data(self, X, accept_sparse=self._sparse_X)
        return self.tree_.predict(X)

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The minimal cost-complexity pruning path of the tree grown on ``(X, y)``.

        The tree is grown with these parameters and ``ccp_alpha=0``; this
        estimator is not changed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The training samples.
        y : array-like of shape (n_samples,)
            The targets.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Weight of each sample; None weighs them equally.

        Returns
        -------
        path : sklearn.utils.Bunch
            ``ccp_alphas``: the effective alpha of every pruning step, 0 for the
            unpruned tree first; ``impurities``: the total impurity of the
            leaves of the subtree at each step (weighted, relative to the root's
            weight).  ``ccp_alpha`` between ``ccp_alphas[i]`` and
            ``ccp_alphas[i + 1]`` gives the subtree of step ``i``.
        """
        grown = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight)
        alphas, impurities = cost_complexity_path(grown.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def apply(self, X):
        """Index of the leaf each sample ends in.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,)
            The node index of each sample's leaf.
        """
        X = check_predict_data(self, X, accept_sparse=self._sparse_X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """Indicator of the nodes each sample visits.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Nonzero at ``[i, j]`` when sample ``i`` passes through node ``j``.
        """
        X = check_predict_data(self, X, accept_sparse=self._sparse_X)
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree (the root alone has depth 0).

        Returns
        -------
        int
            The largest depth of a leaf.
        """
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves.

        Returns
        -------
        int
            The number of leaves of the fitted tree.
        """
        check_is_fitted(self)
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importances, normalised to sum to one."""
        check_is_fitted(self)
        return self.tree_.compute_feature_importances()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = self._sparse_X
        tags.target_tags.multi_output = True
        return tags


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """A CART classification tree grown by the forestzoo engine.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity measure; "entropy" and "log_loss" are the same (bits).
    splitter : {"exact", "best", "hist", "random", "stochastic"}, default="exact"
        "exact" (or "best", scikit-learn's name) searches midpoints of sorted values (CART); "hist" searches
        the boundaries of at most ``max_bins`` quantile bins; "random" draws
        one threshold per candidate feature (Extra Trees); "stochastic" is
        SDT: candidate features are ranked on growing random subsets of the
        node, the worse half discarded each round, and the exact search runs
        on the survivors only (see the ``sdt_*`` parameters).
    max_depth : int or None, default=None
        Greatest depth of a leaf; None grows until the other limits stop it.
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
        Features drawn at every node, as in scikit-learn: a feature constant
        in the node counts as drawn, and more are drawn while every one drawn
        was constant.
    max_leaf_nodes : int or None, default=None
        When set, the tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Value bins per feature for ``splitter="hist"`` (NaN has its own bin).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights;
        "balanced" weighs each class inversely to its frequency.
    random_state : int, RandomState or None, default=None
        Seed of the feature draws and of the random and stochastic splitters.
    sdt_C : int in [1, 31], default=10
        ``splitter="stochastic"`` only: each round adds ``N_j / 2**sdt_C``
        random rows of the node (``N_j`` rows) to the working set (Step 1).
    sdt_alpha : int >= 1, default=8
        ``splitter="stochastic"`` only: at most this many rounds, each
        halving the candidate features (Steps 3-4; the paper uses 7-10).
    sdt_min_features_fraction : float in (0, 1], default=0.005
        ``splitter="stochastic"`` only: rounds stop once no more than this
        fraction of the candidate features survive (the paper's ~0.5 %).
    sdt_n0 : int >= 1, default=20
        ``splitter="stochastic"`` only: least number of rows added per round
        (the paper's ``N_0``).  A node searched stochastically would read no
        fewer values than the exact search (small nodes, in particular nodes
        of at most ``sdt_n0`` rows) falls back to the exact search.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning after growth (Breiman et al. 1984,
        as in scikit-learn): the subtree of least ``R(T) + ccp_alpha *
        |leaves(T)|`` is kept, ``R`` the leaves' impurities weighted by their
        share of the root's weight.  0 prunes nothing; see
        :meth:`cost_complexity_pruning_path` for the values that matter.
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Monotonicity constraint per feature, as in scikit-learn: 1 makes the
        probability of the second class (``classes_[1]``) non-decreasing in
        that feature, -1 non-increasing, 0 leaves it free.  Two classes only;
        not with ``splitter="stochastic"``.  A split on a constrained feature
        is kept only if its children's values are ordered and inside the
        node's bounds; the midpoint of the two values bounds their subtrees,
        and every node's value is clipped into its bounds.

    Attributes
    ----------
    tree_ : forestzoo._engine.api.Tree
        The fitted arrays (``nodes``, ``values``, oblique side arrays), with scikit-learn's ``Tree``
        attributes (``children_left``, ``feature``, ``threshold``, ``value``, ...); nodes numbered as
        scikit-learn numbers them (depth-first, left child first, unless ``max_leaf_nodes`` is set).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    max_features_ : int
        The number of features drawn at every node.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based (MDI) importances, normalised to sum to one.

    See Also
    --------
    forestzoo.RandomForestClassifier : A bagged forest of these trees.
    sklearn.tree.DecisionTreeClassifier : The CART tree of scikit-learn.
    forestzoo.HaarTreeClassifier : A tree splitting on Haar-like features.

    Notes
    -----
    Missing values (NaN) are supported: each split learns the side NaN goes
    to; a node that saw no NaN sends it to its larger child.

    Multi-output ``y`` (shape ``(n_samples, n_outputs)``, ``n_outputs > 1``)
    is fitted by one tree, as in scikit-learn: a node's impurity is the mean
    over the outputs of each output's impurity, ``classes_`` is a list of
    each output's labels, ``n_classes_`` an array, ``predict`` returns
    ``(n_samples, n_outputs)`` labels, ``predict_proba`` a list of one
    ``(n_samples, n_classes_[o])`` array per output, ``tree_.value`` has shape
    ``(n_nodes, n_outputs, max(n_classes_))`` and ``class_weight`` may be a
    list of one dict per output.  Splitters "exact", "random" and "hist";
    ``splitter="stochastic"`` and ``monotonic_cst`` are refused with a
    ``ValueError``.  A single column is one output (1-D predictions).

    ``X`` may be a scipy sparse matrix or array (any format) in ``fit`` and
    in every predict-side method, as in scikit-learn: absent entries are
    zeros, stored NaN are missing values.  The tree equals the one grown on
    ``X.toarray()`` with every splitter, and predictions equal those on the
    dense matrix.  ``fit`` never makes ``X`` dense: the exact, random and
    stochastic splitters read its CSC form (a value is found by binary search
    in its column), and ``splitter="hist"`` bins it column by column into the
    same uint8 codes as a dense ``X``, kept in an index of the codes that
    differ from their feature's most common one where that index is small
    (see the forests' docstrings).
    Prediction densifies a few MB of rows at a time.

    ``tree_.n_split_evaluations`` counts the (row, feature) pairs the split
    searches read, the complexity measure of the SDT paper's Figures 1-2.

    References
    ----------
    L. Breiman, J. Friedman, R. Olshen, C. Stone, "Classification and
    Regression Trees", 1984.  "Stochastic induction of decision trees with
    application to learning Haar tree" (SDT, ``splitter="stochastic"``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    >>> round(clf.score(X, y), 2)
    0.97
    """

    _parameter_constraints = {
        **BaseDecisionTree._parameter_constraints,
        "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
        "class_weight": [dict, list, StrOptions({"balanced"}), None],
    }

    def __init__(self, *, criterion="gini", splitter="exact", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features=None, max_leaf_nodes=None,
                 max_bins=255, class_weight=None, random_state=None, sdt_C=10, sdt_alpha=8,
                 sdt_min_features_fraction=0.005, sdt_n0=20, ccp_alpha=0.0, monotonic_cst=None):
        super().__init__(
            criterion=criterion, splitter=splitter, max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes, max_bins=max_bins,
            random_state=random_state, sdt_C=sdt_C, sdt_alpha=sdt_alpha,
            sdt_min_features_fraction=sdt_min_features_fraction, sdt_n0=sdt_n0, ccp_alpha=ccp_alpha,
            monotonic_cst=monotonic_cst,
        )
        self.class_weight = class_weight

    def predict_proba(self, X):
        """Class probabilities: the weighted class proportions of the leaf.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes) or list of ndarray
            Probability of each class in :attr:`classes_` order; with several
            outputs a list of ``n_outputs`` such arrays, one per output.
        """
        proba = self._raw_predict(X)
        if self.n_outputs_ > 1:
            return split_outputs(proba, self.n_classes_)
        return proba

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` for zero probabilities).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_classes) or list of ndarray
            Log-probability of each class in :attr:`classes_` order (a list
            of ``n_outputs`` arrays with several outputs).
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if self.n_outputs_ > 1:
                return [np.log(p) for p in proba]
            return np.log(proba)

    def predict(self, X):
        """Most probable class of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        if self.n_outputs_ > 1:
            return predict_labels(proba, self.classes_)
        return self.classes_[np.argmax(proba, axis=1)]


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A CART regression tree grown by the forestzoo engine.

    Parameters are those of :class:`DecisionTreeClassifier` without
    ``class_weight`` (``splitter="stochastic"`` and the ``sdt_*`` parameters
    included); ``criterion`` is "squared_error" (the default), "poisson"
    (the half Poisson deviance, for counts and frequencies: ``y >= 0`` with a
    positive sum; a split must leave both children a positive sum) or
    "absolute_error" (the mean absolute deviation from the weighted median;
    leaves predict that median; no ``monotonic_cst``, and not with
    ``splitter="stochastic"``).
    ``"friedman_mse"`` maps to "squared_error" with a ``FutureWarning``, as in
    scikit-learn 1.9.  Leaves predict the weighted mean of their targets
    (the median for "absolute_error"); ``monotonic_cst`` constrains that mean.  Sparse ``X`` is accepted as in
    :class:`DecisionTreeClassifier`.

    Multi-output ``y`` (shape ``(n_samples, n_outputs)``) is fitted by one
    tree with criterion "squared_error" (or "friedman_mse"), "poisson" or
    "absolute_error": a node's impurity is the mean over the outputs of each
    output's variance (half Poisson deviance, mean absolute deviation from
    its weighted median), leaves predict each output's weighted mean (weighted
    median), ``predict`` returns ``(n_samples, n_outputs)`` and ``tree_.value``
    has shape ``(n_nodes, n_outputs, 1)``.  ``monotonic_cst`` and
    ``splitter="stochastic"`` are refused with a ``ValueError`` on such ``y``.

    Parameters
    ----------
    criterion : {"squared_error", "poisson", "absolute_error"}, default="squared_error"
        Impurity measure, as above.
    splitter : {"exact", "best", "hist", "random", "stochastic"}, default="exact"
        Split search, as in :class:`DecisionTreeClassifier`.
    max_depth : int or None, default=None
        Greatest depth of a leaf; None grows until the other limits stop it.
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
        Features drawn at every node, as in scikit-learn: a feature constant
        in the node counts as drawn, and more are drawn while every one drawn
        was constant.
    max_leaf_nodes : int or None, default=None
        When set, the tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Value bins per feature for ``splitter="hist"`` (NaN has its own bin).
    random_state : int, RandomState or None, default=None
        Seed of the feature draws and of the random and stochastic splitters.
    sdt_C : int in [1, 31], default=10
        ``splitter="stochastic"`` only, as in :class:`DecisionTreeClassifier`.
    sdt_alpha : int >= 1, default=8
        ``splitter="stochastic"`` only, as in :class:`DecisionTreeClassifier`.
    sdt_min_features_fraction : float in (0, 1], default=0.005
        ``splitter="stochastic"`` only, as in :class:`DecisionTreeClassifier`.
    sdt_n0 : int >= 1, default=20
        ``splitter="stochastic"`` only, as in :class:`DecisionTreeClassifier`.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning after growth, as in
        :class:`DecisionTreeClassifier`.
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Monotonicity constraint per feature on the predicted value: 1
        non-decreasing, -1 non-increasing, 0 free.

    Attributes
    ----------
    tree_ : forestzoo._engine.api.Tree
        The fitted arrays (``nodes``, ``values``, oblique side arrays), with scikit-learn's ``Tree``
        attributes (``children_left``, ``feature``, ``threshold``, ``value``, ...); nodes numbered as
        scikit-learn numbers them (depth-first, left child first, unless ``max_leaf_nodes`` is set).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    max_features_ : int
        The number of features drawn at every node.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based (MDI) importances, normalised to sum to one.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from forestzoo import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    >>> reg.predict(X[:2]).shape
    (2,)
    """

    _parameter_constraints = {
        **BaseDecisionTree._parameter_constraints,
        "criterion": [StrOptions(REGRESSION_CRITERIA)],
    }

    def __init__(self, *, criterion="squared_error", splitter="exact", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features=None, max_leaf_nodes=None,
                 max_bins=255, random_state=None, sdt_C=10, sdt_alpha=8, sdt_min_features_fraction=0.005,
                 sdt_n0=20, ccp_alpha=0.0, monotonic_cst=None):
        super().__init__(
            criterion=regression_criterion(criterion), splitter=splitter, max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes, max_bins=max_bins,
            random_state=random_state, sdt_C=sdt_C, sdt_alpha=sdt_alpha,
            sdt_min_features_fraction=sdt_min_features_fraction, sdt_n0=sdt_n0, ccp_alpha=ccp_alpha,
            monotonic_cst=monotonic_cst,
        )

    def predict(self, X):
        """Weighted mean target of the leaf each sample reaches.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            The predicted values (the leaf's weighted median for
            ``criterion="absolute_error"``).
        """
        values = self._raw_predict(X)
        return values if self.n_outputs_ > 1 else values[:, 0]
