"""The permutation distribution of Friedman's statistic.

Under the null hypothesis of Friedman's test every method is as good as every
other on each dataset, so each row of ranks is equally likely to be any
rearrangement of itself, independently of the other rows. The p-value of the
observed table is the probability, under that distribution, of a statistic at
least as large. This needs no large-sample approximation, which is why it
decides when N or k is too small for the chi-square and F approximations.

The statistic is sum_j S_j^2 with S_j the rank sum of method j; Friedman's
chi2_F, with or without the tie correction, is an increasing function of it
once the tie pattern of each row is fixed (a rearrangement keeps it), so the
p-values are those of chi2_F.
"""

from itertools import permutations
from typing import NamedTuple

import numpy as np

__all__ = ["PermutationPValue", "friedman_permutation_pvalue"]

#: Largest number of (state, rearrangement) pairs the exact computation
#: visits per dataset before it gives way to Monte Carlo sampling.
_MAX_WORK = 4_000_000
#: Most rearrangements of one row the exact computation enumerates (8!).
_MAX_ARRANGEMENTS = 40_320


class PermutationPValue(NamedTuple):
    """A permutation p-value, exact or estimated from random rearrangements.

    Parameters
    ----------
    pvalue : float
        The p-value.
    exact : bool
        True when every rearrangement was counted.
    n_resamples : int
        The random rearrangements it was estimated from (0 when exact).

    Examples
    --------
    >>> from forestzoo.stats import friedman_permutation_pvalue
    >>> res = friedman_permutation_pvalue([[1, 2], [1, 2]])
    >>> res.pvalue, res.exact, res.describe()
    (0.5, True, 'exact permutation test')
    """

    pvalue: float
    exact: bool
    n_resamples: int

    def describe(self):
        """Name the test that gave the p-value.

        Returns
        -------
        str
            "exact permutation test" or "Monte Carlo permutation test (B resamples)".
        """
        return ("exact permutation test" if self.exact else
                f"Monte Carlo permutation test ({self.n_resamples} resamples)")


def _doubled_ranks(ranks):
    """Ranks times two as integers (tied ranks are multiples of 1/2)."""
    doubled = np.rint(2.0 * np.asarray(ranks, dtype=float))
    if not np.allclose(doubled, 2.0 * np.asarray(ranks, dtype=float)):
        raise ValueError("ranks must be multiples of 1/2 (ranks with ties shared as means).")
    return doubled.astype(np.int64)


def _exact(doubled):
    """Exact p-value by convolving the rows' rank-sum distributions, or None
    when that would cost more than the limits above."""
    N, k = doubled.shape
    base = int(2 * N * k + 1)
    if k * np.log(base) >= 43.0:  # the encoded sums must fit in an int64
        return None
    weights = base ** np.arange(k, dtype=np.int64)
    t_obs = int(np.sum(doubled.sum(axis=0) ** 2))
    # The statistic is symmetric in the methods, so the first row may be held fixed.
    keys = np.array([int(doubled[0] @ weights)], dtype=np.int64)
    probs = np.ones(1)
    for row in doubled[1:]:
        if len(np.unique(row)) == 1:  # a fully tied row has one arrangement
            keys = keys + int(row @ weights)
            continue
        n_perm = 1
        for size in range(2, k + 1):
            n_perm *= size
        if n_perm > _MAX_ARRANGEMENTS:
            return None
        arrangements = np.array(sorted(set(permutations(row.tolist()))), dtype=np.int64)
        if keys.size * len(arrangements) > _MAX_WORK:
            return None
        new = (keys[:, None] + (arrangements @ weights)[None, :]).ravel()
        keys, inverse = np.unique(new, return_inverse=True)
        probs = np.bincount(inverse.ravel(), weights=np.repeat(probs / len(arrangements),
                                                                 len(arrangements)))
    sums = np.empty((keys.size, k), dtype=np.int64)
    rest = keys.copy()
    for j in range(k):
        sums[:, j], rest = rest % base, rest // base
    t = np.sum(sums ** 2, axis=1)
    return float(min(1.0, probs[t >= t_obs].sum()))


def _monte_carlo(doubled, n_resamples, random_state):
    rng = np.random.default_rng(random_state)
    N, k = doubled.shape
    t_obs = int(np.sum(doubled.sum(axis=0) ** 2))
    hits, done = 0, 0
    chunk = max(1, min(n_resamples, 2_000_000 // max(k, 1)))
    while done < n_resamples:
        c = min(chunk, n_resamples - done)
        sums = np.zeros((c, k), dtype=np.int64)
        for row in doubled:
            sums += rng.permuted(np.broadcast_to(row, (c, k)), axis=1)
        hits += int(np.sum(np.sum(sums ** 2, axis=1) >= t_obs))
        done += c
    # the observed table is one of the rearrangements: (1 + hits) / (1 + B)
    # never reports p = 0 (Phipson & Smyth, "Permutation p-values should never
    # be zero", 2010)
    return (1.0 + hits) / (1.0 + n_resamples)


def friedman_permutation_pvalue(ranks, n_resamples=100_000, random_state=0):
    """Compute the p-value of Friedman's test from the permutation distribution of the ranks.

    Exact (every rearrangement of every row weighed) when the number of
    distinct rank-sum vectors stays small, as for k <= 4 methods on a few
    dozen datasets; otherwise estimated from ``n_resamples`` random
    rearrangements drawn with ``random_state`` (so the same table gives the
    same p-value).

    Parameters
    ----------
    ranks : array-like of shape (n_datasets, n_methods)
        Ranks per dataset, ties sharing their mean rank (:func:`rank_scores`).
    n_resamples : int, default=100_000
        Random rearrangements drawn when the exact computation is too costly.
    random_state : int, default=0
        Seed of those rearrangements.

    Returns
    -------
    PermutationPValue
        The p-value and how it was computed.

    Examples
    --------
    Two datasets that rank two methods alike: the chance of that under the null
    hypothesis is 1/2.

    >>> from forestzoo.stats import friedman_permutation_pvalue
    >>> friedman_permutation_pvalue([[1, 2], [1, 2]])
    PermutationPValue(pvalue=0.5, exact=True, n_resamples=0)
    """
    doubled = _doubled_ranks(np.array(ranks, dtype=float, ndmin=2))
    if doubled.shape[0] < 1 or doubled.shape[1] < 2:
        raise ValueError(f"ranks needs at least one dataset and 2 methods, got shape "
                         f"{doubled.shape}.")
    n_resamples = int(n_resamples)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}.")
    p = _exact(doubled)
    if p is not None:
        return PermutationPValue(p, True, 0)
    return PermutationPValue(_monte_carlo(doubled, n_resamples, random_state), False,
                             n_resamples)
