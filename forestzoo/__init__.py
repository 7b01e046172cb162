"""forestzoo: random-forest variants of the research literature on one compiled tree engine.

Every estimator is a scikit-learn estimator.  Each family lives in its own
subpackage (``forestzoo.tree``, ``forestzoo.ensemble``, ``forestzoo.oblique``,
...) whose ``__all__`` names its public estimators; they are re-exported here,
and :func:`all_estimators` lists them, so that the tests, the benchmark and
the persistence layer pick up a new family without a hand-written list.
"""

from importlib import import_module

__version__ = "0.1.0.dev0"

#: Subpackages holding public estimators, in the order they are exported.
FAMILIES = (
    "tree", "ensemble", "boosting", "oblique", "rvfl", "deep", "transfer", "online", "dnf",
    "competence", "denoising",
)

__all__ = ["FAMILIES", "all_estimators", "__version__"]

for _family in FAMILIES:
    _module = import_module(f".{_family}", __name__)
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
del _family, _module, _name


def all_estimators(family=None):
    """``(name, class)`` of every public forestzoo estimator, sorted by name.

    Parameters
    ----------
    family : str, optional
        One of :data:`FAMILIES`; default all.
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
