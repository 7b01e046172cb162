"""Online random forests with ``partial_fit`` (lecture Algorithm 1; Saffari et al. 2009)."""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import _check_labels, _check_ndim, _check_X_types

from .._engine.edit import empty_nodes
from .._engine.rng import draw_seeds, make_state
from .._engine.tree import TREE_LEAF, Tree, accumulate_tree
from .._validation import keep_state_on_error
from ._kernels import ENTROPY, GINI, VARIANCE, train_tree

_CRITERIA = {"entropy": ENTROPY, "log_loss": ENTROPY, "gini": GINI, "squared_error": VARIANCE}
_INITIAL_CAPACITY = 64
_UNBOUNDED = 2**31 - 1


@dataclass
class OnlineTree:
    """The growing arrays of one online tree (see :mod:`._kernels`); plain numpy, so it pickles."""

    nodes: np.ndarray
    values: np.ndarray
    parent_of: np.ndarray
    slot: np.ndarray
    seen: np.ndarray
    stats: np.ndarray
    tfeat: np.ndarray
    tthr: np.ndarray
    tstats: np.ndarray
    n_nodes: int
    n_slots: int
    rng: np.ndarray
    fmin: np.ndarray
    fmax: np.ndarray

    def as_tree(self, n_features):
        """The fitted part as an engine :class:`~forestzoo._engine.tree.Tree` (views, no copy)."""
        return Tree(self.nodes[: self.n_nodes], self.values[: self.n_nodes], n_features)


def _new_tree(n_features, n_values, n_stats, n_tests, seed):
    cap = _INITIAL_CAPACITY
    nodes = empty_nodes(cap)
    rng = make_state(seed)
    tfeat = np.zeros((cap, n_tests), np.int64)
    tthr = np.full((cap, n_tests), np.nan)  # the root's candidates are drawn once data arrive
    slot = np.full(cap, -1, np.int64)
    slot[0] = 0
    return OnlineTree(
        nodes=nodes, values=np.zeros((cap, n_values)), parent_of=np.full(cap, -1, np.int64), slot=slot,
        seen=np.zeros(cap), stats=np.zeros((cap, n_stats)), tfeat=tfeat, tthr=tthr,
        tstats=np.zeros((cap, n_tests, 2, n_stats)), n_nodes=1, n_slots=1, rng=rng,
        fmin=np.full(n_features, np.inf), fmax=np.full(n_features, -np.inf),
    )


class BaseOnlineForest(BaseEstimator):
    """Shared ``fit`` / ``partial_fit`` / prediction of the online forests; not for direct use."""

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_tests": [Interval(Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_gain": [Interval(Real, 0.0, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_nodes": [Interval(Integral, 3, None, closed="left"), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=10, *, criterion, n_tests=20, min_samples_split=50, min_gain=0.0,
                 max_depth=None, max_nodes=None, n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.n_tests = n_tests
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting --------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Forget any previous state and learn from ``(X, y)`` in one pass, in row order.

        Returns
        -------
        self
        """
        with keep_state_on_error(self):
            for attr in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
                delattr(self, attr)
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
            classes = None
            if self._is_classifier():
                _check_labels(y)  # a mix of strings and numbers: the shared message, before np.unique sorts them
                check_classification_targets(np.asarray(y) if not hasattr(y, "iloc") else y)
                classes = np.unique(np.asarray(y))
            return self._partial_fit(X, y, classes)

    def _partial_fit(self, X, y, classes):
        first = not hasattr(self, "trees_")
        if first:
            self._validate_params()
        X, y = self._check_batch(X, y, first)
        yk, yr, n_values = self._encode(y, classes, first)
        # everything below only runs once the batch is known to be valid
        crit = _CRITERIA[self.criterion]
        n_stats = 3 if crit == VARIANCE else n_values
        if first:
            seeds = draw_seeds(check_random_state(self.random_state), self.n_estimators)
            trees = [_new_tree(X.shape[1], n_values, n_stats, self.n_tests, int(s)) for s in seeds]
        else:
            trees = self.trees_
        max_depth = _UNBOUNDED if self.max_depth is None else int(self.max_depth)
        max_nodes = _UNBOUNDED if self.max_nodes is None else int(self.max_nodes)

        def train(t):
            out = train_tree(X, yk, yr, t.nodes, t.values, t.parent_of, t.slot, t.seen, t.stats, t.tfeat, t.tthr,
                             t.tstats, t.n_nodes, t.n_slots, t.fmin, t.fmax, t.rng, crit, float(self.min_samples_split),
                             float(self.min_gain), max_depth, max_nodes)
            (t.nodes, t.values, t.parent_of, t.slot, t.seen, t.stats, t.tfeat, t.tthr, t.tstats,
             t.n_nodes, t.n_slots) = out

        if self.n_jobs in (None, 1) or len(trees) == 1:
            for t in trees:
                train(t)
        else:
            # train() updates the trees in place: threads of this process, also under a Dask backend
            Parallel(n_jobs=self.n_jobs, require="sharedmem")(delayed(train)(t) for t in trees)
        self.trees_ = trees
        self.n_samples_seen_ = getattr(self, "n_samples_seen_", 0) + X.shape[0]
        return self

    def _check_batch(self, X, y, first):
        """``validate_data``, with a fast path for plain arrays after the first batch.

        Mini-batches can be single rows, where scikit-learn's full validation
        costs far more than learning from them; plain float/int numpy arrays
        get the same checks (feature count, lengths, finiteness) directly.
        """
        plain = (not first and isinstance(X, np.ndarray) and isinstance(y, np.ndarray) and X.ndim == 2
                 and y.ndim == 1 and X.dtype.kind in "fiu" and not hasattr(self, "feature_names_in_")
                 and (y.dtype.kind in "fiu" or self._is_classifier()) and X.shape[0] > 0)
        if not plain:
            _check_ndim(X)
            y_shape = np.asarray(y).shape
            if len(y_shape) == 2 and y_shape[1] > 1:
                raise ValueError(f"y has shape {y_shape}: multi-output y is not supported by {type(self).__name__}; "
                                 "fit one estimator per output (e.g. sklearn.multioutput.MultiOutputClassifier).")
            X = _check_X_types(X)  # the same refusals, with the same messages, as every other estimator
            if self._is_classifier():
                _check_labels(y)
            X, y = validate_data(self, X, y, reset=first, dtype=np.float32, order="C", ensure_all_finite=True,
                                 y_numeric=not self._is_classifier(), multi_output=False)
            if not self._is_classifier():
                self._check_regression_targets(y)
            return X, y
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: [{X.shape[0]}, {y.shape[0]}]")
        if X.shape[0] == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
        X = np.ascontiguousarray(X, dtype=np.float32)
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity; online forests need finite features.")
        if not self._is_classifier():
            self._check_regression_targets(y)
        return X, y

    @staticmethod
    def _check_regression_targets(y):
        if y.dtype.kind not in "biuf":
            raise ValueError(f"y has dtype {y.dtype}; regression targets must be numbers, not strings.")
        y64 = np.asarray(y, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(y64).all():
                raise ValueError("y contains NaN or infinity; regression targets must be finite.")
            # the leaves keep running means and squared deviations (Eq. 5, 9) of y
            if not np.isfinite(np.dot(y64, y64)):
                raise ValueError(f"y has values too large in magnitude (max |y| = {np.abs(y64).max():.3g}): "
                                 "squared-error statistics would overflow float64; rescale y.")

    # -- prediction -----------------------------------------------------------
    def _mean_values(self, X):
        if not hasattr(self, "trees_"):  # check_is_fitted, without its scan of every attribute
            check_is_fitted(self)
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu" and not hasattr(self, "feature_names_in_"):
            X = self._check_batch(X, np.zeros(X.shape[0]), first=False)[0]  # fast path, same checks
        else:
            X = validate_data(self, X, reset=False, dtype=np.float32, order="C", ensure_all_finite=True)
        out = np.zeros((X.shape[0], self.trees_[0].values.shape[1]))
        empty_ptr, empty_f, empty_w = np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0)
        # Online bagging gives each tree Poisson(1) copies of a sample, so on a short stream a tree may
        # have seen nothing yet; such a tree has no estimate and is left out of the average.
        trained = [t for t in self.trees_ if t.nodes[0]["left"] != TREE_LEAF or t.seen[t.slot[0]] > 0]
        for t in trained:
            # the engine's predictor over the grown part of the arrays
            accumulate_tree(X, t.nodes[: t.n_nodes], t.values[: t.n_nodes], empty_ptr, empty_f, empty_w, out)
        if trained:
            out /= len(trained)
        elif self._is_classifier():  # no tree has seen a sample: nothing favours any class
            out[:] = 1.0 / out.shape[1]
        return out

    @property
    def estimators_(self):
        """The trees as engine :class:`~forestzoo._engine.tree.Tree` objects (views of the live arrays)."""
        check_is_fitted(self)
        return [t.as_tree(self.n_features_in_) for t in self.trees_]

    def get_n_nodes(self):
        """Number of nodes of every tree."""
        check_is_fitted(self)
        return np.array([t.n_nodes for t in self.trees_])

    def _is_classifier(self):
        return isinstance(self, ClassifierMixin)


class OnlineRandomForestClassifier(ClassifierMixin, BaseOnlineForest):
    """Online random forest classifier (Saffari et al. 2009; lecture Algorithm 1).

    Every tree grows while data stream in.  For every sample and tree, the
    sample is used ``k ~ Poisson(1)`` times (online bagging).  Each use drops
    it to a leaf, which updates its class counts and those of the two sides
    of each of its ``n_tests`` candidate splits (a random feature and a
    random threshold inside the leaf's region, within the feature ranges
    observed so far).  Once a leaf has seen more
    than ``min_samples_split`` samples and its best candidate's gain
    (entropy or Gini decrease, the lecture's Delta E) exceeds ``min_gain``,
    it splits; each new leaf starts from the counts of its side and draws
    fresh candidate splits.

    Trees are stored in the engine's node layout and predicted by the
    engine's predictor.  ``partial_fit`` accepts mini-batches of any size
    (the kernels loop over the batch); a fitted model pickles and resumes.

    Parameters
    ----------
    n_estimators : int, default=10
        Number of trees.
    criterion : {"entropy", "gini", "log_loss"}, default="entropy"
        Impurity of the gain; "log_loss" is "entropy".
    n_tests : int, default=20
        Candidate splits kept at every leaf.
    min_samples_split : int, default=50
        ``n_split``: samples a leaf must see (since its creation) before it may split.
    min_gain : float, default=0.0
        ``delta_split``: the best candidate's gain must exceed it.
    max_depth : int or None, default=None
        Leaves at this depth never split.
    max_nodes : int or None, default=None
        Most nodes per tree: bounds memory on endless streams.
    n_jobs : int or None, default=None
        Threads updating trees in parallel (results do not depend on it).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    trees_ : list of OnlineTree
        The growing arrays of each tree.
    estimators_ : list of forestzoo._engine.tree.Tree
        The same trees as engine trees (views).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_samples_seen_ : int

    See Also
    --------
    OnlineRandomForestRegressor, forestzoo.RandomForestClassifier

    References
    ----------
    A. Saffari, C. Leistner, J. Santner, M. Godec, H. Bischof, "On-line random
    forests", ICCV Workshops 2009.  W. Wang, C. Wang, S. Liu, T. Zhang, X. Cao,
    "Robust target tracking by online random forests and superpixels", IEEE
    TCSVT 2018.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from forestzoo import OnlineRandomForestClassifier
    >>> X, y = make_classification(n_samples=3000, n_features=6, random_state=0)
    >>> orf = OnlineRandomForestClassifier(n_estimators=10, random_state=0)
    >>> for start in range(0, 2000, 100):
    ...     orf = orf.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
    >>> orf.score(X[2000:], y[2000:]) > 0.85
    True
    """

    _parameter_constraints = {
        **BaseOnlineForest._parameter_constraints,
        "criterion": [StrOptions({"entropy", "gini", "log_loss"})],
    }
    _fast_check_params = {"min_samples_split": 5}

    def __init__(self, n_estimators=10, *, criterion="entropy", n_tests=20, min_samples_split=50, min_gain=0.0,
                 max_depth=None, max_nodes=None, n_jobs=None, random_state=None):
        super().__init__(n_estimators, criterion=criterion, n_tests=n_tests, min_samples_split=min_samples_split,
                         min_gain=min_gain, max_depth=max_depth, max_nodes=max_nodes, n_jobs=n_jobs,
                         random_state=random_state)

    def partial_fit(self, X, y, classes=None):
        """Learn from one mini-batch; a batch that raises leaves the model exactly as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), finite.
        y : array-like of shape (n_samples,)
        classes : array-like, required on the first call
            Every class the stream will contain.

        Returns
        -------
        self
        """
        with keep_state_on_error(self):
            return self._partial_fit(X, y, classes)

    def _encode(self, y, classes, first):
        if first or y.dtype.kind not in "iub":
            check_classification_targets(y)
        if first:
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit (all classes of the stream).")
            self.classes_ = np.unique(np.asarray(classes))
        elif classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"classes={classes!r} differs from the classes of the first call, {self.classes_!r}.")
        yk = np.searchsorted(self.classes_, y)
        bad = (yk >= self.classes_.shape[0]) | (self.classes_[np.minimum(yk, self.classes_.shape[0] - 1)] != y)
        if bad.any():
            raise ValueError(f"y contains labels {np.unique(y[bad])!r} not in classes_ {self.classes_!r}.")
        yk = yk.astype(np.int32)
        return yk, np.zeros(y.shape[0]), self.classes_.shape[0]

    def predict_proba(self, X):
        """Mean over trees of the leaf class proportions."""
        return self._mean_values(X)

    def predict(self, X):
        """Class with the highest mean probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class OnlineRandomForestRegressor(RegressorMixin, BaseOnlineForest):
    """Online random forest regressor (lecture Algorithm 1, Eq. 5-9; Wang et al. 2018).

    As :class:`OnlineRandomForestClassifier`, but every leaf and every side of
    a candidate split keeps the triplet ``{n, mu, E}`` (count, mean, mean
    squared deviation) updated by Eq. (5) and Eq. (9); the gain is
    ``Delta E = E - n_l / n E_l - n_r / n E_r`` and leaves predict ``mu``.

    Parameters
    ----------
    n_estimators : int, default=10
    criterion : {"squared_error"}, default="squared_error"
    n_tests : int, default=20
    min_samples_split : int, default=50
    min_gain : float, default=0.0
        In units of the target's variance.
    max_depth, max_nodes, n_jobs, random_state
        As for :class:`OnlineRandomForestClassifier`.

    Attributes
    ----------
    trees_, estimators_, n_features_in_, n_samples_seen_

    See Also
    --------
    OnlineRandomForestClassifier

    References
    ----------
    W. Wang, C. Wang, S. Liu, T. Zhang, X. Cao, "Robust target tracking by
    online random forests and superpixels", IEEE TCSVT 2018.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from forestzoo import OnlineRandomForestRegressor
    >>> X, y = make_friedman1(n_samples=4000, random_state=0)
    >>> orf = OnlineRandomForestRegressor(n_estimators=10, random_state=0)
    >>> orf = orf.partial_fit(X[:3000], y[:3000])
    >>> orf.score(X[3000:], y[3000:]) > 0.6
    True
    """

    _parameter_constraints = {
        **BaseOnlineForest._parameter_constraints,
        "criterion": [StrOptions({"squared_error"})],
    }
    _fast_check_params = {"min_samples_split": 5}

    def __init__(self, n_estimators=10, *, criterion="squared_error", n_tests=20, min_samples_split=50,
                 min_gain=0.0, max_depth=None, max_nodes=None, n_jobs=None, random_state=None):
        super().__init__(n_estimators, criterion=criterion, n_tests=n_tests, min_samples_split=min_samples_split,
                         min_gain=min_gain, max_depth=max_depth, max_nodes=max_nodes, n_jobs=n_jobs,
                         random_state=random_state)

    def partial_fit(self, X, y):
        """Learn from one mini-batch; a batch that raises leaves the model exactly as it was.

        Returns
        -------
        self
        """
        with keep_state_on_error(self):
            return self._partial_fit(X, y, None)

    def _encode(self, y, classes, first):
        y = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity; regression targets must be finite.")
        return np.zeros(y.shape[0], np.int32), y, 1

    def predict(self, X):
        """Mean over trees of the leaf means."""
        return self._mean_values(X)[:, 0]
