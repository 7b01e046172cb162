"""Transfer-learning forests (SER, STRUT, MIX; Segev et al. 2017)."""

from ._classes import TransferForestClassifier, TransferForestRegressor

__all__ = ["TransferForestClassifier", "TransferForestRegressor"]
