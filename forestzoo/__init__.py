"""forestzoo: random-forest variants of the research literature on one compiled tree engine.

Every estimator is a scikit-learn estimator; :func:`all_estimators` lists them
so that tests, the benchmark and the persistence layer pick up new families
automatically.
"""

from .ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from .tree import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0.dev0"

__all__ = [
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "all_estimators",
    "__version__",
]


def all_estimators():
    """``(name, class)`` of every public forestzoo estimator, sorted by name."""
    from sklearn.base import BaseEstimator

    found = {name: obj for name, obj in globals().items() if isinstance(obj, type) and issubclass(obj, BaseEstimator)}
    return sorted(found.items())
