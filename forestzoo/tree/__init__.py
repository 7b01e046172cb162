"""Single trees grown by the forestzoo engine: CART (exact, histogram, random or stochastic SDT
split search) and the Haar tree (SDT over Haar features of images)."""

from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._haar import HaarTreeClassifier

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "HaarTreeClassifier"]
