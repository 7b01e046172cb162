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
    all_tied = np.full((10, 3), 0.5)
    res = stats.friedman_test(all_tied)
    assert res.chi2 == 0 and res.chi2_pvalue == 1 and res.ff_pvalue == pytest.approx(1)
    assert not res.reject(0.05)
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


# --- ties, the limit of F_F, small tables, Holm: against scipy and hand computations ---------


def _fold_mean(counts, sizes, scale):
    # a mean of fold accuracies, in the order the report computes it
    return float(np.mean([c / n * scale for c, n in zip(counts, sizes)]))


def test_equal_accuracies_tie_whatever_the_float_noise():
    # seeds: 210 rows in 3 folds of 70; two models both right on 192 of 210 rows
    a = _fold_mean([64, 64, 64], [70, 70, 70], 100.0)
    b = _fold_mean([59, 65, 68], [70, 70, 70], 100.0)
    assert a != b and a == pytest.approx(b)  # the float noise the ranks must ignore
    c = _fold_mean([62, 64, 64], [70, 70, 70], 100.0)
    ranks = stats.rank_scores([[a, b, c]])
    assert ranks.tolist() == [[1.5, 1.5, 3.0]]
    assert stats.win_tie_loss([a], [b]) == (0, 1, 0)
    assert stats.rank_scores([[a, b, c]], rtol=0).tolist() != [[1.5, 1.5, 3.0]]
    # a genuine difference of one row in 210 is far above the tolerance
    assert stats.rank_scores([[a, _fold_mean([64, 64, 63], [70] * 3, 100.0)]]).tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="rtol must be"):
        stats.rank_scores([[a, b]], rtol=-1)


def _rational_table(rng, n_datasets, n_models, sizes=(70, 70, 71)):
    """Fold counts and the mean accuracies they give, in fractions and in percent."""
    counts = rng.integers(55, 71, size=(n_datasets, n_models, len(sizes)))
    counts[:, 1] = counts[:, 0][:, ::-1]  # column 1 ties column 0 on the sums, not per fold
    counts[:, 1, -1] = counts[:, 0, 0]
    counts[:, 1, 0] = counts[:, 0, -1]
    frac = np.array([[_fold_mean(c, sizes, 1.0) for c in row] for row in counts])
    pct = np.array([[_fold_mean(c, sizes, 100.0) for c in row] for row in counts])
    # the exact table: integers on the common grid 1 / (3 * lcm(sizes))
    lcm = np.lcm.reduce(sizes)
    exact = np.array([[sum(ci * (lcm // n) for ci, n in zip(c, sizes)) for c in row]
                      for row in counts], dtype=float)
    return frac, pct, exact


def test_percent_and_fraction_scales_give_the_same_statistics_as_scipy_on_the_exact_table():
    rng = np.random.default_rng(4)
    frac, pct, exact = _rational_table(rng, 14, 7)
    ref = sps.friedmanchisquare(*exact.T)
    for table in (frac, pct):
        res = stats.friedman_test(table)
        np.testing.assert_allclose(res.average_ranks, stats.average_ranks(exact, rtol=0))
        assert res.chi2 == pytest.approx(ref.statistic, rel=1e-12)
        assert res.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        np.testing.assert_array_equal(
            stats.nemenyi_significant_pairs(res.average_ranks, 14),
            stats.nemenyi_significant_pairs(stats.average_ranks(exact, rtol=0), 14))
        for j in range(1, 7):
            d = exact[:, j] - exact[:, 0]
            if np.all(d == 0):
                assert stats.wilcoxon_test(table[:, j], table[:, 0]) == (0.0, 1.0)
                continue
            w = sps.wilcoxon(d, zero_method="zsplit")
            assert stats.wilcoxon_test(table[:, j], table[:, 0]) == pytest.approx(
                (w.statistic, w.pvalue), rel=1e-12)
            n_w, n_t, n_l = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
            assert stats.win_tie_loss(table[:, j], table[:, 0]) == (n_w, n_t, n_l)


def test_friedman_with_ties_equals_scipy():
    rng = np.random.default_rng(6)
    scores = rng.integers(0, 4, size=(30, 5)) / 4  # many ties within datasets
    res = stats.friedman_test(scores)
    ref = sps.friedmanchisquare(*scores.T)
    assert res.chi2 == pytest.approx(ref.statistic) and res.chi2_pvalue == pytest.approx(ref.pvalue)
    # Demsar's Eq. 1 from the average ranks is the uncorrected statistic, below the corrected one
    uncorrected, _ = stats.friedman_statistic(res.average_ranks, 30)
    assert uncorrected < res.chi2


def test_iman_davenport_at_its_limit_and_the_two_model_two_dataset_table():
    # RaF ahead of sk-RF on both iris and wine: chi2_F = N (k - 1) = 2, Friedman's p = 0.157
    res = stats.friedman_test([[95.33, 94.67], [97.75, 96.63]])
    assert res.chi2 == 2.0 and res.chi2_pvalue == pytest.approx(sps.chi2.sf(2.0, 1))
    assert res.at_limit and np.isnan(res.ff) and np.isnan(res.ff_pvalue)
    assert not res.asymptotic_valid
    decision = res.decision(0.05)
    # the exact p-value is the two-sided sign test: 2 wins out of 2
    assert decision.pvalue == pytest.approx(sps.binomtest(2, 2).pvalue) == pytest.approx(0.5)
    assert not decision.reject and decision.method == "exact permutation test"
    assert stats.iman_davenport(2.0, 2, 2) == (pytest.approx(np.nan, nan_ok=True),
                                               pytest.approx(np.nan, nan_ok=True))
    # ten datasets ranking three models alike: (3!)^(1 - 10) by hand
    res = stats.friedman_test(np.tile([0.9, 0.8, 0.7], (10, 1)))
    assert res.at_limit and np.isnan(res.ff)
    assert res.decision().pvalue == pytest.approx(6.0 ** -9) and res.reject(0.05)
    # with ties the limit is reached by identical rows: 3 arrangements of (1.5, 1.5, 3)
    res = stats.friedman_test(np.tile([0.9, 0.9, 0.7], (4, 1)))
    assert res.at_limit and res.decision().pvalue == pytest.approx(3.0 ** -3)


def _scipy_permutation_pvalue(scores):
    def stat(*columns, axis=-1):
        table = np.stack(columns, axis=-1)
        ranks = sps.rankdata(-table, axis=-1)
        return np.sum(ranks.sum(axis=-2) ** 2, axis=-1)

    return sps.permutation_test([scores[:, j] for j in range(scores.shape[1])], stat,
                                permutation_type="samples", n_resamples=np.inf,
                                alternative="greater", vectorized=True).pvalue


@pytest.mark.parametrize("shape", [(2, 2), (5, 2), (4, 3), (6, 3), (3, 4), (2, 5)])
def test_exact_permutation_pvalue_equals_scipy_permutation_test(shape):
    rng = np.random.default_rng(sum(shape))
    scores = rng.integers(0, 4, size=shape).astype(float)
    res = stats.friedman_test(scores)
    assert not res.asymptotic_valid and res.permutation_method == "exact permutation test"
    assert res.permutation_pvalue == pytest.approx(_scipy_permutation_pvalue(scores), abs=1e-12)
    assert res.decision(0.05).pvalue == res.permutation_pvalue


def test_monte_carlo_permutation_pvalue_is_close_to_the_exact_one():
    from forestzoo.stats._permutation import _doubled_ranks, _monte_carlo

    rng = np.random.default_rng(9)
    ranks = stats.rank_scores(rng.normal(size=(6, 4)) + [0, 0.5, 0.8, 1.0])
    exact = stats.friedman_permutation_pvalue(ranks)
    assert exact.exact
    mc = _monte_carlo(_doubled_ranks(ranks), 50_000, 0)
    se = np.sqrt(exact.pvalue * (1 - exact.pvalue) / 50_000)
    assert abs(mc - exact.pvalue) < 4 * se + 1e-4
    # too many rearrangements to count (k = 9): sampled, reproducibly
    big = stats.rank_scores(rng.normal(size=(4, 9)))
    one, two = (stats.friedman_permutation_pvalue(big, n_resamples=2_000) for _ in range(2))
    assert not one.exact and one == two and 0 < one.pvalue <= 1


def test_no_reject_where_friedmans_own_pvalue_is_above_alpha():
    rng = np.random.default_rng(11)
    for _ in range(40):
        N, k = int(rng.integers(2, 16)), int(rng.integers(2, 8))
        shift = rng.uniform(0, 1.2) * np.linspace(0, 1, k)
        scores = np.round(rng.normal(size=(N, k)) + shift, 1)
        res = stats.friedman_test(scores)
        assert np.isfinite(res.chi2) and not np.isinf(res.ff)
        for alpha in (0.05, 0.10):
            decision = res.decision(alpha)
            assert decision.reject == (decision.pvalue <= alpha)
            if res.at_limit or not res.asymptotic_valid:
                assert decision.pvalue == res.permutation_pvalue
            elif decision.reject and res.chi2_pvalue > alpha:
                # the approximations disagree: the permutation distribution decided
                assert "permutation" in decision.method


def test_holm_against_its_definition_and_statsmodels():
    # by hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> 0.06
    np.testing.assert_allclose(stats.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm([0.5, 0.6]), [1.0, 1.0])
    assert stats.holm([]).size == 0
    rng = np.random.default_rng(12)
    p = rng.uniform(0, 0.2, size=26)
    adjusted = stats.holm(p)
    assert np.all(adjusted >= p) and np.all(adjusted <= np.minimum(1, 26 * p) + 1e-15)
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)
    with pytest.raises(ValueError, match="p-values must be in"):
        stats.holm([0.1, np.nan])
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    np.testing.assert_allclose(adjusted, multitest.multipletests(p, method="holm")[1])


def test_compare_with_control_against_scipy():
    rng = np.random.default_rng(13)
    scores = rng.integers(60, 80, size=(20, 5)).astype(float)  # integers: no float noise
    scores[:4, 3] = scores[:4, 0]  # some ties with the control
    res = stats.compare_with_control(scores, control=0)
    assert res.others == (1, 2, 3, 4)
    sign_p, wil_p = [], []
    for row, j in enumerate(res.others):
        d = scores[:, j] - scores[:, 0]
        w, t, l_ = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        assert (res.wins[row], res.ties[row], res.losses[row]) == (w, t, l_)
        kept = t - t % 2  # ties split evenly, an odd one dropped (Demsar 2006, Sec. 3.1.3)
        wins = w + kept / 2
        n = w + l_ + kept
        k_ = int(np.floor(wins)) if wins > n / 2 else int(np.ceil(wins))
        sign_p.append(sps.binomtest(k_, n).pvalue)
        ref = sps.wilcoxon(d, zero_method="zsplit")
        wil_p.append(ref.pvalue)
        assert res.wilcoxon_statistic[row] == pytest.approx(ref.statistic)
    np.testing.assert_allclose(res.sign_pvalue, sign_p)
    np.testing.assert_allclose(res.wilcoxon_pvalue, wil_p)
    np.testing.assert_allclose(res.sign_holm, stats.holm(sign_p))
    np.testing.assert_allclose(res.wilcoxon_holm, stats.holm(wil_p))
    # another control column; lower is better reverses wins and losses
    other = stats.compare_with_control(scores, control=2, higher_is_better=False)
    assert other.others == (0, 1, 3, 4)
    # column 0 wins "lower is better" against column 2 where column 2 is the higher
    assert (other.wins[0], other.losses[0]) == (res.wins[1], res.losses[1])
    with pytest.raises(ValueError, match="control must be a column index"):
        stats.compare_with_control(scores, control=5)


def _peer_table(seed=21, n_datasets=12, n_models=6):
    rng = np.random.default_rng(seed)
    # quarter-points: exact in binary, so scipy and the peers see the same ties as we do
    return np.round(4 * (rng.normal(size=(n_datasets, n_models))
                         + np.linspace(0, 1.5, n_models))) / 4


def test_against_scikit_posthocs():
    sp = pytest.importorskip("scikit_posthocs")
    scores = _peer_table(n_models=4)
    N, k = scores.shape
    R = stats.average_ranks(scores)
    p_nemenyi = np.asarray(sp.posthoc_nemenyi_friedman(scores), dtype=float)
    ours = stats.nemenyi_significant_pairs(R, N, 0.05)
    np.testing.assert_array_equal(ours | ours.T, p_nemenyi < 0.05)
    # each pair on its own: with ties scipy's Wilcoxon p-value is a permutation test, seconds per pair
    p_wil = [np.asarray(sp.posthoc_wilcoxon([scores[:, 0], scores[:, j]], zero_method="zsplit"), dtype=float)[0, 1]
             for j in range(1, k)]
    res = stats.compare_with_control(scores, control=0)
    np.testing.assert_allclose(res.wilcoxon_pvalue, p_wil)


def test_against_autorank():
    pd = pytest.importorskip("pandas")
    autorank = pytest.importorskip("autorank")
    scores = _peer_table()
    N, k = scores.shape
    names = [f"m{j}" for j in range(k)]
    out = autorank.autorank(pd.DataFrame(scores, columns=names), alpha=0.05, verbose=False,
                            force_mode="nonparametric")
    res = stats.friedman_test(scores)
    assert out.omnibus == "friedman" and out.pvalue == pytest.approx(res.chi2_pvalue)
    mean_rank = out.rankdf["meanrank"]
    np.testing.assert_allclose([mean_rank[m] for m in names], res.average_ranks)
    assert out.cd == pytest.approx(stats.nemenyi_cd(k, N), abs=1e-3)  # autorank's q from a table
