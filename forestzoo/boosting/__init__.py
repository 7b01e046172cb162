"""Boosting on the forestzoo engine: the AdaBoost family and gradient-boosted trees."""

__all__ = []
