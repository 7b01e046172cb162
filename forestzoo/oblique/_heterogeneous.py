"""Heterogeneous oblique random forest, obRaF(H) (Katuwal, Suganthan & Zhang; lecture Algorithm 2).

At a node with ``K`` classes (lecture, "Heterogeneous Oblique Random
Forest"):

* ``K < 5`` (Algorithm 2, line 11): every linear classifier is trained on
  every partition of the classes (``2^(K-1) - 1`` of them, one-vs-all
  included);
* ``K >= 5`` (lines 6-9): GAOREXHSEARCH (:mod:`._ranking`) gives the top
  ``K`` hyperclass partitions (exhaustive search for ``K < 8``, a genetic
  algorithm otherwise), the ``K`` one-vs-all partitions are added, and the
  ``2K`` are sorted by the average of their ranks under the ideal Gini score
  and the Dunn-type Bhattacharyya separability.  The sorted list is then
  halved repeatedly; the classifiers, in the lecture's order LDA, MPSVM,
  LSSVM, LR, SVM, RR, are trained one after the other on the successive
  upper halves, and once an upper half holds at most 5 partitions, all the
  remaining classifiers are trained on it (line 9).  For ``K = 10``: LDA on
  the top 10 of the 20 partitions, the five others on the top 5.

The hyperplane with the highest actual Gini gain (Eq. (1)) splits the node
(line 13).  Halving rounds up, so an upper half is never empty.
"""

import numpy as np

from ..ensemble._forest import ForestClassifier
from ._linear_models import MODEL_NAMES
from ._ova import one_vs_all_parts
from ._planned import PLANNED_PARAMETER_CONSTRAINTS, PLANNED_PARAMS_DOC, PlannedForestMixin
from ._ranking import all_partitions, hyperclass_partitions, rank_partitions

__all__ = ["HeterogeneousObliqueForestClassifier", "heterogeneous_plan", "halving_schedule"]

#: Algorithm 2, line 5: the ranked search is used from this many classes on.
MIN_CLASSES_RANKED = 5
#: Algorithm 2, line 9: an upper half of at most this many partitions gets all remaining models.
MAX_HALF_FOR_ALL = 5


def halving_schedule(n_partitions, n_models=len(MODEL_NAMES)):
    """``assign`` (n_partitions x n_models): model ``m`` on the ``m``-th upper half of the ranking."""
    assign = np.zeros((n_partitions, n_models), np.bool_)
    top = n_partitions
    for m in range(n_models):
        top = -(-top // 2)
        if top <= MAX_HALF_FOR_ALL:
            assign[:top, m:] = True
            break
        assign[:top, m] = True
    return assign


def heterogeneous_plan(Z, codes, w, n_classes, rng):
    """Algorithm 2's plan at one node: ``(parts, assign)`` for :class:`PlannedNodeModel`."""
    if n_classes < MIN_CLASSES_RANKED:
        parts = all_partitions(n_classes)
        return parts, np.ones((parts.shape[0], len(MODEL_NAMES)), np.bool_)
    hyper, class_weight, dist = hyperclass_partitions(Z, codes, w, n_classes, rng)
    parts = np.vstack([one_vs_all_parts(n_classes), hyper])
    parts = parts[rank_partitions(parts, class_weight, dist)]
    return parts, halving_schedule(parts.shape[0])


class HeterogeneousObliqueForestClassifier(PlannedForestMixin, ForestClassifier):
    _parameter_constraints = {**ForestClassifier._parameter_constraints, **PLANNED_PARAMETER_CONSTRAINTS}
    _fast_check_params = {"n_estimators": 3}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "bootstrap=True by default (a Random Forest of oblique trees), and the genetic algorithm "
            "draws random partitions: weighted rows are not repeated rows"
        ),
    }

    def __init__(self, n_estimators=100, *, C=1.0, delta=0.01, threshold="hyperplane", criterion="gini",
                 splitter="exact", max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_features="sqrt", max_leaf_nodes=None,
                 max_bins=255, bootstrap=True, max_samples=None, oob_score=False, class_weight=None,
                 warm_start=False, n_jobs=None, random_state=None, verbose=0):
        self.n_estimators = n_estimators
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
        return heterogeneous_plan


HeterogeneousObliqueForestClassifier.__doc__ = """Heterogeneous oblique random forest, obRaF(H).

    Every node trains several linear classifiers -- LDA, MPSVM, LS-SVM,
    logistic regression, linear SVM and ridge regression, in the lecture's
    order -- on a ranked set of class partitions and splits with the
    hyperplane of highest Gini gain (lecture Algorithm 2):

    * fewer than 5 classes at the node: all six classifiers on all
      ``2^(K-1) - 1`` partitions;
    * 5 or more: the ``K`` one-vs-all partitions plus the top ``K``
      two-hyperclass partitions (exhaustive search for ``K < 8``, a genetic
      algorithm -- population ``2K``, 5 generations -- otherwise), sorted
      by the average of their ranks under the ideal Gini score and the
      Dunn-type Bhattacharyya separability; LDA is trained on the upper
      half, MPSVM on the upper half of that, and so on, and the remaining
      classifiers all on the first upper half of at most 5 partitions.

    Bhattacharyya distances (Eq. (8)) use the classes' covariances on the
    node's standardised candidate features (+ a 1e-3 ridge); a class with a
    single row at the node takes the pooled covariance of the classes with
    at least two rows (the identity when there is none).  A node where no
    hyperplane lowers the impurity is split by the axis-parallel kernel.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
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
    OneVsAllObliqueForestClassifier : One classifier on the one-vs-all partitions, obRaF(L/.../M).
    forestzoo.oblique.MPSVMForestClassifier : MPSVM oblique forests (MPRaF).

    References
    ----------
    R. Katuwal, P. N. Suganthan, L. Zhang, "Heterogeneous oblique random forest",
    Pattern Recognition 99, 2020 (the lecture, Algorithm 2 and GAOREXHSEARCH).
    J. C. Dunn, "Well-separated clusters and optimal fuzzy partitions", J. Cybernetics 4(1), 1974.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo.oblique._heterogeneous import HeterogeneousObliqueForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> obraf_h = HeterogeneousObliqueForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> obraf_h.score(X, y) > 0.97
    True
    >>> obraf_h.predict_proba(X[:2]).shape
    (2, 3)
"""
