"""Weighted impurity of a node's sufficient statistics.

A node (or one side of a candidate split) is summarised by a statistics
vector ``s`` of length ``n_stats``:

* ``s[0]`` the number of distinct training rows, ``s[1]`` the sum of weights;
* classification: ``s[2 + k]`` the weight of class ``k`` (``n_stats = 2 + K``);
* regression: ``s[2] = sum w*y`` and ``s[3] = sum w*y**2`` (``n_stats = 4``).

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

CRITERIA = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY, "squared_error": SQUARED_ERROR}

_LOG2 = np.log(2.0)


@njit(inline="always")
def weighted_impurity(a, b, sign, criterion):
    """``W * impurity`` of the statistics ``a + sign * b``."""
    w = a[1] + sign * b[1]
    if w <= 0.0:
        return 0.0
    if criterion == SQUARED_ERROR:
        sy = a[2] + sign * b[2]
        sy2 = a[3] + sign * b[3]
        v = sy2 - sy * sy / w
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
def children_cost(left, total, criterion):
    """``W_l * imp_l + W_r * imp_r`` of the split that puts ``left`` on the left.

    The right child is ``total - left``.  This is the hot function of every
    split search, hence one specialised loop per criterion and no clamping
    (only comparisons are made with it).
    """
    wl = left[1]
    wr = total[1] - wl
    if criterion == GINI:
        sl = 0.0
        sr = 0.0
        for k in range(2, left.shape[0]):
            c = left[k]
            d = total[k] - c
            sl += c * c
            sr += d * d
        return (wl - sl / wl) + (wr - sr / wr)
    if criterion == SQUARED_ERROR:
        sl = left[2]
        sr = total[2] - sl
        return (left[3] - sl * sl / wl) + ((total[3] - left[3]) - sr * sr / wr)
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
def node_value(s, criterion, out):
    """Leaf value: class proportions, or the weighted mean for regression."""
    w = s[1]
    if criterion == SQUARED_ERROR:
        out[0] = s[2] / w if w > 0.0 else 0.0
    else:
        for k in range(out.shape[0]):
            out[k] = s[2 + k] / w if w > 0.0 else 0.0
