"""Linear node models of the one-vs-all and heterogeneous oblique forests (Katuwal, Suganthan & Zhang).

Every model fits one binary problem at a node -- the rows of ``Z`` (the
node's standardised candidate features), the positive hyperclass ``t`` and
the rows' weights ``w`` -- and returns candidate hyperplanes ``W[j] . z =
b[j]`` (a row goes left when ``W[j] . z <= b[j]``), the linear-node-model
interface of :mod:`forestzoo.oblique`.  The lecture's six classifiers
(Suganthan's lecture, "Heterogeneous Oblique Random Forest"):

=========  ======================================================================
code       model
=========  ======================================================================
``lda``    Fisher's linear discriminant with Gaussian priors; the pooled
           within-class covariance gets ``delta * I`` (Tikhonov), so a node
           with fewer rows than features still has a unique direction.
``mpsvm``  the MPSVM angle bisectors of :mod:`._mpsvm` (Tikhonov ``delta``).
``lssvm``  linear least-squares SVM (Suykens & Vandewalle 1999) in the primal:
           ``min 1/2 |w|^2 + C/2 sum_i w_i e_i^2`` with ``e_i = y_i - w.z_i - b``,
           ``y = +-1``, bias not penalised: a ``(q + 1)`` linear system,
           ``O(n q^2)``.
``lr``     L2 logistic regression ``min 1/2 |w|^2 + C sum_i w_i log(1 + exp(-y_i
           f_i))``, bias not penalised, by damped Newton steps (IRLS).
``svm``    L2-loss linear SVM ``min 1/2 (|w|^2 + b^2) + C sum_i w_i max(0, 1 - y_i
           f_i)^2`` (liblinear's loss and penalised bias) by primal Newton
           steps on the generalised Hessian (Keerthi & DeCoste 2005).
``rr``     ridge regression on ``y = +-1`` whose penalty is chosen by
           generalised cross-validation over a log grid (the oblique forests of
           Menze et al. 2011), through one eigendecomposition of ``Z'WZ``.
=========  ======================================================================

All solvers are Numba kernels (one call per node for every model and
partition, see :func:`fit_model`), so a node pays no Python per fit.
Their linear algebra -- the Cholesky solves of LDA, LS-SVM and the Newton
steps, the dot products, ridge-GCV's eigendecomposition up to order
:data:`._small_linalg.EIGH_LOOP_MAX` -- is :mod:`._small_linalg`'s, loops
in a fixed order of operations, so a fit gives the same bits whatever BLAS
kernel OpenBLAS picks for the CPU; ridge-GCV above that order and MPSVM
above it (:mod:`._mpsvm`) call LAPACK.
Every model survives a tiny or singular node: each problem is regularised
(``delta``, ``C`` or the GCV penalty is positive), and a node where one
side of ``t`` has no weight gives no hyperplane (``k = 0``).
"""

import numpy as np

from .._jit import njit
from ._mpsvm import mpsvm_bisectors
from ._small_linalg import dot, spd_solve, sym_eigh

__all__ = [
    "MODEL_CODES", "MODEL_NAMES", "LDA", "RidgeRegression", "LinearSVM", "LSSVM", "LogisticRegression",
    "MPSVMModel", "fit_model", "make_model",
]

#: Node models by code, in the lecture's order of the heterogeneous forest (LDA, MPSVM,
#: LSSVM, LR, SVM, RR: "ordered based on their performance").
MODEL_NAMES = ("lda", "mpsvm", "lssvm", "lr", "svm", "rr")
MODEL_CODES = {name: code for code, name in enumerate(MODEL_NAMES)}
_LDA, _MPSVM, _LSSVM, _LR, _SVM, _RR = range(6)

#: Ridge penalties (per unit of node weight) searched by generalised cross-validation.
RR_GRID = 10.0 ** np.arange(-4.0, 3.5, 0.5)


@njit
def _class_weights(t, w):
    wp = 0.0
    wn = 0.0
    for i in range(t.shape[0]):
        if t[i]:
            wp += w[i]
        else:
            wn += w[i]
    return wp, wn


@njit
def _none(q):
    return np.zeros((0, q)), np.zeros(0)


@njit
def _one(wvec, b):
    """One hyperplane, or none when ``w`` is (numerically) zero."""
    q = wvec.shape[0]
    if not np.all(np.isfinite(wvec)) or not np.isfinite(b) or np.sqrt(np.sum(wvec * wvec)) <= 1e-12:
        return _none(q)
    W = np.empty((1, q))
    W[0] = wvec
    out = np.empty(1)
    out[0] = b
    return W, out


@njit
def _augmented_gram(Z, w, yvec):
    """``A'WA`` and ``A'Wy`` for ``A = [Z 1]``."""
    n, q = Z.shape
    G = np.zeros((q + 1, q + 1))
    r = np.zeros(q + 1)
    x = np.empty(q + 1)
    x[q] = 1.0
    for i in range(n):
        for a in range(q):
            x[a] = Z[i, a]
        wi = w[i]
        for a in range(q + 1):
            xa = wi * x[a]
            r[a] += xa * yvec[i]
            for c in range(a, q + 1):
                G[a, c] += xa * x[c]
    for a in range(q + 1):
        for c in range(a):
            G[a, c] = G[c, a]
    return G, r


@njit
def _signs(t):
    y = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        y[i] = 1.0 if t[i] else -1.0
    return y


# -- LDA ---------------------------------------------------------------------------------
@njit
def fit_lda(Z, t, w, delta):
    """Fisher's discriminant ``S_w^-1 (mu_+ - mu_-)`` with Gaussian priors.

    Positive side: ``w.z - w.(mu_+ + mu_-)/2 + ln(W_+/W_-) > 0`` (the Bayes
    rule for two Gaussians with a shared covariance); ``S_w`` is the pooled
    weighted within-class covariance plus ``delta * I``.
    """
    n, q = Z.shape
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    mp = np.zeros(q)
    mn = np.zeros(q)
    for i in range(n):
        m = mp if t[i] else mn
        for a in range(q):
            m[a] += w[i] * Z[i, a]
    mp /= wp
    mn /= wn
    S = np.zeros((q, q))
    d = np.empty(q)
    for i in range(n):
        m = mp if t[i] else mn
        for a in range(q):
            d[a] = Z[i, a] - m[a]
        for a in range(q):
            da = w[i] * d[a]
            for c in range(a, q):
                S[a, c] += da * d[c]
    for a in range(q):
        for c in range(a, q):
            S[a, c] /= wp + wn
            S[c, a] = S[a, c]
        S[a, a] += delta
    wv = spd_solve(S, mp - mn)
    # left (<= b) is the negative side
    return _one(wv, 0.5 * dot(wv, mp + mn) - np.log(wp / wn))


# -- ridge-type least squares --------------------------------------------------------------
@njit
def fit_lssvm(Z, t, w, C):
    """Primal linear LS-SVM: ``(A'WA + I'/C) [w; b] = A'Wy`` with ``I'`` = identity without the bias."""
    q = Z.shape[1]
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    G, r = _augmented_gram(Z, w, _signs(t))
    for a in range(q):
        G[a, a] += 1.0 / C
    G[q, q] += 1e-12 * (wp + wn)  # the bias column is never singular (Z has rows), guard rounding
    sol = spd_solve(G, r)
    return _one(sol[:q].copy(), -sol[q])


@njit
def fit_ridge_gcv(Z, t, w, grid):
    """Ridge regression on ``+-1`` targets, penalty ``lambda * sum(w)`` chosen by GCV over ``grid``.

    With the weighted-centred design ``A = W^1/2 (Z - mean)`` and
    ``A'A = V diag(s) V'``, ``g = V'A'u``:
    ``RSS(l) = |u|^2 - sum_j g_j^2 (2/(s_j+l) - s_j/(s_j+l)^2)``, the fit's
    degrees of freedom ``df(l) = 1 + sum_j s_j/(s_j+l)`` (intercept included)
    and ``GCV(l) = RSS(l) / (N (1 - df(l)/N)^2)`` with ``N = sum(w)``
    (Golub, Heath & Wahba 1979).
    """
    n, q = Z.shape
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    y = _signs(t)
    N = wp + wn
    ym = (wp - wn) / N
    zm = np.zeros(q)
    for i in range(n):
        for a in range(q):
            zm[a] += w[i] * Z[i, a]
    zm /= N
    M = np.zeros((q, q))
    r = np.zeros(q)
    uu = 0.0
    d = np.empty(q)
    for i in range(n):
        for a in range(q):
            d[a] = Z[i, a] - zm[a]
        u = y[i] - ym
        uu += w[i] * u * u
        for a in range(q):
            da = w[i] * d[a]
            r[a] += da * u
            for c in range(a, q):
                M[a, c] += da * d[c]
    for a in range(q):
        for c in range(a):
            M[a, c] = M[c, a]
    s, V = sym_eigh(M)
    s = np.maximum(s, 0.0)
    g = np.zeros(q)  # V' r, summed over the features in order
    for a in range(q):
        ra = r[a]
        for j in range(q):
            g[j] += V[a, j] * ra
    best = np.inf
    lam_best = grid[0] * N
    for k in range(grid.shape[0]):
        lam = grid[k] * N
        rss = uu
        df = 1.0
        for j in range(q):
            den = s[j] + lam
            rss -= g[j] * g[j] * (2.0 / den - s[j] / (den * den))
            df += s[j] / den
        dof = 1.0 - df / N
        if dof <= 1e-12:
            continue
        score = max(rss, 0.0) / (N * dof * dof)
        if score < best:
            best = score
            lam_best = lam
    h = np.empty(q)
    for j in range(q):
        h[j] = g[j] / (s[j] + lam_best)
    coef = np.zeros(q)  # V h, summed over the eigenvectors in order
    for j in range(q):
        hj = h[j]
        for a in range(q):
            coef[a] += V[a, j] * hj
    # fitted y = ym + coef.(z - zm) > 0 is the positive side
    return _one(coef, dot(coef, zm) - ym)


# -- logistic regression ---------------------------------------------------------------------
@njit
def _logistic_objective(Z, y, w, beta, C):
    q = Z.shape[1]
    obj = 0.5 * dot(beta[:q], beta[:q])
    for i in range(Z.shape[0]):
        m = y[i] * _decision(Z, i, beta)
        obj += C * w[i] * (np.log1p(np.exp(-m)) if m > 0 else -m + np.log1p(np.exp(m)))
    return obj


@njit
def fit_logistic(Z, t, w, C, max_iter=20, tol=1e-10):
    """L2 logistic regression by Newton steps with backtracking (IRLS); bias not penalised."""
    n, q = Z.shape
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    y = _signs(t)
    beta = np.zeros(q + 1)
    beta[q] = np.log(wp / wn)
    obj = _logistic_objective(Z, y, w, beta, C)
    x = np.empty(q + 1)
    x[q] = 1.0
    for _ in range(max_iter):
        H = np.zeros((q + 1, q + 1))
        grad = np.zeros(q + 1)
        grad[:q] = beta[:q]
        for a in range(q):
            H[a, a] = 1.0
        H[q, q] = 1e-10 * C * (wp + wn)
        for i in range(n):
            p = 1.0 / (1.0 + np.exp(-y[i] * _decision(Z, i, beta)))  # P(correct side)
            gi = -C * w[i] * y[i] * (1.0 - p)
            hi = C * w[i] * p * (1.0 - p)
            for a in range(q):
                x[a] = Z[i, a]
            for a in range(q + 1):
                grad[a] += gi * x[a]
                ha = hi * x[a]
                for c in range(a, q + 1):
                    H[a, c] += ha * x[c]
        step, dec = _newton_direction(H, grad)
        if not dec > tol * (1.0 + abs(obj)):
            break  # converged, or no finite step (a NaN decrement)
        beta, obj, accepted = _backtrack(_OBJ_LOGISTIC, Z, y, w, beta, obj, step, dec, C)
        if not accepted:
            break
    return _one(beta[:q].copy(), -beta[q])


# -- linear SVM ------------------------------------------------------------------------------
@njit
def _svm_objective(Z, y, w, beta, C):
    obj = 0.5 * dot(beta, beta)
    for i in range(Z.shape[0]):
        m = 1.0 - y[i] * _decision(Z, i, beta)
        if m > 0.0:
            obj += C * w[i] * m * m
    return obj


@njit
def fit_svm(Z, t, w, C, max_iter=30, tol=1e-4):
    """L2-loss (squared hinge) linear SVM in the primal by Newton steps (Keerthi & DeCoste 2005).

    ``min 1/2 (|w|^2 + b^2) + C sum_i w_i max(0, 1 - y_i f_i)^2`` with
    ``f = w.z + b`` (scikit-learn's ``LinearSVC`` default loss; the bias is
    penalised, as liblinear does).  The objective is convex and piecewise
    quadratic: each step solves with the generalised Hessian ``I + 2C
    X_A' W X_A`` over the rows ``A`` with positive loss, then backtracks;
    it stops when the gradient norm falls below ``tol`` times its initial
    value.  ``O(n q^2)`` per step, a handful of steps.
    """
    n, q = Z.shape
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    y = _signs(t)
    beta = np.zeros(q + 1)
    obj = _svm_objective(Z, y, w, beta, C)
    x = np.empty(q + 1)
    x[q] = 1.0
    g0 = -1.0
    for _ in range(max_iter):
        H = np.eye(q + 1)
        grad = beta.copy()
        for i in range(n):
            m = 1.0 - y[i] * _decision(Z, i, beta)
            if m <= 0.0:
                continue
            for a in range(q):
                x[a] = Z[i, a]
            c = 2.0 * C * w[i]
            for a in range(q + 1):
                grad[a] -= c * m * y[i] * x[a]
                ca = c * x[a]
                for b in range(a, q + 1):
                    H[a, b] += ca * x[b]
        gnorm = np.sqrt(dot(grad, grad))
        if g0 < 0.0:
            g0 = gnorm
        if gnorm <= tol * g0 or gnorm == 0.0:
            break
        step, dec = _newton_direction(H, grad)
        if not dec > 0.0:
            break  # no finite descent step (a NaN decrement)
        beta, obj, accepted = _backtrack(_OBJ_SVM, Z, y, w, beta, obj, step, dec, C)
        if not accepted:
            break
    return _one(beta[:q].copy(), -beta[q])


# -- Newton solvers' shared steps ------------------------------------------------------------
_OBJ_LOGISTIC, _OBJ_SVM = 0, 1  # which objective _backtrack evaluates


@njit(inline="always")
def _decision(Z, i, beta):
    """``f_i = beta[:q] . z_i + beta[q]``, the sum taken over the features in order, the bias added last."""
    q = Z.shape[1]
    f = 0.0
    for a in range(q):
        f += Z[i, a] * beta[a]
    return f + beta[q]


@njit
def _newton_direction(H, grad):
    """Newton step ``H^-1 grad`` from the upper triangle of ``H`` and its decrement ``step . grad``.

    ``H`` is positive definite (an identity or ridge plus a Gram matrix);
    the step is NaN when it is not numerically so (:func:`._small_linalg.spd_solve`).
    """
    step = spd_solve(H, grad)
    return step, dot(step, grad)


@njit
def _backtrack(kind, Z, y, w, beta, obj, step, dec, C):
    """Armijo backtracking along ``-step`` (sufficient decrease 1e-4, halving down to 1e-4).

    Returns ``(beta, objective, accepted)``; ``beta`` is unchanged when no
    step length was accepted.
    """
    s = 1.0
    while s > 1e-4:
        cand = beta - s * step
        new = _logistic_objective(Z, y, w, cand, C) if kind == _OBJ_LOGISTIC else _svm_objective(Z, y, w, cand, C)
        if new <= obj - 1e-4 * s * dec:
            return cand, new, True
        s *= 0.5
    return beta, obj, False


# -- MPSVM -----------------------------------------------------------------------------------
@njit
def fit_mpsvm(Z, t, w, delta):
    """The two MPSVM angle bisectors, Tikhonov-regularised (:func:`._mpsvm.mpsvm_bisectors`)."""
    q = Z.shape[1]
    wp, wn = _class_weights(t, w)
    if wp <= 0.0 or wn <= 0.0:
        return _none(q)
    W, b, ok = mpsvm_bisectors(Z, t, w, np.int64(0), delta, 1e-10)  # 0: Tikhonov (an int64, not a literal: one compile)
    if not ok:
        return _none(q)
    return W, b


@njit
def fit_model(code, Z, t, w, C, delta, grid):
    """Dispatch on a :data:`MODEL_CODES` code; returns ``(W (k, q), b (k,))``."""
    if code == _LDA:
        return fit_lda(Z, t, w, delta)
    if code == _MPSVM:
        return fit_mpsvm(Z, t, w, delta)
    if code == _LSSVM:
        return fit_lssvm(Z, t, w, C)
    if code == _LR:
        return fit_logistic(Z, t, w, C)
    if code == _SVM:
        return fit_svm(Z, t, w, C)
    return fit_ridge_gcv(Z, t, w, grid)


# -- the Python interface (``fit_hyperplanes``) ------------------------------------------------
class _LinearModel:
    """A node model of the lecture; ``fit_hyperplanes(Z, t, sample_weight) -> (W, b)``."""

    code = -1

    def __init__(self, C=1.0, delta=0.01):
        if not C > 0 or not delta > 0:
            raise ValueError(f"C and delta must be positive; got C={C!r}, delta={delta!r}.")
        self.C = float(C)
        self.delta = float(delta)

    def fit_hyperplanes(self, Z, t, sample_weight):
        """Hyperplanes ``W[j] . z = b[j]`` separating ``Z[t]`` (right) from ``Z[~t]`` (left)."""
        return fit_model(self.code, np.ascontiguousarray(Z, dtype=np.float64), np.asarray(t, np.bool_),
                         np.ascontiguousarray(sample_weight, dtype=np.float64), self.C, self.delta, RR_GRID)

    def __repr__(self):
        return f"{type(self).__name__}(C={self.C}, delta={self.delta})"


class LDA(_LinearModel):
    """Fisher's linear discriminant, within-class covariance + ``delta * I``."""

    code = _LDA


class MPSVMModel(_LinearModel):
    """MPSVM angle bisectors with Tikhonov ``delta`` (obRaF(M), and the heterogeneous forest)."""

    code = _MPSVM


class LSSVM(_LinearModel):
    """Linear least-squares SVM in the primal (``C`` = Suykens' ``gamma``)."""

    code = _LSSVM


class LogisticRegression(_LinearModel):
    """L2 logistic regression (Newton / IRLS), inverse penalty ``C``."""

    code = _LR


class LinearSVM(_LinearModel):
    """L2-loss linear SVM (primal Newton), penalty ``C``."""

    code = _SVM


class RidgeRegression(_LinearModel):
    """Ridge regression on ``+-1`` targets, penalty by generalised cross-validation."""

    code = _RR


_CLASSES = {"lda": LDA, "mpsvm": MPSVMModel, "lssvm": LSSVM, "lr": LogisticRegression, "svm": LinearSVM,
            "rr": RidgeRegression}


def make_model(name, C=1.0, delta=0.01):
    """The node model called ``name`` (one of :data:`MODEL_NAMES`)."""
    if name not in _CLASSES:
        raise ValueError(f"Unknown node model {name!r}; expected one of {MODEL_NAMES}.")
    return _CLASSES[name](C, delta)
