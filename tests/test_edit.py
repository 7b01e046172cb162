"""Editable tree arrays (forestzoo._engine.edit) against naive Python references."""

import pickle

import numpy as np
import pytest

from forestzoo import DecisionTreeClassifier, DecisionTreeRegressor
from forestzoo._engine import edit
from forestzoo._engine.tree import TREE_LEAF


def _naive_leaf(tree, x):
    """Leaf row reached by ``x``, walking the node array in plain Python."""
    k = 0
    nodes = tree.nodes
    while nodes["left"][k] != TREE_LEAF:
        v = x[nodes["feature"][k]]
        if np.isnan(v):
            k = nodes["left"][k] if nodes["missing_left"][k] else nodes["right"][k]
        else:
            k = nodes["left"][k] if v <= nodes["threshold"][k] else nodes["right"][k]
    return k


def _naive_predict(tree, X):
    return np.array([tree.values[_naive_leaf(tree, x)] for x in X])


def _check_invariants(tree):
    nodes = tree.nodes
    internal = np.flatnonzero(nodes["left"] != TREE_LEAF)
    assert nodes.shape[0] == tree.values.shape[0]
    for k in internal:
        for c in (nodes["left"][k], nodes["right"][k]):
            assert c > k, "children must be stored after their parent"
            assert nodes["depth"][c] == nodes["depth"][k] + 1
    assert nodes["depth"][0] == 0
    children = np.concatenate((nodes["left"][internal], nodes["right"][internal]))
    assert np.unique(children).shape[0] == children.shape[0], "a node has two parents"


def _data(seed=0, n=300, d=5):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)
    return X, y


def _tree(X, y, **kw):
    return DecisionTreeClassifier(random_state=0, **kw).fit(X, y).tree_


def test_compact_drops_unreachable_rows_and_keeps_predictions():
    X, y = _data()
    tree = _tree(X, y, max_depth=5)
    k = int(np.flatnonzero(tree.nodes["left"] != TREE_LEAF)[3])
    nodes = tree.nodes.copy()
    stack, removed = [int(nodes["left"][k]), int(nodes["right"][k])], 0
    while stack:  # the descendants of k
        j = stack.pop()
        removed += 1
        if nodes["left"][j] != TREE_LEAF:
            stack += [int(nodes["left"][j]), int(nodes["right"][j])]
    nodes["left"][k] = nodes["right"][k] = TREE_LEAF  # disconnect, rows stay
    cut = edit.Tree(nodes, tree.values.copy(), tree.n_features)
    out = edit.compact(cut)
    _check_invariants(out)
    assert out.node_count == tree.node_count - removed
    np.testing.assert_array_equal(out.predict(X), _naive_predict(cut, X))


def test_prune_to_leaves_matches_naive_and_is_pure():
    X, y = _data(1)
    tree = _tree(X, y, max_depth=6)
    before = tree.nodes.copy(), tree.values.copy()
    # two internal nodes, neither an ancestor of the other
    targets = np.array([tree.nodes["left"][0], tree.nodes["right"][0]])
    assert np.all(tree.nodes["left"][targets] != TREE_LEAF)
    new_values = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    out = edit.prune_to_leaves(tree, targets, new_values)
    _check_invariants(out)
    np.testing.assert_array_equal(tree.nodes, before[0])  # input untouched
    np.testing.assert_array_equal(tree.values, before[1])
    expected = _naive_predict(tree, X)
    for k, v in zip(targets, new_values):
        # rows whose path crosses k end in the new leaf
        path = tree.decision_path(X).toarray()[:, k].astype(bool)
        expected[path] = v
    np.testing.assert_array_equal(out.predict(X), expected)


def test_expand_leaves_equals_naive_routing():
    X, y = _data(2)
    yr = y.astype(float) + X[:, 3]
    tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X[:150], yr[:150]).tree_
    leaf_of = tree.apply(X)
    leaves = np.unique(leaf_of)[:2]
    subs = [DecisionTreeRegressor(max_depth=3, random_state=0).fit(X[leaf_of == leaf], yr[leaf_of == leaf]).tree_
            for leaf in leaves]
    out = edit.expand_leaves(tree, leaves, subs)
    _check_invariants(out)
    expected = _naive_predict(tree, X)
    for leaf, sub in zip(leaves, subs):
        rows = leaf_of == leaf
        expected[rows] = _naive_predict(sub, X[rows])
    np.testing.assert_array_equal(out.predict(X), expected)
    # the subtree root keeps the leaf's row, so references to the leaf stay valid
    assert all(out.nodes["left"][leaf] != TREE_LEAF or subs[i].node_count == 1 for i, leaf in enumerate(leaves))


def test_expand_leaves_rejects_internal_nodes_and_bad_widths():
    X, y = _data(3)
    tree = _tree(X, y, max_depth=3)
    with pytest.raises(ValueError, match="Only leaves can be expanded"):
        edit.expand_leaves(tree, [0], [tree])
    leaf = int(np.flatnonzero(tree.nodes["left"] == TREE_LEAF)[0])
    reg = DecisionTreeRegressor(max_depth=2).fit(X, y.astype(float)).tree_
    with pytest.raises(ValueError, match="n_values"):
        edit.expand_leaves(tree, [leaf], [reg])
    with pytest.raises(ValueError, match="Node indices"):
        edit.prune_to_leaves(tree, [tree.node_count + 3])


def test_node_sums_and_refit_values_equal_naive_counts():
    X, y = _data(5)
    tree = _tree(X[:100], y[:100], max_depth=4)
    w = np.random.RandomState(0).randint(0, 3, size=X.shape[0]).astype(float)
    sums = edit.node_sums(tree, X, edit.class_targets(y, 3), w)
    path = tree.decision_path(X).toarray().astype(bool)
    for k in range(tree.node_count):
        rows = path[:, k] & (w > 0)
        assert sums[k, 0] == rows.sum()
        np.testing.assert_allclose(sums[k, 2:], np.bincount(y[rows], weights=w[rows], minlength=3))
    out = edit.refit_values(tree, X, edit.class_targets(y, 3), w)
    leaf = tree.apply(X)
    for k in np.unique(leaf[w > 0]):
        rows = (leaf == k) & (w > 0)
        np.testing.assert_allclose(out.values[k], np.bincount(y[rows], weights=w[rows], minlength=3) / w[rows].sum())
    unreached = np.flatnonzero(sums[:, 1] == 0)
    np.testing.assert_array_equal(out.values[unreached], tree.values[unreached])
    assert out.nodes["weighted_n_samples"][0] == pytest.approx(w.sum())


def test_refit_values_regression_mean():
    X, y = _data(6)
    yr = X[:, 0] * 3.0
    tree = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X[:100], yr[:100]).tree_
    out = edit.refit_values(tree, X, edit.regression_targets(yr), classification=False)
    leaf = tree.apply(X)
    for k in np.unique(leaf):
        assert out.values[k, 0] == pytest.approx(yr[leaf == k].mean())
        assert out.nodes["impurity"][k] == pytest.approx(yr[leaf == k].var(), rel=1e-6)


def test_sklearn_tree_conversion_is_exact():
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    from forestzoo.transfer._source import tree_from_sklearn

    X, y = _data(7)
    Xn = X.copy()
    Xn[::11, 1] = np.nan
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(Xn, y)
    for est in rf.estimators_:
        t = tree_from_sklearn(est.tree_, classification=True)
        _check_invariants(t)
        np.testing.assert_allclose(t.predict(Xn), est.predict_proba(Xn))
    rr = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, X[:, 0])
    for est in rr.estimators_:
        t = tree_from_sklearn(est.tree_, classification=False)
        np.testing.assert_allclose(t.predict(X)[:, 0], est.predict(X))


def test_edited_tree_pickles():
    X, y = _data(8)
    tree = edit.prune_to_leaves(_tree(X, y, max_depth=4), [1])
    back = pickle.loads(pickle.dumps(tree))
    np.testing.assert_array_equal(back.predict(X), tree.predict(X))
