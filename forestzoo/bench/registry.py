"""The models and suites ``forestzoo bench`` can run, by name.

Models are registered under the abbreviation their paper uses (RaF, ET, RoF,
MPRaF-T, obRaF(H), DNRF, ...), each as a factory that takes the benchmark's
shared settings and returns an unfitted estimator with the paper's default
hyper-parameters::

    @register_model("RoF", "Rotation forest (Rodriguez et al. 2006)", family="ensemble")
    def _rotation_forest(n_estimators, n_jobs, random_state):
        from forestzoo.ensemble import RotationForestClassifier
        return RotationForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs,
                                        random_state=random_state)

A model whose size is not a number of trees (a single tree, a network) takes
``n_estimators`` and ignores it, saying so in its description.

Registrations live in :mod:`forestzoo.bench.models`, one module per family;
every module there is imported the first time the registry is read, so a new
family only adds a file.  Factories import their estimator lazily so that
listing models stays cheap.

The user's models come in two ways, without a change to forestzoo: a name
``module:callable`` (``mypkg.models:make_hgb``), imported when it is looked
up, and the entry points of the ``forestzoo.models`` group of an installed
package, registered the first time the registry is read.  Either callable is a
factory returning an unfitted scikit-learn estimator; it receives those of
``n_estimators``, ``n_jobs`` and ``random_state`` that its signature names
(see :func:`model_from_spec`).

A *suite* names datasets, models and a protocol (see :class:`Suite`);
families register the suites their paper defines in the same modules. The
generic suites (``quick``, ``lecture-uci``) live in :mod:`forestzoo.bench.suites`.
"""

import importlib
import inspect
import pkgutil
import warnings
from dataclasses import dataclass, field
from typing import Callable

__all__ = [
    "ModelSpec", "Suite", "MODELS", "SUITES", "register_model", "register_suite", "get_model",
    "get_suite", "list_models", "list_suites", "make_model", "resolve_models", "METRICS",
    "PERCENT_METRICS", "ENTRY_POINT_GROUP", "model_from_spec",
]

#: Entry-point group under which an installed package registers its models:
#: ``[project.entry-points."forestzoo.models"]`` ``NAME = "module:factory"``.
ENTRY_POINT_GROUP = "forestzoo.models"


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: its name, factory and one-line description.

    Parameters
    ----------
    name : str
        The registry name.
    factory : callable
        ``factory(n_estimators=, n_jobs=, random_state=)`` returns the unfitted estimator.
    description : str
        One line describing the model.
    task : str, default="classification"
        "classification" or "regression".
    family : str, default=""
        The forestzoo subpackage, or "peer" for another library's model.
    reference : str, default=""
        The paper, "Author et al. YEAR".
    quick : bool, default=True
        Whether the model is part of the default ``quick`` suite.
    package : str or None, default=None
        Top-level package of a user's factory (its version is recorded).

    Examples
    --------
    >>> from forestzoo.bench import get_model
    >>> spec = get_model("RaF")
    >>> spec.name, spec.task, spec.family
    ('RaF', 'classification', 'ensemble')
    """

    name: str
    factory: Callable  # factory(n_estimators=, n_jobs=, random_state=) -> estimator
    description: str
    task: str = "classification"  # or "regression"
    family: str = ""  # forestzoo subpackage, or "peer" for another library's model
    reference: str = ""  # the paper, "Author et al. YEAR"
    quick: bool = True  # part of the default ``quick`` suite
    package: str | None = None  # top-level package of a user's factory (its version is recorded)


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


MODELS: dict[str, ModelSpec] = {}
SUITES: dict[str, Suite] = {}
_loaded = False


def _load_registrations():
    """Import every module of :mod:`forestzoo.bench.models` once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import models, suites  # noqa: F401  (suites registers the generic suites)

    # RaF and the other plain forests first: the first model is every report's reference
    for info in sorted(pkgutil.iter_modules(models.__path__), key=lambda m: (m.name != "forests", m.name)):
        if not info.name.startswith("_"):
            importlib.import_module(f"{models.__name__}.{info.name}")
    _load_entry_points()


def _load_entry_points():
    """Register the models of the ``forestzoo.models`` entry points of installed packages.

    One that cannot be loaded, or whose name is taken, is left out with a warning
    naming its package: a broken plug-in must not stop the others.
    """
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        package = getattr(ep.dist, "name", None) or ep.value
        try:
            _register_factory(ep.name, ep.load(), f"{ep.value} (entry point of {package})")
        except Exception as exc:
            warnings.warn(f"Model {ep.name!r} of the {ENTRY_POINT_GROUP!r} entry point of "
                          f"{package} is left out: {type(exc).__name__}: {exc}", UserWarning,
                          stacklevel=2)


def _call_factory(factory, n_estimators=100, n_jobs=None, random_state=None):
    """``factory(**settings)`` with those of the bench's settings that its signature takes."""
    settings = dict(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature: pass nothing
        return factory()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return factory(**settings)
    return factory(**{k: v for k, v in settings.items() if k in params})


def _register_factory(name, factory, origin):
    """Register a user's factory; its task comes from the estimator it builds."""
    if not callable(factory):
        raise ValueError(f"{origin} is not callable; expected a factory returning a "
                         f"scikit-learn estimator.")
    model = _call_factory(factory, n_estimators=2, n_jobs=1, random_state=0)
    if not (hasattr(model, "fit") and hasattr(model, "predict") and hasattr(model, "get_params")):
        raise ValueError(f"{origin} returned {type(model).__name__}, not a scikit-learn "
                         f"estimator (fit, predict, get_params).")
    from sklearn.base import is_regressor

    task = "regression" if is_regressor(model) else "classification"
    folded = {key.lower(): key for key in MODELS}
    if name.lower() in folded:
        raise ValueError(f"A model named {folded[name.lower()]!r} is already registered.")
    takes = [k for k in ("n_estimators", "n_jobs", "random_state")
             if _accepts(factory, k)]
    MODELS[name] = ModelSpec(
        name, lambda n_estimators=100, n_jobs=None, random_state=None: _call_factory(
            factory, n_estimators, n_jobs, random_state),
        f"{type(model).__name__} from {origin}; takes {', '.join(takes) or 'no bench setting'}",
        task, "user", "", quick=False,
        package=(getattr(factory, "__module__", None) or "").split(".")[0] or None)
    return MODELS[name]


def _accepts(factory, key):
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    return key in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def model_from_spec(spec):
    """Register ``"module:callable"`` (a factory returning an estimator) and return its spec.

    ``callable`` may be dotted (``module:Class.factory``) and may be an
    estimator class itself (``sklearn.ensemble:HistGradientBoostingClassifier``).
    It is called with those of ``n_estimators``, ``n_jobs`` and
    ``random_state`` that its signature names (all of them when it takes
    ``**kwargs``). The model is registered under the spec as given, so that
    results of different factories of the same name never mix; its task
    (classification or regression) is that of the estimator it returns.

    Raises
    ------
    ValueError
        A module that cannot be imported, a missing attribute, or a callable that
        does not return a scikit-learn estimator.
    """
    _load_registrations()
    if spec in MODELS:
        return MODELS[spec]
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"{spec!r}: expected module:callable, e.g. mypkg.models:make_hgb.")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"{spec!r}: cannot import module {module_name!r} ({exc}); is it "
                         f"installed, or on PYTHONPATH?") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{spec!r}: module {module_name!r} has no attribute {attr!r}.")
        obj = getattr(obj, part)
    return _register_factory(spec, obj, spec)


def register_model(name, description, task="classification", family="", reference="",
                   quick=True):
    """Decorator registering ``factory`` under ``name``; names must be unique.

    ``quick=False`` leaves the model out of the default ``quick`` suite (for
    models that need minutes on a small dataset); it can still be named.

    Parameters
    ----------
    name : str
        The registry name.
    description : str
        One line describing the model.
    task : {"classification", "regression"}, default="classification"
        The model's task.
    family : str, default=""
        The forestzoo subpackage, or "peer" for another library's model.
    reference : str, default=""
        The paper, "Author et al. YEAR".
    quick : bool, default=True
        Whether the model is part of the default ``quick`` suite.

    Returns
    -------
    callable
        The decorator; it registers ``factory`` and returns it unchanged.

    Examples
    --------
    >>> from forestzoo import ExtraTreesClassifier
    >>> from forestzoo.bench import MODELS, get_model, register_model
    >>> @register_model("ET-sqrt-doc", "Extra Trees, sqrt features", family="ensemble", quick=False)
    ... def et_sqrt(n_estimators, n_jobs, random_state):
    ...     return ExtraTreesClassifier(n_estimators, max_features="sqrt", n_jobs=n_jobs,
    ...                                 random_state=random_state)
    >>> get_model("ET-sqrt-doc").quick
    False
    >>> del MODELS["ET-sqrt-doc"]
    """

    def decorator(factory):
        if name in MODELS:
            raise ValueError(f"A model named {name!r} is already registered.")
        MODELS[name] = ModelSpec(name, factory, description, task, family, reference, quick)
        return factory

    return decorator


def register_suite(suite):
    """Register a :class:`Suite`; names must be unique.

    Parameters
    ----------
    suite : Suite
        The suite to register under its name.

    Returns
    -------
    Suite
        The suite itself.

    Examples
    --------
    >>> from forestzoo.bench import SUITES, Suite, get_suite, register_suite
    >>> suite = register_suite(Suite("iris-doc", "two forests on iris", ("iris",), ("RaF", "ET")))
    >>> get_suite("iris-doc") is suite
    True
    >>> del SUITES["iris-doc"]
    """
    if suite.name in SUITES:
        raise ValueError(f"A suite named {suite.name!r} is already registered.")
    SUITES[suite.name] = suite
    return suite


def _lookup(table, kind, name):
    _load_registrations()
    if name in table:
        return table[name]
    folded = {key.lower(): key for key in table}
    if isinstance(name, str) and name.lower() in folded:
        return table[folded[name.lower()]]
    raise ValueError(f"Unknown {kind} {name!r}. Valid names: {', '.join(table)}.")


def get_model(name):
    """Return the :class:`ModelSpec` for ``name`` (case-insensitive); unknown names list the valid ones.

    A ``module:callable`` name registers the user's factory (:func:`model_from_spec`).

    Parameters
    ----------
    name : str
        A registered name, or ``module:callable``.

    Returns
    -------
    ModelSpec
        The registered model.

    Examples
    --------
    >>> from forestzoo.bench import get_model
    >>> get_model("raf").name
    'RaF'
    """
    if isinstance(name, str) and ":" in name:
        return model_from_spec(name)
    return _lookup(MODELS, "model", name)


def get_suite(name):
    """Return the :class:`Suite` registered under ``name``; unknown names list the valid ones.

    Parameters
    ----------
    name : str
        A registered suite name (case-insensitive).

    Returns
    -------
    Suite
        The registered suite.

    Examples
    --------
    >>> from forestzoo.bench import get_suite
    >>> suite = get_suite("quick")
    >>> suite.protocol, suite.folds, suite.metric
    ('cv', 3, 'accuracy')
    """
    return _lookup(SUITES, "suite", name)


def list_models(task=None, family=None):
    """List the registered models, in registration order, optionally filtered.

    Parameters
    ----------
    task : {"classification", "regression"} or None, default=None
        Keep only the models of this task.
    family : str or None, default=None
        Keep only the models of this family (forestzoo subpackage, or "peer").

    Returns
    -------
    list of ModelSpec
        The matching models.

    Examples
    --------
    >>> from forestzoo.bench import list_models
    >>> [spec.name for spec in list_models(family="ensemble")][:2]
    ['RaF', 'ET']
    """
    _load_registrations()
    return [m for m in MODELS.values()
            if (task is None or m.task == task) and (family is None or m.family == family)]


def resolve_models(suite):
    """Give the suite's model names; ``()`` means every ``quick`` model of its task.

    Parameters
    ----------
    suite : Suite
        The suite.

    Returns
    -------
    tuple of str
        The names of the models the suite runs.

    Examples
    --------
    >>> from forestzoo.bench import get_suite, resolve_models
    >>> "RaF" in resolve_models(get_suite("quick"))
    True
    """
    _load_registrations()
    if suite.models:
        return tuple(suite.models)
    return tuple(m.name for m in MODELS.values() if m.task == suite.task and m.quick)


def list_suites():
    """List the registered suites, in registration order.

    Returns
    -------
    list of Suite
        The registered suites.

    Examples
    --------
    >>> from forestzoo.bench import list_suites
    >>> [suite.name for suite in list_suites()][0]
    'quick'
    """
    _load_registrations()
    return list(SUITES.values())


def make_model(name, *, n_estimators=100, n_jobs=None, random_state=None):
    """Build the unfitted estimator registered under ``name``.

    Parameters
    ----------
    name : str
        A registered model name (see :func:`get_model`).
    n_estimators : int, default=100
        Trees per ensemble.
    n_jobs : int or None, default=None
        Threads of the estimator.
    random_state : int, RandomState or None, default=None
        Seed of the estimator.

    Returns
    -------
    estimator
        The unfitted estimator.

    Examples
    --------
    >>> from forestzoo.bench import make_model
    >>> model = make_model("RaF", n_estimators=5, random_state=0)
    >>> type(model).__name__, model.n_estimators
    ('RandomForestClassifier', 5)
    """
    return get_model(name).factory(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )
