"""The models ``forestzoo bench`` can run, by name.

A model is registered as a factory that takes the benchmark's shared settings
(``n_estimators``, ``n_jobs``, ``random_state``) and returns an unfitted
estimator. Families added later register here with the abbreviation their
paper uses, e.g.::

    @register_model("RoF", "Rotation forest (Rodriguez et al. 2006)")
    def _rotation_forest(n_estimators, n_jobs, random_state):
        from forestzoo import RotationForestClassifier
        return RotationForestClassifier(n_estimators=n_estimators, ...)

Factories import their estimator lazily so that listing models stays cheap.
"""

from dataclasses import dataclass
from typing import Callable

__all__ = ["ModelSpec", "MODELS", "register_model", "get_model", "make_model"]


@dataclass(frozen=True)
class ModelSpec:
    """A registered model: its name, factory and one-line description."""

    name: str
    factory: Callable  # factory(n_estimators=, n_jobs=, random_state=) -> estimator
    description: str
    task: str = "classification"


MODELS: dict[str, ModelSpec] = {}


def register_model(name, description, task="classification"):
    """Decorator registering ``factory`` under ``name``; names must be unique."""

    def decorator(factory):
        if name in MODELS:
            raise ValueError(f"A model named {name!r} is already registered.")
        MODELS[name] = ModelSpec(name, factory, description, task)
        return factory

    return decorator


def get_model(name):
    """Return the :class:`ModelSpec` for ``name``; unknown names list the valid ones."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(
            f"Unknown model {name!r}. Valid names: {', '.join(MODELS)}."
        ) from None


def make_model(name, *, n_estimators=100, n_jobs=None, random_state=None):
    """Build the unfitted estimator registered under ``name``."""
    return get_model(name).factory(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )


@register_model("rf", "forestzoo RandomForestClassifier (histogram splitter)")
def _forestzoo_rf(n_estimators, n_jobs, random_state):
    from forestzoo import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )


@register_model("et", "forestzoo ExtraTreesClassifier (random thresholds)")
def _forestzoo_et(n_estimators, n_jobs, random_state):
    from forestzoo import ExtraTreesClassifier

    return ExtraTreesClassifier(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )


@register_model("sk-rf", "scikit-learn RandomForestClassifier, for reference")
def _sklearn_rf(n_estimators, n_jobs, random_state):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )


@register_model("sk-et", "scikit-learn ExtraTreesClassifier, for reference")
def _sklearn_et(n_estimators, n_jobs, random_state):
    from sklearn.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(
        n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state
    )
