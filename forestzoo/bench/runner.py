"""Cross-validate registered models on registered datasets."""

import time
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold

from ..datasets import get_dataset_info, load_dataset
from .registry import get_model, make_model

__all__ = ["DEFAULT_DATASETS", "DEFAULT_MODELS", "FoldResult", "load_suite", "run_benchmark"]

#: Small bundled classification datasets: the whole default run takes about a
#: minute on two cores.
DEFAULT_DATASETS = ("iris", "wine", "breast_cancer_wisconsin_diag", "ionosphere",
                    "sonar", "vehicle")
DEFAULT_MODELS = ("RaF", "ET", "sk-RF", "sk-ET")


@dataclass(frozen=True)
class FoldResult:
    """The score of one model on one test fold."""

    dataset: str
    model: str
    fold: int
    accuracy: float
    fit_seconds: float


def load_suite(datasets, models, cv=5, data_home=None):
    """Check the names and ``cv``, then load every dataset.

    This is the part of :func:`run_benchmark` that can fail on bad input, so
    that the command line can report such errors before any model is fitted.

    Returns
    -------
    dict
        Dataset name -> ``(X, y)``, in the order given.

    Raises
    ------
    ValueError
        An unknown name, a regression dataset, a bad ``cv``, or a data file
        whose checksum does not match.
    FileNotFoundError
        A non-bundled dataset whose file is not in the data directory.
    """
    if not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}.")
    if len(datasets) == 0 or len(models) == 0:
        raise ValueError("Give at least one dataset and one model.")
    for name in models:
        get_model(name)
    for name in datasets:
        info = get_dataset_info(name)
        if info.task != "classification":
            raise ValueError(f"Dataset {name!r} is a {info.task} task; "
                             f"forestzoo bench scores classification datasets only.")
    return {name: load_dataset(name, data_home=data_home) for name in datasets}


def run_benchmark(datasets=DEFAULT_DATASETS, models=DEFAULT_MODELS, *, n_estimators=100,
                  cv=5, n_jobs=2, random_state=0, data_home=None, on_result=None,
                  data=None):
    """Score every model on every dataset with stratified k-fold CV.

    All models see the same folds (``StratifiedKFold(cv, shuffle=True,
    random_state=random_state)``). Each model is first fitted once, untimed, on
    a small slice of the first dataset, so one-off costs such as JIT
    compilation do not count as fit time.

    Parameters
    ----------
    datasets, models : sequence of str
        Names from ``forestzoo.datasets.list_datasets()`` and
        ``forestzoo.bench.registry.MODELS``. All are checked, and all datasets
        loaded, before any model is fitted.
    n_estimators, n_jobs, random_state
        Passed to every model factory.
    cv : int
        Number of folds (at least 2).
    data_home : str or path-like, optional
        Data directory for non-bundled datasets (default ``$FORESTZOO_DATA``).
    on_result : callable, optional
        Called with each :class:`FoldResult` as soon as it exists.
    data : dict, optional
        What :func:`load_suite` returned for these arguments, to skip loading.

    Returns
    -------
    list of FoldResult
    """
    if data is None:
        data = load_suite(datasets, models, cv, data_home)
    params = dict(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)

    X0, y0 = data[datasets[0]]
    warm = np.random.default_rng(0).permutation(len(y0))[:100]
    for name in models:
        make_model(name, **params).fit(X0[warm], y0[warm])

    results = []
    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    for dataset in datasets:
        X, y = data[dataset]
        splits = list(folds.split(X, y))
        for name in models:
            for fold, (train, test) in enumerate(splits):
                model = make_model(name, **params)
                start = time.perf_counter()
                model.fit(X[train], y[train])
                seconds = time.perf_counter() - start
                accuracy = accuracy_score(y[test], model.predict(X[test]))
                result = FoldResult(dataset, name, fold, float(accuracy), seconds)
                results.append(result)
                if on_result is not None:
                    on_result(result)
    return results
