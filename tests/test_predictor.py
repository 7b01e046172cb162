"""The compact (16-byte) prediction layout routes every row exactly as the full node array does."""

import re

import numpy as np
from numpy.testing import assert_array_equal
from sklearn.datasets import make_classification

import pytest

from forestzoo import DecisionTreeClassifier, ExtraTreesRegressor, RandomForestClassifier, RotationForestClassifier
from forestzoo._engine.tree import (
    BRANCH_MIN_BYTES, COMPACT_DTYPE, LANES_MAX_BYTES, LANES_MIN_SPREAD, NODE_DTYPE, LeafValueTree, PredictionTree,
    Tree, apply_by_branch, apply_by_branch_preorder, apply_compact, apply_lanes, branch_walker, compact_table,
    _leaf_depths, path_spread, walk_by_branch, walk_in_lanes,
)


def _full_apply(tree, X):
    """The leaf of every row by the walk over the full node records (the last node of its decision path)."""
    path = tree.decision_path(X)
    return path.indices[path.indptr[1:] - 1]


def test_compact_nodes_are_16_bytes_and_round_thresholds_down():
    assert COMPACT_DTYPE.itemsize == 16
    X, y = make_classification(500, 6, random_state=0)
    tree = RandomForestClassifier(3, splitter="exact", random_state=0).fit(X, y).estimators_[0].tree_
    c = compact_table(tree.nodes).view(COMPACT_DTYPE)
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


def _sparse_like(n_rows, n_features, density, seed=0):
    """Mostly zeros, a label from a few columns: fully grown trees become long chains of predictable splits."""
    rng = np.random.RandomState(seed)
    X = np.where(rng.rand(n_rows, n_features) < density, rng.rand(n_rows, n_features), 0.0).astype(np.float32)
    y = (X[:, :20].sum(axis=1) + 0.05 * rng.rand(n_rows) > 0.1).astype(int)
    return X, y



def test_eight_row_walks_reach_every_leaf_for_any_row_count():
    """Both eight-row walks (together, and in lanes that take the next row at once): every row count (fewer
    rows than eight, not a multiple of eight), rows of very unequal depths side by side (a shallow leaf beside
    fully grown paths), and the rows still on their way when no row is left."""
    X, y = make_classification(3000, 10, random_state=2)
    X[::7, 1] = np.nan
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    depth = tree.nodes["depth"][_full_apply(tree, np.float32(X))]
    order = np.argsort(depth, kind="stable")
    rows = np.float32(np.vstack([X[order[:40]], X[order[-40:]], X[:300]]))  # shallow and deep leaves together
    rng = np.random.RandomState(0)
    for n in list(range(0, 26)) + [63, 64, 65, 379, 380]:
        Xt = np.ascontiguousarray(rows[rng.permutation(rows.shape[0])[:n]] if n <= rows.shape[0] else rows)
        want = _full_apply(tree, Xt) if n else np.empty(0, np.intp)
        got = np.full(Xt.shape[0], -1, np.intp)
        apply_compact(Xt, tree.compact, tree.walk_nodes, tree.obl_ptr, tree.obl_feature, tree.obl_weight, got)
        assert_array_equal(got, want)
        got[:] = -1
        apply_lanes(Xt, tree.compact, got)
        assert_array_equal(got, want)


def test_lanes_are_chosen_for_unbalanced_trees_in_cache_only():
    X, y = make_classification(4000, 10, random_state=0)
    deep = RandomForestClassifier(3, random_state=0).fit(X, y)
    shallow = RandomForestClassifier(3, max_depth=4, random_state=0).fit(X, y)
    for e in deep.estimators_:
        assert path_spread(e.tree_) >= LANES_MIN_SPREAD and walk_in_lanes(e.tree_)
    for e in shallow.estimators_:
        assert path_spread(e.tree_) < LANES_MIN_SPREAD and not walk_in_lanes(e.tree_)
    # the spread: the expected deepest of eight paths over the mean path, for the training rows
    t = deep.estimators_[0].tree_
    leaf = t.nodes["left"] < 0
    steps = np.repeat(t.nodes["depth"][leaf] + 1, np.round(t.nodes["weighted_n_samples"][leaf]).astype(int))
    draws = np.random.RandomState(0).choice(steps, (20000, 8))
    assert abs(draws.max(axis=1).mean() / steps.mean() - path_spread(t)) < 0.02
    # a prediction-only tree (no training weights kept) weighs its leaves equally, and is still chosen
    assert walk_in_lanes(PredictionTree(t))
    assert_array_equal(np.sort(_leaf_depths(t.compact)), np.sort(t.nodes["depth"][leaf]))
    noisy = make_classification(60000, 10, flip_y=0.6, random_state=0)  # a leaf for every few rows
    big = DecisionTreeClassifier(splitter="random", random_state=0).fit(*noisy).tree_
    assert path_spread(big) >= LANES_MIN_SPREAD and big.compact.nbytes > LANES_MAX_BYTES and not walk_in_lanes(big)
    oblique = RotationForestClassifier(n_estimators=1, random_state=0).fit(X[:500], y[:500]).estimators_[0].tree_
    assert not walk_in_lanes(oblique)


def test_forest_predictions_do_not_depend_on_the_lanes(monkeypatch):
    import forestzoo.ensemble._forest as forest_module

    X, y = make_classification(3000, 10, random_state=1)
    X[::9, 2] = np.nan
    for est in (RandomForestClassifier(6, random_state=0), ExtraTreesRegressor(6, random_state=0)):
        est.fit(X, y)
        assert all(walk_in_lanes(e.tree_) for e in est.estimators_)
        got = est.predict_proba(X) if hasattr(est, "predict_proba") else est.predict(X)
        leaves = est.apply(X)
        with monkeypatch.context() as m:
            m.setattr(forest_module, "walk_in_lanes", lambda tree: False)
            m.setattr(Tree, "apply", lambda self, rows: _full_apply(self, rows))
            assert_array_equal(got, est.predict_proba(X) if hasattr(est, "predict_proba") else est.predict(X))
            assert_array_equal(leaves, est.apply(X))

def test_walk_by_branch_reaches_the_leaves_of_the_eight_row_walk():
    """Both walks by branches (the preorder one on depth-first trees only) against the eight-row walk, NaN
    (in feature 0 too), rows on, just below and just above every threshold; best-first trees are not in
    preorder."""
    X, y = _sparse_like(3000, 300, 0.02)
    X[::13, :40] = np.nan
    Xd, yd = make_classification(2000, 8, random_state=1)
    Xd[::11, 3] = np.nan
    Xd[::17, 0] = np.nan
    best_first = DecisionTreeClassifier(max_leaf_nodes=20, random_state=0).fit(Xd, yd)
    assert not best_first.tree_.preorder and branch_walker(best_first.tree_) is apply_by_branch
    for est, data in ((RandomForestClassifier(4, max_features="sqrt", random_state=0).fit(X, y), X),
                      (RandomForestClassifier(4, splitter="exact", random_state=0).fit(Xd, yd), Xd),
                      (ExtraTreesRegressor(4, random_state=0).fit(Xd, yd.astype(float)), Xd),
                      (best_first, Xd)):
        for t in ([est.tree_] if hasattr(est, "tree_") else [e.tree_ for e in est.estimators_]):
            internal = np.flatnonzero(t.nodes["left"] >= 0)[:200]
            probe = np.repeat(np.float32(data[:len(internal)]), 3, axis=0)
            for j, k in enumerate(internal):  # at, just below and just above the thresholds
                f, thr32 = t.nodes["feature"][k], np.float32(t.nodes["threshold"][k])
                probe[3 * j, f] = thr32
                probe[3 * j + 1, f] = np.nextafter(thr32, np.float32(-np.inf))
                probe[3 * j + 2, f] = np.nextafter(thr32, np.float32(np.inf))
            Xt = np.ascontiguousarray(np.vstack([np.float32(data), probe]))
            by_rows, by_branch = (np.empty(Xt.shape[0], np.intp) for _ in range(2))
            apply_compact(Xt, t.compact, t.walk_nodes, t.obl_ptr, t.obl_feature, t.obl_weight, by_rows)
            apply_by_branch(Xt, t.compact, by_branch)
            assert_array_equal(by_branch, by_rows)
            assert_array_equal(by_branch, _full_apply(t, Xt))
            if t.preorder:
                assert branch_walker(t) is apply_by_branch_preorder
                apply_by_branch_preorder(Xt, t.compact, by_branch)
                assert_array_equal(by_branch, by_rows)


def test_branch_walk_is_chosen_for_wide_rows_beyond_the_cache_only():
    X, y = _sparse_like(4000, 300, 0.02)
    t = RandomForestClassifier(3, max_features="sqrt", random_state=0).fit(X, y).estimators_[0].tree_
    big = np.zeros((BRANCH_MIN_BYTES // (4 * 300) + 1, 300), np.float32)
    assert walk_by_branch(t, big) and not walk_by_branch(t, big[:100])  # rows in cache: eight at a time
    narrow = np.zeros((BRANCH_MIN_BYTES // (4 * 100) + 1, 100), np.float32)
    assert not walk_by_branch(t, narrow)
    oblique = RotationForestClassifier(n_estimators=1, random_state=0).fit(X[:500], y[:500]).estimators_[0].tree_
    assert not walk_by_branch(oblique, big)


def test_forest_predictions_do_not_depend_on_the_walk():
    from scipy import sparse

    X, y = _sparse_like(4000, 300, 0.02)
    forest = RandomForestClassifier(3, max_features="sqrt", random_state=0).fit(X, y)
    Xbig = np.vstack([X] * (BRANCH_MIN_BYTES // X.nbytes + 1))
    assert walk_by_branch(forest.estimators_[0].tree_, Xbig)
    # the sparse walk (from CSR, eight rows in flight) reaches the same leaves
    assert_array_equal(forest.predict_proba(Xbig), forest.predict_proba(sparse.csr_matrix(Xbig)))
    assert_array_equal(forest.apply(Xbig), forest.apply(sparse.csr_matrix(Xbig)))


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
        for est in forest.estimators_:
            est.tree_ = LeafValueTree(est.tree_)
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
    assert kinds == {True, False}  # pure and impure leaves were both converted


def _forests_with_nan():
    X, y = _nan_data()
    return X, (RandomForestClassifier(8, random_state=0).fit(X, y),
               RandomForestClassifier(8, min_samples_leaf=5, random_state=0).fit(X, y),  # impure leaves
               ExtraTreesRegressor(8, random_state=0).fit(X, y + np.nan_to_num(X[:, 0]).clip(-3, 3)))


def test_prediction_tree_predicts_bit_identically_and_keeps_the_structure():
    X, forests = _forests_with_nan()
    for forest in forests:
        full = [e.tree_ for e in forest.estimators_]
        predict = forest.predict_proba if hasattr(forest, "predict_proba") else forest.predict
        before, leaves = predict(X), forest.apply(X)
        path, ptr = forest.decision_path(X[:300])
        forest._keep_prediction_only()
        assert_array_equal(predict(X), before)
        assert_array_equal(forest.apply(X), leaves)
        path2, ptr2 = forest.decision_path(X[:300])
        assert_array_equal(ptr2, ptr)
        assert (path2 != path).nnz == 0
        for est, tree in zip(forest.estimators_, full):
            slim = est.tree_
            assert isinstance(slim, PredictionTree)
            assert_array_equal(slim.predict(X), tree.predict(X))
            # the stored bytes: the 16-byte table, a 4-byte leaf code, and the impure leaves' rows only
            stored = slim.cnodes.nbytes + slim.leaf_row.nbytes + slim.leaf_values.nbytes
            assert stored == 20 * tree.node_count + slim.leaf_values.nbytes
            assert "nodes" not in slim.__dict__ and "values" not in slim.__dict__
            assert (slim.node_count, slim.n_leaves, slim.max_depth, slim.n_values) == (
                tree.node_count, tree.n_leaves, tree.max_depth, tree.n_values)
            # the structure is exact; the thresholds are the float32 ones the walk compares with
            a, b = slim.nodes, tree.nodes
            internal = b["left"] != -1
            for name in ("left", "right", "depth", "oblique"):
                assert_array_equal(a[name], b[name])
            assert_array_equal(a["feature"][internal], b["feature"][internal])
            assert_array_equal(a["missing_left"][internal], b["missing_left"][internal])
            t32 = a["threshold"][internal]
            assert np.all(t32 <= b["threshold"][internal]) and np.all(t32.astype(np.float32) == t32)
            assert_array_equal(slim.apply(X), _full_apply(tree, X))
            # what is not kept says so
            assert (a["n_samples"] == -1).all() and np.isnan(a["impurity"]).all()
            assert_array_equal(slim.values[~internal], tree.values[~internal])
            assert np.isnan(slim.values[internal]).all()
            with pytest.raises(ValueError, match="feature importances are not available"):
                slim.compute_feature_importances()
        forest._keep_prediction_only()  # a second call leaves converted trees alone
        assert all(isinstance(e.tree_, PredictionTree) for e in forest.estimators_)
        with pytest.raises(ValueError, match="feature importances are not available"):
            forest.feature_importances_


def test_oblique_trees_keep_their_records():
    X, y = _nan_data(n_classes=3)
    X = np.nan_to_num(X)
    forest = RotationForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    tree = forest.estimators_[0].tree_
    assert tree.obl_ptr.shape[0] > 1
    with pytest.raises(ValueError, match="axis-aligned trees only"):
        PredictionTree(tree)
    before = forest.predict_proba(X)
    forest._keep_prediction_only()
    assert all(type(e.tree_) is LeafValueTree for e in forest.estimators_)
    assert_array_equal(forest.predict_proba(X), before)


def test_leaf_value_tree_pickles_and_saves(tmp_path):
    import pickle

    from forestzoo.io import load, save

    X, y = _nan_data(n_classes=3)
    forest = RandomForestClassifier(4, random_state=1).fit(X, y)
    for est in forest.estimators_[:2]:
        est.tree_ = LeafValueTree(est.tree_)
    forest._keep_prediction_only()  # the other two become prediction trees
    assert [type(e.tree_) for e in forest.estimators_] == [LeafValueTree] * 2 + [PredictionTree] * 2
    expected = forest.predict_proba(X)
    assert_array_equal(pickle.loads(pickle.dumps(forest)).predict_proba(X), expected)
    save(forest, tmp_path / "rf.fz")
    loaded = load(tmp_path / "rf.fz")
    assert [type(e.tree_) for e in loaded.estimators_] == [LeafValueTree] * 2 + [PredictionTree] * 2
    assert_array_equal(loaded.estimators_[3].tree_.cnodes, forest.estimators_[3].tree_.cnodes)
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


@pytest.mark.parametrize("kind", ["dense", "csr", "wide", "leaf_values", "regressor"])
def test_small_inputs_predict_what_one_thread_does(kind):
    """Below two row blocks, threads take trees instead of rows (sparse rows); the values are added in tree order."""
    from scipy import sparse

    from forestzoo import RandomForestRegressor
    from forestzoo.ensemble._forest import TREE_PARALLEL_WALKS

    X, y = _sparse_like(2000, 2000, 0.01) if kind == "wide" else _sparse_like(1500, 300, 0.02)
    if kind != "csr":
        X[::17, 5] = np.nan
    if kind == "regressor":
        forest = RandomForestRegressor(24, max_features="sqrt", random_state=0).fit(X, y + X[:, 1])
    else:
        forest = RandomForestClassifier(24, max_features="sqrt", random_state=0).fit(X, y)
    if kind == "leaf_values":
        for e in forest.estimators_:
            e.tree_ = LeafValueTree(e.tree_)
    data = sparse.csr_matrix(X) if kind in ("csr", "leaf_values", "regressor") else X
    assert TREE_PARALLEL_WALKS[0] <= data.shape[0] * 24 <= TREE_PARALLEL_WALKS[1] and data.shape[0] < 2 * 4096
    if kind == "wide":
        assert walk_by_branch(forest.estimators_[0].tree_, data)
    predict = forest.predict if kind == "regressor" else forest.predict_proba
    one = predict(data)
    forest.set_params(n_jobs=2)
    assert_array_equal(predict(data), one)
    forest.set_params(n_jobs=1)
    # and what the trees give one by one, added in tree order
    total = np.zeros_like(np.atleast_2d(one.T).T, dtype=np.float64)
    for e in forest.estimators_:
        total += e.tree_.predict(data)
    assert_array_equal(np.ravel(total / 24), np.ravel(one))
