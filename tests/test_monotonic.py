"""Monotonicity constraints (``monotonic_cst``) and the forests' ``estimators_samples_``."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.ensemble import RandomForestClassifier as SkForestClassifier
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

from forestzoo import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                       RandomForestClassifier, RandomForestRegressor)
from forestzoo.ensemble._forest import bootstrap_counts


def _data(n=400, seed=0):
    """Target rising in feature 0, oscillating in feature 1 (the constraint must flatten it), free in 2, 3."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, 4))
    y = 3 * X[:, 0] + np.sin(8 * X[:, 1]) + 0.5 * X[:, 2] + 0.5 * rng.normal(size=n)
    return X, y


def _binary(y, seed=1):
    return (y + np.random.RandomState(seed).normal(size=y.shape[0]) > np.median(y)).astype(int)


def _sweeps(predict, n_features, feature, seed=0, n_points=11, n_grid=200):
    """``predict`` along a grid of ``feature`` through random points; one row per point."""
    rng = np.random.RandomState(seed)
    grid = np.linspace(-0.1, 1.1, n_grid)
    out = []
    for _ in range(n_points):
        Z = np.tile(rng.uniform(size=n_features), (n_grid, 1))
        Z[:, feature] = grid
        out.append(predict(Z))
    return np.array(out)


def _monotone(values, sign):
    return bool(np.all(sign * np.diff(values, axis=1) >= -1e-12))


REGRESSORS = [
    lambda **kw: DecisionTreeRegressor(splitter="exact", **kw),
    lambda **kw: DecisionTreeRegressor(splitter="hist", **kw),
    lambda **kw: DecisionTreeRegressor(splitter="random", **kw),
    lambda **kw: RandomForestRegressor(n_estimators=10, **kw),
    lambda **kw: ExtraTreesRegressor(n_estimators=10, **kw),
    lambda **kw: RandomForestRegressor(n_estimators=10, max_leaf_nodes=20, **kw),
]
CLASSIFIERS = [
    lambda **kw: DecisionTreeClassifier(splitter="exact", **kw),
    lambda **kw: DecisionTreeClassifier(splitter="hist", criterion="entropy", **kw),
    lambda **kw: DecisionTreeClassifier(splitter="random", **kw),
    lambda **kw: RandomForestClassifier(n_estimators=10, **kw),
    lambda **kw: ExtraTreesClassifier(n_estimators=10, **kw),
]


@pytest.mark.parametrize("make", REGRESSORS)
def test_regressors_are_monotone_in_constrained_features(make):
    X, y = _data()
    free = make(random_state=0).fit(X, y)
    # the test can fail: unconstrained, the fit is not monotone in either feature
    assert not _monotone(_sweeps(free.predict, 4, 0), +1) or not _monotone(_sweeps(free.predict, 4, 1), -1)
    model = make(monotonic_cst=[1, -1, 0, 0], random_state=0).fit(X, y)
    assert _monotone(_sweeps(model.predict, 4, 0), +1)
    assert _monotone(_sweeps(model.predict, 4, 1), -1)
    assert model.score(X, y) > 0.5


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_binary_classifiers_are_monotone_in_the_second_class(make):
    X, y = _data()
    yc = np.where(_binary(y) == 1, "yes", "no")  # classes_ = ["no", "yes"]: constraints are on P("yes")
    proba = lambda m: (lambda Z: m.predict_proba(Z)[:, 1])  # noqa: E731
    free = make(random_state=0).fit(X, yc)
    assert not _monotone(_sweeps(proba(free), 4, 0), +1) or not _monotone(_sweeps(proba(free), 4, 1), -1)
    model = make(monotonic_cst=[1, -1, 0, 0], random_state=0).fit(X, yc)
    assert _monotone(_sweeps(proba(model), 4, 0), +1)
    assert _monotone(_sweeps(proba(model), 4, 1), -1)
    assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert model.score(X, yc) > 0.7


def _walk(tree, k=0):
    """Pre-order ``(n_node_samples, value)`` of every node: the tree's shape, blind to which of
    two tied features a split used (equal costs, same child sizes and values)."""
    out = [(int(tree.n_node_samples[k]), tuple(np.round(tree.value[k].ravel(), 10)))]
    if tree.children_left[k] >= 0:
        out += _walk(tree, tree.children_left[k]) + _walk(tree, tree.children_right[k])
    return out


def _one_of_scikit_learns(ours, Sk, cst, params, X, y):
    """Whether our tree is node for node one of scikit-learn's for five seeds.

    scikit-learn's seed only orders the features, which decides ties between
    features of equal cost; every tie broken either way is a correct tree.
    """
    return any(_walk(ours.tree_) == _walk(Sk(monotonic_cst=cst, random_state=rs, **params).fit(X, y).tree_)
               for rs in range(5))


@pytest.mark.parametrize("cst", [[1, -1, 0, 0], [1, 1, 1, 1], [-1, 0, 0, 1]])
@pytest.mark.parametrize("params", [dict(max_depth=4), dict(min_samples_leaf=5)])
def test_regression_tree_is_scikit_learns(cst, params):
    # bounds, midpoints and clipping as scikit-learn's exact tree has them
    X, y = _data()
    ours = DecisionTreeRegressor(monotonic_cst=cst, random_state=0, **params).fit(X, y)
    assert _one_of_scikit_learns(ours, SkTreeRegressor, cst, params, X, y)


@pytest.mark.parametrize("cst", [[1, -1, 0, 0], [1, 1, 1, 1]])
@pytest.mark.parametrize("params", [dict(max_depth=4), dict(min_samples_leaf=10, criterion="entropy")])
def test_classification_tree_is_scikit_learns(cst, params):
    # scikit-learn constrains P(class 0) with the signs flipped; we constrain P(class 1): the same trees
    X, y = _data()
    yc = _binary(y)
    ours = DecisionTreeClassifier(monotonic_cst=cst, random_state=0, **params).fit(X, yc)
    assert _one_of_scikit_learns(ours, SkTreeClassifier, cst, params, X, yc)


def test_the_comparison_can_fail():
    X, y = _data()
    ours = DecisionTreeRegressor(monotonic_cst=[1, 0, 0, 0], max_depth=4, random_state=0).fit(X, y)
    assert not _one_of_scikit_learns(ours, SkTreeRegressor, [-1, 0, 0, 0], dict(max_depth=4), X, y)


def _leaf_values(tree, k):
    left, right = tree.children_left, tree.children_right
    out, stack = [], [k]
    while stack:
        j = stack.pop()
        if left[j] < 0:
            out.append(tree.value[j, 0, -1])
        else:
            stack += [left[j], right[j]]
    return np.array(out)


@pytest.mark.parametrize("Est, target", [(DecisionTreeRegressor, "y"), (DecisionTreeClassifier, "binary")])
def test_every_leaf_left_of_a_constrained_split_is_ordered_against_every_leaf_right(Est, target):
    # the bounds' purpose, checked on the tree itself: under a split on an increasing feature,
    # no leaf on the left exceeds any leaf on the right (value = mean, or P(class 1))
    X, y = _data()
    tree = Est(monotonic_cst=[1, -1, 0, 0], random_state=0).fit(X, y if target == "y" else _binary(y)).tree_
    n_checked = 0
    for k in range(tree.node_count):
        f = tree.feature[k]
        if tree.children_left[k] < 0 or f > 1:
            continue
        lower, upper = _leaf_values(tree, tree.children_left[k]), _leaf_values(tree, tree.children_right[k])
        if f == 1:
            lower, upper = upper, lower
        assert lower.max() <= upper.min() + 1e-12
        n_checked += 1
    assert n_checked >= 5


def test_constraints_with_missing_values_and_sample_weights():
    X, y = _data()
    X = X.copy()
    X[::7, 0] = np.nan
    X[::5, 1] = np.nan
    w = np.random.RandomState(0).uniform(0.5, 2.0, size=X.shape[0])
    model = RandomForestRegressor(n_estimators=10, monotonic_cst=[1, -1, 0, 0], random_state=0)
    model.fit(X, y, sample_weight=w)
    assert _monotone(_sweeps(model.predict, 4, 0), +1)
    assert _monotone(_sweeps(model.predict, 4, 1), -1)


def test_pruning_keeps_the_constraint():
    X, y = _data()
    model = DecisionTreeRegressor(monotonic_cst=[1, -1, 0, 0], ccp_alpha=0.01, random_state=0).fit(X, y)
    full = DecisionTreeRegressor(monotonic_cst=[1, -1, 0, 0], random_state=0).fit(X, y)
    assert model.tree_.node_count < full.tree_.node_count
    assert _monotone(_sweeps(model.predict, 4, 0), +1)
    assert _monotone(_sweeps(model.predict, 4, 1), -1)


def test_all_zero_constraints_change_nothing():
    X, y = _data()
    a = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    b = RandomForestRegressor(n_estimators=5, monotonic_cst=[0, 0, 0, 0], random_state=0).fit(X, y)
    assert_array_equal(a.predict(X), b.predict(X))


def test_forest_trees_carry_the_constraint():
    X, y = _data()
    forest = RandomForestRegressor(n_estimators=3, monotonic_cst=[1, 0, 0, 0], random_state=0).fit(X, y)
    assert all(list(est.monotonic_cst) == [1, 0, 0, 0] for est in forest.estimators_)


@pytest.mark.parametrize("Est, cst, match", [
    (DecisionTreeRegressor, [1, 0, 0], "has shape"),
    (DecisionTreeRegressor, [[1, 0, 0, 0]], "has shape"),
    (RandomForestRegressor, [2, 0, 0, 0], "-1, 0 or 1"),
    (DecisionTreeClassifier, [1, 0, 0, 0], "multiclass"),
    (RandomForestClassifier, [1, 0, 0, 0], "multiclass"),
])
def test_bad_constraints_are_rejected(Est, cst, match):
    X, y = _data()
    target = np.digitize(y, np.quantile(y, [0.33, 0.66])) if Est in (DecisionTreeClassifier,
                                                                      RandomForestClassifier) else y
    with pytest.raises(ValueError, match=match):
        Est(monotonic_cst=cst).fit(X, target)


def test_stochastic_splitter_is_rejected():
    X, y = _data()
    with pytest.raises(ValueError, match="stochastic"):
        DecisionTreeRegressor(splitter="stochastic", monotonic_cst=[1, 0, 0, 0]).fit(X, y)


# -- estimators_samples_ ----------------------------------------------------------------------------------------------

def test_estimators_samples_are_the_bootstrap_draws():
    X, y = _data()
    forest = RandomForestRegressor(n_estimators=4, max_samples=0.5, random_state=0).fit(X, y)
    samples = forest.estimators_samples_
    assert len(samples) == 4
    for est, drawn in zip(forest.estimators_, samples):
        assert drawn.shape == (200,)
        assert drawn.min() >= 0 and drawn.max() < X.shape[0]
        assert len(np.unique(drawn)) < 200  # drawn with replacement
        counts = np.bincount(drawn, minlength=X.shape[0])
        assert_array_equal(counts, bootstrap_counts(est.random_state, X.shape[0], 200))
        assert est.tree_.weighted_n_node_samples[0] == counts.sum()


def test_estimators_samples_reproduce_each_tree():
    # scikit-learn's use: the rows of X[estimators_samples_[i]] are the tree's training set
    X, y = _data()
    forest = RandomForestRegressor(n_estimators=3, splitter="exact", max_features=None, random_state=0).fit(X, y)
    for est, drawn in zip(forest.estimators_, forest.estimators_samples_):
        counts = np.bincount(drawn, minlength=X.shape[0])
        refit = DecisionTreeRegressor(splitter="exact").fit(X, y, sample_weight=counts)
        # compared on the tree's own rows (tied features route out-of-bag rows by the feature order)
        assert_allclose(refit.predict(X[drawn]), est.predict(X[drawn]))


def test_estimators_samples_without_bootstrap_and_with_warm_start():
    X, y = _data()
    et = ExtraTreesRegressor(n_estimators=2, random_state=0).fit(X, y)
    for drawn in et.estimators_samples_:
        assert_array_equal(drawn, np.arange(X.shape[0]))
    rf = RandomForestClassifier(n_estimators=2, warm_start=True, random_state=0).fit(X, _binary(y))
    first = rf.estimators_samples_
    rf.set_params(n_estimators=4).fit(X, _binary(y))
    again = rf.estimators_samples_
    assert len(again) == 4
    for a, b in zip(first, again[:2]):
        assert_array_equal(a, b)


def test_oob_score_agrees_with_estimators_samples():
    X, y = _data()
    yc = _binary(y)
    forest = RandomForestClassifier(n_estimators=30, oob_score=True, random_state=0).fit(X, yc)
    sums = np.zeros((X.shape[0], 2))
    for est, drawn in zip(forest.estimators_, forest.estimators_samples_):
        out = np.setdiff1d(np.arange(X.shape[0]), drawn)
        sums[out] += est.predict_proba(X[out])
    seen = sums.sum(axis=1) > 0
    expected = np.mean(forest.classes_[np.argmax(sums[seen], axis=1)] == yc[seen])
    assert forest.oob_score_ == pytest.approx(expected)


def test_tree_grown_on_every_row_has_no_out_of_bag_rows():
    # most weights 0 and a tiny bootstrap: some draws hold only weight-0 rows, and those
    # trees fall back to every row of positive weight (see BaseForest._fit)
    X, y = _data(n=200)
    w = np.zeros(X.shape[0])
    w[:3] = 1.0
    forest = RandomForestRegressor(n_estimators=20, max_samples=20, oob_score=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # rows never out of bag
        forest.fit(X, y, sample_weight=w)
    samples = forest.estimators_samples_
    fallback = [k for k, d in enumerate(samples) if d.shape[0] == X.shape[0]]
    drawn = [k for k, d in enumerate(samples) if d.shape[0] == 20]
    assert fallback and drawn, "the data were chosen so that some draws hold only weight-0 rows, others not"
    for k in fallback:
        assert_array_equal(samples[k], np.arange(X.shape[0]))
    # the out-of-bag prediction of a row comes from the drawn trees that missed it only
    expected = np.zeros(X.shape[0])
    n_out = np.zeros(X.shape[0])
    for k in drawn:
        out = np.setdiff1d(np.arange(X.shape[0]), samples[k])
        expected[out] += forest.estimators_[k].predict(X[out])
        n_out[out] += 1
    seen = n_out > 0
    assert_allclose(forest.oob_prediction_[seen], expected[seen] / n_out[seen])


def test_estimators_samples_match_scikit_learns_meaning():
    # same attribute contract: a list of int arrays of length max_samples, one per tree
    X, y = _data()
    ours = RandomForestClassifier(n_estimators=3, max_samples=50, random_state=0).fit(X, _binary(y))
    ref = SkForestClassifier(n_estimators=3, max_samples=50, random_state=0).fit(X, _binary(y))
    assert [d.shape for d in ours.estimators_samples_] == [d.shape for d in ref.estimators_samples_]
    assert all(np.issubdtype(d.dtype, np.integer) for d in ours.estimators_samples_)


def test_oob_score_is_nan_when_no_row_is_ever_out_of_bag():
    # every draw holds only weight-0 rows: every tree is grown on all rows, none has an OOB row
    X, y = _data(n=100)
    w = np.zeros(X.shape[0])
    w[0] = 1.0
    w[1] = 1.0
    forest = RandomForestRegressor(n_estimators=2, max_samples=1, oob_score=True, random_state=0)
    with pytest.warns(UserWarning, match="OOB"):
        forest.fit(X, y, sample_weight=w)
    assert all(d.shape[0] == X.shape[0] for d in forest.estimators_samples_)
    assert np.isnan(forest.oob_score_)
