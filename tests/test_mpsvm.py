"""MPSVM node splits (multi2binary, G/H, generalized eigenproblem, bisectors, -T/-P/-N) and the MP forests."""

import numpy as np
import pytest
import scipy.linalg
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, load_wine, make_classification
from sklearn.model_selection import cross_val_score

from forestzoo._engine.criteria import CRITERIA
from forestzoo._engine.tree import TREE_LEAF
from forestzoo.ensemble import RandomForestClassifier
from forestzoo.oblique import MPSVM, MPSVMForestClassifier, SingularNodeError, multi2binary
from forestzoo.oblique._node_model import compose_basis, fixed_threshold_cost, gather_candidates, standardize
from forestzoo.oblique._mpsvm import REDUCE_MIN_FEATURES, _row_space_moments
from forestzoo.oblique._partition import COVARIANCE_RIDGE, LOW_RANK_MIN_FEATURES, _hyperclass_mask
from forestzoo.oblique._partition import bhattacharyya_distances, bhattacharyya_distances_low_rank, class_moments


def _aug_moment(A, w):
    M = np.hstack([A, -np.ones((A.shape[0], 1))])
    return (M * w[:, None]).T @ M / w.sum()


def _same_plane(z, ref):
    return abs(abs(z @ ref) / (np.linalg.norm(z) * np.linalg.norm(ref)) - 1.0) < 1e-6


def _bisectors(z1, z2, q):
    z1, z2 = z1 / np.linalg.norm(z1[:q]), z2 / np.linalg.norm(z2[:q])
    return [z1 + z2, z1 - z2]


def _two_blobs(n=80, q=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, q)) @ rng.normal(size=(q, q))
    t = X @ rng.normal(size=q) + 0.3 * rng.normal(size=n) > 0
    return X, t, rng.uniform(0.5, 2.0, n)


# -- the MPSVM planes against a naive generalized eigensolver -----------------------------
def test_planes_are_the_extreme_generalized_eigenvectors():
    X, t, w = _two_blobs()
    G, H = _aug_moment(X[t], w[t]), _aug_moment(X[~t], w[~t])
    lam, V = scipy.linalg.eig(G, H)
    order = np.argsort(lam.real)
    z_min, z_max = V[:, order[0]].real, V[:, order[-1]].real
    W, b = MPSVM("tikhonov").fit_hyperplanes(X, t, w)
    ref = _bisectors(z_min, z_max, 3)
    got = [np.append(W[j], b[j]) for j in range(2)]
    assert all(any(_same_plane(g, r) for r in ref) for g in got)
    # the bisectors make equal angles with the two clustering planes
    n1, n2 = z_min[:3] / np.linalg.norm(z_min[:3]), z_max[:3] / np.linalg.norm(z_max[:3])
    for wj in W:
        u = wj / np.linalg.norm(wj)
        assert_allclose(abs(u @ n1), abs(u @ n2), atol=1e-8)


def test_regularisations_agree_on_a_regular_node():
    X, t, w = _two_blobs(seed=1)
    outs = [MPSVM(r).fit_hyperplanes(X, t, w) for r in ("tikhonov", "axis", "null_space")]
    for W, b in outs[1:]:
        assert_allclose(W, outs[0][0])
        assert_allclose(b, outs[0][1])


def _singular_node(seed=2):
    """Class A has 3 rows in 6 dimensions (fewer rows than features + 1): G is singular."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(40, 6))
    t = np.zeros(40, bool)
    t[:3] = True
    X[:3] += 2.0
    return X, t, np.ones(40)


def test_tikhonov_solves_the_regularised_problem():
    X, t, w = _singular_node()
    delta = 0.01
    G, H = _aug_moment(X[t], w[t]), _aug_moment(X[~t], w[~t])
    assert np.linalg.eigvalsh(G)[0] < 1e-10 * np.linalg.eigvalsh(G)[-1]
    # plane 1: min z'(G + dI)z / z'Hz; plane 2: min z'Hz / z'Gz (H regular)
    _, V1 = scipy.linalg.eigh(H, G + delta * np.eye(7))
    _, V2 = scipy.linalg.eigh(G, H)
    ref = _bisectors(V1[:, -1], V2[:, -1], 6)
    W, b = MPSVM("tikhonov", delta=delta).fit_hyperplanes(X, t, w)
    assert all(any(_same_plane(np.append(W[j], b[j]), r) for r in ref) for j in range(len(b)))


def test_null_space_plane_passes_through_the_small_class():
    X, t, w = _singular_node()
    G, H = _aug_moment(X[t], w[t]), _aug_moment(X[~t], w[~t])
    N = scipy.linalg.null_space(G, rcond=1e-8)
    _, U = np.linalg.eigh(N.T @ H @ N)
    z1 = N @ U[:, -1]  # in null(G), farthest from B
    _, V2 = scipy.linalg.eigh(G, H)
    ref = _bisectors(z1, V2[:, -1], 6)
    W, b = MPSVM("null_space").fit_hyperplanes(X, t, w)
    assert all(any(_same_plane(np.append(W[j], b[j]), r) for r in ref) for j in range(len(b)))
    assert_allclose(np.hstack([X[t], -np.ones((3, 1))]) @ z1, 0.0, atol=1e-8)


def test_axis_regularisation_raises_on_singular_nodes():
    X, t, w = _singular_node()
    with pytest.raises(SingularNodeError, match="singular"):
        MPSVM("axis").fit_hyperplanes(X, t, w)
    Xd = np.hstack([_two_blobs()[0], _two_blobs()[0][:, :1]])  # a duplicated column
    with pytest.raises(SingularNodeError):
        MPSVM("axis").fit_hyperplanes(Xd, _two_blobs()[1], np.ones(80))
    with pytest.raises(ValueError, match="regularization"):
        MPSVM("ridge")


@pytest.mark.parametrize("reg", ["tikhonov", "null_space"])
def test_singular_problems_return_finite_planes(reg):
    X, t, _ = _two_blobs()
    for Xs, ts in [(np.hstack([X, X[:, :1]]), t), (X[:3], np.array([True, False, True]))]:
        W, b = MPSVM(reg).fit_hyperplanes(Xs, ts, np.ones(len(ts)))
        assert np.isfinite(W).all() and np.isfinite(b).all()


def _wide_node(seed=6, n=60, q=150):
    """Fewer rows than features: the planes are solved in the span of the rows (q >= 128)."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, q))
    t = rng.uniform(size=n) < 0.4
    X[t] += 0.5
    w = rng.randint(0, 3, n).astype(float)
    w[:2] = 1.0
    t[:2] = [True, False]
    return X, t, w


@pytest.mark.parametrize("reg", ["tikhonov", "null_space"])
def test_row_space_planes_equal_the_full_space_planes(reg):
    X, t, w = _wide_node()
    q = X.shape[1]
    assert q >= REDUCE_MIN_FEATURES and np.count_nonzero(w > 0) < q + 1
    G, H = _aug_moment(X[t], w[t]), _aug_moment(X[~t], w[~t])
    planes = []
    for P, Q in ((G, H), (H, G)):  # argmax z'Qz / z'Pz with P singular
        if reg == "tikhonov":
            planes.append(scipy.linalg.eigh(Q, P + 0.01 * np.eye(q + 1))[1][:, -1])
        else:
            N = scipy.linalg.null_space(P, rcond=1e-8)
            planes.append(N @ np.linalg.eigh(N.T @ Q @ N)[1][:, -1])
    ref = _bisectors(planes[0], planes[1], q)
    W, b = MPSVM(reg).fit_hyperplanes(X, t, w)
    assert len(b) == 2
    assert all(any(_same_plane(np.append(W[j], b[j]), r) for r in ref) for j in range(2))
    with pytest.raises(SingularNodeError):
        MPSVM("axis").fit_hyperplanes(X, t, w)


def test_row_space_moments_are_g_and_h_in_an_orthonormal_basis():
    X, t, w = _wide_node(seed=7)
    B, Gr, Hr = _row_space_moments(X, t, w)
    m = np.count_nonzero(w > 0)
    assert B.shape == (X.shape[1] + 1, m)
    assert_allclose(B.T @ B, np.eye(m), atol=1e-10)
    G, H = _aug_moment(X[t], w[t]), _aug_moment(X[~t], w[~t])
    assert_allclose(Gr, B.T @ G @ B, atol=1e-10)
    assert_allclose(Hr, B.T @ H @ B, atol=1e-10)
    P = B @ B.T  # G and H vanish outside the span of B
    assert_allclose(P @ G @ P, G, atol=1e-10)
    assert_allclose(P @ H @ P, H, atol=1e-10)


# -- class partitions ------------------------------------------------------------------------
def test_bhattacharyya_matches_the_formula():
    rng = np.random.RandomState(3)
    Z = rng.normal(size=(90, 3)) + np.repeat(np.eye(3) * [0, 2, 5], 30, axis=0)
    codes = np.repeat(np.arange(3), 30)
    w = rng.uniform(0.5, 1.5, 90)
    means, covs = class_moments(Z, codes, w, 3, COVARIANCE_RIDGE)
    D = bhattacharyya_distances(means, covs)
    for i in range(3):
        sel = codes == i
        assert_allclose(means[i], np.average(Z[sel], axis=0, weights=w[sel]))
        assert_allclose(covs[i], np.cov(Z[sel].T, aweights=w[sel], bias=True) + COVARIANCE_RIDGE * np.eye(3))
    S = (covs[0] + covs[2]) / 2
    d = means[2] - means[0]
    ref = d @ np.linalg.solve(S, d) / 8 + 0.5 * np.log(np.linalg.det(S) / np.sqrt(np.linalg.det(covs[0]) * np.linalg.det(covs[2])))
    assert_allclose(D[0, 2], ref)
    assert_allclose(D, D.T)


def test_low_rank_bhattacharyya_equals_the_covariance_route():
    rng = np.random.RandomState(8)
    n, q, c = 70, 160, 6
    Z = rng.normal(size=(n, q)) + rng.normal(size=(c, q))[np.arange(n) % c]
    codes = np.arange(n) % c
    w = rng.randint(0, 3, n).astype(float)
    w[:c] = 1.0
    dense = bhattacharyya_distances(*class_moments(Z, codes, w, c, COVARIANCE_RIDGE))
    low = bhattacharyya_distances_low_rank(Z, codes, w, c, COVARIANCE_RIDGE)
    assert_allclose(low, dense, rtol=1e-9)
    assert_allclose(np.diag(low), 0.0)
    # multi2binary takes the low-rank route here (q >= 128, fewer rows than features)
    assert q >= LOW_RANK_MIN_FEATURES and np.count_nonzero(w > 0) < q
    (mask,) = multi2binary(Z, codes, w)
    assert_array_equal(mask, _hyperclass_mask(dense, codes))


def test_multi2binary_groups_classes_around_the_farthest_pair():
    rng = np.random.RandomState(4)
    centres = np.array([[0, 0], [10, 0], [1, 0], [9, 1]])
    Z = np.vstack([rng.normal(size=(30, 2)) + c for c in centres])
    yk = np.repeat(np.arange(4), 30)
    (mask,) = multi2binary(Z, yk, np.ones(120))
    groups = mask[::30]
    assert groups[0] == groups[2] and groups[1] == groups[3] and groups[0] != groups[1]
    assert_array_equal(mask, np.repeat(groups, 30))
    assert multi2binary(Z[:30], yk[:30], np.ones(30)) == []  # one class: nothing to separate
    # indistinguishable classes (every distance 0) still give two non-empty groups
    same = np.array([[1.0, -1.0], [-1.0, 1.0]] * 3)
    (mask,) = multi2binary(same, np.array([1, 1, 0, 2, 0, 2]), np.ones(6))
    assert 0 < mask.sum() < 6
    (two,) = multi2binary(Z[:60], yk[:60], np.ones(60))
    assert_array_equal(two, yk[:60] == 0)


# -- node-model helpers against naive references ----------------------------------------------
def test_gather_candidates_skips_constant_columns():
    X = np.float32(np.random.RandomState(5).normal(size=(20, 6)))
    X[:, [1, 4]] = 3.0
    X[:10, 2] = 7.0  # constant on the first ten rows only
    rows = np.arange(10, dtype=np.uint32)
    feats, block = gather_candidates(X, rows, np.array([4, 2, 1, 5, 0, 3]), 2)
    assert_array_equal(feats, [0, 5])
    assert_array_equal(block, X[:10][:, [0, 5]])
    feats, _ = gather_candidates(X, rows, np.arange(6), 10)
    assert_array_equal(feats, [0, 3, 5])


def test_compose_basis_sums_the_chosen_rotated_columns():
    rng = np.random.RandomState(9)
    n_features = 11
    groups = [np.array([0, 3, 7]), np.array([1, 2]), np.array([4, 5, 6, 8, 9, 10])]
    ptr, feat, wts = [0], [], []
    for g in groups:  # as many rotated columns per group as it has features (a PCA basis)
        for _ in g:
            feat.append(g)
            wts.append(rng.normal(size=g.size))
            ptr.append(ptr[-1] + g.size)
    ptr, feat, wts = np.asarray(ptr), np.concatenate(feat).astype(np.int32), np.concatenate(wts)
    R = np.zeros((n_features, ptr.size - 1))  # the rotation as a dense matrix
    for k in range(ptr.size - 1):
        R[feat[ptr[k]:ptr[k + 1]], k] = wts[ptr[k]:ptr[k + 1]]
    chosen = np.array([0, 4, 5, 9])  # rotated columns of the first, second and third group
    w_fit = rng.normal(size=chosen.size)
    out_f, out_w = compose_basis(ptr, feat, wts, chosen, w_fit, n_features)
    dense = R[:, chosen] @ w_fit
    support = np.flatnonzero(np.abs(R[:, chosen]).sum(axis=1) > 0)
    assert_array_equal(out_f, support)
    assert_allclose(out_w, dense[support])


def test_standardize_drops_incomplete_rows():
    block = np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, 6.0], [5.0, 4.0]])
    w = np.array([1.0, 1.0, 2.0, 1.0])
    Z, mean, scale, complete = standardize(block, w)
    assert_array_equal(complete, [True, False, True, True])
    keep = block[complete]
    m = np.average(keep, axis=0, weights=w[complete])
    s = np.sqrt(np.average((keep - m) ** 2, axis=0, weights=w[complete]))
    assert_allclose(Z, (keep - m) / s)


def test_fixed_threshold_cost_is_the_gini_of_the_children():
    rng = np.random.RandomState(6)
    proj = rng.normal(size=50)
    proj[::9] = np.nan
    yk = rng.randint(0, 3, 50).astype(np.int32)
    w = rng.uniform(0.5, 2, 50)
    total = np.concatenate([[50, w.sum()], np.bincount(yk, weights=w, minlength=3)])

    def wgini(sel):
        W = w[sel].sum()
        p = np.bincount(yk[sel], weights=w[sel], minlength=3) / W
        return W * (1 - (p ** 2).sum())

    cost, ml = fixed_threshold_cost(proj, 0.2, w, yk, np.zeros(50), total, CRITERIA["gini"], 1, 0.0)
    nan = np.isnan(proj)
    left = np.where(nan, ml > 0.5, proj <= 0.2)
    ref = min(wgini((proj <= 0.2) & ~nan) + wgini(~((proj <= 0.2) & ~nan)),
              wgini((proj <= 0.2) | nan) + wgini(~((proj <= 0.2) | nan)))
    assert_allclose(cost, ref)
    assert_allclose(cost, wgini(left) + wgini(~left))


# -- the forests ---------------------------------------------------------------------------
def _check_routing(forest, X):
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    for est in forest.estimators_:
        tree = est.tree_
        leaves = tree.apply(X32)
        counts = np.bincount(leaves, minlength=tree.node_count)
        is_leaf = tree.nodes["left"] == TREE_LEAF
        assert_array_equal(counts[is_leaf], tree.nodes["n_samples"][is_leaf])


CONFIGS = {
    "MPRaF": dict(),
    "MPRoF": dict(rotation=True, bootstrap=False, max_features=None),
    "MPRRoF": dict(rotation=True, bootstrap=False),
}


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("reg", ["tikhonov", "axis", "null_space"])
def test_forests_route_rows_where_grown(config, reg):
    X, y = make_classification(150, 8, n_informative=5, n_classes=3, random_state=7)
    params = {**CONFIGS[config], "bootstrap": False}
    f = MPSVMForestClassifier(3, regularization=reg, random_state=0, **params).fit(X, y)
    _check_routing(f, X)
    assert f.score(X, y) == 1.0
    nodes = f.estimators_[0].tree_.nodes
    assert nodes["oblique"][0] >= 0 and nodes["feature"][0] == -1


@pytest.mark.parametrize("reg", ["tikhonov", "axis", "null_space"])
def test_small_and_rank_deficient_nodes_never_crash(reg):
    rng = np.random.RandomState(8)
    X = rng.normal(size=(12, 30))  # fewer samples than features
    X = np.hstack([X, X[:, :10]])  # and duplicated columns
    y = np.arange(12) % 3
    f = MPSVMForestClassifier(4, regularization=reg, max_features=None, random_state=0).fit(X, y)
    assert np.isfinite(f.predict_proba(X)).all()
    for config in ("MPRoF", "MPRRoF"):
        g = MPSVMForestClassifier(3, regularization=reg, random_state=0, **CONFIGS[config]).fit(X, y)
        _check_routing(g, X)
    if reg == "axis":  # the root is singular: axis-parallel splits from the root down
        assert all((e.tree_.nodes["oblique"] == -1).all() for e in f.estimators_)


def test_axis_regularisation_switches_subtrees_to_axis_splits():
    X, y = make_classification(300, 9, n_informative=6, random_state=9)
    f = MPSVMForestClassifier(5, regularization="axis", random_state=0).fit(X, y)
    for e in f.estimators_:
        nodes = e.tree_.nodes
        internal = nodes["left"] != TREE_LEAF
        oblique = internal & (nodes["oblique"] >= 0)
        axis = internal & (nodes["feature"] >= 0)
        assert oblique.any() and axis.any()
        # below an axis-parallel node every split is axis-parallel
        for k in np.flatnonzero(axis):
            for child in (nodes["left"][k], nodes["right"][k]):
                assert nodes["oblique"][child] == -1


def test_mpraf_beats_raf_on_an_oblique_boundary():
    margins = []
    for seed in (10, 11, 12):  # the margin varies from 1.5 to 3.7 points between these problems
        rng = np.random.RandomState(seed)
        X = rng.uniform(-1, 1, size=(600, 4))
        y = (X @ rng.normal(size=4) > 0).astype(int)
        raf = cross_val_score(RandomForestClassifier(30, random_state=0), X, y, cv=3).mean()
        mp = cross_val_score(MPSVMForestClassifier(30, random_state=0), X, y, cv=3).mean()
        assert mp > raf
        margins.append(mp - raf)
        if seed == 10:
            # with every feature in G and H, one MPSVM bisector is the boundary itself
            full = cross_val_score(MPSVMForestClassifier(30, max_features=None, random_state=0), X, y, cv=3).mean()
            assert full > 0.99 and full > raf + 0.04
    assert np.mean(margins) > 0.015


@pytest.mark.parametrize("loader, floor", [(load_iris, 0.93), (load_wine, 0.93)])
def test_accuracy_floor_on_real_data(loader, floor):
    X, y = loader(return_X_y=True)
    for reg in ("tikhonov", "axis"):
        f = MPSVMForestClassifier(20, regularization=reg, random_state=0)
        assert cross_val_score(f, X, y, cv=3).mean() > floor


def test_threshold_modes_and_determinism_across_n_jobs():
    X, y = make_classification(200, 10, n_informative=5, n_classes=3, random_state=11)
    a = MPSVMForestClassifier(6, rotation=True, random_state=2, n_jobs=1).fit(X, y)
    b = MPSVMForestClassifier(6, rotation=True, random_state=2, n_jobs=2).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    best = MPSVMForestClassifier(6, threshold="best", bootstrap=False, random_state=2).fit(X, y)
    hyper = MPSVMForestClassifier(6, bootstrap=False, random_state=2).fit(X, y)
    _check_routing(best, X)
    # the best threshold along a bisector's normal is never worse than the bisector's own offset
    assert best.estimators_[0].tree_.nodes["improvement"][0] >= hyper.estimators_[0].tree_.nodes["improvement"][0] - 1e-9


class _UncompiledMPSVM(MPSVM):
    """An MPSVM the node model does not recognise, so its nodes take the Python route."""


class _PythonRouteForest(MPSVMForestClassifier):
    def _linear_models(self):
        return [_UncompiledMPSVM(m.regularization, m.delta, m.rcond) for m in super()._linear_models()]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("reg", ["tikhonov", "axis", "null_space"])
def test_compiled_node_route_grows_the_python_routes_trees(config, reg):
    # mpsvm_split does in one compiled call what split_node does step by step for any linear
    # model: the trees must be the same to the last bit (NaN rows, both threshold modes, and
    # nodes with more features than rows, the low-rank routes, included)
    X, y = make_classification(160, 8, n_informative=5, n_classes=4, n_clusters_per_class=1, random_state=3)
    X[::7, 2] = np.nan
    wide = np.random.RandomState(4).normal(size=(30, 140))
    y_wide = np.arange(30) % 3
    for data, target, threshold in ((X, y, "hyperplane"), (X, y, "best"), (wide, y_wide, "hyperplane")):
        params = dict(CONFIGS[config], regularization=reg, threshold=threshold, random_state=1)
        compiled = MPSVMForestClassifier(3, **params).fit(data, target)
        python = _PythonRouteForest(3, **params).fit(data, target)
        for a, b in zip(compiled.estimators_, python.estimators_):
            assert_array_equal(a.tree_.nodes, b.tree_.nodes)
            assert_array_equal(a.tree_.obl_weight, b.tree_.obl_weight)
        assert_array_equal(compiled.predict_proba(data), python.predict_proba(data))


def test_missing_values_and_bad_input():
    X, y = make_classification(200, 6, n_informative=4, random_state=12)
    X[::4, 1] = np.nan
    f = MPSVMForestClassifier(5, bootstrap=False, random_state=0).fit(X, y)
    _check_routing(f, X)
    assert f.score(X, y) > 0.95
    before = f.predict_proba(X)
    with pytest.raises(ValueError, match="regularization"):
        f.set_params(regularization="ridge").fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        f.set_params(regularization="tikhonov", delta=0.0).fit(X, y)
    f.set_params(delta=0.01)
    with pytest.raises(ValueError, match="[Ii]nfinity"):
        f.fit(np.where(np.isnan(X), np.inf, X), y)
    assert_array_equal(f.predict_proba(X), before)
