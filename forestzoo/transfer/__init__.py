"""Transfer-learning forests (SER, STRUT, MIX)."""

__all__ = []
