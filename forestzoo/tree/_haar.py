"""The Haar tree: an SDT-grown decision tree over Haar features of images (the SDT paper, Section 5.1)."""

import math
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import CLASSIFICATION_CRITERIA, MAX_SEED, TREE_PARAMETER_CONSTRAINTS, EngineEstimator, tree_params
from .._engine.api import RANDOM, TREE_LEAF, TrainingData, TreeTarget, grow
from .._validation import apply_class_weight, check_fit_data, check_predict_data
from ._haar_bank import _rects, build_bank, integral_images, padded_shape
from ._haar_search import HaarNodeModel

#: Fields of ``HaarTreeClassifier.node_filters_``.
FILTER_DTYPE = np.dtype([("shape", "U6"), ("top", np.int32), ("left", np.int32), ("height", np.int32),
                         ("width", np.int32)])


def pixel_importances(tree, filters, image_shape):
    """Impurity decreases of a Haar tree spread over the pixels of each split's filter, normalised.

    A Haar feature is a linear function of the pixels: ``sum_p a_p x_p``,
    ``a_p`` the sum of the signed weights of the filter's rectangles that
    hold pixel ``p`` (a rectangle weighs ``+-1 / its area``, so that the
    feature is a difference of mean intensities).  A
    split's weighted impurity decrease is shared among the image's pixels in
    proportion to ``|a_p|``, the engine's rule for oblique splits
    (:meth:`~forestzoo._engine.api.Tree.compute_feature_importances`) applied
    to the pixel weights instead of the integral-image entries the tree
    stores.  Pixels of the zero padding (:func:`padded_shape`) are no input
    features: the share goes to the image's own pixels.

    Parameters
    ----------
    tree : Tree
        The fitted tree (``HaarTreeClassifier.tree_``).
    filters : structured array of ``FILTER_DTYPE``, shape (n_nodes,)
        The filter of every internal node (``node_filters_``).
    image_shape : (int, int)
        ``(height, width)`` of the images.

    Returns
    -------
    importances : ndarray of shape (height * width,)
        In the pixel order of ``X`` (row by row); sums to one, or all zeros
        when the tree has no split.
    """
    h, w = image_shape
    H, W = padded_shape(image_shape)
    nodes = tree.nodes
    imp = np.zeros((h, w))
    coef = np.zeros((H, W))
    for k in np.flatnonzero(nodes["left"] != TREE_LEAF):
        shape, top, left, height, width = filters[k]
        coef[:] = 0.0
        for r0, r1, c0, c1, weight in _rects(str(shape), int(height), int(width)):
            coef[top + r0:top + r1, left + c0:left + c1] += weight
        a = np.abs(coef[:h, :w])
        total = a.sum()
        if total > 0:
            imp += nodes["improvement"][k] * (a / total)
    imp = imp.ravel()
    total = imp.sum()
    return imp / total if total > 0 else imp


class HaarTreeClassifier(ClassifierMixin, EngineEstimator):
    """A decision tree over Haar features of images, grown by SDT (the "Haar tree").

    Every split thresholds one Haar feature -- a difference of mean
    intensities of two to four rectangles -- chosen among all the filter
    shapes, region sizes ``(3n, 3m)`` (``n, m = 1..max_scale``) and positions
    of the image (123,008 features on a 28 x 28 image; see
    :mod:`forestzoo.tree._haar_bank`).  The bank is far too large to
    materialise, so features are computed on demand from integral images and
    the split search is the stochastic SDT search (Steps 1-5): features are
    ranked on growing random subsets of the node's images, the worse half
    discarded per round, and the exact search runs on the survivors only.

    Prediction computes the integral image of the input (``O(D)`` for ``D``
    pixels), then a handful of its entries per node on the root-to-leaf
    path: ``O(D + depth)``, as the paper states.

    Parameters
    ----------
    image_shape : (int, int) or None, default=None
        ``(height, width)`` of the images; every row of ``X`` is one image
        flattened row by row.  None: square images of side ``sqrt(n_features)``
        when ``n_features`` is a square, else one row of ``n_features``
        pixels.  Images smaller than 3 pixels in a direction are zero-padded
        to 3, the smallest filter region.
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
    max_depth : int or None, default=12
        The paper's deepest Haar tree.  None grows until leaves are pure, at
        a cost of about ``n_features_bank * n_samples`` per level.
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
    max_scale : int >= 1, default=8
        Largest ``n`` and ``m`` of the ``(3n, 3m)`` filter regions.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into the sample weights;
        "balanced" weighs each class inversely to its frequency.
    sdt_C, sdt_alpha, sdt_min_features_fraction, sdt_n0 : default=10, 8, 0.005, 20
        The SDT search: ``max(n0, N_j / 2**C)`` rows added per round, at most
        ``alpha`` halving rounds, stopping at this fraction of the bank; see
        :class:`DecisionTreeClassifier`.  Nodes too small for the stochastic
        search to save work are searched exactly over the whole bank.
    n_jobs : int or None, default=None
        Threads scoring chunks of the bank at every node (joblib's
        convention: None is 1, -1 all cores).  The tree does not depend on it.
    random_state : int, RandomState or None, default=None
        Seed of the stochastic split search.

    Attributes
    ----------
    tree_ : forestzoo._engine.api.Tree
        Nodes over integral-image entries: each split's Haar feature is an
        oblique projection (side arrays) on the flattened integral image.
    classes_, n_classes_ : the class labels and their number
    n_features_in_ : int, pixels per image
    image_shape_ : (int, int)
    n_haar_features_ : int, size of the Haar bank searched at every node
    node_filters_ : structured array (n_nodes,) of ``FILTER_DTYPE``
        The filter of every internal node (shape name, top, left, height,
        width); leaves have an empty shape name.
    n_split_evaluations_ : int
        (image, Haar feature) values the split searches computed.

    See Also
    --------
    DecisionTreeClassifier : ``splitter="stochastic"`` is SDT over the input features.

    References
    ----------
    "Stochastic induction of decision trees with application to learning
    Haar tree" (anonymous, under review), Section 3 and 5.1, Appendix A.2.
    P. Viola, M. Jones, "Rapid object detection using a boosted cascade of
    simple features", CVPR 2001 (integral images).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from forestzoo import HaarTreeClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = HaarTreeClassifier(max_depth=6, random_state=0).fit(X[:1000], y[:1000])
    >>> clf.image_shape_, clf.n_haar_features_
    ((8, 8), 648)
    >>> bool(clf.score(X[1000:], y[1000:]) > 0.6)
    True
    """

    _parameter_constraints = {
        "image_shape": ["array-like", None],
        "criterion": [StrOptions(CLASSIFICATION_CRITERIA)],
        "max_depth": TREE_PARAMETER_CONSTRAINTS["max_depth"],
        "min_samples_split": TREE_PARAMETER_CONSTRAINTS["min_samples_split"],
        "min_samples_leaf": TREE_PARAMETER_CONSTRAINTS["min_samples_leaf"],
        "min_weight_fraction_leaf": TREE_PARAMETER_CONSTRAINTS["min_weight_fraction_leaf"],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "max_scale": [Interval(Integral, 1, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        **{p: TREE_PARAMETER_CONSTRAINTS[p] for p in ("sdt_C", "sdt_alpha", "sdt_min_features_fraction", "sdt_n0")},
    }

    def __init__(self, *, image_shape=None, criterion="gini", max_depth=12, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_impurity_decrease=0.0, max_scale=8, class_weight=None, sdt_C=10, sdt_alpha=8,
                 sdt_min_features_fraction=0.005, sdt_n0=20, n_jobs=None, random_state=None):
        self.image_shape = image_shape
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_scale = max_scale
        self.class_weight = class_weight
        self.sdt_C = sdt_C
        self.sdt_alpha = sdt_alpha
        self.sdt_min_features_fraction = sdt_min_features_fraction
        self.sdt_n0 = sdt_n0
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- input ----------------------------------------------------------------
    def _resolve_image_shape(self, n_features):
        if self.image_shape is None:
            side = math.isqrt(n_features)
            return (side, side) if side * side == n_features else (1, n_features)
        shape = tuple(np.asarray(self.image_shape).tolist())
        if len(shape) != 2 or not all(isinstance(v, Integral) and v > 0 for v in shape):
            raise ValueError(f"image_shape must be two positive integers (height, width); got {self.image_shape!r}.")
        if shape[0] * shape[1] != n_features:
            raise ValueError(
                f"X has {n_features} features per row but image_shape={shape} needs "
                f"{shape[0] * shape[1]} pixels per image.")
        return shape

    @staticmethod
    def _check_finite(X):
        if np.isnan(X).any():
            raise ValueError("X contains NaN: HaarTreeClassifier needs complete images (no missing pixels).")

    def _integral(self, X):
        X = check_predict_data(self, X)
        self._check_finite(X)
        return integral_images(X, self.image_shape_)

    # -- fit --------------------------------------------------------------------
    def _fit(self, X, y, sample_weight):
        X, y, sample_weight = check_fit_data(self, X, y, sample_weight, True)
        self._check_finite(X)
        image_shape = self._resolve_image_shape(X.shape[1])
        bank = build_bank(image_shape, self.max_scale)
        yk, yr, n_values, classes = self._encode_target(y)
        if self.class_weight is not None:
            sample_weight = apply_class_weight(sample_weight, self.class_weight, y)
        seed = check_random_state(self.random_state).randint(MAX_SEED)
        II = integral_images(X, image_shape)
        del X
        # every split comes from the node model, so the grower draws no features and its own feature
        # matrix stays empty
        params = tree_params(self, II.shape[0], II.shape[1], n_values, max_features=None,
                                           max_leaf_nodes=None)
        data = TrainingData(RANDOM, II.shape[1], np.empty((0, 0), np.uint8), np.empty((0, II.shape[0]), np.float32),
                            np.empty((0, 0)), np.zeros(0, np.int32))
        n_threads = effective_n_jobs(self.n_jobs)
        # a plain thread pool: a node dispatches ~10 rounds of chunks, too often for joblib's per-call overhead
        with ThreadPoolExecutor(n_threads) if n_threads > 1 else nullcontext() as pool:
            model = HaarNodeModel(II, bank, params.sdt, seed, params.criterion, params.min_samples_leaf,
                                  params.min_weight_leaf(sample_weight), pool, n_threads)
            tree = grow(data, TreeTarget(yk, yr, n_values), sample_weight, params, seed, node_model=model)
        tree.n_split_evaluations = model.n_evaluations
        filters = np.zeros(tree.node_count, dtype=FILTER_DTYPE)
        internal = np.flatnonzero(tree.nodes["oblique"] >= 0)
        for k in internal:
            filters[k] = bank.describe(model.chosen[tree.nodes["oblique"][k]])
        self.tree_ = tree
        self.image_shape_ = tuple(int(v) for v in image_shape)
        self.n_haar_features_ = bank.n_features
        self.node_filters_ = filters
        self.n_split_evaluations_ = model.n_evaluations
        self.classes_ = classes
        self.n_classes_ = int(classes.shape[0])
        self.n_outputs_ = 1
        return self

    # -- prediction ---------------------------------------------------------------
    def predict_proba(self, X):
        """Class proportions of the leaf each image reaches.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class in :attr:`classes_` order.
        """
        II = self._integral(X)
        return self.tree_.predict(II)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class in :attr:`classes_` order.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class of each image.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted class labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def apply(self, X):
        """Index of the leaf each image ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        ndarray of shape (n_samples,)
            The node index of each image's leaf.
        """
        II = self._integral(X)
        return self.tree_.apply(II)

    def decision_path(self, X):
        """Sparse (n_samples, n_nodes) indicator of the nodes each image visits.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Nonzero at ``[i, j]`` when image ``i`` passes through node ``j``.
        """
        II = self._integral(X)
        return self.tree_.decision_path(II)

    @property
    def feature_importances_(self):
        """Impurity-based (MDI) importance of every pixel, normalised to sum to one.

        A split thresholds a Haar feature, a difference of mean intensities
        of rectangles of pixels, not one input feature, so its impurity
        decrease has to be divided among pixels to give per-pixel
        importances.  It is spread over the pixels its filter covers in
        proportion to the magnitude of each pixel's weight in the feature
        (:func:`pixel_importances`): the rectangles of a two-rectangle filter
        get half of the decrease each, spread evenly over their pixels, and a
        pixel in several filters adds up its shares; pixels that no split's
        filter covers get none.  The decreases are weighted by the nodes'
        sample weights, as for :class:`DecisionTreeClassifier`.  All zeros
        for a tree without a split.

        Returns
        -------
        feature_importances_ : ndarray of shape ``(n_features_in_,)``
            One entry per pixel, in the order of the columns of ``X``.
        """
        check_is_fitted(self)
        return pixel_importances(self.tree_, self.node_filters_, self.image_shape_)

    def get_depth(self):
        """Depth of the tree (the root alone has depth 0).

        Returns
        -------
        int
            The largest depth of a leaf.
        """
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves.

        Returns
        -------
        int
            The number of leaves of the fitted tree.
        """
        check_is_fitted(self)
        return self.tree_.n_leaves

    def inference_cost(self, X):
        """Mean operations to classify one image: integral-image entries plus entries read on the path.

        The integral image costs one addition per pixel (``O(D)``); a node on
        the path reads the 6-9 integral-image entries of its Haar feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, height * width)
            The images, flattened row by row.

        Returns
        -------
        float
            The mean number of entries read per image.
        """
        path = self.decision_path(X)
        nodes = self.tree_.nodes
        per_node = np.zeros(self.tree_.node_count)
        obl = np.flatnonzero(nodes["oblique"] >= 0)
        per_node[obl] = np.diff(self.tree_.obl_ptr)[nodes["oblique"][obl]]
        return float(self.n_features_in_ + (path @ per_node).mean())
