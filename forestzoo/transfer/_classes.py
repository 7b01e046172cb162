"""Transfer forests: a source forest refined on target data by SER, STRUT or both (MIX)."""

from numbers import Integral

import numpy as np
from joblib import delayed
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions

from .._engine.api import (
    Tree, TreeParams, TreeTarget, class_targets, compact, draw_seeds, prepare_data, refit_values, regression_targets,
    resolve_max_features,
)
from .._parallel import Parallel
from .._validation import check_fit_data
from ..ensemble._forest import ForestClassifier, ForestRegressor, bootstrap_counts
from ..tree._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._ser import ser_tree
from ._source import load_source, remap_classes
from ._strut import strut_tree

ALGORITHMS = ("ser", "strut", "mix")


def _default_source(classification, n_estimators, seed):
    # Without a source model the method refines a forest grown on the target
    # rows themselves (exact splitter, no bootstrap: weights and repeated rows agree).
    from ..ensemble import RandomForestClassifier, RandomForestRegressor

    cls = RandomForestClassifier if classification else RandomForestRegressor
    return cls(n_estimators=n_estimators, splitter="exact", bootstrap=False, max_features="sqrt", random_state=seed)


class _TransferForestMixin:
    """Fit of :class:`TransferForestClassifier` / :class:`TransferForestRegressor`."""

    _parameter_constraints = {
        "source_forest": [HasMethods(["fit", "predict"]), None],
        "algorithm": [StrOptions(set(ALGORITHMS))],
        "bootstrap": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def _fit(self, X, y, sample_weight):
        classification = self._is_classifier()
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification)
        rs = check_random_state(self.random_state)
        source = self.source_forest
        if source is None:
            source = _default_source(classification, 10, rs.randint(np.iinfo(np.int32).max)).fit(X, y, sample_weight)
        src = load_source(source, classification)
        if X.shape[1] != src.n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but the source forest was fitted on {src.n_features}; "
                "target data must use the source's features, in the same order."
            )
        n = X.shape[0]
        if classification:
            y_numeric, src_numeric = np.asarray(y).dtype.kind in "biuf", src.classes.dtype.kind in "biuf"
            try:
                if y_numeric != src_numeric:
                    raise TypeError
                classes = np.union1d(src.classes, np.unique(y))
            except TypeError as exc:
                raise ValueError(
                    f"Target labels ({np.asarray(y).dtype}) cannot be compared with the source classes "
                    f"({src.classes.dtype}); use the same label type."
                ) from exc
            yk = np.searchsorted(classes, y).astype(np.int32)
            yr = np.zeros(n)
            n_values = classes.shape[0]
            targets = class_targets(yk, n_values)
            trees = [remap_classes(t, src.classes, classes) for t in src.trees]
        else:
            classes = None
            yk = np.zeros(n, np.int32)
            yr = y.astype(np.float64)
            n_values = 1
            targets = regression_targets(yr)
            trees = src.trees

        algos = ["ser", "strut"] if self.algorithm == "mix" else [self.algorithm]
        jobs = [(a, t) for a in algos for t in trees]
        seeds = draw_seeds(rs, len(jobs))
        data = params = None
        if "ser" in algos:
            data = prepare_data(X, "exact", 255)
            # SER's subtrees grow like the source's trees, with its own leaf sizes (taken as they are)
            params = TreeParams(src.criterion, max_features=resolve_max_features(src.max_features, X.shape[1]),
                                min_samples_split=src.min_samples_split, min_samples_leaf=src.min_samples_leaf)
        target = TreeTarget(yk, yr, n_values)
        y_var = float(np.var(yr)) if not classification else 0.0

        def fit_one(algo, tree, seed):
            w = sample_weight
            if self.bootstrap:
                w = w * bootstrap_counts(int(seed), n, n)
            if algo == "ser":
                new = ser_tree(tree, X, data, target, w, targets, classification, params, int(seed))
            else:
                nodes = tree.nodes.copy()
                idx = np.flatnonzero(w > 0).astype(np.int64)
                # variance floor of the normal label distributions (regression only)
                floor = 1e-3 * max(float(tree.nodes["impurity"][0]), y_var, 1e-12)
                strut_tree(X, nodes, tree.values, idx, w, yk, yr, classification, n_values, floor,
                           tree.obl_ptr, tree.obl_feature, tree.obl_weight)
                new = compact(Tree(nodes, tree.values.copy(), tree.n_features, tree.obl_ptr, tree.obl_feature,
                                   tree.obl_weight))
            # leaf values (and node statistics) from the target rows that reach them
            return refit_values(new, X, targets, w, classification)

        new_trees = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(fit_one)(a, t, s) for (a, t), s in zip(jobs, seeds)
        )
        # state is assigned only now: a failed fit leaves the previous model intact
        self.n_outputs_ = 1
        if classification:
            self.classes_ = classes
            self.n_classes_ = int(classes.shape[0])
        self.estimators_ = [self._wrap(t, int(s), classification) for t, s in zip(new_trees, seeds)]
        self.algorithms_ = [a for a, _ in jobs]
        self.source_n_estimators_ = len(trees)
        return self

    def _wrap(self, tree, seed, classification):
        est = (DecisionTreeClassifier if classification else DecisionTreeRegressor)(random_state=seed)
        est.tree_ = tree
        est.n_features_in_ = tree.n_features
        est.n_outputs_ = 1
        est.max_features_ = tree.n_features
        if classification:
            est.classes_ = self.classes_
            est.n_classes_ = self.n_classes_
        return est


_PARAMS_DOC = """
    Parameters
    ----------
    source_forest : fitted forest or tree, or None, default=None
        The source model: a fitted forestzoo or scikit-learn Random Forest,
        Extra Trees or decision tree (a single tree is a forest of one),
        possibly wrapped in ``sklearn.frozen.FrozenEstimator`` -- do wrap it
        when the transfer forest goes through ``clone`` (cross-validation,
        grid search), which would otherwise hand over an unfitted copy.  The
        source data are never needed.  ``None``: no source model; a 10-tree
        forest (no bootstrap) is grown on the target data and refined on the
        same data, which is only useful as a baseline and for testing.
    algorithm : {"ser", "strut", "mix"}, default="ser"
        "ser": structure expansion / reduction (Algorithm 1); "strut":
        structure transfer (Algorithm 2); "mix": both forests, averaged
        (a voting ensemble of the SER and STRUT forests).
    bootstrap : bool, default=False
        Refine every tree on its own bootstrap sample of the target rows
        instead of on all of them.
    n_jobs : int or None, default=None
        Threads refining trees in parallel (results do not depend on it).
    random_state : int, RandomState or None, default=None
        Seeds the SER expansion trees (random feature subsets) and the bootstrap.
"""

_REFERENCES = """
    References
    ----------
    N. Segev, M. Harel, S. Mannor, K. Crammer, R. El-Yaniv, "Learn on source,
    refine on target: a model transfer learning framework with random
    forests", IEEE TPAMI 39(9), 2017.
"""


class TransferForestClassifier(_TransferForestMixin, ForestClassifier):
    __doc__ = (
        """A source random forest refined on target data: SER, STRUT or MIX (Segev et al. 2017).

    Each source tree is adapted to the (small) target sample by Structure
    Expansion / Reduction (SER: leaves reached by target rows are expanded
    into trees grown on those rows, then nodes whose leaf error on the target
    rows is below their subtree error are pruned, bottom-up), by Structure
    Transfer (STRUT: the structure and features are kept and every threshold
    is re-selected on the target rows by maximising the Jensen-Shannon
    divergence gain among local maxima of information gain; children are
    swapped when that fits better; unreached subtrees are pruned) or by both
    (MIX).  The forest predicts the mean of its trees' leaf class proportions.
    Target classes absent from the source are added (``classes_`` is the union).
"""
        + _PARAMS_DOC
        + """
    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        The refined trees; with ``algorithm="mix"`` the SER trees come first.
    algorithms_ : list of str
        "ser" or "strut" for every tree of ``estimators_``.
    source_n_estimators_ : int
        Number of trees of the source model.
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,), MDI on the target rows

    See Also
    --------
    TransferForestRegressor : The transfer forest for regression.
    forestzoo.RandomForestClassifier : A forest of the target data alone.
"""
        + _REFERENCES
        + """
    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from forestzoo import RandomForestClassifier, TransferForestClassifier
    >>> X, y = make_classification(n_samples=600, n_features=8, random_state=0)
    >>> X_tgt = X[400:] + 0.5  # a shifted target domain
    >>> src = RandomForestClassifier(n_estimators=10, random_state=0).fit(X[:400], y[:400])
    >>> tf = TransferForestClassifier(src, algorithm="mix", random_state=0)
    >>> tf = tf.fit(X_tgt[:100], y[400:500])
    >>> len(tf.estimators_), tf.algorithms_[0], tf.algorithms_[-1]
    (20, 'ser', 'strut')
    >>> tf.predict_proba(X_tgt[100:103]).shape
    (3, 2)
    """
    )

    _parameter_constraints = _TransferForestMixin._parameter_constraints

    def __init__(self, source_forest=None, *, algorithm="ser", bootstrap=False, n_jobs=None, random_state=None):
        self.source_forest = source_forest
        self.algorithm = algorithm
        self.bootstrap = bootstrap
        self.n_jobs = n_jobs
        self.random_state = random_state


class TransferForestRegressor(_TransferForestMixin, ForestRegressor):
    __doc__ = (
        """A source regression forest refined on target data: SER, STRUT or MIX.

    The regression version of :class:`TransferForestClassifier`.  SER errors
    are sums of squared errors and pruned leaves predict the target mean.
    STRUT compares normal label distributions (source: the children's mean
    and variance; target: those of the target rows) with the squared
    Hellinger distance in place of the Jensen-Shannon divergence, and uses
    the variance reduction as information gain.
"""
        + _PARAMS_DOC
        + """
    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
    algorithms_ : list of str
    source_n_estimators_ : int
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,)

    See Also
    --------
    TransferForestClassifier : The transfer forest for classification.
    forestzoo.RandomForestRegressor : A forest of the target data alone.
"""
        + _REFERENCES
        + """
    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from forestzoo import RandomForestRegressor, TransferForestRegressor
    >>> X, y = make_regression(n_samples=500, n_features=6, random_state=0)
    >>> src = RandomForestRegressor(n_estimators=10, random_state=0).fit(X[:400], y[:400])
    >>> tf = TransferForestRegressor(src, algorithm="strut").fit(X[400:450], 1.5 * y[400:450])
    >>> tf.predict(X[450:453]).shape
    (3,)
    """
    )

    _parameter_constraints = _TransferForestMixin._parameter_constraints

    def __init__(self, source_forest=None, *, algorithm="ser", bootstrap=False, n_jobs=None, random_state=None):
        self.source_forest = source_forest
        self.algorithm = algorithm
        self.bootstrap = bootstrap
        self.n_jobs = n_jobs
        self.random_state = random_state
