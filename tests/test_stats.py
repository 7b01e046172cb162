"""forestzoo.stats against the lecture's worked example, Demsar's tables and naive twins."""

import sys

import numpy as np
import pytest
from scipy import stats as sps

from forestzoo import stats

# Demsar (2006), Table 5: critical values for k = 2..10 methods
Q_NEMENYI = {0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
             0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]}
# (Table 5b prints 2.724 for k = 9 at 0.05; the normal quantile z(0.05/16) is 2.734)
Q_BONFERRONI = {0.05: [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.734, 2.773],
                0.10: [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539]}


def test_lecture_worked_example():
    # 001_0fb1052eb98db25a.txt: N = 44, RaF / RoF / RRoF ranks 2.24 / 2.07 / 1.69
    # give chi2_F = 6.98, F_F = 3.71 (> F(2, 86) critical 2.72) and CD = 0.50
    chi2, p = stats.friedman_statistic([2.24, 2.07, 1.69], n_datasets=44)
    assert chi2 == pytest.approx(6.98, abs=0.005)
    ff, p_ff = stats.iman_davenport(chi2, 44, 3)
    assert ff == pytest.approx(3.71, abs=0.015)  # 3.70 from the rounded ranks
    assert ff > sps.f.isf(0.05, 2, 86)  # rejected at 0.05, as the lecture concludes
    assert p_ff < 0.05 and p == pytest.approx(sps.chi2.sf(chi2, 2))
    assert stats.nemenyi_cd(3, 44, alpha=0.05) == pytest.approx(0.50, abs=0.005)
    assert stats.nemenyi_cd(3, 44, alpha=0.10) < 0.50
    # the only pair beyond the CD: RRoF better than RaF (2.24 - 1.69 = 0.55)
    sig = stats.nemenyi_significant_pairs([2.24, 2.07, 1.69], 44)
    assert sig.tolist() == [[False, False, False], [False, False, False],
                            [True, False, False]]


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_critical_values_match_demsar_tables(alpha):
    for k, q in zip(range(2, 11), Q_NEMENYI[alpha]):
        assert stats.nemenyi_q(k, alpha) == pytest.approx(q, abs=0.0015)
        cd = stats.nemenyi_cd(k, 30, alpha)
        assert cd == pytest.approx(q * np.sqrt(k * (k + 1) / 180), abs=0.001)
    for k, q in zip(range(2, 11), Q_BONFERRONI[alpha]):
        cd = stats.bonferroni_dunn_cd(k, 30, alpha)
        assert cd / np.sqrt(k * (k + 1) / 180) == pytest.approx(q, abs=0.0015)


def _naive_ranks(row, higher_is_better=True):
    # rank 1 = best; ties get the mean of the positions they occupy
    order = sorted(range(len(row)), key=lambda j: -row[j] if higher_is_better else row[j])
    ranks = [0.0] * len(row)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and row[order[j + 1]] == row[order[i]]:
            j += 1
        for t in range(i, j + 1):
            ranks[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def test_ranks_agree_with_naive_twin_ties_included():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, size=(30, 5)) / 4  # many ties
    ours = stats.rank_scores(scores)
    np.testing.assert_allclose(ours, [_naive_ranks(r) for r in scores])
    np.testing.assert_allclose(stats.rank_scores(scores, higher_is_better=False),
                               [_naive_ranks(r, False) for r in scores])
    np.testing.assert_allclose(ours.sum(axis=1), 15.0)  # 1 + ... + 5 per dataset
    np.testing.assert_allclose(stats.average_ranks(scores), ours.mean(axis=0))


def test_friedman_equals_scipy_without_ties():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(25, 4)) + [0.0, 0.3, 0.5, 0.6]
    res = stats.friedman_test(scores)
    ref = sps.friedmanchisquare(*scores.T)
    assert res.chi2 == pytest.approx(ref.statistic)
    assert res.chi2_pvalue == pytest.approx(ref.pvalue)
    N, k = scores.shape
    assert res.ff == pytest.approx((N - 1) * res.chi2 / (N * (k - 1) - res.chi2))
    assert res.ff_pvalue == pytest.approx(sps.f.sf(res.ff, k - 1, (k - 1) * (N - 1)))
    assert res.reject(0.05) == (res.ff_pvalue < 0.05)
    # errors instead of accuracies: the ranks reverse
    np.testing.assert_allclose(stats.friedman_test(-scores, higher_is_better=False)
                               .average_ranks, res.average_ranks)


def test_friedman_edge_cases():
    same_order = np.tile([0.9, 0.8, 0.7], (10, 1))
    res = stats.friedman_test(same_order)
    assert res.chi2 == pytest.approx(10 * 2) and res.ff == np.inf and res.ff_pvalue == 0
    all_tied = np.full((10, 3), 0.5)
    res = stats.friedman_test(all_tied)
    assert res.chi2 == pytest.approx(0) and res.ff_pvalue == pytest.approx(1)
    with pytest.raises(ValueError, match="missing values \\(rows \\[1\\]\\)"):
        stats.friedman_test([[0.1, 0.2], [np.nan, 0.3]])
    with pytest.raises(ValueError, match="2-D array"):
        stats.friedman_test([0.1, 0.2])
    with pytest.raises(ValueError, match="at least one dataset and 2 methods"):
        stats.friedman_test([[0.1], [0.2]])
    with pytest.raises(ValueError, match="alpha must be in"):
        stats.nemenyi_cd(3, 10, alpha=1.5)


def test_sign_test_rule_and_exact_binomial():
    # the lecture's pairs: N = 44, wins (18, 26) and (16, 28): the critical count is
    # 22 + 1.96 sqrt(44) / 2 = 28.5, so neither 26 nor 28 wins is significant
    a = [1.0] * 26 + [0.0] * 18
    b = [0.5] * 44
    res = stats.sign_test(a, b)
    assert (res.wins, res.ties, res.losses) == (26, 0, 18)
    assert res.critical_wins == pytest.approx(22 + 1.96 * np.sqrt(44) / 2, abs=1e-3)
    assert not res.significant_by_rule
    assert res.p_value == pytest.approx(sps.binomtest(26, 44).pvalue)
    assert stats.sign_test([1.0] * 29 + [0.0] * 15, b).significant_by_rule
    # ties split evenly between the two; an odd one is dropped
    res = stats.sign_test([1, 1, 1, 1, 0, 0.5, 0.5, 0.5], [0.5] * 8)
    assert (res.wins, res.ties, res.losses, res.n) == (4, 3, 1, 7)
    assert res.wins_with_ties == 5
    assert res.p_value == pytest.approx(sps.binomtest(5, 7).pvalue)
    with pytest.raises(ValueError, match="equal length"):
        stats.sign_test([1, 2], [1])


def test_win_tie_loss_and_tolerance():
    assert stats.win_tie_loss([0.9, 0.8, 0.7, 0.6], [0.8, 0.8, 0.75, 0.61]) == (1, 1, 2)
    assert stats.win_tie_loss([0.9, 0.8, 0.7, 0.6], [0.8, 0.8, 0.75, 0.61], tol=0.02) == (1, 2, 1)
    assert stats.win_tie_loss([0.1, 0.3], [0.2, 0.2], higher_is_better=False) == (1, 0, 1)


def _naive_wilcoxon_zsplit(a, b):
    d = np.asarray(a) - np.asarray(b)
    ranks = sps.rankdata(np.abs(d))
    r_plus = ranks[d > 0].sum() + ranks[d == 0].sum() / 2
    r_minus = ranks[d < 0].sum() + ranks[d == 0].sum() / 2
    return min(r_plus, r_minus)


def test_wilcoxon_statistic_against_naive_sum_of_ranks():
    rng = np.random.default_rng(2)
    a = rng.normal(size=20)
    b = a + rng.normal(0.3, 1.0, size=20)
    b[:3] = a[:3]  # zero differences
    stat, p = stats.wilcoxon_test(a, b)
    assert stat == pytest.approx(_naive_wilcoxon_zsplit(a, b))
    assert 0 < p < 1
    assert stats.wilcoxon_test(a, a) == (0.0, 1.0)


def test_t_tests():
    rng = np.random.default_rng(3)
    a = rng.normal(0.85, 0.02, size=30)
    b = a - rng.normal(0.01, 0.01, size=30)
    t, p = stats.paired_t_test(a, b)
    ref = sps.ttest_rel(a, b)
    assert (t, p) == pytest.approx((ref.statistic, ref.pvalue))
    # Nadeau & Bengio: with no train/test overlap term it is the paired t statistic
    t0, _ = stats.corrected_resampled_t_test(a, b, test_train_ratio=1e-12)
    assert t0 == pytest.approx(ref.statistic, rel=1e-6)
    # 10 x 3-fold CV: n_test / n_train = 1/2 inflates the variance by (1/30 + 1/2) / (1/30)
    t_c, p_c = stats.corrected_resampled_t_test(a, b, test_train_ratio=0.5)
    assert t_c == pytest.approx(ref.statistic / np.sqrt(16.0))
    assert p_c == pytest.approx(2 * sps.t.sf(abs(t_c), 29)) and p_c > p
    with pytest.raises(ValueError, match="test_train_ratio must be > 0"):
        stats.corrected_resampled_t_test(a, b, 0)


def test_cliques_are_maximal_groups_within_cd():
    R = [1.0, 1.3, 2.0, 2.2, 3.5]
    groups = [g.tolist() for g in stats.cliques(R, cd=1.05)]
    assert groups == [[0, 1, 2], [1, 2, 3]]  # [2, 3] lies inside the second
    assert [g.tolist() for g in stats.cliques(R, cd=0.5)] == [[0, 1], [2, 3]]
    assert stats.cliques(R, cd=0.1) == []


def test_cd_diagram_png(tmp_path):
    pytest.importorskip("matplotlib")
    fig = stats.plot_critical_difference([2.24, 2.07, 1.69], ["RaF", "RoF", "RRoF"],
                                         n_datasets=44, title="lecture")
    out = tmp_path / "cd.png"
    fig.savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("CD = 0.50" in t for t in texts) and any("RRoF" in t for t in texts)
    with pytest.raises(ValueError, match="one name per rank"):
        stats.plot_critical_difference([1, 2], ["a"], 10)


def test_cd_diagram_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install 'forestzoo\\[plot\\]'"):
        stats.plot_critical_difference([1.5, 1.5], ["a", "b"], 10)
