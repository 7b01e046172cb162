"""Denoising random forests."""

__all__ = []
