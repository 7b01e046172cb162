"""What a benchmark suite is: the :class:`Suite` record and the protocols, preprocessings and
metrics it accepts.

It imports nothing of forestzoo, so that the registry (:mod:`forestzoo.bench.registry`), the
generic suites (:mod:`forestzoo.bench.suites`) and the families' registrations can all build on it
without importing one another, and ``forestzoo --help`` stays free of numpy.
"""

from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Suite", "METRICS", "PERCENT_METRICS", "PROTOCOLS", "PREPROCESS"]

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

    Parameters
    ----------
    name : str
        The registry name.
    description : str
        One line describing the suite.
    datasets : tuple of str
        The datasets' registry names.
    models : tuple of str
        The models' names; ``()`` means every registered model of the
        suite's task whose ``quick`` flag is set, resolved when the suite runs.
    protocol : {"cv", "holdout", "official"}, default="cv"
        ``"cv"``: ``repeats`` x stratified ``folds``-fold cross-validation;
        ``"holdout"``: ``repeats`` random stratified splits with ``test_size``
        of the rows held out; ``"official"``: the dataset's official
        train/test split (datasets without one fall back to ``"holdout"``),
        repeated ``repeats`` times with different model seeds.
    folds : int, default=3
        Folds of the cross-validation.
    repeats : int, default=1
        Repetitions of the protocol.
    test_size : float, default=1/3
        Share of the rows held out by ``"holdout"``.
    n_estimators : int, default=100
        Trees per ensemble.  ``--n-estimators`` on the command line sets one
        size for every dataset.
    n_estimators_by_dataset : dict, default={}
        The datasets that have their own size (a paper's per-dataset
        forests; :meth:`trees`).
    preprocess : {None, "zscore"}, default=None
        ``None`` or ``"zscore"`` (standardise with the training part's mean
        and standard deviation, as the DNRF paper does).
    validation_fraction : float, default=0.0
        Fraction of the training part that the protocol keeps aside for
        models that tune on a validation set (0: none); models receive all
        training rows and split them themselves, this is documentation.
    metric : str, default="accuracy"
        What the report tabulates and ranks: ``"accuracy"`` or ``"error"``
        (classification, in percent), ``"r2"``, ``"mae"``, ``"rmse"`` or
        ``"nl1_error"`` (regression; the L1 error normalised by the ground
        truth, ``sum|y - y_hat| / sum|y|``, in percent, Hibino et al. 2017,
        Section 4.2). Every fold records all the metrics of its task; ranks
        treat lower as better for the errors.
    paper_table : str, tuple of str or None, default=None
        File (or tuple of files) in ``shared/paper_tables`` whose figures the
        report prints beside ours, found by dataset name (the registry's
        ``paper_names``) and model name (or ``paper_names[model]``).
    notes : str, default=""
        Remarks printed in the report.
    extra : dict, default={}
        Further settings recorded with the suite.
    time_budget_s : float or None, default=None
        Seconds of fitting and predicting (the untimed warm-up fit, which
        pays for compilation, included) the whole run may spend, shared
        evenly by the models; a model that has used its share when a dataset
        starts is skipped on that dataset and the rest (recorded as skipped).
        ``None``: no limit.
    paper_names : dict, default={}
        Model name -> the column name the paper table uses for it.
    test_transform : callable or None, default=None
        ``None``, or a callable ``f(X_train, X_test, random_state) -> X_test``
        applied to every test part (after ``preprocess``; training rows stay
        clean) with the fold's model seed, once per fold, so every model sees
        the same transformed rows. The ``denoising`` suite corrupts test rows
        with it. Its ``repr`` is recorded in ``run.json``: a run resumes only
        with the same transform, so give it a ``repr`` that names its settings
        (a dataclass does).
    with_test_noise : callable or None, default=None
        ``None``, or ``f(fraction) -> Suite``: the same protocol with its test
        rows corrupted at another noise level (``forestzoo bench
        --noise-fraction``); the ``denoising`` suite has one.

    Examples
    --------
    >>> from forestzoo.bench import Suite
    >>> suite = Suite("mine", "two forests on iris", datasets=("iris",), models=("RaF", "ET"),
    ...               n_estimators=50, n_estimators_by_dataset={"wine": 20})
    >>> suite.task, suite.trees("iris"), suite.trees("wine")
    ('classification', 50, 20)
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
        """Give the trees per ensemble on ``dataset``.

        Parameters
        ----------
        dataset : str
            A dataset's registry name.

        Returns
        -------
        int
            Its entry of ``n_estimators_by_dataset``, else ``n_estimators``.
        """
        return self.n_estimators_by_dataset.get(dataset, self.n_estimators)

    def describe_trees(self):
        """Describe the ensemble sizes for the report.

        Returns
        -------
        str
            ``"20"``, or ``"20 (concrete 15, music_origin 35)"`` when some
            datasets have their own size.
        """
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
