"""Disjunctive normal decision trees and forests (DNDT, DNRF).

Seyedhosseini & Tasdizen, "Disjunctive normal random forests", Pattern
Recognition 2015: a fitted tree is rewritten as a disjunction of
conjunctions of its splits, made differentiable, and all its split weights
are fine-tuned jointly by gradient descent.

:func:`tree_to_dnf` and :class:`DisjunctiveNormalForm` expose the
conversion of any axis-aligned forestzoo tree; :func:`dnf_scores` evaluates
one (``hard=True``: the indicator form of Eq. 2).
"""

from ._classes import DNDTClassifier, DNRFClassifier
from ._convert import DisjunctiveNormalForm, leaf_paths, tree_to_dnf
from ._kernels import evaluate as dnf_scores

__all__ = ["DNDTClassifier", "DNRFClassifier"]
