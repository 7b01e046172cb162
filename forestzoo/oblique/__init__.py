"""Oblique forests: node models (MPSVM, LDA, ridge, SVM, LS-SVM, logistic) and the forests built on them."""

__all__ = []
