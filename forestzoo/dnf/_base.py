"""What DNDT and DNRF share: z-scoring, the validation split, fine-tuning, scoring.

The fit pipeline (Seyedhosseini & Tasdizen 2015, Algorithms 1 and 2):

1. z-score ``X`` with the training mean and standard deviation (Sec. 4);
2. hold out ``validation_fraction`` of the rows, stratified by class;
3. grow the initial tree(s) with forestzoo's engine (subclass hook
   :meth:`_initial_trees`), on the remaining rows;
4. rewrite every tree as one disjunctive normal function per class
   (:func:`~forestzoo.dnf._convert.tree_to_dnf`; binary: one function over
   the positive leaves, Eq. 5) and fine-tune each by gradient descent on
   the squared error, Eqs. (7)-(8), keeping the epoch, initial slope and
   step size with the lowest validation loss.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from joblib import delayed, effective_n_jobs
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._base import EngineEstimator
from .._engine.api import draw_seeds, make_state
from .._parallel import Parallel, single_threaded_blas
from .._validation import check_fit_data, check_predict_data
from ._convert import standardized_thresholds, tree_to_dnf
from .._atomics import store
from .._threads import n_cores, start_helper
from ._kernels import STOP, SYNC_SIZE, batch_helper, block_rows, evaluate, train_dnf, train_scratch

DNF_PARAMETER_CONSTRAINTS = {
    "n_epochs": [Interval(Integral, 1, None, closed="left")],
    "learning_rate": [Interval(Real, 0.0, None, closed="neither"), "array-like"],
    "momentum": [Interval(Real, 0.0, 1.0, closed="left")],
    "batch_size": [Interval(Integral, 1, None, closed="left"), None],
    "init_slope": [Interval(Real, 0.0, None, closed="neither"), "array-like"],
    "validation_fraction": [Interval(Real, 0.0, 1.0, closed="left")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
    "standardize": ["boolean"],
    "random_state": ["random_state"],
}


def positive_grid(name, value):
    """A float or a list of floats as a float64 array; every one must be positive and finite."""
    grid = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"{name} must be a positive float or a non-empty list of positive floats; got {value!r}.")
    return grid


def validation_split(yk, n_classes, fraction, rng):
    """Stratified ``(train, validation)`` row indices.

    Each class gives ``round(fraction * n_c)`` rows to validation but always
    keeps at least one row for training, so every class reaches the trees
    (a class too rare to be split stays entirely in training).
    """
    if fraction <= 0:
        return np.arange(yk.shape[0]), np.zeros(0, dtype=np.intp)
    val = []
    for c in range(n_classes):
        rows = np.flatnonzero(yk == c)
        n_val = min(int(round(fraction * rows.size)), rows.size - 1)
        if n_val > 0:
            val.append(rng.permutation(rows)[:n_val])
    val = np.sort(np.concatenate(val)) if val else np.zeros(0, dtype=np.intp)
    train = np.setdiff1d(np.arange(yk.shape[0]), val)
    return train, val


def reject_nan(estimator, X):
    if np.isnan(X).any():
        raise ValueError(
            f"Input X contains NaN. {type(estimator).__name__} has no missing-value path (a disjunctive normal "
            "form needs every feature of every split); impute first, e.g. with sklearn.impute.SimpleImputer."
        )


def augment(Xs):
    """``[X, 1]`` in float64: the ``Phi(x)`` of Eq. (1)."""
    Xa = np.empty((Xs.shape[0], Xs.shape[1] + 1), dtype=np.float64)
    Xa[:, :-1] = Xs
    Xa[:, -1] = 1.0
    return Xa


def finetune(dnf, Xa, yk, sw, val_sw, train_rows, val_rows, grid, momentum, batch_size, n_epochs, n_iter_no_change,
             seed, n_threads=1):
    """Gradient descent on every function of ``dnf`` (converted with slope 1); returns ``(dnf, info)``.

    ``grid`` lists ``(init_slope, learning_rate)`` pairs.  With validation
    rows, every function keeps the (pair, epoch) of lowest validation loss,
    epoch 0 being the converted tree itself; without, the last iterate of
    the first pair.  ``n_threads`` threads share every mini-batch (the result
    does not depend on it).
    """
    n_funcs = dnf.n_funcs
    best = dnf.copy()
    best.weights *= grid[0][0]
    info = {"epochs": 0, "best_epoch": np.zeros(n_funcs, np.int64), "init_slope": np.full(n_funcs, grid[0][0]),
            "learning_rate": np.full(n_funcs, grid[0][1]), "loss_curve": np.zeros(0),
            "validation_loss": np.full(n_funcs, np.nan), "stopped_at_cap": False}
    if dnf.n_units == 0 or train_rows.size == 0:
        return best, info
    have_val = val_rows.size > 0
    best_loss = np.full(n_funcs, np.inf)
    batch = train_rows.size if batch_size is None else int(batch_size)
    patience = n_epochs + 1 if n_iter_no_change is None or not have_val else int(n_iter_no_change)
    targets = yk.astype(np.int64)
    for r, (slope, rate) in enumerate(grid):
        trial = dnf.copy()
        trial.weights *= slope
        out_w = np.empty_like(trial.weights)
        out_loss = np.zeros(n_funcs)
        out_epoch = np.zeros(n_funcs, np.int64)
        curve = np.zeros(n_epochs)
        scratch = train_scratch(train_rows.size, trial.weights, n_funcs)
        chunk = block_rows(trial.n_units)
        sync = np.zeros(SYNC_SIZE if n_threads > 1 else 0, np.int64)
        # a second thread takes half of every mini-batch, handed over through `sync` (see batch_helper)
        helper = start_helper(batch_helper, sync, Xa, targets, sw, scratch[0], trial.weights, *trial.structure(),
                              chunk, *scratch[1:]) if n_threads > 1 else None
        try:
            ran = train_dnf(
                Xa, targets, sw, val_sw, train_rows, val_rows, trial.weights, *trial.structure(), float(rate),
                float(momentum), batch, int(n_epochs), patience, make_state(seed + r), chunk,
                out_w, out_loss, out_epoch, curve, sync, *scratch,
            )
        finally:
            if helper is not None:
                store(sync, STOP, 1)  # also when it has not started yet
                if not helper.cancel():  # it started: it returns as soon as it sees the stop
                    helper.result()
        improved = np.ones(n_funcs, bool) if r == 0 else out_loss < best_loss
        for j in np.flatnonzero(improved):
            rows = slice(dnf.unit_ptr[j], dnf.unit_ptr[j + 1])
            best.weights[rows] = out_w[rows]
            best_loss[j] = out_loss[j]
            info["best_epoch"][j] = out_epoch[j]
            info["init_slope"][j] = slope
            info["learning_rate"][j] = rate
            info["validation_loss"][j] = out_loss[j] if have_val else np.nan
        # early stopping ends a run only once every function's best epoch is `patience` epochs old;
        # a run that reached n_epochs with a younger best epoch was cut off before that
        if have_val and n_iter_no_change is not None and ran == n_epochs and out_epoch.max() > n_epochs - patience:
            info["stopped_at_cap"] = True
        if r == 0:
            info["loss_curve"] = curve[:ran]
        info["epochs"] += ran
        if not have_val:
            break
    return best, info


def bootstrap_rows(train, counts, sample_weight):
    """A tree's fine-tuning rows and weights from its bootstrap ``counts`` of the rows ``train`` (aligned with it).

    The rows of ``train`` drawn at least once, and per-row weights: the
    sample weight times the count on ``train``, zero elsewhere.
    """
    weights = np.zeros_like(sample_weight)
    weights[train] = sample_weight[train] * counts
    return train[counts > 0], weights


def given_samples(forest, n_samples):
    """The bootstrap rows of every tree of a fitted bagging forest given as ``init_forest``.

    ``forest.estimators_samples_`` (scikit-learn's forests and forestzoo's
    give it) indexes the rows the forest was fitted on, which must be the
    rows of the ``X`` now given (``n_samples`` of them, in the same order).

    Raises
    ------
    ValueError
        When the forest gives no samples (a single tree, a boosted model),
        or was fitted on another number of rows.
    """
    try:
        samples = forest.estimators_samples_
    except AttributeError:
        samples = None
    if samples is None:
        raise ValueError(f'finetune_samples="tree" with init_forest needs a bagging forest that gives the rows '
                         f"of each tree (estimators_samples_); {type(forest).__name__} does not.")
    # the fitted row count: scikit-learn's forests keep it as _n_samples, forestzoo's as _n_samples_fit
    fitted_rows = getattr(forest, "_n_samples", getattr(forest, "_n_samples_fit", None))
    largest = max((int(np.max(s)) for s in samples if len(s)), default=-1)
    if (fitted_rows is not None and fitted_rows != n_samples) or largest >= n_samples:
        seen = "more" if fitted_rows is None else fitted_rows
        raise ValueError(f'finetune_samples="tree" with init_forest needs the X the forest was fitted on: X has '
                         f"{n_samples} rows, the forest was fitted on {seen}.")
    return [np.asarray(s, dtype=np.intp) for s in samples]


class BaseDNF(ClassifierMixin, EngineEstimator):
    """Common fit / predict of DNDT and DNRF; not for direct use."""

    _parameter_constraints = dict(DNF_PARAMETER_CONSTRAINTS)

    # -- fitting (``fit`` is EngineEstimator.fit: validated, transactional) --
    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=True)
        reject_nan(self, X)
        grid = [(float(a), float(b)) for a in positive_grid("init_slope", self.init_slope)
                for b in positive_grid("learning_rate", self.learning_rate)]
        classes, yk = np.unique(y, return_inverse=True)
        n_classes = classes.shape[0]
        rng = check_random_state(self.random_state)
        if self.standardize:
            # weighted moments: a weight of k is the row repeated k times
            mean = np.average(X, axis=0, weights=sample_weight).astype(np.float64)
            scale = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=sample_weight))
            scale[~(scale > 0)] = 1.0
        else:
            mean, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
        train, val = validation_split(yk, n_classes, self.validation_fraction, rng)
        seeds = draw_seeds(rng, 2)
        given = getattr(self, "_init_forest", None)
        if given is None:
            # the trees and the DNFs read the same float32 values, so the conversion is exact
            Xs = ((X - mean) / scale).astype(np.float32)
            trees = self._initial_trees(Xs, yk, sample_weight, train, int(seeds[0] & 0x7FFFFFFF))
        else:
            # the given trees read float32 X; the DNFs read its z-scores in float64, and every threshold is
            # moved to z exactly (standardized_thresholds), so the conversion is exact here too
            Xs = (X.astype(np.float32).astype(np.float64) - mean) / scale
            trees = self._given_trees(given, classes, X.shape[1], mean, scale, train, sample_weight, X.shape[0])
        Xa = augment(Xs)
        funcs = [1] if n_classes == 2 else list(range(n_classes))
        ft_seeds = draw_seeds(np.random.RandomState(int(seeds[1] & 0x7FFFFFFF)), len(trees))

        n_jobs = getattr(self, "n_jobs", None)
        # one tree (DNDT): its mini-batches are shared by n_jobs threads; several (DNRF): trees run side by side.
        # The DNDT helper thread spins between batches, so it needs a core of its own.
        n_threads = min(effective_n_jobs(n_jobs), n_cores()) if len(trees) == 1 else 1

        def one(tree, rows, weights, seed):
            leaf_class = np.argmax(tree.values, axis=1)
            # a given tree's thresholds are already on the z scale (and exact for float64 inputs)
            exact = None if given is None else tree.nodes["threshold"]
            dnf = tree_to_dnf(tree.nodes, leaf_class, X.shape[1], funcs, slope=1.0, thresholds=exact)
            return finetune(dnf, Xa, yk, weights, sample_weight, rows, val, grid, self.momentum, self.batch_size,
                            self.n_epochs, self.n_iter_no_change, int(seed), n_threads)

        # parallelism is over trees; BLAS inside the kernels stays on one thread
        with single_threaded_blas():
            done = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(one)(t, rows, w, s) for (t, rows, w), s in zip(trees, ft_seeds)
            )
        self.classes_ = classes
        self.n_classes_ = int(n_classes)
        self.mean_ = mean
        self.scale_ = scale
        self.input_dtype_ = np.dtype(np.float32 if given is None else np.float64)
        self.dnfs_ = [d for d, _ in done]
        self.finetune_info_ = [info for _, info in done]
        capped = sum(info["stopped_at_cap"] for info in self.finetune_info_)
        if capped:
            warnings.warn(
                f"{capped} of {len(done)} trees stopped at n_epochs={self.n_epochs} while the validation loss of "
                f"some of their functions was still improving (best epoch within the last n_iter_no_change="
                f"{self.n_iter_no_change}); increase n_epochs to train them to convergence "
                f"(finetune_info_ has each function's best epoch).", ConvergenceWarning)
        self._after_fit(Xa, yk, val, trees)
        return self

    def _initial_trees(self, Xs, yk, sample_weight, train, seed):
        """``[(Tree, fine-tuning rows, per-row weights)]`` grown on ``train``; set by subclasses."""
        raise TypeError(f"{type(self).__name__} does not say how its initial trees are grown.")

    def _given_trees(self, forest, classes, n_features, mean, scale, train, sample_weight, n_samples):
        """``[(Tree, fine-tuning rows, per-row weights)]`` from an already fitted forest (see ``init_forest``).

        Every tree is copied with its thresholds moved to the z scale
        (:func:`~forestzoo.dnf._convert.standardized_thresholds`) and its
        value columns laid out as the classes of ``y``.  Every tree is
        fine-tuned on the training rows, or, with ``finetune_samples="tree"``,
        on the training rows of its bootstrap sample (the forest's
        ``estimators_samples_``, which index the ``n_samples`` rows of ``X``)
        weighted by their multiplicity.
        """
        from ..interop import given_forest
        from .._engine.api import Tree

        drawn = None
        if getattr(self, "finetune_samples", "all") == "tree":
            drawn = given_samples(forest, n_samples)
        self.forest_, trees = given_forest(forest, n_features, classes, type(self).__name__)
        out = []
        for j, t in enumerate(trees):
            nodes = t.nodes.copy()
            nodes["threshold"] = standardized_thresholds(nodes["threshold"], nodes["feature"], mean, scale)
            rows, weights = train, sample_weight
            if drawn is not None:
                counts = np.bincount(drawn[j], minlength=n_samples).astype(np.float64)
                rows, weights = bootstrap_rows(train, counts[train], sample_weight)
            out.append((Tree(nodes, t.values, n_features), rows, weights))
        return out

    def _after_fit(self, Xa, yk, val, trees):
        """Hook run once the DNFs are trained (DNRF chooses the number of trees here)."""

    # -- prediction ---------------------------------------------------------
    def _augmented(self, X):
        X = check_predict_data(self, X)
        reject_nan(self, X)
        dtype = getattr(self, "input_dtype_", np.float32)
        return augment(((X.astype(dtype) - self.mean_) / self.scale_).astype(dtype))

    def _tree_scores(self, Xa, dnf):
        """Class scores of one tree, shape (n_samples, n_classes): ``h~^c``, Eqs. (5) and (12)."""
        h = evaluate(dnf, Xa)
        if self.n_classes_ == 2:
            return np.column_stack((1.0 - h[:, 0], h[:, 0]))
        return h

    def _tree_votes(self, Xa, dnfs, soft):
        """Sum over trees of the per-tree votes (Eq. 9 / 13) or of the normalised scores (``soft``)."""
        n_jobs = getattr(self, "n_jobs", None)
        n_blocks = max(1, min(effective_n_jobs(n_jobs), Xa.shape[0] // 1024))
        bounds = np.linspace(0, Xa.shape[0], n_blocks + 1).astype(np.intp)
        out = np.zeros((Xa.shape[0], self.n_classes_))

        def run(a, b):
            for dnf in dnfs:  # trees in order: the sum is the same for any n_jobs
                s = self._tree_scores(Xa[a:b], dnf)
                if soft:
                    total = s.sum(axis=1, keepdims=True)
                    out[a:b] += np.divide(s, total, out=np.full_like(s, 1.0 / s.shape[1]), where=total > 0)
                else:
                    # Eq. (9): h~ > 0.5 votes positive; Eq. (13): argmax_c h~^c (ties: lower class)
                    out[np.arange(a, b), np.argmax(s, axis=1)] += 1.0

        with single_threaded_blas():
            Parallel(n_jobs=n_blocks, require="sharedmem")(
                delayed(run)(a, b) for a, b in zip(bounds[:-1], bounds[1:])
            )
        return out

    def decision_scores(self, X):
        """Class scores ``h~^c(x)`` of every tree.

        Binary problems have one function per tree (Eq. 5); its score ``h~``
        is the positive column and ``1 - h~`` the negative one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_trees, n_samples, n_classes)
            The class scores of every tree.
        """
        check_is_fitted(self)
        Xa = self._augmented(X)
        return np.stack([self._tree_scores(Xa, d) for d in self.dnfs_])

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` for zero probabilities).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class in :attr:`classes_` order.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Class with the highest :meth:`predict_proba`: Eq. (9) / (13) under hard voting.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
