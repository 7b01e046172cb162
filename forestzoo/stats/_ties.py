"""Which scores count as equal.

A score averaged over folds is a rational number (a mean of fold accuracies
c_f / n_f), but the float that holds it depends on the order of the
operations: 192/210 reached as a mean of three fold accuracies in percent may
come out as 91.42857142857144 one way and 91.42857142857143 another. Ranks,
win / tie / loss counts and the signed-rank test compare scores, so such noise
would break real ties (and which way depends on the scale, percent or
fraction).

Two scores on one dataset tie here when they differ by at most ``rtol`` times
the largest magnitude on that dataset. The default, 1e-10, sits far above the
rounding noise of a mean of floats (a few 1e-16 per operation, relative to the
operands) and far below the resolution of a mean of fold accuracies: two
different means over F folds of n test rows differ by at least 1 / (F n), or
1 / (F n (n + 1)) when the folds differ in size by one row, which is above
1e-10 up to F = 30 folds of 18,000 rows. The rule depends only on ratios, so
scores in percent and in fractions give the same ties.
"""

import numpy as np

__all__ = ["RTOL", "snap_ties", "tie_differences"]

#: Default relative tolerance under which two scores on one dataset tie.
RTOL = 1e-10


def check_rtol(rtol):
    rtol = float(rtol)
    if not (np.isfinite(rtol) and 0 <= rtol < 1e-3):
        raise ValueError(f"rtol must be a number in [0, 1e-3), got {rtol!r}.")
    return rtol


def _group_sorted(values, tol):
    """Group labels for sorted ``values``: a gap of at most ``tol`` (per element,
    the larger of the two neighbours' tolerances) keeps a run in one group."""
    gaps = np.diff(values)
    joined = gaps <= np.maximum(tol[1:], tol[:-1])
    return np.concatenate([[0], np.cumsum(~joined)])


def _snap_1d(values, tol):
    """Give every run of values within ``tol`` of its neighbour the run's smallest value."""
    order = np.argsort(values, kind="stable")
    v = values[order]
    groups = _group_sorted(v, tol[order])
    first = np.concatenate([[0], np.flatnonzero(np.diff(groups)) + 1])
    out = np.empty_like(values)
    out[order] = v[first][groups]
    return out


def snap_ties(scores, rtol=RTOL):
    """Make the near-equal scores of each row exactly equal.

    Within a row (a dataset), values that differ from their sorted neighbour by
    at most ``rtol * max(|row|)`` form one group and all take the group's
    smallest value, so ranks computed from the result tie them.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One row per dataset, one column per method.
    rtol : float, default=1e-10
        Relative tolerance; 0 leaves the scores unchanged.

    Returns
    -------
    ndarray of shape (n_datasets, n_methods)
        The scores, each group of near-equal values set to its smallest value.

    Examples
    --------
    >>> from forestzoo.stats import snap_ties
    >>> snap_ties([[91.42857142857144, 91.42857142857143, 90.0]]).tolist()
    [[91.42857142857143, 91.42857142857143, 90.0]]
    """
    scores = np.array(scores, dtype=float, ndmin=2)
    rtol = check_rtol(rtol)
    if rtol == 0:
        return scores
    out = np.empty_like(scores)
    for i, row in enumerate(scores):
        tol = np.full(row.shape, rtol * np.max(np.abs(row), initial=0.0))
        out[i] = _snap_1d(row, tol)
    return out


def tie_differences(a, b, rtol=RTOL):
    """Paired differences ``a - b`` with float noise removed.

    A difference of at most ``rtol * max(|a_i|, |b_i|)`` becomes exactly 0 (a
    tie on that dataset), and differences whose magnitudes agree within the
    same tolerance get one magnitude (so the signed-rank test ranks them as
    tied). Signs are kept.

    Parameters
    ----------
    a : array-like of shape (n,)
        Scores of method a.
    b : array-like of shape (n,)
        Scores of method b, paired with ``a``.
    rtol : float, default=1e-10
        Relative tolerance; 0 keeps the plain differences.

    Returns
    -------
    ndarray of shape (n,)
        The differences ``a - b``.

    Examples
    --------
    >>> from forestzoo.stats import tie_differences
    >>> d = tie_differences([0.3, 0.7, 0.5], [0.1 + 0.2, 0.5, 0.3])
    >>> float(d[0]), bool(d[1] == d[2]), 0.7 - 0.5 == 0.5 - 0.3
    (0.0, True, False)
    """
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    rtol = check_rtol(rtol)
    d = a - b
    if rtol == 0 or d.size == 0:
        return d
    tol = rtol * np.maximum(np.abs(a), np.abs(b))
    d[np.abs(d) <= tol] = 0.0
    return np.sign(d) * _snap_1d(np.abs(d), tol)
