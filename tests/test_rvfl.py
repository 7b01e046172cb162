"""RVFL network (closed-form ridge, primal/dual, activations) and the RFL / obRFL hybrids."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, load_wine, make_classification
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.utils import check_random_state

from forestzoo._engine.rng import draw_seeds
from forestzoo.datasets import load_dataset
from forestzoo.ensemble import RandomForestClassifier
from forestzoo.ensemble._forest import bootstrap_counts
from forestzoo.rvfl import RVFLClassifier, RVFLClassifierCV, RVFLForestClassifier
from forestzoo.rvfl._cv import _fold_outputs
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


# -- RVFLClassifierCV -------------------------------------------------------


def _naive_search_scores(X, y, w, n_hiddens, activations, scales, Cs, direct_link, random_state, n_folds=3):
    """Every configuration fitted on its own (augmented least squares), with the search's random numbers.

    Returns the validation accuracies (folds, configurations) and, per fold, the validation output scores of
    every configuration in grid order.
    """
    classes, codes = np.unique(y, return_inverse=True)
    seeds = draw_seeds(check_random_state(random_state), n_folds)
    rows, fold_outputs = [], []
    for f, (tr, te) in enumerate(StratifiedKFold(n_folds).split(X, y)):
        outputs = []
        tr = tr[w[tr] > 0]
        rng = np.random.default_rng(int(seeds[f]))
        U = rng.uniform(-1, 1, (X.shape[1], max(n_hiddens)))
        u = rng.uniform(0, 1, max(n_hiddens))
        mean = np.average(X[tr], axis=0, weights=w[tr])
        std = np.sqrt(np.average((X[tr] - mean) ** 2, axis=0, weights=w[tr]))
        scores = []
        for act in activations:
            for S in scales:
                for N in n_hiddens:
                    def design(Z):
                        H = ACTIVATIONS[act](Z @ (S * U[:, :N]) + S * u[:N])
                        return np.hstack(([Z] if direct_link else []) + [H, np.ones((Z.shape[0], 1))])
                    D, Dt = design((X[tr] - mean) / std), design((X[te] - mean) / std)
                    sq = np.sqrt(w[tr])[:, None]
                    Y = np.eye(classes.size)[codes[tr]]
                    for C in Cs:
                        lam = 0.5 ** C
                        A = np.vstack([D * sq, np.sqrt(lam) * np.eye(D.shape[1])])
                        B = np.vstack([Y * sq, np.zeros((D.shape[1], Y.shape[1]))])
                        out = Dt @ np.linalg.lstsq(A, B, rcond=None)[0]
                        outputs.append(out)
                        pred = np.argmax(out, axis=1)
                        scores.append(np.sum(w[te] * (pred == codes[te])) / np.sum(w[te]))
        rows.append(scores)
        fold_outputs.append(outputs)
    return np.array(rows), fold_outputs


@pytest.mark.parametrize("direct_link", [True, False])
def test_search_scores_every_configuration_as_a_separate_fit_would(direct_link):
    # iris: 100 training rows per fold, so N = 150 takes the dual (kernel) path and N = 5, 40 the primal one
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(1).uniform(0.2, 2.0, y.size)
    w[::17] = 0.0  # zero-weight rows leave the ridge fits and the validation accuracy
    grids = dict(n_hiddens=(40, 5, 150), activations=("sine", "radbas"), scales=(0.5,), Cs=(-3.0, 0.0, 6.0))
    search = RVFLClassifierCV(**grids, direct_link=direct_link, random_state=3).fit(X, y, sample_weight=w)
    naive, naive_outputs = _naive_search_scores(X, y, w, **grids, direct_link=direct_link, random_state=3)
    for f in range(3):
        assert_allclose(search.cv_results_[f"split{f}_test_score"], naive[f], atol=1e-12)
    # the output scores themselves, not only their argmax: the eigen / kernel shortcuts are exact
    seeds = draw_seeds(check_random_state(3), 3)
    classes, codes = np.unique(y, return_inverse=True)
    tr, te = next(iter(StratifiedKFold(3).split(X, y)))
    sizes = (len(grids["scales"]), len(grids["n_hiddens"]), len(grids["Cs"]))
    n_checked = 0
    for (a, s, j), scores in _fold_outputs(X, codes, w, tr, te, 3, grids["n_hiddens"], grids["activations"],
                                           grids["scales"], grids["Cs"], direct_link, int(seeds[0])):
        for c in range(sizes[2]):
            k = np.ravel_multi_index((a, s, j, c), (len(grids["activations"]),) + sizes)
            assert_allclose(scores[c], naive_outputs[0][k], rtol=1e-7, atol=1e-9)
            n_checked += 1
    assert n_checked == naive.shape[1]
    mean = naive.mean(axis=0)
    assert search.best_score_ == pytest.approx(mean.max())
    best = int(np.argmax(search.cv_results_["mean_test_score"]))
    assert search.best_params_ == {
        "n_hidden": search.cv_results_["param_n_hidden"][best], "activation": search.cv_results_["param_activation"][best],
        "scale": search.cv_results_["param_scale"][best], "C": search.cv_results_["param_C"][best]}
    assert search.cv_results_["rank_test_score"][best] == 1
    # the grid order of cv_results_: activations, scales, n_hiddens, Cs (Cs fastest)
    assert list(search.cv_results_["param_C"][:3]) == [-3.0, 0.0, 6.0]
    assert list(search.cv_results_["param_n_hidden"][:9:3]) == [40, 5, 150]
    assert list(search.cv_results_["param_activation"][::9]) == ["sine", "radbas"]


def test_search_refits_the_best_configuration_on_all_data():
    X, y = load_wine(return_X_y=True)
    search = RVFLClassifierCV(n_hiddens=(10, 60), scales=(0.5, 1.0), random_state=0).fit(X, y)
    est = search.best_estimator_
    assert {k: est.get_params()[k] for k in search.best_params_} == search.best_params_
    assert_array_equal(search.predict(X), est.predict(X))
    assert_allclose(search.predict_proba(X), est.predict_proba(X))
    assert_allclose(search.decision_function(X), est.decision_function(X))
    assert_array_equal(search.classes_, np.unique(y))


def test_search_does_not_depend_on_n_jobs():
    X, y = load_wine(return_X_y=True)
    kw = dict(n_hiddens=(10, 60), scales=(0.5, 1.0), Cs=(0.0, 5.0), random_state=4)
    a = RVFLClassifierCV(**kw, n_jobs=1).fit(X, y)
    b = RVFLClassifierCV(**kw, n_jobs=2).fit(X, y)
    assert_array_equal(a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"])
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("params, match", [
    ({"n_hiddens": ()}, "n_hiddens is empty"),
    ({"n_hiddens": (0, 5)}, "integers >= 1"),
    ({"activations": ("sine", "gelu")}, "Unknown activations"),
    ({"scales": (1.0, -2.0)}, "finite and > 0"),
    ({"Cs": (0.0, np.inf)}, "Cs must be finite"),
])
def test_search_rejects_bad_grids(params, match):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        RVFLClassifierCV(**params).fit(X, y)


def test_search_beats_a_poor_configuration():
    # concentric circles: 3 narrow tribas units under a heavy penalty are near-linear, the grid holds 63 units
    from sklearn.datasets import make_circles
    from sklearn.model_selection import train_test_split

    X, y = make_circles(600, factor=0.5, noise=0.1, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    poor = RVFLClassifier(n_hidden=3, activation="tribas", scale=2.0 ** -1.5, C=-5.0, random_state=0)
    tuned = RVFLClassifierCV(n_hiddens=(3, 63), activations=("tribas",), random_state=0).fit(Xtr, ytr)
    assert tuned.best_params_["n_hidden"] == 63
    assert tuned.score(Xte, yte) > 0.9 > 0.7 > poor.fit(Xtr, ytr).score(Xte, yte)


def test_forest_with_a_one_point_grid_equals_the_untuned_forest():
    X, y = load_wine(return_X_y=True)
    one = RVFLClassifierCV(n_hiddens=(30,), activations=("sine",), scales=(0.5,), Cs=(2.0,))
    tuned = RVFLForestClassifier(n_estimators=5, tune_rvfl=one, random_state=0).fit(X, y)
    plain = RVFLForestClassifier(n_estimators=5, n_hidden=30, activation="sine", scale=0.5, rvfl_C=2.0,
                                 random_state=0).fit(X, y)
    assert tuned.rvfl_params_ == {"n_hidden": 30, "activation": "sine", "scale": 0.5, "C": 2.0}
    assert plain.rvfl_params_ == tuned.rvfl_params_ and plain.rvfl_cv_ is None
    assert_array_equal(tuned.predict_proba(X), plain.predict_proba(X))
    assert one.get_params()["random_state"] is None  # the forest tunes a clone


def test_forest_tune_rvfl_true_uses_the_searched_parameters():
    X, y = load_wine(return_X_y=True)
    forest = RVFLForestClassifier(n_estimators=3, tune_rvfl=True, random_state=0).fit(X, y)
    assert isinstance(forest.rvfl_cv_, RVFLClassifierCV)
    assert forest.rvfl_params_ == forest.rvfl_cv_.best_params_
    assert len(forest.rvfl_cv_.cv_results_["mean_test_score"]) == 11 * 3 * 7 * 20  # the lecture's grid
    W = forest.bags_[0][0][2]
    assert W.shape[1] == forest.rvfl_params_["n_hidden"]
    assert np.all(np.abs(W) <= forest.rvfl_params_["scale"])
