"""Denoising random forests (Hibino et al. 2017): regressor and classifier."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import MAX_SEED, EngineEstimator, forest_importances
from .._parallel import single_threaded_blas
from .._validation import check_fit_data, check_predict_data
from ._noise import NOISE_KINDS, corrupt
from ._paths import TreeLayout, block_argmax, encode, multipath_values, suspected_nodes, unit_indices
from ._selection import mean_cross_entropy, select_trees


class DenoisingConvergenceWarning(ConvergenceWarning):
    """A denoising autoencoder did not converge; its depth falls back to the single path."""


class BaseDenoisingForest(EngineEstimator):
    """Shared fit / predict of the denoising forests; not for direct use."""

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "selection": [Interval(Real, 0.0, 1.0, closed="right")],
        "selection_holdout": [Interval(Real, 0.0, 1.0, closed="left")],
        "noise": [StrOptions(set(NOISE_KINDS))],
        "noise_fraction": [Interval(Real, 0.0, 1.0, closed="both"), tuple],
        "noise_scale": [Interval(Real, 0.0, None, closed="neither")],
        "n_noisy_copies": [Interval(Integral, 1, None, closed="left")],
        "per_depth": ["boolean"],
        "path_distance": [StrOptions({"nodes", "edges"})],
        "dae_max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_dae_samples": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }
    _fast_check_params = {"n_estimators": 8, "max_depth": 3, "n_noisy_copies": 1, "per_depth": False,
                          "dae_max_iter": 100, "max_dae_samples": 200}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": (
            "the trees are bootstrapped (a draw over weighted rows is not the draw over repeated rows, as "
            "for RandomForest*), and the autoencoders learn from unweighted noisy copies"
        ),
    }

    def __init__(self, n_estimators, *, max_depth, max_features, selection, selection_holdout, noise,
                 noise_fraction, noise_scale, n_noisy_copies, per_depth, path_distance, dae_max_iter, max_dae_samples, n_jobs,
                 random_state):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.selection = selection
        self.selection_holdout = selection_holdout
        self.noise = noise
        self.noise_fraction = noise_fraction
        self.noise_scale = noise_scale
        self.n_noisy_copies = n_noisy_copies
        self.per_depth = per_depth
        self.path_distance = path_distance
        self.dae_max_iter = dae_max_iter
        self.max_dae_samples = max_dae_samples
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fitting -----------------------------------------------------------
    def _noise_range(self):
        frac = self.noise_fraction
        if isinstance(frac, tuple):
            if len(frac) != 2 or not all(isinstance(f, Real) and 0.0 <= f <= 1.0 for f in frac) or frac[0] > frac[1]:
                raise ValueError(
                    f"noise_fraction={frac!r}: a tuple must be (low, high) with 0 <= low <= high <= 1."
                )
            return float(frac[0]), float(frac[1])
        return float(frac), float(frac)

    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, self._is_classifier())
        low, high = self._noise_range()
        yk, yr, n_values, classes = self._encode_target(y)
        rng = check_random_state(self.random_state)
        n = X.shape[0]

        # 1. the forest, on all rows but those held out for tree selection
        grow_rows = np.arange(n)
        held = np.zeros(0, dtype=np.intp)
        if self.selection < 1.0 and self.selection_holdout > 0 and n >= 4:
            perm = rng.permutation(n)
            n_held = min(n - 2, max(2, int(round(self.selection_holdout * n))))
            held, grow_rows = np.sort(perm[:n_held]), np.sort(perm[n_held:])
        forest_seed = rng.randint(MAX_SEED)  # drawn with or without a given forest: the later draws stay the same
        given = getattr(self, "_init_forest", None)
        if given is None:
            forest = self._make_forest(forest_seed)
            forest.fit(X[grow_rows], y[grow_rows], sample_weight[grow_rows])
            trees = [e.tree_ for e in forest.estimators_]
        else:
            from ..interop import given_forest

            forest, trees = given_forest(given, X.shape[1], classes, type(self).__name__)

        # 2. keep the mutually correlated (low mean cross entropy) trees, Section 3.1-3.2
        depths_all = range(1, self.max_depth + 1)
        layouts = [TreeLayout(t, depths_all, self.path_distance) for t in trees]
        S = X[held] if held.size else X
        leaf_depth = self.max_depth
        leaves = unit_indices(layouts, [lay.paths(S) for lay in layouts], leaf_depth)
        scores = mean_cross_entropy(leaves, [lay.units[leaf_depth].shape[0] for lay in layouts])
        keep = select_trees(scores, self.selection) if self.selection < 1.0 else np.arange(len(trees))
        layouts = [layouts[j] for j in keep]

        # 3. denoising autoencoders on indicator vectors: noisy rows in, clean paths out
        mean = np.nanmean(X.astype(np.float64), axis=0)
        std = np.nanstd(X.astype(np.float64), axis=0)
        dae_depths = list(range(self.max_depth, 0, -1)) if self.per_depth else [self.max_depth]
        autoencoders = self._fit_autoencoders(X, layouts, dae_depths, low, high, mean, std, rng)

        if classes is not None:
            self.classes_ = classes
            self.n_classes_ = int(classes.shape[0])
        self.n_outputs_ = 1
        self.forest_ = forest
        self.cross_entropy_ = scores
        self.selected_trees_ = keep
        self.layouts_ = layouts
        self.autoencoders_ = autoencoders
        self.feature_mean_ = mean
        self.feature_std_ = std
        return self

    def fit(self, X, y, sample_weight=None, init_forest=None):
        """Grow the forest (or take ``init_forest``), select its trees and train the denoising autoencoders.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training samples; NaN marks a missing value.
        y : array-like of shape (n_samples,)
            The targets (regressor) or class labels (classifier).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the forest grown here (the autoencoders learn from
            unweighted noisy copies).
        init_forest : fitted estimator, default=None
            An already fitted axis-aligned tree or forest of the same task
            to use instead of growing one: forestzoo's or scikit-learn's
            ``DecisionTree*``, ``RandomForest*`` or ``ExtraTrees*`` (and
            scikit-learn's ``ExtraTree*``), fitted on the features of ``X``.
            Its trees are used whole, however deep: tree selection,
            the autoencoders and the multi-path prediction with the ``2**-k``
            weights then run on them as on the trees grown here, with
            ``max_depth`` the depth at which the trees' paths are read by the
            autoencoders (depth-``k`` units: the nodes of depth ``k`` and the
            shallower leaves), not a limit on the trees.  ``n_estimators``
            and ``max_features`` are not used.  A classifier's classes must be
            among those of ``y``.  Kept as ``forest_`` (a scikit-learn model
            converted with :func:`forestzoo.interop.from_sklearn`).  Prediction
            sums over every node of a tree per row (memory ``n_samples x
            n_nodes`` floats per tree), so very large trees are best predicted in
            row blocks.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        from ..interop import fit_with_forest

        return fit_with_forest(self, super().fit, init_forest, X, y, sample_weight)

    def _fit_autoencoders(self, X, layouts, depths, low, high, mean, std, rng):
        from sklearn.neural_network import MLPRegressor

        n = X.shape[0]
        rows = np.tile(np.arange(n), self.n_noisy_copies)
        if rows.shape[0] > self.max_dae_samples:
            rows = rng.choice(rows, self.max_dae_samples, replace=False)
        fractions = rng.uniform(low, high, rows.shape[0]) if high > low else np.full(rows.shape[0], low)
        X_noisy, _ = corrupt(X[rows], fractions, self.noise, mean, self.noise_scale * std, rng)
        X_noisy = X_noisy.astype(np.float32)
        clean_paths = [lay.paths(X[rows]) for lay in layouts]
        noisy_paths = [lay.paths(X_noisy) for lay in layouts]
        autoencoders = {}
        for k in depths:
            Z_in = encode(layouts, unit_indices(layouts, noisy_paths, k), k, encoded=True)
            Z_out = encode(layouts, unit_indices(layouts, clean_paths, k), k, encoded=False)
            # Section 3.3: one bottleneck layer of half the width of the indicator vector
            dae = MLPRegressor(hidden_layer_sizes=(max(1, Z_in.shape[1] // 2),), max_iter=self.dae_max_iter,
                               random_state=rng.randint(MAX_SEED))
            # small matrices: BLAS threads only contend (measured 11x slower with 2 threads here)
            with warnings.catch_warnings(record=True) as caught, single_threaded_blas():
                warnings.simplefilter("always", ConvergenceWarning)
                dae.fit(Z_in, Z_out)
            failed = any(issubclass(w.category, ConvergenceWarning) for w in caught)
            if failed or not np.isfinite(dae.loss_):
                warnings.warn(
                    f"The denoising autoencoder of depth {k} did not converge in dae_max_iter="
                    f"{self.dae_max_iter} epochs; decisions at that depth are not refined (single-path "
                    "prediction for them). Increase dae_max_iter.", DenoisingConvergenceWarning,
                )
                dae = None
            autoencoders[k] = dae
        return autoencoders

    # -- prediction --------------------------------------------------------
    def _paths(self, X):
        return [lay.paths(X) for lay in self.layouts_]

    def _refined_units(self, X, paths, k):
        """Units of depth ``k`` after the autoencoder's refinement, (n, n_trees); None without one."""
        dae = self.autoencoders_.get(k)
        if dae is None:
            return None
        Z = encode(self.layouts_, unit_indices(self.layouts_, paths, k), k, encoded=True)
        with single_threaded_blas():
            Z = dae.predict(Z)
        return block_argmax(Z, self.layouts_, k)

    def suspected_nodes(self, X):
        """Find the nodes whose decision differs between each row's own and its refined paths.

        The refinement runs from the leaf depth up to depth 1 (Section 3.3),
        one autoencoder per depth when ``per_depth=True``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        list of ndarray of bool
            One ``(n_samples, n_nodes)`` array per selected tree, True at the
            suspected nodes of each row.
        """
        X = check_predict_data(self, X)
        return self._suspected(X, self._paths(X))

    def _suspected(self, X, paths):
        masks = [np.zeros((X.shape[0], lay.left.shape[0]), dtype=bool) for lay in self.layouts_]
        for k in sorted(self.autoencoders_, reverse=True):
            refined = self._refined_units(X, paths, k)
            if refined is None:
                continue
            for j, lay in enumerate(self.layouts_):
                suspected_nodes(lay, X, lay.units[k][refined[:, j]], masks[j])
        return masks

    def refined_leaves(self, X):
        """Leaf (node index) of the refined path of every row in every selected tree.

        Uses the leaf-depth autoencoder; without one (it did not converge)
        the rows' own leaves are returned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_selected_trees)
            The node index of each row's refined leaf in every selected tree.
        """
        X = check_predict_data(self, X)
        paths = self._paths(X)
        k = self.max_depth
        refined = self._refined_units(X, paths, k)
        units = unit_indices(self.layouts_, paths, k) if refined is None else refined
        return np.stack([lay.units[k][units[:, j]] for j, lay in enumerate(self.layouts_)], axis=1)

    def _multipath(self, X, masks):
        out = 0.0
        for lay, mask in zip(self.layouts_, masks):
            out = out + multipath_values(lay, X, mask)
        return out / len(self.layouts_)

    def _values(self, X, mode="multi", noise_mask=None):
        """Mean over the selected trees of the estimates, for every prediction mode."""
        X = check_predict_data(self, X)
        if mode == "single":
            masks = [np.zeros((X.shape[0], lay.left.shape[0]), dtype=bool) for lay in self.layouts_]
        elif mode == "oracle":
            noise_mask = np.asarray(noise_mask, dtype=bool)
            if noise_mask.shape != X.shape:
                raise ValueError(f"noise_mask has shape {noise_mask.shape}; expected X's shape {X.shape}.")
            masks = []
            for lay in self.layouts_:
                m = np.zeros((X.shape[0], lay.left.shape[0]), dtype=bool)
                m[:, lay.internal] = noise_mask[:, lay.feature[lay.internal]]
                masks.append(m)
        elif mode == "refined":
            leaves = self.refined_leaves(X)
            return np.mean([lay.tree.values[leaves[:, j]] for j, lay in enumerate(self.layouts_)], axis=0)
        else:
            masks = self._suspected(X, self._paths(X))
        return self._multipath(X, masks)

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) feature importances of the selected trees, normalised to sum to one.

        The trees are ordinary CART trees of the engine (or those of
        ``init_forest``), so the mean decrease in impurity is defined as for
        :class:`~forestzoo.RandomForestClassifier`: each tree's impurity
        decreases, weighted by its nodes' sample weights and normalised to
        sum to one, are averaged over the trees and normalised again.  Only
        the selected trees (``selected_trees_``) predict, so only they count.
        The autoencoders and the multi-path estimate (Hibino et al. 2017,
        Sec. 3.3-3.4) change which leaves a noisy row reaches, not where the
        trees split, so they add no impurity decrease of their own.  All zeros
        when no selected tree has a split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
        """
        check_is_fitted(self)
        return forest_importances([lay.tree for lay in self.layouts_], self.n_features_in_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


_COMMON_DOC = """
    n_estimators : int
        Trees grown before selection (the paper used 15-40).
    max_depth : int, default=4
        Depth of every tree (the paper used 4).
    max_features : int, float, {"sqrt", "log2"} or None
        Features evaluated per node.
    selection : float in (0, 1], default=0.5
        Fraction of the trees kept: those with the lowest mean cross entropy
        ``C_t`` (Section 3.1); 1.0 keeps all.  The paper does not say how many
        it keeps.
    selection_holdout : float in [0, 1), default=0.0
        Fraction of the training rows held out of the forest to compute
        ``C_t`` on (the paper used a separate subset); 0 computes it on the
        training rows.
    noise : {"mean", "gaussian"}, default="mean"
        Noise injected into the training rows the autoencoders learn from:
        features replaced by their training mean (the paper's noise), or
        Gaussian noise of ``noise_scale`` training standard deviations added.
    noise_fraction : float or (low, high), default=(0.0, 0.75)
        Fraction of each noisy row's features corrupted; a tuple draws it
        uniformly per row (the paper tests S/N from 0 to 75 %).
    noise_scale : float, default=1.0
        Standard deviation of the Gaussian noise, in training standard deviations.
    n_noisy_copies : int, default=5
        Noisy copies of each training row used to train the autoencoders.
    per_depth : bool, default=True
        One autoencoder per depth (refinement from the leaf depth up to
        depth 1), as the paper suggests; False: the leaf depth only.
    path_distance : {"nodes", "edges"}, default="nodes"
        How the leaf distance ``d`` of Eq. (4) is counted.  "edges" is the
        formula as printed, under which a sibling of the reached leaf also
        gets 1 and the input no longer says which sibling was reached (on
        Concrete, recovery of the clean leaf from clean inputs fell from 81 %
        to 73 % of the trees); "nodes" counts the nodes on the path (edges
        + 1), so that only the reached leaf gets 1.
    dae_max_iter : int, default=200
        Epochs of each autoencoder (scikit-learn's MLPRegressor, adam).  An
        autoencoder that does not converge is dropped with a
        :class:`DenoisingConvergenceWarning`; its depth is then not refined,
        and with no autoencoder left prediction is the single-path forest's.
    max_dae_samples : int, default=20000
        Most noisy rows the autoencoders are trained on (subsampled).
    n_jobs : int or None, default=None
        Threads of the forest.
    random_state : int, RandomState or None, default=None
        Seed of the forest, the tree selection, the noisy copies and the autoencoders.
"""

_COMMON_ATTRS = """
    forest_ : the fitted forestzoo forest (all ``n_estimators`` trees), or the ``init_forest`` given to ``fit``
    selected_trees_ : ndarray of int
        Indices into ``forest_.estimators_`` of the trees kept.
    cross_entropy_ : ndarray (n_estimators,)
        Mean cross entropy ``C_t`` of every grown tree (bits).
    autoencoders_ : dict
        Depth -> fitted MLPRegressor, or None where it did not converge.
    layouts_ : list of TreeLayout
        Ancestors, units and encodings of the selected trees.
    feature_mean_, feature_std_ : ndarray (n_features,)
        Training mean and standard deviation of every feature.
"""


class DenoisingRandomForestRegressor(RegressorMixin, BaseDenoisingForest):
    __doc__ = f"""Regression forest robust to noisy test samples (Hibino et al. 2017).

    Depth-limited regression trees are grown (forestzoo's
    :class:`~forestzoo.RandomForestRegressor`); the mutually correlated trees
    are kept (lowest mean cross entropy ``C_t``).  A denoising autoencoder per
    depth learns to map the distance-encoded indicator vector ``z~`` (Eq. 4)
    of a noisy copy of a training row to the binary indicator vector of the
    clean row.  At prediction, the nodes where a row's own decision differs
    from the autoencoder's refined path are suspected noisy decisions, and
    the estimate sums every path through them with weight ``w_p = 2^-k_p``
    (Section 3.4).

    Parameters
    ----------{_COMMON_DOC}
    Attributes
    ----------{_COMMON_ATTRS}
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    forestzoo.RandomForestRegressor : The forest without denoising.
    DenoisingRandomForestClassifier : The method for classification.

    References
    ----------
    M. Hibino, A. Kimura, T. Yamashita, Y. Yamauchi, H. Fujiyoshi,
    "Denoising random forests", 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from forestzoo import DenoisingRandomForestRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(size=(300, 4))
    >>> y = 10 + 5 * X[:, 0] + 3 * X[:, 1] + X[:, 2]
    >>> drf = DenoisingRandomForestRegressor(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    >>> len(drf.selected_trees_), sorted(drf.autoencoders_)
    (5, [1, 2, 3])
    >>> drf.predict(X[:3]).shape
    (3,)
    """

    def __init__(self, n_estimators=20, *, max_depth=4, max_features=1.0, selection=0.5, selection_holdout=0.0,
                 noise="mean", noise_fraction=(0.0, 0.75), noise_scale=1.0, n_noisy_copies=5, per_depth=True,
                 path_distance="nodes", dae_max_iter=200, max_dae_samples=20000, n_jobs=None, random_state=None):
        super().__init__(
            n_estimators, max_depth=max_depth, max_features=max_features, selection=selection,
            selection_holdout=selection_holdout, noise=noise, noise_fraction=noise_fraction, noise_scale=noise_scale,
            n_noisy_copies=n_noisy_copies, per_depth=per_depth, path_distance=path_distance, dae_max_iter=dae_max_iter,
            max_dae_samples=max_dae_samples, n_jobs=n_jobs, random_state=random_state,
        )

    def _make_forest(self, seed):
        from ..ensemble import RandomForestRegressor

        return RandomForestRegressor(n_estimators=self.n_estimators, max_depth=self.max_depth,
                                     max_features=self.max_features, n_jobs=self.n_jobs, random_state=seed)

    def predict(self, X):
        """Multi-path estimate over the suspected noisy decisions (Section 3.4).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._values(X)[:, 0]

    def predict_single_path(self, X):
        """Estimate of the selected trees following each row's own path (no denoising).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._values(X, "single")[:, 0]

    def predict_refined(self, X):
        """Estimate of the selected trees at the refined leaves only (no multi-path).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._values(X, "refined")[:, 0]

    def predict_with_known_noise(self, X, noise_mask):
        """Oracle multi-path estimate: the suspected nodes are those splitting on a noisy feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        noise_mask : array-like of bool of shape (n_samples, n_features)
            Which values of ``X`` are noisy.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted values.
        """
        return self._values(X, "oracle", noise_mask)[:, 0]


class DenoisingRandomForestClassifier(ClassifierMixin, BaseDenoisingForest):
    __doc__ = f"""Classification forest robust to noisy test samples (Hibino et al. 2017, extended).

    The paper's method (see :class:`DenoisingRandomForestRegressor`) applied
    to a classification forest, the extension its conclusion names as future
    work: leaves hold class proportions, and the multi-path estimate is the
    ``2^-k_p``-weighted mixture of the proportions of the leaves reached.

    Parameters
    ----------{_COMMON_DOC}
    Attributes
    ----------{_COMMON_ATTRS}
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        The number of classes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape ``(n_features_in_,)``
        Names of the features seen in ``fit``, when ``X`` had string column names.

    See Also
    --------
    forestzoo.RandomForestClassifier : The forest without denoising.
    DenoisingRandomForestRegressor : The paper's method, for regression.

    References
    ----------
    M. Hibino, A. Kimura, T. Yamashita, Y. Yamauchi, H. Fujiyoshi,
    "Denoising random forests", 2017.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from forestzoo import DenoisingRandomForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DenoisingRandomForestClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 3)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(self, n_estimators=20, *, max_depth=4, max_features="sqrt", selection=0.5, selection_holdout=0.0,
                 noise="mean", noise_fraction=(0.0, 0.75), noise_scale=1.0, n_noisy_copies=5, per_depth=True,
                 path_distance="nodes", dae_max_iter=200, max_dae_samples=20000, n_jobs=None, random_state=None):
        super().__init__(
            n_estimators, max_depth=max_depth, max_features=max_features, selection=selection,
            selection_holdout=selection_holdout, noise=noise, noise_fraction=noise_fraction, noise_scale=noise_scale,
            n_noisy_copies=n_noisy_copies, per_depth=per_depth, path_distance=path_distance, dae_max_iter=dae_max_iter,
            max_dae_samples=max_dae_samples, n_jobs=n_jobs, random_state=random_state,
        )

    def _make_forest(self, seed):
        from ..ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=self.n_estimators, max_depth=self.max_depth,
                                      max_features=self.max_features, n_jobs=self.n_jobs, random_state=seed)

    def predict_proba(self, X):
        """Multi-path class proportions over the suspected noisy decisions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        return self._values(X)

    def predict(self, X):
        """Class with the largest multi-path proportion.

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

    def predict_single_path(self, X):
        """Class voted by the selected trees following each row's own path (no denoising).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        values = self._values(X, "single")
        return self.classes_[np.argmax(values, axis=1)]

    def predict_with_known_noise(self, X, noise_mask):
        """Oracle multi-path class: the suspected nodes are those splitting on a noisy feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        noise_mask : array-like of bool of shape (n_samples, n_features)
            Which values of ``X`` are noisy.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        values = self._values(X, "oracle", noise_mask)
        return self.classes_[np.argmax(values, axis=1)]
