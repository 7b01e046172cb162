"""
==============================================================
Comparing forests over datasets: a critical-difference diagram
==============================================================

``forestzoo bench`` compares models the way the papers of the zoo do
(Demšar, "Statistical comparisons of classifiers over multiple data sets",
2006): every model on the same cross-validation splits of every dataset,
average ranks, Friedman's test and the Nemenyi critical difference (CD).
:func:`forestzoo.bench.run_suite` is the Python face of the command.

This example runs a small version of the ``quick`` suite -- four models, six
bundled datasets, 3-fold cross-validation, 20 trees -- and draws the
critical-difference diagram with :func:`forestzoo.stats.plot_critical_difference`:
models joined by a bar are not significantly different at alpha = 0.05. With
so few datasets the CD is wide; the full suites in ``docs/results/`` use 10 x
3-fold CV on tens of datasets.
"""

import matplotlib.pyplot as plt

from forestzoo.bench import average_ranks, run_suite, summarize
from forestzoo.stats import friedman_test, plot_critical_difference

run = run_suite(
    "quick",
    models=["RaF", "ET", "DT", "RoF"],
    datasets=["iris", "wine", "seeds", "sonar", "glass", "ionosphere"],
    folds=3,
    repeats=1,
    n_estimators=20,
    n_jobs=2,
    warm_up=False,
)
table = summarize(run.results)
print("datasets:", table["datasets"])
print("models:  ", table["models"])
print("mean accuracy (%):")
print(table["mean"].round(1))

ranks = average_ranks(table["mean"])
print("average ranks:", {name: round(float(r), 2) for name, r in zip(table["models"], ranks)})
print(friedman_test(table["mean"]))

fig = plot_critical_difference(ranks, table["models"], n_datasets=len(table["datasets"]),
                               title="3-fold CV, 6 bundled datasets")
plt.show()
