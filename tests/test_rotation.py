"""Rotation Forest / Random Rotation Forest: the rotation, its storage as oblique nodes, the estimators."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification, make_regression
from sklearn.decomposition import PCA
from sklearn.model_selection import cross_val_score

from forestzoo._engine.tree import TREE_LEAF
from forestzoo.ensemble import RandomForestClassifier, RotationForestClassifier, RotationForestRegressor
from forestzoo.ensemble._rotation import _pca_block, fit_rotation, rotate


def _dense(basis, n_features):
    ptr, feat, wts = basis
    R = np.zeros((n_features, ptr.size - 1))
    for k in range(ptr.size - 1):
        R[feat[ptr[k]:ptr[k + 1]], k] = wts[ptr[k]:ptr[k + 1]]
    return R


def _check_routing(forest, X):
    """Every training row reaches, through the predictor, a leaf whose stored count includes it."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    for est in forest.estimators_:
        tree = est.tree_
        leaves = tree.apply(X32)
        assert (tree.nodes["left"][leaves] == TREE_LEAF).all()
        counts = np.bincount(leaves, minlength=tree.node_count)
        leaf_rows = tree.nodes["left"] == TREE_LEAF
        assert_array_equal(counts[leaf_rows], tree.nodes["n_samples"][leaf_rows])


@pytest.mark.parametrize("n_features, M", [(7, 3), (9, 3), (2, 3), (10, 4)])
def test_rotation_is_orthonormal_and_block_sparse(n_features, M):
    X, y = make_classification(200, n_features, n_informative=2, n_redundant=0, random_state=0)
    X = np.float32(X)
    basis = fit_rotation(X, y, np.ones(200), np.random.default_rng(0), M, 0.75, 2)
    R = _dense(basis, n_features)
    assert R.shape == (n_features, n_features)
    assert_allclose(R.T @ R, np.eye(n_features), atol=1e-10)
    ptr, feat, _ = basis
    groups = {tuple(feat[ptr[k]:ptr[k + 1]]) for k in range(n_features)}
    assert sorted(np.concatenate([np.array(g) for g in groups])) == list(range(n_features))
    n_groups = -(-n_features // M)
    assert len(groups) == n_groups
    assert {len(g) for g in groups} <= {n_features // n_groups, -(-n_features // n_groups)}


def test_pca_block_matches_sklearn_pca():
    rng = np.random.RandomState(1)
    Xs = rng.normal(size=(60, 3)) @ rng.normal(size=(3, 3))
    ours = _pca_block(Xs)
    ref = PCA(n_components=3).fit(Xs).components_
    assert_allclose(np.abs(ours @ ref.T), np.eye(3), atol=1e-8)  # same axes, same order, up to sign


def test_pca_block_is_complete_on_degenerate_samples():
    Xs = np.array([[1.0, 5.0, 2.0], [2.0, 5.0, 4.0]])  # 2 rows, a constant column, rank 1
    B = _pca_block(Xs)
    assert_allclose(B @ B.T, np.eye(3), atol=1e-10)
    assert_allclose(_pca_block(np.zeros((1, 2))), np.eye(2))


def test_classes_are_eliminated_per_subset():
    """Class 0 varies only along feature 0, class 1 only along feature 1: the first axis says
    which classes the subset kept; over many rotations, each of the three outcomes occurs."""
    rng = np.random.RandomState(0)
    X = np.zeros((200, 2), np.float32)
    X[:100, 0] = rng.normal(size=100) * 5
    X[100:, 1] = rng.normal(size=100) * 5
    y = np.repeat([0, 1], 100)
    seen = set()
    for seed in range(40):
        ptr, feat, wts = fit_rotation(X, y, np.ones(200), np.random.default_rng(seed), 2, 0.75, 2)
        first = np.abs(wts[ptr[0]:ptr[1]])
        seen.add("only0" if first[0] > 0.999 else "only1" if first[1] > 0.999 else "both")
    assert seen == {"only0", "only1", "both"}


def test_rotate_uses_the_predictor_arithmetic():
    X, y = make_classification(300, 8, random_state=2)
    X = np.float32(X)
    basis = fit_rotation(X, y, np.ones(300), np.random.default_rng(3), 3, 0.75, 2)
    XR = rotate(X, basis)
    assert XR.dtype == np.float32 and XR.flags.c_contiguous
    assert_allclose(XR, X.astype(np.float64) @ _dense(basis, 8), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("max_features", [None, "sqrt"])
def test_trees_route_training_rows_where_they_were_grown(max_features):
    X, y = make_classification(400, 10, n_informative=5, n_classes=3, random_state=4)
    rof = RotationForestClassifier(5, max_features=max_features, random_state=0).fit(X, y)
    _check_routing(rof, X)
    tree = rof.estimators_[0].tree_
    internal = tree.nodes["left"] != TREE_LEAF
    assert (tree.nodes["feature"][internal] == -1).all() and (tree.nodes["oblique"][internal] >= 0).all()
    assert np.diff(tree.obl_ptr).max() <= 3  # a rotated feature mixes one subset of M = 3 features
    assert rof.score(X, y) == 1.0


def test_rotation_forest_accuracy_on_iris_and_a_rotated_problem():
    X, y = load_iris(return_X_y=True)
    assert cross_val_score(RotationForestClassifier(20, random_state=0), X, y, cv=3).mean() > 0.93
    # a boundary along a diagonal of correlated features: rotation helps axis-parallel trees
    rng = np.random.RandomState(5)
    Z = rng.normal(size=(600, 6))
    X = Z @ rng.normal(size=(6, 6))
    y = (Z[:, 0] + Z[:, 1] > 0).astype(int)
    rof = cross_val_score(RotationForestClassifier(30, random_state=0), X, y, cv=3).mean()
    raf = cross_val_score(RandomForestClassifier(30, random_state=0), X, y, cv=3).mean()
    assert rof > raf


def test_rrof_draws_a_subspace_at_every_node():
    X, y = make_classification(300, 16, n_informative=6, random_state=6)
    rof = RotationForestClassifier(3, random_state=0).fit(X, y)
    rrof = RotationForestClassifier(3, max_features="sqrt", random_state=0).fit(X, y)
    assert rrof.estimators_[0].max_features_ == 4
    assert not np.array_equal(rof.estimators_[0].tree_.nodes["threshold"], rrof.estimators_[0].tree_.nodes["threshold"])


def test_regressor():
    X, y = make_regression(300, 8, noise=1.0, random_state=7)
    reg = RotationForestRegressor(20, random_state=0)
    assert cross_val_score(reg, X, y, cv=3).mean() > 0.7
    _check_routing(reg.fit(X, y), X)


def test_same_forest_for_any_n_jobs_and_warm_start():
    X, y = make_classification(300, 9, n_classes=3, n_informative=5, random_state=8)
    a = RotationForestClassifier(6, random_state=3, n_jobs=1).fit(X, y)
    b = RotationForestClassifier(6, random_state=3, n_jobs=2).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = RotationForestClassifier(3, random_state=3, warm_start=True).fit(X, y)
    c.set_params(n_estimators=6).fit(X, y)
    assert_array_equal(a.predict_proba(X), c.predict_proba(X))


def test_missing_values_constant_features_and_tiny_classes():
    X, y = make_classification(200, 6, n_classes=3, n_informative=4, random_state=9)
    X[:, 2] = 1.0  # constant
    X[::5, 0] = np.nan
    y[:2] = 3  # a class with two rows
    rof = RotationForestClassifier(8, random_state=0).fit(X, y)
    _check_routing(rof, X)
    proba = rof.predict_proba(X)
    assert np.isfinite(proba).all() and rof.score(X, y) > 0.9
    # a tiny problem: fewer rows than features
    tiny = RotationForestClassifier(4, random_state=0).fit(X[:4], [0, 1, 0, 1])
    assert tiny.predict(X[:4]).shape == (4,)


def test_bootstrap_and_oob():
    X, y = make_classification(300, 8, random_state=10)
    rof = RotationForestClassifier(20, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    assert 0.7 < rof.oob_score_ <= 1.0
    with pytest.raises(ValueError, match="oob_score=True and max_samples require bootstrap=True"):
        RotationForestClassifier(5, oob_score=True).fit(X, y)


def test_bad_input_and_failed_fit_keep_the_model():
    X, y = make_classification(100, 5, random_state=11)
    rof = RotationForestClassifier(3, random_state=0).fit(X, y)
    before = rof.predict_proba(X)
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="[Ii]nfinity"):
        rof.fit(bad, y)
    with pytest.raises(ValueError, match="n_features_per_subset"):
        rof.set_params(n_features_per_subset=0).fit(X, y)
    rof.set_params(n_features_per_subset=3)
    assert_array_equal(rof.predict_proba(X), before)
    with pytest.raises(ValueError, match="sample_fraction"):
        RotationForestClassifier(sample_fraction=1.5).fit(X, y)
