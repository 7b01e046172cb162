"""Competence-area decision forests (smart trees with incompetence leaves)."""

__all__ = []
