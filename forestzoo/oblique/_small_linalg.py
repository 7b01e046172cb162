"""Small dense linear algebra in a fixed order of operations, for the oblique node models.

The linear node models of :mod:`._linear_models` solve one small symmetric
positive definite system per fit -- ``(q + 1) x (q + 1)`` for ``q``
candidate features, a few to a few dozen -- and take dot products of
length ``q``; ridge GCV and the MPSVM planes (:mod:`._mpsvm`) need small
symmetric eigendecompositions, and the Bhattacharyya distances of the
class partitions (:mod:`._partition`) log-determinants and Mahalanobis
terms.  ``np.linalg`` and ``np.dot`` send these to LAPACK and BLAS, whose
kernels (chosen by OpenBLAS for the CPU, or by ``OPENBLAS_CORETYPE``) add
in different orders and may return different last bits; a tree thresholds
the results, so another kernel could grow another tree.  The loops here add
in the order the source gives, and Numba compiles them with
``fastmath=False`` (:mod:`forestzoo._jit`), so they give the same bits
under every BLAS kernel and every Numba CPU target.  Up to a few dozen
unknowns they are also faster than a LAPACK call, whose fixed cost
(argument checks, copies, workspace) exceeds the ``q^3 / 3`` flops of a
Cholesky factorisation; from about a hundred on LAPACK's blocked kernels
are faster, but a node's Gram matrix (``n q^2``) then costs more than its
solve.  The Jacobi eigendecomposition is faster than LAPACK's only up to
order :data:`EIGH_LOOP_MAX`, and :func:`sym_eigh` calls LAPACK above it.

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

__all__ = ["dot", "norm", "matvec", "congruence", "spd_solve", "spd_factor", "cholesky_lower", "cholesky_solve",
           "forward_solve", "logdet_factor", "jacobi_eigh", "sym_eigh", "PIVOT_RTOL", "RIDGES", "EIGH_LOOP_MAX"]

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
    about as fast as LAPACK's up to a hundred or so unknowns.
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
def forward_solve(L, b, y):
    """``y = L^-1 b`` for the factor of :func:`cholesky_lower`: ``y[k] = (b[k] - L[k, :k] . y[:k]) / L[k, k]``.

    The dot products are :func:`_dot4`'s; ``y`` may be ``b``.
    """
    for k in range(L.shape[0]):
        y[k] = (b[k] - _dot4(L[k], y, k)) / L[k, k]


@njit
def cholesky_solve(L, b, x):
    """``x = (L L')^-1 b`` from the factor of :func:`cholesky_lower`, by forward and back substitution.

    Forward: :func:`forward_solve`; back: ``x[k] = y[k] / L[k, k]``, then
    ``x[i] -= L[k, i] * x[k]`` for ``i < k``, for ``k`` from the last down.
    ``x`` may be ``b``.
    """
    n = L.shape[0]
    forward_solve(L, b, x)
    for k in range(n - 1, -1, -1):
        xk = x[k] / L[k, k]
        x[k] = xk
        Lk = L[k]
        for i in range(k):
            x[i] -= Lk[i] * xk


@njit
def spd_factor(A, L):
    """:func:`cholesky_lower` of ``A``, or of ``A`` plus the smallest ridge of :data:`RIDGES` that factorises.

    The ridges are relative to the largest diagonal entry of ``A``.  Returns
    False when no factorisation succeeded (``A`` not near a positive definite
    matrix, or not finite).
    """
    if cholesky_lower(A, 0.0, L):
        return True
    top = 0.0
    for k in range(A.shape[0]):
        top = max(top, abs(A[k, k]))
    if not (top > 0.0 and top < np.inf):
        return False
    for r in RIDGES:
        if cholesky_lower(A, r * top, L):
            return True
    return False


@njit
def spd_solve(A, b):
    """Solve ``A x = b`` for a symmetric positive definite ``A`` (its upper triangle), in a fixed order.

    Cholesky factorisation (:func:`spd_factor`: :func:`cholesky_lower`, with
    a ridge when ``A`` is not numerically positive definite) and two
    triangular solves.  When no ridge helps, or ``A`` or ``b`` hold a
    non-finite value, every entry of ``x`` is NaN.  ``A`` and ``b`` are not
    modified.
    """
    n = A.shape[0]
    L = np.empty((n, n))
    x = np.empty(n)
    if not spd_factor(A, L):
        x[:] = np.nan
        return x
    cholesky_solve(L, b, x)
    return x


@njit
def logdet_factor(L):
    """``log det(L L') = 2 sum_k log L[k, k]``, summed from ``k = 0`` up."""
    s = 0.0
    for k in range(L.shape[0]):
        s += np.log(L[k, k])
    return 2.0 * s


# -- symmetric eigendecomposition ------------------------------------------------------------

#: Largest order of a symmetric matrix that :func:`sym_eigh` decomposes with the Jacobi loop of
#: :func:`jacobi_eigh`; larger ones go to LAPACK (``np.linalg.eigh``), which is faster there
#: (measured here: the loop takes 0.4-1.1 times LAPACK's time up to order 8, 1.3-2 times at 10-16,
#: 2-3 times at 20-32).
EIGH_LOOP_MAX = 8

#: The Jacobi sweeps stop when the off-diagonal sum of squares is at most this fraction of the
#: diagonal's: ``(1e-18)^2``, far below the rounding of the diagonal entries.
_JACOBI_OFF_RTOL = 1e-36
_JACOBI_MAX_SWEEPS = 50


@njit
def jacobi_eigh(S):
    """Eigenvalues (ascending) and eigenvectors (columns) of the symmetric ``S``, by cyclic Jacobi rotations.

    Each sweep visits the pairs ``(p, q)``, ``p < q``, row by row and
    applies the rotation that zeroes ``A[p, q]`` (the smaller rotation
    angle, ``t = tan = sign(theta) / (|theta| + sqrt(1 + theta^2))`` with
    ``theta = (A[q, q] - A[p, p]) / (2 A[p, q])``) to rows and columns ``p``
    and ``q`` of ``A`` and to the accumulated eigenvectors.  Sweeps stop
    when the off-diagonal part is negligible next to the diagonal (Golub &
    Van Loan, "Matrix Computations", section 8.5); a zero diagonal, which a
    positive semidefinite matrix with nonzero rows never has, makes them run
    until the off-diagonal part vanishes.  Only the upper triangle
    of ``S`` is read.  Eigenvalues that are equal keep the order of their
    diagonal positions; an eigenvector's sign is whatever the rotations
    give (LAPACK's is arbitrary too).  Returns ``(w, V)`` like
    ``np.linalg.eigh``, ``V`` Fortran-ordered.
    """
    n = S.shape[0]
    A = np.empty((n, n))
    for p in range(n):
        for q in range(p, n):
            A[p, q] = S[p, q]
            A[q, p] = S[p, q]
    Vt = np.eye(n)  # row k: the k-th eigenvector
    diag2 = 0.0
    for k in range(n):
        diag2 += A[k, k] * A[k, k]
    for _ in range(_JACOBI_MAX_SWEEPS):
        off2 = 0.0
        for p in range(n - 1):
            for q in range(p + 1, n):
                off2 += A[p, q] * A[p, q]
        if not off2 > _JACOBI_OFF_RTOL * diag2:
            break
        for p in range(n - 1):
            Ap = A[p]
            Vp = Vt[p]
            for q in range(p + 1, n):
                apq = Ap[q]
                if apq == 0.0:
                    continue
                Aq = A[q]
                Vq = Vt[q]
                app = Ap[p]
                aqq = Aq[q]
                theta = 0.5 * (aqq - app) / apq
                t = 1.0 / (abs(theta) + np.sqrt(1.0 + theta * theta))
                if theta < 0.0:
                    t = -t
                c = 1.0 / np.sqrt(1.0 + t * t)
                s = t * c
                for k in range(n):  # rows p and q of J'A ...
                    apk = Ap[k]
                    aqk = Aq[k]
                    Ap[k] = c * apk - s * aqk
                    Aq[k] = s * apk + c * aqk
                Ap[p] = app - t * apq
                Aq[q] = aqq + t * apq
                Ap[q] = 0.0
                Aq[p] = 0.0
                for k in range(n):  # ... and, A being symmetric, columns p and q of J'AJ
                    A[k, p] = Ap[k]
                    A[k, q] = Aq[k]
                for k in range(n):
                    vp = Vp[k]
                    vq = Vq[k]
                    Vp[k] = c * vp - s * vq
                    Vq[k] = s * vp + c * vq
    w = np.empty(n)
    for k in range(n):
        w[k] = A[k, k]
    order = np.argsort(w, kind="mergesort")
    Vsorted = np.empty((n, n))
    for j in range(n):
        Vsorted[j] = Vt[order[j]]
    return w[order], Vsorted.T


@njit
def sym_eigh(S):
    """``np.linalg.eigh(S)``: :func:`jacobi_eigh` up to order :data:`EIGH_LOOP_MAX`, LAPACK above."""
    if S.shape[0] <= EIGH_LOOP_MAX:
        return jacobi_eigh(S)
    return np.linalg.eigh(S)


@njit
def congruence(S, Q):
    """``S' Q S`` for a symmetric ``Q``: loops (exactly symmetric) up to order :data:`EIGH_LOOP_MAX`, BLAS above.

    In the loops ``T = Q S`` and then ``M[i, j] = S[:, i] . T[:, j]`` for
    ``i <= j``, each sum over the rows in order; ``M[j, i] = M[i, j]``.
    """
    n, m = S.shape
    if m > EIGH_LOOP_MAX:
        return S.T @ Q @ S
    T = np.zeros((n, m))
    for a in range(n):
        for b in range(n):
            qab = Q[a, b]
            for j in range(m):
                T[a, j] += qab * S[b, j]
    M = np.empty((m, m))
    for i in range(m):
        for j in range(i, m):
            s = 0.0
            for a in range(n):
                s += S[a, i] * T[a, j]
            M[i, j] = s
            M[j, i] = s
    return M


@njit
def matvec(S, y):
    """``S @ y``: ``out[a] = sum_j S[a, j] y[j]``, summed over ``j`` in order (BLAS ``dgemv`` otherwise)."""
    n, m = S.shape
    out = np.empty(n)
    for a in range(n):
        s = 0.0
        for j in range(m):
            s += S[a, j] * y[j]
        out[a] = s
    return out


@njit
def norm(x):
    """``sqrt(x . x)`` with :func:`dot` (``np.linalg.norm`` calls BLAS ``dnrm2``)."""
    return np.sqrt(dot(x, x))
