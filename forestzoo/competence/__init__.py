"""Competence-area decision forests (smart trees with incompetence leaves).

:class:`CompetenceForestClassifier` implements Donskoy (2016): smart trees cut
by an MDL stopping rule, grown one after the other on the rows the previous
trees are incompetent for, answering with the first competent tree or a
weighted vote of the competent ones.  It is a selective classifier: with
``reject="label"`` (the paper's behaviour) objects outside every tree's
competence area are rejected; :meth:`CompetenceForestClassifier.selective_report`
and :func:`risk_coverage_curve` measure coverage and the accuracy on what is covered.
"""

from ._forest import GAMMA_GRID, CompetenceForestClassifier
from ._selective import accuracy_at_coverage, risk_coverage_curve, selective_scores
from ._smart_tree import mdl_prune, mdl_threshold

__all__ = ["CompetenceForestClassifier", "accuracy_at_coverage", "risk_coverage_curve", "selective_scores"]
