"""The compact (16-byte) prediction layout routes every row exactly as the full node array does."""

import re

import numpy as np
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification

from forestzoo import ExtraTreesRegressor, RandomForestClassifier
from forestzoo._engine.tree import COMPACT_DTYPE, NODE_DTYPE, LeafValueTree, Tree, apply_tree, compact_nodes


def _full_apply(tree, X):
    out = np.empty(X.shape[0], dtype=np.intp)
    apply_tree(X, tree.nodes, tree.obl_ptr, tree.obl_feature, tree.obl_weight, out)
    return out


def test_compact_nodes_are_16_bytes_and_round_thresholds_down():
    assert COMPACT_DTYPE.itemsize == 16
    X, y = make_classification(500, 6, random_state=0)
    tree = RandomForestClassifier(3, splitter="exact", random_state=0).fit(X, y).estimators_[0].tree_
    c = compact_nodes(tree.nodes)
    internal = tree.nodes["left"] >= 0
    t64 = tree.nodes["threshold"][internal]
    t32 = c["threshold"][internal].astype(np.float64)
    assert np.all(t32 <= t64)
    # no float32 lies strictly between the rounded and the exact threshold
    assert np.all(np.nextafter(c["threshold"][internal], np.float32(np.inf)).astype(np.float64) > t64)


def test_compact_apply_equals_full_apply_on_values_at_thresholds_and_nan():
    X, y = make_classification(2000, 8, random_state=1)
    X[::11, 3] = np.nan
    for est in (RandomForestClassifier(5, splitter="exact", random_state=0).fit(X, y),
                RandomForestClassifier(5, splitter="hist", random_state=0).fit(X, y),
                ExtraTreesRegressor(5, random_state=0).fit(X, y.astype(float))):
        for t in (e.tree_ for e in est.estimators_):
            # probe exactly at, just below and just above every threshold, and NaN
            internal = np.flatnonzero(t.nodes["left"] >= 0)
            probe = np.repeat(np.float32(X[:50]), 4, axis=0)
            for j, k in enumerate(internal[:50]):
                f, thr = t.nodes["feature"][k], t.nodes["threshold"][k]
                thr32 = np.float32(thr)
                probe[4 * j, f] = thr32
                probe[4 * j + 1, f] = np.nextafter(thr32, np.float32(-np.inf))
                probe[4 * j + 2, f] = np.nextafter(thr32, np.float32(np.inf))
                probe[4 * j + 3, f] = np.nan
            Xt = np.vstack([np.float32(X), probe])
            assert_array_equal(t.apply(Xt), _full_apply(t, Xt))


def test_compact_layout_serves_oblique_nodes_and_is_not_pickled():
    import pickle

    nodes = np.zeros(3, dtype=NODE_DTYPE)
    nodes["left"] = [1, -1, -1]
    nodes["right"] = [2, -1, -1]
    nodes["feature"] = [-1, -1, -1]
    nodes["oblique"] = [0, -1, -1]
    nodes["threshold"] = [0.5, 0, 0]
    nodes["missing_left"] = [1, 0, 0]
    values = np.array([[0.5], [1.0], [2.0]])
    tree = Tree(nodes, values, 2, np.array([0, 2]), np.array([0, 1], np.int32), np.array([1.0, -1.0]))
    X = np.array([[1.0, 0.6], [1.0, 0.4], [np.nan, 0.0]], dtype=np.float32)
    assert_array_equal(tree.apply(X), [1, 2, 1])
    assert_array_equal(tree.apply(X), _full_apply(tree, X))
    assert "_compact" in tree.__dict__
    assert "_compact" not in pickle.loads(pickle.dumps(tree)).__dict__


def _nan_data(n=2000, n_classes=5, seed=0):
    X, y = make_classification(n, 12, n_informative=8, n_classes=n_classes, random_state=seed)
    X[np.random.default_rng(seed).random(X.shape) < 0.05] = np.nan
    return X.astype(np.float32), y


def test_leaf_value_tree_predicts_bit_identically_and_rebuilds_internal_values():
    X, y = _nan_data()
    kinds = set()
    for forest in (RandomForestClassifier(8, random_state=0).fit(X, y),
                   RandomForestClassifier(8, min_samples_leaf=5, random_state=0).fit(X, y),  # impure leaves
                   ExtraTreesRegressor(8, random_state=0).fit(X, y + np.nan_to_num(X[:, 0]).clip(-3, 3))):
        full = [e.tree_ for e in forest.estimators_]
        before = forest.predict_proba(X) if hasattr(forest, "predict_proba") else forest.predict(X)
        forest._keep_leaf_values_only()
        after = forest.predict_proba(X) if hasattr(forest, "predict_proba") else forest.predict(X)
        assert_array_equal(before, after)
        for est, tree in zip(forest.estimators_, full):
            slim = est.tree_
            assert isinstance(slim, LeafValueTree) and slim.nodes is tree.nodes
            assert slim.__dict__["_compact"] is tree.compact  # the prediction layout is kept, not rebuilt
            # a row per leaf that is not one-hot; the pure leaves of a classifier keep only their class
            leaf_rows = tree.values[tree.nodes["left"] == -1]
            one_hot = ((leaf_rows == 1.0).sum(axis=1) == 1) & ((leaf_rows == 0.0).sum(axis=1) == tree.n_values - 1)
            if tree.n_values == 1:
                one_hot[:] = False
            assert slim.leaf_values.shape == (tree.n_leaves - one_hot.sum(), tree.n_values)
            kinds |= set(one_hot.tolist())
            assert (slim.leaf_row >= 0).sum() + (slim.leaf_row <= -2).sum() == tree.n_leaves
            assert_array_equal(slim.predict(X), tree.predict(X))
            assert_array_equal(slim.apply(X), tree.apply(X))
            # internal rows are the weighted means of their children: the grower's values up to rounding
            np.testing.assert_allclose(slim.values, tree.values, rtol=1e-12, atol=1e-12)
        forest._keep_leaf_values_only()  # a second call leaves converted trees alone
        assert all((e.tree_.leaf_row != -1).sum() == t.n_leaves for e, t in zip(forest.estimators_, full))
    assert kinds == {True, False}  # pure and impure leaves were both converted


def test_leaf_value_tree_pickles_and_saves(tmp_path):
    import pickle

    from forestzoo.io import load, save

    X, y = _nan_data(n_classes=3)
    forest = RandomForestClassifier(4, random_state=1).fit(X, y)._keep_leaf_values_only()
    expected = forest.predict_proba(X)
    assert_array_equal(pickle.loads(pickle.dumps(forest)).predict_proba(X), expected)
    save(forest, tmp_path / "rf.fz")
    loaded = load(tmp_path / "rf.fz")
    assert isinstance(loaded.estimators_[0].tree_, LeafValueTree)
    assert_array_equal(loaded.predict_proba(X), expected)


def test_scikit_learn_tree_attributes_serve_its_exporters():
    from sklearn import config_context
    from sklearn.datasets import load_breast_cancer, load_diabetes
    from sklearn.tree import DecisionTreeClassifier as SkTree
    from sklearn.tree import DecisionTreeRegressor as SkRegressor
    from sklearn.tree import export_graphviz, export_text

    from forestzoo import DecisionTreeClassifier, DecisionTreeRegressor

    for Ours, Theirs, data in ((DecisionTreeClassifier, SkTree, load_breast_cancer),
                               (DecisionTreeRegressor, SkRegressor, load_diabetes)):
        X, y = data(return_X_y=True)
        ours = Ours(max_depth=2, random_state=0).fit(X, y)
        theirs = Theirs(max_depth=2, random_state=0).fit(X, y)  # the regressors: the same splits at this depth
        t = ours.tree_
        leaf = t.children_left == -1
        assert np.all(t.feature[leaf] == -2) and np.all(t.threshold[leaf] == -2)
        assert t.value.shape == (t.node_count, 1, t.n_values) and list(t.n_classes) == [t.n_values]
        assert_array_equal(t.compute_node_depths(), t.nodes["depth"] + 1)
        # export_text walks the tree depth-first, so node numbering does not matter; its parameter check
        # accepts only scikit-learn's classes, hence skip_parameter_validation
        with config_context(skip_parameter_validation=True):
            mine, ref = export_text(ours, show_weights=True), export_text(theirs, show_weights=True)
        if Ours is DecisionTreeRegressor:
            assert mine == ref
        else:  # export_text prints class weights only for its own classifier class; check the splits
            splits = [ln for ln in mine.splitlines() if "feature_" in ln]
            assert len(splits) == 2 * int((~leaf).sum())
            assert splits[0] == f"|--- feature_{t.feature[0]} <= {t.threshold[0]:.2f}"
        dot = export_graphviz(ours)  # accepts any fitted tree
        assert len(re.findall(r"^\d+ \[label=", dot, flags=re.M)) == t.node_count
