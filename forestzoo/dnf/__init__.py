"""Disjunctive normal decision trees and forests (DNDT, DNRF)."""

__all__ = []
