"""Comparing two methods: win/tie/loss, sign test, Wilcoxon, paired t-tests."""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._ties import RTOL, tie_differences

__all__ = ["win_tie_loss", "SignTestResult", "sign_test", "wilcoxon_test",
           "paired_t_test", "corrected_resampled_t_test"]


def _pair(a, b, name="a, b"):
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"{name} must be non-empty and of equal length, got {a.size} "
                         f"and {b.size}.")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError(f"{name} contain NaN; drop those datasets first.")
    return a, b


def win_tie_loss(a, b, higher_is_better=True, tol=0.0, rtol=RTOL):
    """Count the datasets where method ``a`` beats, ties with and loses to ``b``.

    Scores at most ``tol`` apart count as a tie, and so do scores within
    ``rtol`` of each other relative to the larger magnitude (float noise; see
    :func:`tie_differences`).

    Parameters
    ----------
    a : array-like of shape (n_datasets,)
        Scores of method a, one per dataset.
    b : array-like of shape (n_datasets,)
        Scores of method b on the same datasets.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    tol : float, default=0.0
        Scores at most this far apart tie.
    rtol : float, default=1e-10
        Relative tolerance under which two scores tie (see :func:`tie_differences`).

    Returns
    -------
    wins : int
        Datasets where a is better.
    ties : int
        Datasets where they tie.
    losses : int
        Datasets where b is better.

    Examples
    --------
    >>> from forestzoo.stats import win_tie_loss
    >>> win_tie_loss([0.9, 0.8, 0.7], [0.8, 0.8, 0.75])
    (1, 1, 1)
    """
    a, b = _pair(a, b)
    diff = tie_differences(a, b, rtol)
    if not higher_is_better:
        diff = -diff
    return int(np.sum(diff > tol)), int(np.sum(np.abs(diff) <= tol)), int(np.sum(diff < -tol))


@dataclass(frozen=True)
class SignTestResult:
    """Sign test of method a against method b over N datasets.

    ``wins`` counts a's wins plus half the ties (Demsar 2006, Sec. 3.1.3: ties
    are split evenly; with an odd number of ties one is dropped, so ``n``
    may be N - 1). ``critical_wins`` is the normal-approximation rule
    N/2 + z sqrt(N)/2 (z = 1.96 at alpha = 0.05); ``p_value`` is the exact
    two-sided binomial p-value of ``wins`` out of ``n``.

    Parameters
    ----------
    wins : int
        Datasets where a is better.
    ties : int
        Datasets where they tie.
    losses : int
        Datasets where b is better.
    n : int
        Datasets counted by the test (N, or N - 1 with an odd number of ties).
    wins_with_ties : float
        The wins plus half the ties.
    critical_wins : float
        Wins needed by the normal-approximation rule.
    p_value : float
        The exact two-sided binomial p-value.

    Examples
    --------
    >>> from forestzoo.stats import sign_test
    >>> res = sign_test([0.9, 0.8, 0.7], [0.8, 0.8, 0.75])
    >>> res.wins, res.ties, res.losses, res.n, res.p_value
    (1, 1, 1, 2, 1.0)
    """

    wins: int
    ties: int
    losses: int
    n: int
    wins_with_ties: float
    critical_wins: float
    p_value: float

    @property
    def significant_by_rule(self):
        """a is significantly better by the N/2 + z sqrt(N)/2 rule."""
        return bool(self.wins_with_ties >= self.critical_wins)


def sign_test(a, b, alpha=0.05, higher_is_better=True, rtol=RTOL):
    """Sign test over datasets (Demsar 2006, Sec. 3.1.3).

    Ties are judged by :func:`win_tie_loss` with ``rtol``.

    Parameters
    ----------
    a : array-like of shape (n_datasets,)
        Scores of method a, one per dataset.
    b : array-like of shape (n_datasets,)
        Scores of method b on the same datasets.
    alpha : float in (0, 1), default=0.05
        The significance level of the normal-approximation rule.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    rtol : float, default=1e-10
        Relative tolerance under which two scores tie (see :func:`tie_differences`).

    Returns
    -------
    SignTestResult
        The counts, the rule's critical number of wins and the exact p-value.

    Examples
    --------
    >>> from forestzoo.stats import sign_test
    >>> res = sign_test([0.9] * 30 + [0.5] * 14, [0.8] * 30 + [0.6] * 14)
    >>> res.wins, res.losses, round(res.critical_wins, 2), res.significant_by_rule
    (30, 14, 28.5, True)
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    wins, ties, losses = win_tie_loss(a, b, higher_is_better, rtol=rtol)
    n = wins + ties + losses
    kept_ties = ties - (ties % 2)  # an odd tie is dropped
    n_eff = wins + losses + kept_ties
    wins_eff = wins + kept_ties / 2
    z = stats.norm.isf(alpha / 2.0)
    critical = n_eff / 2.0 + z * np.sqrt(n_eff) / 2.0
    if n_eff == 0:
        p = 1.0
    else:
        # binomtest needs an integer count: with ties split, wins_eff may be x.5;
        # the p-value of the nearer-to-centre integer is the conservative one.
        k = int(np.floor(wins_eff)) if wins_eff > n_eff / 2 else int(np.ceil(wins_eff))
        p = stats.binomtest(k, n_eff, 0.5).pvalue
    return SignTestResult(wins, ties, losses, n_eff if n else 0, wins_eff, float(critical),
                          float(p))


def wilcoxon_test(a, b, alternative="two-sided", rtol=RTOL):
    """Wilcoxon signed-rank test over datasets (``scipy.stats.wilcoxon``).

    Zero differences are ranked and their ranks split between the signs
    (``zero_method="zsplit"``, as Demsar 2006, Sec. 3.1.3 recommends). The
    differences first lose their float noise (:func:`tie_differences` with
    ``rtol``): equal scores give a zero difference, equal differences a tie.

    Parameters
    ----------
    a : array-like of shape (n_datasets,)
        Scores of method a, one per dataset.
    b : array-like of shape (n_datasets,)
        Scores of method b on the same datasets.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis, as in ``scipy.stats.wilcoxon``.
    rtol : float, default=1e-10
        Relative tolerance under which two scores tie (see :func:`tie_differences`).

    Returns
    -------
    statistic : float
        The test statistic of ``scipy.stats.wilcoxon``.
    p_value : float
        Its p-value.

    Examples
    --------
    >>> from forestzoo.stats import wilcoxon_test
    >>> wilcoxon_test([0.9, 0.8, 0.85, 0.7, 0.95], [0.85, 0.78, 0.8, 0.72, 0.9])
    (1.5, 0.1875)
    """
    a, b = _pair(a, b)
    d = tie_differences(a, b, rtol)
    if np.all(d == 0):
        return 0.0, 1.0
    res = stats.wilcoxon(d, zero_method="zsplit", alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def paired_t_test(a, b):
    """Paired t-test over repeated runs on one dataset (``scipy.stats.ttest_rel``).

    Its independence assumption does not hold across CV folds that share
    training rows; see :func:`corrected_resampled_t_test`.

    Parameters
    ----------
    a : array-like of shape (n_runs,)
        Scores of method a, one per run.
    b : array-like of shape (n_runs,)
        Scores of method b on the same runs.

    Returns
    -------
    statistic : float
        The test statistic.
    p_value : float
        Its two-sided p-value.

    Examples
    --------
    >>> from forestzoo.stats import paired_t_test
    >>> t, p = paired_t_test([0.90, 0.92, 0.91, 0.93], [0.88, 0.90, 0.90, 0.90])
    >>> round(t, 3), round(p, 3)
    (4.899, 0.016)
    """
    a, b = _pair(a, b)
    if np.all(a == b):
        return 0.0, 1.0
    res = stats.ttest_rel(a, b)
    return float(res.statistic), float(res.pvalue)


def corrected_resampled_t_test(a, b, test_train_ratio):
    """Nadeau & Bengio's (2003) corrected resampled t-test.

    For J paired scores from resampled train/test splits with n_test / n_train
    = ``test_train_ratio`` (``1 / (folds - 1)`` for k-fold CV),

        t = mean(d) / sqrt((1/J + n_test/n_train) var(d)),

    with J - 1 degrees of freedom; the extra n_test/n_train term accounts for
    the overlap of the training sets that the plain paired t-test ignores.

    Parameters
    ----------
    a : array-like of shape (n_runs,)
        Scores of method a, one per run.
    b : array-like of shape (n_runs,)
        Scores of method b on the same runs.
    test_train_ratio : float > 0
        ``n_test / n_train`` of the splits.

    Returns
    -------
    statistic : float
        The test statistic.
    p_value : float
        Its two-sided p-value.

    Examples
    --------
    >>> from forestzoo.stats import corrected_resampled_t_test
    >>> t, p = corrected_resampled_t_test([0.90, 0.92, 0.91, 0.93], [0.88, 0.90, 0.90, 0.90],
    ...                                   test_train_ratio=0.5)
    >>> round(t, 3), round(p, 3)
    (2.828, 0.066)
    """
    a, b = _pair(a, b)
    if test_train_ratio <= 0:
        raise ValueError(f"test_train_ratio must be > 0, got {test_train_ratio!r}.")
    d = a - b
    J = d.size
    if J < 2:
        raise ValueError("need at least 2 paired scores.")
    var = d.var(ddof=1)
    if var == 0:
        return (0.0, 1.0) if d.mean() == 0 else (float(np.sign(d.mean()) * np.inf), 0.0)
    t = d.mean() / np.sqrt((1.0 / J + test_train_ratio) * var)
    return float(t), float(2 * stats.t.sf(abs(t), J - 1))
