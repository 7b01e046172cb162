"""Weighted impurity of a node's sufficient statistics.

A node (or one side of a candidate split) is summarised by a statistics
vector ``s`` of length ``n_stats``:

* ``s[0]`` the number of distinct training rows, ``s[1]`` the sum of weights;
* classification: ``s[2 + k]`` the weight of class ``k`` (``n_stats = 2 + K``);
* regression: ``s[2] = sum w*y`` and ``s[3] = sum w*q(y)`` (``n_stats = 4``), with
  ``q(y) = y**2`` for squared error and ``q(y) = y log y`` (0 at 0) for Poisson.

Absolute error has no such vector (a median needs the rows): its nodes
carry the squared-error statistics and :mod:`.splitters.absolute` computes
their impurities, values and split costs from the rows.

Kernels work with ``W * impurity`` (the impurity times the node weight),
because a split's cost is the sum of that quantity over its two children
(Breiman et al. 1984, the weighted impurity decrease).  Each function takes
two vectors and a sign so that ``a + sign * b`` -- e.g. the right child as
``total - left`` -- never has to be materialised.
"""

import numpy as np

from .._jit import njit

GINI = 0
ENTROPY = 1
SQUARED_ERROR = 2
POISSON = 3
#: Absolute error (medians): searched by its own kernel (:mod:`.splitters.absolute`) in a grower of its
#: own; the statistics vectors of its nodes are the squared-error ones (rows and weights are what it reads).
ABSOLUTE_ERROR = 4

#: Codes of the criteria; the regression ones are those ``>= SQUARED_ERROR`` (:func:`is_regression`).
#: ``friedman_mse`` is squared error: Friedman's improvement (Friedman 2001, "Greedy function
#: approximation", eq. 35) ranks splits as the decrease of squared error does.
CRITERIA = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY, "squared_error": SQUARED_ERROR,
            "friedman_mse": SQUARED_ERROR, "poisson": POISSON, "absolute_error": ABSOLUTE_ERROR}

_LOG2 = np.log(2.0)

#: Poisson: a child whose sum of ``w*y`` is at most this cannot be split off (its mean, 0, has no log).
POISSON_EPS = 10.0 * np.finfo(np.float64).eps
_DBL_EPS = np.finfo(np.float64).eps


@njit(inline="always")
def poisson_zero_tol(n_rows, sum_wy):
    """Largest sum of ``w*y`` a Poisson child may show and still be empty of positive targets.

    A split's right child gets its sum as the node's minus the left child's
    running sum, which carries the rounding error of up to ``n_rows``
    additions (at most ``n_rows * eps * sum_wy`` for non-negative terms): a
    child whose targets are all 0 can then show a sum of a few ``1e-15`` times
    the node's, above :data:`POISSON_EPS`, and a leaf predicting 0 would be
    grown.  Targets are non-negative, so the tolerance only has to cover that
    error; a true child sum below it is below ``1e-9`` of the node's for any
    node under a million rows.
    """
    return POISSON_EPS + n_rows * _DBL_EPS * sum_wy


@njit(inline="always")
def is_regression(criterion):
    """Whether ``criterion`` is a regression criterion (statistics ``n, w, sum w*y, sum w*q(y)``)."""
    return criterion >= SQUARED_ERROR


@njit(inline="always")
def q_of(y, criterion):
    """The per-row term of the fourth regression statistic: ``y**2``, or ``y log y`` for Poisson."""
    if criterion == POISSON:
        return y * np.log(y) if y > 0.0 else 0.0
    return y * y


@njit(inline="always")
def weighted_impurity_for(a, b, sign, criterion, reg):
    """``W * impurity`` of the statistics ``a + sign * b``.

    ``reg`` is ``is_regression(criterion)``.  A caller that passes a
    compile-time constant (a literal, or a closure constant of a specialised
    kernel) lets Numba drop the other task's code before typing it: a
    classification kernel then compiles no regression statistics and the
    reverse.  The ``*_for`` helpers of the engine take ``reg`` for that reason.
    """
    w = a[1] + sign * b[1]
    if w <= 0.0:
        return 0.0
    if reg:
        if criterion == SQUARED_ERROR:
            sy = a[2] + sign * b[2]
            sy2 = a[3] + sign * b[3]
            v = sy2 - sy * sy / w
            return v if v > 0.0 else 0.0
        # Poisson, half deviance: sum w (y log(y / m) - y + m) = sum w y log y - S log m, m = S / W
        sy = a[2] + sign * b[2]
        if sy <= 0.0:
            return 0.0
        v = (a[3] + sign * b[3]) - sy * np.log(sy / w)
        return v if v > 0.0 else 0.0
    acc = 0.0
    if criterion == GINI:
        for k in range(2, a.shape[0]):
            c = a[k] + sign * b[k]
            acc += c * c
        v = w - acc / w
        return v if v > 0.0 else 0.0
    # entropy in bits: sum_k c_k * log2(W / c_k)
    for k in range(2, a.shape[0]):
        c = a[k] + sign * b[k]
        if c > 0.0:
            acc += c * np.log(w / c)
    return acc / _LOG2


@njit(inline="always")
def weighted_impurity(a, b, sign, criterion):
    """``W * impurity`` of the statistics ``a + sign * b`` (:func:`weighted_impurity_for`, task at run time)."""
    return weighted_impurity_for(a, b, sign, criterion, criterion >= SQUARED_ERROR)


@njit(inline="always")
def children_cost_for(left, total, criterion, reg):
    """``W_l * imp_l + W_r * imp_r`` of the split that puts ``left`` on the left.

    The right child is ``total - left``.  This is the hot function of every
    split search, hence one specialised loop per criterion and no clamping
    (only comparisons are made with it).  ``reg``: see
    :func:`weighted_impurity_for`.
    """
    wl = left[1]
    wr = total[1] - wl
    if reg:
        sl = left[2]
        sr = total[2] - sl
        if criterion == SQUARED_ERROR:
            return (left[3] - sl * sl / wl) + ((total[3] - left[3]) - sr * sr / wr)
        # Poisson: half deviances of the children; sum w y log y over both is the node's (total[3])
        tol = poisson_zero_tol(total[0], total[2])
        if sl <= tol or sr <= tol:
            return np.inf
        return total[3] - sl * np.log(sl / wl) - sr * np.log(sr / wr)
    if criterion == GINI:
        sl = 0.0
        sr = 0.0
        for k in range(2, left.shape[0]):
            c = left[k]
            d = total[k] - c
            sl += c * c
            sr += d * d
        return (wl - sl / wl) + (wr - sr / wr)
    acc = 0.0
    for k in range(2, left.shape[0]):
        c = left[k]
        d = total[k] - c
        if c > 0.0:
            acc += c * np.log(wl / c)
        if d > 0.0:
            acc += d * np.log(wr / d)
    return acc / _LOG2


@njit(inline="always")
def children_cost(left, total, criterion):
    """:func:`children_cost_for` with the task decided at run time."""
    return children_cost_for(left, total, criterion, criterion >= SQUARED_ERROR)


@njit(inline="always")
def node_value_for(s, reg, out):
    """Leaf value: class proportions, or the weighted mean for regression (squared error and Poisson).

    ``reg``: see :func:`weighted_impurity_for`.
    """
    w = s[1]
    if reg:
        out[0] = s[2] / w if w > 0.0 else 0.0
    else:
        for k in range(out.shape[0]):
            out[k] = s[2 + k] / w if w > 0.0 else 0.0


@njit(inline="always")
def node_value(s, criterion, out):
    """:func:`node_value_for` with the task decided at run time."""
    node_value_for(s, criterion >= SQUARED_ERROR, out)
