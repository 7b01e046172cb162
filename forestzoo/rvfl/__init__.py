"""Random vector functional link (RVFL) networks and RVFL + forest hybrids.

:class:`RVFLClassifier` is the network alone (random hidden layer, direct
input-output links, closed-form ridge output weights);
:class:`RVFLForestClassifier` is the lecture's ensemble of decision trees
with RVFL networks: RFL (axis-parallel trees) and obRFL (oblique trees).
"""

from ._forest import RVFLForestClassifier
from ._rvfl import RVFLClassifier

__all__ = ["RVFLClassifier", "RVFLForestClassifier"]
