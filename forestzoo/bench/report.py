"""The Markdown report of a benchmark run: score table (with the paper's
figures where the suite names a paper table), average ranks, Friedman /
Iman-Davenport, Nemenyi CD and its diagram, win/tie/loss against the first
model, and time per model."""

import csv
import math
import os
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from .. import stats
from ..datasets import get_dataset_info
from ..datasets._base import get_data_home
from .registry import METRICS, PERCENT_METRICS

__all__ = ["summarize", "average_ranks", "format_report", "paper_figures",
           "find_paper_tables", "write_report", "warning_summary", "failure_summary",
           "selective_summary", "PAPER_TABLES_ENV_VAR"]

_NAN = float("nan")

#: Environment variable naming the directory of the papers' tables.
PAPER_TABLES_ENV_VAR = "FORESTZOO_PAPER_TABLES"

_PERCENT = PERCENT_METRICS
#: metrics that are a count of test rows over the test part's size
_COUNTED = ("accuracy", "error")
#: significance level of the report's tests
ALPHA = 0.05
#: fewest datasets for which the report gives Nemenyi's critical difference; its
#: normal approximation of average-rank differences needs several datasets, and
#: autorank (Herbold, "Autorank: a Python package for automated ranking of
#: classifiers", JOSS 2020) refuses fewer than five as well
MIN_DATASETS_POSTHOC = 5


def _ordered(values):
    return list(dict.fromkeys(values))


def _exact_mean(values, sizes, scale):
    """Mean of fold scores that are counts over test sizes, as the float nearest
    to the exact rational mean: equal means give the same float, whatever the
    folds' order or the scale (percent or fraction). None when a value is not
    such a count."""
    total = Fraction(0)
    for v, n in zip(values, sizes):
        c = v * n
        if n <= 0 or abs(c - round(c)) > 1e-6:
            return None
        total += Fraction(round(c), n)
    return float(total * Fraction(scale) / len(values))


def summarize(results, metric="accuracy", datasets=None, models=None):
    """Aggregate fold results into per-(dataset, model) arrays.

    Accuracy and error means are computed from the folds' counts of test rows
    as exact fractions, so equal mean accuracies (say 192 of 210 rows, however
    they fall into the folds) are equal floats.

    Parameters
    ----------
    results : list of FoldResult
        The fold results.
    metric : str, default="accuracy"
        The metric aggregated (a key of ``METRICS``).
    datasets : sequence of str, optional
        Row order; default the order of appearance in ``results``.
    models : sequence of str, optional
        Column order; default the order of appearance in ``results``.

    Returns
    -------
    dict
        ``datasets``, ``models`` (lists) and arrays of shape
        (n_datasets, n_models): ``mean`` and ``std`` of ``metric`` over the
        successful folds (in percent for accuracy, error and nl1_error; NaN
        where none), ``n_ok``, ``n_failed``, ``n_skipped`` (counts), ``fit``
        and ``predict`` (total seconds), ``partial`` (bool: some folds failed
        or were skipped).

    Examples
    --------
    >>> from forestzoo.bench import FoldResult, summarize
    >>> results = [FoldResult("iris", "RaF", fold=k, accuracy=a, fit_seconds=0.1, n_test=50)
    ...            for k, a in enumerate([0.96, 0.94])]
    >>> s = summarize(results)
    >>> s["models"], s["mean"].round(2).tolist(), s["n_ok"].tolist()
    (['RaF'], [[95.0]], [[2.0]])
    """
    datasets = list(datasets) if datasets is not None else _ordered(r.dataset for r in results)
    models = list(models) if models is not None else _ordered(r.model for r in results)
    shape = (len(datasets), len(models))
    out = {k: np.full(shape, np.nan) for k in ("mean", "std")}
    out.update({k: np.zeros(shape) for k in ("n_ok", "n_failed", "n_skipped", "fit",
                                             "predict")})
    di = {d: i for i, d in enumerate(datasets)}
    mj = {m: j for j, m in enumerate(models)}
    scale = 100.0 if metric in _PERCENT else 1.0
    values = {}
    for r in results:
        if r.dataset not in di or r.model not in mj:
            continue
        i, j = di[r.dataset], mj[r.model]
        out["fit"][i, j] += r.fit_seconds
        out["predict"][i, j] += r.predict_seconds
        if r.ok:
            out["n_ok"][i, j] += 1
            values.setdefault((i, j), []).append((r.score(metric), r.n_test))
        elif r.status.startswith("skipped"):
            out["n_skipped"][i, j] += 1
        else:
            out["n_failed"][i, j] += 1
    for (i, j), pairs in values.items():
        v = np.array([p[0] for p in pairs]) * scale
        exact = (_exact_mean([p[0] for p in pairs], [p[1] for p in pairs], scale)
                 if metric in _COUNTED else None)
        out["mean"][i, j] = np.mean(v) if exact is None else exact
        out["std"][i, j] = np.std(v)
    # a mean over only some of the folds is shown but neither ranked nor tested
    out["partial"] = (out["n_ok"] > 0) & (out["n_failed"] + out["n_skipped"] > 0)
    out["datasets"], out["models"] = datasets, models
    return out


def average_ranks(scores, higher_is_better=True):
    """Average rank of each column over the rows with no missing score.

    Rank 1 is best; ties share the mean rank (Demsar 2006, Sec. 3.2.2).

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_models)
        The table; rows with a NaN are left out.
    higher_is_better : bool, default=True
        ``True`` for accuracies, ``False`` for errors.

    Returns
    -------
    ndarray of shape (n_models,)
        The average ranks; NaN when no row is complete.

    Examples
    --------
    >>> import numpy as np
    >>> from forestzoo.bench import average_ranks
    >>> average_ranks([[0.9, 0.8], [0.7, np.nan], [0.6, 0.7]]).tolist()
    [1.5, 1.5]
    """
    scores = np.asarray(scores, dtype=float)
    complete = scores[~np.isnan(scores).any(axis=1)]
    if len(complete) == 0:
        return np.full(scores.shape[1], np.nan)
    return stats.average_ranks(complete, higher_is_better)


def _norm(name):
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def find_paper_tables(paper_dir=None, data_home=None):
    """The directory of the papers' tables: ``paper_dir``, else
    ``$FORESTZOO_PAPER_TABLES``, else ``paper_tables`` beside the data directory;
    None when none exists (then reports print no paper column)."""
    for candidate in (paper_dir, os.environ.get(PAPER_TABLES_ENV_VAR)):
        if candidate:
            return Path(candidate) if Path(candidate).is_dir() else None
    home = get_data_home(data_home)
    if home is not None and (home.parent / "paper_tables").is_dir():
        return home.parent / "paper_tables"
    return None


def _read_paper_table(path):
    """``{(normalised dataset, normalised method): value}`` from one table, rows
    being datasets (first header ``dataset``) or methods (``method``)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh) if r]
    header, body = rows[0], rows[1:]
    by_dataset = _norm(header[0]) != "method"
    table = {}
    for row in body:
        for col, cell in zip(header[1:], row[1:]):
            try:
                value = float(cell)
            except ValueError:
                continue
            d, m = (row[0], col) if by_dataset else (col, row[0])
            table.setdefault((_norm(d), _norm(m)), value)
    return table


def paper_figures(suite, datasets, models, paper_dir):
    """``{(dataset, model): figure}`` from the suite's paper tables.

    A dataset is found under any of its registry ``paper_names``; a model
    under ``suite.paper_names[model]`` or its own name.
    """
    if paper_dir is None or suite is None:
        return {}
    figures = {}
    for file in suite.paper_tables:
        path = Path(paper_dir) / file
        if not path.is_file():
            continue
        table = _read_paper_table(path)
        for d in datasets:
            names = [_norm(n) for n in get_dataset_info(d).paper_names] + [_norm(d)]
            for m in models:
                col = _norm(suite.paper_names.get(m, m))
                for n in names:
                    if (n, col) in table and (d, m) not in figures:
                        figures[(d, m)] = table[(n, col)]
    return figures


def _fmt(value, metric, digits=None):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if digits is None:
        digits = 2 if metric in _PERCENT else 4
    return f"{value:.{digits}f}"


def _md_table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _stats_section(mean, datasets, models, higher, metric, cd_png, suite_name):
    lines = []
    # A model with results on at most half of the datasets (e.g. skipped everywhere by the
    # time budget) would otherwise leave no dataset on which every model has a result:
    # rank the others and say which were left out.
    counts = (~np.isnan(mean)).sum(axis=0)
    keep = 2 * counts > len(datasets)
    if keep.sum() >= 2 and not keep.all():
        dropped = [f"{m} ({c} of {len(datasets)})" for m, c, kp in zip(models, counts, keep) if not kp]
        lines += [f"Left out of the ranks, with results on at most half of the datasets: "
                  f"{', '.join(dropped)}.", ""]
        mean = mean[:, keep]
        models = [m for m, kp in zip(models, keep) if kp]
    complete = ~np.isnan(mean).any(axis=1)
    N, k = int(complete.sum()), len(models)
    if k < 2:
        return lines + ["One model: no ranks to compare."], None
    if N < 2:
        return lines + [f"Fewer than two datasets with a result for every model (N = {N}): no "
                        f"ranks or tests."], None
    scores = mean[complete]
    res = stats.friedman_test(scores, higher_is_better=higher)
    R = res.average_ranks
    left = [d for d, c in zip(datasets, complete) if not c]
    lines.append(f"Average ranks over the N = {N} datasets where every model has a result "
                 f"(1 = best; equal scores, up to float noise, share ranks)"
                 + (f"; left out: {', '.join(left)}" if left else "") + ":")
    lines.append("")
    order = np.argsort(R, kind="stable")
    lines.append(_md_table(["model", "average rank"],
                           [[models[j], f"{R[j]:.2f}"] for j in order]))
    lines.append("")
    decision = res.decision(ALPHA)
    lines.append(_friedman_line(res, decision))
    lines += _nemenyi_lines(R, N, k, models, decision)
    png = None
    if cd_png is not None and N >= MIN_DATASETS_POSTHOC:
        try:
            fig = stats.plot_critical_difference(R, models, N, ALPHA,
                                                 title=f"{suite_name}: {metric}")
            fig.savefig(cd_png, dpi=120)
            import matplotlib.pyplot as plt

            plt.close(fig)
            png = Path(cd_png).name
            lines += ["", f"![Critical-difference diagram]({png})"]
        except ImportError as exc:
            lines.append(f"- (No CD diagram: {exc})")
    lines += ["", *_control_lines(scores, models, higher, metric)]
    return lines, png


def _p(p):
    return "-" if p is None or np.isnan(p) else f"{p:.3g}"


def _decisive_p(decision):
    """The deciding p-value as printed; a Monte Carlo p-value that no resample
    reached is the smallest the test can give and is printed as a bound."""
    match = re.search(r"Monte Carlo permutation test \((\d+) resamples\)", decision.method)
    if match and decision.pvalue * (int(match.group(1)) + 1) < 1.5:
        return f"p <= {_p(decision.pvalue)} (no resample reached the observed chi2_F)"
    return f"p = {_p(decision.pvalue)}"


def _friedman_line(res, decision):
    """Friedman's test in words: the statistics that hold for this table, and
    the p-value that decides."""
    N, k = res.n_datasets, res.n_methods
    verdict = (f"{'reject' if decision.reject else 'do not reject'} \"all models are "
               f"equivalent\" at alpha = {ALPHA}")
    p_dec = _decisive_p(decision)
    chi2 = f"Friedman chi2_F = {res.chi2:.2f} (k - 1 = {k - 1} df, corrected for ties"
    parts = []
    if res.at_limit:
        parts.append(f"chi2_F reaches its maximum N (k - 1) = {N * (k - 1)}: every dataset "
                     f"ranks the models in the same order. Iman-Davenport's F_F is undefined "
                     f"there (infinite; its limit p = 0 is not a p-value).")
    if not res.asymptotic_valid:
        line = (f"- {chi2}). With N = {N} datasets and k = {k} models the chi-square "
                f"approximation of chi2_F is not trusted (Demsar 2006, Sec. 3.2.2, gives N > 10 "
                f"and k > 5 as a rule of thumb for it; F_F is held to the same rule), so no "
                f"asymptotic p-value is given. ")
        line += " ".join(parts) + (" " if parts else "")
        line += (f"From the {decision.method} on the ranks: {p_dec}: "
                 f"{verdict}.")
        if k == 2:
            line += (" With two models this is the two-sided sign test; the table below "
                     "gives it with ties split, and the Wilcoxon signed-rank test.")
        return line
    if res.at_limit:
        return (f"- {chi2}, p = {_p(res.chi2_pvalue)}). " + " ".join(parts)
                + f" From the {decision.method} on the ranks: {p_dec}: "
                  f"{verdict}.")
    line = (f"- {chi2}, p = {_p(res.chi2_pvalue)}); Iman-Davenport F_F = {res.ff:.2f} "
            f"(F({k - 1}, {(k - 1) * (N - 1)}), p = {_p(res.ff_pvalue)})")
    if "permutation" in decision.method:
        return (line + f": the two approximations fall on either side of alpha = {ALPHA}, "
                f"so the {decision.method} on the ranks decides: {p_dec}: "
                f"{verdict}.")
    return line + f": {verdict}."


def _nemenyi_lines(R, N, k, models, decision):
    if N < MIN_DATASETS_POSTHOC:
        return [f"- Nemenyi's critical difference rests on a normal approximation of the "
                f"average ranks and is not given for N = {N} datasets (at least "
                f"{MIN_DATASETS_POSTHOC}); the exact sign tests below hold at any N."]
    cd05, cd10 = stats.nemenyi_cd(k, N, 0.05), stats.nemenyi_cd(k, N, 0.10)
    lines = [f"- Nemenyi critical difference: CD = {cd05:.2f} (alpha = 0.05), "
             f"{cd10:.2f} (alpha = 0.10)."]
    if not decision.reject:
        return lines + ["- Significantly different at alpha = 0.05 (Nemenyi): none claimed, "
                        "since Friedman's test does not reject (a post-hoc test follows a "
                        "rejection, Demsar 2006, Sec. 3.2.2)."]
    pairs = stats.nemenyi_significant_pairs(R, N, ALPHA)
    better = [f"{models[i]} > {models[j]}" for i in range(k) for j in range(k) if pairs[i, j]]
    return lines + ["- Significantly different at alpha = 0.05 (Nemenyi): "
                    + (", ".join(better) if better else "no pair") + "."]


def _control_lines(scores, models, higher, metric):
    """Win / tie / loss of every model against the first, with the sign and
    Wilcoxon tests, uncorrected and Holm-corrected for the k - 1 comparisons."""
    first, k = models[0], len(models)
    cmp = stats.compare_with_control(scores, control=0, higher_is_better=higher, alpha=ALPHA)
    rows = []
    for i, j in enumerate(cmp.others):
        sign = cmp.sign[i]
        rows.append([f"{models[j]} vs {first}", f"{sign.wins} / {sign.ties} / {sign.losses}",
                     f"{sign.critical_wins:.1f}", _p(cmp.sign_pvalue[i]), _p(cmp.sign_holm[i]),
                     _p(cmp.wilcoxon_pvalue[i]), _p(cmp.wilcoxon_holm[i])])
    family = (f"Holm-corrected for the k - 1 = {k - 1} comparisons with {first} (Holm 1979), "
              f"each test its own family: a difference is significant at alpha = {ALPHA} "
              f"where the corrected p is at most alpha" if k > 2 else
              "the same: with one comparison there is nothing to correct")
    return [f"Win / tie / loss against {first} (mean {metric} per dataset; equal scores, up to "
            f"float noise, tie), with the sign test (wins needed: N/2 + 1.96 sqrt(N)/2, "
            f"uncorrected; ties split; exact binomial p) and the Wilcoxon signed-rank test. "
            f"\"p\" columns are uncorrected; \"Holm\" columns are {family}.", "",
            _md_table(["pair", "W / T / L", "wins needed", "sign p", "sign p (Holm)",
                       "Wilcoxon p", "Wilcoxon p (Holm)"], rows)]


def warning_summary(results):
    """``[(model, dataset, count, first message)]`` of the warnings the models raised,
    in the order of the results (a pair's first message is that of its first fold
    with a warning)."""
    summary = {}
    for r in results:
        if getattr(r, "n_warnings", 0):
            count, first = summary.get((r.model, r.dataset), (0, r.first_warning))
            summary[(r.model, r.dataset)] = (count + r.n_warnings, first)
    return [(m, d, c, f) for (m, d), (c, f) in summary.items()]


def selective_summary(results, datasets=None, models=None):
    """Coverage of the selective classifiers among ``results``, per model and dataset.

    A selective classifier (a competence forest) answers some objects itself
    and leaves the others to a fallback; its plain accuracy mixes the two.
    Only successful folds with a recorded coverage count.

    Parameters
    ----------
    results : list of FoldResult
        The fold results.
    datasets, models : sequence of str, optional
        Keep only these (in this order); default every one that has a coverage.

    Returns
    -------
    list of tuple
        ``(model, dataset, n_folds, coverage, covered_accuracy, accuracy)``,
        the means over the folds (``covered_accuracy`` over the folds that
        cover some object; NaN when none does).

    Examples
    --------
    >>> from forestzoo.bench import FoldResult
    >>> from forestzoo.bench.report import selective_summary
    >>> rows = [FoldResult("iris", "CAF-vote", fold=k, accuracy=0.9, fit_seconds=0.1,
    ...                    coverage=c, covered_accuracy=0.95) for k, c in enumerate([0.2, 0.4])]
    >>> model, dataset, n, coverage, covered, accuracy = selective_summary(rows)[0]
    >>> n, round(coverage, 2), covered, accuracy
    (2, 0.3, 0.95, 0.9)
    """
    cells = {}
    for r in results:
        coverage = getattr(r, "coverage", _NAN)
        if r.ok and not math.isnan(coverage):
            cells.setdefault((r.model, r.dataset), []).append(r)
    models = _ordered(m for m, _ in cells) if models is None else list(models)
    datasets = _ordered(d for _, d in cells) if datasets is None else list(datasets)
    out = []
    for m in models:
        for d in datasets:
            folds = cells.get((m, d))
            if not folds:
                continue
            covered = [r.covered_accuracy for r in folds if not math.isnan(r.covered_accuracy)]
            out.append((m, d, len(folds), float(np.mean([r.coverage for r in folds])),
                        float(np.mean(covered)) if covered else _NAN,
                        float(np.mean([r.accuracy for r in folds]))))
    return out


def _selective_lines(results, datasets, models):
    rows = selective_summary(results, datasets, models)
    if not rows:
        return []
    def pct(v):
        return "-" if math.isnan(v) else f"{100 * v:.1f}"

    table = [[m, d, n, pct(cov), pct(cacc), pct(acc)] for m, d, n, cov, cacc, acc in rows]
    lines = ["", "## Selective classifiers: coverage and accuracy on the covered objects", "",
             "A selective classifier answers an object only inside its competence; the table above "
             "scores its answers together with its fallback's on the objects it rejects. Coverage: "
             "the share of test objects it answers itself (%); covered accuracy: its accuracy on "
             "them (%); accuracy: all answers, as in the table above.", "",
             _md_table(["model", "dataset", "folds", "coverage", "covered accuracy", "accuracy"],
                       table, ["l", "l", "r", "r", "r", "r"])]
    by_model = {}
    for m, _, _, cov, _, _ in rows:
        by_model.setdefault(m, []).append(cov)
    mostly = [(m, 1.0 - float(np.mean(c))) for m, c in by_model.items() if np.mean(c) < 0.5]
    if mostly:
        lines += [""] + [f"- **{m}: {share:.0%} of its answers come from its fallback** (mean over "
                         f"{len(by_model[m])} datasets); its accuracy above is mostly the fallback's."
                         for m, share in mostly]
    return lines


def failure_summary(results):
    """``[(model, dataset, failed folds, first error)]`` of the folds whose model raised."""
    summary = {}
    for r in results:
        if r.status.startswith("failed"):
            count, first = summary.get((r.model, r.dataset), (0, r.status[len("failed: "):]))
            summary[(r.model, r.dataset)] = (count + 1, first)
    return [(m, d, c, f) for (m, d), (c, f) in summary.items()]


def _provenance_lines(provenance):
    """The report header's versions and machine; every version set when rows mix several."""
    if not provenance:
        return []

    def shown(v):
        commit = v.get("forestzoo-commit")
        libs = ", ".join(f"{k} {val}" for k, val in v.items()
                         if k not in ("forestzoo", "forestzoo-commit") and val is not None)
        return (f"forestzoo {v.get('forestzoo')}" + (f" (git {commit})" if commit else "")
                + f", {libs}")

    lines = [f"Versions: {shown(provenance.get('versions', {}))}."]
    m = provenance.get("machine") or {}
    if m:
        lines.append(f"Machine: {m.get('platform')}, {m.get('cpu_count')} CPUs.")
    history = provenance.get("version_history") or []
    if len(history) > 1:
        lines.append(f"The results file holds rows made with {len(history)} version sets "
                     f"(resumed with --allow-version-change); earlier: "
                     + "; ".join(shown(v) for v in history[:-1]) + ".")
    return ["", " ".join(lines)]


def format_report(results, title=None, suite=None, models=None, datasets=None,
                  paper_dir=None, cd_png=None, command=None, protocol=None, provenance=None):
    """Render the Markdown report of ``results`` (a list of FoldResult).

    Parameters
    ----------
    results : list of FoldResult
        The fold results.
    title : str, optional
        The report's title; default "forestzoo bench".
    suite : Suite, optional
        Chooses the metric and the paper tables; default accuracy, no tables.
    models : sequence of str, optional
        Column order; default the order of appearance.
    datasets : sequence of str, optional
        Row order; default the order of appearance.
    paper_dir : str or path-like, optional
        Directory of the papers' tables.
    cd_png : str or path-like, optional
        Where the critical-difference diagram is written (none when None).
    command : str, optional
        The command line, printed under the title.
    protocol : str, optional
        The protocol's description, printed under the title.
    provenance : dict, optional
        ``BenchRun.provenance`` (versions and machine), printed under the title.

    Returns
    -------
    str
        The Markdown text.

    Examples
    --------
    >>> from forestzoo.bench import FoldResult, format_report
    >>> results = [FoldResult("iris", "RaF", fold=0, accuracy=0.96, fit_seconds=0.1, n_test=50)]
    >>> format_report(results, title="iris").splitlines()[0]
    '# iris'
    """
    metric = suite.metric if suite is not None else "accuracy"
    higher = METRICS[metric][1]
    s = summarize(results, metric, datasets, models)
    datasets, models, mean, std = s["datasets"], s["models"], s["mean"], s["std"]
    figures = paper_figures(suite, datasets, models, paper_dir)
    paper_models = [m for m in models if any((d, m) in figures for d in datasets)]
    unit = " (%)" if metric in _PERCENT else ""
    parts = [f"# {title}" if title else "# forestzoo bench"]
    if command:
        parts += ["", f"Command: `{command}`"]
    if protocol:
        parts += ["", protocol]
    parts += _provenance_lines(provenance)
    header = ["dataset", "n", "d", "classes"]
    for m in models:
        header.append(m)
        if m in paper_models:
            header.append(f"{m} (paper)")
    rows = []
    for i, d in enumerate(datasets):
        info = get_dataset_info(d)
        finite = mean[i][~np.isnan(mean[i])]
        best = (finite.max() if higher else finite.min()) if finite.size else None
        row = [d, info.n_samples, info.n_features, info.n_classes or "-"]
        for j, m in enumerate(models):
            n_failed = int(s["n_failed"][i, j])
            if np.isnan(mean[i, j]):
                cell = (f"FAILED ({n_failed} folds)" if n_failed else
                        "skipped" if s["n_skipped"][i, j] else "-")
            else:
                cell = f"{_fmt(mean[i, j], metric)} ± {_fmt(std[i, j], metric)}"
                if (best is not None and finite.size > 1
                        and abs(mean[i, j] - best) <= stats.RTOL * np.abs(finite).max()):
                    cell = f"**{cell}**"
                if s["partial"][i, j]:
                    n_all = s["n_ok"][i, j] + s["n_failed"][i, j] + s["n_skipped"][i, j]
                    cell += f" ({int(s['n_ok'][i, j])}/{int(n_all)} folds" + (
                        f"; FAILED {n_failed})" if n_failed else ")")
            row.append(cell)
            if m in paper_models:
                row.append(_fmt(figures.get((d, m)), metric))
        rows.append(row)
    parts += ["", f"## Test {metric}{unit}: mean ± std over folds (bold: best on the dataset; "
                  f"FAILED: folds where the model raised, see below)",
              "", _md_table(header, rows)]
    if paper_models:
        files = ", ".join(suite.paper_tables)
        parts += ["", f"Paper columns: the figure printed in {files} (shared/paper_tables), "
                      f"under the paper's protocol and its versions of the data."]
        for j, m in enumerate(models):
            rows_ = [(d, mean[i, j], std[i, j], figures[(d, m)]) for i, d in enumerate(datasets)
                     if (d, m) in figures and not np.isnan(mean[i, j])]
            if not rows_:
                continue
            names = [r[0] for r in rows_]
            ours, sd, paper = (np.array([r[k] for r in rows_]) for k in (1, 2, 3))
            diff = ours - paper
            close = int(np.sum(np.abs(diff) <= sd))
            gaps = ", ".join(f"{names[i]} {diff[i]:+.2f}"
                             for i in np.argsort(-np.abs(diff), kind="stable")[:3])
            parts.append(f"- {m} minus paper: mean {diff.mean():+.2f}, median |difference| "
                         f"{np.median(np.abs(diff)):.2f} over {len(diff)} datasets; within "
                         f"one fold-std of ours on {close}; largest gaps: {gaps}.")
    parts += _selective_lines(results, datasets, models)
    ranked = np.where(s["partial"], np.nan, mean)
    stat_lines, _ = _stats_section(ranked, datasets, models, higher, metric, cd_png,
                                   suite.name if suite is not None else "bench")
    parts += ["", "## Ranks and tests", ""] + stat_lines
    time_rows = []
    for j, m in enumerate(models):
        n_ok = s["n_ok"][:, j].sum()
        fit, pred = s["fit"][:, j].sum(), s["predict"][:, j].sum()
        time_rows.append([m, int(n_ok), f"{fit:.1f}", f"{pred:.1f}",
                          f"{fit / n_ok:.3f}" if n_ok else "-"])
    parts += ["", "## Wall time per model (seconds; noisy on a shared machine)", "",
              _md_table(["model", "folds run", "fit total", "predict total",
                         "fit per fold"], time_rows)]
    problems = [r for r in results if not r.ok and r.dataset in datasets and r.model in models]
    if problems:
        seen = {}
        for r in problems:
            seen.setdefault((r.model, r.status), []).append(r.dataset)
        parts += ["", "## Failed or skipped", ""]
        parts += [f"- {m}: {status} ({', '.join(_ordered(ds))})"
                  for (m, status), ds in seen.items()]
    caught = [w for w in warning_summary(results) if w[0] in models and w[1] in datasets]
    if caught:
        parts += ["", "## Warnings", "",
                  f"{sum(w[2] for w in caught)} warnings, raised by the models while fitting and "
                  f"predicting (each distinct message is in warnings.log); a model's scores are "
                  f"shown as measured, whatever it warned:", "",
                  _md_table(["model", "dataset", "warnings", "first message"],
                            [[m, d, c, _cell(f)] for m, d, c, f in caught], ["l", "l", "r", "l"])]
    return "\n".join(parts) + "\n"


def _cell(text, width=200):
    """Text fit for one Markdown table cell: no pipes or line breaks, at most ``width`` characters."""
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= width else text[:width - 3] + "..."


def write_report(run, command=None, paper_dir=None, data_home=None):
    """Write ``report.md`` (and ``cd_diagram.png``) into ``run.out``; return the text.

    Parameters
    ----------
    run : BenchRun
        What :func:`run_suite` returned.
    command : str, optional
        The command line, printed under the title.
    paper_dir : str or path-like, optional
        Directory of the papers' tables (see :func:`find_paper_tables`).
    data_home : str or path-like, optional
        The data directory, beside which the paper tables may lie.

    Returns
    -------
    str
        The Markdown text of the report.

    Examples
    --------
    >>> import tempfile
    >>> from forestzoo.bench import run_suite, write_report
    >>> run = run_suite("quick", models=["RaF"], datasets=["iris"], n_estimators=5, n_jobs=1,
    ...                 out=tempfile.mkdtemp())
    >>> write_report(run).splitlines()[0]
    '# forestzoo bench: suite quick'
    """
    suite = run.suite
    paper_dir = find_paper_tables(paper_dir, data_home)
    n_parts = f"{suite.folds}-fold CV" if suite.protocol == "cv" else (
        "official train/test split (2/3-1/3 holdout where none)"
        if suite.protocol == "official" else f"holdout ({suite.test_size:.0%} test)")
    protocol = (f"Protocol: {suite.repeats} x {n_parts}, {suite.describe_trees()} trees per "
                f"ensemble, preprocess = {suite.preprocess or 'none'}, n_jobs = {run.n_jobs}, "
                f"random_state = {run.random_state}, time budget = "
                f"{'none' if suite.time_budget_s is None else f'{suite.time_budget_s:g} s'}; "
                f"{os.cpu_count()} CPUs seen."
                + (f" Test rows transformed by {suite.test_transform!r} (training rows clean)."
                   if suite.test_transform is not None else "")
                + (f" {suite.notes}" if suite.notes else ""))
    # the report covers every model in the results file, this run's first
    models = list(run.models) + [m for m in _ordered(r.model for r in run.results)
                                 if m not in run.models]
    cd_png = run.out / "cd_diagram.png" if run.out is not None else None
    text = format_report(run.results, title=f"forestzoo bench: suite {suite.name}",
                         suite=suite, models=models, datasets=list(run.datasets),
                         paper_dir=paper_dir, cd_png=cd_png, command=command,
                         protocol=protocol, provenance=getattr(run, "provenance", None))
    if run.out is not None:
        (run.out / "report.md").write_text(text, encoding="utf-8")
    return text
