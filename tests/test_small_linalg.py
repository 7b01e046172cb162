"""The fixed-order solver and dot product of the oblique node models (forestzoo.oblique._small_linalg)."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import forestzoo
from forestzoo.oblique._linear_models import MODEL_CODES, RR_GRID, fit_model
from forestzoo.oblique._partition import bhattacharyya_distances
from forestzoo.oblique._small_linalg import (
    EIGH_LOOP_MAX, PIVOT_RTOL, cholesky_lower, congruence, dot, jacobi_eigh, matvec, norm, spd_solve, sym_eigh,
)


def _spd(n, seed, ridge=1e-2, rows=None):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(rows or n + 3, n)) * rng.uniform(0.1, 10.0, n)  # unequal scales
    return B.T @ B + ridge * np.eye(n), rng.normal(size=n)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 21, 40])
def test_spd_solve_matches_lapack_on_random_spd_systems(n):
    for seed in range(5):
        A, b = _spd(n, seed)
        x = spd_solve(A, b)
        ref = np.linalg.solve(A, b)
        # backward stable: the error is bounded by the condition number times the rounding unit
        tol = 50 * n * np.finfo(float).eps * np.linalg.cond(A)
        assert np.max(np.abs(x - ref)) <= tol * np.max(np.abs(ref))
        assert_allclose(A @ x, b, atol=1e-9 * np.abs(A).max() * np.abs(x).max())


def test_spd_solve_reads_the_upper_triangle_and_leaves_its_inputs_alone():
    A, b = _spd(6, 0)
    ref = spd_solve(A, b)
    B = np.triu(A) + np.tril(np.full((6, 6), 1e30), -1)  # garbage below the diagonal
    A0, B0, b0 = A.copy(), B.copy(), b.copy()
    assert_array_equal(spd_solve(B, b), ref)
    assert_array_equal(A, A0)
    assert_array_equal(B, B0)
    assert_array_equal(b, b0)


def _dot4(x, y, n):
    s = [0.0, 0.0, 0.0, 0.0]
    m = n - n % 4
    for i in range(m):
        s[i % 4] += x[i] * y[i]
    for i in range(m, n):
        s[0] += x[i] * y[i]
    return (s[0] + s[1]) + (s[2] + s[3])


def _reference_cholesky(A):
    """The factorisation of cholesky_lower in plain Python floats, the same operations in the same order."""
    n = len(A)
    L = [[0.0] * n for _ in range(n)]
    for k in range(n):
        L[k][k] = float(np.sqrt(float(A[k][k]) - _dot4(L[k], L[k], k)))
        for j in range(k + 1, n):
            L[j][k] = (float(A[k][j]) - _dot4(L[j], L[k], k)) / L[k][k]
    return np.array(L)


def test_the_compiled_loops_keep_the_source_order_of_operations():
    # Python floats are IEEE doubles without fused multiply-adds or reassociation: any reordering
    # of the compiled loops (fastmath, FMA contraction, vectorised sums) would change some bits
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=37) * 1e3, rng.normal(size=37)
    s = 0.0
    for u, v in zip(a.tolist(), b.tolist()):
        s += u * v
    assert dot(a, b) == s
    A, _ = _spd(23, 4)
    L = np.zeros((23, 23))
    assert cholesky_lower(A, 0.0, L)
    assert_array_equal(np.tril(L), _reference_cholesky(A))


def test_a_singular_system_gets_the_smallest_ridge_that_factorises():
    # rank 1: the plain factorisation meets a zero pivot; b lies in the range of A
    A = np.ones((3, 3))
    b = np.array([3.0, 3.0, 3.0])
    L = np.zeros((3, 3))
    assert not cholesky_lower(A, 0.0, L)
    x = spd_solve(A, b)
    assert np.all(np.isfinite(x))
    assert_allclose(x, [1.0, 1.0, 1.0], rtol=1e-9)  # the ridge solution tends to the minimum-norm one
    assert_allclose(A @ x, b, rtol=1e-9)
    # a rank-deficient Gram matrix: fewer rows than unknowns, the singular case of a tiny node
    B = np.random.default_rng(0).normal(size=(2, 5))
    G = B.T @ B
    x = spd_solve(G, G @ np.arange(5.0))
    assert np.all(np.isfinite(x))
    assert_allclose(G @ x, G @ np.arange(5.0), rtol=1e-6, atol=1e-6)


def test_a_pivot_at_rounding_level_counts_as_singular():
    # exactly singular in exact arithmetic; rounding leaves a pivot of a few ulps, not a direction
    v = np.array([1.0, 1.0 / 3.0, 1.0 / 7.0])
    A = np.outer(v, v)
    L = np.zeros((3, 3))
    assert not cholesky_lower(A, 0.0, L)
    assert cholesky_lower(A, 1e6 * PIVOT_RTOL, L)


@pytest.mark.parametrize("A", [
    -np.eye(3),
    np.zeros((3, 3)),
    np.array([[1.0, 2.0], [2.0, 1.0]]),  # indefinite
    np.array([[1.0, np.nan], [np.nan, 1.0]]),
    np.array([[np.inf, 0.0], [0.0, 1.0]]),
])
def test_no_positive_definite_matrix_nearby_gives_nan(A):
    x = spd_solve(A, np.ones(A.shape[0]))
    assert x.shape == (A.shape[0],) and np.all(np.isnan(x))


def test_a_nan_right_hand_side_gives_nan():
    A, b = _spd(4, 1)
    b[2] = np.nan
    assert np.all(np.isnan(spd_solve(A, b)))


def test_extreme_penalties_still_give_finite_hyperplanes_or_none():
    # C = 1e300 leaves LS-SVM's Gram matrix singular on a node with fewer rows than features
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(4, 7))
    t = np.array([True, False, True, False])
    w = np.ones(4)
    for name in ("lda", "lssvm", "lr", "svm"):
        for C, delta in ((1e300, 1e-300), (1e-300, 1e300)):
            W, b = fit_model(MODEL_CODES[name], Z, t, w, C, delta, RR_GRID)
            assert W.shape == (b.shape[0], 7) and b.shape[0] <= 1, name
            assert np.all(np.isfinite(W)) and np.all(np.isfinite(b)), name


# -- the symmetric eigendecomposition ------------------------------------------------------------
def _check_eigh(S, w, V, tol=1e-13):
    n = S.shape[0]
    scale = max(1.0, np.abs(S).max())
    assert np.all(np.diff(w) >= 0)  # ascending, as LAPACK
    assert_allclose(w, np.linalg.eigvalsh(S), atol=tol * n * scale)
    assert_allclose(V.T @ V, np.eye(n), atol=tol * n)
    assert_allclose(V @ np.diag(w) @ V.T, S, atol=tol * n * scale)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 12, 20])
def test_jacobi_eigh_matches_lapack(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        B = rng.normal(size=(n, n)) * rng.uniform(0.01, 100.0, n)
        S = B + B.T  # indefinite, unequal scales
        w, V = jacobi_eigh(S)
        _check_eigh(S, w, V)
        assert V.flags.f_contiguous  # the layout np.linalg.eigh returns
        G = B.T @ B / n  # positive semidefinite, small eigenvalues
        _check_eigh(G, *jacobi_eigh(G))


def test_jacobi_eigh_on_repeated_zero_and_diagonal_spectra():
    w, V = jacobi_eigh(np.eye(4) * 2.0)
    assert_array_equal(w, [2.0] * 4)
    assert_array_equal(V, np.eye(4))
    w, V = jacobi_eigh(np.diag([3.0, -1.0, 2.0]))
    assert_array_equal(w, [-1.0, 2.0, 3.0])
    assert_array_equal(np.abs(V), np.eye(3)[:, [1, 2, 0]])
    w, V = jacobi_eigh(np.zeros((3, 3)))
    assert_array_equal(w, np.zeros(3))
    # a rank-one matrix: one eigenvalue, the others zero to rounding, eigenvectors still orthonormal
    v = np.array([1.0, 2.0, -1.0, 0.5, 3.0])
    S = np.outer(v, v)
    w, V = jacobi_eigh(S)
    _check_eigh(S, w, V)
    assert_allclose(abs(V[:, -1] @ v) / np.linalg.norm(v), 1.0, rtol=1e-14)
    # two equal eigenvalues in a rotated basis
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 6)))
    S = Q @ np.diag([1.0, 1.0, 2.0, 5.0, 5.0, 5.0]) @ Q.T
    _check_eigh(S, *jacobi_eigh(S))


def test_sym_eigh_switches_to_lapack_above_the_loop_size():
    rng = np.random.default_rng(5)
    for n in (EIGH_LOOP_MAX, EIGH_LOOP_MAX + 1):
        B = rng.normal(size=(n, n))
        S = B + B.T
        w, V = sym_eigh(S)
        _check_eigh(S, w, V)
        if n <= EIGH_LOOP_MAX:
            w2, V2 = jacobi_eigh(S)
            assert_array_equal(w, w2)
            assert_array_equal(V, V2)


def test_congruence_matvec_and_norm():
    rng = np.random.default_rng(6)
    for n, m in ((5, 3), (EIGH_LOOP_MAX, EIGH_LOOP_MAX), (12, 11)):
        Q = rng.normal(size=(n, n))
        Q = Q + Q.T
        S = rng.normal(size=(n, m))
        M = congruence(S, Q)
        assert_allclose(M, S.T @ Q @ S, rtol=1e-12, atol=1e-12 * np.abs(M).max())
        if m <= EIGH_LOOP_MAX:
            assert_array_equal(M, M.T)  # the loops mirror one triangle
        y = rng.normal(size=m)
        assert_allclose(matvec(S, y), S @ y, rtol=1e-13, atol=1e-13)
        assert_allclose(norm(y), np.linalg.norm(y), rtol=1e-15)


def test_bhattacharyya_distances_by_cholesky_match_the_determinant_formula():
    rng = np.random.default_rng(7)
    c, q = 4, 6
    means = rng.normal(size=(c, q))
    covs = np.empty((c, q, q))
    for g in range(c):
        B = rng.normal(size=(q + 2, q))
        covs[g] = B.T @ B / (q + 2) + 1e-3 * np.eye(q)
    D = bhattacharyya_distances(means, covs)
    for i in range(c):
        for j in range(c):
            S = (covs[i] + covs[j]) / 2
            d = means[j] - means[i]
            ref = d @ np.linalg.solve(S, d) / 8 + 0.5 * (np.linalg.slogdet(S)[1] - 0.5 * (
                np.linalg.slogdet(covs[i])[1] + np.linalg.slogdet(covs[j])[1]))
            assert_allclose(D[i, j], 0.0 if i == j else ref, rtol=1e-10, atol=1e-12)
    covs[2, 0, 0] = np.nan
    D = bhattacharyya_distances(means, covs)
    assert np.isnan(D[2, 0]) and np.isnan(D[1, 2]) and np.isfinite(D[0, 1])


# -- identical bits under two OpenBLAS kernels --------------------------------------------------
_PROBE = r"""
import hashlib, json
import numpy as np
import threadpoolctl
from sklearn.datasets import make_classification
from forestzoo import HeterogeneousObliqueForestClassifier, MPSVMForestClassifier, OneVsAllObliqueForestClassifier
from forestzoo.oblique._linear_models import MODEL_CODES, RR_GRID, fit_model
from forestzoo.oblique._ranking import class_distances

def digest(*arrays):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()

rng = np.random.default_rng(0)
out = {}
for q in (4, 12, 40):
    Z = rng.normal(size=(300, q))
    t = Z @ rng.normal(size=q) + rng.normal(size=300) > 0
    w = rng.uniform(0.5, 2.0, 300)
    for name in ("lda", "lssvm", "lr", "svm", "rr", "mpsvm"):
        if q <= 7 or name not in ("rr", "mpsvm"):  # their eigendecompositions are loops up to order 8
            out[f"{name}, q={q}"] = digest(*fit_model(MODEL_CODES[name], Z, t, w, 1.0, 0.01, RR_GRID))
    codes = np.minimum((np.abs(Z[:, 0]) * 3).astype(np.int64), 5)
    out[f"class distances, q={q}"] = digest(class_distances(Z, codes, w, 6))
X, y = make_classification(300, 16, n_informative=10, n_classes=6, n_clusters_per_class=1, random_state=0)
for name in ("lda", "lr"):
    forest = OneVsAllObliqueForestClassifier(n_estimators=3, node_model=name, random_state=0).fit(X, y)
    out[f"forest {name}"] = digest(forest.predict_proba(X))
for forest in (HeterogeneousObliqueForestClassifier(n_estimators=3, random_state=0),
               MPSVMForestClassifier(n_estimators=3, random_state=0)):
    out[type(forest).__name__] = digest(forest.fit(X, y).predict_proba(X))
out["kernel"] = sorted({i.get("architecture") for i in threadpoolctl.threadpool_info()
                        if i.get("internal_api") == "openblas"})
print(json.dumps(out))
"""


def _probe(coretype):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NUMBA_CPU_NAME")}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    root = str(Path(forestzoo.__file__).resolve().parent.parent)  # the checkout under test
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86-64 OpenBLAS kernels")
def test_oblique_node_models_are_identical_under_another_blas_kernel():
    # Prescott (OpenBLAS's SSE3 kernels, "Katmai") runs on every x86-64 CPU; the CPU's own kernel is
    # Haswell, SkylakeX, Zen, ...  np.linalg.solve / eigh / slogdet and np.dot gave other bits here
    # under the two for most of these fits
    default, prescott = _probe(None), _probe("Prescott")
    if not default["kernel"] or default["kernel"] == prescott["kernel"]:
        pytest.skip(f"OpenBLAS ran the same kernel both times ({default['kernel']})")
    default.pop("kernel"), prescott.pop("kernel")
    assert default == prescott
