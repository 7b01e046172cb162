"""Competence-area decision forests (smart trees with incompetence leaves).

:class:`CompetenceForestClassifier` implements Donskoy (2016): smart trees cut
by an MDL stopping rule, grown one after the other on the rows the previous
trees are incompetent for, answering with the first competent tree or a
weighted vote of the competent ones.
"""

from ._forest import GAMMA_GRID, CompetenceForestClassifier
from ._smart_tree import mdl_prune, mdl_threshold

__all__ = ["CompetenceForestClassifier"]
