"""forestzoo: random-forest variants of the research literature on one compiled tree engine.

Every estimator is a scikit-learn estimator.  Each family lives in its own
subpackage (``forestzoo.tree``, ``forestzoo.ensemble``, ``forestzoo.oblique``,
...) whose ``__all__`` names its public estimators; they are re-exported here,
and :func:`all_estimators` lists them, so that the tests, the benchmark and
the persistence layer pick up a new family without a hand-written list.
"""

import ast
from importlib import import_module
from pathlib import Path

from ._compile import compile_kernels

__version__ = "0.1.0.dev0"

#: Subpackages holding public estimators, in the order they are exported.
FAMILIES = (
    "tree", "ensemble", "boosting", "oblique", "rvfl", "deep", "transfer", "online", "dnf",
    "competence", "denoising",
)


def _exports():
    """``{public name: family}``, read from each family's ``__all__`` without importing it.

    Families are imported on first access (PEP 562), so ``import forestzoo``
    stays cheap however many families exist.
    """
    exports = {}
    for family in FAMILIES:
        source = (Path(__file__).parent / family / "__init__.py").read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                for name in ast.literal_eval(node.value):
                    exports[name] = family
    return exports


_EXPORTS = _exports()
__all__ = ["FAMILIES", "all_estimators", "compile_kernels", "show_versions", "__version__", *_EXPORTS]


def __getattr__(name):
    family = _EXPORTS.get(name)
    if family is None:
        raise AttributeError(f"module 'forestzoo' has no attribute {name!r}")
    value = getattr(import_module(f".{family}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def show_versions(file=None):
    """Print the versions of forestzoo, Python and the libraries it runs on, and the platform.

    Besides the versions, forestzoo's commit (from a checkout), this
    machine's platform and its CPU count are printed.  The same versions are recorded in every ``forestzoo bench`` run (``run.json``
    and the report's header).

    Parameters
    ----------
    file : file-like, optional
        Where to print (default ``sys.stdout``).

    Examples
    --------
    >>> import io
    >>> import forestzoo
    >>> out = io.StringIO()
    >>> forestzoo.show_versions(out)
    >>> "scikit-learn" in out.getvalue()
    True
    """
    from .bench.provenance import show_versions as show

    show(file)


def all_estimators(family=None):
    """``(name, class)`` of every public forestzoo estimator, sorted by name.

    Parameters
    ----------
    family : str, optional
        One of :data:`FAMILIES`; default all.

    Returns
    -------
    list of (str, type)
        The estimators' names and classes.

    Examples
    --------
    >>> import forestzoo
    >>> [name for name, cls in forestzoo.all_estimators("tree")]
    ['DecisionTreeClassifier', 'DecisionTreeRegressor', 'HaarTreeClassifier']
    """
    from sklearn.base import BaseEstimator

    families = FAMILIES if family is None else (family,)
    found = {}
    for fam in families:
        if fam not in FAMILIES:
            raise ValueError(f"Unknown family {fam!r}; accepted: {', '.join(FAMILIES)}.")
        module = import_module(f".{fam}", __name__)
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return sorted(found.items())
