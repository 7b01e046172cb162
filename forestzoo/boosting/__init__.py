"""Boosting on the forestzoo engine: the AdaBoost family and gradient-boosted trees.

* :class:`AdaBoostClassifier`: AdaBoost.M1, SAMME, SAMME.R, LogitBoost,
  GentleBoost and RUSBoost over shallow forestzoo trees;
* :class:`AdaBoostRegressor`: LSBoost and AdaBoost.R2;
* :class:`GradientBoostingClassifier` / :class:`GradientBoostingRegressor`:
  gradient tree boosting on the histogram grower (ESL Algorithms 10.3, 10.4).
"""

from ._adaboost import AdaBoostClassifier
from ._adaboost_regressor import AdaBoostRegressor
from ._gradient import GradientBoostingClassifier, GradientBoostingRegressor

__all__ = ["AdaBoostClassifier", "AdaBoostRegressor", "GradientBoostingClassifier", "GradientBoostingRegressor"]
