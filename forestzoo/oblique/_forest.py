"""Oblique forests whose nodes are linear models: MPRaF, MPRoF, MPRRoF (Zhang & Suganthan 2015).

:class:`LinearObliqueForestMixin` is the forest half of the oblique
family: it builds one :class:`LinearNodeModel` per tree from two hooks,
``_linear_models()`` and ``_partition_strategy()``, on top of the per-tree
pipeline of :class:`forestzoo.ensemble.RotationForestMixin` (bootstrap
weights, optional rotation, growth by the engine, mapping back to the
original features).  :class:`MPSVMForestClassifier` is its MPSVM instance.
"""

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from ..ensemble._forest import ForestClassifier
from ..ensemble._rotation import ROTATION_PARAMETER_CONSTRAINTS, RotationForestMixin
from ._mpsvm import MPSVM, REGULARIZATIONS
from ._node_model import THRESHOLDS, LinearNodeModel
from ._partition import multi2binary

__all__ = ["LinearObliqueForestMixin", "MPSVMForestClassifier"]

# The node model's generator must not replay the tree's own streams (kernel RNG, bootstrap,
# rotation), which are all seeded with the tree's seed.
_NODE_MODEL_STREAM = 0x5DEECE66D


class LinearObliqueForestMixin(RotationForestMixin):
    """Forest of trees whose nodes are :class:`LinearNodeModel` splits.

    Subclasses define ``_linear_models()`` (a list of objects with
    ``fit_hyperplanes``) and may override ``_partition_strategy()``
    (default :func:`multi2binary`); parameters ``rotation``, ``threshold``
    and ``max_features`` are read from the estimator.
    """

    def _rotates(self):
        return bool(self.rotation)

    def _partition_strategy(self):
        return multi2binary

    def _linear_models(self):
        raise TypeError(f"{type(self).__name__} must define _linear_models() (the forest's linear node models).")

    def _make_node_model(self, X, X_fit, basis, seed, params, min_weight_leaf):
        # params.max_features is resolved for X's features; a rotation keeps their number (X_fit = X R)
        return LinearNodeModel(
            X, self._linear_models(), params.max_features,
            seed ^ _NODE_MODEL_STREAM, partition=self._partition_strategy(), X_fit=X_fit, basis=basis,
            threshold=self.threshold, criterion=params.criterion, min_samples_leaf=params.min_samples_leaf,
            min_weight_leaf=min_weight_leaf,
        )


class MPSVMForestClassifier(LinearObliqueForestMixin, ForestClassifier):
    """Oblique forest with MPSVM node splits: MPRaF, MPRoF and MPRRoF (-T, -P, -N).

    At every node, ``max_features`` candidate features are drawn, the
    node's classes are grouped into two hyperclasses (multi2binary: the two
    classes farthest apart in Bhattacharyya distance seed the groups, every
    other class joins the nearer seed), MPSVM gives two clustering
    hyperplanes (the extreme eigenvectors of ``G z = lambda H z``), and the
    better of their two angle bisectors, by the tree's criterion, splits
    the node.  When ``G`` or ``H`` is singular (small nodes, duplicated
    features) the ``regularization`` decides: Tikhonov (-T), axis-parallel
    splits from that node down (-P), or the null-space method (-N).

    The lecture's configurations:

    ======== ================ ============== ===============
    model    rotation         bootstrap      max_features
    ======== ================ ============== ===============
    MPRaF    False            True           "sqrt"
    MPRoF    True             False          None
    MPRRoF   True             False          "sqrt"
    ======== ================ ============== ===============

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees (the lecture uses 50).
    regularization : {"tikhonov", "axis", "null_space"}, default="tikhonov"
        -T, -P or -N.
    delta : float, default=0.01
        Tikhonov term added to the diagonal of a singular ``G`` / ``H``
        (second-moment matrices of the node's standardised features).
    threshold : {"hyperplane", "best"}, default="hyperplane"
        "hyperplane": a bisector splits at its own offset (the paper);
        "best": at the best threshold along its normal.
    rotation : bool, default=False
        Grow every tree on its own Rotation Forest rotation (MPRoF / MPRRoF).
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Chooses between the bisectors (and scores axis-parallel splits).
    splitter : {"exact", "hist", "random"}, default="exact"
        Kernel of the axis-parallel splits (-P subtrees, nodes without a
        usable oblique candidate).
    max_depth : int or None, default=None
        Greatest depth of a leaf; None grows every tree until its leaves are
        pure or too small.
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
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Candidate features per node (``m``): the size of ``G`` and ``H`` is
        ``m + 1``.
    max_leaf_nodes : int or None, default=None
        When set, every tree grows best-first up to this many leaves.
    max_bins : int in [2, 255], default=255
        Value bins per feature for ``splitter="hist"`` (NaN has its own bin).
    n_features_per_subset : int, default=3
        Rotation subsets' size (``rotation=True``).
    sample_fraction : float, default=0.75
        Rotation PCA sample fraction (``rotation=True``).
    bootstrap : bool, default=True
        Grow every tree on a bootstrap sample.
    max_samples : int, float or None, default=None
        Bootstrap sample size (int) or its ratio to ``n_samples`` (float), as
        in :class:`forestzoo.RandomForestClassifier`; needs ``bootstrap=True``.
    oob_score : bool, default=False
        Compute the out-of-bag accuracy (needs ``bootstrap=True``).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights;
        "balanced" weighs each class inversely to its frequency.
    warm_start : bool, default=False
        Keep the fitted trees and add ``n_estimators - len(estimators_)`` new ones.
    n_jobs : int or None, default=None
        Threads fitting trees; results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the samples, the feature draws and the node models.
    verbose : int, default=0
        Verbosity of the fit.

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
    forestzoo.ensemble.RotationForestClassifier : Axis-aligned trees on rotated features.
    forestzoo.RandomForestClassifier : Axis-aligned trees on the original features.

    References
    ----------
    L. Zhang, P. N. Suganthan, "Oblique decision tree ensemble via multisurface proximal
    support vector machine", IEEE T-Cybernetics 45(10), 2015.
    O. L. Mangasarian, E. W. Wild, "Multisurface proximal support vector machine
    classification via generalized eigenvalues", IEEE TPAMI 28(1), 2006.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo.oblique import MPSVMForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> mpraf = MPSVMForestClassifier(n_estimators=10, regularization="axis", random_state=0)
    >>> mpraf.fit(X, y).score(X, y)
    1.0
    >>> tree = mpraf.estimators_[0].tree_
    >>> bool((tree.nodes["oblique"][0] >= 0) and tree.obl_ptr[1] > 1)  # the root is oblique
    True
    """

    _parameter_constraints = {
        **ForestClassifier._parameter_constraints,
        **ROTATION_PARAMETER_CONSTRAINTS,
        "regularization": [StrOptions(set(REGULARIZATIONS))],
        "delta": [Interval(Real, 0.0, None, closed="neither")],
        "threshold": [StrOptions(set(THRESHOLDS))],
        "rotation": ["boolean"],
        "splitter": [StrOptions({"exact", "hist", "random"})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }
    _fast_check_params = {"n_estimators": 3}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "bootstrap=True by default (MPRaF), and rotations are fitted on random samples: a draw "
            "over weighted rows is not the draw over repeated rows"
        ),
    }

    def __init__(self, n_estimators=100, *, regularization="tikhonov", delta=0.01, threshold="hyperplane",
                 rotation=False, criterion="gini", splitter="exact", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0,
                 max_features="sqrt", max_leaf_nodes=None, max_bins=255, n_features_per_subset=3,
                 sample_fraction=0.75, bootstrap=True, max_samples=None, oob_score=False, class_weight=None,
                 warm_start=False, n_jobs=None, random_state=None, verbose=0):
        self.n_estimators = n_estimators
        self.regularization = regularization
        self.delta = delta
        self.threshold = threshold
        self.rotation = rotation
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
        self.n_features_per_subset = n_features_per_subset
        self.sample_fraction = sample_fraction
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _linear_models(self):
        return [MPSVM(self.regularization, self.delta)]
