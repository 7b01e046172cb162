"""Online random forests with ``partial_fit`` (lecture Algorithm 1; Saffari et al. 2009)."""

import math
import threading
from concurrent.futures import wait
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import _check_labels, _check_ndim, _check_X_types

from .._atomics import store
from .._engine.api import TREE_LEAF, Tree, draw_seeds, empty_nodes, make_state
from .._threads import n_cores, start_helper
from .._validation import keep_state_on_error
from ._adwin import ADWIN_SIZE
from ._kernels import (ABORT, BG_ON, DRIFT_ADWIN, DRIFT_OOB, ENTROPY, FG, GINI, LAST_DRIFT, LEARN, MAX_REPS,
                       N_DRIFTS, N_DSTATE, N_WARNINGS, ROWS, VARIANCE, WAIT, predict_trees, seed_leaves, train_pairs,
                       train_pairs_when_told, train_trees, train_trees_when_told)

_CRITERIA = {"entropy": ENTROPY, "log_loss": ENTROPY, "gini": GINI, "squared_error": VARIANCE}
_DRIFT = {None: 0, "adwin": DRIFT_ADWIN, "oob": DRIFT_OOB}
#: parameters whose change between ``partial_fit`` calls reshapes the forest (see ``_apply_params``)
_STRUCTURAL = ("n_estimators", "drift")
_INITIAL_CAPACITY = 64
_UNBOUNDED = 2**31 - 1
_MIN_THREAD_WORK = 2000  # rows x trees of a batch below which partial_fit uses one thread


@dataclass
class OnlineForest:
    """The growing arrays of an online forest, trees along axis 0 (see :mod:`._kernels`); plain numpy.

    ``counts[t]`` is ``[n_nodes, n_slots, n_samples_seen]`` of tree ``t``.
    Node and pool rows beyond the counts are spare capacity.  ``dstate``
    and ``detect`` hold one row per voting tree: its drift bookkeeping
    (columns named in :mod:`._kernels`) and its two ADWIN detectors (or the
    out-of-bag sums of the ``oob`` mode).  With ``paired``, physical trees
    ``p`` and ``p + n_voting`` are voting tree ``p`` and its background tree,
    ``dstate[p, FG]`` saying which of the two votes.
    """

    nodes: np.ndarray
    values: np.ndarray
    parent_of: np.ndarray
    slot: np.ndarray
    seen: np.ndarray
    stats: np.ndarray
    tfeat: np.ndarray
    tthr: np.ndarray
    tstats: np.ndarray
    counts: np.ndarray
    fmin: np.ndarray
    fmax: np.ndarray
    rng: np.ndarray
    dstate: np.ndarray
    detect: np.ndarray

    @classmethod
    def new(cls, n_features, n_values, n_stats, n_tests, seeds, node_capacity=_INITIAL_CAPACITY, slot_capacity=None,
            n_voting=None):
        """Trees of one leaf each, one per seed; the roots' candidate splits are drawn once data arrive.

        ``n_voting`` (default: one per seed) is the number of voting trees;
        twice as many seeds make a paired forest (a background tree each).
        """
        n_trees, cap = len(seeds), node_capacity
        scap = cap if slot_capacity is None else slot_capacity
        n_voting = n_trees if n_voting is None else n_voting
        arrays = _node_arrays(n_trees, cap, n_values)
        arrays["slot"][:, 0] = 0
        counts = np.zeros((n_trees, 3), np.int64)
        counts[:, :2] = 1
        dstate = np.zeros((n_voting, N_DSTATE), np.int64)
        dstate[:, FG] = np.arange(n_voting)
        dstate[:, LAST_DRIFT] = -1
        return cls(
            **arrays, seen=np.zeros((n_trees, scap)), stats=np.zeros((n_trees, scap, n_stats)),
            tfeat=np.zeros((n_trees, scap, n_tests), np.int64), tthr=np.full((n_trees, scap, n_tests), np.nan),
            tstats=np.zeros((n_trees, scap, n_tests, 2, n_stats)), counts=counts,
            fmin=np.full((n_trees, n_features), np.inf), fmax=np.full((n_trees, n_features), -np.inf),
            rng=np.concatenate([make_state(int(s))[None, :] for s in seeds]),
            dstate=dstate, detect=np.zeros((n_voting, 2, ADWIN_SIZE)),
        )

    @property
    def paired(self):
        return self.nodes.shape[0] == 2 * self.dstate.shape[0]

    @property
    def voters(self):
        """Physical rows of the voting trees."""
        return self.dstate[:, FG]

    def resized(self, n_voting, paired, seeds):
        """A copy with ``n_voting`` voting trees (the first ones kept, new ones empty), paired or not.

        ``seeds`` holds one seed for each new physical tree (new voting trees
        first, then new background trees).  Kept voting trees move to rows
        ``0..`` and their background trees (when both forests are paired)
        to ``n_voting + p``.  Kept trees keep their drift detectors when the
        pairing is unchanged; across a change of pairing the detectors mean
        something else (ADWIN windows or out-of-bag sums) and start empty.
        """
        n_old = self.dstate.shape[0]
        keep = min(n_old, n_voting)
        n_phys = n_voting * (2 if paired else 1)
        n_new = n_phys - keep * (2 if paired and self.paired else 1)
        seeds = list(seeds[:n_new])
        fresh = OnlineForest.new(self.fmin.shape[1], self.values.shape[2], self.stats.shape[2], self.tfeat.shape[2],
                                 [0] * n_phys, self.node_capacity, self.slot_capacity, n_voting)
        moves = []  # (new row, old row)
        for p in range(keep):
            fg = self.dstate[p, FG]
            moves.append((p, fg))
            if paired and self.paired:
                moves.append((n_voting + p, p + n_old if fg == p else p))
        kept = {new for new, _ in moves}
        for name in ("nodes", "values", "parent_of", "slot", "seen", "stats", "tfeat", "tthr", "tstats", "counts",
                     "fmin", "fmax", "rng"):
            a, b = getattr(fresh, name), getattr(self, name)
            for new, old in moves:
                a[new] = b[old]
        for t in range(n_phys):
            if t not in kept:
                fresh.rng[t] = make_state(int(seeds.pop(0)))
        fresh.dstate[:keep] = self.dstate[:keep]
        fresh.dstate[:keep, FG] = np.arange(keep)
        if not (paired and self.paired):
            fresh.dstate[:keep, BG_ON] = 0
        fresh.dstate[:, ROWS] = self.dstate[0, ROWS]
        if paired == self.paired:  # ADWIN windows (paired) or out-of-bag sums: kept only within the same mode
            fresh.detect[:keep] = self.detect[:keep]
        return fresh

    @property
    def node_capacity(self):
        return self.nodes.shape[1]

    @property
    def slot_capacity(self):
        return self.seen.shape[1]

    def grown(self, node_capacity, slot_capacity):
        """A copy with at least the given capacities (spare node rows are fresh leaves, spare pool rows zeros)."""
        n_trees = self.nodes.shape[0]
        old = self.node_capacity
        out = _node_arrays(n_trees, max(node_capacity, old), self.values.shape[2])
        for name, a in out.items():
            a[:, :old] = getattr(self, name)
        scap = max(slot_capacity, self.slot_capacity)
        for name in ("seen", "stats", "tfeat", "tthr", "tstats"):
            a = getattr(self, name)
            out[name] = np.zeros((n_trees, scap) + a.shape[2:], a.dtype)
            out[name][:, : a.shape[1]] = a
        for name in ("counts", "fmin", "fmax", "rng", "dstate", "detect"):
            out[name] = getattr(self, name).copy()
        return OnlineForest(**out)

    def tree(self, t, n_features):
        """Tree ``t``'s fitted part as an engine :class:`~forestzoo._engine.api.Tree` (views, no copy)."""
        n = self.counts[t, 0]
        return Tree(self.nodes[t, :n], self.values[t, :n], n_features)


def _node_arrays(n_trees, capacity, n_values):
    """``nodes``, ``values``, ``parent_of``, ``slot`` of ``n_trees`` trees whose rows are all fresh leaves."""
    return {
        "nodes": np.tile(empty_nodes(capacity), (n_trees, 1)),
        "values": np.zeros((n_trees, capacity, n_values)),
        "parent_of": np.full((n_trees, capacity), -1, np.int64),
        "slot": np.full((n_trees, capacity), -1, np.int64),
    }


def _train_on_threads(args, n_trees, n_threads, kernel=train_trees_when_told):
    """:func:`train_trees` (or ``kernel``) over blocks of trees on the pool's threads, all or none.

    Every block is started waiting, then one compiled call tells them all to
    learn.  An interrupt before that call makes them return untouched; after
    it, this waits until every block has learned the batch.
    """
    n_threads = max(1, min(n_threads, n_cores(), n_trees))
    bounds = [n_trees * k // n_threads for k in range(n_threads + 1)]
    go = np.zeros(1, np.int64)
    futures = []
    try:
        for k in range(n_threads):
            futures.append(start_helper(kernel, go, *args, bounds[k], bounds[k + 1]))
        store(go, 0, LEARN)
    finally:
        if go[0] == WAIT:
            store(go, 0, ABORT)
        wait(futures)
    for future in futures:
        future.result()


class _ReadWriteLock:
    """Many readers at once, or one writer; a waiting writer holds back new readers (no writer starves).

    ``partial_fit`` and ``fit`` change a model's arrays in place as writers;
    prediction reads them as a reader, so it sees the model before or after
    a batch, never half of one, while predictions from several threads still
    run side by side (their compiled kernels release the GIL).
    """

    def __init__(self):
        self._mutex = threading.Lock()  # guards the counters; entered directly, without the condition's wrapper
        self._cond = threading.Condition(self._mutex)
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._readers_waiting = 0

    # Uncontended, an acquire and its release take the mutex once each and never touch the condition
    # (a single-row predict or partial_fit is tens of microseconds; the condition's wait and notify
    # are Python code, about a microsecond each).

    def acquire_read(self):
        with self._mutex:
            if self._writing or self._writers_waiting:
                self._readers_waiting += 1
                try:
                    while self._writing or self._writers_waiting:
                        self._cond.wait()
                finally:
                    self._readers_waiting -= 1
            self._readers += 1

    # The releases are written out where the lock is held (``_as_writer``, ``_mean_values``), in their
    # ``finally`` blocks, not as methods: Python delivers a KeyboardInterrupt (Ctrl-C) at calls among other
    # points, and one delivered on entering a release method would leave the lock held and every later fit
    # or predict of the model waiting forever.

    def acquire_write(self):
        with self._mutex:
            if self._writing or self._readers:
                self._writers_waiting += 1
                try:
                    while self._writing or self._readers:
                        self._cond.wait()
                finally:
                    self._writers_waiting -= 1
                    if not self._writers_waiting and self._readers_waiting:
                        # readers held back by waiting writers re-check (an interrupted wait included)
                        self._cond.notify_all()
            self._writing = True


_LOCK_GUARD = threading.Lock()  # creates a model's lock once, however many threads first use the model at once


class BaseOnlineForest(BaseEstimator):
    """Shared ``fit`` / ``partial_fit`` / prediction of the online forests; not for direct use."""

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_tests": [Interval(Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_gain": [Interval(Real, 0.0, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_nodes": [Interval(Integral, 3, None, closed="left"), None],
        "drift": [StrOptions({"adwin", "oob"}), None],
        "drift_delta": [Interval(Real, 0.0, 1.0, closed="neither")],
        "warning_delta": [Interval(Real, 0.0, 1.0, closed="neither")],
        "oob_period": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=10, *, criterion, n_tests=100, min_samples_split=20, min_gain=0.0,
                 max_depth=None, max_nodes=None, drift="adwin", drift_delta=0.001, warning_delta=0.01,
                 oob_period=1000, n_jobs=None, random_state=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.n_tests = n_tests
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.drift = drift
        self.drift_delta = drift_delta
        self.warning_delta = warning_delta
        self.oob_period = oob_period
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting --------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, init_forest=None):
        """Forget any previous state and learn from ``(X, y)`` in one pass, in row order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training samples (finite values), learned in row order.
        y : array-like of shape (n_samples,)
            The class labels (classifier) or targets (regressor).
        init_forest : fitted estimator, default=None
            A batch forest to continue from instead of empty trees:
            forestzoo's or scikit-learn's ``RandomForest*``, ``ExtraTrees*``
            or ``DecisionTree*`` (and scikit-learn's ``ExtraTree*``) of the
            same task, axis-aligned and single-output, fitted on the
            features of ``X``; a classifier's classes must be among those of
            ``y``.  Each of its trees becomes a voting tree, so it must have
            ``n_estimators`` trees; a tree deeper than ``max_depth`` or with
            more nodes than ``max_nodes`` is refused.  ``(X, y)`` is not
            learned by online bagging: its rows initialise the leaves'
            statistics, each row counted once in every tree (the mean of the
            Poisson(1) weight), and every leaf draws its ``n_tests``
            candidate splits, whose sides count the leaf's rows, as if the
            leaf had learned them.  A leaf that no row reaches keeps the
            batch tree's value until data reach it.  Predictions right after
            the conversion therefore equal the batch forest's when ``(X, y)``
            are the rows it was fitted on, unweighted and without bootstrap
            (``bootstrap=False``, the default of ``ExtraTrees*``): the leaves
            then hold the same class counts (equal to the last bit) or the
            same mean target (to rounding, the sum over the count here).
            With bootstrap, sample or class weights, a tree's leaves hold the
            counts of all rows rather than of its weighted draw.  Every leaf
            keeps ``2 * n_tests`` class counts or triplets, so memory grows
            with the number of leaves of the given trees.  Drift handling
            starts with empty detectors and background trees.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        from ..interop import fit_with_forest

        return self._as_writer(fit_with_forest, self, self._fit, init_forest, X, y)

    def _model_lock(self):
        """The model's :class:`_ReadWriteLock`, created on first use (it is not pickled)."""
        lock = self.__dict__.get("_lock")
        if lock is None:
            with _LOCK_GUARD:
                lock = self.__dict__.get("_lock")
                if lock is None:
                    lock = self.__dict__["_lock"] = _ReadWriteLock()
        return lock

    def _as_writer(self, fn, *args):
        """``fn(*args)`` holding the model's lock as its writer; a failure restores the model's attributes."""
        lock = self._model_lock()  # before the snapshot of keep_state_on_error, which then keeps it
        lock.acquire_write()
        try:
            with keep_state_on_error(self):
                return fn(*args)
        finally:
            with lock._mutex:  # released inline (see _ReadWriteLock)
                lock._writing = False
                if lock._readers_waiting or lock._writers_waiting:
                    lock._cond.notify_all()

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_lock", None)
        return state

    def _fit(self, X, y):
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

    def _params_key(self):
        """The parameters as one tuple: a cheap test of whether ``set_params`` changed any since the last batch."""
        return tuple(getattr(self, name) for name in self._parameter_constraints)

    def _check_params(self, first):
        """Validate every parameter (on every call: ``set_params`` may change them between batches).

        Unchanged parameters are not validated again, which keeps a
        ``partial_fit`` of one row cheap.  Returns the seeds the batch's new
        trees need when ``n_estimators`` or ``drift`` changed (None otherwise).
        """
        key = self._params_key()
        if not first and key == getattr(self, "_params_seen_", None):
            return None
        self._validate_params()
        if first:
            return None
        if self.n_tests != self.forest_.tfeat.shape[2]:
            raise ValueError(f"n_tests={self.n_tests!r} differs from the n_tests={self.forest_.tfeat.shape[2]} the "
                             "leaves were created with; candidate splits cannot be added or removed between "
                             "partial_fit calls. Call fit (or clone the estimator) to start again.")
        return key

    def _apply_params(self, forest):
        """``forest`` reshaped for the current ``n_estimators`` and ``drift`` (the same object if nothing changed).

        Growing adds empty trees (seeded from ``random_state``); shrinking
        drops the last trees, which stop voting; switching ``drift`` on adds
        empty background trees, switching it off drops them.
        """
        n_voting, paired = self.n_estimators, self.drift == "adwin"
        if n_voting == forest.dstate.shape[0] and paired == forest.paired:
            return forest
        n_old_phys = forest.nodes.shape[0]
        n_phys = n_voting * (2 if paired else 1)
        seeds = draw_seeds(check_random_state(self.random_state), n_old_phys + n_phys)[n_old_phys:]
        return forest.resized(n_voting, paired, seeds)

    def _partial_fit(self, X, y, classes):
        first = not hasattr(self, "forest_")
        given = getattr(self, "_init_forest", None)
        if given is not None and not first:
            raise ValueError(f"init_forest starts a model: this {type(self).__name__} is already fitted. Call "
                             "fit(X, y, init_forest=...) to start again from the given forest.")
        changed = self._check_params(first)
        X, y = self._check_batch(X, y, first)
        yk, yr, n_values = self._encode(y, classes, first)
        # everything below only runs once the batch is known to be valid
        crit = _CRITERIA[self.criterion]
        n_split = int(self.min_samples_split)
        drift = _DRIFT[self.drift]
        n = X.shape[0]
        if first:
            rs = check_random_state(self.random_state)
            seeds = draw_seeds(rs, self.n_estimators)
            if drift == DRIFT_ADWIN:  # background trees: drawn after the voting trees', which stay those of drift=None
                seeds = np.concatenate((seeds, draw_seeds(rs, self.n_estimators)))
            n_stats = 3 if crit == VARIANCE else n_values
            if given is not None:
                self.forest_ = self._converted(given, X, yk, yr, n_values, n_stats, seeds)
                self._params_seen_ = self._params_key()
                return self
            forest = OnlineForest.new(X.shape[1], n_values, n_stats, self.n_tests, seeds, n_voting=self.n_estimators)
            in_place = False
        else:
            forest = self._apply_params(self.forest_) if changed is not None else self.forest_
            # The most splits the batch can cause in one tree: each row's first use may split the (old) leaf it
            # reaches, every further split needs n_split + 1 uses of leaves created in this batch, and a row is
            # used at most MAX_REPS times; plus the headroom _train_rows asks for before a row.
            most_nodes, old_leaves, _ = forest.counts.max(axis=0).tolist()
            splits = min(n, old_leaves) + (MAX_REPS * n) // (n_split + 1) + 1 + (MAX_REPS - 1) // (n_split + 1)
            node_cap, slot_cap = forest.node_capacity, forest.slot_capacity
            grow_nodes, grow_slots = most_nodes + 2 * splits > node_cap, old_leaves + splits > slot_cap
            in_place = forest is self.forest_ and not (grow_nodes or grow_slots)
            if grow_nodes or grow_slots:  # learn on a grown copy and swap it in at the end
                forest = forest.grown(2 * node_cap if grow_nodes else 0, 2 * slot_cap if grow_slots else 0)
        max_depth = _UNBOUNDED if self.max_depth is None else int(self.max_depth)
        max_nodes = _UNBOUNDED if self.max_nodes is None else int(self.max_nodes)
        n_units = forest.dstate.shape[0] if drift else forest.nodes.shape[0]  # tree pairs, or trees
        n_work = n * forest.nodes.shape[0]
        # a thread costs tens of microseconds to wake: small batches are learned in the calling thread
        n_threads = 1 if n_work < _MIN_THREAD_WORK else effective_n_jobs(self.n_jobs)
        next_row = np.zeros(n_units, np.int64)
        while True:
            # In place, this is the batch's only change to the model, and the capacity check above guarantees
            # that it completes: with one thread a single compiled call that no interrupt can split, with
            # several a set of blocks that all learn or all return untouched (_train_on_threads).
            head = (X, yk, yr, forest.nodes, forest.values, forest.parent_of, forest.slot, forest.seen, forest.stats,
                    forest.tfeat, forest.tthr, forest.tstats, forest.counts, forest.fmin, forest.fmax, forest.rng,
                    forest.dstate)
            if drift:
                args = head + (forest.detect, next_row, crit, float(n_split), float(self.min_gain), max_depth,
                               max_nodes, drift, float(self.drift_delta), float(self.warning_delta),
                               int(self.oob_period))
                kernel, threaded = train_pairs, train_pairs_when_told
            else:
                args = head + (next_row, crit, float(n_split), float(self.min_gain), max_depth, max_nodes)
                kernel, threaded = train_trees, train_trees_when_told
            if n_threads == 1:
                kernel(*args, 0, n_units)
            else:
                _train_on_threads(args, n_units, n_threads, threaded)
            if next_row.min() >= n:
                break
            if in_place:  # the bound above makes this unreachable
                raise RuntimeError("online forest: a batch outgrew the capacity reserved for it")
            forest = forest.grown(2 * forest.node_capacity, 2 * forest.slot_capacity)
        if not in_place:
            self.forest_ = forest
        if changed is not None or first:
            self._params_seen_ = self._params_key()
        return self

    def _converted(self, given, X, yk, yr, n_values, n_stats, seeds):
        """The online forest whose voting trees are ``given``'s trees, their leaves' statistics taken from the rows.

        ``seeds`` are those of a new forest (voting trees, then background
        trees): each voting tree draws its leaves' candidate splits and its
        later Poisson weights from its own seed; background trees start
        empty.  See ``fit`` for what is refused.
        """
        from ..interop import given_forest

        name = type(self).__name__
        n_outputs = getattr(given, "n_outputs_", 1)
        if n_outputs != 1:
            raise ValueError(f"init_forest must have one output; this {type(given).__name__} has {n_outputs}.")
        classes = self.classes_ if self._is_classifier() else None
        _, trees = given_forest(given, X.shape[1], classes, name)
        if len(trees) != self.n_estimators:
            raise ValueError(f"init_forest has {len(trees)} trees but n_estimators={self.n_estimators}: every tree "
                             f"becomes a voting tree. Set n_estimators={len(trees)}.")
        n_nodes = np.array([t.node_count for t in trees], np.int64)
        depth = max(int(t.nodes["depth"].max()) for t in trees)
        if self.max_depth is not None and depth > self.max_depth:
            raise ValueError(f"init_forest has trees of depth {depth}, deeper than max_depth={self.max_depth} "
                             f"allows an online tree to be. Set max_depth=None or >= {depth}, or give a forest "
                             "grown with a smaller max_depth.")
        if self.max_nodes is not None and n_nodes.max() > self.max_nodes:
            raise ValueError(f"init_forest has a tree of {n_nodes.max()} nodes, more than max_nodes="
                             f"{self.max_nodes} allows an online tree. Set max_nodes=None or >= {n_nodes.max()}, "
                             "or give a forest grown with fewer leaves (max_leaf_nodes).")
        for t in trees:
            k = np.flatnonzero(t.nodes["left"] != TREE_LEAF)
            if np.any(t.nodes["left"][k] <= k) or np.any(t.nodes["right"][k] <= k):
                raise ValueError("init_forest has a tree that stores a child before its parent; online trees "
                                 "append children after their parent (forestzoo's and scikit-learn's builders do).")
        n_voting = len(trees)
        leaves = [np.flatnonzero(t.nodes["left"] == TREE_LEAF) for t in trees]
        node_cap = max(_INITIAL_CAPACITY, 1 << int(n_nodes.max() - 1).bit_length())
        slot_cap = max(_INITIAL_CAPACITY, 1 << int(max(len(lv) for lv in leaves) - 1).bit_length())
        forest = OnlineForest.new(X.shape[1], n_values, n_stats, self.n_tests, seeds, node_cap, slot_cap, n_voting)
        for t, (tree, lv) in enumerate(zip(trees, leaves)):
            n = tree.node_count
            forest.nodes[t, :n] = tree.nodes
            forest.values[t, :n] = tree.values
            internal = np.flatnonzero(tree.nodes["left"] != TREE_LEAF)
            forest.parent_of[t, tree.nodes["left"][internal]] = internal
            forest.parent_of[t, tree.nodes["right"][internal]] = internal
            forest.slot[t, :n] = -1
            forest.slot[t, lv] = np.arange(lv.shape[0])
            forest.counts[t, :2] = n, lv.shape[0]
        seed_leaves(X, yk, yr, forest.nodes, forest.values, forest.parent_of, forest.slot, forest.seen, forest.stats,
                    forest.tfeat, forest.tthr, forest.tstats, forest.counts, forest.fmin, forest.fmax, forest.rng,
                    _CRITERIA[self.criterion], 0, n_voting)
        forest.dstate[:, ROWS] = X.shape[0]
        return forest

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
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"Found input variables with inconsistent numbers of samples: [{X.shape[0]}, {y.shape[0]}]")
        X = self._check_plain_X(X)
        if not self._is_classifier():
            self._check_regression_targets(y)
        return X, y

    def _check_plain_X(self, X):
        """The checks of ``validate_data(reset=False)`` for a 2-D float/int numpy array."""
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        if X.shape[0] == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required.")
        X = np.ascontiguousarray(X, dtype=np.float32)
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity; online forests need finite features.")
        return X

    @staticmethod
    def _check_regression_targets(y):
        if y.dtype.kind not in "biuf":
            raise ValueError(f"y has dtype {y.dtype}; regression targets must be numbers, not strings.")
        y64 = np.asarray(y, dtype=np.float64)
        # the leaves keep running means and squared deviations (Eq. 5, 9) of y: y.y must be finite, which
        # also rules out NaN and infinity (one pass for the common case; the messages tell them apart)
        if math.isfinite(np.dot(y64, y64)):
            return
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.isfinite(y64).all():
                raise ValueError("y contains NaN or infinity; regression targets must be finite.")
            raise ValueError(f"y has values too large in magnitude (max |y| = {np.abs(y64).max():.3g}): "
                             "squared-error statistics would overflow float64; rescale y.")

    # -- prediction -----------------------------------------------------------
    def _mean_values(self, X):
        if not hasattr(self, "forest_"):  # check_is_fitted, without its scan of every attribute
            check_is_fitted(self)
        if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "fiu" and not hasattr(self, "feature_names_in_"):
            X = self._check_plain_X(X)  # fast path, same checks
        else:
            X = validate_data(self, X, reset=False, dtype=np.float32, order="C", ensure_all_finite=True)
        lock = self._model_lock()
        lock.acquire_read()  # partial_fit changes the arrays in place: read them between two batches
        try:
            forest = self.forest_
            out = np.zeros((X.shape[0], forest.values.shape[2]))
            n_trained = predict_trees(X, forest.nodes, forest.values, forest.counts, forest.slot, forest.seen,
                                      forest.voters, out)
        finally:
            with lock._mutex:  # released inline (see _ReadWriteLock)
                lock._readers -= 1
                if not lock._readers and lock._writers_waiting:
                    lock._cond.notify_all()
        if n_trained:
            out /= n_trained
        elif self._is_classifier():  # no tree has seen a sample: nothing favours any class
            out[:] = 1.0 / out.shape[1]
        return out

    @property
    def estimators_(self):
        """The voting trees as engine :class:`~forestzoo._engine.api.Tree` objects (views of the live arrays)."""
        check_is_fitted(self)
        return [self.forest_.tree(t, self.n_features_in_) for t in self.forest_.voters]

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importances of the voting trees, normalised to sum to one.

        An online tree keeps, for every split, the gain that chose it: the
        lecture's ``Delta E`` (impurity of the leaf's samples minus the
        size-weighted impurities of the two sides), computed from the class
        counts (or the ``{n, mu, E}`` statistics) of the candidate's two
        sides, times the samples the leaf had seen when it split.  That is a
        split's impurity decrease weighted by its node's sample count, the
        quantity the mean decrease in impurity sums, so the importances are
        computed as for :class:`~forestzoo.RandomForestClassifier`: each
        voting tree's decreases summed per feature and normalised to sum to
        one, averaged over the trees that split, normalised again.  The
        background trees of drift handling do not vote and do not count; a
        replaced tree's splits are forgotten with it.  Sample counts include
        the Poisson(1) repetitions of online bagging.  All zeros while no
        tree has split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
        """
        from .._base import forest_importances

        trees = [t for t in self.estimators_ if t.node_count > 1]
        return forest_importances(trees, self.n_features_in_)

    def get_n_nodes(self):
        """Number of nodes of every voting tree.

        Returns
        -------
        ndarray of shape (n_estimators,)
            The node count of each voting tree.
        """
        check_is_fitted(self)
        return self.forest_.counts[self.forest_.voters, 0].copy()

    def _fitted_attr(self, name):
        if not hasattr(self, "forest_"):
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r} before it is fitted")
        return self.forest_.dstate

    @property
    def n_samples_seen_(self):
        """Samples learned so far (kept with the trees, so one compiled call updates both)."""
        return int(self._fitted_attr("n_samples_seen_")[0, ROWS])

    @property
    def n_drifts_(self):
        """Per voting tree, how many times it was replaced (drifts found, or out-of-bag replacements)."""
        return self._fitted_attr("n_drifts_")[:, N_DRIFTS].copy()

    @property
    def n_warnings_(self):
        """Per voting tree, how many background trees were started (``drift="adwin"``)."""
        return self._fitted_attr("n_warnings_")[:, N_WARNINGS].copy()

    @property
    def last_drift_(self):
        """Per voting tree, the stream position (0-based row) of its last replacement; -1 where none."""
        return self._fitted_attr("last_drift_")[:, LAST_DRIFT].copy()

    @property
    def last_drift_position_(self):
        """The stream position of the forest's latest tree replacement; -1 if none."""
        return int(self._fitted_attr("last_drift_position_")[:, LAST_DRIFT].max())

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

    Concept drift (``drift="adwin"``, the default) is handled as adaptive
    random forests do (Gomes et al. 2017): every voting tree's prequential
    error (0/1 loss of the tree on each row before it learns it) feeds two
    ADWIN detectors (Bifet & Gavaldà 2007).  A rise of the error at the
    warning level ``warning_delta`` starts a background tree that learns
    beside the voting tree without voting; a rise at the drift level
    ``drift_delta`` replaces the voting tree by its background tree (or by
    an empty tree when none was started).  Falls of the error (a tree that
    learns) raise no alarm.  When no drift is found the voting trees are
    exactly those of ``drift=None``.  ``drift="oob"`` is Saffari et al.'s
    temporal knowledge weighting instead: each tree scores the rows its
    online bagging leaves out, and every ``oob_period`` rows a tree whose
    out-of-bag error over the period exceeds a uniform random number is
    replaced by an empty tree.  ``drift=None`` never forgets.

    Trees are stored in the engine's node layout and predicted by the
    engine's predictor.  ``partial_fit`` accepts mini-batches of any size
    (the kernels loop over the batch, so batching does not change the
    model, drift handling included); a fitted model pickles and resumes.
    ``set_params`` between ``partial_fit`` calls is honoured: a larger
    ``n_estimators`` adds empty trees, a smaller one drops the last trees
    from the vote, and a new ``drift`` adds or drops the background trees;
    a different ``n_tests`` is refused (the leaves' candidate splits
    cannot change).  Every call validates the parameters.  ``fit(X, y,
    init_forest=forest)`` continues from a fitted batch forest (see
    :meth:`fit`).

    ``predict`` and ``predict_proba`` may run in other threads while
    ``partial_fit`` learns: a per-model read-write lock makes them see the
    model before or after the batch, never part of it (predictions still
    run side by side; a batch waits for the predictions under way).

    Parameters
    ----------
    n_estimators : int, default=10
        Number of trees.
    criterion : {"entropy", "gini", "log_loss"}, default="entropy"
        Impurity of the gain; "log_loss" is "entropy".
    n_tests : int, default=100
        Candidate splits kept at every leaf (the lecture leaves the number
        open).  Each leaf holds ``2 * n_tests * n_classes`` counts, so memory
        grows with it; ``benchmarks/investigations/orf_settings.py`` measures the choice.
    min_samples_split : int, default=20
        ``n_split``: samples a leaf must see (since its creation) before it may split.
    min_gain : float, default=0.0
        ``delta_split``: the best candidate's gain must exceed it.
    max_depth : int or None, default=None
        Leaves at this depth never split.
    max_nodes : int or None, default=None
        Most nodes per tree: bounds memory on endless streams.
    drift : {"adwin", "oob"} or None, default="adwin"
        Concept-drift handling (see above); None learns as the lecture's
        Algorithm 1 alone.  "adwin" keeps a background tree beside each
        voting tree, so it needs up to twice the memory.
    drift_delta : float in (0, 1), default=0.001
        Confidence of the ADWIN detector whose alarm replaces a tree.
    warning_delta : float in (0, 1), default=0.01
        Confidence of the ADWIN detector whose alarm starts a background tree.
    oob_period : int, default=1000
        ``drift="oob"``: rows between two out-of-bag checks of a tree
        (Saffari et al.'s ``1 / theta``).
    n_jobs : int or None, default=None
        Threads updating trees in parallel (results do not depend on it).
        Batches below 2,000 rows x trees are learned in the calling thread,
        where waking threads would cost more than it saves.
    random_state : int, RandomState or None, default=None
        Seed of the online bagging, the candidate splits and the out-of-bag checks.

    Attributes
    ----------
    forest_ : OnlineForest
        The growing arrays of the trees.
    estimators_ : list of forestzoo._engine.api.Tree
        The voting trees as engine trees (views).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit`` or ``partial_fit``.
    n_samples_seen_ : int
        Rows learned so far.
    n_drifts_ : ndarray of shape (n_estimators,)
        Per voting tree, the times it was replaced.
    n_warnings_ : ndarray of shape (n_estimators,)
        Per voting tree, the background trees started (``drift="adwin"``).
    last_drift_ : ndarray of shape (n_estimators,)
        Per voting tree, the stream position (0-based row) of its last
        replacement, -1 where none.
    last_drift_position_ : int
        The latest of ``last_drift_`` (-1: no replacement yet).

    See Also
    --------
    OnlineRandomForestRegressor : The online forest for regression.
    forestzoo.RandomForestClassifier : The batch random forest.

    References
    ----------
    A. Saffari, C. Leistner, J. Santner, M. Godec, H. Bischof, "On-line random
    forests", ICCV Workshops 2009.  W. Wang, C. Wang, S. Liu, T. Zhang, X. Cao,
    "Robust target tracking by online random forests and superpixels", IEEE
    TCSVT 2018.  H. M. Gomes, A. Bifet, J. Read, J. P. Barddal, F. Enembreck,
    B. Pfahringer, G. Holmes, T. Abdessalem, "Adaptive random forests for
    evolving data stream classification", Machine Learning 2017.  A. Bifet,
    R. Gavaldà, "Learning from time-changing data with adaptive windowing",
    SDM 2007.

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

    def __init__(self, n_estimators=10, *, criterion="entropy", n_tests=100, min_samples_split=20, min_gain=0.0,
                 max_depth=None, max_nodes=None, drift="adwin", drift_delta=0.001, warning_delta=0.01,
                 oob_period=1000, n_jobs=None, random_state=None):
        super().__init__(n_estimators, criterion=criterion, n_tests=n_tests, min_samples_split=min_samples_split,
                         min_gain=min_gain, max_depth=max_depth, max_nodes=max_nodes, drift=drift,
                         drift_delta=drift_delta, warning_delta=warning_delta, oob_period=oob_period, n_jobs=n_jobs,
                         random_state=random_state)

    def partial_fit(self, X, y, classes=None, init_forest=None):
        """Learn from one mini-batch, wholly or not at all.

        A batch that fails validation leaves the model exactly as it was.  An
        interrupted call (``KeyboardInterrupt``) leaves either the model
        before the call or the model with the whole batch learned;
        ``n_samples_seen_`` says which.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch's samples (finite values), learned in row order.
        y : array-like of shape (n_samples,)
            The batch's class labels.
        classes : array-like, default=None
            Every class the stream will contain; required on the first call.
        init_forest : fitted classifier, default=None
            First call only: a batch forest to continue from, its leaves'
            statistics initialised from ``(X, y)`` (see :meth:`fit`).

        Returns
        -------
        self : object
            The updated estimator.
        """
        from ..interop import fit_with_forest

        return self._as_writer(fit_with_forest, self, self._partial_fit, init_forest, X, y, classes)

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
        """Mean over trees of the leaf class proportions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (finite values).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._mean_values(X)

    def predict(self, X):
        """Class with the highest mean probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (finite values).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class OnlineRandomForestRegressor(RegressorMixin, BaseOnlineForest):
    """Online random forest regressor (lecture Algorithm 1, Eq. 5-9; Wang et al. 2018).

    As :class:`OnlineRandomForestClassifier`, but every leaf and every side of
    a candidate split keeps the triplet ``{n, mu, E}`` (count, mean, mean
    squared deviation) updated by Eq. (5) and Eq. (9); the gain is
    ``Delta E = E - n_l / n E_l - n_r / n E_r`` and leaves predict ``mu``.
    Drift handling is the classifier's, on the trees' absolute prequential
    errors (``drift="adwin"``) or on the out-of-bag ``min(1, SSE / SST)``
    over each period (``drift="oob"``).

    Parameters
    ----------
    n_estimators : int, default=10
        Number of trees.
    criterion : {"squared_error"}, default="squared_error"
        The gain is the decrease of the mean squared deviation.
    n_tests : int, default=100
        Candidate splits kept at every leaf, each with a triplet per side.
    min_samples_split : int, default=20
        Samples a leaf must see (since its creation) before it may split.
    min_gain : float, default=0.0
        The best candidate's gain must exceed it, in units of the target's variance.
    max_depth : int or None, default=None
        Leaves at this depth never split.
    max_nodes : int or None, default=None
        Most nodes per tree: bounds memory on endless streams.
    drift : {"adwin", "oob"} or None, default="adwin"
        Concept-drift handling, as for :class:`OnlineRandomForestClassifier`.
    drift_delta : float in (0, 1), default=0.001
        Confidence of the ADWIN detector whose alarm replaces a tree.
    warning_delta : float in (0, 1), default=0.01
        Confidence of the ADWIN detector whose alarm starts a background tree.
    oob_period : int, default=1000
        ``drift="oob"``: rows between two out-of-bag checks of a tree.
    n_jobs : int or None, default=None
        Threads updating trees in parallel (results do not depend on it).
    random_state : int, RandomState or None, default=None
        Seed of the online bagging, the candidate splits and the out-of-bag checks.

    Attributes
    ----------
    forest_ : OnlineForest
        The growing arrays of the trees.
    estimators_ : list of forestzoo._engine.api.Tree
        The voting trees as engine trees (views).
    n_features_in_ : int
        Number of features seen in ``fit`` or ``partial_fit``.
    n_samples_seen_ : int
        Rows learned so far.
    n_drifts_ : ndarray of shape (n_estimators,)
        Per voting tree, the times it was replaced.
    n_warnings_ : ndarray of shape (n_estimators,)
        Per voting tree, the background trees started (``drift="adwin"``).
    last_drift_ : ndarray of shape (n_estimators,)
        Per voting tree, the stream position of its last replacement, -1 where none.
    last_drift_position_ : int
        The latest of ``last_drift_`` (-1: no replacement yet).

    See Also
    --------
    OnlineRandomForestClassifier : The online forest for classification.

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

    def __init__(self, n_estimators=10, *, criterion="squared_error", n_tests=100, min_samples_split=20,
                 min_gain=0.0, max_depth=None, max_nodes=None, drift="adwin", drift_delta=0.001, warning_delta=0.01,
                 oob_period=1000, n_jobs=None, random_state=None):
        super().__init__(n_estimators, criterion=criterion, n_tests=n_tests, min_samples_split=min_samples_split,
                         min_gain=min_gain, max_depth=max_depth, max_nodes=max_nodes, drift=drift,
                         drift_delta=drift_delta, warning_delta=warning_delta, oob_period=oob_period, n_jobs=n_jobs,
                         random_state=random_state)

    def partial_fit(self, X, y, init_forest=None):
        """Learn from one mini-batch, wholly or not at all (see ``OnlineRandomForestClassifier.partial_fit``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The batch's samples (finite values), learned in row order.
        y : array-like of shape (n_samples,)
            The batch's targets.
        init_forest : fitted regressor, default=None
            First call only: a batch forest to continue from, its leaves'
            statistics initialised from ``(X, y)`` (see :meth:`fit`).

        Returns
        -------
        self : object
            The updated estimator.
        """
        from ..interop import fit_with_forest

        return self._as_writer(fit_with_forest, self, self._partial_fit, init_forest, X, y, None)

    def _encode(self, y, classes, first):
        # _check_batch has refused non-finite targets
        return np.zeros(y.shape[0], np.int32), np.asarray(y, dtype=np.float64), 1

    def predict(self, X):
        """Mean over trees of the leaf means.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples (finite values).

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._mean_values(X)[:, 0]
