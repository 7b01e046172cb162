"""Random Forest (Breiman 2001) and Extra Trees (Geurts et al. 2006)."""

from numbers import Real

from sklearn.utils._param_validation import Interval

from .._validation import regression_criterion
from ._forest import ForestClassifier, ForestRegressor

_COMMON_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    criterion : {crit}
    splitter : {{"hist", "exact", "best", "random", "stochastic"}}, default="{splitter}"
        "hist": best split over at most ``max_bins`` quantile bins per feature
        (bins computed once per forest); "exact" (or "best", scikit-learn's name): best midpoint over sorted
        values (CART); "random": one uniform threshold per candidate feature
        (Extra Trees); "stochastic": the SDT search (candidate features ranked
        on growing random subsets of the node, the worse half discarded per
        round, the exact search on the survivors; see ``sdt_*``).
    max_depth : int or None, default=None
        None grows every tree until its leaves are pure or too small.
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
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning of every grown tree (Breiman et al.
        1984): the subtree of least ``R(T) + ccp_alpha * |leaves|`` is kept
        (as in scikit-learn; 0 prunes nothing).
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Monotonicity constraint per feature, as in scikit-learn: 1
        non-decreasing, -1 non-increasing, 0 free, on the predicted value
        (regression) or the probability of ``classes_[1]`` (binary
        classification only).  Every tree obeys it, so their mean does too.
        Not with ``splitter="stochastic"``.
    max_features : {{"sqrt", "log2"}}, int, float or None, default={max_features}
        Features drawn at every node, as in scikit-learn: a feature constant
        in the node counts as drawn, and more are drawn while every one drawn
        was constant.
    max_leaf_nodes : int or None, default=None
        When set, every tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Value bins per feature for ``splitter="hist"``; NaN has its own bin.
    bootstrap : bool, default={bootstrap}
        Draw a bootstrap sample per tree, as integer weights (``X`` is never copied).
    max_samples : int, float or None, default=None
        Bootstrap sample size (int, may exceed ``n_samples``) or its ratio to
        ``n_samples`` (float > 0, truncated: ``max(int(max_samples * n_samples), 1)``),
        as in scikit-learn; needs ``bootstrap=True``.
    oob_score : bool or callable, default=False
        Compute the out-of-bag score (needs ``bootstrap=True``): accuracy or
        R^2, or ``oob_score(y_true, y_pred)`` when a callable (e.g. a metric
        of :mod:`sklearn.metrics`), on the rows that were out of bag at least once.
{class_weight}    warm_start : bool, default=False
        Keep the fitted trees and add ``n_estimators - len(estimators_)`` new ones;
        with an int ``random_state`` the result equals fitting all trees at once.
    n_jobs : int or None, default=None
        Threads used by fit and predict (joblib; works under
        ``joblib.parallel_config(backend="dask")``).  Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the bootstrap samples and of the trees' random draws.
    verbose : int, default=0
        Verbosity of the fit.
    sdt_C, sdt_alpha, sdt_min_features_fraction, sdt_n0 : default=10, 8, 0.005, 20
        Parameters of ``splitter="stochastic"`` (rows per round ``N_j / 2**C``,
        at least ``n0``; at most ``alpha`` halving rounds; stop at this
        fraction of the candidates), as in :class:`DecisionTreeClassifier`.
"""


def _doc(crit, splitter, max_features, bootstrap, class_weight=""):
    return _COMMON_DOC.format(crit=crit, splitter=splitter, max_features=max_features, bootstrap=bootstrap,
                              class_weight=class_weight)


_CLF_CRIT = ('{"gini", "entropy", "log_loss"}, default="gini"\n'
             '        Impurity measure of the trees; "entropy" and "log_loss" are the same.')
_REG_CRIT = ('{"squared_error", "absolute_error", "poisson"}, default="squared_error"\n'
             '        Impurity measure of the trees.  "poisson": the half Poisson deviance (``y >= 0``, positive sum); "absolute_error": the mean\n'
             '        absolute deviation from the weighted median, which the leaves predict (no ``monotonic_cst``);\n'
             '        "friedman_mse" maps to "squared_error" with a ``FutureWarning``, as in scikit-learn 1.9.')
_CLASS_WEIGHT_DOC = """    class_weight : dict, "balanced", "balanced_subsample" or None, default=None
        Weights of the classes, multiplied into the sample weights; "balanced"
        weighs each class inversely to its frequency; "balanced_subsample" recomputes the balanced weights on every bootstrap sample.
"""
_CLF_ATTRS = """
    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
    classes_ : ndarray of shape (n_classes,), or a list of one such array per output
    n_classes_ : int, or a list of ints (one per output)
    n_outputs_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray, when X has string column names
    feature_importances_ : ndarray of shape (n_features,), mean decrease in impurity
    estimators_samples_ : list of int ndarrays, each tree's bootstrap rows (repeats included), or all rows
    oob_score_ : float, accuracy of the out-of-bag predictions (``oob_score=True``)
    oob_decision_function_ : ndarray (n_samples, n_classes), OOB class probabilities;
        (n_samples, n_classes, n_outputs) for several outputs, as in scikit-learn

    Multi-output ``y`` (shape ``(n_samples, n_outputs)``) is fitted as in
    scikit-learn: each tree predicts every output (see
    :class:`DecisionTreeClassifier`), ``predict`` returns ``(n_samples,
    n_outputs)`` labels and ``predict_proba`` a list of one array per output;
    ``class_weight`` may be a list of one dict per output ("balanced" and
    "balanced_subsample" multiply the outputs' weights).  The out-of-bag
    score needs every output binary or multiclass with the same classes
    (scikit-learn's rule; multiclass-multioutput is refused).  A single
    column is ravelled with a ``DataConversionWarning``.
"""
_SPARSE_DOC = """
    ``X`` may be a scipy sparse matrix or array (any format) in ``fit`` and in
    every predict-side method (``predict``, ``predict_proba``, ``apply``,
    ``decision_path``, ``score``, the out-of-bag estimate), as in
    scikit-learn: absent entries are zeros, stored NaN are missing values.
    The forest equals the one fitted on ``X.toarray()`` with every splitter,
    tree for tree, and predictions equal those on the dense matrix.  ``X`` is
    never made dense: the exact, random and stochastic splitters read its CSC
    form, ``splitter="hist"`` bins it column by column into the uint8 codes
    a dense ``X`` gets and, when at most an eighth of them differ from their
    feature's most common code (the code of 0, for a sparse column), keeps
    only those in an index by column and by row (about 10 bytes per stored
    value instead of ``n_features x n_samples`` bytes); the trees search and
    partition the nodes from that index (the regression criteria and
    multi-output ``y`` once the code matrix would hold 2**27 cells or more:
    a smaller one is read faster), except that ``absolute_error``, and
    non-integer sample or class weights with a classification criterion and
    one output, rebuild the code matrix from it.  Prediction densifies a few MB
    of rows at a time.  hist stays
    the default on sparse input: its growth reads the codes, not the sparse
    matrix, and it was much faster than the exact search on the CSC form
    (each node looks a value up by binary search in its column) on a
    20000 x 2000 CSR matrix of density 1 % (``benchmarks/sparse_fit.py``).
    Neither splitter skips the zeros, so on such data scikit-learn's sparse
    splitter, which does, fits about 3 times faster.
"""
_REG_ATTRS = """
    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
    n_features_in_ : int
    feature_names_in_ : ndarray, when X has string column names
    feature_importances_ : ndarray of shape (n_features,), mean decrease in impurity
    estimators_samples_ : list of int ndarrays, each tree's bootstrap rows (repeats included), or all rows
    oob_score_ : float, R^2 of the out-of-bag predictions (``oob_score=True``)
    oob_prediction_ : ndarray (n_samples,), OOB predictions; (n_samples, n_outputs) for several outputs

    Multi-output ``y`` (shape ``(n_samples, n_outputs)``) is fitted as in
    scikit-learn, with criterion "squared_error", "poisson" or "absolute_error"
    (leaves predict each output's weighted median): each tree predicts every
    output (the impurity is the mean over the outputs), ``predict`` returns
    ``(n_samples, n_outputs)``, ``oob_score_`` is the R^2 averaged over the
    outputs.  ``monotonic_cst`` and ``splitter="stochastic"`` are refused with
    a ``ValueError`` on such ``y``.
"""


class RandomForestClassifier(ForestClassifier):
    _sparse_X = True  # scipy sparse X in fit and predict (ExtraTrees* inherit it)
    _multi_output = True  # a 2-D y of several outputs (ExtraTrees* inherit it)
    _parameter_constraints = {**ForestClassifier._parameter_constraints, "ccp_alpha": [Interval(Real, 0.0, None,
                                                                                                 closed="left")],
                              "monotonic_cst": ["array-like", None]}

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="hist", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, ccp_alpha=0.0,
                 monotonic_cst=None, max_features="sqrt",
                 max_leaf_nodes=None, max_bins=255, bootstrap=True, max_samples=None, oob_score=False,
                 class_weight=None, warm_start=False, n_jobs=None, random_state=None, verbose=0, sdt_C=10,
                 sdt_alpha=8, sdt_min_features_fraction=0.005, sdt_n0=20):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.sdt_C = sdt_C
        self.sdt_alpha = sdt_alpha
        self.sdt_min_features_fraction = sdt_min_features_fraction
        self.sdt_n0 = sdt_n0


class ExtraTreesClassifier(RandomForestClassifier):
    def __init__(self, n_estimators=100, *, criterion="gini", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, ccp_alpha=0.0,
                 monotonic_cst=None, max_features="sqrt",
                 max_leaf_nodes=None, max_bins=255, bootstrap=False, max_samples=None, oob_score=False,
                 class_weight=None, warm_start=False, n_jobs=None, random_state=None, verbose=0, sdt_C=10,
                 sdt_alpha=8, sdt_min_features_fraction=0.005, sdt_n0=20):
        super().__init__(
            n_estimators, criterion=criterion, splitter=splitter, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease,
            ccp_alpha=ccp_alpha, monotonic_cst=monotonic_cst, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, max_bins=max_bins, bootstrap=bootstrap, max_samples=max_samples,
            oob_score=oob_score, class_weight=class_weight, warm_start=warm_start, n_jobs=n_jobs,
            random_state=random_state, verbose=verbose, sdt_C=sdt_C, sdt_alpha=sdt_alpha,
            sdt_min_features_fraction=sdt_min_features_fraction, sdt_n0=sdt_n0,
        )


class RandomForestRegressor(ForestRegressor):
    _sparse_X = True  # scipy sparse X in fit and predict (ExtraTrees* inherit it)
    _multi_output = True  # a 2-D y of several outputs (ExtraTrees* inherit it)
    _parameter_constraints = {**ForestRegressor._parameter_constraints, "ccp_alpha": [Interval(Real, 0.0, None,
                                                                                               closed="left")],
                              "monotonic_cst": ["array-like", None]}

    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter="hist", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, ccp_alpha=0.0,
                 monotonic_cst=None, max_features=1.0,
                 max_leaf_nodes=None, max_bins=255, bootstrap=True, max_samples=None, oob_score=False,
                 warm_start=False, n_jobs=None, random_state=None, verbose=0, sdt_C=10, sdt_alpha=8,
                 sdt_min_features_fraction=0.005, sdt_n0=20):
        self.n_estimators = n_estimators
        self.criterion = regression_criterion(criterion)
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.sdt_C = sdt_C
        self.sdt_alpha = sdt_alpha
        self.sdt_min_features_fraction = sdt_min_features_fraction
        self.sdt_n0 = sdt_n0


class ExtraTreesRegressor(RandomForestRegressor):
    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, ccp_alpha=0.0,
                 monotonic_cst=None, max_features=1.0,
                 max_leaf_nodes=None, max_bins=255, bootstrap=False, max_samples=None, oob_score=False,
                 warm_start=False, n_jobs=None, random_state=None, verbose=0, sdt_C=10, sdt_alpha=8,
                 sdt_min_features_fraction=0.005, sdt_n0=20):
        super().__init__(
            n_estimators, criterion=criterion, splitter=splitter, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease,
            ccp_alpha=ccp_alpha, monotonic_cst=monotonic_cst, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, max_bins=max_bins, bootstrap=bootstrap, max_samples=max_samples,
            oob_score=oob_score, warm_start=warm_start, n_jobs=n_jobs, random_state=random_state,
            verbose=verbose, sdt_C=sdt_C, sdt_alpha=sdt_alpha, sdt_min_features_fraction=sdt_min_features_fraction,
            sdt_n0=sdt_n0,
        )


RandomForestClassifier.__doc__ = (
    """A random forest classifier (Breiman 2001) on the forestzoo engine.

    Every tree is grown, fully by default, on a bootstrap sample with
    ``max_features`` candidate features drawn at every node; the forest
    predicts the mean of the trees' leaf class proportions.
"""
    + _doc(_CLF_CRIT, "hist", '"sqrt"', True, _CLASS_WEIGHT_DOC) + _CLF_ATTRS + _SPARSE_DOC
    + """
    See Also
    --------
    ExtraTreesClassifier : Random thresholds, no bootstrap by default.
    sklearn.ensemble.RandomForestClassifier : The random forest of scikit-learn.

    References
    ----------
    L. Breiman, "Random Forests", Machine Learning 45(1), 2001.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from forestzoo import RandomForestClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:1]).shape
    (1, 2)
    """
)
ExtraTreesClassifier.__doc__ = (
    """Extremely randomized trees (Geurts, Ernst & Wehenkel 2006) on the forestzoo engine.

    Same forest as :class:`RandomForestClassifier` but, by default, without
    bootstrap and with ``splitter="random"``: at every node each candidate
    feature gets one threshold drawn uniformly between its minimum and
    maximum in the node, and the best of those splits is kept.
"""
    + _doc(_CLF_CRIT, "random", '"sqrt"', False, _CLASS_WEIGHT_DOC) + _CLF_ATTRS + _SPARSE_DOC
    + """
    References
    ----------
    P. Geurts, D. Ernst, L. Wehenkel, "Extremely randomized trees", Machine Learning 63, 2006.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import ExtraTreesClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> ExtraTreesClassifier(n_estimators=20, random_state=0).fit(X, y).score(X, y)
    1.0
    """
)
RandomForestRegressor.__doc__ = (
    """A random forest regressor (Breiman 2001) on the forestzoo engine.

    Trees minimise the squared error; the forest predicts the mean of the
    trees' leaf means.
"""
    + _doc(_REG_CRIT, "hist", "1.0", True) + _REG_ATTRS + _SPARSE_DOC
    + """
    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from forestzoo import RandomForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """
)
ExtraTreesRegressor.__doc__ = (
    """Extremely randomized trees for regression (Geurts et al. 2006) on the forestzoo engine.
"""
    + _doc(_REG_CRIT, "random", "1.0", False) + _REG_ATTRS + _SPARSE_DOC
    + """
    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from forestzoo import ExtraTreesRegressor
    >>> X, y = make_regression(n_samples=200, n_features=5, random_state=0)
    >>> reg = ExtraTreesRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """
)
