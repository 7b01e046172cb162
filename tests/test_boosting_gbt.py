"""Gradient-boosted trees (forestzoo.boosting): naive references of ESL Algorithms 10.3 / 10.4,
finite-difference gradients, exact leaf optima, early stopping, subsampling, NaN, determinism."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, make_classification, make_regression

from forestzoo import DecisionTreeRegressor, GradientBoostingClassifier, GradientBoostingRegressor
from forestzoo.boosting._losses import (
    AbsoluteError, BinomialDeviance, HuberLoss, MultinomialDeviance, SquaredError, make_loss,
)


def hist_tree(X, target, w, depth=3):
    return DecisionTreeRegressor(splitter="hist", max_depth=depth, random_state=0).fit(X, target, sample_weight=w)


def leaf_sums(tree, X):
    leaf = tree.apply(X)
    return leaf, lambda v: np.bincount(leaf, v, tree.tree_.node_count)


@pytest.mark.parametrize("split_gain", ["gradient", "newton"])
def test_k_class_matches_esl_algorithm_10_4(split_gain):
    X, y = make_classification(400, 6, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=0)
    K, nu, M = 3, 0.3, 6
    clf = GradientBoostingClassifier(n_estimators=M, learning_rate=nu, split_gain=split_gain, random_state=0).fit(X, y)
    prior = np.bincount(y) / len(y)
    F = np.tile(np.log(prior) - np.log(prior).mean(), (len(y), 1))
    for _ in range(M):
        P = np.exp(F) / np.exp(F).sum(1, keepdims=True)  # step 2(a)
        step = np.zeros_like(F)
        for k in range(K):
            r = (y == k) - P[:, k]  # step 2(b)i
            h = np.maximum(np.abs(r) * (1 - np.abs(r)), 1e-10)
            tree = hist_tree(X, r, None) if split_gain == "gradient" else hist_tree(X, r / h, h)  # step (b)ii
            leaf, total = leaf_sums(tree, X)
            gamma = (K - 1) / K * total(r) / np.maximum(total(np.abs(r) * (1 - np.abs(r))), 1e-300)  # (b)iii
            step[:, k] = nu * gamma[leaf]
        F += step  # (b)iv
    assert_allclose(clf.decision_function(X), F, rtol=1e-8, atol=1e-10)
    assert_allclose(clf.predict_proba(X), np.exp(F) / np.exp(F).sum(1, keepdims=True), rtol=1e-8)


def test_binary_matches_newton_boosting_on_the_log_odds():
    X, y = make_classification(400, 6, random_state=1)
    sw = np.random.RandomState(0).uniform(0.5, 2, size=400)
    clf = GradientBoostingClassifier(n_estimators=5, learning_rate=0.5, max_depth=2, split_gain="gradient",
                                     random_state=0).fit(X, y, sample_weight=sw)
    p0 = np.average(y, weights=sw)
    F = np.full(400, np.log(p0 / (1 - p0)))
    for _ in range(5):
        p = 1 / (1 + np.exp(-F))
        r = y - p
        tree = hist_tree(X, r, sw, depth=2)
        leaf, total = leaf_sums(tree, X)
        with np.errstate(invalid="ignore"):  # internal nodes hold no rows: 0 / 0, never read
            F += 0.5 * (total(sw * r) / total(sw * p * (1 - p)))[leaf]
    assert_allclose(clf.decision_function(X), F, rtol=1e-8)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber"])
def test_regression_matches_esl_algorithm_10_3(loss):
    X, y = make_regression(300, 5, noise=10.0, random_state=2)
    y[:10] += 300  # outliers, where the losses differ
    nu, M, alpha = 0.5, 5, 0.8
    reg = GradientBoostingRegressor(loss=loss, alpha=alpha, n_estimators=M, learning_rate=nu, random_state=0).fit(X, y)
    F = np.full(300, np.mean(y) if loss == "squared_error" else np.sort(y)[(300 - 1) // 2])
    for _ in range(M):
        res = y - F
        if loss == "squared_error":
            r = res
        elif loss == "absolute_error":
            r = np.sign(res)
        else:
            delta = np.sort(np.abs(res))[int(np.ceil(alpha * 300)) - 1]
            r = np.clip(res, -delta, delta)
        tree = hist_tree(X, r, None)
        leaf = tree.apply(X)
        gamma = np.zeros(tree.tree_.node_count)
        for j in np.unique(leaf):
            d = np.sort(res[leaf == j])
            med = d[(d.size - 1) // 2]
            if loss == "squared_error":
                gamma[j] = d.mean()
            elif loss == "absolute_error":
                gamma[j] = med
            else:  # Friedman (2001), Algorithm 4
                gamma[j] = med + np.mean(np.sign(d - med) * np.minimum(delta, np.abs(d - med)))
        F += nu * gamma[leaf]
    assert_allclose(reg.predict(X), F, rtol=1e-8)
    assert_allclose(list(reg.staged_predict(X))[-1], F, rtol=1e-8)


@pytest.mark.parametrize("loss", [SquaredError(), AbsoluteError(), HuberLoss(0.7), BinomialDeviance(),
                                  MultinomialDeviance(3)], ids=lambda l: type(l).__name__)
def test_negative_gradient_is_the_finite_difference_slope(loss):
    rng = np.random.RandomState(3)
    n = 50
    if isinstance(loss, MultinomialDeviance):
        y, F = rng.randint(0, 3, n), rng.normal(size=(n, 3))
    elif isinstance(loss, BinomialDeviance):
        y, F = rng.randint(0, 2, n), rng.normal(size=(n, 1))
    else:
        y, F = rng.normal(size=n), rng.normal(size=(n, 1))
    r, _, _ = loss.gradients(y, F, np.ones(n))  # also sets Huber's delta
    eps = 1e-6
    for i in range(0, n, 7):
        for k in range(F.shape[1]):
            up, down = F[i:i + 1].copy(), F[i:i + 1].copy()
            up[0, k] += eps
            down[0, k] -= eps
            slope = (loss.loss(y[i:i + 1], up, np.ones(1)) - loss.loss(y[i:i + 1], down, np.ones(1))) / (2 * eps)
            assert_allclose(r[i, k], -slope, atol=1e-5)


def test_leaf_values_are_the_leaf_optima():
    rng = np.random.RandomState(4)
    n, n_leaves = 60, 3
    leaf = rng.randint(0, n_leaves, n)
    y, F, w = rng.normal(size=n), rng.normal(size=(n, 1)), rng.uniform(0.1, 2, n)
    # absolute error: the weighted median minimises sum w |y - F - gamma| exactly
    loss = AbsoluteError()
    r, _, _ = loss.gradients(y, F, w)
    gamma = loss.leaf_values(0, leaf, n_leaves, y, F, r, w)
    for j in range(n_leaves):
        d, wj = (y - F[:, 0])[leaf == j], w[leaf == j]
        cost = lambda g: np.sum(wj * np.abs(d - g))  # noqa: E731
        assert cost(gamma[j]) <= min(cost(c) for c in d) + 1e-12
    # binomial deviance: one Newton step, -L'(0) / L''(0) of the leaf's loss in gamma
    yb = rng.randint(0, 2, n)
    loss = BinomialDeviance()
    r, _, _ = loss.gradients(yb, F, w)
    gamma = loss.leaf_values(0, leaf, n_leaves, yb, F, r, w)
    for j in range(n_leaves):
        m = leaf == j
        L = lambda g: np.sum(w[m] * (np.logaddexp(0, F[m, 0] + g) - yb[m] * (F[m, 0] + g)))  # noqa: E731
        e = 1e-4
        d1, d2 = (L(e) - L(-e)) / (2 * e), (L(e) - 2 * L(0) + L(-e)) / e**2
        assert_allclose(gamma[j], -d1 / d2, rtol=1e-5)


def test_early_stopping_on_a_validation_fraction():
    X, y = make_classification(1000, 10, n_informative=3, flip_y=0.3, random_state=5)
    clf = GradientBoostingClassifier(n_estimators=300, learning_rate=0.5, n_iter_no_change=3,
                                     validation_fraction=0.2, random_state=0).fit(X, y)
    assert clf.n_estimators_ < 100
    assert clf.estimators_.shape == (clf.n_estimators_, 1)
    assert clf.validation_score_.shape == (clf.n_estimators_,) == clf.train_score_.shape
    best = clf.validation_score_.min()
    assert np.all(clf.validation_score_[-3:] + clf.tol >= best)
    assert len(list(clf.staged_predict(X))) == clf.n_estimators_


def test_subsample_is_stochastic_gradient_boosting_and_reproducible():
    X, y = make_classification(600, 8, n_informative=5, n_classes=3, random_state=6)
    kw = dict(n_estimators=10, subsample=0.5, max_features=0.5, random_state=0)
    a = GradientBoostingClassifier(n_jobs=1, **kw).fit(X, y)
    b = GradientBoostingClassifier(n_jobs=2, **kw).fit(X, y)
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # every tree saw about half of the rows
    n_root = [e.tree_.nodes[0]["n_samples"] for e in a.estimators_.ravel()]
    assert set(n_root) == {300}
    c = GradientBoostingClassifier(n_jobs=1, **{**kw, "random_state": 1}).fit(X, y)
    assert not np.array_equal(a.predict_proba(X), c.predict_proba(X))


def test_max_leaf_nodes_grows_best_first():
    X, y = make_regression(500, 6, random_state=7)
    reg = GradientBoostingRegressor(n_estimators=5, max_depth=None, max_leaf_nodes=5, random_state=0).fit(X, y)
    assert all(e.tree_.n_leaves == 5 for e in reg.estimators_.ravel())
    assert reg.apply(X).shape == (500, 5, 1)


def test_nan_support():
    X, y = make_classification(1500, 8, n_informative=4, random_state=8)
    X[np.random.RandomState(1).rand(*X.shape) < 0.25] = np.nan
    clf = GradientBoostingClassifier(n_estimators=40, random_state=0).fit(X[:1000], y[:1000])
    assert clf.score(X[1000:], y[1000:]) > 0.8
    assert np.all(np.isfinite(clf.predict_proba(np.full((2, 8), np.nan))))


def test_feature_importances_find_the_informative_features():
    X, y = make_regression(400, 8, n_informative=2, shuffle=False, random_state=9)
    reg = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    imp = reg.feature_importances_
    assert np.isclose(imp.sum(), 1.0)
    assert set(np.argsort(imp)[-2:]) == {0, 1}


def test_accuracy_close_to_scikit_learn_hist_gradient_boosting():
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import train_test_split

    from threadpoolctl import threadpool_limits

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    ours = GradientBoostingClassifier(n_estimators=25, max_depth=3, random_state=0).fit(Xtr, ytr)
    # one OpenMP thread: on a loaded machine HGB's spinning threads made this 20x slower
    with threadpool_limits(1, user_api="openmp"):
        hgb = HistGradientBoostingClassifier(max_iter=25, max_depth=3, max_leaf_nodes=None, min_samples_leaf=1,
                                             early_stopping=False, random_state=0).fit(Xtr, ytr)
    assert ours.score(Xte, yte) > 0.9
    assert abs(ours.score(Xte, yte) - hgb.score(Xte, yte)) < 0.03


def test_make_loss_names():
    assert isinstance(make_loss("log_loss", n_classes=2), BinomialDeviance)
    assert isinstance(make_loss("log_loss", n_classes=4), MultinomialDeviance)
    with pytest.raises(ValueError, match="Unknown loss"):
        make_loss("hinge")
