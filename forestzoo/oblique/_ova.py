"""One-vs-all oblique random forests: obRaF(L), obRaF(RR), obRaF(S), obRaF(LS), obRaF(LR), obRaF(M).

Lecture, "Oblique Random Forest (ObRaF) with linear hyperplanes
based on one-vs-all approach", Algorithm 1: at every node, the ``K``
classes present give ``K`` binary problems (one class against the others;
one problem when ``K = 2``), one linear classifier is trained on each, and
the hyperplane with the largest Gini gain ``Gini_p - Gini_c`` (Eq. (1)-(3))
splits the node.  The forest is a Random Forest of such trees: bootstrap
samples and ``mtry`` candidate features per node.
"""

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..ensemble._forest import ForestClassifier
from ._linear_models import MODEL_CODES, MODEL_NAMES
from ._planned import PLANNED_PARAMETER_CONSTRAINTS, PLANNED_PARAMS_DOC, PlannedForestMixin

__all__ = ["OneVsAllObliqueForestClassifier", "one_vs_all_plan"]

#: The lecture's letters for the one-vs-all forests (obRaF(<letter>)).
LECTURE_LETTERS = {"lda": "L", "rr": "RR", "svm": "S", "lssvm": "LS", "lr": "LR", "mpsvm": "M"}


def one_vs_all_parts(n_classes):
    """``(K, K)`` identity: class ``k`` against the rest; one row when ``K = 2``."""
    return np.eye(n_classes, dtype=np.bool_)[: 1 if n_classes == 2 else n_classes]


class _OneVsAllPlan:
    """Plan of Algorithm 1: one model on every one-vs-all partition."""

    def __init__(self, code):
        self.code = code

    def __call__(self, Z, codes, w, n_classes, rng):
        parts = one_vs_all_parts(n_classes)
        assign = np.zeros((parts.shape[0], len(MODEL_NAMES)), np.bool_)
        assign[:, self.code] = True
        return parts, assign


def one_vs_all_plan(node_model):
    """The one-vs-all plan of ``node_model`` (a name of :data:`MODEL_NAMES`)."""
    return _OneVsAllPlan(MODEL_CODES[node_model])


class OneVsAllObliqueForestClassifier(PlannedForestMixin, ForestClassifier):
    _parameter_constraints = {
        **ForestClassifier._parameter_constraints,
        **PLANNED_PARAMETER_CONSTRAINTS,
        "node_model": [StrOptions(set(MODEL_NAMES))],
    }
    _fast_check_params = {"n_estimators": 3}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "bootstrap=True by default (a Random Forest of oblique trees): a draw over weighted rows is "
            "not the draw over repeated rows"
        ),
    }

    def __init__(self, n_estimators=100, *, node_model="lda", C=1.0, delta=0.01, threshold="hyperplane",
                 criterion="gini", splitter="exact", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features="sqrt", max_leaf_nodes=None,
                 max_bins=255, bootstrap=True, max_samples=None, oob_score=False, class_weight=None,
                 warm_start=False, n_jobs=None, random_state=None, verbose=0):
        self.n_estimators = n_estimators
        self.node_model = node_model
        self.C = C
        self.delta = delta
        self.threshold = threshold
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
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _plan(self):
        return one_vs_all_plan(self.node_model)


OneVsAllObliqueForestClassifier.__doc__ = """One-vs-all oblique random forest: obRaF(L/RR/S/LS/LR/M).

    At every node, one linear classifier (``node_model``) is trained on each
    of the ``K`` one-vs-all partitions of the classes present (lecture
    Algorithm 1), on ``max_features`` candidate features standardised over
    the node; the hyperplane with the largest Gini gain (Eq. (1)-(3)) splits
    the node.  A node where no hyperplane lowers the impurity is split by
    the axis-parallel kernel.  Trees are grown on bootstrap samples and
    averaged as in a Random Forest.

    ============ ======================================= ===========
    node_model   classifier                              lecture
    ============ ======================================= ===========
    "lda"        Fisher LDA (+ ``delta`` I)              obRaF(L)
    "rr"         ridge regression, GCV penalty           obRaF(RR)
    "svm"        L2-loss linear SVM (Newton), ``C``      obRaF(S)
    "lssvm"      least-squares SVM, ``C``                obRaF(LS)
    "lr"         L2 logistic regression, ``C``           obRaF(LR)
    "mpsvm"      MPSVM bisectors (Tikhonov ``delta``)    obRaF(M)
    ============ ======================================= ===========

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    node_model : {"lda", "rr", "svm", "lssvm", "lr", "mpsvm"}, default="lda"
        The linear classifier of every node.
""" + PLANNED_PARAMS_DOC + """
    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        Trees with oblique nodes (``tree_.obl_ptr / obl_feature / obl_weight``).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity decrease (MDI), an oblique node's shared among its features
        in proportion to ``|weight|``; sums to one.
    oob_score_ : float
        Out-of-bag accuracy (``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities (``oob_score=True``).

    See Also
    --------
    HeterogeneousObliqueForestClassifier : Six models on ranked partitions, obRaF(H).
    forestzoo.oblique.MPSVMForestClassifier : MPSVM on multi2binary hyperclasses (MPRaF).

    References
    ----------
    R. Katuwal, P. N. Suganthan, L. Zhang, "Heterogeneous oblique random forest",
    Pattern Recognition 99, 2020 (the lecture, obRaF(L/RR/S/LS/LR/M)).
    R. Katuwal, P. N. Suganthan, "Enhancing multi-class classification of random forest
    using random vector functional neural network and oblique decision surfaces", IJCNN 2018.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo.oblique._ova import OneVsAllObliqueForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> obraf_l = OneVsAllObliqueForestClassifier(n_estimators=10, node_model="lda", random_state=0)
    >>> obraf_l.fit(X, y).score(X, y) > 0.97
    True
    >>> root = obraf_l.estimators_[0].tree_.nodes[0]
    >>> bool(root["oblique"] >= 0)  # the root split is a hyperplane
    True
"""
