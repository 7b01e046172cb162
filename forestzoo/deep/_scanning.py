"""Multi-grained scanning (Zhou & Feng 2017, Sec. 3.2): class vectors of sliding windows."""

from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import TransformerMixin, _fit_context, clone
from sklearn.utils import check_random_state, gen_batches
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from .._base import MAX_SEED, EngineEstimator
from .._validation import check_fit_data, check_predict_data, keep_state_on_error
from ..ensemble import ExtraTreesClassifier, RandomForestClassifier
from ._level import KFoldEstimator, make_folds
from ._windows import grid, resolve_image_shape, resolve_windows, sample_windows, windows_of


#: Constraints of the scanning parameters, shared with :class:`GCForestClassifier`.
SCANNING_PARAMETER_CONSTRAINTS = {
    "window_sizes": [list, tuple],
    "image_shape": [tuple, list, None],
    "stride": [Interval(Integral, 1, None, closed="left")],
    "max_window_samples": [Interval(Integral, 1, None, closed="left"), None],
    "working_memory": [Interval(Integral, 1, None, closed="left"), None],
}


class Grain:
    """The scanning of one window size: a random forest and a completely-random forest, per fold.

    Its output for a sample is the class vectors of every window position,
    forest by forest: column ``(f * n_windows + j) * n_classes + k`` is
    forest ``f``'s probability of class ``k`` at window ``j``.
    """

    def __init__(self, image, window, stride, templates, n_classes):
        self.image = image
        self.window = window
        self.stride = stride
        self.n_windows = int(np.prod(grid(image, window, stride)))
        self.n_classes = n_classes
        self.forests = [KFoldEstimator(t, n_classes) for t in templates]

    @property
    def n_features_out(self):
        return len(self.forests) * self.n_windows * self.n_classes

    def _rows_per_chunk(self, working_memory):
        h, w = self.window
        # bytes per sample: its float32 windows, plus one float64 class vector per window and forest
        row_bytes = self.n_windows * (4 * h * w + 8 * self.n_classes * (len(self.forests) + 1))
        mib = get_config()["working_memory"] if working_memory is None else working_memory
        return max(1, int(mib * 2**20 // row_bytes))

    def _write(self, forests_of, X, rows, out, working_memory):
        """Fill ``out[rows]`` with the class vectors of ``X[rows]`` chunk by chunk."""
        width = self.n_windows * self.n_classes
        for batch in gen_batches(rows.shape[0], self._rows_per_chunk(working_memory)):
            chunk = rows[batch]
            wins = windows_of(X[chunk], self.image, self.window, self.stride)
            for f, predict in enumerate(forests_of):
                out[chunk, f * width:(f + 1) * width] = predict(wins).reshape(chunk.shape[0], width)

    def fit(self, X, y, sample_weight, folds, rng, max_window_samples, working_memory, out=None):
        """Fit the fold forests; write the out-of-fold features of every sample into ``out`` if given."""
        n_samples = X.shape[0]
        for test in folds:
            train_mask = np.ones(n_samples, dtype=bool)
            train_mask[test] = False
            train = np.flatnonzero(train_mask)
            wins, owner = sample_windows(X, self.image, self.window, self.stride, train,
                                         max_window_samples, int(rng.randint(MAX_SEED)))
            # every window carries the label (and weight) of the sample it was cut from (Sec. 3.2)
            fold_estimators = []
            for forest in self.forests:
                est = clone(forest.template).set_params(random_state=int(rng.randint(MAX_SEED)))
                est.fit(wins, y[train][owner], sample_weight=sample_weight[train][owner])
                if hasattr(est, "_keep_prediction_only"):  # only predicted with from here on
                    est._keep_prediction_only()
                forest.estimators_.append(est)
                fold_estimators.append(est)
            del wins, owner
            if out is not None:
                self._write([lambda W, e=e, f=f: f._vector(e, W) for e, f in zip(fold_estimators, self.forests)],
                            X, test, out, working_memory)
        return out

    def transform(self, X, working_memory, out=None):
        """Features of new samples: every forest is the mean of its fold forests."""
        if out is None:
            out = np.empty((X.shape[0], self.n_features_out), dtype=np.float32)
        self._write([f.predict for f in self.forests], X, np.arange(X.shape[0]), out, working_memory)
        return out

    @property
    def n_trees(self):
        return sum(f.n_trees for f in self.forests)


def scanning_templates(n_estimators, max_depth, min_samples_leaf, max_features, n_jobs):
    """A random forest and a completely-random tree forest (Sec. 3.2: one of each per window size)."""
    common = dict(n_estimators=n_estimators, max_depth=max_depth, min_samples_leaf=min_samples_leaf, n_jobs=n_jobs)
    return [RandomForestClassifier(max_features=max_features, **common),
            ExtraTreesClassifier(max_features=1, **common)]


def make_grains(estimator, n_features, n_classes, templates):
    """Unfitted grains from ``window_sizes`` / ``image_shape`` / ``stride`` of ``estimator``."""
    image = resolve_image_shape(estimator.image_shape, n_features)
    windows = resolve_windows(estimator.window_sizes, image, estimator.image_shape is not None)
    return [Grain(image, window, estimator.stride, templates, n_classes) for window in windows]


class MultiGrainedScanner(TransformerMixin, EngineEstimator):
    """Multi-grained scanning (Zhou & Feng 2017): class vectors of sliding windows as features.

    For every window size (a *grain*), windows slide over each input -- a
    sequence of features or, with ``image_shape``, an image flattened row by
    row -- in steps of ``stride``.  Each window becomes a training instance
    with the label of its sample; a random forest and a completely-random
    tree forest are trained on these instances, and a sample is re-
    represented by the concatenated class vectors of all its windows, from
    both forests and all grains.

    To keep the features of the training samples honest, the forests are
    trained ``n_folds`` times, each time on the windows of the samples
    outside one fold; :meth:`fit_transform` returns every training sample's
    features from the forests that did not see it (out-of-fold), while
    :meth:`transform` uses the mean of the fold forests.  So, like
    :class:`sklearn.preprocessing.TargetEncoder`, ``fit_transform(X, y)``
    differs from ``fit(X, y).transform(X)`` on purpose.

    Windows are cut in chunks of samples so that the windows in memory at
    any time stay within ``working_memory``; training uses at most
    ``max_window_samples`` window instances per forest.

    Parameters
    ----------
    window_sizes : list or tuple, default=(1/16, 1/9, 1/4)
        One entry per grain.  Sequences: an int (features) or a fraction of
        the length in (0, 1].  Images: an int (square side), a pair
        ``(height, width)`` or a fraction in (0, 1] of the pixels (a square
        window).  The default follows the paper's d/16, d/9, d/4.
    image_shape : (int, int) or None, default=None
        ``(height, width)`` of the images; None scans each row as a sequence.
    stride : int, default=1
        Step of the window, in both directions for images.
    n_estimators : int, default=100
        Trees per forest and fold.
    n_folds : int, default=3
    max_window_samples : int or None, default=None
        Most window instances a forest is trained on (drawn at random from
        all windows of the fold's samples); None uses them all.
    max_depth : int or None, default=None
    min_samples_leaf : int or float, default=10
        Window instances are many and often repeat: fully grown trees would
        keep about one leaf per instance (memory grows with the instances).
    max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"
        Features per node of the random forests.
    working_memory : int or None, default=None
        MiB of windows and class vectors cut at once when transforming;
        None uses ``sklearn.get_config()["working_memory"]``.
    n_jobs : int or None, default=None
        Threads of each forest.
    random_state : int, RandomState or None, default=None
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray, when X has string column names
    grains_ : list of Grain
        Per window size: ``window`` (h, w), ``n_windows`` and ``forests``
        (each with its fold forests in ``estimators_``, whose trees keep only
        what prediction reads, as a cascade's do).
    window_shapes_ : list of (int, int)
    n_features_out_ : int

    See Also
    --------
    GCForestClassifier : scanning feeding a cascade of cascade forests.

    References
    ----------
    Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep
    Neural Networks", IJCAI 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from forestzoo.deep import MultiGrainedScanner
    >>> rng = np.random.RandomState(0)
    >>> X = rng.rand(60, 16)
    >>> y = (X[:, :4].sum(axis=1) > 2).astype(int)
    >>> scan = MultiGrainedScanner(window_sizes=[4, 8], n_estimators=5, random_state=0)
    >>> scan.fit_transform(X, y).shape  # (13 + 9 windows) x 2 forests x 2 classes
    (60, 88)
    >>> scan.window_shapes_
    [(1, 4), (1, 8)]
    """

    _parameter_constraints = {
        **SCANNING_PARAMETER_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                             Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "max_features": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right"),
                         StrOptions({"sqrt", "log2"}), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _fast_check_params = {"n_estimators": 3, "n_folds": 2}
    _xfail_checks = {
        "check_sample_weight_equivalence_on_dense_data": "a repeated row may fall in another fold than its twin, "
                                                         "and the bootstrap of a weighted row is not that of "
                                                         "repeated rows",
        "check_transformer_general": "fit_transform returns out-of-fold features by design "
                                     "(cross-fitting, as sklearn's TargetEncoder); transform uses the fold mean",
        "check_transformer_data_not_an_array": "same as check_transformer_general",
    }

    def __init__(self, window_sizes=(1 / 16, 1 / 9, 1 / 4), *, image_shape=None, stride=1, n_estimators=100,
                 n_folds=3, max_window_samples=None, max_depth=None, min_samples_leaf=10, max_features="sqrt",
                 working_memory=None, n_jobs=None, random_state=None, verbose=0):
        self.window_sizes = window_sizes
        self.image_shape = image_shape
        self.stride = stride
        self.n_estimators = n_estimators
        self.n_folds = n_folds
        self.max_window_samples = max_window_samples
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.working_memory = working_memory
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _fit(self, X, y, sample_weight):
        self._fit_features(X, y, sample_weight, keep=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y, sample_weight=None):
        """Fit, and return the out-of-fold features of the training samples.

        Returns
        -------
        ndarray of shape ``(n_samples, n_features_out_)``, float32
        """
        with keep_state_on_error(self):
            return self._fit_features(X, y, sample_weight, keep=True)

    def _fit_features(self, X, y, sample_weight, keep):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, classification=True)
        classes, yk = np.unique(y, return_inverse=True)
        n_classes = classes.shape[0]
        if n_classes < 2:
            raise ValueError(f"MultiGrainedScanner needs samples of at least 2 classes; got 1 class ({classes[0]!r}).")
        templates = scanning_templates(self.n_estimators, self.max_depth, self.min_samples_leaf,
                                       self.max_features, self.n_jobs)
        grains = make_grains(self, X.shape[1], n_classes, templates)
        rng = check_random_state(self.random_state)
        folds = make_folds(yk, self.n_folds, True, int(rng.randint(MAX_SEED)), sample_weight)
        out = np.empty((X.shape[0], sum(g.n_features_out for g in grains)), dtype=np.float32) if keep else None
        start = 0
        for i, grain in enumerate(grains):
            stop = start + grain.n_features_out
            grain.fit(X, yk, sample_weight, folds, rng, self.max_window_samples, self.working_memory,
                      out=out[:, start:stop] if keep else None)
            if self.verbose:
                print(f"scanning grain {i + 1}/{len(grains)}: window {grain.window}, {grain.n_windows} windows")
            start = stop
        self.classes_ = classes
        self.n_classes_ = int(n_classes)
        self.grains_ = grains
        self.window_shapes_ = [g.window for g in grains]
        self.n_features_out_ = int(sum(g.n_features_out for g in grains))
        return out

    def transform(self, X):
        """Class vectors of every window of every grain, from the mean of the fold forests.

        Returns
        -------
        ndarray of shape ``(n_samples, n_features_out_)``, float32
        """
        X = check_predict_data(self, X)
        out = np.empty((X.shape[0], self.n_features_out_), dtype=np.float32)
        start = 0
        for grain in self.grains_:
            grain.transform(X, self.working_memory, out=out[:, start:start + grain.n_features_out])
            start += grain.n_features_out
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = ["float32"]  # class vectors are float32 whatever X is
        return tags
