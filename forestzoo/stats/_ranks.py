"""Comparing k methods over N datasets by their ranks (Demsar 2006).

``scores`` is always an array of shape ``(n_datasets, n_methods)``: one row per
dataset, one column per method (accuracy, or an error with
``higher_is_better=False``).
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["rank_scores", "average_ranks", "friedman_statistic", "iman_davenport",
           "friedman_test", "FriedmanResult", "nemenyi_q", "nemenyi_cd",
           "bonferroni_dunn_cd", "nemenyi_significant_pairs"]


def _check_scores(scores, min_methods=2):
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D array (n_datasets, n_methods), got "
                         f"shape {scores.shape}.")
    if scores.shape[1] < min_methods or scores.shape[0] < 1:
        raise ValueError(f"scores needs at least one dataset and {min_methods} methods, "
                         f"got shape {scores.shape}.")
    if np.isnan(scores).any():
        rows = np.flatnonzero(np.isnan(scores).any(axis=1)).tolist()
        raise ValueError(f"scores has missing values (rows {rows}); drop those datasets "
                         f"first.")
    return scores


def _check_alpha(alpha):
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")


def rank_scores(scores, higher_is_better=True):
    """Rank the methods on each dataset: 1 is best, ties share their mean rank.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.

    Returns
    -------
    ranks : ndarray of shape (n_datasets, n_methods)

    Examples
    --------
    >>> from forestzoo.stats import rank_scores
    >>> rank_scores([[0.9, 0.8, 0.9]]).tolist()
    [[1.5, 3.0, 1.5]]
    """
    scores = _check_scores(scores, min_methods=1)
    signed = -scores if higher_is_better else scores
    return stats.rankdata(signed, axis=1)


def average_ranks(scores, higher_is_better=True):
    """Mean rank of each method over the datasets (Demsar 2006, Sec. 3.2.2)."""
    return rank_scores(scores, higher_is_better).mean(axis=0)


def friedman_statistic(avg_ranks, n_datasets):
    """Friedman's chi-square from the average ranks and its p-value.

    chi2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4]  (Demsar 2006, Eq. 1),
    chi-square distributed with k - 1 degrees of freedom under the null
    hypothesis that all methods are equivalent.

    Returns
    -------
    chi2 : float
    p_value : float
    """
    R = np.asarray(avg_ranks, dtype=float)
    k, N = len(R), int(n_datasets)
    if k < 2 or N < 1:
        raise ValueError(f"need at least 2 methods and 1 dataset, got k={k}, N={N}.")
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4.0)
    return float(chi2), float(stats.chi2.sf(chi2, k - 1))


def iman_davenport(chi2, n_datasets, n_methods):
    """Iman & Davenport's F_F, less conservative than chi2_F, and its p-value.

    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)  (Demsar 2006, Eq. 2), F
    distributed with k - 1 and (k - 1)(N - 1) degrees of freedom.

    Returns
    -------
    ff : float
        ``inf`` when the ranks are the same on every dataset (chi2_F reaches
        its maximum N (k - 1)).
    p_value : float
    """
    N, k = int(n_datasets), int(n_methods)
    denom = N * (k - 1) - chi2
    if N < 2:
        return float("nan"), float("nan")
    if denom <= 1e-12 * max(1.0, N * (k - 1)):
        return float("inf"), 0.0
    ff = (N - 1) * chi2 / denom
    return float(ff), float(stats.f.sf(ff, k - 1, (k - 1) * (N - 1)))


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman and Iman-Davenport tests over ``n_datasets`` x ``n_methods`` scores."""

    average_ranks: np.ndarray
    n_datasets: int
    n_methods: int
    chi2: float
    chi2_pvalue: float
    ff: float
    ff_pvalue: float

    def reject(self, alpha=0.05):
        """Whether Iman-Davenport's test rejects "all methods are equivalent" at ``alpha``."""
        return bool(self.ff_pvalue < alpha)


def friedman_test(scores, higher_is_better=True):
    """Friedman's chi2_F and Iman-Davenport's F_F on a score table.

    Both use Demsar's formulas on average ranks (ties get average ranks; no
    tie correction of the variance, as in the paper).

    Examples
    --------
    >>> from forestzoo.stats import friedman_test
    >>> scores = [[0.90, 0.85, 0.80], [0.70, 0.72, 0.60], [0.95, 0.90, 0.91],
    ...           [0.81, 0.80, 0.79]]
    >>> res = friedman_test(scores)
    >>> res.average_ranks.tolist(), round(res.chi2, 2)
    ([1.25, 2.0, 2.75], 4.5)
    """
    scores = _check_scores(scores)
    R = average_ranks(scores, higher_is_better)
    N, k = scores.shape
    chi2, p = friedman_statistic(R, N)
    ff, p_ff = iman_davenport(chi2, N, k)
    return FriedmanResult(R, N, k, chi2, p, ff, p_ff)


def nemenyi_q(n_methods, alpha=0.05):
    """Critical value q_alpha of the Nemenyi test for ``n_methods`` methods.

    The studentized range quantile with infinite degrees of freedom divided
    by sqrt(2) (Demsar 2006, Table 5a: 2.343 for k = 3 at alpha = 0.05).
    """
    _check_alpha(alpha)
    k = int(n_methods)
    if k < 2:
        raise ValueError(f"n_methods must be >= 2, got {n_methods!r}.")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi_cd(n_methods, n_datasets, alpha=0.05):
    """Nemenyi critical difference of average ranks.

    CD = q_alpha sqrt(k (k+1) / (6 N))  (Demsar 2006, Sec. 3.2.2): two methods
    whose average ranks differ by at least CD perform significantly
    differently.

    Examples
    --------
    >>> from forestzoo.stats import nemenyi_cd
    >>> round(nemenyi_cd(3, 44, alpha=0.05), 2)
    0.5
    """
    k, N = int(n_methods), int(n_datasets)
    if N < 1:
        raise ValueError(f"n_datasets must be >= 1, got {n_datasets!r}.")
    return float(nemenyi_q(k, alpha) * np.sqrt(k * (k + 1) / (6.0 * N)))


def bonferroni_dunn_cd(n_methods, n_datasets, alpha=0.05):
    """Critical difference for comparing k - 1 methods with one control.

    Same formula as :func:`nemenyi_cd` with q_alpha the two-sided normal
    quantile at alpha / (k - 1) (Demsar 2006, Table 5b).
    """
    _check_alpha(alpha)
    k, N = int(n_methods), int(n_datasets)
    if k < 2 or N < 1:
        raise ValueError(f"need n_methods >= 2 and n_datasets >= 1, got {k}, {N}.")
    q = stats.norm.isf(alpha / (2.0 * (k - 1)))
    return float(q * np.sqrt(k * (k + 1) / (6.0 * N)))


def nemenyi_significant_pairs(avg_ranks, n_datasets, alpha=0.05):
    """Boolean matrix: ``[i, j]`` is True when method i's average rank is better
    (lower) than j's by at least the Nemenyi CD."""
    R = np.asarray(avg_ranks, dtype=float)
    cd = nemenyi_cd(len(R), n_datasets, alpha)
    return (R[None, :] - R[:, None]) >= cd
