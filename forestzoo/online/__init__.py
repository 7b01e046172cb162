"""Online random forests, grown with ``partial_fit``."""

__all__ = []
