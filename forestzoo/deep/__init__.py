"""Deep forest (gcForest): multi-grained scanning and cascade forests."""

__all__ = []
