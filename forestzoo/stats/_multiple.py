"""Comparing every method with one control, corrected for the number of comparisons.

Testing k - 1 methods against a control at level alpha each rejects some true
null hypothesis far more often than alpha over the whole family. Holm's
step-down procedure keeps that familywise error at alpha and rejects at least
what Bonferroni's does (Holm, "A simple sequentially rejective multiple test
procedure", Scandinavian Journal of Statistics 6, 1979; Demsar 2006,
Sec. 3.2.2, recommends it for comparisons with a control).
"""

from dataclasses import dataclass

import numpy as np

from ._pairwise import sign_test, wilcoxon_test
from ._ranks import _check_scores
from ._ties import RTOL

__all__ = ["holm", "ControlComparison", "compare_with_control"]


def holm(pvalues):
    """Holm-adjusted p-values, in the order given.

    With the m p-values sorted, p_(1) <= ... <= p_(m), the adjusted value of
    p_(i) is max over j <= i of min(1, (m - j + 1) p_(j)). A hypothesis is
    rejected by Holm's procedure at level alpha exactly when its adjusted
    p-value is at most alpha.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        The p-values of the m hypotheses, each in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        The Holm-adjusted p-values, in the order of ``pvalues``.

    Examples
    --------
    >>> from forestzoo.stats import holm
    >>> holm([0.01, 0.04, 0.03, 0.005]).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError(f"p-values must be in [0, 1], got {p.tolist()}.")
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


@dataclass(frozen=True)
class ControlComparison:
    """Every method against the control, by the sign and the Wilcoxon signed-rank tests.

    ``others[i]`` is the column compared in row i. Counts are the other
    method's wins / ties / losses against the control. ``*_pvalue`` are the
    uncorrected two-sided p-values, ``*_holm`` the Holm-adjusted ones over
    the k - 1 comparisons (each test its own family).

    Parameters
    ----------
    control : int
        Column of the control method.
    others : tuple of int
        The other columns, in order.
    sign : tuple of SignTestResult
        The sign test of each other method against the control.
    sign_pvalue : ndarray of shape (k - 1,)
        The sign tests' p-values.
    sign_holm : ndarray of shape (k - 1,)
        The same, Holm-adjusted.
    wilcoxon_statistic : ndarray of shape (k - 1,)
        The Wilcoxon statistics.
    wilcoxon_pvalue : ndarray of shape (k - 1,)
        The Wilcoxon p-values.
    wilcoxon_holm : ndarray of shape (k - 1,)
        The same, Holm-adjusted.

    Examples
    --------
    >>> from forestzoo.stats import compare_with_control
    >>> res = compare_with_control([[0.9, 0.8], [0.8, 0.7], [0.7, 0.75]])
    >>> res.control, res.others, res.wins.tolist(), res.losses.tolist()
    (0, (1,), [1], [2])
    """

    control: int
    others: tuple
    sign: tuple
    sign_pvalue: np.ndarray
    sign_holm: np.ndarray
    wilcoxon_statistic: np.ndarray
    wilcoxon_pvalue: np.ndarray
    wilcoxon_holm: np.ndarray

    @property
    def wins(self):
        return np.array([s.wins for s in self.sign])

    @property
    def ties(self):
        return np.array([s.ties for s in self.sign])

    @property
    def losses(self):
        return np.array([s.losses for s in self.sign])


def compare_with_control(scores, control=0, higher_is_better=True, alpha=0.05, rtol=RTOL):
    """Sign and Wilcoxon signed-rank tests of each method against ``control``.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One row per dataset, one column per method.
    control : int, default=0
        Column of the control method.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.
    alpha : float, default=0.05
        Level of the sign test's critical-count rule (:class:`SignTestResult`).
    rtol : float, default=1e-10
        Tie tolerance (:func:`tie_differences`).

    Returns
    -------
    ControlComparison
        The tests of every other method against the control.

    Examples
    --------
    >>> from forestzoo.stats import compare_with_control
    >>> scores = [[0.90, 0.80, 0.91], [0.85, 0.70, 0.84], [0.80, 0.75, 0.82],
    ...           [0.95, 0.90, 0.96], [0.70, 0.60, 0.72], [0.88, 0.80, 0.89]]
    >>> res = compare_with_control(scores)
    >>> res.others, res.losses.tolist(), res.sign_pvalue.tolist(), res.sign_holm.tolist()
    ((1, 2), [6, 1], [0.03125, 0.21875], [0.0625, 0.21875])
    """
    scores = _check_scores(scores)
    k = scores.shape[1]
    control = int(control)
    if not 0 <= control < k:
        raise ValueError(f"control must be a column index in [0, {k}), got {control}.")
    others = tuple(j for j in range(k) if j != control)
    b = scores[:, control]
    signs, stat, p_w = [], [], []
    for j in others:
        signs.append(sign_test(scores[:, j], b, alpha, higher_is_better, rtol=rtol))
        w, p = wilcoxon_test(scores[:, j], b, rtol=rtol)
        stat.append(w)
        p_w.append(p)
    p_s = np.array([s.p_value for s in signs])
    p_w = np.array(p_w)
    return ControlComparison(control, others, tuple(signs), p_s, holm(p_s), np.array(stat),
                             p_w, holm(p_w))
