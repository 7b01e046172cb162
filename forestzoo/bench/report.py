"""Plain-text tables of benchmark results: accuracy, fit time, average ranks."""

import numpy as np
from scipy.stats import rankdata

from ..datasets import get_dataset_info

__all__ = ["summarize", "average_ranks", "format_report"]


def _ordered(values):
    return list(dict.fromkeys(values))


def summarize(results):
    """Aggregate fold results.

    Returns
    -------
    datasets, models : list of str
        In order of first appearance.
    acc_mean, acc_std, fit_mean : ndarray of shape (n_datasets, n_models)
        Mean and standard deviation of test accuracy over folds, and mean fit
        seconds per fold; NaN where a (dataset, model) pair has no result.
    """
    datasets = _ordered(r.dataset for r in results)
    models = _ordered(r.model for r in results)
    shape = (len(datasets), len(models))
    acc_mean, acc_std, fit_mean = (np.full(shape, np.nan) for _ in range(3))
    for i, d in enumerate(datasets):
        for j, m in enumerate(models):
            rows = [r for r in results if r.dataset == d and r.model == m]
            if rows:
                acc = np.array([r.accuracy for r in rows])
                acc_mean[i, j], acc_std[i, j] = acc.mean(), acc.std()
                fit_mean[i, j] = np.mean([r.fit_seconds for r in rows])
    return datasets, models, acc_mean, acc_std, fit_mean


def average_ranks(scores):
    """Average rank of each column over rows; rank 1 is the highest score.

    Ties share the mean of the ranks they span (Demsar 2006, Sec. 3.2.2).
    Rows with a missing score are left out.
    """
    scores = np.asarray(scores, dtype=float)
    complete = scores[~np.isnan(scores).any(axis=1)]
    if len(complete) == 0:
        return np.full(scores.shape[1], np.nan)
    return np.mean([rankdata(-row) for row in complete], axis=0)


def _table(header, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    def line(cells):
        first = str(cells[0]).ljust(widths[0])
        return "  ".join([first] + [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:])])
    rule = "-" * len(line(header))
    return "\n".join([line(header), rule] + [line(r) for r in rows])


def format_report(results, title=None):
    """Render accuracy (mean (std), best per row starred), fit time and ranks."""
    datasets, models, acc_mean, acc_std, fit_mean = summarize(results)
    n_folds = len({r.fold for r in results})
    info = {d: get_dataset_info(d) for d in datasets}

    acc_rows = []
    for i, d in enumerate(datasets):
        best = np.nanmax(acc_mean[i])
        cells = [f"{m:.4f} ({s:.4f}){'*' if m == best else ' '}" if not np.isnan(m) else "-"
                 for m, s in zip(acc_mean[i], acc_std[i])]
        acc_rows.append([d, info[d].n_samples, info[d].n_features, info[d].n_classes] + cells)
    ranks = average_ranks(acc_mean)
    acc_rows.append(["average rank", "", "", ""] + [f"{r:.2f} " for r in ranks])

    fit_rows = [[d] + [f"{t:.3f}" for t in fit_mean[i]] for i, d in enumerate(datasets)]
    fit_rows.append(["total"] + [f"{t:.3f}" for t in np.nansum(fit_mean, axis=0)])

    parts = [title] if title else []
    parts += [
        f"Test accuracy, mean (std) over {n_folds} folds; * = best on the dataset",
        _table(["dataset", "n", "d", "classes"] + models, acc_rows),
        "",
        "Fit time, seconds per fold (mean)",
        _table(["dataset"] + models, fit_rows),
        "",
        "Average rank (1 = most accurate): "
        + ", ".join(f"{m} {r:.2f}" for m, r in sorted(zip(models, ranks), key=lambda t: t[1])),
    ]
    return "\n".join(parts)
