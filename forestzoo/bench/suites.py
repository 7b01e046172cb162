"""What a benchmark suite is (:class:`Suite`), and the generic suites.

A suite names datasets, models and a protocol.  This module defines the
:class:`Suite` record, the protocols, preprocessings and metrics it accepts,
and the two suites that belong to no family: ``quick`` (the default) and
``lecture-uci`` (:data:`GENERIC_SUITES`).  It imports nothing of the
registry: :mod:`forestzoo.bench.registry` registers these suites, and
families register the suites of their own papers in
:mod:`forestzoo.bench.models`.
"""

from dataclasses import dataclass, field
from typing import Callable

from ..datasets._registry import REGISTRY

__all__ = ["Suite", "GENERIC_SUITES", "QUICK_DATASETS", "LECTURE_DATASETS", "METRICS", "PERCENT_METRICS",
           "PROTOCOLS", "PREPROCESS"]

PROTOCOLS = ("cv", "holdout", "official")
PREPROCESS = (None, "zscore")
#: metric -> (task, higher is better)
METRICS = {"accuracy": ("classification", True), "error": ("classification", False),
           "r2": ("regression", True), "mae": ("regression", False),
           "rmse": ("regression", False), "nl1_error": ("regression", False)}
#: metrics stored as fractions and reported in percent
PERCENT_METRICS = ("accuracy", "error", "nl1_error")


@dataclass(frozen=True)
class Suite:
    """A benchmark protocol: which models on which datasets, and how they are scored.

    protocol
        ``"cv"``: ``repeats`` x stratified ``folds``-fold cross-validation;
        ``"holdout"``: ``repeats`` random stratified splits with ``test_size``
        of the rows held out; ``"official"``: the dataset's official
        train/test split (datasets without one fall back to ``"holdout"``),
        repeated ``repeats`` times with different model seeds.
    n_estimators, n_estimators_by_dataset
        Trees per ensemble, and the datasets that have their own size (a
        paper's per-dataset forests; :meth:`trees`).  ``--n-estimators`` on
        the command line sets one size for every dataset.
    preprocess
        ``None`` or ``"zscore"`` (standardise with the training part's mean
        and standard deviation, as the DNRF paper does).
    validation_fraction
        Fraction of the training part that the protocol keeps aside for
        models that tune on a validation set (0: none); models receive all
        training rows and split them themselves, this is documentation.
    metric
        What the report tabulates and ranks: ``"accuracy"`` or ``"error"``
        (classification, in percent), ``"r2"``, ``"mae"``, ``"rmse"`` or
        ``"nl1_error"`` (regression; the L1 error normalised by the ground
        truth, ``sum|y - y_hat| / sum|y|``, in percent, Hibino et al. 2017,
        Section 4.2). Every fold records all the metrics of its task; ranks
        treat lower as better for the errors.
    paper_table
        File (or tuple of files) in ``shared/paper_tables`` whose figures the
        report prints beside ours, found by dataset name (the registry's
        ``paper_names``) and model name (or ``paper_names[model]``).
    models
        ``()`` means every registered model of the suite's task whose
        ``quick`` flag is set, resolved when the suite runs.
    time_budget_s
        Seconds of fitting and predicting (the untimed warm-up fit, which
        pays for compilation, included) the whole run may spend, shared
        evenly by the models; a model that has used its share when a dataset
        starts is skipped on that dataset and the rest (recorded as skipped).
        ``None``: no limit.
    paper_names
        Model name -> the column name the paper table uses for it.
    test_transform
        ``None``, or a callable ``f(X_train, X_test, random_state) -> X_test``
        applied to every test part (after ``preprocess``; training rows stay
        clean) with the fold's model seed, once per fold, so every model sees
        the same transformed rows. The ``denoising`` suite corrupts test rows
        with it. Its ``repr`` is recorded in ``run.json``: a run resumes only
        with the same transform, so give it a ``repr`` that names its settings
        (a dataclass does).
    with_test_noise
        ``None``, or ``f(fraction) -> Suite``: the same protocol with its test
        rows corrupted at another noise level (``forestzoo bench
        --noise-fraction``); the ``denoising`` suite has one.
    """

    name: str
    description: str
    datasets: tuple
    models: tuple
    protocol: str = "cv"
    folds: int = 3
    repeats: int = 1
    test_size: float = 1 / 3
    n_estimators: int = 100
    n_estimators_by_dataset: dict = field(default_factory=dict, hash=False)
    preprocess: str | None = None
    validation_fraction: float = 0.0
    metric: str = "accuracy"  # "accuracy" for classification, "r2" or "mae" for regression
    paper_table: str | tuple | None = None
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    time_budget_s: float | None = None
    paper_names: dict = field(default_factory=dict, compare=False, hash=False)
    test_transform: Callable | None = field(default=None, hash=False)
    with_test_noise: Callable | None = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self):
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"Suite {self.name!r}: protocol must be one of {PROTOCOLS}, got {self.protocol!r}.")
        if self.preprocess not in PREPROCESS:
            raise ValueError(f"Suite {self.name!r}: preprocess must be one of {PREPROCESS}, "
                             f"got {self.preprocess!r}.")
        if self.metric not in METRICS:
            raise ValueError(f"Suite {self.name!r}: metric must be one of {tuple(METRICS)}, "
                             f"got {self.metric!r}.")
        for dataset, trees in self.n_estimators_by_dataset.items():
            if not isinstance(trees, int) or isinstance(trees, bool) or trees < 1:
                raise ValueError(f"Suite {self.name!r}: n_estimators_by_dataset[{dataset!r}] must be an integer "
                                 f">= 1, got {trees!r}.")
        if self.test_transform is not None and not callable(self.test_transform):
            raise ValueError(f"Suite {self.name!r}: test_transform must be None or a callable "
                             f"f(X_train, X_test, random_state), got {self.test_transform!r}.")

    def trees(self, dataset):
        """Trees per ensemble on ``dataset``: its entry of ``n_estimators_by_dataset``, else ``n_estimators``."""
        return self.n_estimators_by_dataset.get(dataset, self.n_estimators)

    def describe_trees(self):
        """``"20"``, or ``"20 (concrete 15, music_origin 35)"`` when some datasets have their own size."""
        if not self.n_estimators_by_dataset:
            return f"{self.n_estimators}"
        own = ", ".join(f"{d} {n}" for d, n in sorted(self.n_estimators_by_dataset.items()))
        return f"{self.n_estimators} ({own})"

    @property
    def task(self):
        """``"classification"`` or ``"regression"``, from the metric."""
        return METRICS[self.metric][0]

    @property
    def paper_tables(self):
        """``paper_table`` as a tuple of file names."""
        if self.paper_table is None:
            return ()
        return (self.paper_table,) if isinstance(self.paper_table, str) else tuple(self.paper_table)


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
