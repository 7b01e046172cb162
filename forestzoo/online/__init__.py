"""Online random forests, grown with ``partial_fit``."""

from ._classes import OnlineRandomForestClassifier, OnlineRandomForestRegressor

__all__ = ["OnlineRandomForestClassifier", "OnlineRandomForestRegressor"]
