"""Disjunctive normal decision trees and forests (Seyedhosseini & Tasdizen 2015)."""

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import CLASSIFICATION_CRITERIA, forest_importances
from ..ensemble import RandomForestClassifier
from ..tree import DecisionTreeClassifier
from ._base import BaseDNF, bootstrap_rows

_TREE_CONSTRAINTS = {
    "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
    "splitter": [StrOptions({"exact", "hist", "random"})],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
}

_DNF_PARAMS_DOC = """
    n_epochs : int >= 1, default={n_epochs}
        Most passes of gradient descent over the training rows.  A fit whose
        training reaches it while some function's validation loss is still
        improving (its best epoch is within the last ``n_iter_no_change``)
        raises a :class:`~sklearn.exceptions.ConvergenceWarning`.
    learning_rate : float > 0 or list of floats, default={learning_rate}
        Step size of gradient descent on the mean squared error, Eq. (7).  A
        list is a grid: each tree (and class) keeps the step size whose best
        epoch has the lowest validation loss, as the paper tunes it on the
        validation set.
    momentum : float in [0, 1), default={momentum}
        Heavy-ball momentum of the updates (0: plain gradient descent).
    batch_size : int or None, default={batch_size}
        Rows per gradient step; None: full-batch gradient descent.
    init_slope : float > 0 or list of floats, default={init_slope}
        Slope of the initial sigmoids: a split of feature ``f`` at ``t``
        starts as ``w = init_slope * (e_f, -t)`` on z-scored data (the paper's
        initial ``w_k`` has a 1 on the split axis).  Larger slopes start
        closer to the tree; the thresholded DNF equals the tree exactly in the
        limit.  A list is a grid, searched jointly with ``learning_rate``.
    validation_fraction : float in [0, 1), default=0.1
        Fraction of the training rows held out (stratified) to choose the
        epoch and step size of every function, as in the paper (10 %).  0:
        no validation; the last epoch is kept.
    n_iter_no_change : int or None, default=10
        Stop once no function's validation loss has improved for this many
        epochs (None: always run ``n_epochs``; the best epoch is still kept).
    standardize : bool, default=True
        Z-score the features with the training mean and standard deviation
        first (Sec. 4 of the paper).  The gradient steps are not scale
        invariant, so the step sizes above assume z-scored data.
"""

_REFERENCE = """    M. Seyedhosseini and T. Tasdizen, "Disjunctive normal random forests",
    Pattern Recognition 48(3), 976-983, 2015."""


class DNDTClassifier(BaseDNF):
    __doc__ = (
        """Disjunctive normal decision tree (DNDT).

    A CART tree is grown by the forestzoo engine, rewritten as one
    disjunction of conjunctions of its splits per class (Eq. 2 / Eq. 10),
    made differentiable -- sigmoid splits of ``w_k . [x, 1]``, products for
    the conjunctions and ``1 - prod(1 - g_i)`` for the disjunction, Eqs.
    (4)-(5) -- and all its split weights are then learned jointly by gradient
    descent on the squared error, Eqs. (7)-(8).  Splits start axis-aligned
    and become oblique.

    Binary problems have one function, over the leaves of the second class
    (Eq. 5), thresholded at 0.5; multi-class problems have one function per
    class, each trained independently (Eqs. 10-12), and predict the class of
    highest score (Eq. 11).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity of the initial tree.
    splitter : {"exact", "hist", "random"}, default="exact"
        Split search of the initial tree (see :class:`DecisionTreeClassifier`).
    max_depth : int or None, default=None
        Greatest depth of the initial tree; None grows it until its leaves are pure.
    min_samples_leaf : int or float, default=1
        Least number of samples (a fraction of them when a float) in a leaf of the initial tree.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features drawn at every node of the initial tree."""
        + _DNF_PARAMS_DOC.format(n_epochs=100, learning_rate=1.0, momentum=0.9, batch_size=64, init_slope=1.0)
        + """    n_jobs : int or None, default=None
        Above 1 (joblib's rules: ``-1`` all cores, ``None`` one unless a
        ``parallel_config`` says otherwise), and with a second core, a helper
        thread computes half of every mini-batch of the fine-tuning; more
        threads add nothing.  The fitted weights do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the validation split, the tree and the mini-batch order.

    Attributes
    ----------
    initial_tree_ : DecisionTreeClassifier
        The tree before fine-tuning (fitted on z-scored training rows).
    dnfs_ : list of one forestzoo.dnf.DisjunctiveNormalForm
        The fine-tuned functions: ``dnfs_[0].weights`` holds one oblique
        split ``w_k`` per (function, node) row.
    finetune_info_ : list of one dict
        ``epochs`` run, and per function the ``best_epoch``, ``init_slope``
        and ``learning_rate`` kept and their ``validation_loss`` (NaN without
        validation rows); the training ``loss_curve`` of the first grid point;
        ``stopped_at_cap``: whether training reached ``n_epochs`` before the
        validation loss stopped improving.
    classes_, n_classes_, n_features_in_, feature_names_in_
    mean_, scale_ : ndarray of shape (n_features,)
        The z-scoring applied before the tree.
    input_dtype_ : numpy dtype
        float32: the dtype of the z-scores the functions read.

    See Also
    --------
    DNRFClassifier : A forest of DNDTs.
    forestzoo.DecisionTreeClassifier : The initial tree.

    References
    ----------
"""
        + _REFERENCE
        + """

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from forestzoo.dnf import DNDTClassifier
    >>> X, y = make_moons(300, noise=0.25, random_state=0)
    >>> clf = DNDTClassifier(n_epochs=20, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """
    )

    _parameter_constraints = {**BaseDNF._parameter_constraints, **_TREE_CONSTRAINTS, "n_jobs": [Integral, None]}
    _fast_check_params = {"n_epochs": 3}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "the mini-batch order and the validation split are drawn over rows, so n weighted rows and the rows "
            "repeated take different descents; with validation_fraction=0 and batch_size=None a weight is "
            "exactly a repetition (tests/test_dnf.py)"),
    }

    def __init__(self, *, criterion="gini", splitter="exact", max_depth=None, min_samples_leaf=1, max_features=None,
                 n_epochs=100, learning_rate=1.0, momentum=0.9, batch_size=64, init_slope=1.0,
                 validation_fraction=0.1, n_iter_no_change=10, standardize=True, n_jobs=None, random_state=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.batch_size = batch_size
        self.init_slope = init_slope
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.standardize = standardize
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _initial_trees(self, Xs, yk, sample_weight, train, seed):
        tree = DecisionTreeClassifier(
            criterion=self.criterion, splitter=self.splitter, max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf, max_features=self.max_features, random_state=seed,
        ).fit(Xs[train], yk[train], sample_weight=sample_weight[train])
        self.initial_tree_ = tree
        return [(self._full_width(tree.tree_, tree.classes_, yk), train, sample_weight)]

    @staticmethod
    def _full_width(tree, tree_classes, yk):
        """The tree with one value column per class of ``y`` (the training part may miss none, but be safe)."""
        n_classes = int(yk.max()) + 1
        if tree.values.shape[1] == n_classes:
            return tree
        from .._engine.api import Tree

        values = np.zeros((tree.values.shape[0], n_classes))
        values[:, tree_classes] = tree.values
        return Tree(tree.nodes, values, tree.n_features)

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importances of the tree the DNDT was built from.

        The fitted function starts as ``initial_tree_``, a CART tree
        converted into disjunctive normal form (Seyedhosseini & Tasdizen
        2015, Sec. 2.1): which features that tree splits on, and how much each
        split decreased the impurity, is what it hands to the fine-tuning.  So
        the importances are ``initial_tree_.feature_importances_``, as
        :class:`DNRFClassifier` gives its initial forest's.  They describe the
        tree before fine-tuning, which moves every split off its axis and
        trains them jointly on the squared error (Eqs. 7-8), defining no
        impurity decrease of its own.  All zeros when the tree has no split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
        """
        check_is_fitted(self)
        return self.initial_tree_.feature_importances_

    def predict_proba(self, X):
        """Normalised class scores: ``[1 - h~, h~]`` (binary) or ``h~^c / sum_c h~^c``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._tree_votes(self._augmented(X), self.dnfs_, soft=True)


class DNRFClassifier(BaseDNF):
    __doc__ = (
        """Disjunctive normal random forest (DNRF).

    Algorithm 1 (binary) and Algorithm 2 (multi-class) of the paper: a
    conventional random forest is trained by forestzoo's engine
    (:class:`forestzoo.RandomForestClassifier`, ``max_features`` = sqrt(d)
    by default), then every tree is converted to disjunctive normal form and
    fine-tuned independently (see :class:`DNDTClassifier`); trees, and the
    classes of a tree, are trained in parallel threads.  The forest predicts
    by majority vote of the thresholded trees, Eq. (9), or of each tree's
    most probable class, Eq. (13).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees ``N``.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
    splitter : {"exact", "hist", "random"}, default="exact"
        Split search of the initial forest ("random": Extra Trees).
    max_depth : int or None, default=None
        Greatest depth of the initial trees; None grows them until their leaves are pure.
    min_samples_leaf : int or float, default=1
        Least number of samples (a fraction of them when a float) in a leaf of the initial trees.
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        ``F``, features drawn at every node of the initial forest.
    bootstrap : bool, default=True
        Grow every initial tree on a bootstrap sample.
    max_samples : int, float or None, default=None
        ``r``, the bootstrap sample size per tree (fraction or count).
    finetune_samples : {"tree", "all"}, default="all"
        Rows each tree is fine-tuned on: "all": every training row (Eq. 7 read
        as the error over the whole training set ``S``, the paper's
        Algorithm 1); "tree": the tree's own bootstrap sample, with its
        multiplicities.  Fine-tuning each tree on its own sample from a
        steeper start (``finetune_samples="tree", init_slope=4``) keeps the
        trees as different as the forest made them; it had a lower mean
        error on inner splits of six of the paper's binary datasets (18.0 %
        vs 19.0 %), but those resamples share rows with the reported test
        splits, so the paper's setting stays the default
        (docs/results/dnrf.md has both)."""
        + _DNF_PARAMS_DOC.format(n_epochs=100, learning_rate=1.0, momentum=0.9, batch_size=64, init_slope=1.0)
        + """    voting : {"hard", "soft"}, default="hard"
        "hard": every tree votes for one class (Eqs. 9 and 13) and
        :meth:`predict_proba` returns the share of votes; "soft": the mean
        over trees of the normalised class scores.
    select_n_estimators : bool, default=False
        Keep only the first ``n`` trees, ``n`` of lowest validation error (the
        paper chooses ``N`` on the validation set); needs validation rows.
    n_jobs : int or None, default=None
        Threads for the initial forest, the fine-tuning and prediction.
        Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the initial forest, the validation split and the mini-batch order.

    Attributes
    ----------
    forest_ : RandomForestClassifier
        The initial forest (fitted on the z-scored training rows), or the
        ``init_forest`` given to :meth:`fit` (as a forestzoo estimator).
    dnfs_ : list of forestzoo.dnf.DisjunctiveNormalForm
        One per kept tree, with the fine-tuned oblique weights.
    n_estimators_ : int
        Number of trees kept.
    finetune_info_ : list of dict
        Per tree: ``epochs`` run, and per function the ``best_epoch``,
        ``init_slope``, ``learning_rate`` and ``validation_loss`` kept;
        training ``loss_curve``; ``stopped_at_cap``.
    classes_, n_classes_, n_features_in_, feature_names_in_, mean_, scale_
    input_dtype_ : numpy dtype
        The dtype the functions read the z-scores in: float32 (the trees
        grown here read the same values), or float64 after ``init_forest``.

    See Also
    --------
    DNDTClassifier : One tree.
    forestzoo.RandomForestClassifier : The initial forest.

    References
    ----------
"""
        + _REFERENCE
        + """

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from forestzoo.dnf import DNRFClassifier
    >>> X, y = make_moons(300, noise=0.25, random_state=0)
    >>> clf = DNRFClassifier(n_estimators=10, n_epochs=10, random_state=0).fit(X, y)
    >>> clf.n_estimators_, clf.predict(X[:3]).shape
    (10, (3,))
    """
    )

    _parameter_constraints = {
        **BaseDNF._parameter_constraints,
        **_TREE_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "bootstrap": ["boolean"],
        "max_samples": [None, Interval(Integral, 1, None, closed="left"),
                        Interval(RealNotInt, 0.0, 1.0, closed="right")],
        "finetune_samples": [StrOptions({"tree", "all"})],
        "voting": [StrOptions({"hard", "soft"})],
        "select_n_estimators": ["boolean"],
        "n_jobs": [Integral, None],
    }
    _fast_check_params = {"n_estimators": 5, "n_epochs": 3}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "a bootstrap draw over n weighted rows is not the draw over the rows repeated (as for "
            "RandomForestClassifier), and the mini-batches and validation split are drawn over rows"),
    }

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="exact", max_depth=None, min_samples_leaf=1,
                 max_features="sqrt", bootstrap=True, max_samples=None, finetune_samples="all", n_epochs=100,
                 learning_rate=1.0, momentum=0.9, batch_size=64, init_slope=1.0, validation_fraction=0.1,
                 n_iter_no_change=10, standardize=True, voting="hard", select_n_estimators=False, n_jobs=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.finetune_samples = finetune_samples
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.batch_size = batch_size
        self.init_slope = init_slope
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.standardize = standardize
        self.voting = voting
        self.select_n_estimators = select_n_estimators
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None, init_forest=None):
        """Grow the random forest (or take ``init_forest``), convert every tree and fine-tune it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training samples.
        y : array-like of shape (n_samples,)
            The class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample; None weighs them equally.
        init_forest : fitted classifier, default=None
            An already fitted axis-aligned tree or forest to convert instead
            of growing one: forestzoo's ``DecisionTreeClassifier``,
            ``RandomForestClassifier`` or ``ExtraTreesClassifier``, or
            scikit-learn's classes of those names (and ``ExtraTreeClassifier``),
            fitted on the same features as ``X`` in the same units (not
            z-scored: the z-scoring of ``standardize`` is folded into the
            converted thresholds).  Every one of its trees is converted, so
            ``n_estimators`` and the other parameters of the initial forest
            are not used; its classes must be among those of ``y``.  The
            conversion is exact: with a large initial slope the thresholded
            functions reproduce every tree's predictions on every float32
            input, rows on a threshold included, before any gradient step.
            The fine-tuning then reads the z-scores in float64 (the forest
            reads float32 ``X``).  With ``finetune_samples="tree"`` each
            tree is fine-tuned on the training rows of its own bootstrap
            sample (the forest's ``estimators_samples_``): ``X`` must then
            hold the rows the forest was fitted on, in the same order.  The
            forest is kept as ``forest_`` (a scikit-learn forest converted
            with :func:`forestzoo.interop.from_sklearn`).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        from ..interop import fit_with_forest

        return fit_with_forest(self, super().fit, init_forest, X, y, sample_weight)

    def _initial_trees(self, Xs, yk, sample_weight, train, seed):
        if self.select_n_estimators and self.validation_fraction <= 0:
            raise ValueError("select_n_estimators=True needs validation rows: set validation_fraction > 0.")
        forest = RandomForestClassifier(
            n_estimators=self.n_estimators, criterion=self.criterion, splitter=self.splitter,
            max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf, max_features=self.max_features,
            bootstrap=self.bootstrap, max_samples=self.max_samples, n_jobs=self.n_jobs, random_state=seed,
        ).fit(Xs[train], yk[train], sample_weight=sample_weight[train])
        self.forest_ = forest
        out = []
        for est, drawn in zip(forest.estimators_, forest.estimators_samples_):
            tree = DNDTClassifier._full_width(est.tree_, forest.classes_, yk)
            weights = sample_weight
            rows = train
            if self.finetune_samples == "tree" and self.bootstrap:
                # the rows this tree was grown on, with their bootstrap multiplicity
                counts = np.bincount(drawn, minlength=train.shape[0]).astype(np.float64)
                rows, weights = bootstrap_rows(train, counts, sample_weight)
            out.append((tree, rows, weights))
        return out

    def _after_fit(self, Xa, yk, val, trees):
        self.n_estimators_ = len(self.dnfs_)
        if not self.select_n_estimators or val.size == 0:
            return
        votes = np.zeros((val.size, self.n_classes_))
        errors = np.empty(len(self.dnfs_))
        for t, dnf in enumerate(self.dnfs_):
            s = self._tree_scores(Xa[val], dnf)
            votes[np.arange(val.size), np.argmax(s, axis=1)] += 1.0
            errors[t] = np.mean(np.argmax(votes, axis=1) != yk[val])
        self.n_estimators_ = int(np.argmin(errors)) + 1  # the fewest trees reaching the lowest error
        self.dnfs_ = self.dnfs_[: self.n_estimators_]
        self.finetune_info_ = self.finetune_info_[: self.n_estimators_]

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importances of the random forest the DNRF was built from.

        Every fine-tuned function starts as one tree of ``forest_`` (a
        conventional random forest, Algorithm 1-2 of Seyedhosseini & Tasdizen
        2015): which features the forest splits on, and how much each split
        decreased the impurity, is what it hands to the fine-tuning.  So the
        importances are those of the forest's trees that are kept (the first
        ``n_estimators_``), computed as for
        :class:`~forestzoo.RandomForestClassifier`: each tree's impurity
        decreases, weighted by its nodes' sample weights and normalised to sum
        to one, averaged over the trees and normalised again.  They describe
        the trees before fine-tuning, which makes every split oblique and
        defines no impurity decrease of its own.  All zeros when no kept tree
        has a split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
        """
        check_is_fitted(self)
        from ..interop import forest_trees

        trees, _ = forest_trees(self.forest_)
        return forest_importances(trees[: self.n_estimators_], self.n_features_in_)

    def predict_proba(self, X):
        """Share of the trees' votes (``voting="hard"``) or mean normalised class scores ("soft").

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        scores = self._tree_votes(self._augmented(X), self.dnfs_, soft=self.voting == "soft")
        return scores / len(self.dnfs_)
