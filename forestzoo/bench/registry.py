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

A *suite* names datasets, models and a protocol (:class:`Suite`); the generic
suites ``quick`` and ``lecture-uci`` are defined in :mod:`forestzoo.bench.suites`
and registered first, and families register the suites their paper defines in
the same modules as their models.
"""

import importlib
import inspect
import pkgutil
import warnings
from dataclasses import dataclass
from typing import Callable

from ._protocol import METRICS, PERCENT_METRICS, Suite  # re-exported

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


MODELS: dict[str, ModelSpec] = {}
SUITES: dict[str, Suite] = {}
_loaded = False


def _load_registrations():
    """Import every module of :mod:`forestzoo.bench.models` once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import models
    from .suites import GENERIC_SUITES

    for suite in GENERIC_SUITES:
        register_suite(suite)

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
    ignored = [k for k in ("n_estimators", "random_state") if k not in takes and k in model.get_params()]
    if ignored:
        # the results would still record the suite's settings beside the model's own
        warnings.warn(f"{origin} does not take {' or '.join(ignored)}, so {type(model).__name__} keeps its own "
                      f"({', '.join(f'{k}={model.get_params()[k]!r}' for k in ignored)}) instead of the suite's: "
                      f"its folds are not seeded or sized like the other models'. Add "
                      f"{' and '.join(ignored)} to the factory's parameters.", UserWarning, stacklevel=3)
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
