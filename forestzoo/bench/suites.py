"""The generic benchmark suites: ``quick`` (the default) and ``lecture-uci``.

Families register the suites of their own papers in :mod:`forestzoo.bench.models`;
these two belong to no family.  This module defines them (:data:`GENERIC_SUITES`)
without registering them: :mod:`forestzoo.bench.registry` registers them before
the families' own, so this module does not import the registry.
"""

from ..datasets._registry import REGISTRY
from ._protocol import Suite

__all__ = ["GENERIC_SUITES", "QUICK_DATASETS", "LECTURE_DATASETS"]

#: Small bundled classification datasets (at most ~850 rows): binary and
#: multi-class, few and many features. Ordered small to large, so that a model
#: that runs out of its time budget misses the largest ones.
QUICK_DATASETS = ("iris", "wine", "seeds", "sonar", "glass", "ionosphere",
                  "breast_cancer_wisconsin_diag", "vehicle")

#: Every dataset of the lecture's MPSVM table (shared/paper_tables/lecture_datasets.csv)
#: that is registered; "segment" and "Statlog-segment" are the same data.
LECTURE_DATASETS = tuple(sorted(
    (name for name, info in REGISTRY.items() if "lecture_datasets.csv" in info.tables),
    key=lambda n: (REGISTRY[n].n_samples * REGISTRY[n].n_features, n)))

QUICK = Suite(
    name="quick",
    description="every registered classification model (quick=True) on 8 small bundled "
                "datasets, 3-fold CV x 1, 50 trees; measured on a 2-core x86-64 Linux machine "
                "shared with other work (load average 14): 3.5 min with a warm Numba cache, "
                "7 min with a cold one",
    datasets=QUICK_DATASETS,
    models=(),
    protocol="cv", folds=3, repeats=1, n_estimators=50,
    time_budget_s=240.0,
    notes="Models share the time budget of timed fits and predictions evenly; one that uses "
          "up its share is skipped on the remaining (largest) datasets, and the report says "
          "so. The untimed warm-up fits (Numba compilation on a cold cache) do not count.",
)

LECTURE_UCI = Suite(
    name="lecture-uci",
    description="the lecture's MPSVM protocol: 10 x 3-fold stratified CV, ensembles of 50 "
                "trees, on every dataset of its table available offline; RaF and ET took 16 min "
                "on a 2-core machine shared with other jobs (docs/results/lecture-uci-raf-et)",
    datasets=LECTURE_DATASETS,
    models=("RaF", "ET"),
    protocol="cv", folds=3, repeats=10, n_estimators=50,
    paper_table=("lecture_mpsvm_raf.csv", "lecture_mpsvm_rof.csv", "lecture_mpsvm_rrof.csv"),
    notes="Data-directory datasets need --data-home (or FORESTZOO_DATA); missing values "
          "(mammographic_masses, ozone_8hr) are left as NaN for the models to handle.",
)

#: The suites of no family, registered before the families' own.
GENERIC_SUITES = (QUICK, LECTURE_UCI)
