"""criterion="absolute_error": weighted-median leaves, mean-absolute-deviation impurity, L1 split search."""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

from forestzoo import DecisionTreeRegressor, ExtraTreesRegressor, RandomForestRegressor
from forestzoo._engine.splitters.absolute import prefix_errors, rank_node


def _median(y, w):
    """Weighted median by its definition: first target where the cumulative weight exceeds half the total,
    the midpoint with the next target where it equals half exactly."""
    order = np.argsort(y, kind="mergesort")
    ys, cum = y[order], np.cumsum(w[order])
    half = cum[-1] / 2
    k = int(np.argmax(cum >= half))
    if cum[k] == half and k + 1 < len(ys):
        return 0.5 * (ys[k] + ys[k + 1])
    return ys[k]


def _abs_error(y, w):
    return float((w * np.abs(y - _median(y, w))).sum()) if len(y) else 0.0


def _walk(tree, k=0):
    """The tree below node ``k`` as nested tuples (independent of the node numbering)."""
    if tree.children_left[k] < 0:
        return ("leaf", round(float(tree.value[k].ravel()[0]), 9), round(float(tree.impurity[k]), 9))
    return (int(tree.feature[k]), round(float(tree.threshold[k]), 6), round(float(tree.impurity[k]), 9),
            _walk(tree, tree.children_left[k]), _walk(tree, tree.children_right[k]))


def _node_rows(model, X):
    """Boolean (n_rows, n_nodes) matrix: which training rows reach which node."""
    return np.asarray(model.decision_path(X).todense()).astype(bool)


def _data(n=60, n_features=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, n_features))
    y = X[:, 0] - 2 * X[:, -1] + rng.standard_normal(n)
    return X, y, 0.5 + rng.uniform(size=n)


@pytest.mark.parametrize("y, w, expected", [
    ([3.0, 1.0, 2.0], [1, 1, 1], 2.0),
    ([4.0, 1.0, 2.0, 3.0], [1, 1, 1, 1], 2.5),  # cumulative weight exactly half at 2: midpoint with 3
    ([1.0, 2.0, 2.0, 3.0], [1, 1, 1, 1], 2.0),
    ([1.0, 2.0, 10.0], [1, 1, 2], 6.0),  # half at 2 (weights 1 + 1 of 4)
    ([1.0, 2.0, 10.0], [1, 1, 3], 10.0),
    ([5.0, 1.0], [3, 1], 5.0),
])
def test_node_median_and_error(y, w, expected):
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    n = len(y)
    ae, med = rank_node(y, w, 0, n, np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n))
    assert med == expected == _median(y, w)
    assert_allclose(ae, (w * np.abs(y - expected)).sum())


@pytest.mark.parametrize("seed", range(3))
def test_prefix_and_suffix_errors_match_brute_force(seed):
    rng = np.random.RandomState(seed)
    n = 37
    y = np.round(rng.standard_normal(n), 1)  # repeated targets too
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=n)
    ranks, inv, sorted_y = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
    rank_node(y, w, 0, n, ranks, inv, sorted_y)
    order = rng.permutation(n)
    pre, suf, fw, fwy = np.empty(n), np.empty(n), np.empty(n + 1), np.empty(n + 1)
    prefix_errors(order, n, ranks, sorted_y, w, y, 0, n, fw, fwy, pre, False)
    prefix_errors(order, n, ranks, sorted_y, w, y, 0, n, fw, fwy, suf, True)
    for k in range(n):
        head, tail = order[:k + 1], order[k:]
        assert_allclose(pre[k], _abs_error(y[head], w[head]), atol=1e-12)
        assert_allclose(suf[k], _abs_error(y[tail], w[tail]), atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("params", [{}, {"min_samples_leaf": 3}, {"max_leaf_nodes": 7}])
def test_single_feature_tree_equals_scikit_learn(seed, params):
    # one feature and non-integer weights: no two candidate splits cost the same, so the tree is unique
    X, y, w = _data(n=50, n_features=1, seed=seed)
    ours = DecisionTreeRegressor(criterion="absolute_error", splitter="best", **params).fit(X, y, sample_weight=w)
    theirs = SkTreeRegressor(criterion="absolute_error", **params).fit(X, y, sample_weight=w)
    assert _walk(ours.tree_) == _walk(theirs.tree_)


@pytest.mark.parametrize("seed", range(3))
def test_shallow_tree_equals_scikit_learn(seed):
    X, y, w = _data(n=80, n_features=4, seed=seed)
    for kw in ({}, {"sample_weight": w}):
        ours = DecisionTreeRegressor(criterion="absolute_error", splitter="exact", max_depth=2).fit(X, y, **kw)
        theirs = SkTreeRegressor(criterion="absolute_error", max_depth=2).fit(X, y, **kw)
        assert _walk(ours.tree_) == _walk(theirs.tree_)
        assert_allclose(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_every_split_is_the_best_midpoint(splitter):
    # fewer distinct values than bins: the histogram's candidates are the exact search's
    X, y, w = _data(n=40, n_features=3, seed=4)
    model = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter, max_depth=4).fit(X, y, sample_weight=w)
    tree, reach = model.tree_, _node_rows(model, X)
    for k in np.flatnonzero(tree.children_left >= 0):
        rows = reach[:, k]
        best = np.inf
        for f in range(X.shape[1]):
            values = np.unique(X[rows, f])
            for thr in 0.5 * (values[:-1] + values[1:]):
                left = rows & (X[:, f] <= thr)
                right = rows & ~left
                best = min(best, _abs_error(y[left], w[left]) + _abs_error(y[right], w[right]))
        left = rows & (X[:, tree.feature[k]] <= tree.threshold[k])
        right = rows & ~left
        chosen = _abs_error(y[left], w[left]) + _abs_error(y[right], w[right])
        assert chosen <= best + 1e-9


@pytest.mark.parametrize("splitter", ["exact", "hist", "random"])
def test_values_are_weighted_medians_and_impurities_mean_absolute_deviations(splitter):
    X, y, w = _data(seed=5)
    model = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter, max_depth=3,
                                  random_state=0).fit(X, y, sample_weight=w)
    tree, reach = model.tree_, _node_rows(model, X)
    for k in range(tree.node_count):
        rows = reach[:, k]
        assert_allclose(tree.value[k].ravel()[0], _median(y[rows], w[rows]))
        assert_allclose(tree.impurity[k], _abs_error(y[rows], w[rows]) / w[rows].sum(), atol=1e-12)
    assert_allclose(model.feature_importances_.sum(), 1.0)


def test_hist_equals_exact_with_few_distinct_values():
    X, y, w = _data(n=50, seed=6)
    X = np.round(X, 1)
    exact = DecisionTreeRegressor(criterion="absolute_error", splitter="exact").fit(X, y, sample_weight=w)
    hist = DecisionTreeRegressor(criterion="absolute_error", splitter="hist").fit(X, y, sample_weight=w)
    assert_array_equal(exact.apply(X) >= 0, True)
    assert_allclose(hist.predict(X), exact.predict(X))
    assert hist.tree_.node_count == exact.tree_.node_count


def test_pruning_and_min_impurity_decrease():
    X, y, _ = _data(seed=7)
    full = DecisionTreeRegressor(criterion="absolute_error", splitter="exact").fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    assert np.all(np.diff(path.ccp_alphas) >= 0) and np.all(np.diff(path.impurities) >= -1e-12)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = DecisionTreeRegressor(criterion="absolute_error", splitter="exact", ccp_alpha=alpha).fit(X, y)
    assert pruned.get_n_leaves() < full.get_n_leaves()
    stopped = DecisionTreeRegressor(criterion="absolute_error", splitter="exact", min_impurity_decrease=0.05).fit(X, y)
    assert stopped.get_n_leaves() < full.get_n_leaves()


@pytest.mark.parametrize("Forest", [RandomForestRegressor, ExtraTreesRegressor])
def test_forests_fit_predict_deterministic_and_pickle(Forest):
    X, y, w = _data(n=80, seed=8)
    a = Forest(n_estimators=3, criterion="absolute_error", random_state=0).fit(X, y, sample_weight=w)
    b = Forest(n_estimators=3, criterion="absolute_error", random_state=0).fit(X, y, sample_weight=w)
    pred = a.predict(X)
    assert_array_equal(pred, b.predict(X))
    assert np.mean(np.abs(pred - y)) < np.mean(np.abs(y - np.median(y)))
    assert_array_equal(pickle.loads(pickle.dumps(a)).predict(X), pred)
    assert_allclose(a.feature_importances_.sum(), 1.0)


@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_missing_values_go_to_the_best_side(splitter):
    X, y, w = _data(n=40, n_features=2, seed=9)
    X[::4, 0] = np.nan
    X[1::5, 1] = np.nan
    model = DecisionTreeRegressor(criterion="absolute_error", splitter=splitter, max_depth=3).fit(X, y, sample_weight=w)
    tree, reach = model.tree_, _node_rows(model, X)

    def cost(left, rows):
        return _abs_error(y[rows & left], w[rows & left]) + _abs_error(y[rows & ~left], w[rows & ~left])

    for k in np.flatnonzero(tree.children_left >= 0):
        rows = reach[:, k]
        best = np.inf
        for f in range(X.shape[1]):
            nan = np.isnan(X[:, f])
            values = np.unique(X[rows & ~nan, f])
            for thr in np.append(0.5 * (values[:-1] + values[1:]), np.inf):
                left = ~nan & (X[:, f] <= thr)
                for side in (left, left | nan):
                    if 0 < (rows & side).sum() < rows.sum():
                        best = min(best, cost(side, rows))
        f = tree.feature[k]
        nan = np.isnan(X[:, f])
        left = (~nan & (X[:, f] <= tree.threshold[k])) | (nan & bool(tree.missing_go_to_left[k]))
        assert cost(left, rows) <= best + 1e-9
    assert_array_equal(model.apply(X), model.apply(X.copy()))
    ExtraTreesRegressor(n_estimators=2, criterion="absolute_error", random_state=0).fit(X, y).predict(X)


def test_unsupported_combinations_refused():
    X, y, _ = _data(n=20, seed=10)
    with pytest.raises(ValueError, match="stochastic"):
        DecisionTreeRegressor(criterion="absolute_error", splitter="stochastic").fit(X, y)
    with pytest.raises(ValueError, match="Monotonicity"):
        DecisionTreeRegressor(criterion="absolute_error", monotonic_cst=[1, 0, 0]).fit(X, y)
