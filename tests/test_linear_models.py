"""Linear node models of the obRaF forests against independent references (sklearn, closed forms)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LogisticRegression as SkLogistic
from sklearn.svm import LinearSVC

from forestzoo.oblique import MPSVM
from forestzoo.oblique._linear_models import (
    LDA, LSSVM, MODEL_NAMES, RR_GRID, LinearSVM, LogisticRegression, MPSVMModel, RidgeRegression, make_model,
)


def _node(n=120, q=4, seed=0, noise=0.8):
    rng = np.random.RandomState(seed)
    Z = rng.normal(size=(n, q))
    t = Z @ rng.normal(size=q) + noise * rng.normal(size=n) > 0.3
    return Z, t, rng.uniform(0.5, 2.0, n)


def _as_decision(W, b):
    """(w, c) with the positive side ``w.z + c > 0``."""
    return W[0], -b[0]


def test_lda_is_the_regularised_fisher_discriminant():
    Z, t, w = _node()
    delta = 0.05
    W, b = LDA(delta=delta).fit_hyperplanes(Z, t, w)
    mp = np.average(Z[t], axis=0, weights=w[t])
    mn = np.average(Z[~t], axis=0, weights=w[~t])
    centred = np.where(t[:, None], Z - mp, Z - mn)
    S = (centred * w[:, None]).T @ centred / w.sum() + delta * np.eye(Z.shape[1])
    ref = np.linalg.solve(S, mp - mn)
    assert_allclose(W[0], ref, rtol=1e-10)
    # the Bayes rule of two Gaussians with a shared covariance and priors W+/W-
    assert_allclose(b[0], ref @ (mp + mn) / 2 - np.log(w[t].sum() / w[~t].sum()), rtol=1e-10)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_svm_matches_liblinear_primal(C):
    Z, t, w = _node(seed=1)
    W, b = LinearSVM(C=C).fit_hyperplanes(Z, t, w)
    # liblinear penalises the bias as a constant feature of value intercept_scaling = 1
    ref = LinearSVC(C=C, loss="squared_hinge", dual=False, tol=1e-10, max_iter=100000).fit(Z, t, sample_weight=w)
    coef, icpt = _as_decision(W, b)
    assert_allclose(coef, ref.coef_[0], atol=2e-4)
    assert_allclose(icpt, ref.intercept_[0], atol=2e-4)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_logistic_matches_sklearn_lbfgs(C):
    Z, t, w = _node(seed=2)
    W, b = LogisticRegression(C=C).fit_hyperplanes(Z, t, w)
    ref = SkLogistic(C=C, tol=1e-12, max_iter=10000).fit(Z, t, sample_weight=w)
    coef, icpt = _as_decision(W, b)
    assert_allclose(coef, ref.coef_[0], atol=1e-5)
    assert_allclose(icpt, ref.intercept_[0], atol=1e-5)


def test_lssvm_solves_suykens_dual_system():
    Z, t, _ = _node(n=60, seed=3)
    gamma = 2.0
    W, b = LSSVM(C=gamma).fit_hyperplanes(Z, t, np.ones(60))
    # KKT system of Suykens & Vandewalle 1999: [0 y'; y Omega + I/gamma] [b; a] = [0; 1]
    y = np.where(t, 1.0, -1.0)
    omega = np.outer(y, y) * (Z @ Z.T)
    A = np.zeros((61, 61))
    A[0, 1:], A[1:, 0] = y, y
    A[1:, 1:] = omega + np.eye(60) / gamma
    sol = np.linalg.solve(A, np.concatenate([[0.0], np.ones(60)]))
    bias, alpha = sol[0], sol[1:]
    coef, icpt = _as_decision(W, b)
    assert_allclose(coef, (alpha * y) @ Z, rtol=1e-8)
    assert_allclose(icpt, bias, rtol=1e-8)


def test_ridge_picks_the_gcv_minimiser():
    Z, t, w = _node(n=50, q=6, seed=4, noise=3.0)
    W, b = RidgeRegression().fit_hyperplanes(Z, t, w)
    y = np.where(t, 1.0, -1.0)
    N = w.sum()
    A = np.hstack([Z, np.ones((50, 1))])
    best = (np.inf, None)
    for lam in RR_GRID * N:  # naive: explicit hat matrix, intercept unpenalised
        P = np.diag(np.r_[np.full(6, lam), 0.0])
        M = A.T @ (A * w[:, None]) + P
        H = A @ np.linalg.solve(M, A.T * w)
        beta = np.linalg.solve(M, A.T @ (w * y))
        rss = np.sum(w * (y - A @ beta) ** 2)
        gcv = rss / (N * (1 - np.trace(H) / N) ** 2)
        if gcv < best[0]:
            best = (gcv, beta)
    coef, icpt = _as_decision(W, b)
    assert_allclose(coef, best[1][:6], rtol=1e-7, atol=1e-10)
    assert_allclose(icpt, best[1][6], rtol=1e-7, atol=1e-10)


def test_mpsvm_model_is_the_tikhonov_mpsvm():
    Z, t, w = _node(seed=5)
    W, b = MPSVMModel(delta=0.02).fit_hyperplanes(Z, t, w)
    W2, b2 = MPSVM("tikhonov", 0.02).fit_hyperplanes(Z, t, w)
    assert_allclose(W, W2)
    assert_allclose(b, b2)


@pytest.mark.parametrize("name", [m for m in MODEL_NAMES if m != "mpsvm"])
def test_models_separate_a_separable_node(name):
    # (MPSVM's bisectors are proximal, not discriminative: tests/test_mpsvm.py covers them)
    Z, t, w = _node(n=200, seed=6, noise=0.0)
    W, b = make_model(name).fit_hyperplanes(Z, t, w)
    assert W.shape[1] == Z.shape[1] and W.shape[0] == b.shape[0] >= 1
    acc = max(np.mean((Z @ W[j] > b[j]) == t) for j in range(b.shape[0]))
    assert acc > 0.9  # positives on the right of the hyperplane


def _bad_nodes():
    rng = np.random.RandomState(7)
    Z = rng.normal(size=(6, 5))
    yield "tiny", Z[:2], np.array([True, False]), np.ones(2)
    yield "fewer rows than features", Z, np.array([1, 0, 1, 0, 0, 1], bool), np.ones(6)
    dup = np.hstack([Z, Z[:, :1]])
    yield "duplicated column", dup, np.array([1, 0, 1, 0, 0, 1], bool), np.ones(6)
    const = Z.copy()
    const[:, 2] = 0.0
    yield "zero column", const, np.array([1, 0, 1, 0, 0, 1], bool), np.ones(6)
    yield "one positive row", Z, np.array([1, 0, 0, 0, 0, 0], bool), np.array([3.0, 1, 1, 1, 1, 1])
    same = np.repeat(Z[:1], 6, axis=0)
    yield "identical rows", same, np.array([1, 0, 1, 0, 0, 1], bool), np.ones(6)
    yield "separable, huge weights", Z, Z[:, 0] > 0, np.full(6, 1e6)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_models_survive_singular_and_tiny_nodes(name):
    model = make_model(name)
    for case, Z, t, w in _bad_nodes():
        W, b = model.fit_hyperplanes(Z, t, w)
        assert W.shape[0] == b.shape[0], case
        assert np.all(np.isfinite(W)) and np.all(np.isfinite(b)), case


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_single_class_node_gives_no_hyperplane(name):
    Z, _, w = _node()
    for t in (np.ones(len(w), bool), np.zeros(len(w), bool)):
        W, b = make_model(name).fit_hyperplanes(Z, t, w)
        assert W.shape == (0, Z.shape[1]) and b.shape == (0,)


def test_bad_model_parameters_are_rejected():
    with pytest.raises(ValueError, match="Unknown node model 'foo'"):
        make_model("foo")
    with pytest.raises(ValueError, match="C and delta must be positive"):
        LDA(C=0.0)
