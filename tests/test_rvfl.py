"""RVFL network (closed-form ridge, primal/dual, activations) and the RFL / obRFL hybrids."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, load_wine, make_classification
from sklearn.model_selection import cross_val_score
from sklearn.utils import check_random_state

from forestzoo._engine.rng import draw_seeds
from forestzoo.datasets import load_dataset
from forestzoo.ensemble import RandomForestClassifier
from forestzoo.ensemble._forest import bootstrap_counts
from forestzoo.rvfl import RVFLClassifier, RVFLForestClassifier
from forestzoo.rvfl._forest import top_classes
from forestzoo.rvfl._rvfl import ACTIVATIONS, fit_rvfl, rvfl_scores


def _naive_rvfl(X, Y, w, n_hidden, activation, S, C, seed):
    """Same random layer (same generator calls), output weights by lstsq on the augmented system."""
    rng = np.random.default_rng(seed)
    mean = np.average(X, axis=0, weights=w)
    std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
    Z = (X - mean) / std
    W = rng.uniform(-S, S, (X.shape[1], n_hidden))
    c = rng.uniform(0, S, n_hidden)
    D = np.hstack([Z, ACTIVATIONS[activation](Z @ W + c), np.ones((X.shape[0], 1))])
    # min sum_i w_i |y_i - d_i beta|^2 + lambda |beta|^2 as one least-squares problem
    lam = 0.5 ** C
    A = np.vstack([D * np.sqrt(w)[:, None], np.sqrt(lam) * np.eye(D.shape[1])])
    B = np.vstack([Y * np.sqrt(w)[:, None], np.zeros((D.shape[1], Y.shape[1]))])
    return D @ np.linalg.lstsq(A, B, rcond=None)[0]


@pytest.mark.parametrize("n_hidden", [10, 200])  # primal (n >= p) and dual (more hidden units than samples)
@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_output_weights_are_the_ridge_solution(n_hidden, activation):
    X, y = load_iris(return_X_y=True)
    Y = np.eye(3)[y]
    w = np.random.default_rng(0).uniform(0.5, 2.0, 150)
    model = fit_rvfl(X, Y, w, n_hidden, activation, 1.5, 3.0, True, np.random.default_rng(7))
    assert_allclose(rvfl_scores(model, X), _naive_rvfl(X, Y, w, n_hidden, activation, 1.5, 3.0, 7), atol=1e-8)


def test_activations():
    z = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    assert_allclose(ACTIVATIONS["radbas"](z), np.exp(-z ** 2))
    assert_allclose(ACTIVATIONS["sine"](z), np.sin(z))
    assert_allclose(ACTIVATIONS["tribas"](z), [0, 0.5, 1, 0.5, 0])
    assert_allclose(ACTIVATIONS["sigmoid"](z), 1 / (1 + np.exp(-z)))
    assert_allclose(ACTIVATIONS["relu"](z), [0, 0, 0, 0.5, 2])


def test_random_layer_ranges_and_direct_links():
    X, y = load_iris(return_X_y=True)
    rvfl = RVFLClassifier(n_hidden=30, scale=0.25, random_state=0).fit(X, y)
    mean, std, W, c, _, direct, beta = rvfl.model_
    assert np.all(np.abs(W) <= 0.25) and np.all((c >= 0) & (c <= 0.25))
    assert direct and beta.shape == (4 + 30 + 1, 3)
    plain = RVFLClassifier(n_hidden=30, direct_link=False, random_state=0).fit(X, y)
    assert plain.model_[-1].shape == (30 + 1, 3)


def test_rvfl_accuracy_and_more_hidden_units_than_samples():
    X, y = load_wine(return_X_y=True)
    assert cross_val_score(RVFLClassifier(n_hidden=50, random_state=0), X, y, cv=3).mean() > 0.9
    small = RVFLClassifier(n_hidden=500, C=2.0, random_state=0).fit(X[:40], y[:40])  # dual form
    assert small.score(X[:40], y[:40]) == 1.0


def test_rvfl_rejects_nan_and_keeps_its_fit():
    X, y = load_iris(return_X_y=True)
    rvfl = RVFLClassifier(n_hidden=20, random_state=0).fit(X, y)
    before = rvfl.decision_function(X)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="contains NaN"):
        rvfl.fit(bad, y)
    with pytest.raises(ValueError, match="contains NaN"):
        rvfl.predict(bad)
    assert_array_equal(rvfl.decision_function(X), before)
    with pytest.raises(ValueError, match="'activation' parameter .* must be a str among"):
        RVFLClassifier(activation="tanh").fit(X, y)


# -- RFL / obRFL --------------------------------------------------------------------------------
def test_every_bag_sample_goes_to_its_top_two_partitions():
    X, y = make_classification(300, 8, n_informative=6, n_classes=5, n_clusters_per_class=1, random_state=0)
    rfl = RVFLForestClassifier(n_estimators=3, n_hidden=20, random_state=0).fit(X, y)
    seeds = draw_seeds(check_random_state(0), 3)
    for seed, (model, trees) in zip(seeds, rfl.bags_):
        counts = bootstrap_counts(seed, 300, 300)  # the bag
        top = top_classes(rvfl_scores(model, X.astype(np.float32)))
        assert top.shape == (300, 2) and np.all(top[:, 0] != top[:, 1])
        for k, tree in enumerate(trees):
            member = (counts > 0) & (top == k).any(axis=1)
            assert tree.nodes["n_samples"][0] == member.sum()  # the partition of class k
            assert tree.nodes["weighted_n_samples"][0] == counts[member].sum()
            assert tree.values.shape[1] == 5


def test_prediction_is_the_majority_vote_of_the_routed_trees():
    X, y = load_wine(return_X_y=True)
    rfl = RVFLForestClassifier(n_estimators=4, n_hidden=20, random_state=1).fit(X, y)
    X32 = X.astype(np.float32)
    votes = np.zeros((X.shape[0], 3))
    for model, trees in rfl.bags_:
        top = top_classes(rvfl_scores(model, X32))
        for i in range(X.shape[0]):
            for k in top[i]:
                votes[i, np.argmax(trees[k].predict(X32[i:i + 1])[0])] += 1
    assert_allclose(rfl.predict_proba(X), votes / votes.sum(axis=1, keepdims=True))
    assert_array_equal(rfl.predict(X), rfl.classes_[np.argmax(votes, axis=1)])


@pytest.mark.parametrize("tree", ["axis", "oblique"])
def test_hybrids_on_vehicle(tree):
    try:
        X, y = load_dataset("vehicle")
    except FileNotFoundError:
        pytest.skip("vehicle is not available")
    model = RVFLForestClassifier(n_estimators=8, tree=tree, random_state=0, n_jobs=2)
    assert cross_val_score(model, X, y, cv=3).mean() > 0.68  # 4 classes: chance ~0.26, RF ~0.75


def test_oblique_hybrid_grows_oblique_trees_and_n_jobs_does_not_matter():
    X, y = load_wine(return_X_y=True)
    a = RVFLForestClassifier(n_estimators=3, tree="oblique", n_hidden=20, random_state=2, n_jobs=1).fit(X, y)
    b = RVFLForestClassifier(n_estimators=3, tree="oblique", n_hidden=20, random_state=2, n_jobs=2).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    roots = [t.nodes["oblique"][0] for _, trees in a.bags_ for t in trees if t is not None and t.node_count > 1]
    assert roots and all(r >= 0 for r in roots)


def test_two_and_one_class_problems():
    X, y = load_iris(return_X_y=True)
    rfl = RVFLForestClassifier(n_estimators=2, n_hidden=10, random_state=0).fit(X[:100], y[:100])
    assert rfl.score(X[:100], y[:100]) == 1.0 and all(len(trees) == 2 for _, trees in rfl.bags_)
    single = RVFLForestClassifier(n_estimators=2, n_hidden=10, random_state=0).fit(X[:20], y[:20])
    assert set(single.predict(X)) == {0}


def test_rfl_failed_fit_keeps_the_previous_model():
    X, y = load_iris(return_X_y=True)
    rfl = RVFLForestClassifier(n_estimators=2, n_hidden=10, random_state=0).fit(X, y)
    before = rfl.predict_proba(X)
    with pytest.raises(ValueError, match="contains NaN"):
        rfl.fit(np.where(X > 7, np.nan, X), y)
    assert_array_equal(rfl.predict_proba(X), before)
    with pytest.raises(ValueError, match="'tree' parameter .* must be a str among"):
        RVFLForestClassifier(tree="deep").fit(X, y)


def test_rfl_is_competitive_with_random_forest_on_digits_like_data():
    X, y = make_classification(600, 20, n_informative=12, n_classes=6, n_clusters_per_class=2, random_state=3)
    rfl = cross_val_score(RVFLForestClassifier(n_estimators=15, random_state=0), X, y, cv=3).mean()
    rf = cross_val_score(RandomForestClassifier(n_estimators=30, random_state=0), X, y, cv=3).mean()
    assert rfl > rf - 0.05 and rfl > 0.5
