"""Multisurface proximal SVM (Mangasarian & Wild 2006) as a linear node model.

For the two hyperclasses ``A`` (mask ``t``) and ``B`` of a node, with
``e`` a vector of ones (lecture, "MPSVM"):

* ``G = [A -e]' [A -e]`` and ``H = [B -e]' [B -e]`` (here weighted by the
  rows' weights and divided by the class weight, which leaves every ratio
  below unchanged and makes ``delta`` a fraction of a standardised
  variance);
* the first clustering plane ``z1 = [w1; b1]`` minimises ``z'Gz / z'Hz``
  (closest to ``A``, farthest from ``B``), the second ``z2`` minimises
  ``z'Hz / z'Gz``; they are the eigenvectors of ``G z = lambda H z`` with the
  smallest and largest eigenvalues;
* the split candidates are the two angle bisectors of the planes,
  ``z1 / |w1| + z2 / |w2|`` and ``z1 / |w1| - z2 / |w2|`` (Zhang & Suganthan
  2015): the test is ``w . x <= b``.

Each plane is computed as ``argmax z'Qz / z'Pz`` (``P`` = G for the first
plane, H for the second) through the eigendecomposition ``P = U L U'``:
``z = U L^{-1/2} y`` with ``y`` the top eigenvector of
``L^{-1/2} U' Q U L^{-1/2}``.  When ``P`` is singular -- a node with fewer
rows of one hyperclass than candidate features plus one, or with
duplicated columns -- the ratio is not bounded away from 0 by a unique
direction (the small-sample-size problem) and the regularisation decides:

* ``"tikhonov"`` (-T): ``P + delta I`` (lecture, "Methods to handle S3");
* ``"null_space"`` (-N): the plane lies in the null space of ``P``
  (``z'Pz = 0``, it passes through every row of that hyperclass) and,
  within it, maximises ``z'Qz / z'z`` (Jiang 2011, null-space method);
* ``"axis"`` (-P): :class:`SingularNodeError` is raised; the node model
  then grows the rest of the subtree with axis-parallel splits.

A node with ``m`` rows of positive weight and ``q >= REDUCE_MIN_FEATURES``
candidate features, ``m < q + 1`` (the 1,024-pixel faces under MPRoF), has G
and H of rank at most ``m``; both map the span of the augmented rows into
itself and vanish outside it, so every plane above lies in that span and is
found from m x m matrices (:func:`_row_space_moments`), the same planes at a
cost of ``O(m^2 q)`` instead of ``O(q^3)``.

The eigendecompositions, the products ``S'QS`` and the norms are those of
:mod:`._small_linalg`: loops in a fixed order of operations up to order
:data:`._small_linalg.EIGH_LOOP_MAX` (``q`` of 7 or fewer), so the planes
have the same bits whatever BLAS kernel OpenBLAS picks; larger problems, and
the QR factorisation of the row-space route, call LAPACK and BLAS.
"""

import numpy as np

from .._jit import njit
from ._small_linalg import congruence, matvec, norm, sym_eigh

__all__ = ["MPSVM", "SingularNodeError", "REGULARIZATIONS", "mpsvm_bisectors"]

REGULARIZATIONS = ("tikhonov", "axis", "null_space")
_TIKHONOV, _AXIS, _NULL_SPACE = 0, 1, 2


class SingularNodeError(ValueError):
    """A linear model met a singular problem it has no regularisation for."""


@njit
def _second_moment(Z, w, sel, positive):
    """``[A -e]' diag(w) [A -e] / sum(w)`` over the rows with ``sel == positive``."""
    q = Z.shape[1]
    M = np.zeros((q + 1, q + 1))
    x = np.empty(q + 1)
    x[q] = -1.0
    W = 0.0
    for i in range(Z.shape[0]):
        if sel[i] != positive:
            continue
        wi = w[i]
        W += wi
        for a in range(q):
            x[a] = Z[i, a]
        for a in range(q + 1):
            xa = wi * x[a]
            for b in range(a, q + 1):
                M[a, b] += xa * x[b]
    for a in range(q + 1):
        for b in range(a, q + 1):
            M[a, b] /= W
            M[b, a] = M[a, b]
    return M


@njit
def _clustering_plane(P, Q, regularization, delta, rcond, singular=False):
    """``argmin z'Pz / z'Qz`` (unit norm); ``ok`` is False for a singular ``P`` under "axis".

    ``singular=True`` treats ``P`` as singular whatever its spectrum: the
    reduced problems of :func:`_row_space_moments` stand for full-space
    matrices known to be singular.  Under "null_space" a nonsingular ``P``
    then has no null space to search and ``ok`` is False too.
    """
    lam, U = sym_eigh(P)
    top = max(lam[-1], 0.0)
    tol = rcond * top
    if singular or top <= 0.0 or lam[0] <= tol:
        if regularization == _AXIS:
            return np.zeros(P.shape[0]), False
        if regularization == _NULL_SPACE:
            k = 0
            for j in range(lam.shape[0]):
                if lam[j] <= tol:
                    k += 1
            if k == 0:
                return np.zeros(P.shape[0]), False
            N = np.ascontiguousarray(U[:, :k])
            _, V = sym_eigh(congruence(N, Q))
            z = matvec(N, V[:, -1])
            return z / norm(z), True
        lam = np.maximum(lam, 0.0) + delta  # Tikhonov: the eigenvalues of P + delta I
    S = np.ascontiguousarray(U / np.sqrt(lam))
    _, Y = sym_eigh(congruence(S, Q))
    z = matvec(S, Y[:, -1])
    return z / norm(z), True


@njit
def _positive_rows(w, t, positive):
    """Number of rows of positive weight with ``t == positive``."""
    k = 0
    for i in range(w.shape[0]):
        if w[i] > 0.0 and t[i] == positive:
            k += 1
    return k


@njit
def _row_space_moments(Z, t, w):
    """``G`` and ``H`` in an orthonormal basis of the span of the augmented rows.

    With ``m`` rows of positive weight and ``m < q + 1``, every ``[z_i, -1]``
    lies in the span ``V`` of the columns of ``B`` ((q + 1) x m, orthonormal,
    from the QR factorisation ``[z_i, -1]' = B R``); ``G`` and ``H`` map ``V``
    into itself and vanish on its orthogonal complement.  The generalised
    eigenproblems of the planes therefore split into an m x m problem on
    ``V`` (the matrices ``B' G B``, ``B' H B`` returned here, built from the
    columns of ``R``, the rows' coordinates in ``V``) and a trivial one on
    the complement, where ``z'Gz = z'Hz = 0``.
    """
    q = Z.shape[1]
    m = 0
    for i in range(w.shape[0]):
        if w[i] > 0.0:
            m += 1
    A = np.empty((q + 1, m))
    wa = np.empty(m)
    ta = np.empty(m, np.bool_)
    k = 0
    for i in range(w.shape[0]):
        if w[i] > 0.0:
            for a in range(q):
                A[a, k] = Z[i, a]
            A[q, k] = -1.0
            wa[k] = w[i]
            ta[k] = t[i]
            k += 1
    B, R = np.linalg.qr(A)
    G = np.zeros((m, m))
    H = np.zeros((m, m))
    WG = 0.0
    WH = 0.0
    for k in range(m):
        if ta[k]:
            WG += wa[k]
        else:
            WH += wa[k]
    for k in range(m):
        M = G if ta[k] else H
        s = wa[k] / (WG if ta[k] else WH)
        for a in range(m):
            ra = s * R[a, k]
            for b in range(a, m):
                M[a, b] += ra * R[b, k]
    for a in range(m):
        for b in range(a + 1, m):
            G[b, a] = G[a, b]
            H[b, a] = H[a, b]
    return B, G, H


#: Number of candidate features from which a node with fewer rows of positive
#: weight than features plus one solves its eigenproblems in the span of its
#: rows (:func:`_row_space_moments`).  Below it the full problems are cheap
#: and are solved as they stand.
REDUCE_MIN_FEATURES = 128


@njit
def _planes(Z, t, w, regularization, delta, rcond):
    """The two clustering planes ``(z1, z2, ok)`` of the module docstring."""
    q = Z.shape[1]
    # the flags as np.bool_, not literals: Numba would compile each callee once per literal value
    n_a = _positive_rows(w, t, np.bool_(True))
    n_b = _positive_rows(w, t, np.bool_(False))
    if regularization == _AXIS and (n_a < q + 1 or n_b < q + 1):
        # rank G <= rows of A (and rank H <= rows of B): singular without an eigendecomposition
        return np.zeros(q + 1), np.zeros(q + 1), False
    if q >= REDUCE_MIN_FEATURES and n_a + n_b < q + 1:
        B, G, H = _row_space_moments(Z, t, w)
        B = np.ascontiguousarray(B)
        # G and H are singular in the full space (rank <= m < q + 1)
        y1, ok1 = _clustering_plane(G, H, regularization, delta, rcond, np.bool_(True))
        y2, ok2 = _clustering_plane(H, G, regularization, delta, rcond, np.bool_(True))
        if ok1 and ok2:
            return B @ y1, B @ y2, True
        # "null_space" only: one hyperclass's rows span the whole of V, so its
        # matrix is null only outside V, where the other vanishes too; that
        # degenerate case is left to the full problem below
    G = _second_moment(Z, w, t, np.bool_(True))
    H = _second_moment(Z, w, t, np.bool_(False))
    z1, ok1 = _clustering_plane(G, H, regularization, delta, rcond, np.bool_(False))
    z2, ok2 = _clustering_plane(H, G, regularization, delta, rcond, np.bool_(False))
    return z1, z2, ok1 and ok2


@njit
def mpsvm_bisectors(Z, t, w, regularization, delta, rcond):
    """The MPSVM planes' angle bisectors ``(W, b, ok)``; see the module docstring."""
    q = Z.shape[1]
    z1, z2, ok = _planes(Z, t, w, regularization, delta, rcond)
    if not ok:
        return np.zeros((0, q)), np.zeros(0), False
    n1 = norm(z1[:q])
    n2 = norm(z2[:q])
    cand = np.zeros((2, q + 1))
    k = 0
    if n1 > 1e-12 and n2 > 1e-12:
        # the two angle bisectors (Zhang & Suganthan 2015; lecture, "Obtain the optimal hyperplane")
        cand[0] = z1 / n1 + z2 / n2
        cand[1] = z1 / n1 - z2 / n2
        k = 2
    elif n1 > 1e-12:
        cand[0] = z1 / n1
        k = 1
    elif n2 > 1e-12:
        cand[0] = z2 / n2
        k = 1
    keep = np.zeros(k, np.bool_)
    for j in range(k):
        keep[j] = norm(cand[j, :q]) > 1e-9
    cand = cand[:k][keep]
    return np.ascontiguousarray(cand[:, :q]), cand[:, q].copy(), True


class MPSVM:
    """Linear node model: the two angle bisectors of the MPSVM clustering planes.

    Parameters
    ----------
    regularization : {"tikhonov", "axis", "null_space"}, default="tikhonov"
        What to do when ``G`` or ``H`` is singular (-T, -P, -N).
    delta : float, default=0.01
        Tikhonov term added to the diagonal of a singular ``G`` or ``H``
        (both are second-moment matrices of standardised features).
    rcond : float, default=1e-10
        ``G`` (or ``H``) is singular when its smallest eigenvalue is at most
        ``rcond`` times its largest.

    Notes
    -----
    ``fit_hyperplanes(X, t, sample_weight)`` is the linear-node-model
    interface of :mod:`forestzoo.oblique`.
    """

    def __init__(self, regularization="tikhonov", delta=0.01, rcond=1e-10):
        if regularization not in REGULARIZATIONS:
            raise ValueError(f"regularization={regularization!r} is not one of {REGULARIZATIONS}.")
        self.regularization = regularization
        self.delta = float(delta)
        self.rcond = float(rcond)
        self._code = REGULARIZATIONS.index(regularization)

    def fit_hyperplanes(self, X, t, sample_weight):
        """Candidate hyperplanes ``w . x = b`` separating ``X[t]`` from ``X[~t]``.

        Returns ``(W, b)``: ``W`` of shape (k, q) and ``b`` of shape (k,),
        ``k <= 2`` (a degenerate bisector, ``w = 0``, is left out).  Raises
        :class:`SingularNodeError` for a singular node under ``"axis"``.
        """
        W, b, ok = mpsvm_bisectors(np.ascontiguousarray(X, dtype=np.float64), np.asarray(t, np.bool_),
                                   np.ascontiguousarray(sample_weight, dtype=np.float64),
                                   self._code, self.delta, self.rcond)
        if not ok:
            raise SingularNodeError("G or H is singular at this node (MPSVM-P: axis-parallel subtree).")
        return W, b
