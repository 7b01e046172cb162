"""Forests of trees grown by the forestzoo engine."""

from ._random_forest import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from ._rotation import RotationForestClassifier, RotationForestRegressor

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "RandomForestClassifier", "RandomForestRegressor",
           "RotationForestClassifier", "RotationForestRegressor"]
