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
the same bits under every BLAS kernel and every Numba CPU target.  At these
sizes they are also faster than a LAPACK call, whose fixed cost (argument
checks, copies, workspace) exceeds the ``q^3 / 3`` flops of the
factorisation.

:func:`spd_solve` factorises ``A = R'R`` (Cholesky, ``R`` upper triangular,
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

__all__ = ["dot", "spd_solve", "cholesky_upper", "PIVOT_RTOL", "RIDGES"]

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


@njit
def cholesky_upper(A, shift, R):
    """Factor ``A + shift * I = R'R`` into the upper triangle of ``R``; returns whether it succeeded.

    Only the upper triangle of ``A`` is read and only the upper triangle of
    ``R`` is written.  Row ``k`` of ``R`` is
    ``R[k, j] = (A[k, j] - sum_{i<k} R[i, k] R[i, j]) / R[k, k]``, each sum
    taken over ``i = 0, 1, ..., k - 1`` in that order.  Fails (returns
    False, ``R`` partly written) at the first pivot ``R[k, k]^2`` that is not
    larger than :data:`PIVOT_RTOL` times ``A[k, k] + shift``, or not finite.
    """
    n = A.shape[0]
    for k in range(n):
        akk = A[k, k] + shift
        d = akk
        for i in range(k):
            d -= R[i, k] * R[i, k]
        if not (d > PIVOT_RTOL * akk and d < np.inf):
            return False
        rkk = np.sqrt(d)
        R[k, k] = rkk
        for j in range(k + 1, n):
            s = A[k, j]
            for i in range(k):
                s -= R[i, k] * R[i, j]
            R[k, j] = s / rkk
    return True


@njit
def _cholesky_solve(R, b, x):
    """``x = (R'R)^-1 b`` by forward (``R'y = b``) and back (``Rx = y``) substitution, in place in ``x``."""
    n = R.shape[0]
    for k in range(n):
        s = b[k]
        for i in range(k):
            s -= R[i, k] * x[i]
        x[k] = s / R[k, k]
    for k in range(n - 1, -1, -1):
        s = x[k]
        for j in range(k + 1, n):
            s -= R[k, j] * x[j]
        x[k] = s / R[k, k]


@njit
def spd_solve(A, b):
    """Solve ``A x = b`` for a symmetric positive definite ``A`` (its upper triangle), in a fixed order.

    Cholesky factorisation (:func:`cholesky_upper`) and two triangular
    solves.  When ``A`` is not numerically positive definite the
    factorisation is retried on ``A + r I`` for ``r`` = each of
    :data:`RIDGES` times the largest diagonal entry of ``A`` (the first that
    succeeds is used); when none does, or ``A`` or ``b`` hold a non-finite
    value, every entry of ``x`` is NaN.  ``A`` and ``b`` are not modified.
    """
    n = A.shape[0]
    R = np.empty((n, n))
    x = np.empty(n)
    if not cholesky_upper(A, 0.0, R):
        top = 0.0
        for k in range(n):
            top = max(top, abs(A[k, k]))
        ok = False
        if top > 0.0 and top < np.inf:
            for r in RIDGES:
                if cholesky_upper(A, r * top, R):
                    ok = True
                    break
        if not ok:
            x[:] = np.nan
            return x
    _cholesky_solve(R, b, x)
    return x
