"""Small dense linear algebra in a fixed order of operations, for the oblique node models.

The linear node models of :mod:`._linear_models` solve one small symmetric
positive definite system per fit -- ``(q + 1) x (q + 1)`` for ``q``
candidate features, a few to a few dozen -- and take dot products of
length ``q``.  Through ``np.linalg.solve`` and ``np.dot`` those went to
LAPACK and BLAS, whose kernels (chosen by OpenBLAS for the CPU, or by
``OPENBLAS_CORETYPE``) add in different orders and may return different
last bits; a tree thresholds the results, so another kernel could grow
another tree.  The loops here add in the order the source gives, and Numba
compiles them with ``fastmath=False`` (:mod:`forestzoo._jit`), so they give
the same bits under every BLAS kernel and every Numba CPU target.  Up to a
few dozen unknowns they are also faster than a LAPACK call, whose fixed cost
(argument checks, copies, workspace) exceeds the ``q^3 / 3`` flops of the
factorisation; from about a hundred on LAPACK's blocked kernels are faster,
but a node's Gram matrix (``n q^2``) then costs more than its solve.

:func:`spd_solve` factorises ``A = L L'`` (Cholesky, ``L`` lower triangular,
the upper triangle of ``A`` read).  The systems it is given are positive
definite by construction -- a Tikhonov term, ``1/C`` or an identity is
added to a Gram matrix -- so a pivot that is not clearly positive means
that the matrix is singular to working precision (an extreme ``C`` or
``delta``, or non-finite input).  The factorisation is then retried with a
growing multiple of the identity (a ridge, from ``1e-12`` to ``1e-4`` of the
largest diagonal entry), and when even that fails the solution is NaN:
callers treat a non-finite solution as "no hyperplane" or "no Newton step".
"""

import numpy as np

from .._jit import njit

__all__ = ["dot", "spd_solve", "cholesky_lower", "cholesky_solve", "PIVOT_RTOL", "RIDGES"]

#: A Cholesky pivot must exceed this fraction of its diagonal entry.  Rounding alone leaves
#: pivots of about ``k * eps`` times the diagonal in a singular ``k x k`` matrix; a system
#: regularised as the node models regularise theirs has pivots many orders of magnitude larger.
PIVOT_RTOL = 1e-13

#: The ridges tried in turn, relative to the largest diagonal entry, when the plain factorisation fails.
RIDGES = (1e-12, 1e-10, 1e-8, 1e-6, 1e-4)


@njit
def dot(a, b):
    """``sum_i a[i] * b[i]``, added from ``i = 0`` up (``np.dot`` calls BLAS ``ddot``)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit(inline="always")
def _dot4(x, y, n):
    """``sum_{i<n} x[i] y[i]`` as four running sums over ``i mod 4``, added as ``(s0 + s1) + (s2 + s3)``.

    The order is fixed by the source, like :func:`dot`'s; four independent
    sums let the CPU overlap the additions, which keeps the factorisation
    as fast as LAPACK's up to a few hundred unknowns.
    """
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    m = n - n % 4
    for i in range(0, m, 4):
        s0 += x[i] * y[i]
        s1 += x[i + 1] * y[i + 1]
        s2 += x[i + 2] * y[i + 2]
        s3 += x[i + 3] * y[i + 3]
    for i in range(m, n):
        s0 += x[i] * y[i]
    return (s0 + s1) + (s2 + s3)


@njit
def cholesky_lower(A, shift, L):
    """Factor ``A + shift * I = L L'`` into the lower triangle of ``L``; returns whether it succeeded.

    Only the upper triangle of ``A`` is read (``A[k, j]``, ``j >= k``) and
    only the lower triangle of ``L`` is written, row by row:
    ``L[j, k] = (A[k, j] - L[j, :k] . L[k, :k]) / L[k, k]`` with the dot
    products of :func:`_dot4`.  Fails (returns False, ``L`` partly written)
    at the first pivot ``L[k, k]^2`` that is not larger than
    :data:`PIVOT_RTOL` times ``A[k, k] + shift``, or not finite.
    """
    n = A.shape[0]
    for k in range(n):
        Lk = L[k]
        akk = A[k, k] + shift
        d = akk - _dot4(Lk, Lk, k)
        if not (d > PIVOT_RTOL * akk and d < np.inf):
            return False
        lkk = np.sqrt(d)
        Lk[k] = lkk
        for j in range(k + 1, n):
            Lj = L[j]
            Lj[k] = (A[k, j] - _dot4(Lj, Lk, k)) / lkk
    return True


@njit
def cholesky_solve(L, b, x):
    """``x = (L L')^-1 b`` from the factor of :func:`cholesky_lower`, by forward and back substitution.

    Forward: ``y[k] = (b[k] - L[k, :k] . y[:k]) / L[k, k]`` (:func:`_dot4`);
    back: ``x[k] = y[k] / L[k, k]``, then ``x[i] -= L[k, i] * x[k]`` for
    ``i < k``, for ``k`` from the last down.  ``x`` may be ``b``.
    """
    n = L.shape[0]
    for k in range(n):
        x[k] = (b[k] - _dot4(L[k], x, k)) / L[k, k]
    for k in range(n - 1, -1, -1):
        xk = x[k] / L[k, k]
        x[k] = xk
        Lk = L[k]
        for i in range(k):
            x[i] -= Lk[i] * xk


@njit
def spd_solve(A, b):
    """Solve ``A x = b`` for a symmetric positive definite ``A`` (its upper triangle), in a fixed order.

    Cholesky factorisation (:func:`cholesky_lower`) and two triangular
    solves.  When ``A`` is not numerically positive definite the
    factorisation is retried on ``A + r I`` for ``r`` = each of
    :data:`RIDGES` times the largest diagonal entry of ``A`` (the first that
    succeeds is used); when none does, or ``A`` or ``b`` hold a non-finite
    value, every entry of ``x`` is NaN.  ``A`` and ``b`` are not modified.
    """
    n = A.shape[0]
    L = np.empty((n, n))
    x = np.empty(n)
    if not cholesky_lower(A, 0.0, L):
        top = 0.0
        for k in range(n):
            top = max(top, abs(A[k, k]))
        ok = False
        if top > 0.0 and top < np.inf:
            for r in RIDGES:
                if cholesky_lower(A, r * top, L):
                    ok = True
                    break
        if not ok:
            x[:] = np.nan
            return x
    cholesky_solve(L, b, x)
    return x
