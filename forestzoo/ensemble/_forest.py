"""Bagged forests on the forestzoo engine: Random Forest and Extra Trees.

The training matrix is binned (or laid out feature-major) once per forest;
every tree then receives only its own weight vector -- bootstrap counts
times sample weights times class weights (Breiman 2001) -- so ``X`` is never
copied per tree.  Trees are grown on joblib threads (the kernels release the
GIL) from per-tree seeds drawn up front, so the forest is the same for any
``n_jobs`` and backend, Dask included.
"""

import warnings
from contextlib import nullcontext
from numbers import Integral

import numpy as np
from joblib import delayed, effective_n_jobs
from scipy.sparse import issparse
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import (
    CLASSIFICATION_CRITERIA, MAX_SEED, REGRESSION_CRITERIA, TREE_PARAMETER_CONSTRAINTS, EngineEstimator, importance_sum,
    multi_output_params, predict_labels, sdt_values, split_outputs, tree_params,
)
from .._engine.api import (
    LeafValueTree, MultiOutputTarget, PredictionTree, Tree, TreeTarget, accumulate_compact, accumulate_compact_leaves,
    add_leaf_rows, add_leaf_values, apply_lanes, branch_walker, csr_arrays, csr_walker, dense_row_blocks, grow,
    prepare_data, walk_by_branch, walk_in_lanes, walks_csr,
)
from .._parallel import Parallel
from .._validation import apply_class_weight, check_fit_data, check_predict_data, check_warm_start_features
from ..tree._classes import DecisionTreeClassifier, DecisionTreeRegressor

_TREE_PARAMS = (
    "criterion", "splitter", "max_depth", "min_samples_split", "min_samples_leaf",
    "min_weight_fraction_leaf", "min_impurity_decrease", "max_features", "max_leaf_nodes", "max_bins",
)


def tree_states_and_seeds(random_state, n):
    """Each tree's ``random_state`` and the seed it grows from, derived as scikit-learn's forests derive them.

    Tree ``i`` gets the ``i``-th ``random_state.randint(2**31 - 1)`` as its
    ``random_state``, which gives its bootstrap sample
    (:func:`bootstrap_indices`), and grows from the seed that a tree
    estimator with that ``random_state`` draws in its own ``fit``
    (``RandomState(state).randint(2**31 - 1)``).  So the bootstrap samples
    are scikit-learn's for the same ``random_state``, and
    ``clone(forest.estimators_[i])`` refitted on
    ``X[forest.estimators_samples_[i]]`` draws the same features (and Extra
    Trees' thresholds) as the forest's tree.  Returns two int64 arrays.
    """
    states = random_state.randint(MAX_SEED, size=n).astype(np.int64)
    seeds = np.array([np.random.RandomState(state).randint(MAX_SEED) for state in states], dtype=np.int64)
    return states, seeds


def bootstrap_indices(seed, n_samples, n_draws):
    """The rows of a tree's bootstrap sample, in draw order, with repeats."""
    rs = np.random.RandomState(seed & 0xFFFFFFFF)
    return rs.randint(0, n_samples, n_draws)


def bootstrap_counts(seed, n_samples, n_draws):
    """How many times each row is drawn in a tree's bootstrap sample."""
    return np.bincount(bootstrap_indices(seed, n_samples, n_draws), minlength=n_samples).astype(np.float64)


def bootstrap_weights(sample_weight, seed, n_draws):
    """One tree's weights: ``sample_weight`` times its bootstrap counts; returns ``(weights, counts)``.

    A draw that holds only rows of weight 0 (most weights zero, few draws)
    would leave the tree nothing to grow on: that tree sees every row of
    positive weight instead, and ``counts`` is None.
    """
    counts = bootstrap_counts(seed, sample_weight.shape[0], n_draws)
    w = sample_weight * counts
    if not w.sum() > 0:
        return sample_weight, None
    return w, counts


def balanced_weights(yk, counts, n_classes):
    """Per-row "balanced" class weights of the sample in which row ``i`` appears ``counts[i]`` times."""
    per_class = np.bincount(yk, weights=counts, minlength=n_classes)
    present = per_class > 0
    cw = np.zeros(n_classes)
    cw[present] = counts.sum() / (present.sum() * per_class[present])
    return cw[yk]


def _n_draws(max_samples, n_samples):
    """Rows drawn per bootstrap sample, by scikit-learn's rule.

    ``None``: ``n_samples``; an int: that many (more than ``n_samples`` is
    allowed); a float: ``max(int(max_samples * n_samples), 1)`` (truncated),
    with scikit-learn's warning when that is fewer than ``max(10,
    n_samples ** (1/3))``.
    """
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, Integral):
        return int(max_samples)
    n_draws = max(int(max_samples * n_samples), 1)
    if n_draws < max(10, n_samples ** (1 / 3)):
        warnings.warn(
            f"Using the fractional value max_samples={max_samples} when the number of samples is {n_samples} "
            f"results in a low number ({n_draws}) of bootstrap samples. We recommend passing `max_samples` as "
            "an integer instead.", UserWarning)
    return n_draws


def _balanced(yk, counts, target):
    """"balanced_subsample" weights: per output (:func:`balanced_weights`), multiplied over the outputs."""
    if yk.ndim == 1:
        return balanced_weights(yk, counts, target.n_values)
    w = np.ones(yk.shape[0])
    for o, k in enumerate(target.n_classes):
        w *= balanced_weights(yk[:, o], counts, k)
    return w


#: the fewest and most row-tree walks for which :meth:`BaseForest._mean_values` shares a small sparse ``X`` out
#: by trees (at most 64 MB of leaf indices; on dense rows one thread's fused walk and sum measured faster on
#: 2 cores: 4000 x 50, 100 trees)
TREE_PARALLEL_WALKS = (20_000, 8 << 20)


def _add_leaves(tree, leaves, out):
    """Add the values of the leaves ``leaves`` (one per row) of ``tree`` to ``out``'s rows."""
    if isinstance(tree, LeafValueTree):
        add_leaf_rows(leaves, tree.leaf_values, tree.leaf_row, out)
    else:
        add_leaf_values(leaves, tree.values, out)


def _same_outputs(classes, previous, target, n_outputs):
    """Whether a warm-start fit has the outputs (and classes) of the fit it continues."""
    multi = isinstance(target, MultiOutputTarget)
    if (target.n_outputs if multi else 1) != n_outputs:
        return False
    if classes is None:
        return True
    if not multi:
        return np.array_equal(classes, previous)
    return all(np.array_equal(a, b) for a, b in zip(classes, previous))


class BaseForest(EngineEstimator):
    """Shared fit / predict of bagged forests; not for direct use."""

    _parameter_constraints = {
        **TREE_PARAMETER_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "bootstrap": ["boolean"],
        "max_samples": [None, Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, None, closed="neither")],
        "oob_score": ["boolean", callable],
        "warm_start": ["boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }
    _tree_class = None
    #: Whether fit takes a 2-D ``y`` of several outputs (trees of :mod:`forestzoo._engine.multioutput`); a
    #: family whose hooks read a 1-D target keeps False.
    _multi_output = False
    #: Whether fit and the predict-side methods take scipy sparse X: the plain forests
    #: (RandomForest*, ExtraTrees*) do; a family whose hooks need dense X keeps False.
    _sparse_X = False

    # -- fitting (``fit`` itself is EngineEstimator.fit) ----------------------
    def _fit(self, X, y, sample_weight):
        """The bagging loop; subclasses change it through the hooks below, not by copying it.

        Per forest: validation, target encoding, the tree parameters
        (:class:`~forestzoo._engine.api.TreeParams`, resolved once), class weights, the trees'
        seeds and :meth:`_prepare_fit_data`.  Per tree, on joblib threads:
        the weights (bootstrap counts, with a fallback to every weighted row
        when a draw holds only rows of weight 0; per-sample balanced class
        weights for ``class_weight="balanced_subsample"``), then
        :meth:`_grow_tree`.  Then :meth:`_wrap_tree` for every new tree.
        """
        previous_names = getattr(self, "feature_names_in_", None) if self.warm_start else None
        if issparse(y):  # scikit-learn's forests refuse a sparse y with this error
            raise ValueError("sparse multilabel-indicator for y is not supported.")
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, self._is_classifier(),
                                             accept_sparse=self._sparse_X,
                                             multi_output="warn" if self._multi_output else False)
        # scikit-learn's checks and messages, in its order
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError("`max_sample` cannot be set if `bootstrap=False`. Either switch to `bootstrap=True` "
                             "or set `max_sample=None`.")
        if not self.bootstrap and self.oob_score:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        n_samples = X.shape[0]
        multi = y.ndim == 2
        if multi:
            if self.oob_score and self._is_classifier():
                from sklearn.utils.multiclass import type_of_target

                kind = type_of_target(y)
                if kind == "multiclass-multioutput":
                    raise ValueError("The type of target cannot be used to compute OOB estimates. Got "
                                     "multiclass-multioutput while only the following are supported: continuous, "
                                     "continuous-multioutput, binary, multiclass, multilabel-indicator.")
            params = multi_output_params(self, X.shape)
            target, classes = self._encode_target_multi(y)
            yk = target.Y.astype(np.intp)  # each output's class codes (balanced_subsample)
            n_values = target.n_values
        else:
            yk, yr, n_values, classes = self._encode_target(y)
            params = tree_params(self, n_samples, X.shape[1], n_values)
            target = TreeTarget(yk, yr, n_values)
        n_draws = _n_draws(self.max_samples, n_samples) if self.bootstrap else n_samples
        class_weight = getattr(self, "class_weight", None)
        balanced_subsample = class_weight == "balanced_subsample"
        if class_weight is not None and not balanced_subsample:
            sample_weight = apply_class_weight(sample_weight, class_weight, y)

        old = list(getattr(self, "estimators_", [])) if self.warm_start else []
        if old:
            check_warm_start_features(self, old[0].n_features_in_, X, previous_names)
        if self.warm_start and old:
            if (target.n_outputs if multi else 1) != self.n_outputs_ and self.n_estimators == len(old):
                # scikit-learn's order: no new tree to grow is only a warning, whatever y is (the model is kept)
                warnings.warn("Warm-start fitting without increasing n_estimators does not fit new trees.",
                              UserWarning)
                return self
            if not _same_outputs(classes, getattr(self, "classes_", None), target, self.n_outputs_):
                raise ValueError("warm_start=True needs the same outputs and classes as the previous fit.")
        if self.n_estimators < len(old):
            raise ValueError(
                f"n_estimators={self.n_estimators} must be larger or equal to len(estimators_)={len(old)} when "
                "warm_start==True"
            )
        states, seeds = tree_states_and_seeds(check_random_state(self.random_state), self.n_estimators)
        new_trees = list(zip(states[len(old):].tolist(), seeds[len(old):].tolist()))
        if not new_trees:
            warnings.warn("Warm-start fitting without increasing n_estimators does not fit new trees.", UserWarning)

        data = self._prepare_fit_data(X, sample_weight, seeds)
        if not self.oob_score:
            del X  # the trees read `data` only: a hook that needs X keeps it there

        def fit_one(state, seed):
            """``(tree, draws)``: ``draws`` is the bootstrap size, 0 when the tree saw every row."""
            w = sample_weight
            draws = n_draws if self.bootstrap else 0
            if self.bootstrap:
                w, counts = bootstrap_weights(sample_weight, state, n_draws)
                if counts is None:
                    counts = np.ones(n_samples)
                    draws = 0
                if balanced_subsample:
                    w = w * _balanced(yk, counts, target)
            elif balanced_subsample:
                w = w * _balanced(yk, np.ones(n_samples), target)
            return self._grow_tree(data, target, w, params, seed), draws

        with self._growing_context():
            grown = Parallel(n_jobs=self.n_jobs, verbose=self.verbose, prefer="threads")(
                delayed(fit_one)(state, seed) for state, seed in new_trees
            )
        # state is assigned only now: a failed fit leaves the previous model intact
        self._seeds = seeds
        self.n_outputs_ = target.n_outputs if multi else 1
        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = list(target.n_classes) if multi else int(classes.shape[0])
        self.estimators_ = old + [self._wrap_tree(t, state, d, params) for (t, d), (state, _) in zip(grown, new_trees)]
        self._n_samples_fit = n_samples
        self._n_samples_bootstrap = n_draws if self.bootstrap else None  # scikit-learn's name for it
        if self.oob_score:
            self._set_oob(X, y)
        return self

    # -- hooks of the bagging loop ------------------------------------------
    def _prepare_fit_data(self, X, sample_weight, seeds):
        """What every tree of this fit is grown from, prepared once (``seeds``: the forest's tree seeds).

        Here the engine's :class:`TrainingData`: bins (edges on the rows of
        positive weight) or the feature-major matrix.  :meth:`_grow_tree`
        receives it unchanged.
        """
        return prepare_data(X, self.splitter, self.max_bins, seed=int(seeds[0] & 0x7FFFFFFF),
                            sample_weight=sample_weight, n_threads=effective_n_jobs(self.n_jobs))

    def _grow_tree(self, data, target, weights, params, seed):
        """One engine :class:`Tree` grown on ``data`` (from :meth:`_prepare_fit_data`) with ``weights``.

        ``target`` is the forest's :class:`TreeTarget`, ``params`` its
        :class:`~forestzoo._engine.api.TreeParams`, ``seed`` the tree's seed.  Runs on a joblib
        thread, inside :meth:`_growing_context`.
        """
        return grow(data, target, weights, params, seed)

    def _growing_context(self):
        """Context manager around the threads that grow the trees (none here)."""
        return nullcontext()

    def _wrap_tree(self, tree, random_state, n_draws, params):
        """The fitted tree as a tree estimator; ``n_draws`` is its bootstrap size, 0 when it saw every row.

        ``random_state`` is the tree's (:func:`tree_states_and_seeds`), which gives its bootstrap draws;
        only its low 32 bits are kept, the range a tree estimator's validation accepts.
        """
        est = self._tree_class(**{p: getattr(self, p) for p in _TREE_PARAMS}, **sdt_values(self),
                               random_state=int(random_state) & 0xFFFFFFFF,
                               ccp_alpha=getattr(self, "ccp_alpha", 0.0),
                               monotonic_cst=getattr(self, "monotonic_cst", None))
        est.tree_ = tree
        est.n_features_in_ = tree.n_features
        est.n_outputs_ = tree.n_outputs
        est.max_features_ = params.max_features
        est._bootstrap_draws = int(n_draws)
        if self._is_classifier():
            est.classes_ = self.classes_
            est.n_classes_ = np.array(self.n_classes_, dtype=np.intp) if tree.n_outputs > 1 else self.n_classes_
        return est

    def _keep_prediction_only(self):
        """Store every tree in the least memory that predicts the same, bit for bit.

        For forests that are only ever predicted with from now on, e.g. the fold
        forests of a cascade (forestzoo.deep).  An axis-aligned tree becomes a
        :class:`PredictionTree` (the 16-byte prediction table, a leaf code and
        the impure leaves' value rows: ~20 bytes a node instead of ~84); its
        node statistics (sample counts, impurities, float64 thresholds) are
        dropped, so feature importances are no longer available.  A tree with
        oblique nodes becomes a :class:`LeafValueTree` (internal nodes'
        ``values`` rebuilt on access).
        """
        for est in self.estimators_:
            if type(est.tree_) is Tree:
                t = est.tree_
                est.tree_ = PredictionTree(t) if t.obl_ptr.shape[0] <= 1 else LeafValueTree(t)
        return self

    # -- prediction ---------------------------------------------------------
    def _mean_values(self, X, trees=None):
        """Average over trees of the leaf values.

        Each thread takes one large block of rows and sweeps every tree over
        it, in tree order: a tree's nodes stay in cache for thousands of rows,
        and every row sums its trees in the same order whatever ``n_jobs`` is,
        so predictions are bit-identical across ``n_jobs``.  A sparse ``X`` is
        walked from its CSR arrays by axis-aligned trees; fewer sparse rows
        than two such blocks are shared out by trees instead (each thread
        finds the leaves of its trees, and the leaves' values are then added
        in tree order, the same sums).  Other trees walk a sparse ``X``
        densified a few MB of rows at a time within each thread's block
        (:func:`~forestzoo._engine.api.dense_row_blocks`).
        """
        trees = [e.tree_ for e in self.estimators_] if trees is None else trees
        n_values = trees[0].n_values
        out = np.zeros((X.shape[0], n_values), dtype=np.float64)
        n_jobs = effective_n_jobs(self.n_jobs)
        n_blocks = max(1, min(n_jobs, X.shape[0] // 4096))
        bounds = np.linspace(0, X.shape[0], n_blocks + 1).astype(np.intp)

        compact = [t.compact for t in trees]  # derived once, before the threads start
        csr = csr_arrays(X) if issparse(X) and walks_csr(trees) else None
        walkers = [csr_walker(t) for t in trees] if csr is not None else None
        # a dense X's own walk per tree, or None for the eight-row walk of accumulate_compact
        own_walk = [branch_walker(t) if not issparse(X) and walk_by_branch(t, X) else None for t in trees]
        if not issparse(X) and 2 * sum(walk_in_lanes(t) for t in trees) > len(trees):
            # most trees walk faster in refilling lanes: all axis-aligned trees do, so one walk is compiled
            own_walk = [apply_lanes if w is None and t.obl_ptr.shape[0] <= 1 else w for t, w in zip(trees, own_walk)]

        walks = X.shape[0] * len(trees)  # the leaves of every row in every tree, kept when shared out by trees
        lo, hi = TREE_PARALLEL_WALKS
        if csr is not None and n_blocks == 1 and n_jobs > 1 and lo <= walks <= hi:
            leaves = np.empty((len(trees), X.shape[0]), dtype=np.intp)

            def walk(first, stop):
                buf = np.zeros((8, X.shape[1]), dtype=np.float32)
                for j in range(first, stop):
                    walkers[j](*csr, compact[j], buf, leaves[j])

            cuts = np.linspace(0, len(trees), min(n_jobs, len(trees)) + 1).astype(np.intp)
            Parallel(n_jobs=len(cuts) - 1, require="sharedmem")(
                delayed(walk)(a, b) for a, b in zip(cuts[:-1], cuts[1:]))
            for t, leaf in zip(trees, leaves):
                _add_leaves(t, leaf, out)
            out /= len(trees)
            return out

        def run(start, stop):
            if csr is not None:  # sparse rows walked from the CSR arrays, eight at a time
                block = out[start:stop]
                leaves = np.empty(stop - start, dtype=np.intp)
                buf = np.zeros((8, X.shape[1]), dtype=np.float32)
                for t, c, walker in zip(trees, compact, walkers):
                    walker(csr[0][start:stop + 1], csr[1], csr[2], c, buf, leaves)
                    _add_leaves(t, leaves, block)
                return
            for a, b, rows in dense_row_blocks(X, start, stop):  # one block, X[start:stop], for a dense X
                block = out[a:b]  # a view: each thread writes its own rows
                leaves = np.empty(b - a, dtype=np.intp)
                for t, c, own in zip(trees, compact, own_walk):
                    if own is not None:  # by branches (wide rows beyond the cache) or in refilling lanes
                        own(rows, c, leaves)
                        _add_leaves(t, leaves, block)
                    elif isinstance(t, LeafValueTree):
                        accumulate_compact_leaves(rows, c, t.walk_nodes, t.leaf_values, t.leaf_row, t.obl_ptr,
                                                  t.obl_feature, t.obl_weight, leaves, block)
                    else:
                        accumulate_compact(rows, c, t.walk_nodes, t.values, t.obl_ptr, t.obl_feature, t.obl_weight,
                                           leaves, block)

        Parallel(n_jobs=n_blocks, require="sharedmem")(
            delayed(run)(a, b) for a, b in zip(bounds[:-1], bounds[1:])
        )
        out /= len(trees)
        return out

    def apply(self, X):
        """Leaf index of every sample in every tree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples, n_estimators)
            Column ``j`` holds the leaf each sample reaches in tree ``j``.
        """
        X = check_predict_data(self, X, accept_sparse=self._sparse_X)
        out = np.empty((X.shape[0], len(self.estimators_)), dtype=np.intp)
        if issparse(X) and walks_csr([e.tree_ for e in self.estimators_]):
            csr = csr_arrays(X)

            def walk(j, t):
                col = np.empty(X.shape[0], dtype=np.intp)
                csr_walker(t)(*csr, t.compact, np.zeros((8, X.shape[1]), dtype=np.float32), col)
                out[:, j] = col

            Parallel(n_jobs=self.n_jobs, require="sharedmem")(
                delayed(walk)(j, e.tree_) for j, e in enumerate(self.estimators_))
            return out

        def run(j, t, rows, a, b):
            out[a:b, j] = t.apply(rows)  # a dense block: the tree picks its walk (Tree.apply)

        for a, b, rows in dense_row_blocks(X):  # one block, X itself, for a dense X
            Parallel(n_jobs=self.n_jobs, require="sharedmem")(
                delayed(run)(j, e.tree_, rows, a, b) for j, e in enumerate(self.estimators_)
            )
        return out

    def decision_path(self, X):
        """Node indicator of all trees side by side, and the column offsets of each tree.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Nonzero where a sample passes through a node; ``n_nodes`` is the
            total number of nodes of all trees.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
            Tree ``i`` owns columns ``n_nodes_ptr[i]:n_nodes_ptr[i + 1]``.
        """
        from scipy.sparse import hstack, vstack

        X = check_predict_data(self, X, accept_sparse=self._sparse_X)
        blocks = []
        for _, _, rows in dense_row_blocks(X):  # one block, X itself, for a dense X
            paths = [e.tree_.decision_path(rows) for e in self.estimators_]
            blocks.append(hstack(paths).tocsr())
        n_nodes_ptr = np.zeros(len(paths) + 1, dtype=np.int64)
        np.cumsum([p.shape[1] for p in paths], out=n_nodes_ptr[1:])
        return (blocks[0] if len(blocks) == 1 else vstack(blocks, format="csr")), n_nodes_ptr

    @property
    def feature_importances_(self):
        """Mean decrease in impurity averaged over trees, normalised to sum to one."""
        check_is_fitted(self)
        trees = [e.tree_ for e in self.estimators_ if e.tree_.node_count > 1]
        if not trees:
            return np.zeros(self.n_features_in_)
        mean = importance_sum(trees, self.n_features_in_) / len(trees)
        return mean / mean.sum()

    # -- the trees as a sequence, as scikit-learn's ensembles give them ----------
    def __len__(self):
        """The number of fitted trees."""
        return len(self.estimators_)

    def __getitem__(self, index):
        """The fitted tree(s) at ``index`` (an int or a slice) of ``estimators_``."""
        return self.estimators_[index]

    def __iter__(self):
        """The fitted trees, in order."""
        return iter(self.estimators_)

    @property
    def estimator(self):
        """An unfitted tree of the forest's class (scikit-learn's base estimator of the ensemble)."""
        return self._tree_class()

    @property
    def estimator_(self):
        """The template of the forest's trees: an unfitted tree with the forest's tree parameters."""
        check_is_fitted(self)
        return self._tree_class(**{p: getattr(self, p) for p in _TREE_PARAMS}, **sdt_values(self),
                                ccp_alpha=getattr(self, "ccp_alpha", 0.0),
                                monotonic_cst=getattr(self, "monotonic_cst", None))

    # -- out-of-bag ---------------------------------------------------------
    @property
    def estimators_samples_(self):
        """The training rows of each tree, as scikit-learn's forests give them.

        A list with one integer array per tree: its bootstrap sample in draw
        order, repeats included, or every row (``np.arange(n_samples)``)
        when ``bootstrap=False`` or when the tree was grown on every row
        because its draw held only rows of weight 0.  Computed from the
        trees' ``random_state`` on each access, not stored.

        As in scikit-learn, these are the rows scikit-learn's forest of the
        same class draws for the same ``random_state``, and a tree refitted on
        them (``clone(forest.estimators_[i]).fit(X[rows], y[rows])``) is the
        forest's tree: the tree's ``random_state`` gives both its bootstrap
        draws and the seed it grows from (:func:`tree_states_and_seeds`).
        With ``splitter="hist"`` the refit bins the rows anew, so it equals
        the forest's tree where each feature has at most ``max_bins``
        distinct values.
        """
        check_is_fitted(self)
        n = self._n_samples_fit
        dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64  # int32, as scikit-learn's
        return [
            (bootstrap_indices(est.random_state, n, est._bootstrap_draws) if est._bootstrap_draws
             else np.arange(n)).astype(dtype, copy=False)
            for est in self.estimators_
        ]

    def _oob_mean_values(self, X):
        if issparse(X):
            X = X.tocsr()  # each tree reads its out-of-bag rows X[rows]; its predict walks them in dense blocks
        n_samples = X.shape[0]
        n_values = self.estimators_[0].tree_.values.shape[1]
        sums = np.zeros((n_samples, n_values))
        n_pred = np.zeros(n_samples)
        for est in self.estimators_:
            if not est._bootstrap_draws:
                continue  # grown on every row: no out-of-bag row
            rows = np.flatnonzero(bootstrap_counts(est.random_state, n_samples, est._bootstrap_draws) == 0)
            if rows.size:
                sums[rows] += est.tree_.predict(X[rows])
                n_pred[rows] += 1
        seen = n_pred > 0
        if not seen.all():
            warnings.warn(
                "Some inputs do not have OOB scores: too few trees were fitted for every sample to be "
                "out of bag at least once; their OOB estimate is NaN.", UserWarning,
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / n_pred[:, None], seen

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = self._sparse_X
        tags.target_tags.multi_output = self._multi_output
        return tags


class ForestClassifier(ClassifierMixin, BaseForest):
    """Bagged classification forest; see :class:`RandomForestClassifier`."""

    _parameter_constraints = {
        **BaseForest._parameter_constraints,
        "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
        "class_weight": [dict, list, StrOptions({"balanced", "balanced_subsample"}), None],
    }
    _tree_class = DecisionTreeClassifier

    def predict_proba(self, X):
        """Mean over trees of the leaf class proportions (Breiman 2001, soft voting).

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
        proba = self._mean_values(check_predict_data(self, X, accept_sparse=self._sparse_X))
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
        """Class with the highest mean probability.

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

    def _set_oob(self, X, y):
        from sklearn.metrics import accuracy_score  # deferred: keeps `import forestzoo` fast

        proba, seen = self._oob_mean_values(X)
        if self.n_outputs_ > 1:
            # scikit-learn's layout (n_samples, n_classes, n_outputs) and its score on the class codes
            n_out = self.n_outputs_
            proba = proba.reshape(proba.shape[0], n_out, -1).transpose(0, 2, 1)
            codes = np.column_stack([np.searchsorted(c, y[:, o]) for o, c in enumerate(self.classes_)])
            self.oob_decision_function_ = proba
            score = self.oob_score if callable(self.oob_score) else accuracy_score
            self.oob_score_ = score(codes[seen], np.argmax(proba[seen], axis=1)) if seen.any() else np.nan
            return
        self.oob_decision_function_ = proba
        score = self.oob_score if callable(self.oob_score) else accuracy_score
        self.oob_score_ = score(y[seen], self.classes_[np.argmax(proba[seen], axis=1)]) if seen.any() else np.nan


class ForestRegressor(RegressorMixin, BaseForest):
    """Bagged regression forest; see :class:`RandomForestRegressor`."""

    _parameter_constraints = {
        **BaseForest._parameter_constraints,
        "criterion": [StrOptions(REGRESSION_CRITERIA)],
    }
    _tree_class = DecisionTreeRegressor

    def predict(self, X):
        """Mean over trees of the leaf means.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples; NaN is a missing value.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            The predicted values.
        """
        values = self._mean_values(check_predict_data(self, X, accept_sparse=self._sparse_X))
        return values if self.n_outputs_ > 1 else values[:, 0]

    def _set_oob(self, X, y):
        from sklearn.metrics import r2_score  # deferred: keeps `import forestzoo` fast

        pred, seen = self._oob_mean_values(X)
        self.oob_prediction_ = pred if self.n_outputs_ > 1 else pred[:, 0]
        score = self.oob_score if callable(self.oob_score) else r2_score
        self.oob_score_ = score(y[seen], self.oob_prediction_[seen]) if seen.any() else np.nan
