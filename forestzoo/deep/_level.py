"""Cascade levels: forests whose class vectors come from k-fold out-of-fold predictions.

Zhou & Feng (2017, Sec. 3.1) generate the class vector that a forest hands to
the next level by k-fold cross-validation, so that a training sample's vector
never comes from a forest that saw the sample.  Here a forest is fitted once
per fold on the other folds; its out-of-fold predictions are the training
class vectors, and a new sample gets the mean of the k fold forests (each
trained on (k - 1) / k of the data, like the vectors the next level was
trained on).  The same folds, made once per fit, serve every level and the
multi-grained scanning.
"""

import warnings

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import KFold, StratifiedKFold

from .._base import MAX_SEED
from .._engine.api import TREE_LEAF
from .._jit import njit
from ..ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor


def make_folds(y, n_folds, classification, seed, sample_weight=None):
    """Test-index arrays of ``n_folds`` shuffled folds (stratified for classification).

    ``y`` holds class codes ``0..K-1`` for classification.  Raises a
    ValueError when there are fewer samples than folds or when a fold's
    training part would hold a single class (nothing to learn from; rows of
    zero ``sample_weight`` do not count) or no positive weight; warns when a
    class has fewer samples than folds (stratification then spreads that
    class over as many folds as it can).
    """
    n_samples = y.shape[0]
    if n_samples < n_folds:
        raise ValueError(
            f"n_samples={n_samples} is fewer than n_folds={n_folds}: every fold needs at least one "
            "sample. Use more samples or a smaller n_folds."
        )
    positive = np.ones(n_samples, dtype=bool) if sample_weight is None else sample_weight > 0
    dummy = np.zeros((n_samples, 1))
    if not classification:
        folds = [test for _, test in KFold(n_folds, shuffle=True, random_state=seed).split(dummy)]
    else:
        if np.unique(y[positive]).shape[0] < 2:
            raise ValueError("The samples of positive weight hold a single class; at least 2 classes are needed.")
        counts = np.bincount(y)
        if counts.min() < n_folds:
            warnings.warn(
                f"The least populated class has {counts.min()} samples, fewer than n_folds={n_folds}; "
                "the folds are stratified as far as possible and some folds miss that class.",
                UserWarning,
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the warning above says it in our words
            splitter = StratifiedKFold(n_folds, shuffle=True, random_state=seed)
            folds = [test for _, test in splitter.split(dummy, y)]
    for i, test in enumerate(folds):
        mask = positive.copy()
        mask[test] = False
        if not mask.any():
            raise ValueError(f"The training part of fold {i} has no sample of positive weight.")
        if classification and np.unique(y[mask]).shape[0] < 2:
            raise ValueError(
                f"The training part of fold {i} (all samples outside it) holds a single class; "
                "every fold must train on at least 2 classes. Add samples of the rare classes or "
                "use a smaller n_folds."
            )
    return folds


@njit
def _add_tree_importances(nodes, out):
    """Add one axis-aligned tree's impurity decreases per feature, normalised to sum to one, to ``out``.

    The work of :meth:`~forestzoo._engine.api.Tree.compute_feature_importances`
    for a tree without oblique nodes, in one pass over its node records.
    """
    acc = np.zeros(out.shape[0])
    total = 0.0
    for k in range(nodes.shape[0]):
        if nodes[k].left != TREE_LEAF:
            acc[nodes[k].feature] += nodes[k].improvement
            total += nodes[k].improvement
    if total > 0.0:
        for j in range(out.shape[0]):
            out[j] += acc[j] / total


def forest_importance_sum(trees, n_features):
    """:func:`~forestzoo._base.importance_sum` of a forest's trees, without a pass of numpy calls per tree.

    Each tree's impurity decreases (the nodes' ``improvement``) summed per
    feature and normalised to sum to one (zeros for a tree without a
    decrease), then summed over the trees.  The cascade records this for
    every fold forest it fits, where the numpy calls of
    ``compute_feature_importances`` would cost ~2 % of the fit of a forest of
    completely-random trees; a compiled pass over the node records costs
    ~0.1 ms per 10,000 nodes.  A tree with oblique nodes goes through
    ``compute_feature_importances`` itself.
    """
    out = np.zeros(n_features)
    for tree in trees:
        if tree.obl_ptr.shape[0] > 1:
            out += tree.compute_feature_importances()
        else:
            _add_tree_importances(tree.nodes, out)
    return out


def forest_templates(params, classification):
    """The unfitted forests of one level: random forests, then completely-random tree forests.

    A completely-random tree picks one feature at random at every node and a
    uniform random threshold on it (Zhou & Feng 2017, Sec. 3.1): Extra Trees
    with ``max_features=1``.  Both kinds are grown until their leaves are
    pure (or ``min_samples_leaf`` / ``max_depth`` stop them).
    """
    RF = RandomForestClassifier if classification else RandomForestRegressor
    CRF = ExtraTreesClassifier if classification else ExtraTreesRegressor
    common = dict(n_estimators=params["n_estimators"], max_depth=params["max_depth"],
                  min_samples_leaf=params["min_samples_leaf"], n_jobs=params["n_jobs"])
    rfs = [RF(max_features=params["max_features"], **common) for _ in range(params["n_random_forests"])]
    crfs = [CRF(max_features=1, **common) for _ in range(params["n_completely_random_forests"])]
    return rfs + crfs


class KFoldEstimator:
    """One estimator fitted once per fold; its out-of-fold predictions are the training vectors.

    ``n_outputs`` is the number of classes (class codes ``0..n_outputs-1``)
    for a classifier, 1 for a regressor.  A fold forest that saw only some
    classes still returns a full-width class vector (zeros for the others).

    With ``keep_importances``, ``importance_sum_`` holds the sum over every
    tree of every fold forest of its impurity-based importances (each tree's
    normalised to sum to one), over the features the forests read: computed
    at fit, before the fold forests drop the node statistics it needs.
    """

    def __init__(self, template, n_outputs, keep_importances=False):
        self.template = template
        self.n_outputs = n_outputs
        self.classification = is_classifier(template)
        self.keep_importances = keep_importances
        self.estimators_ = []

    def _vector(self, est, X):
        if not self.classification:
            return est.predict(X).reshape(-1, 1)
        proba = est.predict_proba(X)
        if proba.shape[1] == self.n_outputs:
            return proba
        out = np.zeros((X.shape[0], self.n_outputs), dtype=proba.dtype)
        out[:, est.classes_.astype(np.intp)] = proba
        return out

    def fit(self, X, y, sample_weight, folds, rng):
        """Fit one estimator per fold; return the out-of-fold vectors, float32 (n_samples, n_outputs)."""
        n_samples = X.shape[0]
        oof = np.empty((n_samples, self.n_outputs), dtype=np.float32)
        estimators = []
        importances = np.zeros(X.shape[1]) if self.keep_importances else None
        for test in folds:
            train = np.ones(n_samples, dtype=bool)
            train[test] = False
            est = clone(self.template).set_params(random_state=int(rng.randint(MAX_SEED)))
            est.fit(X[train], y[train], sample_weight=None if sample_weight is None else sample_weight[train])
            oof[test] = self._vector(est, X[test])
            if importances is not None:
                importances += forest_importance_sum([e.tree_ for e in est.estimators_], X.shape[1])
            # from here on the fold forest is only predicted with: it keeps only what prediction reads
            # (the 16-byte prediction table, a leaf code and the impure leaves' rows: ~20 bytes a node,
            # against the fitted tree's 64-byte record, prediction table and value row per node)
            if hasattr(est, "_keep_prediction_only"):
                est._keep_prediction_only()
            estimators.append(est)
        self.estimators_ = estimators
        if importances is not None:
            self.importance_sum_ = importances
        return oof

    def predict(self, X):
        """Mean vector of the fold estimators, float64 (n_samples, n_outputs)."""
        out = self._vector(self.estimators_[0], X)
        for est in self.estimators_[1:]:
            out = out + self._vector(est, X)
        return out / len(self.estimators_)

    @property
    def n_trees(self):
        return sum(len(est.estimators_) for est in self.estimators_)


class CascadeLevel:
    """One level (a "grade" in gcForest's cascade of cascades): several forests side by side.

    ``fit`` returns, and ``transform`` computes, the level's output: the
    class vectors of all its forests concatenated, shape
    (n_samples, n_forests * n_outputs), float32 from ``fit`` (the next level's
    input), float64 from ``transform``.
    """

    def __init__(self, templates, n_outputs, keep_importances=False):
        self.forests = [KFoldEstimator(t, n_outputs, keep_importances) for t in templates]
        self.n_outputs = n_outputs

    def fit(self, X, y, sample_weight, folds, rng):
        return np.hstack([f.fit(X, y, sample_weight, folds, rng) for f in self.forests])

    def transform(self, X):
        return np.hstack([f.predict(X) for f in self.forests])

    @property
    def n_trees(self):
        return sum(f.n_trees for f in self.forests)


def mean_vector(vectors, n_outputs):
    """Average of the forests' vectors in a level output (the cascade's final prediction)."""
    return vectors.reshape(vectors.shape[0], -1, n_outputs).mean(axis=1, dtype=np.float64)


def level_score(vectors, y, n_outputs, classification):
    """Accuracy (classification) or R^2 (regression) of a level's averaged vector against ``y``."""
    mean = mean_vector(vectors, n_outputs)
    if classification:
        return float(np.mean(np.argmax(mean, axis=1) == y))
    resid = ((y - mean[:, 0]) ** 2).sum()
    total = ((y - y.mean()) ** 2).sum()
    return float(1.0 - resid / total) if total > 0 else float(resid == 0)


def grow_cascade(grade_inputs, y, sample_weight, folds, rng, templates, n_outputs, classification,
                 max_levels, n_tolerant_rounds, verbose=0, keep_importances=False):
    """Grow levels until the out-of-fold score has not improved for ``n_tolerant_rounds`` levels.

    ``grade_inputs`` lists one feature matrix per grade: a plain cascade
    forest has one (the original features); gcForest has one per scanning
    grain (Zhou & Feng 2017, Sec. 3.3: "a cascade of cascades").  A grade
    reads its own matrix and the class vectors of the grade before it (the
    very first grade reads its matrix alone).  A level's score is the
    out-of-fold accuracy (R^2) of its last grade's averaged class vectors.

    ``keep_importances`` makes every fold forest keep its trees' summed
    importances (see :class:`KFoldEstimator`).

    Returns ``(levels, scores, best_vectors)``: the levels up to and
    including the best one (each a list of grades), every evaluated level's
    score, and the best level's out-of-fold output.
    """
    levels, scores = [], []
    best_score, best_vectors, prev = -np.inf, None, None
    for depth in range(max_levels):
        grades = []
        for features in grade_inputs:
            X_in = features if prev is None else np.hstack([features, prev])
            grade = CascadeLevel(templates, n_outputs, keep_importances)
            prev = grade.fit(X_in, y, sample_weight, folds, rng)
            del X_in
            grades.append(grade)
        levels.append(grades)
        score = level_score(prev, y, n_outputs, classification)
        scores.append(score)
        if verbose:
            print(f"cascade level {depth + 1}: out-of-fold {'accuracy' if classification else 'R^2'} {score:.5f}")
        if score > best_score:
            best_score, best_depth, best_vectors = score, depth, prev
        elif depth - best_depth >= n_tolerant_rounds:
            break
    return levels[: best_depth + 1], scores, best_vectors


def cascade_transform(levels, grade_inputs):
    """Output of the last grade of the last level for new samples (the fitted counterpart of :func:`grow_cascade`)."""
    prev = None
    for grades in levels:
        for grade, features in zip(grades, grade_inputs):
            # the next grade reads float32 class vectors, as it was trained on
            prev = grade.transform(features if prev is None else np.hstack([features, prev.astype(np.float32)]))
    return prev
