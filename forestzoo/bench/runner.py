"""Run a benchmark suite: every model on the same splits, each fold's result
appended to ``results.csv`` as soon as it exists, so that an interrupted run
resumes where it stopped and never loses a finished result."""

import csv
import json
import math
import os
import time
import warnings
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, mean_absolute_error, mean_squared_error, r2_score
from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

from ..datasets import get_dataset_info
from ..datasets._base import check_files, load_with_parts
from ..datasets._user import dataset_from_spec, is_data_spec
from .provenance import machine, version_changes, versions
from .registry import Suite, get_model, get_suite, make_model, resolve_models

__all__ = ["DEFAULT_DATASETS", "DEFAULT_MODELS", "FoldResult", "BenchRun", "run_suite",
           "run_benchmark", "load_suite", "read_results"]

#: The quick suite's datasets and the reference models, kept for the Python API.
DEFAULT_DATASETS = ("iris", "wine", "breast_cancer_wisconsin_diag", "ionosphere",
                    "sonar", "vehicle")
DEFAULT_MODELS = ("RaF", "ET", "sk-RF", "sk-ET")

_NAN = float("nan")
#: Settings that must agree for a run to resume from an existing results.csv.
_RESUME_KEYS = ("suite", "protocol", "folds", "repeats", "test_size", "n_estimators",
                "n_estimators_by_dataset", "preprocess", "random_state", "test_transform",
                "user_datasets")


@dataclass(frozen=True)
class FoldResult:
    """One model on one test part: one row of ``results.csv``.

    ``status`` is ``"ok"``, ``"failed: <error>"`` (the model raised; scores are
    NaN) or ``"skipped: time budget"``. ``n_warnings`` counts the warnings the
    model raised while fitting and predicting, ``first_warning`` is the first.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    model : str
        The model's name.
    fold : int
        The test part within the repeat.
    accuracy : float
        Accuracy on the test part (classification; NaN otherwise).
    fit_seconds : float
        Seconds of ``fit``.
    repeat : int, default=0
        The repetition of the protocol.
    suite : str, default=""
        The suite's name.
    status : str, default="ok"
        See above.
    predict_seconds : float, default=0.0
        Seconds of the prediction.
    n_train : int, default=0
        Training rows.
    n_test : int, default=0
        Test rows.
    error : float, default=nan
        Error rate (classification).
    r2 : float, default=nan
        Coefficient of determination (regression).
    mae : float, default=nan
        Mean absolute error (regression).
    rmse : float, default=nan
        Root mean squared error (regression).
    nl1_error : float, default=nan
        ``sum|y - y_hat| / sum|y|`` (regression).
    n_estimators : int, default=0
        Trees per ensemble.
    random_state : int, default=0
        The model's seed.
    params : str, default=""
        The model's parameters as text.
    n_warnings : int, default=0
        Warnings raised by the model.
    first_warning : str, default=""
        The first of them.
    coverage : float, default=nan
        For a selective classifier (a model with ``selective_report``, e.g. a
        competence forest): the share of test objects it answers itself; the
        others are answered by its fallback.  NaN for other models.
    covered_accuracy : float, default=nan
        Its accuracy on the objects it covers (NaN when it covers none).

    Examples
    --------
    >>> from forestzoo.bench import FoldResult
    >>> row = FoldResult("iris", "RaF", fold=0, accuracy=0.96, fit_seconds=0.1, n_test=50)
    >>> row.ok, row.score("accuracy")
    (True, 0.96)
    """

    dataset: str
    model: str
    fold: int
    accuracy: float
    fit_seconds: float
    repeat: int = 0
    suite: str = ""
    status: str = "ok"
    predict_seconds: float = 0.0
    n_train: int = 0
    n_test: int = 0
    error: float = _NAN
    r2: float = _NAN
    mae: float = _NAN
    rmse: float = _NAN
    nl1_error: float = _NAN
    n_estimators: int = 0
    random_state: int = 0
    params: str = ""
    n_warnings: int = 0
    first_warning: str = ""
    coverage: float = _NAN
    covered_accuracy: float = _NAN

    @property
    def key(self):
        return (self.dataset, self.model, self.repeat, self.fold)

    @property
    def ok(self):
        return self.status == "ok"

    def score(self, metric):
        """The value of ``metric`` (see ``forestzoo.bench.registry.METRICS``).

        Parameters
        ----------
        metric : str
            A key of ``METRICS``, e.g. "accuracy" or "r2".

        Returns
        -------
        float
            The fold's value of that metric.
        """
        return getattr(self, metric)


FIELDS = ["suite", "dataset", "model", "repeat", "fold", "status", "n_train", "n_test",
          "accuracy", "error", "r2", "mae", "rmse", "nl1_error", "fit_seconds",
          "predict_seconds", "n_estimators", "random_state", "params", "n_warnings",
          "first_warning", "coverage", "covered_accuracy"]
#: Columns added after results files were first written: a file without them still
#: reads (as their defaults), and is rewritten with them when a run resumes into it.
_ADDED_FIELDS = ("nl1_error", "n_warnings", "first_warning", "coverage", "covered_accuracy")
_DEFAULTS = {f.name: f.default for f in fields(FoldResult)}
_TYPES = {f.name: f.type for f in fields(FoldResult)}


def _to_row(result):
    row = asdict(result)
    return {k: ("" if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


def _from_row(row):
    values = {}
    for name in FIELDS:
        raw = row.get(name, "") if name in _ADDED_FIELDS else row[name]
        kind = _TYPES[name]
        if raw == "" and name in _ADDED_FIELDS:
            values[name] = _DEFAULTS[name]
        elif kind in (float, "float"):
            values[name] = float(raw) if raw != "" else _NAN
        elif kind in (int, "int"):
            values[name] = int(raw)
        else:
            values[name] = raw
    return FoldResult(**values)


def read_results(path):
    """Read a ``results.csv`` written by :func:`run_suite` into FoldResults.

    Parameters
    ----------
    path : str or path-like
        The ``results.csv`` file.

    Returns
    -------
    list of FoldResult
        One per row, in file order.

    Examples
    --------
    >>> import tempfile
    >>> from forestzoo.bench import read_results, run_suite
    >>> out = tempfile.mkdtemp()
    >>> run = run_suite("quick", models=["RaF"], datasets=["iris"], n_estimators=5, n_jobs=1, out=out)
    >>> len(read_results(f"{out}/results.csv"))
    3
    """
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = set(FIELDS) - set(_ADDED_FIELDS) - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{path} is not a forestzoo results file (no columns "
                             f"{sorted(missing)}).")
        return [_from_row(row) for row in reader]


@dataclass
class BenchRun:
    """What :func:`run_suite` returns: the suite as run and every result.

    ``results`` holds the rows of earlier (resumed) runs in the same output
    directory too; ``new`` counts those computed by this call.

    Parameters
    ----------
    suite : Suite
        The suite as run (with the caller's replacements).
    models : tuple of str
        The models run.
    datasets : tuple of str
        The datasets run.
    results : list of FoldResult
        Every result, earlier runs' in ``out`` included.
    n_jobs : int
        Threads passed to the models.
    random_state : int
        Seed of the splits and the models.
    out : pathlib.Path or None
        The output directory.
    new : int
        Results computed by this call.
    seconds : float
        Wall time of the run.
    warm_up_seconds : float, default=0.0
        Seconds of the untimed warm-up fits, included in ``seconds``.
    provenance : dict, default={}
        Library versions, machine and version history.

    Examples
    --------
    >>> from forestzoo.bench import run_suite
    >>> run = run_suite("quick", models=["RaF"], datasets=["iris"], n_estimators=5, n_jobs=1)
    >>> run.models, run.datasets, run.new
    (('RaF',), ('iris',), 3)
    """

    suite: Suite
    models: tuple
    datasets: tuple
    results: list
    n_jobs: int
    random_state: int
    out: Path | None
    new: int
    seconds: float
    #: seconds of the untimed warm-up fits (mostly Numba compilation on a cold cache),
    #: included in ``seconds`` and not counted against the time budget
    warm_up_seconds: float = 0.0
    #: ``versions`` (library -> version, ``forestzoo.bench.provenance.versions``),
    #: ``machine`` (platform, CPU count) and ``version_history`` (every version set of
    #: the rows in ``out``, more than one only after ``allow_version_change``)
    provenance: dict = field(default_factory=dict)


def _check_int(name, value, minimum):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")


def _resolve(suite, models, datasets, repeats, folds, n_estimators, target=None,
             categorical="refuse"):
    if isinstance(suite, str):
        suite = get_suite(suite)
    changes = {k: v for k, v in dict(repeats=repeats, folds=folds,
                                     n_estimators=n_estimators).items() if v is not None}
    if n_estimators is not None:
        changes["n_estimators_by_dataset"] = {}  # one size given: it holds for every dataset
    if (models is not None and len(models) == 0) or (datasets is not None
                                                     and len(datasets) == 0):
        raise ValueError("Give at least one dataset and one model.")
    if models is not None:
        changes["models"] = tuple(models)
    if datasets is not None:
        if target is not None and not any(is_data_spec(d) for d in datasets):
            raise ValueError(f"target={target!r} (--target) names a column of a data file; no "
                             f"dataset is a file or openml:<id>.")
        changes["datasets"] = tuple(dataset_from_spec(d, task=suite.task, target=target,
                                                      categorical=categorical)
                                    for d in datasets)
    elif target is not None:
        raise ValueError("target (--target) applies to data files named in datasets (--datasets).")
    suite = replace(suite, **changes)
    _check_int("repeats", suite.repeats, 1)
    _check_int("folds", suite.folds, 2)
    _check_int("n_estimators", suite.n_estimators, 1)
    model_names = tuple(get_model(m).name for m in resolve_models(suite))
    if not model_names or not suite.datasets:
        raise ValueError("Give at least one dataset and one model.")
    for name in model_names:
        spec = get_model(name)
        if spec.task != suite.task:
            raise ValueError(f"Model {name!r} is a {spec.task} model; suite {suite.name!r} "
                             f"scores {suite.task} ({suite.metric}).")
    suite = replace(suite, datasets=tuple(get_dataset_info(d).name for d in suite.datasets))
    for name in suite.datasets:
        info = get_dataset_info(name)
        if info.task != suite.task:
            raise ValueError(f"Dataset {name!r} is a {info.task} task; suite "
                             f"{suite.name!r} scores {suite.task} ({suite.metric}).")
    if len(set(model_names)) != len(model_names) or len(set(suite.datasets)) != len(suite.datasets):
        raise ValueError("A model or dataset is named twice.")
    return replace(suite, models=model_names), model_names, tuple(suite.datasets)


def load_suite(datasets, models, cv=5, data_home=None):
    """Check names and data files; return dataset name -> ``(X, y)``.

    Kept for the Python API; :func:`run_suite` checks the same things.

    Parameters
    ----------
    datasets : sequence of str
        Dataset names.
    models : sequence of str
        Model names (checked, not built).
    cv : int, default=5
        Folds (at least 2; checked only).
    data_home : str or path-like, optional
        Directory of the non-bundled dataset files.

    Returns
    -------
    dict
        Dataset name -> ``(X, y)``.

    Examples
    --------
    >>> from forestzoo.bench import load_suite
    >>> data = load_suite(["iris"], ["RaF"], cv=3)
    >>> data["iris"][0].shape
    (150, 4)
    """
    if not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}.")
    suite = Suite("custom", "", tuple(datasets), tuple(models), folds=cv)
    _, _, names = _resolve(suite, models, datasets, None, None, None)
    for name in names:
        check_files(name, data_home)
    return {name: load_with_parts(name, data_home)[:2] for name in names}


def _splits(suite, y, part, repeat, seed):
    """The (train, test) index pairs of one repeat."""
    classification = suite.task == "classification"
    if suite.protocol == "official" and np.any(part != "all"):
        return [(np.flatnonzero(part == "train"), np.flatnonzero(part == "test"))]
    rs = seed + repeat
    if suite.protocol == "cv":
        cv = (StratifiedKFold if classification else KFold)(
            n_splits=suite.folds, shuffle=True, random_state=rs)
    else:  # holdout, or "official" on a dataset without an official split
        cv = (StratifiedShuffleSplit if classification else ShuffleSplit)(
            n_splits=1, test_size=suite.test_size, random_state=rs)
    with warnings.catch_warnings():  # "least populated class has only n members"
        warnings.simplefilter("ignore", UserWarning)
        return list(cv.split(np.zeros((len(y), 1)), y))


def _zscore(X_train, X_test):
    # Standardise with the training part's statistics (the DNRF paper's protocol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        mean = np.nanmean(X_train, axis=0)
        std = np.nanstd(X_train, axis=0)
    mean = np.where(np.isfinite(mean), mean, 0.0)
    std = np.where(np.isfinite(std) & (std > 0), std, 1.0)
    return (X_train - mean) / std, (X_test - mean) / std


def _scores(task, y_true, y_pred):
    if task == "classification":
        acc = float(accuracy_score(y_true, y_pred))
        return dict(accuracy=acc, error=1.0 - acc)
    from ..denoising._noise import normalized_l1_error

    return dict(r2=float(r2_score(y_true, y_pred)),
                mae=float(mean_absolute_error(y_true, y_pred)),
                rmse=float(np.sqrt(mean_squared_error(y_true, y_pred))),
                nl1_error=normalized_l1_error(y_true, y_pred))


def _params(model):
    try:
        return json.dumps(model.get_params(deep=False), default=repr, sort_keys=True)
    except Exception:  # not a scikit-learn estimator
        return ""


def _log_warnings(out, dataset, model, messages, logged):
    """Append the warnings not yet seen for (dataset, model) to ``OUT/warnings.log``."""
    new = [m for m in messages if (dataset, model, m) not in logged]
    if not new or out is None:
        return
    with open(Path(out) / "warnings.log", "a", encoding="utf-8") as fh:
        for m in new:
            logged.add((dataset, model, m))
            fh.write(f"{dataset}\t{model}\t{m}\n")


def _fit_one(suite, name, X_tr, y_tr, X_te, y_te, n_jobs, seed, n_estimators):
    base = dict(suite=suite.name, model=name, n_train=len(y_tr), n_test=len(y_te),
                n_estimators=n_estimators, random_state=seed, accuracy=_NAN)
    fit_s = pred_s = 0.0
    # a model's warnings (convergence, empty areas, ...) would bury the table: they are
    # kept, once each, in OUT/warnings.log (see run_suite)
    caught = warnings.catch_warnings(record=True)
    log = caught.__enter__()
    warnings.simplefilter("always")
    try:
        model = make_model(name, n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
        base["params"] = _params(model)
        start = time.perf_counter()
        model.fit(X_tr, y_tr)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        y_pred = model.predict(X_te)
        pred_s = time.perf_counter() - start
        base.update(_scores(suite.task, y_te, y_pred))
        if suite.task == "classification" and hasattr(model, "selective_report"):
            # a reject-option method: how much of the score is its own (untimed)
            report = model.selective_report(X_te, y_te)
            base.update(coverage=float(report["coverage"]),
                        covered_accuracy=float(report["selective_accuracy"]))
        status = "ok"
    except Exception as exc:  # a model that fails is recorded, the run goes on
        status = f"failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    finally:
        caught.__exit__(None, None, None)
    said = [f"{w.category.__name__}: {' '.join(str(w.message).split())}" for w in log]
    base.update(n_warnings=len(said), first_warning=said[0][:500] if said else "")
    return base, status, fit_s, pred_s, sorted(set(said))


def _check_versions(out, old, config, allow_version_change):
    """Refuse to resume into results made with other library versions, unless allowed;
    return the version history to record (earlier sets first)."""
    history = old.get("version_history") or ([old["versions"]] if "versions" in old else [])
    if "versions" not in old:
        changes = {"(all)": ("not recorded", "this run's")}
    else:
        changes = version_changes(old["versions"], config["versions"])
    if changes and not allow_version_change:
        shown = ", ".join(f"{k} {a} there, {b} now" for k, (a, b) in changes.items())
        raise ValueError(f"{out} holds results made with other versions ({shown}); rows of "
                         f"different versions would mix in one table. Give another --out "
                         f"directory, or --allow-version-change (allow_version_change=True) "
                         f"to add to them anyway (run.json and the report then list every "
                         f"version set).")
    return history + ([config["versions"]] if changes or not history else [])


class _ResultsFile:
    """``results.csv`` opened for appending, one flushed and fsynced row at a time."""

    def __init__(self, out, config, allow_version_change=False):
        self.path = out / "results.csv"
        out.mkdir(parents=True, exist_ok=True)
        cfg_path = self.cfg_path = out / "run.json"
        config["version_history"] = [config["versions"]]
        if cfg_path.is_file() and self.path.is_file():
            old = json.loads(cfg_path.read_text(encoding="utf-8"))
            diff = {k: (old.get(k), config.get(k)) for k in _RESUME_KEYS if old.get(k) != config.get(k)}
            if diff:
                shown = ", ".join(f"{k}: {a!r} there, {b!r} now" for k, (a, b) in diff.items())
                raise ValueError(f"{out} holds results of a different run ({shown}); give "
                                 f"another --out directory or remove {self.path}.")
            if read_results(self.path):
                config["version_history"] = _check_versions(out, old, config, allow_version_change)
        self.config = config
        self.previous = read_results(self.path) if self.path.is_file() else []
        if self.previous:
            with open(self.path, newline="", encoding="utf-8") as fh:
                header = next(csv.reader(fh), [])
            if header != FIELDS:  # written before a column was added: rewrite in today's layout
                tmp = self.path.with_name(self.path.name + ".tmp")
                with open(tmp, "w", newline="", encoding="utf-8") as fh:
                    writer = csv.DictWriter(fh, fieldnames=FIELDS)
                    writer.writeheader()
                    writer.writerows(_to_row(r) for r in self.previous)
                os.replace(tmp, self.path)
        cfg_path.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        new_file = not self.path.is_file() or self.path.stat().st_size == 0
        self._fh = open(self.path, "a", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._fh, fieldnames=FIELDS)
        if new_file:
            self._writer.writeheader()
            self._fh.flush()

    def write(self, result):
        self._writer.writerow(_to_row(result))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self):
        self._fh.close()

    def record_versions(self, current):
        """Write the versions at the end of the run (peer libraries are imported by then)."""
        merged = {**self.config["version_history"][-1], **current}
        self.config["versions"] = self.config["version_history"][-1] = merged
        self.cfg_path.write_text(json.dumps(self.config, indent=1) + "\n", encoding="utf-8")


def _warm_up(models, X, y, suite, n_jobs):
    """Fit each model once, and predict with it, untimed, on a small slice: JIT
    compilation and imports are one-off costs that should not count as fit or
    predict time.  Returns the seconds it took."""
    rows = np.random.default_rng(0).permutation(len(y))[:120]
    start = time.perf_counter()
    for name in models:
        try:
            with warnings.catch_warnings():  # the timed fits log their warnings (warnings.log)
                warnings.simplefilter("ignore")
                model = make_model(name, n_estimators=min(suite.n_estimators, 5), n_jobs=n_jobs,
                                   random_state=0).fit(X[rows], y[rows])
                model.predict(X[rows])  # a cold predict compiles its kernels too
        except Exception:  # the timed fits will record the failure
            pass
    return time.perf_counter() - start


def run_suite(suite="quick", models=None, datasets=None, *, repeats=None, folds=None,
              n_estimators=None, n_jobs=2, random_state=0, data_home=None, out=None,
              on_result=None, on_plan=None, warm_up=True, target=None, categorical="refuse",
              allow_version_change=False):
    """Run a benchmark suite.

    Parameters
    ----------
    suite : str or Suite, default="quick"
        A registered suite name (``forestzoo.bench.list_suites()``) or a Suite.
    models, datasets : sequence of str, optional
        Replace the suite's models / datasets. Names ignore case. A model may
        be ``"module:callable"``, a factory returning a scikit-learn estimator
        (``forestzoo.bench.registry.model_from_spec``); a dataset may be the
        path of a CSV, Parquet or ``.npz`` file, or ``"openml:<data_id>"``
        (``forestzoo.datasets.load_file``), registered under the file's stem.
    repeats, folds, n_estimators : int, optional
        Replace the suite's protocol settings.
    n_jobs : int, default=2
        Passed to every model factory.
    random_state : int, default=0
        Seeds the splits (repeat ``r`` uses ``random_state + r``) and the
        models (``random_state + 1000 * repeat + fold``); every model sees the
        same splits.
    data_home : str or path-like, optional
        Directory of the non-bundled dataset files (default ``$FORESTZOO_DATA``).
    out : str or path-like, optional
        Directory for ``results.csv`` (one row per model and test part, written
        as soon as it exists), ``run.json`` and ``warnings.log`` (each distinct
        warning a model raised, once per dataset and model; warnings are not
        printed during a run). Rows already there for the same
        protocol are kept and not recomputed: an interrupted run resumes.
    on_result : callable, optional
        Called with each new :class:`FoldResult`.
    on_plan : callable, optional
        Called once with ``(total, already_done)`` counts of rows before fitting.
    warm_up : bool, default=True
        Fit every model once, and predict with it, untimed, before timing starts.
    target : str, optional
        The target column of the data files in ``datasets`` (default: the last).
    categorical : {"refuse", "onehot"}, default="refuse"
        Non-numeric feature columns of data files: an error naming them, or
        one-hot encoded.
    allow_version_change : bool, default=False
        Resume into an ``out`` directory whose results were made with other
        library versions (``run.json`` then lists every version set); refused
        otherwise.

    Returns
    -------
    BenchRun
        The suite as run and every result.

    Raises
    ------
    ValueError
        Unknown model, dataset or suite (the message lists the valid names),
        bad settings, a corrupt data file (its path is named), or an ``out``
        directory holding a different run or results of other library versions.
    FileNotFoundError
        A data-directory dataset or a data file that is missing.
    ConnectionError
        ``openml:<id>`` without a network.

    Examples
    --------
    >>> from forestzoo.bench import run_suite
    >>> run = run_suite("quick", models=["RaF"], datasets=["iris"], n_estimators=5, n_jobs=1)
    >>> len(run.results), all(r.ok for r in run.results)
    (3, True)
    """
    started = time.perf_counter()
    suite, model_names, dataset_names = _resolve(suite, models, datasets, repeats, folds,
                                                 n_estimators, target, categorical)
    _check_int("random_state", random_state, 0)
    for name in dataset_names:
        check_files(name, data_home)
    config = dict(suite=suite.name, protocol=suite.protocol, folds=suite.folds,
                  repeats=suite.repeats, test_size=suite.test_size,
                  n_estimators=suite.n_estimators, preprocess=suite.preprocess,
                  random_state=int(random_state), metric=suite.metric,
                  test_transform=(None if suite.test_transform is None
                                  else repr(suite.test_transform)))
    if suite.n_estimators_by_dataset:  # absent otherwise, so that earlier runs still resume
        config["n_estimators_by_dataset"] = dict(sorted(suite.n_estimators_by_dataset.items()))
    user = {get_dataset_info(d).source for d in dataset_names if get_dataset_info(d).loader}
    if user:
        config["user_datasets"] = sorted(user)
    packages = {get_model(m).package for m in model_names} - {None}
    config["versions"] = versions(extra=packages)
    config["machine"] = machine()
    sink = (_ResultsFile(Path(out), config, allow_version_change) if out is not None else None)
    history = [config["versions"]]
    results = list(sink.previous) if sink else []
    done = {r.key for r in results}
    logged = set()  # (dataset, model, warning) already in OUT/warnings.log
    n_parts = suite.folds if suite.protocol == "cv" else 1
    total = len(dataset_names) * suite.repeats * n_parts * len(model_names)
    todo = [(d, m) for d in dataset_names for m in model_names
            if any((d, m, r, f) not in done for r in range(suite.repeats)
                   for f in range(n_parts))]
    if on_plan is not None:
        on_plan(total, sum(1 for r in results if r.dataset in dataset_names
                           and r.model in model_names))
    budget = None
    if suite.time_budget_s is not None:
        budget = suite.time_budget_s / len(model_names)
    spent = {m: sum(r.fit_seconds + r.predict_seconds for r in results if r.model == m)
             for m in model_names}
    new = 0
    warm_up_seconds = 0.0
    try:
        warmed = not warm_up
        for dataset in dataset_names:
            pending = [m for d, m in todo if d == dataset]
            if not pending:
                continue
            X, y, part = load_with_parts(dataset, data_home)
            if not warmed:
                # the warm-up is not charged to the models' budgets: on a cold Numba cache it is
                # mostly compilation, a one-off cost of the install (when it counted, a fresh
                # install skipped RaF and five other models on every dataset after iris)
                warm_up_seconds = _warm_up(model_names, X, y, suite, n_jobs)
                warmed = True
            # the budget is checked once per dataset, so that a model runs all of a
            # dataset's folds or none (a partial mean would not be comparable)
            over = {m for m in pending if budget is not None and spent[m] > budget}
            for repeat in range(suite.repeats):
                for fold, (tr, te) in enumerate(_splits(suite, y, part, repeat, random_state)):
                    if all((dataset, m, repeat, fold) in done for m in pending):
                        continue
                    X_tr, X_te = X[tr], X[te]
                    if suite.preprocess == "zscore":
                        X_tr, X_te = _zscore(X_tr, X_te)
                    seed = int(random_state) + 1000 * repeat + fold
                    if suite.test_transform is not None:
                        # once per fold: every model is scored on the same transformed rows
                        X_te = suite.test_transform(X_tr, X_te, seed)
                    for name in pending:
                        if (dataset, name, repeat, fold) in done:
                            continue
                        if name in over:
                            result = FoldResult(dataset, name, fold, _NAN, 0.0, repeat,
                                                suite.name, "skipped: time budget",
                                                n_train=len(tr), n_test=len(te),
                                                n_estimators=suite.trees(dataset),
                                                random_state=seed)
                        else:
                            base, status, fit_s, pred_s, messages = _fit_one(
                                suite, name, X_tr, y[tr], X_te, y[te], n_jobs, seed, suite.trees(dataset))
                            _log_warnings(out, dataset, name, messages, logged)
                            spent[name] += fit_s + pred_s
                            result = FoldResult(dataset=dataset, fold=fold, repeat=repeat,
                                                status=status, fit_seconds=fit_s,
                                                predict_seconds=pred_s, **base)
                        if sink is not None:
                            sink.write(result)
                        results.append(result)
                        done.add(result.key)
                        new += 1
                        if on_result is not None:
                            on_result(result)
    finally:
        final = versions(extra=packages)  # the peer libraries the models imported
        if sink is not None:
            sink.close()
            sink.record_versions(final)
            history = sink.config["version_history"]
    return BenchRun(suite, model_names, dataset_names, results, n_jobs, int(random_state),
                    Path(out) if out is not None else None, new,
                    time.perf_counter() - started, warm_up_seconds,
                    dict(versions=history[-1] if sink else final, machine=config["machine"],
                         version_history=history))


def run_benchmark(datasets=DEFAULT_DATASETS, models=DEFAULT_MODELS, *, n_estimators=100,
                  cv=5, n_jobs=2, random_state=0, data_home=None, on_result=None,
                  data=None):
    """Score every model on every dataset with one stratified ``cv``-fold CV.

    A shortcut for :func:`run_suite` with an unnamed suite.

    Parameters
    ----------
    datasets : sequence of str, default=DEFAULT_DATASETS
        Dataset names.
    models : sequence of str, default=DEFAULT_MODELS
        Model names.
    n_estimators : int, default=100
        Trees per ensemble.
    cv : int, default=5
        Folds of the stratified cross-validation.
    n_jobs : int, default=2
        Passed to every model factory.
    random_state : int, default=0
        Seeds the splits and the models.
    data_home : str or path-like, optional
        Directory of the non-bundled dataset files.
    on_result : callable, optional
        Called with each new :class:`FoldResult`.
    data : object, optional
        Accepted for backward compatibility and ignored (datasets are loaded
        one at a time).

    Returns
    -------
    list of FoldResult
        One per model, dataset and fold.

    Examples
    --------
    >>> from forestzoo.bench import run_benchmark
    >>> results = run_benchmark(["iris"], ["RaF"], n_estimators=5, cv=2, n_jobs=1)
    >>> [(r.model, r.fold, r.status) for r in results]
    [('RaF', 0, 'ok'), ('RaF', 1, 'ok')]
    """
    if not isinstance(cv, (int, np.integer)) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2, got {cv!r}.")
    suite = Suite("custom", "ad-hoc cross-validation", tuple(datasets), tuple(models),
                  protocol="cv", folds=cv, repeats=1, n_estimators=n_estimators)
    run = run_suite(suite, n_jobs=n_jobs, random_state=random_state, data_home=data_home,
                    on_result=on_result)
    return run.results

