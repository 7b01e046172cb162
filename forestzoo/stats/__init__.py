"""Statistical comparison of classifiers over many datasets (Demsar 2006).

The seeds judge every method the same way: a table of scores (datasets x
methods), average ranks, Friedman's chi2_F and Iman-Davenport's F_F, the
Nemenyi critical difference, sign and Wilcoxon signed-rank tests, win/tie/loss
counts, and t-tests over repeated runs on one dataset. Where N or k is too
small for the chi-square approximation, or chi2_F reaches its maximum, the
permutation distribution of the ranks decides; comparisons with a control are
Holm-corrected; scores equal up to float noise tie. The computations use
scipy; :func:`plot_critical_difference` needs matplotlib.

The lecture's worked example (44 datasets, ranks 2.24 / 2.07 / 1.69):

>>> from forestzoo.stats import friedman_statistic, iman_davenport, nemenyi_cd
>>> chi2, p = friedman_statistic([2.24, 2.07, 1.69], n_datasets=44)
>>> ff, p_ff = iman_davenport(chi2, n_datasets=44, n_methods=3)
>>> round(chi2, 2), round(ff, 2), round(nemenyi_cd(3, 44), 2)
(6.98, 3.7, 0.5)
"""

from ._cd_diagram import cliques, plot_critical_difference
from ._pairwise import (
    SignTestResult,
    corrected_resampled_t_test,
    paired_t_test,
    sign_test,
    wilcoxon_test,
    win_tie_loss,
)
from ._multiple import ControlComparison, compare_with_control, holm
from ._permutation import PermutationPValue, friedman_permutation_pvalue
from ._ranks import (
    FriedmanDecision,
    FriedmanResult,
    asymptotic_friedman_valid,
    average_ranks,
    bonferroni_dunn_cd,
    friedman_statistic,
    friedman_test,
    iman_davenport,
    nemenyi_cd,
    nemenyi_q,
    nemenyi_significant_pairs,
    rank_scores,
)
from ._ties import RTOL, snap_ties, tie_differences

__all__ = [
    "ControlComparison",
    "FriedmanDecision",
    "FriedmanResult",
    "PermutationPValue",
    "RTOL",
    "SignTestResult",
    "asymptotic_friedman_valid",
    "average_ranks",
    "bonferroni_dunn_cd",
    "cliques",
    "compare_with_control",
    "corrected_resampled_t_test",
    "friedman_permutation_pvalue",
    "friedman_statistic",
    "friedman_test",
    "holm",
    "iman_davenport",
    "nemenyi_cd",
    "nemenyi_q",
    "nemenyi_significant_pairs",
    "paired_t_test",
    "plot_critical_difference",
    "rank_scores",
    "sign_test",
    "snap_ties",
    "tie_differences",
    "wilcoxon_test",
    "win_tie_loss",
]
