"""Random vector functional link (RVFL) networks and RVFL + forest hybrids.

:class:`RVFLClassifier` is the network alone (random hidden layer, direct
input-output links, closed-form ridge output weights);
:class:`RVFLClassifierCV` chooses its hyper-parameters by cross-validation
over the lecture's search space;
:class:`RVFLForestClassifier` is the lecture's ensemble of decision trees
with RVFL networks: RFL (axis-parallel trees) and obRFL (oblique trees).
"""

from ._cv import RVFLClassifierCV
from ._forest import RVFLForestClassifier
from ._rvfl import RVFLClassifier

__all__ = ["RVFLClassifier", "RVFLClassifierCV", "RVFLForestClassifier"]
