"""Rotation Forest / Random Rotation Forest: the rotation, its storage as oblique nodes, the estimators."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, make_classification, make_regression
from sklearn.decomposition import PCA
from sklearn.model_selection import cross_val_score

from forestzoo._engine.tree import TREE_LEAF
from forestzoo.ensemble import RandomForestClassifier, RotationForestClassifier, RotationForestRegressor
from forestzoo.ensemble._rotation import _pca_block, fit_rotation, rotate, rotated_constraints


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
    with pytest.raises(ValueError, match="Out of bag estimation only available if bootstrap=True"):
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


# -- the bagging loop's options, shared with the other forests --------------------------------------
def _same_tree(a, b):
    for field in ("left", "right", "feature", "oblique", "threshold", "n_samples", "weighted_n_samples"):
        assert_array_equal(a.nodes[field], b.nodes[field])
    assert_array_equal(a.values, b.values)
    assert_array_equal(a.obl_feature, b.obl_feature)
    assert_array_equal(a.obl_weight, b.obl_weight)


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_a_bootstrap_draw_of_only_zero_weight_rows_falls_back_to_every_weighted_row(Forest):
    X, y = make_classification(200, 6, n_informative=4, random_state=12)
    if Forest is RotationForestRegressor:
        y = X[:, 0] + X[:, 1] ** 2
    sw = np.zeros(200)
    sw[::5] = 1.0  # a draw of 3 rows misses all 40 weighted rows half of the time
    forest = Forest(8, bootstrap=True, max_samples=3, random_state=0).fit(X, y, sample_weight=sw)
    fallen = [k for k, est in enumerate(forest.estimators_) if est._bootstrap_draws == 0]
    assert 0 < len(fallen) < 8
    assert np.isfinite(forest.predict(X)).all()
    samples = forest.estimators_samples_
    for k in fallen:
        assert_array_equal(samples[k], np.arange(200))
    # such a tree is the tree of the same seed grown without bootstrap: on the sample weights alone
    plain = Forest(8, random_state=0).fit(X, y, sample_weight=sw)
    for k in fallen:
        _same_tree(forest.estimators_[k].tree_, plain.estimators_[k].tree_)


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_ccp_alpha_prunes_every_tree(Forest):
    from forestzoo._engine.prune import prune_tree

    X, y = make_classification(300, 6, n_informative=4, flip_y=0.1, random_state=13)
    if Forest is RotationForestRegressor:
        y = X[:, 0] + np.random.RandomState(0).normal(size=300)
    alpha = 0.005 if Forest is RotationForestClassifier else 0.02
    full = Forest(5, random_state=0).fit(X, y)
    pruned = Forest(5, ccp_alpha=alpha, random_state=0).fit(X, y)
    n_full = [e.tree_.n_leaves for e in full.estimators_]
    n_pruned = [e.tree_.n_leaves for e in pruned.estimators_]
    assert all(p < f for p, f in zip(n_pruned, n_full))
    assert all(e.ccp_alpha == alpha for e in pruned.estimators_)
    X32 = np.float32(X)
    for a, b in zip(full.estimators_, pruned.estimators_):
        # the weakest-link subtree of the unpruned tree (the rotation does not change its impurities)
        assert_array_equal(prune_tree(a.tree_, alpha).predict(X32), b.tree_.predict(X32))


def test_unrotated_features_are_columns_of_their_own():
    X, y = make_classification(200, 8, n_informative=5, random_state=14)
    basis = fit_rotation(np.float32(X), y, np.ones(200), np.random.default_rng(0), 3, 0.75, 2, unrotated=[1, 6])
    R = _dense(basis, 8)
    assert_allclose(R.T @ R, np.eye(8), atol=1e-10)
    ptr, feat, wts = basis
    for j in (1, 6):
        cols = [k for k in range(8) if j in feat[ptr[k]:ptr[k + 1]]]
        assert len(cols) == 1 and ptr[cols[0] + 1] - ptr[cols[0]] == 1 and wts[ptr[cols[0]]] == 1.0
    # the other six features are rotated in two subsets of three
    assert sorted(int(ptr[k + 1] - ptr[k]) for k in range(8)) == [1, 1] + [3] * 6
    assert rotated_constraints(basis, [0, 1, 0, 0, 0, 0, -1, 0]) == (0.0,) * 6 + (1.0, -1.0)


def _grid_steps(predict, X, feature, n_points=25):
    """Differences of the prediction along a grid of ``feature``, the other features held at rows of ``X``."""
    grid = np.linspace(X[:, feature].min() - 0.5, X[:, feature].max() + 0.5, n_points)
    steps = []
    for row in X[:20]:
        Z = np.repeat(row[None, :], n_points, axis=0)
        Z[:, feature] = grid
        steps.append(np.diff(predict(Z)))
    return np.concatenate(steps)


@pytest.mark.parametrize("Forest", [RotationForestClassifier, RotationForestRegressor])
def test_monotonic_cst_makes_the_forest_monotonic_in_those_features(Forest):
    rng = np.random.RandomState(15)
    X = rng.normal(size=(400, 5))
    signal = X[:, 0] - X[:, 1] + np.sin(3 * X[:, 0]) + X[:, 2] * X[:, 3]
    noisy = signal + rng.normal(size=400)
    y = (noisy > 0).astype(int) if Forest is RotationForestClassifier else noisy

    def predict(forest):
        if Forest is RotationForestClassifier:
            return lambda Z: forest.predict_proba(Z)[:, 1]
        return forest.predict

    free = Forest(10, random_state=0).fit(X, y)
    cst = Forest(10, monotonic_cst=[1, -1, 0, 0, 0], random_state=0).fit(X, y)
    # unconstrained, the forest goes both ways along x0 (the sine and the noise)
    assert (_grid_steps(predict(free), X, 0) < -1e-12).any()
    assert (_grid_steps(predict(cst), X, 0) >= 0).all()
    assert (_grid_steps(predict(cst), X, 1) <= 0).all()
    for est in cst.estimators_:
        t = est.tree_
        sizes = np.diff(t.obl_ptr)
        used = [t.obl_feature[t.obl_ptr[k]:t.obl_ptr[k + 1]] for k in range(sizes.size)]
        # x0 and x1 enter a split alone, with weight 1; the free features are still rotated together
        assert all(u.size == 1 for u in used if 0 in u or 1 in u)
        assert all(t.obl_weight[t.obl_ptr[k]] == 1.0 for k, u in enumerate(used) if 0 in u or 1 in u)
        assert (sizes > 1).any()
    assert cst.score(X, y) > 0.6


def test_monotonic_cst_is_checked():
    X, y = make_classification(120, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=16)
    with pytest.raises(ValueError, match="multiclass"):
        RotationForestClassifier(3, monotonic_cst=[1, 0, 0, 0]).fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        RotationForestRegressor(3, monotonic_cst=[1, 0]).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="-1, 0 or 1"):
        RotationForestRegressor(3, monotonic_cst=[2, 0, 0, 0]).fit(X, y.astype(float))


def test_balanced_subsample_reweights_every_bootstrap_sample():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, weights=[0.75, 0.2, 0.05], random_state=17)
    n = X.shape[0]
    # without bootstrap, the sample is the training set: "balanced_subsample" is "balanced"
    a = RotationForestClassifier(4, class_weight="balanced", random_state=0).fit(X, y)
    b = RotationForestClassifier(4, class_weight="balanced_subsample", random_state=0).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    sub = RotationForestClassifier(4, bootstrap=True, class_weight="balanced_subsample", random_state=0).fit(X, y)
    none = RotationForestClassifier(4, bootstrap=True, random_state=0).fit(X, y)
    assert not np.array_equal(sub.predict_proba(X), none.predict_proba(X))
    # by hand: tree k grows on counts_i * n_drawn / (n_classes_drawn * drawn rows of class y_i), which a
    # forest without bootstrap and class weights grows from these sample weights with tree k's seed
    for k, est in enumerate(sub.estimators_):
        counts = np.bincount(np.random.RandomState(est.random_state & 0xFFFFFFFF).randint(0, n, n),
                             minlength=n).astype(float)
        per_class = np.array([counts[y == c].sum() for c in range(3)])
        w = counts * (counts.sum() / (np.count_nonzero(per_class) * per_class))[y]
        by_hand = RotationForestClassifier(4, random_state=0).fit(X, y, sample_weight=w)
        _same_tree(est.tree_, by_hand.estimators_[k].tree_)
