"""AdaBoost family (forestzoo.boosting): each algorithm against a naive reference written from its paper.

The references below run the boosting loop literally (ESL Algorithm 10.1, Zhu et al. 2009
Algorithms 2 and 4, Friedman-Hastie-Tibshirani 2000 Algorithms 3, 4 and 6, Drucker 1997,
least-squares boosting) around forestzoo's single trees fitted with the round's sample weights;
the estimators must reproduce their weights, errors and predictions.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification
from sklearn.metrics import balanced_accuracy_score
from sklearn.utils._param_validation import InvalidParameterError

from forestzoo import (
    AdaBoostClassifier, AdaBoostRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
    GradientBoostingClassifier, GradientBoostingRegressor,
)

EPS = np.finfo(np.float64).eps


def esl_10_2(n, seed):
    """ESL Eq. (10.2): ten standard normal features, y = 1 if sum x_j^2 > chi2_10(0.5) = 9.34 else -1."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 10))
    return X, np.where((X**2).sum(axis=1) > 9.34, 1, -1)


def stump(X, y, w, **kw):
    return DecisionTreeClassifier(max_depth=1, splitter="exact", random_state=0, **kw).fit(X, y, sample_weight=w)


def naive_samme(X, y, n_rounds, lr=1.0, m1=False):
    """ESL Algorithm 10.1 (M1) / Zhu et al. 2009 Algorithm 2 (SAMME), literally."""
    classes = np.unique(y)
    K = classes.size
    w = np.full(len(y), 1.0 / len(y))
    alphas, errs, trees = [], [], []
    for _ in range(n_rounds):
        tree = stump(X, y, w)
        miss = tree.predict(X) != y
        err = w[miss].sum() / w.sum()
        alpha = lr * (np.log((1 - err) / err) + (0.0 if m1 else np.log(K - 1)))
        w = w * np.exp(alpha * miss)
        w /= w.sum()
        alphas.append(alpha), errs.append(err), trees.append(tree)
    votes = sum(a * (t.predict(X)[:, None] == classes) for a, t in zip(alphas, trees))
    return np.array(alphas), np.array(errs), votes


@pytest.fixture(scope="module")
def esl_data():
    X, y = esl_10_2(600, 0)
    Xt, yt = esl_10_2(2000, 1)
    return X, y, Xt, yt


def test_m1_matches_esl_algorithm_10_1(esl_data):
    X, y, Xt, yt = esl_data
    clf = AdaBoostClassifier(algorithm="M1", n_estimators=40, splitter="exact", random_state=0).fit(X, y)
    alphas, errs, votes = naive_samme(X, y, 40, m1=True)
    assert_allclose(clf.estimator_weights_, alphas, rtol=1e-10)
    assert_allclose(clf.estimator_errors_, errs, rtol=1e-10)
    # binary: decision = sum_m alpha_m G_m(x) with G in {-1, +1} (ESL Algorithm 10.1, step 3)
    assert_allclose(clf.decision_function(X), votes[:, 1] - votes[:, 0], rtol=1e-10, atol=1e-10)
    # ESL Fig. 10.2: one stump errs ~46 % of the time, boosted stumps far less
    single = np.mean(stump(X, y, None).predict(Xt) != yt)
    boosted = np.mean(clf.predict(Xt) != yt)
    assert single > 0.4 and boosted < single - 0.15


def test_samme_matches_zhu_algorithm_2():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=0)
    clf = AdaBoostClassifier(algorithm="SAMME", n_estimators=15, learning_rate=0.5, splitter="exact",
                             random_state=0).fit(X, y)
    alphas, errs, votes = naive_samme(X, y, 15, lr=0.5)
    assert_allclose(clf.estimator_weights_, alphas, rtol=1e-10)
    assert_allclose(clf.estimator_errors_, errs, rtol=1e-10)
    # predict_proba = softmax of the votes (Zhu et al. 2009, Sec. 2.1)
    P = np.exp(votes - votes.max(1, keepdims=True))
    assert_allclose(clf.predict_proba(X), P / P.sum(1, keepdims=True), rtol=1e-9)
    assert_array_equal(clf.predict(X), np.argmax(votes, axis=1))


def test_samme_r_matches_zhu_algorithm_4():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=1)
    K, lr = 3, 0.7
    clf = AdaBoostClassifier(algorithm="SAMME.R", n_estimators=10, learning_rate=lr, max_depth=2,
                             splitter="exact", random_state=0).fit(X, y)
    w = np.full(len(y), 1 / len(y))
    F = np.zeros((len(y), K))
    Y = np.where(np.arange(K) == y[:, None], 1.0, -1.0 / (K - 1))  # symmetric coding
    for _ in range(10):
        tree = DecisionTreeClassifier(max_depth=2, splitter="exact", random_state=0).fit(X, y, sample_weight=w)
        logp = np.log(np.clip(tree.predict_proba(X), EPS, None))
        F += lr * (K - 1) * (logp - logp.mean(1, keepdims=True))
        w = w * np.exp(-lr * (K - 1) / K * (Y * logp).sum(1))
        w /= w.sum()
    P = np.exp(F / (K - 1) - (F / (K - 1)).max(1, keepdims=True))
    assert_allclose(clf.predict_proba(X), P / P.sum(1, keepdims=True), rtol=1e-8, atol=1e-12)


def test_logitboost_binary_matches_fht_algorithm_3():
    X, y = make_classification(300, 5, random_state=2)
    clf = AdaBoostClassifier(algorithm="LogitBoost", n_estimators=12, max_depth=2, splitter="exact",
                             random_state=0).fit(X, y)
    F = np.zeros(len(y))
    for _ in range(12):
        p = np.exp(F) / (np.exp(F) + np.exp(-F))
        w = np.maximum(p * (1 - p), 2 * EPS)
        z = np.clip((y - p) / w, -4, 4)
        f = DecisionTreeRegressor(max_depth=2, splitter="exact", random_state=0).fit(X, z, sample_weight=w).predict(X)
        F += 0.5 * f
    # decision_function is the log-odds log(p / (1 - p)) = 2F
    assert_allclose(clf.decision_function(X), 2 * F, rtol=1e-9, atol=1e-9)
    assert_allclose(clf.predict_proba(X)[:, 1], np.exp(F) / (np.exp(F) + np.exp(-F)), rtol=1e-9)


def test_logitboost_multiclass_matches_fht_algorithm_6():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=3)
    J, lr = 3, 0.5
    clf = AdaBoostClassifier(algorithm="LogitBoost", n_estimators=8, learning_rate=lr, max_depth=2,
                             splitter="exact", random_state=0).fit(X, y)
    F = np.zeros((len(y), J))
    for _ in range(8):
        P = np.exp(F) / np.exp(F).sum(1, keepdims=True)
        f = np.zeros_like(F)
        for j in range(J):
            w = np.maximum(P[:, j] * (1 - P[:, j]), 2 * EPS)
            z = np.clip(((y == j) - P[:, j]) / w, -4, 4)
            f[:, j] = DecisionTreeRegressor(max_depth=2, splitter="exact", random_state=0).fit(
                X, z, sample_weight=w).predict(X)
        F += lr * (J - 1) / J * (f - f.mean(1, keepdims=True))
    assert_allclose(clf.predict_proba(X), np.exp(F) / np.exp(F).sum(1, keepdims=True), rtol=1e-8)
    assert [len(r) for r in clf.estimators_] == [J] * 8


def test_gentleboost_binary_matches_fht_algorithm_4():
    X, y = make_classification(300, 5, random_state=4)
    clf = AdaBoostClassifier(algorithm="GentleBoost", n_estimators=10, max_depth=1, splitter="exact",
                             random_state=0).fit(X, y)
    ypm = np.where(y == 1, 1.0, -1.0)
    w = np.full(len(y), 1 / len(y))
    F = np.zeros(len(y))
    for _ in range(10):
        f = DecisionTreeRegressor(max_depth=1, splitter="exact", random_state=0).fit(X, ypm, sample_weight=w).predict(X)
        F += f
        w = w * np.exp(-ypm * f)
        w /= w.sum()
    assert_allclose(clf.decision_function(X), 2 * F, rtol=1e-9, atol=1e-9)
    assert_array_equal(clf.predict(X), (F > 0).astype(int))


def test_rusboost_grows_each_tree_on_a_balanced_undersample():
    X, y = make_classification(1200, 8, weights=[0.9, 0.1], random_state=5)
    n_min = np.bincount(y).min()
    clf = AdaBoostClassifier(algorithm="RUSBoost", n_estimators=10, max_depth=2, random_state=0).fit(X, y)
    roots = [e.tree_.nodes[0] for e in clf.estimators_]
    assert all(r["n_samples"] == 2 * n_min for r in roots)
    # ratio_to_smallest=2: the majority keeps twice the minority's size
    clf2 = AdaBoostClassifier(algorithm="RUSBoost", n_estimators=3, ratio_to_smallest=2.0, random_state=0).fit(X, y)
    assert all(e.tree_.nodes[0]["n_samples"] == 3 * n_min for e in clf2.estimators_)


def test_rusboost_weights_follow_adaboost_m2():
    # Seiffert et al. 2010, Algorithm 1 / Freund & Schapire 1997, AdaBoost.M2, replayed on the fitted trees
    X, y = make_classification(900, 6, n_informative=4, n_classes=3, weights=[0.7, 0.2, 0.1],
                               n_clusters_per_class=1, random_state=14)
    clf = AdaBoostClassifier(algorithm="RUSBoost", n_estimators=8, max_depth=2, random_state=0).fit(X, y)
    n, K = len(y), 3
    Wm = np.where(np.arange(K) == y[:, None], 0.0, 1.0 / (n * (K - 1)))
    votes = np.zeros((n, K))
    for est, eps, alpha in zip(clf.estimators_, clf.estimator_errors_, clf.estimator_weights_):
        h = est.predict_proba(X)
        D = Wm.sum(1) / Wm.sum()
        q = Wm / Wm.sum(1, keepdims=True)
        h_true = h[np.arange(n), y]
        assert_allclose(eps, 0.5 * np.sum(D * (1 - h_true + (q * h).sum(1))), rtol=1e-10)
        beta = eps / (1 - eps)
        assert_allclose(alpha, np.log(1 / beta), rtol=1e-10)
        Wm = Wm * beta ** (0.5 * (1 + h_true[:, None] - h))
        Wm[np.arange(n), y] = 0
        votes += alpha * h
    assert_allclose(clf.predict_proba(X), votes / clf.estimator_weights_.sum(), rtol=1e-9)


def test_rusboost_beats_samme_on_balanced_accuracy_when_imbalanced():
    X, y = make_classification(4000, 10, n_informative=5, weights=[0.98, 0.02], flip_y=0.0, random_state=6)
    Xt, yt = X[2000:], y[2000:]
    X, y = X[:2000], y[:2000]
    kw = dict(n_estimators=30, max_depth=2, random_state=0)
    samme = AdaBoostClassifier(algorithm="SAMME", **kw).fit(X, y)
    rus = AdaBoostClassifier(algorithm="RUSBoost", **kw).fit(X, y)
    assert balanced_accuracy_score(yt, rus.predict(Xt)) > balanced_accuracy_score(yt, samme.predict(Xt)) + 0.03


def test_lsboost_matches_least_squares_boosting():
    rng = np.random.RandomState(7)
    X = rng.uniform(-2, 2, size=(300, 4))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=300)
    sw = rng.uniform(0.5, 2.0, size=300)
    reg = AdaBoostRegressor(algorithm="LSBoost", n_estimators=20, learning_rate=0.3, splitter="exact",
                            random_state=0).fit(X, y, sample_weight=sw)
    F = np.full(300, np.average(y, weights=sw))
    staged = []
    for _ in range(20):
        F = F + 0.3 * DecisionTreeRegressor(max_depth=3, splitter="exact", random_state=0).fit(
            X, y - F, sample_weight=sw).predict(X)
        staged.append(F)
    assert_allclose(reg.predict(X), F, rtol=1e-9)
    assert_allclose(list(reg.staged_predict(X)), staged, rtol=1e-9)


def test_adaboost_r2_matches_drucker_1997():
    rng = np.random.RandomState(8)
    X = rng.uniform(-2, 2, size=(200, 3))
    y = X[:, 0] ** 3 - X[:, 1] + 0.2 * rng.normal(size=200)
    reg = AdaBoostRegressor(algorithm="R2", loss="square", n_estimators=10, max_depth=2, splitter="exact",
                            random_state=0).fit(X, y)
    w = np.full(200, 1 / 200)
    preds, weights = [], []
    for _ in range(10):
        pred = DecisionTreeRegressor(max_depth=2, splitter="exact", random_state=0).fit(X, y, sample_weight=w).predict(X)
        L = (np.abs(pred - y) / np.abs(pred - y).max()) ** 2
        Lbar = np.sum(w * L)
        beta = Lbar / (1 - Lbar)
        w = w * beta ** (1 - L)
        w /= w.sum()
        preds.append(pred), weights.append(np.log(1 / beta))
    assert_allclose(reg.estimator_weights_, weights, rtol=1e-9)
    P, wts = np.array(preds).T, np.array(weights)
    # weighted median: smallest prediction holding half of the total weight (Drucker 1997, Eq. (2))
    expect = [min(v for v in row if wts[row <= v].sum() >= 0.5 * wts.sum()) for row in P]
    assert_allclose(reg.predict(X), expect)


@pytest.mark.parametrize("algorithm", ["M1", "SAMME", "SAMME.R", "RUSBoost"])
def test_zero_error_at_round_one_stops_cleanly(algorithm):
    X = np.linspace(-1, 1, 40)[:, None]
    y = (X[:, 0] > 0.05).astype(int)
    clf = AdaBoostClassifier(algorithm=algorithm, n_estimators=10, random_state=0).fit(X, y)
    assert len(clf.estimators_) == 1
    assert_array_equal(clf.estimator_errors_, [0.0])
    assert np.all(np.isfinite(clf.estimator_weights_))
    assert_array_equal(clf.predict(X), y)
    assert np.all(np.isfinite(clf.predict_proba(X)))


def test_perfect_tree_later_decides_alone():
    # a perfect stump after imperfect rounds: its weight exceeds all previous weights together
    X, y = esl_10_2(200, 9)
    X = np.column_stack([X, np.where(y > 0, 1.0, -1.0)])  # feature 10 separates the classes
    clf = AdaBoostClassifier(algorithm="SAMME", n_estimators=10, max_features=1, random_state=3).fit(X, y)
    if len(clf.estimators_) > 1:
        assert clf.estimator_errors_[-1] == 0.0
        assert clf.estimator_weights_[-1] > clf.estimator_weights_[:-1].sum()
    assert_array_equal(clf.predict(X), y)


@pytest.mark.parametrize("algorithm", ["R2", "LSBoost"])
def test_regressor_zero_error_stops_cleanly(algorithm):
    X = np.linspace(-1, 1, 30)[:, None]
    y = np.where(X[:, 0] > 0, 2.0, -1.0)
    reg = AdaBoostRegressor(algorithm=algorithm, n_estimators=10, max_depth=1, random_state=0).fit(X, y)
    assert len(reg.estimators_) == 1
    assert_allclose(reg.predict(X), y)


def test_m1_raises_when_the_first_learner_is_no_better_than_chance():
    X, y = make_classification(400, 4, n_informative=4, n_redundant=0, n_classes=4, n_clusters_per_class=1,
                               random_state=0)
    fitted = AdaBoostClassifier(algorithm="SAMME", n_estimators=3, random_state=0).fit(X, y)
    before = fitted.predict_proba(X)
    with pytest.raises(ValueError, match="no better than chance"):
        fitted.set_params(algorithm="M1").fit(X, y)  # a stump is right on <= 2 of 4 classes: err >= 1/2
    assert_array_equal(fitted.predict_proba(X), before)  # the failed fit left the model intact
    assert fitted.algorithm == "M1" and len(fitted.estimators_) == 3


@pytest.mark.parametrize("Est", [AdaBoostClassifier, AdaBoostRegressor, GradientBoostingClassifier,
                                 GradientBoostingRegressor])
@pytest.mark.parametrize("lr", [0.0, -0.5])
def test_non_positive_learning_rate_raises(Est, lr):
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(InvalidParameterError, match="learning_rate"):
        Est(learning_rate=lr, n_estimators=2).fit(X, y)


def test_one_weighted_class_raises():
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match="two classes"):
        AdaBoostClassifier().fit(X, y, sample_weight=(y == 1).astype(float))


@pytest.mark.parametrize("algorithm", ["SAMME", "SAMME.R", "LogitBoost", "GentleBoost", "RUSBoost"])
def test_reproducible_and_independent_of_n_jobs(algorithm):
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=10)
    kw = dict(algorithm=algorithm, n_estimators=8, max_depth=2, max_features=3, random_state=1)
    a = AdaBoostClassifier(n_jobs=1, **kw).fit(X, y).predict_proba(X)
    b = AdaBoostClassifier(n_jobs=2, **kw).fit(X, y).predict_proba(X)
    assert_array_equal(a, b)
    c = AdaBoostClassifier(n_jobs=1, **{**kw, "random_state": 2}).fit(X, y).predict_proba(X)
    assert not np.array_equal(a, c)  # max_features=3: the seed matters


@pytest.mark.parametrize("algorithm", ["M1", "SAMME", "SAMME.R", "LogitBoost", "GentleBoost", "RUSBoost"])
def test_staged_methods_end_at_the_final_model(algorithm):
    X, y = make_classification(200, 5, random_state=11)
    clf = AdaBoostClassifier(algorithm=algorithm, n_estimators=6, max_depth=2, random_state=0).fit(X, y)
    staged = list(clf.staged_predict_proba(X))
    assert len(staged) == len(clf.estimators_)
    assert_allclose(staged[-1], clf.predict_proba(X))
    assert_array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))
    assert_allclose(list(clf.staged_decision_function(X))[-1], clf.decision_function(X))
    imp = clf.feature_importances_
    assert imp.shape == (5,) and np.isclose(imp.sum(), 1.0)


def test_nan_in_X_is_routed_by_the_trees():
    X, y = make_classification(600, 6, n_informative=4, random_state=12)
    X[np.random.RandomState(0).rand(*X.shape) < 0.2] = np.nan
    clf = AdaBoostClassifier(algorithm="SAMME", n_estimators=30, max_depth=2, random_state=0).fit(X[:400], y[:400])
    assert clf.score(X[400:], y[400:]) > 0.75


def test_samme_agrees_with_scikit_learn():
    from sklearn.ensemble import AdaBoostClassifier as SkAda
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, y = make_classification(1500, 10, n_informative=6, n_classes=3, random_state=13)
    Xt, yt = X[1000:], y[1000:]
    ours = AdaBoostClassifier(n_estimators=40, max_depth=2, random_state=0).fit(X[:1000], y[:1000]).score(Xt, yt)
    sk = SkAda(SkTree(max_depth=2), n_estimators=40, random_state=0).fit(X[:1000], y[:1000]).score(Xt, yt)
    assert abs(ours - sk) < 0.04


def test_bench_models_are_registered_and_fit():
    from forestzoo.bench.registry import get_suite, list_models, make_model

    names = {m.name: m.task for m in list_models(family="boosting")}
    assert {"AdaBoost-M1", "SAMME", "SAMME.R", "LogitBoost", "GentleBoost", "RUSBoost", "GBT"} <= set(names)
    assert {names[n] for n in ("LSBoost", "AdaBoost.R2", "GBT-reg")} == {"regression"}
    X, y = make_classification(120, 4, n_informative=3, n_redundant=0, random_state=0)
    for name, task in names.items():
        model = make_model(name, n_estimators=3, n_jobs=1, random_state=0)
        model.fit(X, y if task == "classification" else X[:, 0])
        assert len(model.estimators_) >= 1
    assert "GBT" in get_suite("boosting-largest5").models


def test_libm_exp_and_log_are_the_c_library_functions_elementwise():
    import math

    from forestzoo import _libm

    rng = np.random.RandomState(0)
    x = rng.uniform(-30, 30, size=(7, 5))
    e = _libm.exp(x)
    assert e.shape == x.shape and e.dtype == np.float64
    assert e.tolist() == [[math.exp(v) for v in row] for row in x.tolist()]
    y = np.abs(x[:, 0])
    assert _libm.log(y).tolist() == [math.log(v) for v in y.tolist()]
    assert _libm.exp(x.T)[1, 2] == math.exp(x[2, 1])  # non-contiguous input
    assert isinstance(_libm.exp(0.5), float) and _libm.exp(0.5) == math.exp(0.5)
    logs = _libm.log(np.array([0.0, -1.0, 1.0]))
    assert logs[0] == -np.inf and np.isnan(logs[1]) and logs[2] == 0.0
    assert _libm.log(0.0) == -math.inf and math.isnan(_libm.log(-2.0))
