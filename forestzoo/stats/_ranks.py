"""Comparing k methods over N datasets by their ranks (Demsar 2006).

``scores`` is always an array of shape ``(n_datasets, n_methods)``: one row per
dataset, one column per method (accuracy, or an error with
``higher_is_better=False``).

References
----------
J. Demsar, "Statistical comparisons of classifiers over multiple data sets",
JMLR 7, 2006.
R. L. Iman and J. M. Davenport, "Approximations of the critical region of the
Friedman statistic", Communications in Statistics A 9, 1980.
"""

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy import stats

from ._permutation import friedman_permutation_pvalue
from ._ties import RTOL, snap_ties

__all__ = ["rank_scores", "average_ranks", "friedman_statistic", "iman_davenport",
           "friedman_test", "FriedmanResult", "FriedmanDecision", "asymptotic_friedman_valid",
           "nemenyi_q", "nemenyi_cd", "bonferroni_dunn_cd", "nemenyi_significant_pairs"]


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


def rank_scores(scores, higher_is_better=True, rtol=RTOL):
    """Rank the methods on each dataset: 1 is best, ties share their mean rank.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One row per dataset, one column per method.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    rtol : float, default=1e-10
        Scores on one dataset within ``rtol`` times the dataset's largest
        magnitude tie (:func:`snap_ties`): float noise does not break a tie,
        and percent and fraction scales rank alike. 0 compares exactly.

    Returns
    -------
    ranks : ndarray of shape (n_datasets, n_methods)
        The rank of each method on each dataset.

    Examples
    --------
    >>> from forestzoo.stats import rank_scores
    >>> rank_scores([[0.9, 0.8, 0.9]]).tolist()
    [[1.5, 3.0, 1.5]]
    """
    scores = snap_ties(_check_scores(scores, min_methods=1), rtol)
    signed = -scores if higher_is_better else scores
    return stats.rankdata(signed, axis=1)


def average_ranks(scores, higher_is_better=True, rtol=RTOL):
    """Mean rank of each method over the datasets (Demsar 2006, Sec. 3.2.2).

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One row per dataset, one column per method.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    rtol : float, default=1e-10
        Relative tolerance of a tie on one dataset (see :func:`rank_scores`).

    Returns
    -------
    ndarray of shape (n_methods,)
        The average rank of each method (1 is best).

    Examples
    --------
    >>> from forestzoo.stats import average_ranks
    >>> average_ranks([[0.9, 0.8, 0.7], [0.7, 0.8, 0.6]]).tolist()
    [1.5, 1.5, 3.0]
    """
    return rank_scores(scores, higher_is_better, rtol).mean(axis=0)


def friedman_statistic(avg_ranks, n_datasets):
    """Compute Friedman's chi-square from the average ranks, and its p-value.

    chi2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4]  (Demsar 2006, Eq. 1),
    chi-square distributed with k - 1 degrees of freedom under the null
    hypothesis that all methods are equivalent.

    Parameters
    ----------
    avg_ranks : array-like of shape (n_methods,)
        Average rank of each method over the datasets.
    n_datasets : int
        The number of datasets ``N``.

    Returns
    -------
    chi2 : float
        Friedman's statistic chi2_F (without the correction for ties).
    p_value : float
        Its p-value under the chi-square approximation.

    Examples
    --------
    >>> from forestzoo.stats import friedman_statistic
    >>> chi2, p = friedman_statistic([1.25, 2.0, 2.75], n_datasets=4)
    >>> chi2, round(p, 3)
    (4.5, 0.105)
    """
    R = np.asarray(avg_ranks, dtype=float)
    k, N = len(R), int(n_datasets)
    if k < 2 or N < 1:
        raise ValueError(f"need at least 2 methods and 1 dataset, got k={k}, N={N}.")
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4.0)
    return float(chi2), float(stats.chi2.sf(chi2, k - 1))


def _at_limit(chi2, n_datasets, n_methods):
    # chi2_F (with or without the tie correction) never exceeds N (k - 1) and
    # reaches it only when every dataset ranks the methods alike
    return chi2 >= n_datasets * (n_methods - 1) * (1.0 - 1e-9)


def iman_davenport(chi2, n_datasets, n_methods):
    """Iman & Davenport's F_F, less conservative than chi2_F, and its p-value.

    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)  (Demsar 2006, Eq. 2), F
    distributed with k - 1 and (k - 1)(N - 1) degrees of freedom.

    Parameters
    ----------
    chi2 : float
        Friedman's chi2_F.
    n_datasets : int
        The number of datasets ``N``.
    n_methods : int
        The number of methods ``k``.

    Returns
    -------
    ff : float
        The statistic F_F.
    p_value : float
        Its p-value under the F approximation.  Both NaN where F_F is undefined: fewer than 2 datasets or methods, or
        chi2_F at its maximum N (k - 1), reached when every dataset ranks the
        methods in the same order. The denominator is 0 there and the F
        approximation says nothing (its limit, p = 0, is wrong: two datasets
        ranking two methods alike happen with probability 1/2 under the null
        hypothesis); :func:`friedman_test` decides such tables by the
        permutation distribution.

    Examples
    --------
    >>> from forestzoo.stats import iman_davenport
    >>> iman_davenport(2.0, n_datasets=2, n_methods=2)
    (nan, nan)
    """
    N, k = int(n_datasets), int(n_methods)
    if N < 2 or k < 2 or _at_limit(chi2, N, k):
        return float("nan"), float("nan")
    ff = (N - 1) * chi2 / (N * (k - 1) - chi2)
    return float(ff), float(stats.f.sf(ff, k - 1, (k - 1) * (N - 1)))


def asymptotic_friedman_valid(n_datasets, n_methods):
    """Whether chi2_F may be read against the chi-square distribution (and F_F against F).

    Demsar (2006, Sec. 3.2.2) gives the rule of thumb N > 10 datasets and
    k > 5 methods; below it exact critical values are needed, which
    :func:`friedman_test` takes from the permutation distribution of the ranks.

    Parameters
    ----------
    n_datasets : int
        The number of datasets ``N``.
    n_methods : int
        The number of methods ``k``.

    Returns
    -------
    bool
        True when N > 10 and k > 5.

    Examples
    --------
    >>> from forestzoo.stats import asymptotic_friedman_valid
    >>> asymptotic_friedman_valid(4, 3), asymptotic_friedman_valid(20, 6)
    (False, True)
    """
    return int(n_datasets) > 10 and int(n_methods) > 5


def _tie_corrected_chi2(ranks):
    """Friedman's chi2_F with the correction for ties within a dataset.

    chi2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4] / C with
    C = 1 - sum (t^3 - t) / (N k (k^2 - 1)) over the groups of t tied methods
    on each dataset (Conover, "Practical nonparametric statistics", 1999;
    ``scipy.stats.friedmanchisquare`` applies the same). Without ties C = 1
    and this is Demsar's Eq. 1. Every dataset tying all methods gives 0.
    """
    N, k = ranks.shape
    chi2, _ = friedman_statistic(ranks.mean(axis=0), N)
    ties = 0.0
    for row in ranks:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts ** 3 - counts))
    c = 1.0 - ties / (N * k * (k * k - 1))
    if c <= 1e-12:
        return 0.0
    return max(0.0, chi2 / c)


class FriedmanDecision(NamedTuple):
    """The verdict of Friedman's test at one alpha and the p-value behind it.

    Parameters
    ----------
    reject : bool
        Whether "all methods are equivalent" is rejected.
    pvalue : float
        The p-value that decided.
    method : str
        Which test gave that p-value.

    Examples
    --------
    >>> from forestzoo.stats import friedman_test
    >>> friedman_test([[0.9, 0.8, 0.7], [0.7, 0.8, 0.6]]).decision(0.05).reject
    False
    """

    reject: bool
    pvalue: float
    method: str


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman and Iman-Davenport tests over ``n_datasets`` x ``n_methods`` scores.

    ``chi2`` is corrected for ties (as ``scipy.stats.friedmanchisquare``);
    ``chi2_pvalue`` and ``ff_pvalue`` are the chi-square and F approximations,
    kept for reference also where they do not hold (``asymptotic_valid`` is
    False, see :func:`asymptotic_friedman_valid`); ``ff`` and ``ff_pvalue`` are
    NaN when ``at_limit`` (chi2_F = N (k - 1): every dataset ranks the methods
    alike). ``permutation_pvalue`` (NaN when not computed) is the p-value from
    the permutation distribution of the ranks, exact or Monte Carlo as
    ``permutation_method`` says. :meth:`decision` says which one decides.

    Parameters
    ----------
    average_ranks : ndarray of shape (n_methods,)
        Average rank of each method.
    n_datasets : int
        The number of datasets ``N``.
    n_methods : int
        The number of methods ``k``.
    chi2 : float
        Friedman's chi2_F, corrected for ties.
    chi2_pvalue : float
        Its p-value under the chi-square approximation.
    ff : float
        Iman-Davenport's F_F.
    ff_pvalue : float
        Its p-value under the F approximation.
    at_limit : bool, default=False
        Whether chi2_F reaches its maximum N (k - 1).
    asymptotic_valid : bool, default=True
        Whether the approximations hold (:func:`asymptotic_friedman_valid`).
    permutation_pvalue : float, default=nan
        The permutation p-value, NaN when not computed.
    permutation_method : str, default=""
        How the permutation p-value was computed (exact or Monte Carlo).
    ranks : ndarray of shape (n_datasets, n_methods), default=None
        The ranks of the table, from which the permutation p-value is computed on demand.

    Examples
    --------
    >>> from forestzoo.stats import friedman_test
    >>> res = friedman_test([[0.9, 0.8, 0.7], [0.7, 0.8, 0.6]])
    >>> res.n_datasets, res.n_methods, res.average_ranks.tolist()
    (2, 3, [1.5, 1.5, 3.0])
    """

    average_ranks: np.ndarray
    n_datasets: int
    n_methods: int
    chi2: float
    chi2_pvalue: float
    ff: float
    ff_pvalue: float
    at_limit: bool = False
    asymptotic_valid: bool = True
    permutation_pvalue: float = float("nan")
    permutation_method: str = ""
    ranks: np.ndarray = field(default=None, repr=False, compare=False)

    def _permutation(self):
        if np.isnan(self.permutation_pvalue):
            if self.ranks is None:
                raise ValueError("the permutation p-value needs the table's ranks: build the "
                                 "result with friedman_test.")
            res = friedman_permutation_pvalue(self.ranks)
            return res.pvalue, res.describe()
        return self.permutation_pvalue, self.permutation_method

    def decision(self, alpha=0.05):
        """Reject "all methods are equivalent" at ``alpha``, and on which p-value.

        - Too few datasets or methods for the approximations, or chi2_F at its
          limit: the permutation p-value decides.
        - Otherwise, when chi2_F's and F_F's p-values fall on the same side of
          alpha, they decide together (F_F's p-value is the one given, as
          Demsar recommends); when they fall on either side, the
          approximations disagree and the permutation p-value decides.

        So the verdict is never "reject" while the p-value of Friedman's own
        statistic, taken from its exact (or sampled) distribution where the
        chi-square approximation is in doubt, is above alpha.

        Parameters
        ----------
        alpha : float in (0, 1), default=0.05
            The significance level.

        Returns
        -------
        FriedmanDecision
            The verdict, the p-value that decided and its test.
        """
        _check_alpha(alpha)
        if self.n_methods < 2 or self.n_datasets < 1:
            return FriedmanDecision(False, float("nan"), "no test")
        if self.at_limit or not self.asymptotic_valid:
            p, method = self._permutation()
            return FriedmanDecision(bool(p <= alpha), float(p), method)
        by_chi2, by_ff = self.chi2_pvalue <= alpha, self.ff_pvalue <= alpha
        if by_chi2 == by_ff:
            return FriedmanDecision(bool(by_ff), float(self.ff_pvalue), "Iman-Davenport F_F")
        p, method = self._permutation()
        return FriedmanDecision(bool(p <= alpha), float(p), method)

    def reject(self, alpha=0.05):
        """Whether Friedman's test rejects "all methods are equivalent" at ``alpha``.

        Parameters
        ----------
        alpha : float in (0, 1), default=0.05
            The significance level.

        Returns
        -------
        bool
            The verdict of :meth:`decision`.
        """
        return self.decision(alpha).reject


def friedman_test(scores, higher_is_better=True, rtol=RTOL):
    """Run Friedman's chi2_F and Iman-Davenport's F_F tests on a score table.

    Ties within a dataset (within ``rtol``, see :func:`rank_scores`) share
    their mean rank, and chi2_F is corrected for them, so it equals
    ``scipy.stats.friedmanchisquare`` on the same table. The permutation
    p-value is computed where the approximations cannot decide alone (see
    :meth:`FriedmanResult.decision`, at alpha = 0.05; other alphas compute it
    on demand).

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One row per dataset, one column per method.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    rtol : float, default=1e-10
        Relative tolerance of a tie on one dataset (see :func:`rank_scores`).

    Returns
    -------
    FriedmanResult
        The statistics, their p-values and the ranks.

    Examples
    --------
    >>> from forestzoo.stats import friedman_test
    >>> scores = [[0.90, 0.85, 0.80], [0.70, 0.72, 0.60], [0.95, 0.90, 0.91],
    ...           [0.81, 0.80, 0.79]]
    >>> res = friedman_test(scores)
    >>> res.average_ranks.tolist(), round(res.chi2, 2)
    ([1.25, 2.0, 2.75], 4.5)
    >>> res.asymptotic_valid, round(res.permutation_pvalue, 4), res.reject(0.05)
    (False, 0.125, False)
    """
    scores = _check_scores(scores)
    ranks = rank_scores(scores, higher_is_better, rtol)
    N, k = scores.shape
    R = ranks.mean(axis=0)
    chi2 = _tie_corrected_chi2(ranks)
    p = float(stats.chi2.sf(chi2, k - 1))
    ff, p_ff = iman_davenport(chi2, N, k)
    at_limit = bool(_at_limit(chi2, N, k))
    valid = asymptotic_friedman_valid(N, k)
    need = at_limit or not valid or ((p <= 0.05) != (p_ff <= 0.05))
    perm_p, perm_method = float("nan"), ""
    if need:
        perm = friedman_permutation_pvalue(ranks)
        perm_p, perm_method = perm.pvalue, perm.describe()
    return FriedmanResult(R, N, k, float(chi2), p, ff, p_ff, at_limit, valid, perm_p,
                          perm_method, ranks)


def nemenyi_q(n_methods, alpha=0.05):
    """Critical value q_alpha of the Nemenyi test for ``n_methods`` methods.

    The studentized range quantile with infinite degrees of freedom divided
    by sqrt(2) (Demsar 2006, Table 5a: 2.343 for k = 3 at alpha = 0.05).

    Parameters
    ----------
    n_methods : int
        The number of methods ``k`` (at least 2).
    alpha : float in (0, 1), default=0.05
        The significance level.

    Returns
    -------
    float
        The critical value q_alpha.

    Examples
    --------
    >>> from forestzoo.stats import nemenyi_q
    >>> round(nemenyi_q(3), 3)
    2.344
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

    Parameters
    ----------
    n_methods : int
        The number of methods ``k``.
    n_datasets : int
        The number of datasets ``N``.
    alpha : float in (0, 1), default=0.05
        The significance level.

    Returns
    -------
    float
        The critical difference of average ranks.

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

    Parameters
    ----------
    n_methods : int
        The number of methods ``k``, the control included.
    n_datasets : int
        The number of datasets ``N``.
    alpha : float in (0, 1), default=0.05
        The significance level.

    Returns
    -------
    float
        The critical difference of average ranks to the control.

    Examples
    --------
    >>> from forestzoo.stats import bonferroni_dunn_cd
    >>> round(bonferroni_dunn_cd(3, 44), 3)
    0.478
    """
    _check_alpha(alpha)
    k, N = int(n_methods), int(n_datasets)
    if k < 2 or N < 1:
        raise ValueError(f"need n_methods >= 2 and n_datasets >= 1, got {k}, {N}.")
    q = stats.norm.isf(alpha / (2.0 * (k - 1)))
    return float(q * np.sqrt(k * (k + 1) / (6.0 * N)))


def nemenyi_significant_pairs(avg_ranks, n_datasets, alpha=0.05):
    """Find the pairs of methods whose average ranks differ by at least the Nemenyi CD.

    Parameters
    ----------
    avg_ranks : array-like of shape (n_methods,)
        Average rank of each method.
    n_datasets : int
        The number of datasets ``N``.
    alpha : float in (0, 1), default=0.05
        The significance level.

    Returns
    -------
    ndarray of bool of shape (n_methods, n_methods)
        ``[i, j]`` is True when method i's average rank is better (lower)
        than j's by at least the critical difference.

    Examples
    --------
    >>> from forestzoo.stats import nemenyi_significant_pairs
    >>> nemenyi_significant_pairs([1.0, 2.0, 3.0], n_datasets=30).tolist()
    [[False, True, True], [False, False, True], [False, False, False]]
    """
    R = np.asarray(avg_ranks, dtype=float)
    cd = nemenyi_cd(len(R), n_datasets, alpha)
    return (R[None, :] - R[:, None]) >= cd
