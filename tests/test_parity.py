"""Accuracy parity with scikit-learn's forests on small standard datasets.

Both libraries see the same splits and the same seeds; forestzoo's mean over seeds may not fall
more than a small margin below scikit-learn's. Run with ``-s`` to print the numbers.
"""

import functools

import numpy as np
from numpy.testing import assert_array_equal
import pytest
from sklearn import datasets
from sklearn import ensemble as sk_ensemble
from sklearn.model_selection import train_test_split

import forestzoo

SEEDS = range(5)
N_TREES = 100
N_JOBS = 2
ACCURACY_MARGIN = 0.01  # one percentage point
R2_MARGIN = 0.01

CLASSIFICATION = {
    "breast_cancer": datasets.load_breast_cancer,
    "digits": datasets.load_digits,
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
}
REGRESSION = {
    "make_regression": lambda: datasets.make_regression(
        n_samples=1000, n_features=10, noise=10, random_state=0
    ),
    "diabetes": datasets.load_diabetes,
}
FAMILIES = {
    "RandomForest": ("RandomForestClassifier", "RandomForestRegressor"),
    "ExtraTrees": ("ExtraTreesClassifier", "ExtraTreesRegressor"),
}


def _load(loader):
    data = loader()
    return data if isinstance(data, tuple) else (data.data, data.target)


def _split(X, y, seed, stratify):
    return train_test_split(X, y, test_size=0.3, random_state=seed,
                            stratify=y if stratify else None)


@functools.lru_cache(maxsize=None)
def _mean_score(library, class_name, dataset):
    """Mean test score (accuracy or R^2) over SEEDS; cached so each fit runs once per test process."""
    module = forestzoo if library == "forestzoo" else sk_ensemble
    Estimator = getattr(module, class_name)
    is_classification = dataset in CLASSIFICATION
    X, y = _load((CLASSIFICATION if is_classification else REGRESSION)[dataset])
    scores = []
    for seed in SEEDS:
        X_train, X_test, y_train, y_test = _split(X, y, seed, stratify=is_classification)
        model = Estimator(n_estimators=N_TREES, n_jobs=N_JOBS, random_state=seed)
        scores.append(model.fit(X_train, y_train).score(X_test, y_test))
    return float(np.mean(scores))


def _compare(family, task, dataset, margin):
    class_name = FAMILIES[family][0 if task == "classification" else 1]
    ours = _mean_score("forestzoo", class_name, dataset)
    theirs = _mean_score("sklearn", class_name, dataset)
    print(f"\n{class_name} on {dataset}: forestzoo {ours:.4f}  sklearn {theirs:.4f}  "
          f"diff {ours - theirs:+.4f}")
    assert ours >= theirs - margin, (
        f"{class_name} on {dataset}: forestzoo mean {ours:.4f} < sklearn mean {theirs:.4f} "
        f"- {margin}"
    )


@pytest.mark.parametrize("dataset", list(CLASSIFICATION))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_classification_accuracy_parity(family, dataset):
    _compare(family, "classification", dataset, ACCURACY_MARGIN)


@pytest.mark.parametrize("dataset", list(REGRESSION))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_regression_r2_parity(family, dataset):
    _compare(family, "regression", dataset, R2_MARGIN)


@pytest.mark.parametrize("splitter", ["hist", "exact", "random"])
def test_every_splitter_learns_digits(splitter):
    X, y = _load(datasets.load_digits)
    X_train, X_test, y_train, y_test = _split(X, y, seed=0, stratify=True)
    model = forestzoo.RandomForestClassifier(
        splitter=splitter, n_estimators=N_TREES, n_jobs=N_JOBS, random_state=0
    )
    accuracy = model.fit(X_train, y_train).score(X_test, y_test)
    print(f"\nRandomForestClassifier(splitter={splitter!r}) on digits: {accuracy:.4f}")
    assert accuracy >= 0.95


def _without_conflicting_duplicates(X, y):
    """Drop every row whose feature vector occurs with more than one label."""
    _, inverse = np.unique(X, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    labels_per_row = np.array([len(np.unique(y[inverse == k])) for k in range(inverse.max() + 1)])
    keep = labels_per_row[inverse] == 1
    return X[keep], y[keep]


@pytest.mark.parametrize("dataset", ["make_classification", "breast_cancer", "digits"])
def test_fully_grown_exact_tree_fits_training_data(dataset):
    if dataset == "make_classification":
        X, y = datasets.make_classification(n_samples=500, n_features=10, n_classes=3,
                                            n_informative=5, flip_y=0.05, random_state=0)
    else:
        X, y = _load(CLASSIFICATION[dataset])
    X, y = _without_conflicting_duplicates(X.astype(np.float32), y)
    tree = forestzoo.DecisionTreeClassifier(splitter="exact", random_state=0).fit(X, y)
    assert tree.score(X, y) == 1.0


def test_fully_grown_exact_regression_tree_fits_training_data():
    X, y = datasets.make_regression(n_samples=300, n_features=5, noise=5, random_state=0)
    X = X.astype(np.float32)
    assert len(np.unique(X, axis=0)) == len(X)
    tree = forestzoo.DecisionTreeRegressor(splitter="exact", random_state=0).fit(X, y)
    np.testing.assert_allclose(tree.predict(X), y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("low", [0.3, 1.3480285, 3.0, -1.7])
def test_exact_splitter_merges_adjacent_values_as_scikit_learn(low):
    # scikit-learn's splitter treats values within FEATURE_THRESHOLD = 1e-7 (added in float32) as one
    # value, which merges neighbouring float32 values below 2.0 in magnitude; forestzoo's exact
    # splitter follows the same rule, so both grow the same tree
    from sklearn.tree import DecisionTreeClassifier as SkTree

    lo = np.float32(low)
    hi = np.nextafter(lo, np.float32(np.inf))
    X = np.array([[lo], [hi], [lo], [hi]], dtype=np.float32)
    y = np.array([0, 1, 0, 1])
    tree = forestzoo.DecisionTreeClassifier(splitter="exact", random_state=0).fit(X, y)
    sk = SkTree(random_state=0).fit(X, y)
    assert tree.tree_.node_count == sk.tree_.node_count == (3 if low == 3.0 else 1)
    assert_array_equal(tree.predict(X), sk.predict(X))
    assert_array_equal(tree.predict(X.astype(np.float64)), sk.predict(X.astype(np.float64)))


def test_exact_splitter_groups_repeated_values_after_near_equal_ones():
    # 0.3 and its float32 neighbour are one value; a repeat of the neighbour after them stays in that
    # group: the only cut is before 1.0 (a cut between the two equal neighbours would put a threshold
    # equal to both, and route rows against the search)
    lo = np.float32(0.3)
    hi = np.nextafter(lo, np.float32(np.inf))
    X = np.array([[lo], [hi], [hi], [1.0]], dtype=np.float32)
    y = np.array([0, 0, 1, 1])
    tree = forestzoo.DecisionTreeClassifier(splitter="exact", random_state=0).fit(X, y)
    assert tree.tree_.threshold[0] > hi
    assert np.all(tree.tree_.n_node_samples > 0)


def test_hist_and_exact_grow_the_same_trees_where_each_value_has_its_bin():
    """Fewer rows than bins: one bin per distinct value, so both splitters choose among the same partitions and
    grow the same trees, thresholds included: the hist splitter cuts halfway between the node's values on the two
    sides of a split, as the exact one does, not at the bin edge (halfway to the next value of the whole training
    set, which a bootstrap sample's node often lacks)."""
    X, y = datasets.load_wine(return_X_y=True)
    params = dict(n_estimators=10, max_features="sqrt", random_state=0)
    hist = forestzoo.RandomForestClassifier(splitter="hist", **params).fit(X, y)
    exact = forestzoo.RandomForestClassifier(splitter="exact", **params).fit(X, y)
    for a, b in zip(hist.estimators_, exact.estimators_):
        assert_array_equal(a.tree_.feature, b.tree_.feature)
        assert_array_equal(a.tree_.children_left, b.tree_.children_left)
        assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    # the regressor and a multi-output forest, likewise
    for Forest, target in ((forestzoo.RandomForestRegressor, X[:, 0]),
                           (forestzoo.RandomForestRegressor, np.c_[X[:, 0], X[:, 1]])):
        h = Forest(splitter="hist", **params).fit(X[:, 1:], target)
        e = Forest(splitter="exact", **params).fit(X[:, 1:], target)
        for a, b in zip(h.estimators_, e.estimators_):
            assert_array_equal(a.tree_.threshold, b.tree_.threshold)


def test_hist_threshold_keeps_every_training_row_on_its_side():
    """More values than bins, and the bins' bounds from a subsample of the rows (as for a large X): the threshold
    stays between the split's bin edges, so every training row reaches the leaf the grower put it in."""
    from forestzoo._engine.api import HIST, TrainingData, TreeParams, TreeTarget, grow
    from forestzoo._engine.binning import bin_data, compute_bin_edges

    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 4)).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.standard_normal(3000) > 0).astype(np.int32)
    edges, n_bins, bounds = compute_bin_edges(X, 16, subsample=300, bounds=True)
    data = TrainingData(HIST, 4, bin_data(X, edges, n_bins), np.empty((0, 0), np.float32), edges, n_bins,
                        bin_bounds=bounds)
    w = rng.integers(0, 3, 3000).astype(np.float64)
    tree, leaves = grow(data, TreeTarget(y, y.astype(np.float64), 2), w, TreeParams("gini"), 0, return_leaves=True)
    used = leaves >= 0
    assert_array_equal(tree.apply(X)[used], leaves[used])
    internal = tree.nodes["left"] >= 0
    moved = ~np.isin(tree.nodes["threshold"][internal], edges)  # thresholds between two bins' values, not edges
    assert moved.any()
