"""Denoising random forests (Hibino et al. 2017): noise, encodings, selection, multi-path, estimators."""

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_iris

from forestzoo import DenoisingRandomForestClassifier, DenoisingRandomForestRegressor
from forestzoo.denoising import DenoisingConvergenceWarning, corrupt, normalized_l1_error
from forestzoo.denoising._paths import multipath_values, suspected_nodes
from forestzoo.denoising._selection import mean_cross_entropy, select_trees

FAST = dict(n_estimators=8, max_depth=3, n_noisy_copies=2, dae_max_iter=400, random_state=0)


def _regression(n=300, d=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(size=(n, d))
    y = 10 + 5 * X[:, 0] + 3 * X[:, 1] ** 2 + X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _regression()
    return DenoisingRandomForestRegressor(**FAST).fit(X, y), X, y


# -- noise ----------------------------------------------------------------------------

def test_corrupt_replaces_an_exact_count_by_the_mean():
    X = np.arange(80, dtype=float).reshape(10, 8)
    mean = np.full(8, -1.0)
    Xn, mask = corrupt(X, 0.25, "mean", mean, random_state=0)
    assert np.all(mask.sum(axis=1) == 2)  # 25 % of 8 features
    assert np.all(Xn[mask] == -1.0) and np.all(Xn[~mask] == X[~mask])
    Xg, mask = corrupt(X, np.linspace(0, 1, 10), "gaussian", scale=np.ones(8), random_state=0)
    assert list(mask.sum(axis=1)) == [int(np.floor(f * 8 + 0.5)) for f in np.linspace(0, 1, 10)]
    assert np.all(Xg[~mask] == X[~mask]) and np.all(Xg[mask] != X[mask])
    with pytest.raises(ValueError, match="fraction must lie in"):
        corrupt(X, 1.5, "mean", mean)
    with pytest.raises(ValueError, match="needs the training mean"):
        corrupt(X, 0.5, "mean")
    assert normalized_l1_error([2.0, -2.0], [3.0, -2.0]) == 0.25


# -- tree paths against naive references ------------------------------------------------

def _naive_distance(lay, a, b):
    """Edges between two nodes by walking up to the common ancestor."""
    parent = {int(c): int(k) for k in lay.internal for c in (lay.left[k], lay.right[k])}

    def up(u):
        chain = [u]
        while u in parent:
            u = parent[u]
            chain.append(u)
        return chain

    ca, cb = up(int(a)), up(int(b))
    common = next(u for u in ca if u in cb)
    return ca.index(common) + cb.index(common)


def test_encoding_follows_eq4_with_the_tree_distance(fitted):
    drf = fitted[0]
    for lay in drf.layouts_[:3]:
        for k in (1, 2, lay.max_depth):
            units = lay.units[k]
            dist = lay.tree_distance(units)
            for i, j in itertools.product(range(len(units)), repeat=2):
                d = _naive_distance(lay, units[i], units[j])
                assert dist[i, j] == d
                expected = 1.0 if i == j else 2.0 / (d + 1)  # path_distance="nodes"
                assert lay.encoding[k][i, j] == pytest.approx(expected)


def test_edges_encoding_is_the_printed_formula():
    X, y = _regression(seed=1)
    drf = DenoisingRandomForestRegressor(**{**FAST, "path_distance": "edges"}).fit(X, y)
    lay = drf.layouts_[0]
    enc = lay.encoding[lay.max_depth]
    dist = lay.tree_distance(lay.units[lay.max_depth])
    off = dist > 0
    np.testing.assert_allclose(enc[off], 2.0 / dist[off])
    assert np.all(np.diag(enc) == 1.0)


def _naive_multipath(lay, x, suspected):
    """Enumerate every path; a path through k suspected nodes weighs 2**-k."""
    total = np.zeros(lay.tree.values.shape[1])
    stack = [(0, 0)]
    while stack:
        node, k = stack.pop()
        if lay.is_leaf[node]:
            total += 2.0 ** -k * lay.tree.values[node]
            continue
        if suspected[node]:
            stack += [(lay.left[node], k + 1), (lay.right[node], k + 1)]
        else:
            go_left = x[lay.feature[node]] <= lay.threshold[node]
            stack.append((lay.left[node] if go_left else lay.right[node], k))
    return total


def test_multipath_against_path_enumeration(fitted):
    drf, X, _ = fitted
    X32 = X[:40].astype(np.float32)
    rng = np.random.RandomState(0)
    for lay in drf.layouts_:
        susp = rng.rand(40, lay.left.shape[0]) < 0.3
        got = multipath_values(lay, X32, susp)
        ref = np.array([_naive_multipath(lay, X32[i], susp[i]) for i in range(40)])
        np.testing.assert_allclose(got, ref)
        # no suspected node: the tree's own prediction
        np.testing.assert_allclose(multipath_values(lay, X32, np.zeros_like(susp)), lay.tree.predict(X32))


def test_suspected_nodes_against_naive_walk(fitted):
    drf, X, _ = fitted
    X32 = X[:30].astype(np.float32)
    lay = drf.layouts_[0]
    leaves = np.flatnonzero(lay.is_leaf)
    refined = np.random.RandomState(1).choice(leaves, 30)
    got = suspected_nodes(lay, X32, refined, np.zeros((30, lay.left.shape[0]), dtype=bool))
    for i in range(30):
        expected = set()
        node = refined[i]
        for j in range(lay.depth[node]):
            a = lay.anc[node, j]
            child = lay.anc[node, j + 1]
            own_left = X32[i, lay.feature[a]] <= lay.threshold[a]
            if own_left != (child == lay.left[a]):
                expected.add(a)
        assert set(np.flatnonzero(got[i])) == expected


def test_cross_entropy_against_definition():
    rng = np.random.RandomState(0)
    leaves = rng.randint(0, 4, size=(60, 3))
    leaves[:, 2] = leaves[:, 0]  # tree 2 is a copy of tree 0: they predict each other exactly
    n_leaves = [4, 4, 5]  # tree 2 has an empty leaf
    got = mean_cross_entropy(leaves, n_leaves)

    def H(codes):
        if len(codes) == 0:
            return 0.0
        p = np.bincount(codes) / len(codes)
        p = p[p > 0]
        return -(p * np.log2(p)).sum()

    C = np.zeros((3, 3))
    for t, u in itertools.permutations(range(3), 2):
        C[t, u] = np.mean([H(leaves[leaves[:, t] == n, u]) for n in range(n_leaves[t])])
    np.testing.assert_allclose(got, C.sum(axis=1) / 2)
    assert C[0, 2] == 0 and C[2, 0] == 0
    assert list(select_trees(got, 2 / 3)) == sorted(np.argsort(got)[:2])


# -- the estimators ------------------------------------------------------------------------

def test_single_path_and_oracle_reduce_to_the_selected_trees(fitted):
    drf, X, _ = fitted
    assert len(drf.selected_trees_) == 4 and sorted(drf.autoencoders_) == [1, 2, 3]
    kept = [drf.forest_.estimators_[j] for j in drf.selected_trees_]
    mean_of_trees = np.mean([t.predict(X) for t in kept], axis=0)
    np.testing.assert_allclose(drf.predict_single_path(X), mean_of_trees)
    np.testing.assert_allclose(drf.predict_with_known_noise(X, np.zeros(X.shape, bool)), mean_of_trees)
    # every node on a noisy feature is hedged: the estimate is no longer the single path
    assert not np.allclose(drf.predict_with_known_noise(X, np.ones(X.shape, bool)), mean_of_trees)
    with pytest.raises(ValueError, match="noise_mask has shape"):
        drf.predict_with_known_noise(X, np.zeros((2, 2), bool))
    masks = drf.suspected_nodes(X)
    assert len(masks) == len(drf.layouts_)
    assert all(not m[:, lay.is_leaf].any() for m, lay in zip(masks, drf.layouts_))


def test_denoising_helps_on_noisy_rows_of_a_redundant_dataset():
    # four noisy copies of two informative features: the trees' paths are strongly
    # correlated, so a path broken by a mean-replaced value can be recognised
    rng = np.random.RandomState(0)
    base = rng.uniform(size=(900, 2))
    X = np.hstack([base + 0.03 * rng.normal(size=base.shape) for _ in range(4)])
    y = 10 + 4 * base[:, 0] + 2 * base[:, 1]
    Xtr, ytr, Xte, yte = X[:600], y[:600], X[600:], y[600:]
    drf = DenoisingRandomForestRegressor(n_estimators=20, max_depth=4, n_noisy_copies=4, random_state=0)
    drf.fit(Xtr, ytr)
    Xn, mask = corrupt(Xte, 0.5, "mean", Xtr.mean(axis=0), random_state=1)
    single = normalized_l1_error(yte, drf.predict_single_path(Xn))
    multi = normalized_l1_error(yte, drf.predict(Xn))
    oracle = normalized_l1_error(yte, drf.predict_with_known_noise(Xn, mask))
    assert multi < single and oracle < single
    assert normalized_l1_error(yte, drf.predict(Xte)) < 0.05  # clean rows stay accurate


def test_non_converging_autoencoder_warns_and_falls_back_to_single_path():
    X, y = _regression(seed=2)
    with pytest.warns(DenoisingConvergenceWarning, match="did not converge in dae_max_iter=1 epochs"):
        drf = DenoisingRandomForestRegressor(**{**FAST, "dae_max_iter": 1}).fit(X, y)
    assert all(dae is None for dae in drf.autoencoders_.values())
    np.testing.assert_array_equal(drf.predict(X), drf.predict_single_path(X))
    np.testing.assert_array_equal(drf.refined_leaves(X)[:, 0], drf.layouts_[0].tree.apply(X.astype(np.float32)))


def test_bad_parameters_and_failed_fit_keeps_model():
    X, y = _regression(seed=3)
    with pytest.raises(ValueError, match=r"noise_fraction=\(0.5, 0.2\)"):
        DenoisingRandomForestRegressor(noise_fraction=(0.5, 0.2)).fit(X, y)
    with pytest.raises(ValueError, match="'selection' parameter"):
        DenoisingRandomForestRegressor(selection=0.0).fit(X, y)
    drf = DenoisingRandomForestRegressor(**FAST).fit(X, y)
    before = drf.predict(X)
    with pytest.raises(ValueError):
        drf.fit(X, np.full(len(y), np.nan))
    np.testing.assert_array_equal(drf.predict(X), before)


def test_selection_holdout_and_determinism_across_n_jobs():
    X, y = _regression(seed=4)
    a = DenoisingRandomForestRegressor(**{**FAST, "selection_holdout": 0.25, "n_jobs": 1}).fit(X, y)
    b = DenoisingRandomForestRegressor(**{**FAST, "selection_holdout": 0.25, "n_jobs": 2}).fit(X, y)
    np.testing.assert_array_equal(a.selected_trees_, b.selected_trees_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    # the held-out rows were not used to grow the trees
    assert a.forest_.estimators_[0].tree_.nodes["n_samples"][0] < 0.8 * len(y)


def test_concrete_clean_error_floor():
    from forestzoo.datasets import load_dataset

    X, y = load_dataset("concrete")
    rng = np.random.RandomState(0)
    test = rng.rand(len(y)) < 0.25
    drf = DenoisingRandomForestRegressor(n_estimators=20, n_noisy_copies=2, random_state=0)
    drf.fit(X[~test], y[~test])
    # depth-4 forests reach ~17 %; predicting the mean gives ~38 %
    assert normalized_l1_error(y[test], drf.predict(X[test])) < 0.23


def test_classifier_on_iris():
    X, y = load_iris(return_X_y=True)
    clf = DenoisingRandomForestClassifier(**FAST).fit(X[::2], y[::2])
    assert clf.score(X[1::2], y[1::2]) > 0.85
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    Xn, mask = corrupt(X, 0.25, "mean", X[::2].mean(axis=0), random_state=0)
    assert clf.predict_with_known_noise(Xn, mask).shape == (150,)
    assert set(clf.predict_single_path(Xn)) <= set(clf.classes_)


# -- any fitted forest ----------------------------------------------------------------------

def test_multipath_over_a_fitted_scikit_learn_forest():
    """init_forest: a fully grown scikit-learn forest gets the selection, autoencoders and 2**-k multi-path."""
    from sklearn.ensemble import RandomForestClassifier as SkRFC, RandomForestRegressor as SkRFR

    X, y = _regression()
    sk = SkRFR(n_estimators=4, min_samples_leaf=5, random_state=0).fit(X, y)
    drf = DenoisingRandomForestRegressor(max_depth=3, selection=1.0, n_noisy_copies=1, per_depth=False,
                                         dae_max_iter=300, max_dae_samples=200, random_state=0)
    drf.fit(X, y, init_forest=sk)
    assert len(drf.layouts_) == 4 and type(drf.forest_).__module__.startswith("forestzoo.")
    assert max(lay.max_depth for lay in drf.layouts_) > 3  # the trees are used whole, deeper than max_depth
    np.testing.assert_allclose(drf.predict_single_path(X), sk.predict(X), rtol=1e-12)
    X32 = X[:15].astype(np.float32)
    rng = np.random.RandomState(0)
    for lay in drf.layouts_:  # the 2**-k weights on the deep trees, against path enumeration
        susp = rng.rand(15, lay.left.shape[0]) < 0.1
        ref = np.array([_naive_multipath(lay, X32[i], susp[i]) for i in range(15)])
        np.testing.assert_allclose(multipath_values(lay, X32, susp), ref)
    assert drf.predict(X).shape == (X.shape[0],)
    assert not np.allclose(drf.predict_with_known_noise(X, np.ones(X.shape, bool)), sk.predict(X))

    Xi, yi = load_iris(return_X_y=True)
    skc = SkRFC(n_estimators=3, random_state=0).fit(Xi, yi)
    clf = DenoisingRandomForestClassifier(max_depth=2, selection=1.0, n_noisy_copies=1, per_depth=False,
                                          dae_max_iter=300, max_dae_samples=150, random_state=0)
    clf.fit(Xi, yi, init_forest=skc)
    np.testing.assert_allclose(clf._values(Xi, "single"), skc.predict_proba(Xi), rtol=1e-12)
    np.testing.assert_array_equal(clf.predict_single_path(Xi), skc.predict(Xi))
    with pytest.raises(ValueError, match="must be a classifier"):
        DenoisingRandomForestClassifier().fit(Xi, yi, init_forest=SkRFR(n_estimators=2).fit(Xi, yi))
    with pytest.raises(ValueError, match="features"):
        DenoisingRandomForestClassifier().fit(Xi[:, :2], yi, init_forest=skc)
